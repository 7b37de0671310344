"""Exact functions of a row of weights: softmax, entropy, the softmax Jacobian's norm.

For the diagnostics steps and the experiments. Like ``arith`` they keep a
rational result rational (decided by structure, not by digits); anything else
is an ``Irrational`` whose exact text is built only when someone reads it.

>>> softmax([fmpq(1), fmpq(1)]), entropy_bits([fmpq(1, 2), fmpq(1, 2)])
([1/2, 1/2], 1)
"""

from __future__ import annotations

__all__ = ["log2", "entropy_bits", "softmax", "softmax_jacobian_norm", "mean"]

import math
from typing import Callable, Iterable, Sequence

from flint import arb, fmpq

from symattn.values.arith import finite_ball, parenthesised, sqrt
from symattn.values.exact import (NAN, NEG_INF, Exact, Irrational, Surd, exact_text, rational_text,
                                  working_precision)


def _lazy(describe: Callable[[], str], evaluate: Callable[[int], arb]) -> Irrational:
    def ball(prec: int) -> arb:
        with working_precision(prec + 10):
            return evaluate(prec + 10)
    return Irrational(describe, ball)


def _two_adic(n: int) -> int:
    """The exponent of 2 in the positive integer n."""
    return (n & -n).bit_length() - 1


def _power_of_two(q: fmpq) -> int | None:
    """e when q = 2**e exactly (e may be negative), else None."""
    p, d = int(q.p), int(q.q)
    if p > 0 and d == 1 and p & (p - 1) == 0:
        return p.bit_length() - 1
    if p == 1 and d & (d - 1) == 0:
        return -(d.bit_length() - 1)
    return None


def log2(value: Exact) -> Exact:
    """Logarithm to base 2 of a positive value.

    Rational exactly when the value is a power of 2 (an integer), since
    log2(p/q) = a/b would make (p/q)**b = 2**a; otherwise ``log(x)/log(2)``.

    >>> log2(fmpq(8)), log2(fmpq(1, 4)), log2(fmpq(1))
    (3, -2, 0)
    >>> log2(fmpq(6)).text
    'log(6)/log(2)'
    """
    if value is NEG_INF or value is NAN:
        raise ValueError(f"log2 of {exact_text(value)} is undefined")
    if isinstance(value, fmpq):
        if value <= 0:
            raise ValueError(f"log2 of {rational_text(value)}: the argument must be positive")
        exponent = _power_of_two(value)
        if exponent is not None:
            return fmpq(exponent)
    elif isinstance(value, Surd):
        if value.coefficient <= 0:
            raise ValueError(f"log2 of {exact_text(value)}: the argument must be positive")
        exponent = _power_of_two(value.coefficient ** 2 * value.radicand)
        if exponent is not None:           # (a sqrt(b))**2 = 2**e: log2 = e/2
            return fmpq(exponent, 2)
    return _lazy(lambda: f"log({exact_text(value)})/log(2)",
                 lambda prec: finite_ball(value, prec).log() / arb.const_log2())


def _positive_terms(values: Iterable[Exact], what: str) -> list[Exact] | None:
    """The non-zero entries of a probability vector; None when one is nan."""
    result = []
    for value in values:
        if value is NAN:
            return None
        if value is NEG_INF:
            raise ValueError(f"a {what} cannot be -oo")
        if isinstance(value, fmpq):
            if value < 0:
                raise ValueError(f"the {what} {rational_text(value)} is negative")
            if value == 0:
                continue
        elif isinstance(value, Surd) and value.coefficient < 0:
            raise ValueError(f"the {what} {exact_text(value)} is negative")
        result.append(value)
    return result


def _coprime_basis(numbers: Iterable[int]) -> list[int]:
    """Pairwise coprime integers > 1 over which every given number factors.

    Gcd refinement, no prime factorisation: splitting b and x by g = gcd(b, x)
    into b/g, g, x/g keeps every number a product of the pieces and lowers
    their product, so it ends.

    >>> _coprime_basis([12, 18, 5])
    [2, 3, 5]
    """
    basis: list[int] = []
    pending = [n for n in numbers if n > 1]
    while pending:
        x = pending.pop()
        for index, b in enumerate(basis):
            g = math.gcd(x, b)
            if g > 1:
                del basis[index]
                pending.extend(y for y in (b // g, g, x // g) if y > 1)
                break
        else:
            basis.append(x)
    return sorted(basis)


def _exponents(n: int, basis: Sequence[int]) -> dict[int, int]:
    result = {}
    for b in basis:
        count = 0
        while n % b == 0:
            n //= b
            count += 1
        if count:
            result[b] = count
    if n != 1:
        raise ArithmeticError("the basis does not cover the number")
    return result


def _rational_entropy(weights: list[fmpq]) -> Exact:
    """-sum w log2 w for positive rationals w, exactly.

    Write each w as 2**e times a product of powers of pairwise coprime odd
    integers b > 1. Then H = r + sum_b c_b log2(b) with rationals r and c_b;
    the numbers log 2 and log b are linearly independent over the rationals
    (unique factorisation), so H is rational exactly when every c_b is 0.
    """
    count = len(weights)
    if all(w == fmpq(1, count) for w in weights):
        return log2(fmpq(count))                     # uniform: log2 k exactly
    odd = []
    rational = fmpq(0)
    for w in weights:
        p, q = int(w.p), int(w.q)
        e_p, e_q = _two_adic(p), _two_adic(q)
        rational -= w * (e_p - e_q)
        odd.append((p >> e_p, q >> e_q))
    basis = _coprime_basis(n for pair in odd for n in pair)
    coefficients = {b: fmpq(0) for b in basis}
    for w, (p, q) in zip(weights, odd):
        for b, e in _exponents(p, basis).items():
            coefficients[b] -= w * e
        for b, e in _exponents(q, basis).items():
            coefficients[b] += w * e
    logs = [(b, c) for b, c in coefficients.items() if c != 0]
    if not logs:
        return rational

    def describe() -> str:
        terms = [rational_text(rational)] if rational != 0 else []
        for b, c in logs:
            head = "" if c == 1 else "-" if c == -1 else f"{rational_text(c)}*"
            terms.append(f"{head}log({b})/log(2)")
        return " + ".join(terms).replace("+ -", "- ")

    def evaluate(prec: int) -> arb:
        logs_ball = sum((arb(c) * arb(b).log() for b, c in logs), arb(0))
        return arb(rational) + logs_ball / arb.const_log2()

    return _lazy(describe, evaluate)


def entropy_bits(weights: Iterable[Exact]) -> Exact:
    """Shannon entropy -sum_j w_j log2 w_j of a row of weights, in bits.

    Zero weights (masked keys) contribute exactly 0 (0 log 0 = 0). Rows of
    rationals are exact: k equal weights 1/k give exactly log2(k), and the
    result is rational exactly when it should be (1/2, 1/4, 1/4 gives 3/2).
    A nan weight (a fully masked row under the nan policy) gives nan.

    >>> entropy_bits([fmpq(1, 2), fmpq(1, 4), fmpq(1, 4), fmpq(0)])
    3/2
    >>> entropy_bits([fmpq(1, 3)] * 3).text, entropy_bits([fmpq(1)])
    ('log(3)/log(2)', 0)
    >>> entropy_bits([fmpq(1, 6)] * 2 + [fmpq(2, 3)]).text
    '-1/3 + log(3)/log(2)'
    """
    terms = _positive_terms(weights, "weight")
    if terms is None:
        return NAN
    if not terms:
        return fmpq(0)
    rationals = [w for w in terms if isinstance(w, fmpq)]
    if len(rationals) == len(terms):
        return _rational_entropy(rationals)

    def describe() -> str:
        return "-(" + " + ".join(f"{parenthesised(w)}*log({exact_text(w)})" for w in terms) + \
            ")/log(2)"

    def evaluate(prec: int) -> arb:
        total_ball = arb(0)
        for w in terms:
            ball = finite_ball(w, prec)
            total_ball += ball * ball.log()
        return -total_ball / arb.const_log2()

    return _lazy(describe, evaluate)


def _same(left: Exact, right: Exact) -> bool:
    if isinstance(left, (fmpq, Surd)) and isinstance(right, (fmpq, Surd)):
        return left == right
    return exact_text(left) == exact_text(right)


def softmax(values: Sequence[Exact]) -> list[Exact]:
    """exp(x_j) / sum_l exp(x_l) for a row; -oo entries get exactly 0.

    A weight is rational exactly when every finite entry is equal (then it is
    1/count), by Lindemann-Weierstrass; the others are evaluated as balls
    shifted by the entry itself (1 / sum_l exp(x_l - x_j)).

    >>> softmax([fmpq(2), NEG_INF, fmpq(2)])
    [1/2, 0, 1/2]
    >>> softmax([fmpq(0), fmpq(1)])[0].text
    'exp(0)/(exp(0) + exp(1))'
    """
    open_columns = [k for k, x in enumerate(values) if x is not NEG_INF]
    if not open_columns:
        raise ValueError("the softmax of a row that is all -oo is 0/0")
    if any(values[k] is NAN for k in open_columns):
        return [NAN] * len(values)
    result: list[Exact] = [fmpq(0)] * len(values)
    first = values[open_columns[0]]
    if all(_same(values[k], first) for k in open_columns):
        for k in open_columns:
            result[k] = fmpq(1, len(open_columns))
        return result
    row = [values[k] for k in open_columns]

    def weight(index: int) -> Irrational:
        def describe() -> str:
            return f"exp({exact_text(row[index])})/(" + \
                " + ".join(f"exp({exact_text(x)})" for x in row) + ")"

        def evaluate(prec: int) -> arb:
            balls = [finite_ball(x, prec) for x in row]
            own = balls[index]
            return 1 / sum(((b - own).exp() for b in balls), arb(0))

        return _lazy(describe, evaluate)

    for index, k in enumerate(open_columns):
        result[k] = weight(index)
    return result


def softmax_jacobian_norm(weights: Iterable[Exact]) -> Exact:
    """Frobenius norm of the softmax Jacobian J = diag(w) - w w^T of a row.

    The sum of the squared entries of J is s2 - 2 s3 + s2**2 with
    s2 = sum w_j**2 and s3 = sum w_j**3 (for any vector w), so rational
    weights give an exact root: k equal weights 1/k give sqrt(k - 1)/k, one
    key gives exactly 0. Small norms mean a saturated softmax.

    >>> softmax_jacobian_norm([fmpq(1, 2), fmpq(1, 2)])
    1/2
    >>> softmax_jacobian_norm([fmpq(1, 3)] * 3)
    Surd(coefficient=1/3, radicand=2)
    >>> softmax_jacobian_norm([fmpq(1), fmpq(0)])
    0
    """
    terms = _positive_terms(weights, "weight")
    if terms is None:
        return NAN
    rationals = [w for w in terms if isinstance(w, fmpq)]
    if len(rationals) == len(terms):
        s2 = sum((w * w for w in rationals), fmpq(0))
        s3 = sum((w * w * w for w in rationals), fmpq(0))
        return sqrt(s2 - 2 * s3 + s2 * s2)

    def describe() -> str:
        s2 = " + ".join(f"{parenthesised(w)}**2" for w in terms)
        s3 = " + ".join(f"{parenthesised(w)}**3" for w in terms)
        return f"sqrt(({s2}) - 2*({s3}) + ({s2})**2)"

    def evaluate(prec: int) -> arb:
        balls = [finite_ball(w, prec) for w in terms]
        s2 = sum((b * b for b in balls), arb(0))
        s3 = sum((b * b * b for b in balls), arb(0))
        return (s2 - 2 * s3 + s2 * s2).sqrt()

    return _lazy(describe, evaluate)


def mean(values: Sequence[Exact]) -> Exact:
    """The arithmetic mean, rational when every value is; the text is built lazily.

    >>> mean([fmpq(1), fmpq(2)])
    3/2
    """
    if not values:
        raise ValueError("the mean of nothing")
    if any(v is NAN for v in values):
        return NAN
    rationals = [v for v in values if isinstance(v, fmpq)]
    if len(rationals) == len(values):
        return sum(rationals, fmpq(0)) / len(rationals)
    count = len(values)

    def describe() -> str:
        return "(" + " + ".join(exact_text(v) for v in values) + f")/{count}"

    def evaluate(prec: int) -> arb:
        return sum((finite_ball(v, prec) for v in values), arb(0)) / count

    return _lazy(describe, evaluate)
