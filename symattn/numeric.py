"""Decimals of exact values, each digit proved.

Rationals are rounded exactly. Anything else is evaluated as a certified ball
at a working precision that is doubled until the rounding is decided (see
``rounding.round_ball``). A value that is irrational can always be decided
this way; the cap only protects against values that are secretly exact
halfway cases, which the engine recognises as rationals before they get here.

>>> from flint import fmpq
>>> fixed_decimal(fmpq(1, 3), 4)
'0.3333'
>>> significant_decimal(fmpq(2, 3), 3)
'0.667'
"""

from __future__ import annotations

__all__ = ["decide_scaled", "fixed_decimal", "significant_decimal", "UndecidedError",
           "fixed_from_ball", "significant_from_ball", "float_decimal_from_ball",
           "to_scientific",
           "MAX_PRECISION_BITS", "start_precision"]

import math

from flint import fmpq

from symattn.errors import SymattnError
from symattn.exact import NAN, NEG_INF, Exact, to_ball
from symattn.rounding import (Rounding, decimal_bounds, decimal_digits, format_scaled,
                              round_ball, round_bounds, round_scaled)

MAX_PRECISION_BITS = 1 << 16
_LOG2_10 = math.log2(10)


class UndecidedError(SymattnError):
    """The rounding could not be decided within the precision cap."""


def start_precision(places: int, magnitude_digits: int = 4) -> int:
    """A first working precision (bits) for ``places`` decimals of a number of
    about ``10**magnitude_digits``."""
    return int((max(places, 0) + max(magnitude_digits, 0)) * _LOG2_10) + 64


def decide_scaled(value: Exact, places: int, rule: Rounding = Rounding.HALF_UP,
                  max_bits: int = MAX_PRECISION_BITS) -> int:
    """``value * 10**places`` rounded under ``rule``, decided with certainty."""
    if isinstance(value, fmpq):
        return round_scaled(value, places, rule)
    if value is NEG_INF or value is NAN:
        raise ValueError(f"{value!r} has no decimals")
    bits = start_precision(places)
    while bits <= max_bits:
        ball = to_ball(value, bits)
        if ball is not None:
            decided = round_ball(ball, places, rule)
            if decided is not None:
                return decided
        bits *= 2
    raise UndecidedError(f"could not decide the rounding of {getattr(value, 'text', value)} "
                         f"to {places} places within {max_bits} bits")


def fixed_decimal(value: Exact, places: int, rule: Rounding = Rounding.HALF_UP,
                  decimal_separator: str = ".") -> str:
    """``value`` rounded to ``places`` decimal places, trailing zeros kept."""
    if value is NEG_INF:
        return "-inf"
    if value is NAN:
        return "nan"
    return format_scaled(decide_scaled(value, places, rule), places, decimal_separator)


def _estimate_exponent(value: Exact) -> int | None:
    """floor(log10 |value|), possibly off by one; None for zero."""
    if isinstance(value, fmpq):
        if value == 0:
            return None
        p, q = abs(int(value.p)), int(value.q)
        return len(decimal_digits(p)) - len(decimal_digits(q))
    bits = 64
    while bits <= MAX_PRECISION_BITS:
        ball = to_ball(value, bits)
        assert ball is not None
        if not ball.contains(0):
            mantissa, exponent = ball.mid().man_exp()
            binary = int(exponent) + int(mantissa).bit_length() if mantissa else 0
            return math.floor((binary - 1) / _LOG2_10)
        bits *= 2
    raise UndecidedError(f"could not tell {getattr(value, 'text', value)} from zero")


def significant_decimal(value: Exact, digits: int, rule: Rounding = Rounding.HALF_UP,
                        decimal_separator: str = ".") -> str:
    """``value`` to ``digits`` significant digits, in positional notation.

    >>> from flint import fmpq
    >>> significant_decimal(fmpq(99995, 10000), 4)
    '10.00'
    >>> significant_decimal(fmpq(0), 3)
    '0'
    """
    if value is NEG_INF:
        return "-inf"
    if value is NAN:
        return "nan"
    exponent = _estimate_exponent(value)
    if exponent is None:
        return "0"
    for _ in range(4):
        places = digits - 1 - exponent
        scaled = decide_scaled(value, places, rule)
        length = len(decimal_digits(abs(scaled)))
        if length == digits:
            return format_scaled(scaled, places, decimal_separator)
        if length > digits:
            if scaled % 10 == 0 and len(decimal_digits(abs(scaled // 10))) == digits:
                # 9.9995 -> 10.000 at 4 figures: one digit fewer, same value.
                return format_scaled(scaled // 10, places - 1, decimal_separator)
            exponent += 1
        else:
            exponent -= 1
    raise UndecidedError("could not settle the number of significant digits")  # pragma: no cover


# --------------------------------------------------------------- from a ball
# The batch path: a whole matrix is evaluated as balls at one precision, and
# each entry is formatted from its ball when the ball decides it. Entries it
# cannot decide (too wide a ball, or an exact halfway case) return None and go
# through the per-entry functions above, which raise the precision or round
# the exact rational.

def fixed_from_ball(ball: object, places: int, rule: Rounding, separator: str = ".",
                    guard_digits: int = 8) -> str | None:
    """``places`` decimals of the value in ``ball`` if the ball decides them."""
    if ball is None:
        return None
    low, high, exponent = decimal_bounds(ball, max(places, 0) + guard_digits + 8)  # type: ignore[arg-type]
    scaled = round_bounds(low, high, exponent, places, rule)
    return None if scaled is None else format_scaled(scaled, places, separator)


def significant_from_ball(ball: object, digits: int, rule: Rounding, separator: str = ".",
                          guard_digits: int = 8) -> str | None:
    """``digits`` significant digits of the value in ``ball`` if the ball decides them."""
    if ball is None:
        return None
    if ball.is_zero():  # type: ignore[attr-defined]
        return "0"
    low, high, exponent = decimal_bounds(ball, digits + guard_digits)  # type: ignore[arg-type]
    if low <= 0 <= high:
        return None
    magnitude = len(decimal_digits(min(abs(low), abs(high)))) - 1 + exponent
    for _ in range(3):
        places = digits - 1 - magnitude
        scaled = round_bounds(low, high, exponent, places, rule)
        if scaled is None:
            return None
        length = len(decimal_digits(abs(scaled)))
        if length == digits:
            return format_scaled(scaled, places, separator)
        if length > digits:
            if scaled % 10 == 0 and len(decimal_digits(abs(scaled // 10))) == digits:
                return format_scaled(scaled // 10, places - 1, separator)
            magnitude += 1
        else:
            magnitude -= 1
    return None


_EPS = 2.0 ** -50            # a few units in the last place of a double, rounded up
_SLACK = 2.0 ** -44          # bound on the error of scaling by 10**places (many ulps)
_POWERS = [10.0 ** k for k in range(300)]   # exact up to 10**22, within an ulp beyond


def float_decimal_from_ball(ball: object, places: int | None, digits: int | None,
                            separator: str = ".") -> str | None:
    """The fast path for half-up and half-even: decide the rounding in doubles.

    It relies on IEEE double arithmetic and on powers of ten within an ulp
    (exact up to 10**22); the error allowance is far larger than both.

    The true value lies within ``delta`` of ``x = float(mid)``, where ``delta``
    bounds the ball's radius plus the conversion error. If the distance from
    ``x`` to the nearest rounding midpoint, less every floating-point error
    made in measuring it, exceeds ``delta``, then no point of the ball is
    near a midpoint: the true value rounds exactly as ``x`` does, and Python's
    correctly rounded ``%f`` formatting of ``x`` gives the digits. Anything
    closer, out of double range, or beyond 22 places returns None and is
    decided by the slower exact paths. Halves never reach this path (a value
    within ``delta`` of a midpoint is always passed on), so half-up and
    half-even agree here.
    """
    if ball is None:
        return None
    x = float(ball)  # the midpoint rounded to a double (python-flint converts the midpoint)
    if x == 0.0:
        if not ball.is_zero():  # type: ignore[attr-defined]
            return None
        if places is None:
            return "0"   # an exact zero (a masked weight), as significant_decimal prints it
        return format_scaled(0, places, separator)
    magnitude = abs(x)
    if not 1e-290 < magnitude < 1e290:
        return None
    delta = float(ball.rad()) * (1 + _EPS) + magnitude * _EPS  # type: ignore[attr-defined]
    if places is None:
        assert digits is not None
        places = digits - 1 - math.floor(math.log10(magnitude))
    if not 0 <= places < len(_POWERS):
        return None
    power = _POWERS[places]
    scaled = magnitude * power
    if scaled >= 2.0 ** 52:
        return None
    fraction = scaled - math.floor(scaled)
    # ``scaled`` is within scaled * _SLACK of magnitude * 10**places (one rounding
    # in 10**places, one in the product); the ball adds delta * 10**places.
    margin = abs(fraction - 0.5) - scaled * _SLACK - delta * power * (1 + _EPS)
    if margin <= 0.0:
        return None
    if digits is not None and places > digits + 7:
        text = f"{x:.{digits - 1}e}"   # tiny: scientific (the formatter keeps it)
        if text[1 if x < 0 else 0] == "0" or len(text.split("e")[0].lstrip("-").replace(".", "")) != digits:
            return None
        return text if separator == "." else text.replace(".", separator)
    text = f"{x:.{places}f}"
    if digits is not None and len(text.lstrip("-").replace(".", "").lstrip("0")) != digits:
        return None   # crossed a power of ten (9.99999 -> 10.0000): let the slow path do it
    if text[0] == "-" and not text.strip("-0."):
        text = text[1:]
    return text if separator == "." else text.replace(".", separator)


def to_scientific(text: str, digits: int) -> str:
    """Rewrite a positional decimal with ``digits`` significant digits as ``d.ddde-12``.

    >>> to_scientific("0.0000000001230", 4), to_scientific("-123400000000000000000000", 4)
    ('1.230e-10', '-1.234e+23')
    """
    sign = "-" if text.startswith("-") else ""
    body = text.lstrip("-")
    separator = "," if "," in body else "."
    whole, _, fraction = body.partition(separator)
    all_digits = whole + fraction
    significant = all_digits.lstrip("0")
    if not significant:
        return text
    exponent = len(whole) - 1 - (len(all_digits) - len(significant))
    mantissa = significant[:digits].ljust(digits, "0")
    tail = f"{separator}{mantissa[1:]}" if digits > 1 else ""
    return f"{sign}{mantissa[0]}{tail}e{exponent:+03d}"
