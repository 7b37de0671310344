"""Sizes as a document prints them: ``64 MiB``, ``33 554 432``, ``25%``, ``~2e9``,
``4096 x 4096``; read exactly, with the precision they were printed to.

>>> read_shape_printed("[1, 32, 1024, 1024]"), read_shape_printed("4096 x 4096")
((1, 32, 1024, 1024), (4096, 4096))
"""

from __future__ import annotations

__all__ = ["SizePrinted", "read_size_printed", "read_shape_printed"]

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from symattn.errors import InputError, Location, cut
from symattn.values.whole import ascii_whole
from symattn.sizes.printing import BYTE_UNITS
from symattn.values.rules import Interval, Rounding, printed_interval

_MAX_POWER = 4096       # "2^N" in a printed size: N at most this
_TRANSLATE = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2009": " ", "\u202f": " ",
                            "\u00a0": " ", "\u00d7": "x", "\u2248": "~"})
_UNIT = re.compile(r"^(?P<number>.*?)\s*(?P<unit>[KkMGTP]i?B|B|bytes?|%|x|times)$")
_FRACTION = re.compile(r"(?P<numerator>\d+)/(?P<denominator>\d+)")
_POWER = re.compile(r"(?P<base>\d+)\s*(?:\^|\*\*)\s*(?P<exponent>\d+)")
_SCIENTIFIC = re.compile(r"(?P<whole>\d+)(?:[.,](?P<fraction>\d+))?[eE](?P<exponent>[+-]?\d+)")
_SPACES = re.compile(r"\d{1,3}(?: \d{3})+(?:[.,]\d+)?")
_UNDERSCORES = re.compile(r"\d{1,3}(?:_\d{3})+")
_COMMAS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_POINTS = re.compile(r"\d{1,3}(?:\.\d{3}){2,}(?:,\d+)?")
_PLAIN = re.compile(r"\d+(?:[.,]\d+)?")
_SHAPE_SPLIT = re.compile(r"\s*(?:,|x|\*|by)\s*")
_NOT_A_SIZE = ("is not a printed size; write the number as printed, with its unit: "
               "33 554 432, 2,147,483,648, 64 MiB, 67.1 MB, 25%, 1/4, 2^31, ~2e9 "
               "(words such as 'about a quarter' are not checked)")
# Units other than bytes: (the kinds that may carry it, its scale, why another kind may not).
_OTHER_UNITS = {
    "%": (("ratio",), Fraction(1, 100),
          "only a share (such as wo_share) is printed as a percentage"),
    "x": (("count", "ratio"), Fraction(1), "only a factor (gqa_factor) is written with x"),
}


@dataclass(frozen=True)
class SizePrinted:
    """A printed size: the number as printed, in its unit, and its precision.

    ``places`` is the decimal places printed (negative for ``2e9``: rounded to
    10^9); None for an exact form (``1/4``, ``2^31``) that must equal the value.
    ``scale`` turns the printed unit into the quantity's own (2^20 for MiB,
    1/100 for %).
    """

    text: str
    value: Fraction
    places: int | None
    unit: str = ""
    scale: Fraction = Fraction(1)
    approximate: bool = False

    def base_value(self) -> Fraction:
        return self.value * self.scale

    def interval(self, rule: Rounding) -> Interval:
        """The values, in the quantity's units, that print as this under ``rule``.

        >>> read_size_printed("25%", "ratio").interval(Rounding.HALF_UP)   # [24.5%, 25.5%)
        (Fraction(49, 200), True, Fraction(51, 200), False)
        """
        value = self.base_value()
        if self.places is None:
            return value, True, value, True
        return printed_interval(value, Fraction(10) ** -self.places * self.scale, rule)


class _Refused(Exception):
    """A number written in a known form but refused; the message follows the text."""


def _decimal(digits: str, fraction: str | None) -> tuple[Fraction, int]:
    fraction = fraction or ""
    return Fraction(int(digits + fraction), 10 ** len(fraction)), len(fraction)


def _exponent(text: str) -> int:
    exponent = int(text)
    if abs(exponent) > _MAX_POWER:
        raise _Refused(f": exponents beyond {_MAX_POWER} are refused")
    return exponent


# Each reader gets the matched body and whether a lone comma is a decimal comma;
# it gives the value and its printed places (None: exact), or None when the form does not apply.
_Read = tuple[Fraction, int | None]
_Reader = Callable[[re.Match[str], bool], _Read | None]


def _read_fraction(match: re.Match[str], decimal_comma: bool) -> _Read | None:
    if int(match["denominator"]) == 0:
        raise _Refused(" divides by zero")
    return Fraction(int(match["numerator"]), int(match["denominator"])), None


def _read_power(match: re.Match[str], decimal_comma: bool) -> _Read | None:
    return Fraction(int(match["base"]) ** _exponent(match["exponent"])), None


def _read_scientific(match: re.Match[str], decimal_comma: bool) -> _Read | None:
    exponent = _exponent(match["exponent"])
    mantissa, places = _decimal(match["whole"], match["fraction"])
    return mantissa * Fraction(10) ** exponent, places - exponent


def _read_spaced_groups(match: re.Match[str], decimal_comma: bool) -> _Read | None:
    parts = re.split(r"[.,]", match[0].replace(" ", "").replace("_", ""))
    return _decimal(parts[0], parts[1] if len(parts) > 1 else None)


def _read_comma_groups(match: re.Match[str], decimal_comma: bool) -> _Read | None:
    body = match[0]
    if (decimal_comma and "." not in body) or body.startswith("0,"):
        return None         # the comma is a decimal comma: 1,024 is 1.024
    whole, _, fraction = body.replace(",", "").partition(".")
    return _decimal(whole, fraction or None)


def _read_point_groups(match: re.Match[str], decimal_comma: bool) -> _Read | None:
    whole, _, fraction = match[0].replace(".", "").partition(",")
    return _decimal(whole, fraction or None)


def _read_plain(match: re.Match[str], decimal_comma: bool) -> _Read | None:
    whole, _, fraction = match[0].replace(",", ".").partition(".")
    return _decimal(whole, fraction or None)


# The forms of a printed number, tried in this order.
_FORMS: tuple[tuple[re.Pattern[str], _Reader], ...] = (
    (_FRACTION, _read_fraction), (_POWER, _read_power), (_SCIENTIFIC, _read_scientific),
    (_SPACES, _read_spaced_groups), (_UNDERSCORES, _read_spaced_groups),
    (_COMMAS, _read_comma_groups), (_POINTS, _read_point_groups), (_PLAIN, _read_plain),
)


def _read_number(body: str, decimal_comma: bool, text: str,
                 location: Location | None) -> _Read:
    for pattern, reader in _FORMS:
        match = pattern.fullmatch(body)
        if match is None:
            continue
        try:
            read = reader(match, decimal_comma)
        except _Refused as refusal:
            raise InputError(f"{text!r}{refusal}", location) from None
        if read is not None:
            return read
    raise InputError(f"{text!r} {_NOT_A_SIZE}", location)


def _scale(unit: str, kind: str, text: str, location: Location | None) -> Fraction:
    """What one printed ``unit`` is in the quantity's own units (1 MiB = 2^20 bytes)."""
    if unit in BYTE_UNITS:
        if kind != "bytes":
            raise InputError(f"{text!r}: a {kind} quantity has no byte unit", location)
        return Fraction(BYTE_UNITS[unit])
    if unit not in _OTHER_UNITS:
        raise InputError(f"{text!r}: unknown unit {unit!r}; bytes are written B, KiB, MiB, "
                         "GiB, TiB (binary) or kB, MB, GB, TB (decimal)", location)
    kinds, scale, refusal = _OTHER_UNITS[unit]
    if kind not in kinds:
        raise InputError(f"{text!r}: {refusal}", location)
    return scale


def read_size_printed(raw: object, kind: str = "bytes", decimal_comma: bool = False,
                      location: Location | None = None) -> SizePrinted | None:
    """Parse a printed size for a quantity of ``kind``; None for ``"?"`` or ``""``.

    Digit groups may be separated by spaces, commas, underscores or (two or
    more) points; ``1,024`` is one thousand and twenty-four unless the spec
    sets ``options.decimal_comma``. Units: B, KiB, MiB, GiB, TiB (binary),
    kB/KB, MB, GB, TB (decimal) for bytes; % for a ratio; x for a factor.

    >>> p = read_size_printed("64 MiB")
    >>> p.value, p.places, p.base_value()
    (Fraction(64, 1), 0, Fraction(67108864, 1))
    >>> read_size_printed("33 554 432", "elements").value
    Fraction(33554432, 1)
    >>> read_size_printed("2,147,483,648", "elements").value
    Fraction(2147483648, 1)
    >>> p = read_size_printed("25%", "ratio"); (p.value, p.places, p.base_value())
    (Fraction(25, 1), 0, Fraction(1, 4))
    >>> read_size_printed("~2e9", "elements").places
    -9
    """
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise InputError(f"a printed size must be text or a whole number, got {raw!r}",
                         location)
    text = str(raw).strip()
    if text in ("?", ""):
        return None
    body = text.translate(_TRANSLATE).strip()
    approximate = body.startswith("~")
    if approximate:
        body = body[1:].strip()
    unit = ""
    match = _UNIT.match(body)
    if match and match["number"]:
        unit, body = match["unit"], match["number"].strip()
    unit = "x" if unit == "times" else unit
    scale = _scale(unit, kind, text, location) if unit else Fraction(1)
    negative = body.startswith("-")
    if negative:
        body = body[1:].strip()
    value, places = _read_number(body, decimal_comma, text, location)
    return SizePrinted(text, -value if negative else value, places, unit, scale, approximate)


def read_shape_printed(raw: object, location: Location | None = None
                       ) -> tuple[int, ...] | None:
    """A printed shape: ``4096 x 4096``, ``[1, 32, 1024, 1024]``, ``(12, 64)``;
    None for ``"?"`` or ``""``."""
    if isinstance(raw, list):
        parts = [str(x) for x in raw]
    elif isinstance(raw, str):
        text = raw.translate(_TRANSLATE).strip()
        if text in ("?", ""):
            return None
        parts = _SHAPE_SPLIT.split(text.strip("[]() "))
    else:
        raise InputError(f"a printed shape is text such as '4096 x 4096' or a list of sizes, "
                         f"got {raw!r}", location)
    sizes = []
    for part in parts:
        size = ascii_whole(part.strip().replace(" ", ""))
        if size is None:
            raise InputError(f"{cut(str(raw))!r} is not a printed shape; write the sizes as "
                             "numbers: '4096 x 4096' or '[1, 32, 1024, 1024]'", location)
        sizes.append(size)
    return tuple(sizes)
