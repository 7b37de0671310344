"""Arithmetic on exact values, staying exact wherever the result is rational.

The checker recomputes quantities from a document's printed numbers (scores
from printed terms, weights from printed exponentials, ...). These helpers
combine the value kinds of ``exact`` (rationals, surds, balls-with-text) and
keep a rational result rational, so a recomputed rounding tie is decided
exactly; anything else becomes an ``Irrational`` evaluated on demand.

>>> from flint import fmpq
>>> divide(fmpq(2075, 1000), fmpq(5260, 1000))
415/1052
>>> exp(fmpq(0))
1
"""

from __future__ import annotations

__all__ = ["NoFiniteValue", "add", "subtract", "multiply", "divide", "exp", "total", "sqrt",
           "relu", "gelu", "sign", "finite_ball", "parenthesised"]

from typing import Callable, Iterable

from flint import arb, fmpq

from symattn.values.decimals import UndecidedError
from symattn.values.exact import (NAN, NEG_INF, Exact, Irrational, Surd, exact_text, reciprocal,
                                  surd_sqrt, to_ball, working_precision)


class NoFiniteValue(ValueError):
    """A value built from -oo, nan or a free symbol: it has no decimals."""


def finite_ball(value: Exact, prec: int) -> arb:
    """A certified ball for a value that has one (NoFiniteValue for -oo, nan and
    values with free symbols)."""
    ball = to_ball(value, prec)
    if ball is None:
        raise NoFiniteValue(f"{value!r} has no finite value")
    return ball


def _wrap(text: Callable[[], str], parts: tuple[Exact, ...], combine: Callable[..., arb],
          written: tuple[Exact, ...] | None = None, own_exponentials: int = 0) -> Irrational:
    """An Irrational combining ``parts``; its text is written when first read.

    Its ball at the highest precision asked is kept: a value is often a part of many
    others (a LayerNorm row's mean is in each of its centred entries, and each of those
    in the variance), and without it every use would evaluate it again, at every
    level of a layer, which grows exponentially with the depth. ``written``: the parts
    as the text writes them, when it repeats one (``parts`` otherwise), and
    ``own_exponentials`` the exponentials the text adds (``values.written``)."""
    kept: list[tuple[int, arb]] = []    # the ball made at the highest precision yet

    def evaluate(prec: int) -> arb:
        # A ball made at a higher precision is as certified and serves a lower one: a
        # part reached along paths of different depths is asked at different precisions.
        if kept and kept[0][0] >= prec:
            return kept[0][1]
        balls = [finite_ball(p, prec + 10) for p in parts]
        with working_precision(prec + 10):
            ball = combine(*balls)
        kept[:] = [(prec, ball)]
        return ball
    return Irrational(text, evaluate, parts=parts if written is None else written,
                      own_exponentials=own_exponentials)


def parenthesised(value: Exact) -> str:
    """The value's exact text, in parentheses unless it is a single number or name.

    >>> parenthesised(fmpq(-1, 2)), parenthesised(Surd(fmpq(1, 2), 2))
    ('-1/2', '(sqrt(2)/2)')
    """
    text = exact_text(value)
    return text if text.replace("/", "").replace(".", "").lstrip("-").isalnum() else f"({text})"


def add(left: Exact, right: Exact) -> Exact:
    """``left + right``: rational for rationals, a surd for surds of one radicand."""
    if left is NAN or right is NAN:        # a fully masked row under "nan" stays nan
        return NAN
    if left is NEG_INF or right is NEG_INF:
        return NEG_INF
    if isinstance(right, fmpq) and right == 0:
        return left
    if isinstance(left, fmpq) and left == 0:
        return right
    if isinstance(left, fmpq) and isinstance(right, fmpq):
        return left + right
    if isinstance(left, Surd) and isinstance(right, Surd) and left.radicand == right.radicand:
        return (left.coefficient + right.coefficient) * Surd(fmpq(1), left.radicand)
    return _wrap(lambda: f"{exact_text(left)} + {exact_text(right)}", (left, right),
                 lambda a, b: a + b)


def total(values: Iterable[Exact]) -> Exact:
    """The sum of the values, added left to right as ``add`` does; once an
    irrational term is met, the rest are kept as one flat sum (one ball sum,
    not a chain of nested ones)."""
    result: Exact = fmpq(0)
    parts: list[Exact] = []
    listed = list(values)
    if any(value is NAN for value in listed):
        return NAN
    if any(value is NEG_INF for value in listed):
        return NEG_INF
    for value in listed:
        if isinstance(value, fmpq) and value == 0:
            continue
        if parts:
            parts.append(value)
        elif isinstance(value, Irrational) or isinstance(result, Irrational):
            parts = [result, value] if not (isinstance(result, fmpq) and result == 0) \
                else [value]
        else:
            result = add(result, value)
    if len(parts) <= 1:
        return parts[0] if parts else result
    terms = tuple(parts)
    return _wrap(lambda: " + ".join(exact_text(part) for part in terms), terms,
                 lambda *balls: sum(balls, arb(0)))


def multiply(left: Exact, right: Exact) -> Exact:
    """``left * right``: exact for rationals and surds; an exact 0 or 1 factor applies as such."""
    if left is NAN or right is NAN:
        return NAN
    if isinstance(left, (fmpq, Surd)) and isinstance(right, (fmpq, Surd)):
        return left * right
    if isinstance(right, fmpq) and right == 1:
        return left
    if isinstance(left, fmpq) and left == 1:
        return right
    if isinstance(left, fmpq) and left == 0 or isinstance(right, fmpq) and right == 0:
        return fmpq(0)
    return _wrap(lambda: f"{parenthesised(left)}*{parenthesised(right)}", (left, right),
                 lambda a, b: a * b)


def divide(left: Exact, right: Exact) -> Exact:
    """``left / right``; ZeroDivisionError for an exact 0 divisor."""
    if left is NAN or right is NAN:
        return NAN
    if isinstance(right, fmpq) and right == 0:
        raise ZeroDivisionError("division by zero")
    if isinstance(right, fmpq) and right == 1:
        return left
    if isinstance(left, (fmpq, Surd)) and isinstance(right, (fmpq, Surd)):
        return left * reciprocal(right)
    return _wrap(lambda: f"{parenthesised(left)}/{parenthesised(right)}", (left, right),
                 lambda a, b: a / b)


def exp(value: Exact) -> Exact:
    """e**value: 0 for -oo, 1 for 0, otherwise transcendental (Lindemann-Weierstrass)."""
    if value is NAN:
        return NAN
    if value is NEG_INF:
        return fmpq(0)
    if isinstance(value, fmpq) and value == 0:
        return fmpq(1)
    return _wrap(lambda: f"exp({exact_text(value)})", (value,), lambda a: a.exp(),
                 own_exponentials=1)


def subtract(left: Exact, right: Exact) -> Exact:
    """``left - right``, as ``left + (-1) * right``; exactly 0 for a finite value
    minus itself (the same object: a row maximum taken from its row)."""
    if left is right and isinstance(left, (fmpq, Surd, Irrational)):
        return fmpq(0)
    return add(left, multiply(right, fmpq(-1)))


def sign(value: Exact, max_bits: int = 1 << 14) -> int:
    """-1, 0 or 1, proved: exactly for rationals and surds, from balls otherwise."""
    if isinstance(value, fmpq):
        return (value > 0) - (value < 0)
    if isinstance(value, Surd):
        return (value.coefficient > 0) - (value.coefficient < 0)
    bits = 64
    while bits <= max_bits:
        ball = finite_ball(value, bits)
        if not ball.contains(0):
            return 1 if ball > 0 else -1
        bits *= 2
    raise UndecidedError(f"could not decide the sign of {exact_text(value)}")


def sqrt(value: Exact) -> Exact:
    """Square root of a non-negative value (exact for rationals: a rational or a surd)."""
    if value is NAN:
        return NAN
    if isinstance(value, fmpq):
        return surd_sqrt(value)
    return _wrap(lambda: f"sqrt({exact_text(value)})", (value,), lambda a: a.sqrt())


def relu(value: Exact) -> Exact:
    """max(value, 0), the sign decided exactly or from certified balls."""
    if value is NAN:
        return NAN
    return value if sign(value) > 0 else fmpq(0)


def gelu(value: Exact) -> Exact:
    """x * Phi(x) = x/2 * (1 + erf(x/sqrt(2))), exactly 0 at 0."""
    if value is NAN:
        return NAN
    if isinstance(value, fmpq) and value == 0:
        return fmpq(0)
    return _wrap(lambda: f"{parenthesised(value)}*(1 + erf({parenthesised(value)}/sqrt(2)))/2",
                 (value,),
                 lambda a: a * (1 + (a / arb(2).sqrt()).erf()) / 2, written=(value, value))
