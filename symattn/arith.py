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

__all__ = ["add", "multiply", "divide", "exp", "total"]

from typing import Iterable

from flint import arb, fmpq

from symattn.exact import NEG_INF, Exact, Irrational, Surd, exact_text, to_ball, working_precision


def _ball(value: Exact, prec: int) -> arb:
    ball = to_ball(value, prec)
    if ball is None:
        raise ValueError(f"{value!r} has no finite value")
    return ball


def _wrap(text: str, parts: tuple[Exact, ...], combine) -> Irrational:  # type: ignore[no-untyped-def]
    def evaluate(prec: int) -> arb:
        balls = [_ball(p, prec + 10) for p in parts]
        with working_precision(prec + 10):
            return combine(*balls)
    return Irrational(text, evaluate)


def _paren(value: Exact) -> str:
    text = exact_text(value)
    return text if text.replace("/", "").replace(".", "").lstrip("-").isalnum() else f"({text})"


def add(left: Exact, right: Exact) -> Exact:
    if left is NEG_INF or right is NEG_INF:
        return NEG_INF
    if isinstance(left, fmpq) and isinstance(right, fmpq):
        return left + right
    if isinstance(left, Surd) and isinstance(right, Surd) and left.radicand == right.radicand:
        return (left.coefficient + right.coefficient) * Surd(fmpq(1), left.radicand)
    return _wrap(f"{exact_text(left)} + {exact_text(right)}", (left, right), lambda a, b: a + b)


def total(values: Iterable[Exact]) -> Exact:
    result: Exact = fmpq(0)
    for value in values:
        result = add(result, value)
    return result


def multiply(left: Exact, right: Exact) -> Exact:
    if isinstance(left, (fmpq, Surd)) and isinstance(right, (fmpq, Surd)):
        return left * right
    if isinstance(left, fmpq) and left == 0 or isinstance(right, fmpq) and right == 0:
        return fmpq(0)
    return _wrap(f"{_paren(left)}*{_paren(right)}", (left, right), lambda a, b: a * b)


def divide(left: Exact, right: Exact) -> Exact:
    if isinstance(right, fmpq) and right == 0:
        raise ZeroDivisionError("division by zero")
    if isinstance(left, fmpq) and isinstance(right, fmpq):
        return left / right
    if isinstance(right, Surd) and isinstance(left, (fmpq, Surd)):
        return left * right.reciprocal()
    if isinstance(right, fmpq) and isinstance(left, Surd):
        return left * (1 / right)
    return _wrap(f"{_paren(left)}/{_paren(right)}", (left, right), lambda a, b: a / b)


def exp(value: Exact) -> Exact:
    """e**value: 0 for -oo, 1 for 0, otherwise transcendental (Lindemann-Weierstrass)."""
    if value is NEG_INF:
        return fmpq(0)
    if isinstance(value, fmpq) and value == 0:
        return fmpq(1)
    return _wrap(f"exp({exact_text(value)})", (value,), lambda a: a.exp())
