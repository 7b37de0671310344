"""Rounding rules on exact rationals, without flint.

Which integer a ratio rounds to under a rule, and which values print as a
given decimal: the interval every checker compares printed numbers with.
Works on ``fractions.Fraction`` and python-flint's ``fmpq`` alike (only
``+ - * /``, ``<`` and ``int`` are used), so the flint-free sizes checker and
the verifier share one definition.

>>> from fractions import Fraction
>>> printed_interval(Fraction(86, 100), Fraction(1, 100), Rounding.HALF_UP)
(Fraction(171, 200), True, Fraction(173, 200), False)
>>> intervals_meet(printed_interval(Fraction(86, 100), Fraction(1, 100), Rounding.HALF_UP),
...                printed_interval(Fraction(855, 1000), Fraction(1, 1000), Rounding.HALF_UP))
True
"""

from __future__ import annotations

__all__ = ["Rounding", "parse_rounding", "round_ratio", "round_to_places", "decimal_places_needed",
           "printed_interval", "intervals_meet", "Interval"]

from fractions import Fraction
from typing import Any

from symattn.defaults import TextEnum
from symattn.errors import InputError

# (low, low closed, high, high closed)
Interval = tuple[Any, bool, Any, bool]


class Rounding(TextEnum):
    """How a value is rounded to a number of decimal places."""

    HALF_UP = "half-up"        # halves away from zero, as people round by hand
    HALF_EVEN = "half-even"    # halves to the even neighbour (banker's rounding)
    TRUNCATE = "truncate"      # towards zero: drop the further digits


_ALIASES = {"half-up": Rounding.HALF_UP, "half_up": Rounding.HALF_UP,
            "half-even": Rounding.HALF_EVEN, "half_even": Rounding.HALF_EVEN,
            "bankers": Rounding.HALF_EVEN, "truncate": Rounding.TRUNCATE,
            "down": Rounding.TRUNCATE, "truncation": Rounding.TRUNCATE}


def parse_rounding(name: str) -> Rounding:
    """Rounding rule from its name (``half-up``, ``half-even``, ``truncate``)."""
    try:
        return _ALIASES[name.strip().lower()]
    except KeyError:
        raise InputError(f"unknown rounding rule {name!r}; use half-up, half-even "
                         "or truncate") from None


def round_ratio(numerator: int, denominator: int, rule: Rounding) -> int:
    """``numerator / denominator`` (denominator > 0) rounded to an integer under ``rule``."""
    negative = numerator < 0
    quotient, remainder = divmod(abs(numerator), denominator)
    if rule is Rounding.TRUNCATE or remainder == 0:
        result = quotient
    else:
        twice = 2 * remainder
        if twice > denominator or (twice == denominator and (
                rule is Rounding.HALF_UP or quotient % 2 == 1)):
            result = quotient + 1
        else:
            result = quotient
    return -result if negative else result


def round_to_places(value: Fraction, places: int, rule: Rounding) -> int:
    """``value * 10**places`` rounded to an integer under ``rule`` (``places`` may be negative).

    >>> round_to_places(Fraction(855, 1000), 2, Rounding.HALF_EVEN)
    86
    >>> round_to_places(Fraction(-2, 3), 1, Rounding.TRUNCATE)
    -6
    >>> round_to_places(Fraction(2500), -3, Rounding.HALF_EVEN)   # to thousands: 2.5 -> 2
    2
    """
    scaled = value * Fraction(10) ** places
    return round_ratio(scaled.numerator, scaled.denominator, rule)


def decimal_places_needed(denominator: int) -> int | None:
    """The decimal places that write exactly a fraction with this (positive,
    lowest-terms) denominator; None when its decimal expansion never ends.

    >>> decimal_places_needed(8), decimal_places_needed(3), decimal_places_needed(1)
    (3, None, 0)
    """
    twos = fives = 0
    while denominator % 2 == 0:
        denominator //= 2
        twos += 1
    while denominator % 5 == 0:
        denominator //= 5
        fives += 1
    return max(twos, fives) if denominator == 1 else None


def printed_interval(value: Any, unit: Any, rule: Rounding) -> Interval:
    """The values that print as ``value`` when ``unit`` is its last printed place.

    Half-up sends halves away from zero, so the half above a positive value is
    not its own; half-even gives a value both halves when its last digit is even.
    """
    if rule is Rounding.TRUNCATE:
        if value > 0:
            return value, True, value + unit, False
        if value < 0:
            return value - unit, False, value, True
        return -unit, False, unit, False
    half = unit / 2
    if rule is Rounding.HALF_UP:
        if value > 0:
            return value - half, True, value + half, False
        if value < 0:
            return value - half, False, value + half, True
        return -half, False, half, False
    last_digit_even = int(value / unit) % 2 == 0
    return value - half, last_digit_even, value + half, last_digit_even


def intervals_meet(first: Interval, second: Interval) -> bool:
    """Whether some value lies in both intervals (ends open or closed)."""
    low1, low_closed1, high1, high_closed1 = first
    low2, low_closed2, high2, high_closed2 = second
    low, low_closed = (low1, low_closed1) if low1 > low2 else (low2, low_closed2) \
        if low2 > low1 else (low1, low_closed1 and low_closed2)
    high, high_closed = (high1, high_closed1) if high1 < high2 else (high2, high_closed2) \
        if high2 < high1 else (high1, high_closed1 and high_closed2)
    return low < high or (low == high and low_closed and high_closed)
