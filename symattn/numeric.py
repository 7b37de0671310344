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
           "MAX_PRECISION_BITS", "start_precision"]

import math

from flint import fmpq

from symattn.errors import SymattnError
from symattn.exact import NAN, NEG_INF, Exact, to_ball
from symattn.rounding import Rounding, format_scaled, round_ball, round_scaled

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
        return len(str(p)) - len(str(q))
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
        length = len(str(abs(scaled)))
        if length == digits:
            return format_scaled(scaled, places, decimal_separator)
        if length > digits:
            if scaled % 10 == 0 and len(str(abs(scaled // 10))) == digits:
                # 9.9995 -> 10.000 at 4 figures: one digit fewer, same value.
                return format_scaled(scaled // 10, places - 1, decimal_separator)
            exponent += 1
        else:
            exponent -= 1
    raise UndecidedError("could not settle the number of significant digits")  # pragma: no cover
