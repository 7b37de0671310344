"""The SymPy bridge: exact values to SymPy expressions and back, certified balls.

Entries with identifiers or roots are SymPy expressions, built from the entry
parser's syntax tree (never from text). Expressions without free symbols are
evaluated as python-flint balls by ``to_ball``. This module is only imported
when needed (SymPy is slow to import).

>>> from flint import fmpq
>>> value_to_sympy(Surd(fmpq(1, 2), 3)), tree_to_sympy(("neg", ("sym", "w")))
(sqrt(3)/2, -w)
"""

from __future__ import annotations

__all__ = ['tree_to_sympy', 'value_to_sympy', 'to_ball', 'SympyValue', 'sympy_to_exact',
           'SympyForm', 'WrittenValue']

from dataclasses import dataclass
from typing import Any, Callable, Protocol, runtime_checkable

import sympy
from flint import arb, fmpq

from symattn.errors import InputError
from symattn.values.exact import NAN, NEG_INF, Exact, Surd, working_precision


@runtime_checkable
class SympyForm(Protocol):
    """A value that knows its SymPy expression: a parsed ``Symbolic`` entry, a ``SympyValue``."""

    def to_sympy(self) -> sympy.Expr:
        """The value as a SymPy expression."""


def value_to_sympy(value: Exact | SympyForm) -> sympy.Expr:
    """The one conversion of an exact value to SymPy (an ``Irrational`` has none: TypeError).

    ``Irrational`` closed forms are text only, and symattn never hands text to a
    SymPy parser.
    """
    if isinstance(value, fmpq):
        return sympy.Rational(int(value.p), int(value.q))
    if isinstance(value, Surd):
        return value_to_sympy(value.coefficient) * sympy.sqrt(value.radicand)
    if isinstance(value, SympyForm):
        return value.to_sympy()
    if value is NEG_INF:
        return sympy.S.NegativeInfinity
    if value is NAN:
        return sympy.S.NaN
    raise TypeError(f"cannot convert {value!r}")


# A syntax tree of the entry grammar (``entries._Parser``): ("num", fmpq),
# ("sym", name), ("neg" | "sqrt", tree), ("pow", tree, int) or (operator, tree, tree).
SyntaxTree = tuple[Any, ...]


def tree_to_sympy(tree: SyntaxTree) -> sympy.Expr:
    """Build a SymPy expression from the entry parser's syntax tree."""
    kind = tree[0]
    if kind == "num":
        return value_to_sympy(tree[1])
    if kind == "sym":
        return sympy.Symbol(tree[1], real=True)
    if kind == "neg":
        return -tree_to_sympy(tree[1])
    if kind == "sqrt":
        return sympy.sqrt(tree_to_sympy(tree[1]))
    if kind == "pow":
        return tree_to_sympy(tree[1]) ** tree[2]
    left, right = tree_to_sympy(tree[1]), tree_to_sympy(tree[2])
    return {"add": left + right, "sub": left - right, "mul": left * right}.get(kind) \
        if kind != "div" else left / right


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
        text: str = sympy.sstr(self.expr)
        return text

    @property
    def is_numeric(self) -> bool:
        return not self.expr.free_symbols

    def ball(self, prec: int) -> arb | None:
        """A certified ball at ``prec`` bits; None with free symbols."""
        return to_ball(self.expr, prec) if self.is_numeric else None

    def to_sympy(self) -> sympy.Expr:
        """The expression itself."""
        return self.expr


class WrittenValue:
    """A SymPy value whose text is written from its parts, not printed by SymPy.

    A softmax row's weights and outputs all repeat the row's exponentials and
    their sum (``derivation.sympy_rows``): printing each entry's whole
    expression would sort and print the same sum again for every entry, so the
    text is joined from the parts' texts, written once per row, with the terms
    in key order. ``write`` and ``build`` (the expression) are called when the
    text or the expression is first asked for; ``numeric`` says whether it is a
    number (no free symbols). LaTeX prints ``expr`` as for a ``SympyValue``.

    >>> import sympy
    >>> a = sympy.Symbol("a")
    >>> value = WrittenValue(lambda: sympy.exp(a) / 2, lambda: "exp(a)/2", numeric=False)
    >>> value.text, value.is_numeric, value.to_sympy()
    ('exp(a)/2', False, exp(a)/2)
    """

    __slots__ = ("_build", "_write", "_expr", "_text", "is_numeric")

    def __init__(self, build: Callable[[], sympy.Expr], write: Callable[[], str],
                 numeric: bool) -> None:
        self._build = build
        self._write = write
        self._expr: sympy.Expr | None = None
        self._text: str | None = None
        self.is_numeric = numeric

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = self._write()
        return self._text

    def ball(self, prec: int) -> arb | None:
        """A certified ball at ``prec`` bits; None with free symbols."""
        return to_ball(self.to_sympy(), prec) if self.is_numeric else None

    def to_sympy(self) -> sympy.Expr:
        """The expression (built from the same parts as the text)."""
        if self._expr is None:
            self._expr = self._build()
        return self._expr

    @property
    def expr(self) -> sympy.Expr:
        """The expression, as ``SympyValue.expr``."""
        return self.to_sympy()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WrittenValue) and self.to_sympy() == other.to_sympy()

    def __hash__(self) -> int:
        return hash(self.to_sympy())

    def __repr__(self) -> str:
        text = self.text
        return f"WrittenValue({text if len(text) <= 200 else text[:197] + '...'})"


def sympy_to_exact(expr: sympy.Expr) -> Exact | SympyValue:
    """A SymPy result as an exact value: -oo, nan and rationals as such, the rest wrapped."""
    if expr is sympy.S.NegativeInfinity:
        return NEG_INF
    if expr is sympy.S.NaN:
        return NAN
    if expr.is_Rational:
        return fmpq(int(expr.p), int(expr.q))
    return SympyValue(expr)
