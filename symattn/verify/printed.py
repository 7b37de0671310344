"""One printed number of a document, read as printed: its value, places and marks.

>>> read_printed("83.83%").places, read_printed("83.83%").percent
(2, True)
>>> read_printed("~3.997").approximate
True
>>> read_printed("22,026", number_format="1,234.5").value
22026
"""

from __future__ import annotations

__all__ = ["Printed", "read_printed"]

import re
from dataclasses import dataclass
from typing import Any

from flint import fmpq

from symattn.errors import InputError, Location
from symattn.values import arith
from symattn.values.entries import parse_entry
from symattn.values.native import native_text
from symattn.values.exact import NEG_INF, Exact, Surd
from symattn.values.number_reading import normalise


@dataclass(frozen=True)
class Printed:
    """A printed number: its value, its decimal places, and how it was marked.

    ``continues`` marks digits followed by an ellipsis (0.666...): the digits
    shown are the leading digits of the value, so cutting them off is right.
    ``exact`` marks a printed closed form (1/3, sqrt(2)/2), compared exactly.
    """

    text: str
    value: Any            # fmpq, NEG_INF, or a Surd for a printed root
    places: int
    percent: bool = False
    approximate: bool = False
    continues: bool = False
    exact: bool = False
    scientific: bool = False     # printed in e-notation (1.5e-3, 1.5 × 10⁻³): reported so

    @property
    def digits(self) -> int:
        """Significant digits of a printed decimal (of its mantissa in e-notation).

        >>> read_printed("7.9471515e-232").digits, read_printed("0.0030").digits
        (8, 2)
        """
        scaled = abs(int(self.value * fmpq(10) ** self.places)) if self.places >= 0 else 0
        return max(len(str(scaled)), 1) if scaled else 1

    @property
    def number(self) -> Exact:
        """The value as a number: a percentage divided by 100.

        >>> read_printed("39.5%").number
        79/200
        """
        # arith.divide, not /: a printed closed form (a Surd) can carry a percent sign too
        return arith.divide(self.value, fmpq(100)) if self.percent else self.value


_SKIP = ("?", "")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_TIMES_TEN = re.compile(r"^(?P<mantissa>[+\-\u2212]?[0-9][0-9.,]*)\s*(?:[×x·*]|\\times|\\cdot)\s*"
                        r"10\s*(?:\^|\*\*)?\s*\{?\s*(?P<exponent>[+\-\u2212]?[0-9]+)\s*\}?$")
_ELLIPSIS = ("...", "\u2026")
_E_NOTATION = re.compile(r"[+\-\u2212]?[0-9][0-9.,]*[eE][+\-]?[0-9]+")
def read_printed(raw: Any, location: Location | None = None, number_format: str = "",
                 points: bool = False) -> Printed | None:
    """Parse one printed number; None for a skipped entry ("?" or "").

    ``number_format`` (options.number_format) says how its digits are grouped and
    which mark is decimal; without it, ``points`` says the document writes decimal
    points elsewhere, so that "22,026" is ambiguous (``values.number_reading``).

    >>> read_printed("1.5 × 10⁻³").value, read_printed("0.666...").continues
    (3/2000, True)
    """
    if isinstance(raw, bool) or raw is None or isinstance(raw, (list, dict)):
        raise InputError(f"a printed number must be a number or text, got {raw!r}", location)
    text = native_text(raw, location).strip()
    if text in _SKIP:
        return None
    body = text
    approximate = False
    if body[:1] in ("~", "\u2248"):
        approximate, body = True, body[1:].strip()
    percent = body.endswith("%")
    if percent:
        body = body[:-1].strip()
    continues = body.endswith(_ELLIPSIS)
    if continues:
        body = body.rstrip(".\u2026").strip()
    body = normalise(body, number_format, points, location)
    scientific = _TIMES_TEN.match(body.translate(_SUPERSCRIPTS))
    if scientific:   # 1.5 × 10^-3, 1.5·10⁻³, 1.5 \times 10^{-3}
        body = f"{scientific['mantissa']}e{scientific['exponent']}".replace("\u2212", "-")
    e_notation = _E_NOTATION.fullmatch(body) is not None
    entry = parse_entry(body, location)
    if entry.value is NEG_INF:
        return Printed(text, NEG_INF, 0, percent, approximate)
    if entry.places is None and isinstance(entry.value, (fmpq, Surd)) and not continues:
        return Printed(text, entry.value, 0, percent, approximate, exact=True)
    if entry.places is None or not isinstance(entry.value, fmpq):
        raise InputError(f"{text!r} is not a printed number (write it as printed: 0.394, "
                         "83.83%, 0.666..., 1/3, sqrt(2)/2)", location)
    return Printed(text, entry.value, entry.places, percent, approximate, continues,
                   scientific=e_notation)


