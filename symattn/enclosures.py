"""Certified enclosures of whole softmax and output matrices in double precision.

For a large head, deciding a million decimals one ``arb`` ball at a time costs
about a microsecond each. Here the same question is answered for a whole
matrix at once with numpy: every entry gets a double ``mid`` and a bound
``rad`` with ``|true value - mid| <= rad``, proved from IEEE double arithmetic
alone (each ``+ - * /`` and each conversion of an integer below 2**53 is
exact or correctly rounded, relative error at most ``U = 2**-53``). Entries
whose decimal the enclosure cannot settle - an exact halfway case, a value
hugging a rounding boundary - go back to the exact path, so nothing is ever
decided on a float's say-so alone.

The error analysis, step by step (``u = U``):

1. **Scores.** ``Q = Qn / Dq`` and ``K = Kn / Dk`` with integer matrices.
   When ``d * max|Qn| * max|Kn| <= 2**52`` every partial sum of ``Qn Kn^T``
   is an integer below 2**52, so the BLAS product is *exact* in whatever
   order it adds. The shift by the row maximum, ``diff = S - max``, is an
   integer below 2**53: exact too. (Scores given directly are used the same
   way when their numerators are that small.)
2. **Scaling.** ``x = diff * c`` with ``c = factor / (Dq Dk)``. ``c`` is
   rounded from a 200-bit ball (relative error below ``2u``), the product
   adds ``u``: ``|x^ - x| <= 3.01 u |x^|``.
3. **exp.** Not numpy's ``exp`` (whose accuracy is not documented): for
   ``-700 <= x^ <= 0``, ``k = rint(x^/ln 2)``, ``r^ = x^ - fl(k * LN2)``,
   then a degree-13 Taylor polynomial by Horner and ``ldexp(p, k)`` (exact:
   no subnormals above e^-700). ``|r^ - (x^ - k ln 2)| <= 2.02 u |k| ln 2 +
   0.36 u``; the polynomial's truncation (<= 1e-17), coefficients and Horner
   rounding (``gamma_26 * e^0.36 / e^-0.36`` relative) stay below 1e-14
   relative. So ``|e^ - e^x| <= e^ * 1.001 (1.1e-14 + 2.02 u ln2 |k| +
   |x^ - x|)``. Below ``x^ = -700`` the enclosure is ``[0, 1e-300]``.
4. **Row sums.** A row holds one exact 1 (the maximum), so ``S^ >= 1``; any
   summation order errs by at most ``(m - 1) u sum`` for non-negative terms.
5. **Weights.** ``w^ = e^ / S^`` and ``|w - w^| <= (err_e / S^ + w^ err_S /
   S^)(1 + 1e-5) + 2u w^`` while ``err_S / S^ <= 1e-6`` (checked).
6. **Outputs.** ``V^ = Vn / Dv`` (relative error ``2.01u``) and ``O^ = W^ V^``
   by BLAS: ``|O^ - W^V^| <= gamma_m |W^||V^|`` for any order, with or without
   FMA. With the weights' bound: ``|O^ - O| <= (W^ (gamma_m + 2.1u) + rad_w
   (1 + 2.1u)) |V^|``, itself computed with non-negative terms and enlarged
   by ``(1 + 2 gamma_m) * 1.0001`` to cover its own rounding, plus 1e-290
   for underflow.

Every factor above is rounded up generously; the decimals only need the
bounds to be small (about 1e-13 relative), not tight.
"""

from __future__ import annotations

__all__ = ["Enclosure", "softmax_enclosure", "product_enclosure", "integer_matrix", "scale_of",
           "scores_enclosure_inputs"]

import math
from dataclasses import dataclass
from typing import Any, Sequence

from flint import arb, ctx, fmpq_mat, fmpz

U = 2.0 ** -53                 # unit roundoff of IEEE double precision
_EXACT_LIMIT = 2 ** 52         # integers (and their shifted differences) stay exact below this
_LN2 = math.log(2.0)           # ln 2 rounded to a double: relative error at most u
_INV_LN2 = 1.0 / _LN2          # only picks k: any integer k works, the bound measures |r|
_TAYLOR = [1.0 / math.factorial(i) for i in range(14)]   # 1/i!, each within u
_DEEP = -700.0                 # e^x below this is enclosed as [0, 1e-300]
_R_MAX = 0.36                  # |r| after range reduction (ln2 / 2 = 0.3466 plus slack)


@dataclass(frozen=True)
class Enclosure:
    """``|true - mid| <= rad`` entrywise, for the rows where ``known`` is True.

    Rows not known (a fully masked row, a row whose bound came out too wide)
    hold meaningless numbers and must be decided another way.
    """

    mid: Any          # numpy float64 array, n x m
    rad: Any          # numpy float64 array, n x m, non-negative
    known: Any        # numpy bool array, n

    def block(self, rows: Sequence[int], columns: Sequence[int]) -> Enclosure:
        import numpy as np

        index = np.ix_(np.asarray(rows, dtype=np.intp), np.asarray(columns, dtype=np.intp))
        return Enclosure(self.mid[index], self.rad[index], self.known[np.asarray(rows, dtype=np.intp)])


def integer_matrix(matrix: fmpq_mat) -> tuple[Any, int] | None:
    """``(Mn, D)`` with ``matrix == Mn / D``, Mn as exact doubles; None if too large."""
    import numpy as np

    numerators, denominator = matrix.numer_denom()
    try:
        array = np.array(numerators.tolist(), dtype=np.float64).reshape(
            matrix.nrows(), matrix.ncols())
    except OverflowError:
        return None
    # Conversion is monotone, so an integer of 2**52 or more converts to at
    # least 2**52: below that every entry was converted exactly.
    if array.size and float(np.abs(array).max()) >= _EXACT_LIMIT:
        return None
    return array, int(denominator)


def _largest(array: Any) -> int:
    return int(abs(array).max()) if array.size else 0


def scale_of(factor: Any, denominator: int) -> float | None:
    """``factor / denominator`` as a double within 2u relative, or None."""
    from symattn.exact import to_ball

    ball = to_ball(factor, 200)
    if ball is None:
        return None
    old = ctx.prec
    ctx.prec = 200
    try:
        ball = ball / arb(fmpz(denominator))
    finally:
        ctx.prec = old
    value = float(ball.mid())
    if not (1e-280 < value < 1e280) or float(ball.rad()) > value * 2.0 ** -150:
        return None
    return value


def _exp_nonpositive(x: Any) -> tuple[Any, Any]:
    """e^x and an absolute error bound for x <= 0 (x exact here; see step 3)."""
    import numpy as np

    deep = x < _DEEP
    safe = np.where(deep, 0.0, x)
    k = np.rint(safe * _INV_LN2)
    r = safe - k * _LN2
    if r.size and float(np.abs(r).max()) > _R_MAX:   # cannot happen; never trust it silently
        raise ArithmeticError("range reduction left |r| > 0.36")
    p = np.full_like(r, _TAYLOR[13])
    for coefficient in reversed(_TAYLOR[:13]):
        p = p * r + coefficient
    values = np.ldexp(p, k.astype(np.intc))
    relative = 1.001 * (1.1e-14 + (2.02 * U * _LN2) * np.abs(k))
    errors = values * relative
    values = np.where(deep, 0.0, values)
    errors = np.where(deep, 1e-300, errors)
    return values, errors


def softmax_enclosure(scores: Any, scale: float, allowed: Any) -> Enclosure:
    """Weights ``softmax(scale * scores)`` over the allowed entries of each row.

    ``scores`` are exact integers as doubles, each at most 2**52 in size;
    ``scale`` is within 2u of the true positive factor; ``allowed`` is a bool
    matrix (False: masked, weight exactly 0).
    """
    import numpy as np

    with np.errstate(all="ignore"):   # overflow to inf only ever makes a row unknown
        return _softmax_enclosure(scores, scale, allowed)


def _softmax_enclosure(scores: Any, scale: float, allowed: Any) -> Enclosure:
    import numpy as np

    n, m = scores.shape
    known = allowed.any(axis=1)
    top = np.where(allowed, scores, -np.inf).max(axis=1, initial=-np.inf)
    top = np.where(known, top, 0.0)
    diff = np.where(allowed, scores - top[:, None], 0.0)     # exact integers <= 0
    x = diff * scale
    x_error = 3.01 * U * np.abs(x)
    exps, exp_errors = _exp_nonpositive(x)
    exp_errors = exp_errors + 1.001 * exps * x_error
    exps = np.where(allowed, exps, 0.0)
    exp_errors = np.where(allowed, exp_errors, 0.0)
    sums = exps.sum(axis=1)
    sum_errors = 1.01 * (exp_errors.sum(axis=1) + m * U * sums)
    safe_sums = np.where(known, sums, 1.0)
    relative_sum_error = sum_errors / safe_sums
    known &= relative_sum_error <= 1e-6      # False for nan too
    weights = exps / safe_sums[:, None]
    radius = (exp_errors / safe_sums[:, None] + weights * relative_sum_error[:, None]) \
        * (1 + 1e-5) + (2 * U) * weights
    return Enclosure(weights, radius, known)


def product_enclosure(weights: Enclosure, values: Any, value_denominator: int) -> Enclosure | None:
    """``weights @ (values / value_denominator)`` with exact integer ``values``."""
    import numpy as np

    try:
        denominator = float(value_denominator)
    except OverflowError:
        return None
    if denominator > 1e200:
        return None
    scaled_values = values / denominator
    m = values.shape[0]
    gamma = (m + 1) * U / (1 - (m + 1) * U)
    with np.errstate(all="ignore"):   # rows that are not known may hold anything
        mid = weights.mid @ scaled_values
        bound = (weights.mid * (gamma + 2.1 * U) + weights.rad * (1 + 2.1 * U)) \
            @ np.abs(scaled_values)
        radius = bound * ((1 + 2 * gamma) * 1.0001) + 1e-290
        known = weights.known & np.isfinite(radius).all(axis=1) & np.isfinite(mid).all(axis=1)
    return Enclosure(mid, radius, known)


def scores_enclosure_inputs(base: fmpq_mat, factors: tuple[fmpq_mat, fmpq_mat] | None
                            ) -> tuple[Any, int] | None:
    """Exact integer scores as doubles and their denominator, or None if too large.

    With ``factors`` (Q, K and base == Q K^T) the product is formed in BLAS,
    exact by the size check (step 1); otherwise the base's own numerators.
    """
    if factors is not None:
        query, key = factors
        q = integer_matrix(query)
        k = integer_matrix(key)
        if q is None or k is None:
            return None
        (q_num, q_den), (k_num, k_den) = q, k
        if query.ncols() * _largest(q_num) * _largest(k_num) > _EXACT_LIMIT:
            return None
        return q_num @ k_num.T, q_den * k_den
    return integer_matrix(base)

