"""How a document groups digits and marks decimals: ``options.number_format``.

Three conventions are named by how they write one thousand two hundred
thirty-four and a half::

    "1,234.5"   comma groups thousands, point is decimal (English)
    "1 234,5"   space groups thousands, comma is decimal (Polish, Czech, Russian, Ukrainian)
    "1.234,5"   point groups thousands, comma is decimal (German, Italian, ...)

``normalise`` rewrites a printed number into plain form (point decimal, no
grouping) under the spec's convention. Without one, a printed "22,026" in a
document that writes decimal points elsewhere is refused: it reads 22026 with a
thousands comma and 22.026 with a decimal comma, and nothing says which.

>>> normalise("22,026", "1,234.5"), normalise("1 234,5", "1 234,5"), normalise("1.234,5", "1.234,5")
('22026', '1234.5', '1234.5')
>>> normalise("0.394", "1.234,5")   # doctest: +ELLIPSIS
Traceback (most recent call last):
...
symattn.errors.InputError: '0.394' is not written as options.number_format = "1.234,5" says ...
>>> normalise("0,309", "", points=False)
'0,309'
>>> normalise("22,026", "", points=True)   # doctest: +ELLIPSIS
Traceback (most recent call last):
...
symattn.errors.InputError: '22,026' reads two ways: 22026 (a thousands comma, ...) or 22.026 ...
"""

from __future__ import annotations

__all__ = ["NUMBER_FORMATS", "normalise", "uses_points"]

import re
from typing import Any, Iterable

from symattn.errors import InputError, Location

NUMBER_FORMATS = ("1,234.5", "1 234,5", "1.234,5")
_SPACES = ("\u2009", "\u202f", "\u00a0", " ", "'")
# A printed number as its digits and marks (optional sign and e-notation).
_NUMBER = re.compile(r"(?P<sign>[+\-\u2212]?)(?P<body>[0-9][0-9.,\u2009\u202f\u00a0 ']*)"
                     r"(?P<exponent>[eE][+\-]?[0-9]+)?")
_COMMA_THOUSANDS = re.compile(r"[+\-\u2212]?[1-9][0-9]{0,2},[0-9]{3}")   # 22,026: one comma
_POINT = re.compile(r"[0-9]\.[0-9]")
# A number body (spaces removed) that fits each convention: grouped by threes or not at all.
_FITS = {"1,234.5": re.compile(r"(?:[1-9][0-9]{0,2}(?:,[0-9]{3})+|[0-9]*)(?:\.[0-9]*)?"),
         "1 234,5": re.compile(r"[0-9]+(?:[,.][0-9]*)?"),
         "1.234,5": re.compile(r"(?:[1-9][0-9]{0,2}(?:\.[0-9]{3})+|[0-9]*)(?:,[0-9]*)?")}
_DECIMAL_MARK = {"1,234.5": "a point as", "1 234,5": "a comma as", "1.234,5": "a comma as"}


def normalise(text: str, number_format: str, points: bool = False,
              location: Location | None = None) -> str:
    """``text`` with its grouping removed and a decimal point, under ``number_format``;
    without one, as it is, unless it is ambiguous (a comma before three digits in a
    document with ``points``)."""
    match = _NUMBER.fullmatch(text.strip())
    if match is None:
        return text
    if not number_format:
        if points and _COMMA_THOUSANDS.fullmatch(text.strip()):
            raise InputError(_ambiguous(text.strip()), location)
        return text
    body = match["body"]
    for space in _SPACES:
        body = body.replace(space, "")
    if not _FITS[number_format].fullmatch(body):
        raise InputError(f"{text.strip()!r} is not written as options.number_format = "
                         f"\"{number_format}\" says (groups of three digits, "
                         f"{_DECIMAL_MARK[number_format]} decimal mark)", location)
    if number_format == "1,234.5":
        body = body.replace(",", "")
    elif number_format == "1 234,5":
        body = body.replace(",", ".")
    else:
        body = body.replace(".", "").replace(",", ".")
    return f"{match['sign']}{body}{match['exponent'] or ''}"


def _ambiguous(text: str) -> str:
    plain = text.replace(",", "")
    whole, _, rest = text.partition(",")
    decimal = f"{whole}.{rest}"
    return (f"{text!r} reads two ways: {plain} (a thousands comma, as in 1,234.5) or "
            f"{decimal} (a decimal comma, as in 1 234,5); the document writes decimal points "
            "elsewhere, so say which with options.number_format = \"1,234.5\" or \"1 234,5\"")


def uses_points(texts: Iterable[Any]) -> bool:
    """Whether any of these printed texts writes a decimal point between digits.

    >>> uses_points(["0,5", "12"]), uses_points(["0.394", "22,026"])
    (False, True)
    """
    return any(isinstance(text, str) and _POINT.search(text) is not None and
               not _COMMA_THOUSANDS.fullmatch(text.strip()) for text in texts)
