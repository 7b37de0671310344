"""One printed number (``Number``) and a printed vector or matrix (``Group``), and how a
number is read from the normalized text of a document: Unicode or LaTeX minus
signs, decimal commas, grouped thousands, exponents, percentages, minus infinity.

>>> from symattn.extract.document import from_text
>>> [(n.text, n.value, n.places) for n in read_numbers("-1.2e-03 and 2,980.96 %", 0,
...                                                       from_text("x"), False)]
[('-1.2e-03', Fraction(-3, 2500), 4), ('2,980.96 %', Fraction(74524, 25), 2)]
"""

from __future__ import annotations

__all__ = ["Number", "Group", "NUMBER", "CELL_CONTENT", "read_numbers"]

import math
import re
from dataclasses import dataclass
from fractions import Fraction

from symattn.extract.document import Document

# At most 100 digits before and after the point (a longer run of digits is no printed
# number, and Fraction refuses more than 4,300); never followed by ".digit", so a run
# that is too long is not read as its first digits.
NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>-\s?)?(?:(?P<inf>∞)|(?P<body>[0-9]{1,3}(?:,[0-9]{3}){1,33}"
    r"(?:\.[0-9]{1,100})?(?![0-9])|[0-9]{1,100}(?:[.,][0-9]{1,100})?(?:[eE][+-]?[0-9]{1,3})?))"
    r"(?![\w])(?!\.[0-9])(?P<percent>\s?%)?")
# what a cell of a row or table may hold: numbers and their signs, separators
CELL_CONTENT = re.compile(r"^[\s\d.,;%≈~∞+\-eE]*$")


@dataclass(frozen=True)
class Number:
    """One printed number; ``value`` is None for minus infinity."""

    text: str
    value: Fraction | None
    places: int
    percent: bool
    approximate: bool
    start: int                # in the normalized text
    end: int
    line: int                 # 1-based, in the original document
    column: int

    @property
    def printed(self) -> str:
        """The number as a claim writes it: as printed, ``-inf`` for minus infinity."""
        if self.value is None:
            return "-inf"
        return ("~" if self.approximate else "") + self.text

    @property
    def magnitude(self) -> Fraction | None:
        """The value as a plain number (a percentage divided by 100)."""
        if self.value is None:
            return None
        return self.value / 100 if self.percent else self.value

    @property
    def approximately(self) -> float:
        """The magnitude as a float (-inf for minus infinity), computed once."""
        cached = self.__dict__.get("_float")
        if cached is None:
            magnitude = self.magnitude
            cached = -math.inf if magnitude is None else float(magnitude)
            object.__setattr__(self, "_float", cached)
        return float(cached)


@dataclass(frozen=True)
class Group:
    """A vector (one row) or matrix printed in brackets, with the names written before it."""

    rows: tuple[tuple[Number, ...], ...]
    start: int
    end: int
    names: tuple[str, ...]
    # A table row: the column headings over its numbers (one per number, "" where
    # there is none), the label written before them in the row, and where the
    # table starts (the same for every row of one table; -1 outside tables).
    headings: tuple[str, ...] = ()
    label: str = ""
    table: int = -1
    # A group on a continuation line ("= [...]" under "Q = X W_Q"): the text of the
    # line above (normalized), which says what the group is; "" otherwise.
    above: str = ""

    @property
    def numbers(self) -> list[Number]:
        return [n for row in self.rows for n in row]

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.rows[0])

    @property
    def line(self) -> int:
        return self.rows[0][0].line



def _number(match: re.Match[str], decimal_comma: bool, document: Document,
            offset: int) -> Number:
    sign = "-" if (match["sign"] or "").strip() == "-" else ""
    percent = bool(match["percent"])
    start = offset + match.start()
    before = document.text[max(0, start - 3):start]
    approximate = "≈" in before or "~" in before
    line, column = document.where(start)
    if match["inf"]:
        return Number(sign + "∞", None, 0, False, approximate, start, offset + match.end(),
                      line, column)
    body = match["body"]
    grouped = body.count(",") > 1 or "," in body and "." in body   # 2,980.96 and 1,000,000
    digits = body.replace(",", "") if grouped else \
        body.replace(",", ".") if decimal_comma else body
    if "," in digits:     # a comma where commas separate numbers: the first part only
        digits = digits.split(",")[0]
    mantissa, _, exponent = digits.lower().partition("e")
    places = len(mantissa.split(".")[1]) if "." in mantissa else 0
    places = max(0, places - int(exponent or 0))
    text = sign + body + (match["percent"] or "")
    return Number(text, Fraction(sign + digits), places, percent, approximate, start,
                  offset + match.end(), line, column)


def read_numbers(text: str, offset: int, document: Document, decimal_comma: bool,
             in_row: bool = False) -> list[Number]:
    """The numbers of a text; outside a row, a minus right after a number is the
    operator between two terms (``0.9 - 0.1``), inside one it is a sign (``[0.1 -0.2]``)."""
    found = []
    for match in NUMBER.finditer(text):
        before = text[max(0, match.start() - 4):match.start()]
        if match["sign"] and not in_row and re.search(r"[\d)\]]\s*$", before):
            match = NUMBER.match(text, match.start("inf") if match["inf"] else
                                  match.start("body")) or match   # a minus between two terms
        found.append(_number(match, decimal_comma, document, offset))
    return found

