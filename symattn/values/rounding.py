"""Rounding decided with certainty, and the one decimal formatter.

A rational is rounded with integer arithmetic. An irrational value is rounded
from a certified ball: rounding is monotone, so when both ends of the ball
round to the same integer every point inside does too, and the decision is
proved. Otherwise the caller raises the precision and asks again. A binary
float never decides anything here.

>>> round_scaled(fmpq(855, 1000), 2, Rounding.HALF_UP)
86
>>> round_scaled(fmpq(855, 1000), 2, Rounding.HALF_EVEN)
86
>>> round_scaled(fmpq(845, 1000), 2, Rounding.HALF_EVEN)
84
>>> format_scaled(-5, 2)
'-0.05'
"""

from __future__ import annotations

__all__ = ["Rounding", "decimal_digits", "round_scaled", "round_ratio", "decimal_bounds",
           "round_bounds", "round_ball", "format_scaled", "is_tie", "distance_to_tie",
           "parse_rounding", "printed_interval", "intervals_meet"]

from flint import arb, fmpq, fmpz

# The rules themselves need no flint (the sizes checker uses them without it).
from symattn.values.rules import (Rounding, intervals_meet, parse_rounding, printed_interval,
                                    round_ratio)


def _pow10(places: int) -> fmpq:
    return fmpq(10) ** places


def round_scaled(value: fmpq, places: int, rule: Rounding) -> int:
    """``value * 10**places`` rounded to an integer under ``rule`` (exactly)."""
    scaled = value * _pow10(places)
    return round_ratio(int(scaled.p), int(scaled.q), rule)


def is_tie(value: fmpq, places: int, rule: Rounding) -> bool:
    """True when the rule, not the value, decides the last digit.

    For the half rules that is a value exactly halfway between two candidates;
    for truncation, a value with nothing beyond the printed digits is never a tie.
    """
    if rule is Rounding.TRUNCATE:
        return False
    scaled = value * _pow10(places)
    return int(scaled.q) == 2


def _exact_dyadic(point: arb) -> fmpq:
    """An exact arb (as ``mid()`` and ``rad()`` return) as a rational."""
    if point.is_zero():
        return fmpq(0)
    mantissa, exponent = point.man_exp()
    return fmpq(int(mantissa)) * fmpq(2) ** int(exponent)


def _ball_endpoints(ball: arb) -> tuple[fmpq, fmpq]:
    # mid() and rad() are exact whatever the context precision, so the
    # endpoints are computed in rationals rather than with arb's rounding.
    middle, radius = _exact_dyadic(ball.mid()), _exact_dyadic(ball.rad())
    return middle - radius, middle + radius


def decimal_bounds(ball: arb, digits: int) -> tuple[int, int, int]:
    """Integers (low, high, exponent) with the ball inside [low, high] * 10**exponent.

    ``arb.mid_rad_10exp`` gives a decimal midpoint and radius that enclose the
    ball; this is much cheaper than converting the binary endpoints exactly.
    """
    middle, radius, exponent = (int(part) for part in ball.mid_rad_10exp(digits))
    return middle - radius, middle + radius, exponent


def round_bounds(low: int, high: int, exponent: int, places: int, rule: Rounding) -> int | None:
    """Round every point of [low, high] * 10**exponent to ``places``; None if they differ."""
    shift = exponent + places
    if shift >= 0:
        return low * 10 ** shift if low == high else None
    unit = 10 ** -shift
    rounded = round_ratio(low, unit, rule)
    return rounded if rounded == round_ratio(high, unit, rule) else None


def round_ball(ball: arb, places: int, rule: Rounding, digits: int | None = None) -> int | None:
    """The rounded scaled integer if the ball decides it, else None.

    Rounding is monotone, so when both ends of the enclosure round to the same
    integer, so does every point inside: the decision is proved.
    """
    if not ball.is_finite():
        return None
    try:
        if digits is not None:
            return round_bounds(*decimal_bounds(ball, digits), places, rule)
        low_q, high_q = _ball_endpoints(ball)
    except (OverflowError, ValueError, MemoryError):
        return None   # beyond what exact endpoints can represent: undecided at this precision
    rounded_low = round_scaled(low_q, places, rule)
    if rounded_low == round_scaled(high_q, places, rule):
        return rounded_low
    return None


def distance_to_tie(ball: arb, places: int) -> arb:
    """How far (in units of the last printed place) the value is from a midpoint."""
    scaled = ball * arb(fmpz(10) ** places if places >= 0 else fmpq(1, 10 ** -places))
    fraction = scaled - scaled.floor()
    return abs(fraction - arb(fmpq(1, 2)))


_STR_LIMIT = 10 ** 4000      # well inside Python's int-to-str digit limit


def decimal_digits(number: int) -> str:
    """``str(number)`` without Python's 4300-digit limit (flint prints any length)."""
    return str(number) if -_STR_LIMIT < number < _STR_LIMIT else str(fmpz(number))


def format_scaled(scaled: int, places: int, decimal_separator: str = ".") -> str:
    """Decimal text of ``scaled / 10**places``, trailing zeros kept.

    Negative places print as an integer with that many trailing zeros.

    >>> format_scaled(40, 2)
    '0.40'
    >>> format_scaled(12, -2)
    '1200'
    """
    if places <= 0:
        return decimal_digits(scaled * 10 ** (-places))
    sign = "-" if scaled < 0 else ""
    digits = decimal_digits(abs(scaled)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}{decimal_separator}{digits[-places:]}"
