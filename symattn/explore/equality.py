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

import sympy
from flint import arb, fmpq

from symattn.values.exact import NAN, NEG_INF, Exact, Irrational, Surd, to_ball
from symattn.values.symbolic import SympyValue, WrittenValue, value_to_sympy

_SYMPY_KINDS = (SympyValue, WrittenValue)   # values known by their SymPy expression


def same_exact(a: Exact, b: Exact) -> bool:
    """True only when the two exact values are proved equal."""
    if a is b:
        return True
    if isinstance(a, fmpq) and isinstance(b, fmpq):
        return a == b
    if isinstance(a, Surd) and isinstance(b, Surd):
        return a == b
    if isinstance(a, _SYMPY_KINDS) and isinstance(b, _SYMPY_KINDS):
        x, y = a.to_sympy(), b.to_sympy()
        return bool(x == y or sympy.expand(x - y) == 0)
    if isinstance(a, Irrational) and isinstance(b, Irrational):
        return a.text == b.text
    return False


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
    return None if isinstance(value, Irrational) else value_to_sympy(value)


def same_closed_form(a: Exact, b: Exact) -> bool | None:
    """Whether the exact closed forms agree (None: they cannot be compared)."""
    if isinstance(a, Irrational) and isinstance(b, Irrational):
        return sum_order_free(a.text) == sum_order_free(b.text)
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
