"""Exact values as SymPy expressions, closed forms included.

A closed form (``exact.Irrational``) is known by the text symattn itself wrote
for it (``exp(sqrt(2)/10)/(exp(sqrt(2)/10) + 1)``, ``log(3)/log(2)``). This
module reads that text back with a small parser of its own - numbers, names,
``+ - * / ^ **``, parentheses and the functions ``exp``, ``sqrt``, ``log`` -
and builds the SymPy expression node by node; nothing is handed to
``sympify`` or ``eval``.

>>> from flint import fmpq
>>> to_sympy(fmpq(1, 3)), closed_form_to_sympy("exp(sqrt(2)/10)/(1 + exp(-1/2))")
(1/3, exp(sqrt(2)/10)/(exp(-1/2) + 1))
"""

from __future__ import annotations

__all__ = ["to_sympy", "closed_form_to_sympy"]

import re
from typing import Any

from symattn.values.exact import NAN, NEG_INF, Exact, Irrational

_TOKEN = re.compile(r"\s*(?:(?P<num>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)"
                    r"|(?P<name>[^\W\d]\w*)|(?P<op>\*\*|[-+*/^(),]))")
_FUNCTIONS = ("exp", "sqrt", "log")


def to_sympy(value: Exact) -> Any:
    """The SymPy expression of any exact value (``-oo`` for a mask, ``nan``)."""
    import sympy

    from symattn.values.symbolic import value_to_sympy

    if value is NEG_INF:
        return sympy.S.NegativeInfinity
    if value is NAN:
        return sympy.S.NaN
    if isinstance(value, Irrational):
        return closed_form_to_sympy(value.text)
    return value_to_sympy(value)


def closed_form_to_sympy(text: str) -> Any:
    """The SymPy expression of a closed form symattn wrote (see the module docstring)."""
    tokens = []
    position = 0
    while position < len(text) and text[position:].strip():
        match = _TOKEN.match(text, position)
        if match is None:
            raise ValueError(f"unexpected {text[position:].strip()[:1]!r} in a closed form")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        position = match.end()
    parser = _Reader(tokens)
    expr = parser.sum()
    if parser.index != len(tokens):
        raise ValueError(f"unexpected {tokens[parser.index][1]!r} in a closed form")
    return expr


class _Reader:
    """Recursive descent: sum := product (('+'|'-') product)*, product := unary
    (('*'|'/') unary)*, unary := '-' unary | power, power := atom (('^'|'**') unary)?"""

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.index = 0

    def peek(self) -> str | None:
        return self.tokens[self.index][1] if self.index < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        if self.index >= len(self.tokens):
            raise ValueError("a closed form ends too early")
        self.index += 1
        return self.tokens[self.index - 1]

    def sum(self) -> Any:
        expr = self.product()
        while self.peek() in ("+", "-"):
            expr = expr + self.product() if self.take()[1] == "+" else expr - self.product()
        return expr

    def product(self) -> Any:
        expr = self.unary()
        while self.peek() in ("*", "/"):
            expr = expr * self.unary() if self.take()[1] == "*" else expr / self.unary()
        return expr

    def unary(self) -> Any:
        if self.peek() in ("-", "+"):
            return -self.unary() if self.take()[1] == "-" else self.unary()
        base = self.atom()
        if self.peek() in ("^", "**"):
            self.take()
            return base ** self.unary()
        return base

    def atom(self) -> Any:
        import sympy

        kind, token = self.take()
        if kind == "num":
            return sympy.Rational(token)
        if token == "(":
            expr = self.sum()
            self._expect(")")
            return expr
        if kind == "name":
            if token in _FUNCTIONS and self.peek() == "(":
                self.take()
                argument = self.sum()
                self._expect(")")
                return {"exp": sympy.exp, "sqrt": sympy.sqrt, "log": sympy.log}[token](argument)
            if token == "oo":
                return sympy.S.Infinity
            return sympy.Symbol(token, real=True)
        raise ValueError(f"unexpected {token!r} in a closed form")

    def _expect(self, token: str) -> None:
        if self.take()[1] != token:
            raise ValueError(f"expected {token!r} in a closed form")
