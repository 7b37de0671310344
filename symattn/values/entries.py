"""Parse one matrix entry or printed number, with a grammar symattn controls.

User text is never handed to ``eval``, ``sympify`` or ``parse_expr``. The
grammar accepted for an entry is::

    entry   := '-inf' | expr                (also Unicode minus and the sign for infinity)
    expr    := term (('+' | '-') term)*
    term    := factor (('*' | '/') factor)*
    factor  := ('+' | '-') factor | atom ('^' integer)?
    atom    := number | 'sqrt' '(' expr ')' | identifier | '(' expr ')'
    number  := 12 | 0.2 | .5 | 1e-3 | 2.5E+4      (a lone number may use a decimal
               comma, "0,309", and digit grouping, "2,980.96", "33 554 432")

A plain number keeps how many decimal places it was written with ("0.40" has
2), because printed numbers are checked against exactly that precision.

>>> parse_entry("0.40").value, parse_entry("0.40").places
(2/5, 2)
>>> parse_entry("0,309").value
309/1000
>>> parse_entry("−∞").value
NEG_INF
>>> parse_entry("sqrt(8)/4").value
Surd(coefficient=1/2, radicand=2)
"""

from __future__ import annotations

__all__ = ["Entry", "Symbolic", "Value", "parse_entry", "parse_number_literal", "MAX_EXPONENT",
           "MAX_ENTRY_DIGITS"]

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

from flint import fmpq

from symattn.errors import InputError, Location, cut
from symattn.values.exact import (NEG_INF, Exact, RationalOrSurd, Surd, make_surd, reciprocal,
                                  surd_sqrt)
from symattn.values.whole import ascii_whole

if TYPE_CHECKING:
    import sympy

# A syntax tree of the grammar above: ("num", fmpq), ("sym", name), ("neg" | "sqrt", tree),
# ("pow", tree, int) or ("add" | "sub" | "mul" | "div", tree, tree); ``symbolic.SyntaxTree``.
_Tree = tuple[Any, ...]

# Exponents beyond this would build integers with more digits than any
# worked example needs, and could stall the machine; refuse them clearly.
MAX_EXPONENT = 10_000
# The cost model of an entry: no number met while reading it - a literal, a power, a
# root, a product, with its numerator and denominator together - may have more digits
# than this. Checked on the syntax tree before anything is computed, so that powers of
# powers ("(1e10000^64)^64") are refused at once instead of filling the memory.
MAX_ENTRY_DIGITS = 40_000
_BITS_PER_DIGIT = 3.3219280948873626

_UNICODE = str.maketrans({"\u2212": "-", "\u2013": "-", "\u00d7": "*", "\u22c5": "*",
                          "\u00b7": "*", "\u2217": "*", "\u2009": " ", "\u202f": " ",
                          "\u00a0": " ", "\u221e": " inf "})
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_GROUPED_POINT = re.compile(r"[+-]?[0-9]{1,3}(?:,[0-9]{3})+\.[0-9]+")    # 2,980.96
_GROUPED_SPACE = re.compile(r"[+-]?[0-9]{1,3}(?: [0-9]{3})+(?:[.,][0-9]+)?")  # 33 554 432
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]*,[0-9]+(?:[eE][+-]?[0-9]+)?")       # 0,309
_INF = re.compile(r"([+-]?)\s*(?:inf|infinity|oo)", re.IGNORECASE)
_PLAIN_DECIMAL = re.compile(r"-?[0-9]+(?:\.[0-9]+)?")
_MAX_LENGTH = 2000
_POWERS_OF_TEN = [10 ** k for k in range(40)]
_IDENT = re.compile(r"[^\W\d]\w*")
_RESERVED = {"sqrt", "inf", "infinity", "oo", "nan"}


@dataclass(frozen=True)
class Symbolic:
    """An entry with identifiers or mixed roots: kept as a small syntax tree.

    ``to_sympy()`` builds the SymPy expression from the tree (never from text).
    """

    tree: _Tree
    text: str

    def to_sympy(self) -> sympy.Expr:
        # Only here: SymPy is slow to import, and most entries are rational.
        from symattn.values.symbolic import tree_to_sympy

        return tree_to_sympy(self.tree)


Value = Union[Exact, Symbolic]


@dataclass(frozen=True)
class Entry:
    """A parsed entry: its exact value and, for a plain number, its printed places.

    ``places`` is the number of decimal places as written ("0.40" -> 2,
    "1.5e-3" -> 4, "12" -> 0); it is None for anything that is not a plain
    number (``sqrt(2)``, ``a``, ``1/3``).
    """

    value: Value
    places: int | None
    text: str


def parse_number_literal(text: str) -> tuple[fmpq, int]:
    """Exact value and decimal places of a plain number literal (no sign).

    >>> parse_number_literal("1.50e-3")
    (3/2000, 5)
    """
    mantissa, _, exponent_text = text.lower().partition("e")
    whole, _, fraction = mantissa.partition(".")
    exponent = int(exponent_text) if exponent_text else 0
    if abs(exponent) > MAX_EXPONENT:
        raise ValueError(f"exponent {exponent} is beyond the supported ±{MAX_EXPONENT}")
    digits = int((whole or "0") + fraction)
    places = len(fraction) - exponent
    value = fmpq(digits) * fmpq(10) ** exponent / fmpq(10) ** len(fraction)
    return value, places


def _normalise_lone_number(text: str) -> str | None:
    """Rewrite a lone number with comma or space grouping into plain form."""
    if _GROUPED_POINT.fullmatch(text):
        return text.replace(",", "")
    if _GROUPED_SPACE.fullmatch(text):
        return text.replace(" ", "").replace(",", ".")
    if _DECIMAL_COMMA.fullmatch(text):
        return text.replace(",", ".")
    return None


def parse_entry(raw: object, location: Location | None = None) -> Entry:
    """Parse a matrix entry given as text, an int or another Python number
    (``native``: floats by their shortest repr); raise InputError if bad.

    >>> parse_entry("1e-3").value
    1/1000
    >>> parse_entry("w_11").value.text
    'w_11'
    """
    if isinstance(raw, str) and len(raw) <= _MAX_LENGTH and _PLAIN_DECIMAL.fullmatch(raw):
        # The common case, kept cheap for large matrices: -12.345
        whole, _, fraction = raw.partition(".")
        return Entry(fmpq(int(whole + fraction), _POWERS_OF_TEN[len(fraction)])
                     if len(fraction) < len(_POWERS_OF_TEN) else parse_number_literal(
                         raw.lstrip("-"))[0] * (-1 if raw[0] == "-" else 1), len(fraction), raw)
    if isinstance(raw, Entry):
        return raw
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        # floats, Fractions, Decimals, SymPy and NumPy numbers: written in the grammar
        from symattn.values.native import native_text

        raw = native_text(raw, location)
    if isinstance(raw, int):
        return Entry(fmpq(raw), 0, str(raw))
    original = raw
    text = raw.translate(_UNICODE).strip()
    if not text:
        raise InputError("empty entry; write a number such as 0 or 0.5", location)
    if len(text) > _MAX_LENGTH:
        raise InputError(f"entry is {len(text)} characters long; the limit is {_MAX_LENGTH}",
                         location)
    inf = _INF.fullmatch(text)
    if inf:
        if inf.group(1) == "-":
            return Entry(NEG_INF, None, original)
        raise InputError(f"{cut(original)!r}: only minus infinity (a masked score) is allowed",
                         location)
    plain = _normalise_lone_number(text) or text
    sign = ""
    if plain[:1] in "+-":
        sign, body = plain[0], plain[1:].strip()
    else:
        body = plain
    if _NUMBER.fullmatch(body):
        try:
            value, places = parse_number_literal(body)
        except ValueError as error:
            raise InputError(f"{cut(original)!r}: {error}", location) from None
        return Entry(-value if sign == "-" else value, places, original)
    return _parse_expression(text, original, location)


def _parse_expression(text: str, original: str, location: Location | None) -> Entry:
    """An entry that is an expression (``sqrt(2)/2``, ``a*b``): parsed, its cost bounded
    before anything is computed, then folded to a number where it has no symbol."""
    try:
        tree = _Parser(text).parse()
    except _SyntaxProblem as problem:
        raise InputError(f"cannot read {cut(original)!r}: {problem}", location) from None
    digits = _cost(tree) / _BITS_PER_DIGIT
    if digits > MAX_ENTRY_DIGITS:
        raise InputError(f"{cut(original)!r}: a number in it would have about {digits:,.0f} "
                         f"digits; the limit is {MAX_ENTRY_DIGITS:,} (use smaller powers)",
                         location)
    try:
        folded = _fold(tree)
    except ZeroDivisionError:
        raise InputError(f"{cut(original)!r} divides by zero", location) from None
    except ValueError as error:
        raise InputError(f"{cut(original)!r}: {error}", location) from None
    return Entry(folded if folded is not None else Symbolic(tree, original), None, original)


class _SyntaxProblem(Exception):
    pass


class _Parser:
    """Recursive descent over the grammar in the module docstring."""

    _TOKEN = re.compile(r"\s*(?:(?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
                        r"|(?P<name>[^\W\d]\w*)|(?P<op>\*\*|[-+*/^()]))")

    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        position = 0
        while position < len(text):
            if text[position:].strip() == "":
                break
            match = self._TOKEN.match(text, position)
            if not match:
                bad = text[position:].strip()[:1]
                raise _SyntaxProblem(f"unexpected {bad!r} at character {position + 1}")
            kind = match.lastgroup or ""
            token = match.group(kind)
            self.tokens.append((kind, "^" if token == "**" else token))
            position = match.end()
        self.index = 0
        self.depth = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def take(self, value: str | None = None) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise _SyntaxProblem("it ends too early")
        if value is not None and token[1] != value:
            raise _SyntaxProblem(f"expected {value!r} but found {token[1]!r}")
        self.index += 1
        return token

    def parse(self) -> _Tree:
        tree = self.expr()
        extra = self.peek()
        if extra is not None:
            raise _SyntaxProblem(f"unexpected {extra[1]!r}")
        return tree

    def expr(self) -> _Tree:
        tree = self.term()
        while (token := self.peek()) and token[1] in "+-" and token[0] == "op":
            self.take()
            tree = ("add" if token[1] == "+" else "sub", tree, self.term())
        return tree

    def term(self) -> _Tree:
        tree = self.factor()
        while (token := self.peek()) and token[0] == "op" and token[1] in ("*", "/"):
            self.take()
            tree = ("mul" if token[1] == "*" else "div", tree, self.factor())
        return tree

    def factor(self) -> _Tree:
        token = self.peek()
        if token and token[0] == "op" and token[1] in "+-":
            self.take()
            self.depth += 1
            if self.depth > 100:
                raise _SyntaxProblem("too deeply nested")
            inner = self.factor()
            self.depth -= 1
            return ("neg", inner) if token[1] == "-" else inner
        base = self.atom()
        if (token := self.peek()) and token[1] == "^":
            self.take()
            negative = False
            if (sign := self.peek()) and sign[1] in "+-":
                negative = self.take()[1] == "-"
            kind, digits = self.take()
            exponent = ascii_whole(digits) if kind == "num" else None
            if exponent is None or exponent > 64:
                raise _SyntaxProblem("an exponent must be a whole number from -64 to 64")
            return ("pow", base, -exponent if negative else exponent)
        return base

    def atom(self) -> _Tree:
        kind, token = self.take()
        if kind == "num":
            try:
                return ("num", parse_number_literal(token)[0])
            except ValueError as error:
                raise _SyntaxProblem(str(error)) from None
        if kind == "name":
            lowered = token.lower()
            if lowered == "sqrt":
                self.take("(")
                inner = self.nested()
                self.take(")")
                return ("sqrt", inner)
            if lowered in _RESERVED:
                raise _SyntaxProblem(f"{token!r} cannot be used here")
            return ("sym", token)
        if token == "(":
            inner = self.nested()
            self.take(")")
            return inner
        raise _SyntaxProblem(f"unexpected {token!r}")

    def nested(self) -> _Tree:
        self.depth += 1
        if self.depth > 100:
            raise _SyntaxProblem("too deeply nested")
        tree = self.expr()
        self.depth -= 1
        return tree


def _cost(tree: _Tree) -> int:
    """An upper bound on the bits of the largest number computing ``tree`` meets
    (numerator and denominator together; a root counts twice, as sqrt(p/q) is kept
    as sqrt(p q)/q)."""
    kind = tree[0]
    if kind == "num":
        number: fmpq = tree[1]
        return int(number.p.bit_length()) + int(number.q.bit_length())
    if kind == "sym":
        return 1
    if kind == "neg":
        return _cost(tree[1])
    if kind == "sqrt":
        return 2 * _cost(tree[1])
    if kind == "pow":
        return _cost(tree[1]) * max(1, abs(int(tree[2])))
    return _cost(tree[1]) + _cost(tree[2]) + 1


def _fold(tree: _Tree) -> RationalOrSurd | None:
    """Evaluate a tree to a rational or single surd; None if it needs SymPy."""
    kind = tree[0]
    if kind == "num":
        number: fmpq = tree[1]
        return number
    if kind == "sym":
        return None
    if kind == "neg":
        inner = _fold(tree[1])
        return None if inner is None else inner * fmpq(-1)
    if kind == "sqrt":
        inner = _fold(tree[1])
        if isinstance(inner, fmpq):
            if inner < 0:
                raise ValueError("square root of a negative number")
            return surd_sqrt(inner)
        return None
    if kind == "pow":
        return _fold_power(_fold(tree[1]), tree[2])
    left, right = _fold(tree[1]), _fold(tree[2])
    if kind == "div" and isinstance(right, fmpq) and right == 0:
        raise ZeroDivisionError   # also when the numerator is symbolic: a/0
    if left is None or right is None:
        return None
    if kind in ("add", "sub"):
        if kind == "sub":
            right = right * fmpq(-1)
        if isinstance(left, fmpq) and isinstance(right, fmpq):
            return left + right
        if isinstance(left, Surd) and isinstance(right, Surd) and left.radicand == right.radicand:
            return make_surd(left.coefficient + right.coefficient, left.radicand)
        return None
    if kind == "mul":
        return left * right
    return left * reciprocal(right)


def _fold_power(base: RationalOrSurd | None, exponent: int) -> RationalOrSurd | None:
    if base is None:
        return None
    if isinstance(base, fmpq):
        if base == 0 and exponent < 0:
            raise ZeroDivisionError
        return base ** exponent
    r = base.radicand  # already square-free: (a*sqrt(r))**k = a**k * r**(k//2) * sqrt(r)**(k%2)
    half, odd = divmod(abs(exponent), 2)
    coefficient = base.coefficient ** abs(exponent) * fmpq(r) ** half
    result = make_surd(coefficient, r if odd else 1)
    return reciprocal(result) if exponent < 0 else result
