"""Numbers on a worksheet as LaTeX math: exact or rounded with the sheet's decimal
mark, fractions as a student writes them, grouped whole numbers, and the one width
of every blank of a kind (so that a box does not tell its answer's length).

``render.worksheet`` lays the sheet out with these; ``render.exports`` writes the
same numbers into platform questions.
"""

from __future__ import annotations

__all__ = ["number_math", "fraction_math", "tie_last_formula", "grouped", "blank_width"]

import re
from typing import Any

from flint import fmpq

from symattn.render import latex
from symattn.values.exact import NEG_INF
from symattn.values.number_format import NumberFormat


def number_math(value: Any, places: int | None, locale: str) -> str:
    """A number as math: exact (``places`` None) or rounded, with the locale's separator.

    >>> from flint import fmpq
    >>> number_math(fmpq(-3, 2), None, "cs"), number_math(fmpq(2, 3), 3, "uk")
    ('-1{,}5', '0{,}667')
    """
    if value is NEG_INF:
        return r"-\infty"
    if isinstance(value, int):
        value = fmpq(value)
    if places is None:
        text = latex.exact_latex(value, locale)
        if text is None:
            raise ValueError(f"{value!r} has no exact form; give places")
        return text
    formatted = NumberFormat(digits=None, places=places, locale=locale).format(value)
    assert formatted is not None
    return latex.math_decimal(formatted)


def fraction_math(value: fmpq) -> str:
    r"""A rational as a student writes it: ``\tfrac{2}{9}``, ``-\tfrac{1}{2}``, ``3``.

    >>> fraction_math(fmpq(-2, 9)), fraction_math(fmpq(3))
    ('-\\tfrac{2}{9}', '3')
    """
    if value.q == 1:
        return str(int(value.p))
    sign = "-" if value < 0 else ""
    return rf"{sign}\tfrac{{{abs(int(value.p))}}}{{{int(value.q)}}}"


_LAST_FORMULA = re.compile(r" (\$[^$]{1,16}\$[.,;:!?)]*)$")


def tie_last_formula(text: str) -> str:
    """Tie a short formula that ends a paragraph to the word before it, so that it is
    never alone on the last line (``to the nearest~$0.001$.``).

    >>> tie_last_formula("to the nearest $0{,}001$."), tie_last_formula("$a$ and $b$ here")
    ('to the nearest~$0{,}001$.', '$a$ and $b$ here')
    """
    return _LAST_FORMULA.sub(r"~\1", text)


def grouped(value: int) -> str:
    """A whole number with thin spaces between groups of three: ``33\\,554\\,432``."""
    digits = str(value)
    groups: list[str] = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    return r"\,".join([digits] + groups) if digits else r"\,".join(groups)


def blank_width(kind: str, places: int) -> str:
    """The width of every blank of a ``kind`` (number, size) on a sheet, in em: the
    same for every answer, so that a box does not tell its answer's length.

    >>> blank_width("number", 3), blank_width("number", 1), blank_width("size", 3)
    ('4.6em', '3.4em', '6.5em')
    """
    if kind == "size":
        return "6.5em"
    return f"{round(0.6 * (places + 3) + 1.0, 1)}em"
