"""Exact values proved equal or different, and closed forms compared as text.

``same_exact`` is True only for values proved equal (rationals and surds
exactly, SymPy forms by expansion, irrationals by identical closed forms);
``proved_different`` only when certified balls are disjoint.
``same_closed_form`` is the second check of ``permute`` and ``kvcache``:
closed forms read back by SymPy, or symattn's own closed forms compared with
the terms of every sum sorted.

>>> from flint import fmpq
>>> same_exact(fmpq(1, 2), fmpq(2, 4)), proved_different(fmpq(1, 3), fmpq(1, 2))
(True, True)
>>> sum_order_free("exp(2) + exp(1)") == sum_order_free("exp(1) + exp(2)")
True
"""

from __future__ import annotations

__all__ = ["same_exact", "proved_different", "same_closed_form", "sum_order_free"]

import sys
from typing import TYPE_CHECKING

from flint import arb, fmpq

from symattn.values.exact import NAN, NEG_INF, Exact, Irrational, Surd, to_ball

if TYPE_CHECKING:
    import sympy


def same_exact(a: Exact, b: Exact) -> bool:
    """True only when the two exact values are proved equal."""
    if a is b:
        return True
    if isinstance(a, fmpq) and isinstance(b, fmpq):
        return a == b
    if isinstance(a, Surd) and isinstance(b, Surd):
        return a == b
    if isinstance(a, Irrational) and isinstance(b, Irrational):
        return a.text == b.text
    return _same_sympy(a, b)


def _same_sympy(a: Exact, b: Exact) -> bool:
    """Two values known by their SymPy expressions, proved equal by expanding their
    difference. No such value exists before its module is imported, and that imports
    SymPy: a rational spec's ``permute`` and ``kvcache`` never do (half a second)."""
    if "symattn.values.symbolic" not in sys.modules:
        return False
    import sympy

    from symattn.values.symbolic import SympyValue, WrittenValue

    if not (isinstance(a, (SympyValue, WrittenValue)) and
            isinstance(b, (SympyValue, WrittenValue))):
        return False
    x, y = a.to_sympy(), b.to_sympy()
    return bool(x == y or sympy.expand(x - y) == 0)


def proved_different(a: Exact, b: Exact, max_bits: int = 4096) -> bool:
    """True when certified balls of the two values are disjoint (or one is -oo)."""
    if a is NEG_INF or b is NEG_INF or a is NAN or b is NAN:
        return (a is NEG_INF) != (b is NEG_INF) or (a is NAN) != (b is NAN)
    if not getattr(a, "is_numeric", True) or not getattr(b, "is_numeric", True):
        return False
    bits = 64
    while bits <= max_bits:
        x, y = to_ball(a, bits), to_ball(b, bits)
        if isinstance(x, arb) and isinstance(y, arb) and not x.overlaps(y):
            return True
        bits *= 4
    return False


def _canonical(value: Exact) -> sympy.Expr | None:
    """A SymPy form of an exact value for comparing closed forms, or None.

    The fast path's closed forms (Irrational) are text only; symattn never hands
    text to a SymPy parser, so they get no second, SymPy-side comparison.
    """
    from symattn.values.symbolic import value_to_sympy

    return None if isinstance(value, Irrational) else value_to_sympy(value)


def same_closed_form(a: Exact, b: Exact) -> bool | None:
    """Whether the exact closed forms agree (None: they cannot be compared)."""
    if isinstance(a, Irrational) and isinstance(b, Irrational):
        return sum_order_free(a.text) == sum_order_free(b.text)
    if isinstance(a, Irrational) or isinstance(b, Irrational):
        return None           # text on one side only: no SymPy form to compare with
    if isinstance(a, fmpq) and isinstance(b, fmpq):
        return a == b         # a rational's closed form is the rational itself
    x, y = _canonical(a), _canonical(b)
    if x is None or y is None:
        return None
    return bool(x == y)


def _split_top(text: str, separator: str) -> list[str]:
    """Split at ``separator`` outside parentheses."""
    parts, depth, start, k = [], 0, 0, 0
    while k < len(text):
        char = text[k]
        depth += (char == "(") - (char == ")")
        if depth == 0 and text.startswith(separator, k):
            parts.append(text[start:k])
            k += len(separator)
            start = k
            continue
        k += 1
    parts.append(text[start:])
    return parts


def _balanced(text: str) -> bool:
    depth = 0
    for char in text:
        depth += (char == "(") - (char == ")")
        if depth < 0:
            return False
    return depth == 0


def sum_order_free(text: str) -> str:
    """A closed form's text with every sum's terms sorted (a + b and b + a agree).

    Sound for comparing symattn's own closed forms without parsing them: equal
    results mean the two expressions differ at most in the order of added terms.
    """
    wrapped = text.startswith("(") and text.endswith(")") and \
        len(_split_top(text[1:-1], ")(")) == 1 and _balanced(text[1:-1])
    inner = text[1:-1] if wrapped else text
    terms = _split_top(inner, " + ")
    if len(terms) > 1:
        inner = " + ".join(sorted(sum_order_free(t) for t in terms))
    else:
        factors = _split_top(inner, "/")
        if len(factors) > 1:
            inner = "/".join(sum_order_free(f) for f in factors)
    return f"({inner})" if wrapped else inner
