"""The SymPy bridge: exact values to SymPy expressions and back, certified balls.

Entries with identifiers or roots are SymPy expressions, built from the entry
parser's syntax tree (never from text). Expressions without free symbols are
evaluated as python-flint balls by ``to_ball``. This module is only imported
when needed (SymPy is slow to import).
"""

from __future__ import annotations

__all__ = ['tree_to_sympy', 'value_to_sympy', 'to_ball', 'SympyValue', 'sympy_to_exact']

from dataclasses import dataclass
from typing import Any

import sympy
from flint import arb, fmpq

from symattn.errors import InputError
from symattn.values.entries import Symbolic, tree_to_sympy
from symattn.values.exact import NAN, NEG_INF, Exact, Surd, working_precision


def value_to_sympy(value: Exact | Symbolic) -> sympy.Expr:
    if isinstance(value, fmpq):
        return sympy.Rational(int(value.p), int(value.q))
    if isinstance(value, Surd):
        return value_to_sympy(value.coefficient) * sympy.sqrt(value.radicand)
    if isinstance(value, Symbolic):
        return value.to_sympy()
    if value is NEG_INF:
        return sympy.S.NegativeInfinity
    raise TypeError(f"cannot convert {value!r}")


def to_ball(expr: sympy.Expr, prec: int) -> arb:
    """A certified ball for a closed-form expression (no free symbols).

    Understands rationals, sums, products, integer and rational powers (roots
    of integers such as 10000**(-1/3)), exp, sin, cos, E and pi.

    >>> import sympy
    >>> ball = to_ball(sympy.sin(sympy.Rational(1, 100)) + sympy.cos(sympy.pi / 3), 64)
    >>> ball.mid().str(12, radius=False), ball.rad() < 1e-15
    ('0.509999833334', True)
    """
    with working_precision(prec):
        return _ball(expr)


def _ball(expr: sympy.Expr) -> arb:
    if expr.is_Rational:
        return arb(fmpq(int(expr.p), int(expr.q)))
    if expr.is_Add:
        return sum((_ball(a) for a in expr.args), arb(0))
    if expr.is_Mul:
        result = arb(1)
        for factor in expr.args:
            result *= _ball(factor)
        return result
    if expr.is_Pow:
        base, exponent = expr.args
        if exponent.is_Integer:
            return _ball(base) ** int(exponent)
        if exponent.is_Rational:
            # 10**(2/3) and 10000**(-1/3): a root of the base, then an integer power
            root = _ball(base).root(int(exponent.q)) if exponent.q != 2 else _ball(base).sqrt()
            return root ** int(exponent.p)
        return (_ball(exponent) * _ball(base).log()).exp()
    if isinstance(expr, sympy.exp):
        return _ball(expr.args[0]).exp()
    if isinstance(expr, sympy.sin):
        return _ball(expr.args[0]).sin()
    if isinstance(expr, sympy.cos):
        return _ball(expr.args[0]).cos()
    if expr == sympy.E:
        return arb(1).exp()
    if expr == sympy.pi:
        return arb.pi()
    raise InputError(f"cannot evaluate {expr} numerically")


@dataclass(frozen=True)
class SympyValue:
    """An exact expression that is not a plain rational."""

    expr: sympy.Expr

    @property
    def text(self) -> str:
        return sympy.sstr(self.expr)

    @property
    def is_numeric(self) -> bool:
        return not self.expr.free_symbols

    def ball(self, prec: int) -> arb | None:
        return to_ball(self.expr, prec) if self.is_numeric else None


def sympy_to_exact(expr: sympy.Expr) -> Any:
    if expr is sympy.S.NegativeInfinity:
        return NEG_INF
    if expr is sympy.S.NaN:
        return NAN
    if expr.is_Rational:
        return fmpq(int(expr.p), int(expr.q))
    return SympyValue(expr)
