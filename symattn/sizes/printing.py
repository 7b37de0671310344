"""How sizes are written: byte units, grouped digits, short and long decimals.

Exact throughout: a value is written exactly when its decimals end within the
places asked for, else rounded half-up and marked ``~``.

>>> format_bytes(3 * 2 ** 29), format_count(1_500_000), format_ratio(Fraction(2, 5))
('1.5 GiB', '1.5 million', '40%')
"""

from __future__ import annotations

__all__ = ["BYTE_UNITS", "COUNTERPART", "group_digits", "places_text", "short_decimal",
           "shown_decimal", "unit_text", "bytes_text", "format_bytes", "format_bytes_decimal",
           "format_count", "format_ratio"]

from fractions import Fraction
from typing import Iterable

from symattn.values.rules import Rounding, decimal_places_needed, round_to_places

_BINARY_UNITS = (("PiB", 2 ** 50), ("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20),
                 ("KiB", 2 ** 10))
_DECIMAL_UNITS = (("PB", 10 ** 15), ("TB", 10 ** 12), ("GB", 10 ** 9), ("MB", 10 ** 6),
                  ("kB", 10 ** 3))
_COUNT_WORDS = (("trillion", 10 ** 12), ("billion", 10 ** 9), ("million", 10 ** 6),
                ("thousand", 10 ** 3))
# Every byte unit a printed size may carry, and its counterpart in the other system.
BYTE_UNITS: dict[str, int] = {"B": 1, "byte": 1, "bytes": 1, "KB": 10 ** 3,
                              **dict(_BINARY_UNITS), **dict(_DECIMAL_UNITS)}
COUNTERPART = {"KiB": "kB", "MiB": "MB", "GiB": "GB", "TiB": "TB", "PiB": "PB",
               "kB": "KiB", "KB": "KiB", "MB": "MiB", "GB": "GiB", "TB": "TiB", "PB": "PiB"}


def group_digits(value: int, separator: str = ",") -> str:
    """An integer with its digits grouped in threes.

    >>> group_digits(33554432), group_digits(2147483648, " "), group_digits(-1000)
    ('33,554,432', '2 147 483 648', '-1,000')
    """
    text = f"{abs(value):,}".replace(",", separator)
    return "-" + text if value < 0 else text


def places_text(scaled: int, places: int, grouped: bool = False) -> str:
    """The integer ``scaled`` / 10**places written with ``places`` decimals.

    >>> places_text(-5, 2), places_text(1234567, 1, grouped=True), places_text(25, -3)
    ('-0.05', '123,456.7', '25000')
    """
    if places <= 0:
        whole = scaled * 10 ** -places
        return group_digits(whole) if grouped else str(whole)
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(places + 1, "0")
    head = group_digits(int(digits[:-places])) if grouped else digits[:-places]
    return f"{sign}{head}.{digits[-places:]}"


def _exact_places(value: Fraction, limit: int) -> int | None:
    """The fewest places that write ``value`` exactly, if at most ``limit``."""
    places = decimal_places_needed(value.denominator)
    return places if places is not None and places <= limit else None


def short_decimal(value: Fraction, places: int = 2) -> str:
    """Exactly when it takes at most ``places`` decimals, else ``~`` and rounded.

    >>> short_decimal(Fraction(3, 2)), short_decimal(Fraction(2, 3))
    ('1.5', '~0.67')
    """
    exact = _exact_places(value, places)
    if exact is not None:
        return places_text(int(value * 10 ** exact), exact)
    return "~" + places_text(round_to_places(value, places, Rounding.HALF_UP), places)


def shown_decimal(value: Fraction, places: int | None, extra: int = 4) -> str:
    """The value with a few more places than printed (digits grouped); ``...``
    when it goes on.

    >>> shown_decimal(Fraction(67108864, 10 ** 6), 0), shown_decimal(Fraction(1, 3), 2)
    ('67.108864', '0.333333...')
    """
    start = max(places or 0, 0)
    exact = _exact_places(value, start + extra + 6)
    if exact is not None:
        return places_text(int(value * 10 ** max(exact, start)), max(exact, start), True)
    shown = start + extra
    return places_text(round_to_places(value, shown, Rounding.TRUNCATE), shown, True) + "..."


def unit_text(unit: str) -> str:
    """A byte unit's size as a power: ``2^20`` for MiB, ``10^6`` for MB.

    >>> unit_text("MiB"), unit_text("MB")
    ('2^20', '10^6')
    """
    size = BYTE_UNITS[unit]
    if "i" in unit:
        return f"2^{size.bit_length() - 1}"
    return f"10^{len(str(size)) - 1}"


def bytes_text(count: int) -> str:
    """``1 byte``, ``2 bytes``."""
    return "1 byte" if count == 1 else f"{count} bytes"


def _in_units(value: int, units: Iterable[tuple[str, int]], places: int) -> str:
    for unit, size in units:
        if value >= size:
            return f"{short_decimal(Fraction(value, size), places)} {unit}"
    return f"{value} B"


def format_bytes(value: int, places: int = 2) -> str:
    """Bytes in binary units (KiB = 2^10, MiB = 2^20 ...); exact, else ``~`` rounded.

    >>> format_bytes(67108864), format_bytes(2 ** 30), format_bytes(1536), format_bytes(1000)
    ('64 MiB', '1 GiB', '1.5 KiB', '1000 B')
    >>> format_bytes(10 ** 9)
    '~953.67 MiB'
    """
    return _in_units(value, _BINARY_UNITS, places)


def format_bytes_decimal(value: int, places: int = 2) -> str:
    """Bytes in decimal units (kB = 10^3, MB = 10^6, GB = 10^9 ...).

    >>> format_bytes_decimal(67108864), format_bytes_decimal(4 * 10 ** 9)
    ('~67.11 MB', '4 GB')
    """
    return _in_units(value, _DECIMAL_UNITS, places)


def format_count(value: int) -> str:
    """A large count in words: ``~33.55 million``, ``2.5 billion``.

    >>> format_count(33554432), format_count(2147483648), format_count(2_500_000_000)
    ('~33.55 million', '~2.15 billion', '2.5 billion')
    """
    for word, size in _COUNT_WORDS:
        if abs(value) >= size:
            return f"{short_decimal(Fraction(value, size))} {word}"
    return str(value)


def format_ratio(value: Fraction) -> str:
    """A share as a percentage: ``25%``, ``~33.33%``.

    >>> format_ratio(Fraction(1, 4)), format_ratio(Fraction(1, 3))
    ('25%', '~33.33%')
    """
    return short_decimal(value * 100) + "%"
