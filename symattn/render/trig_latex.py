"""LaTeX of sums of sines and cosines (``values.trig``), laid out as SymPy would.

>>> from symattn.values.trig import RootBasis, TrigSum
>>> basis = RootBasis(10000, 6)
>>> value = TrigSum.trig(basis, basis.frequency(1, 6), True, 3)
>>> value.constant += 1
>>> trig_sum_latex(value)
'1 + 3 \\\\sin{\\\\left(\\\\frac{10^{\\\\frac{2}{3}}}{100} \\\\right)}'
>>> trig_sum_latex(value, inline=True)
'1 + 3 \\\\sin{\\\\left(10^{2 / 3} / 100 \\\\right)}'
"""

from __future__ import annotations

__all__ = ["trig_latex", "trig_sum_latex", "MAX_TERMS"]

from math import gcd

from flint import fmpq

from symattn.values.exact import Surd
from symattn.values.trig import Angle, RootBasis, TrigSum, TrigValue

MAX_TERMS = 8      # longer sums are not laid out (a page shows short exact forms only)


def _fraction(numerator: str, denominator: str, inline: bool) -> str:
    if denominator == "1":
        return numerator
    return f"{numerator} / {denominator}" if inline else f"\\frac{{{numerator}}}{{{denominator}}}"


def _times(coefficient: fmpq, factor: str, inline: bool) -> str:
    """``coefficient`` times a LaTeX factor: 3 x / 100, -x, \\frac{x}{2}."""
    sign = "-" if coefficient < 0 else ""
    num, den = abs(int(coefficient.p)), int(coefficient.q)
    head = factor if num == 1 else f"{num} {factor}" if factor[0].isalpha() or \
        factor[0] == "\\" else f"{num} \\cdot {factor}"
    return sign + _fraction(head, str(den), inline)


def _angle(basis: RootBasis, angle: Angle, inline: bool) -> str:
    parts = []
    for r, p, q in angle:
        if r == 0:
            parts.append(("-" if p < 0 else "") + _fraction(str(abs(p)), str(q), inline))
            continue
        num, den = r // gcd(r, basis.order), basis.order // gcd(r, basis.order)
        exponent = _fraction(str(num), str(den), inline)
        power = f"\\sqrt{{{basis.root}}}" if (num, den) == (1, 2) else \
            f"{basis.root}^{{{exponent}}}"
        parts.append(_times(fmpq(p, q), power, inline))
    return _joined(parts)


def _joined(parts: list[str]) -> str:
    text = ""
    for part in parts:
        if not text:
            text = part
        else:
            text += f" - {part[1:]}" if part.startswith("-") else f" + {part}"
    return text or "0"


def trig_sum_latex(value: TrigSum, inline: bool = False) -> str:
    """The constant, then the cosines and sines by angle, as the text form orders them."""
    parts = []
    if value.constant != 0:
        c = value.constant
        parts.append(("-" if c < 0 else "") + _fraction(str(abs(int(c.p))), str(int(c.q)),
                                                         inline))
    basis = value.basis
    for angle in sorted(value.terms, key=lambda a: tuple((r, fmpq(p, q)) for r, p, q in a)):
        inner = _angle(basis, angle, inline)
        for coefficient, name in zip(value.terms[angle], ("cos", "sin")):
            if coefficient != 0:
                parts.append(_times(coefficient, f"\\{name}{{\\left({inner} \\right)}}", inline))
    return _joined(parts)


def trig_latex(value: TrigValue, inline: bool = False) -> str | None:
    """LaTeX of a ``TrigValue``; None when it has more than ``MAX_TERMS`` terms."""
    form = value.form()
    if form.count > MAX_TERMS:
        return None
    factor = value.factor
    if isinstance(factor, Surd):
        scale = _times(factor.coefficient, f"\\sqrt{{{factor.radicand}}}", inline)
        return f"{scale} \\left({trig_sum_latex(form, inline)}\\right)"
    if factor != 1:
        scaled = TrigSum(form.basis)
        scaled.add_scaled(form, factor)
        form = scaled
    return trig_sum_latex(form, inline)
