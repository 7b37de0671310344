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
   way when their numerators are that small.) Larger numerators are rounded
   to doubles (within 2u each) and the product is within ``(d + 5) u |Qn||Kn|^T``
   (see ``scores_enclosure_inputs``); the shift is then by the double at the
   row's maximum - any constant leaves softmax unchanged - and its rounding
   (``u |diff|``) joins the scores' error in ``|x^ - x|``, which enters the
   exponential's bound as ``e^t - 1 <= t / (1 - t)``.
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
6. **Outputs.** ``V^ = Vn / Dv`` (relative error ``2.01u``; ``4.01u`` when the
   numerators were rounded) and ``O^ = W^ V^``
   by BLAS: ``|O^ - W^V^| <= gamma_m |W^||V^|`` for any order, with or without
   FMA. With the weights' bound: ``|O^ - O| <= (W^ (gamma_m + 2.1u) + rad_w
   (1 + 2.1u)) |V^|``, itself computed with non-negative terms and enlarged
   by ``(1 + 2 gamma_m) * 1.0001`` to cover its own rounding, plus 1e-290
   for underflow.

Every factor above is rounded up generously; the decimals only need the
bounds to be small (about 1e-13 relative), not tight.
"""

from __future__ import annotations

__all__ = ["Enclosure", "IntegerMatrix", "softmax_enclosure", "product_enclosure",
           "integer_matrix", "scale_of", "scores_enclosure_inputs", "scaled_enclosure",
           "exp_enclosure", "row_sum_enclosure"]

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from flint import arb, fmpq_mat, fmpz

from symattn.values.exact import Exact, to_ball, working_precision

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Doubles = NDArray[np.float64]

U = 2.0 ** -53                 # unit roundoff of IEEE double precision
_EXACT_LIMIT = 2 ** 52         # integers (and their shifted differences) stay exact below this
_LN2 = 0.6931471805599453       # ln 2 correctly rounded to a double: relative error below u
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

    mid: Doubles                 # n x m
    rad: Doubles                 # n x m, non-negative
    known: NDArray[np.bool_]     # n
    neg_inf: NDArray[np.bool_] | None = None   # n x m: entries exactly -oo (a mask), or None

    def block(self, rows: Sequence[int], columns: Sequence[int]) -> Enclosure:
        """The enclosure of the chosen rows and columns only."""
        import numpy as np

        row_index = np.asarray(rows, dtype=np.intp)
        index = np.ix_(row_index, np.asarray(columns, dtype=np.intp))
        neg_inf = None if self.neg_inf is None else self.neg_inf[index]
        return Enclosure(self.mid[index], self.rad[index], self.known[row_index], neg_inf)


@dataclass(frozen=True)
class IntegerMatrix:
    """``matrix == numerators / denominator``; ``numerators`` as doubles.

    ``exact``: every numerator is below 2**52 and was converted exactly;
    otherwise each double is within one unit in the last place (2u relative).
    """

    numerators: Doubles
    denominator: int
    exact: bool


def integer_matrix(matrix: fmpq_mat) -> IntegerMatrix | None:
    """The matrix over one common denominator; None if a numerator is beyond double range."""
    import numpy as np

    numerators, denominator = matrix.numer_denom()
    try:
        array = np.array(numerators.tolist(), dtype=np.float64).reshape(
            matrix.nrows(), matrix.ncols())
    except OverflowError:
        return None
    largest = float(np.abs(array).max()) if array.size else 0.0
    if not largest < 1e150:      # room for products and sums without overflow
        return None
    # Conversion is monotone, so an integer of 2**52 or more converts to at
    # least 2**52: below that every entry was converted exactly.
    return IntegerMatrix(array, int(denominator), largest < _EXACT_LIMIT)


def _largest(array: Doubles) -> int:
    return int(abs(array).max()) if array.size else 0


def scale_of(factor: Exact, denominator: int) -> float | None:
    """``factor / denominator`` as a double within 2u relative, or None."""
    ball = to_ball(factor, 200)
    if ball is None:
        return None
    with working_precision(200):
        ball = ball / arb(fmpz(denominator))
    value = float(ball.mid())
    if not (1e-280 < value < 1e280) or float(ball.rad()) > value * 2.0 ** -150:
        return None
    return value


def _exp_nonpositive(x: Doubles) -> tuple[Doubles, Doubles]:
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


def softmax_enclosure(scores: Doubles, scale: float, allowed: NDArray[np.bool_],
                      score_errors: Doubles | None = None) -> Enclosure:
    """Weights ``softmax(scale * scores)`` over the allowed entries of each row.

    ``scores`` are doubles within ``score_errors`` (entrywise; None: exact
    integers, each at most 2**52 in size) of the true integer scores;
    ``scale`` is within 2u of the true positive factor; ``allowed`` is a bool
    matrix (False: masked, weight exactly 0).

    >>> import numpy as np
    >>> e = softmax_enclosure(np.array([[0.0, 1.0]]), 1.0, np.array([[True, True]]))
    >>> abs(float(e.mid[0, 1]) - 0.731058578630004879) <= float(e.rad[0, 1]) < 1e-13
    True
    """
    import numpy as np

    with np.errstate(all="ignore"):   # overflow to inf only ever makes a row unknown
        return _softmax_enclosure(scores, scale, allowed, score_errors)


_Shifted = tuple["Doubles", "Doubles", "Doubles", "NDArray[np.bool_]"]
_SHIFTED: list[tuple[tuple[object, ...], NDArray[np.bool_], _Shifted]] = []


def _shifted_exps(scores: Doubles, scale: float, allowed: NDArray[np.bool_],
                  score_errors: Doubles | None) -> _Shifted:
    """``e^((S - top) c)`` and its error bound for the allowed entries (0 elsewhere),
    with ``top`` the double at each row's largest allowed score; and which rows
    have an allowed entry. The exponentials' and the weights' enclosures of one
    head ask with the same arrays: the last answer is kept (read-only arrays)."""
    import numpy as np

    key = (scores, scale, score_errors)
    if _SHIFTED and _SHIFTED[0][0][0] is scores and _SHIFTED[0][0][1] == scale and \
            _SHIFTED[0][0][2] is score_errors and np.array_equal(_SHIFTED[0][1], allowed):
        return _SHIFTED[0][2]
    found = _compute_shifted(scores, scale, allowed, score_errors)
    for array in found:
        array.flags.writeable = False
    _SHIFTED[:] = [(key, allowed.copy(), found)]
    return found


def _compute_shifted(scores: Doubles, scale: float, allowed: NDArray[np.bool_],
                     score_errors: Doubles | None) -> _Shifted:
    import numpy as np

    known = allowed.any(axis=1)
    # The shift is the double at each row's maximum: any constant per row
    # leaves softmax unchanged, so the shift itself carries no error.
    top = np.where(allowed, scores, -np.inf).max(axis=1, initial=-np.inf)
    top = np.where(known, top, 0.0)
    diff = np.where(allowed, scores - top[:, None], 0.0)     # <= 0; exact when scores are
    x = diff * scale
    x_error = 3.01 * U * np.abs(x)
    if score_errors is not None:   # the scores' own error, and rounding in the shift
        x_error = x_error + 1.01 * scale * (score_errors + U * np.abs(diff))
    exps, exp_errors = _exp_nonpositive(x)
    # |e^x - e^x^| <= e^x^ (e^t - 1) with t = |x - x^|, and e^t - 1 <= t / (1 - t):
    # a generous t (inexact scores) is bounded correctly, or the row is given up.
    growth = np.where(x_error < 0.5, x_error / (1.0 - x_error), np.inf)
    exp_errors = exp_errors + 1.001 * exps * growth
    exps = np.where(allowed, exps, 0.0)
    exp_errors = np.where(allowed, exp_errors, 0.0)
    return exps, exp_errors, np.asarray(top, dtype=np.float64), np.asarray(known, dtype=bool)


def _softmax_enclosure(scores: Doubles, scale: float, allowed: NDArray[np.bool_],
                       score_errors: Doubles | None) -> Enclosure:
    import numpy as np

    m = scores.shape[1]
    exps, exp_errors, _, known = _shifted_exps(scores, scale, allowed, score_errors)
    sums = exps.sum(axis=1)
    sum_errors = 1.01 * (exp_errors.sum(axis=1) + m * U * sums)
    safe_sums = np.where(known, sums, 1.0)
    relative_sum_error = sum_errors / safe_sums
    known = known & (relative_sum_error <= 1e-6)      # False for nan too
    weights = exps / safe_sums[:, None]
    radius = (exp_errors / safe_sums[:, None] + weights * relative_sum_error[:, None]) \
        * (1 + 1e-5) + (2 * U) * weights
    return Enclosure(weights, radius, known)


def product_enclosure(weights: Enclosure, values: IntegerMatrix) -> Enclosure | None:
    """``weights @ V`` for V given over one common denominator."""
    import numpy as np

    try:
        denominator = float(values.denominator)
    except OverflowError:
        return None
    if denominator > 1e200:
        return None
    # V^ = fl(Vn / fl(D)): 2.01u relative, 4.01u when Vn was itself rounded.
    value_error = (2.1 if values.exact else 4.1) * U
    scaled_values = values.numerators / denominator
    nonzero = scaled_values[scaled_values != 0]
    if nonzero.size and float(np.abs(nonzero).min()) < 1e-280:
        return None     # subnormal values: relative bounds no longer hold
    m = scaled_values.shape[0]
    gamma = (m + 1) * U / (1 - (m + 1) * U)
    with np.errstate(all="ignore"):   # rows that are not known may hold anything
        mid = weights.mid @ scaled_values
        bound = (weights.mid * (gamma + value_error) + weights.rad * (1 + value_error)) \
            @ np.abs(scaled_values)
        radius = bound * ((1 + 2 * gamma) * 1.0001) + 1e-290
        known = weights.known & np.isfinite(radius).all(axis=1) & np.isfinite(mid).all(axis=1)
    return Enclosure(mid, radius, known)


def scores_enclosure_inputs(base: fmpq_mat, factors: tuple[fmpq_mat, fmpq_mat] | None
                            ) -> tuple[Doubles, Doubles | None, int] | None:
    """``(S, errors, D)``: the integer scores as doubles within ``errors`` (None:
    exact) over the denominator D; None if they are beyond double range.

    With ``factors`` (Q, K and base == Q K^T) the product is formed in BLAS:
    exact when every partial sum stays below 2**52 (step 1); otherwise within
    ``(d + 5) u |Qn| |Kn|^T`` - the rounding of any summation order plus 2u
    for each rounded factor - itself computed with non-negative terms and
    enlarged by 1% for its own rounding. Without factors: the base's own
    numerators, exact or within 2u each.
    """
    import numpy as np

    if factors is not None:
        query, key = factors
        q = integer_matrix(query)
        k = integer_matrix(key)
        if q is None or k is None:
            return None
        scores = q.numerators @ k.numerators.T
        d = query.ncols()
        if q.exact and k.exact and d * _largest(q.numerators) * _largest(k.numerators) \
                <= _EXACT_LIMIT:
            return scores, None, q.denominator * k.denominator
        with np.errstate(all="ignore"):
            errors = (1.01 * (d + 5) * U) * (np.abs(q.numerators) @ np.abs(k.numerators).T)
        if not (np.isfinite(scores).all() and np.isfinite(errors).all()):
            return None
        return scores, errors, q.denominator * k.denominator
    matrix = integer_matrix(base)
    if matrix is None:
        return None
    if matrix.exact:
        return matrix.numerators, None, matrix.denominator
    return matrix.numerators, (2.01 * U) * np.abs(matrix.numerators), matrix.denominator


def scaled_enclosure(numerators: Doubles, errors: Doubles | None, scale: float,
                     neg_inf: NDArray[np.bool_] | None = None) -> Enclosure:
    """``scale * S`` for integers S given as doubles within ``errors`` (None:
    exact) and ``scale`` within 2u of the true factor: a rational matrix
    (``scale = 1/D``) or the scaled scores, for writing their decimals.

    ``|S c - fl(S^ c^)| <= |S - S^| c + |S^| |c - c^| + u |fl(S^ c^)|``, below
    ``1.01 errors scale + 3.1 u |mid|``; a non-zero entry whose product
    underflowed keeps a radius of 1e-300, so only an exact zero prints as 0.
    ``neg_inf`` marks entries that are exactly -oo (masked or given so).

    >>> import numpy as np
    >>> e = scaled_enclosure(np.array([[0.0, 3.0]]), None, 0.5)
    >>> e.mid.tolist(), bool(e.rad[0, 0] == 0.0), bool(0 < e.rad[0, 1] < 1e-14)
    ([[0.0, 1.5]], True, True)
    """
    import numpy as np

    with np.errstate(all="ignore"):   # overflow gives inf: never decided, decided exactly
        mid = numerators * scale
        rad = (3.1 * U) * np.abs(mid) + np.where(numerators != 0, 1e-300, 0.0)
        if errors is not None:
            rad = rad + (1.01 * scale) * errors
    known = np.ones(mid.shape[0], dtype=bool)
    return Enclosure(mid, rad, known, neg_inf)


def exp_enclosure(scores: Doubles, score_errors: Doubles | None, factor: Exact,
                  denominator: int, allowed: NDArray[np.bool_]) -> Enclosure | None:
    """``e^(factor S / D)`` for the allowed entries (0 where masked): the
    exponentials before the shift, as ``e^((S - top) c) * e^(top c)`` with the
    first factor from the softmax enclosure and ``e^(top c)`` from a 200-bit
    ball, rounded to a double (2u); the product adds u. None when the
    exponentials leave double range.
    """
    import numpy as np

    scale = scale_of(factor, denominator)
    ball = to_ball(factor, 200)
    if scale is None or ball is None:
        return None
    with np.errstate(all="ignore"):
        exps, exp_errors, top, known = _shifted_exps(scores, scale, allowed, score_errors)
    row_factors = []
    with working_precision(200):
        step = ball / arb(fmpz(denominator))
        for t in top.tolist():   # each top is a double, exactly an arb
            value = float((step * arb(t)).exp().mid())
            if not 1e-280 < value < 1e280:
                return None
            row_factors.append(value)
    rows = np.asarray(row_factors)[:, None]
    with np.errstate(all="ignore"):
        mid = exps * rows
        rad = (exp_errors * rows + (3.01 * U) * mid) * 1.0001
        known = known & np.isfinite(mid).all(axis=1) & np.isfinite(rad).all(axis=1)
    return Enclosure(mid, rad, known)


def row_sum_enclosure(terms: Enclosure) -> Enclosure:
    """The row sums of non-negative terms (exponentials): the sum of the bounds,
    plus (m + 1) u of the sum for the summation's own rounding in any order."""
    import numpy as np

    m = terms.mid.shape[1]
    with np.errstate(all="ignore"):
        mid = terms.mid.sum(axis=1, keepdims=True)
        rad = (terms.rad.sum(axis=1, keepdims=True) + (m + 1) * 1.01 * U * mid) * 1.0001
    return Enclosure(mid, rad, terms.known & np.isfinite(rad[:, 0]))
