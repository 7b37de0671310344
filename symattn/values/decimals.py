"""Decimals of exact values, each digit proved.

Rationals are rounded exactly. Anything else is evaluated as a certified ball
at a working precision that is doubled until the rounding is decided (see
``rounding.round_ball``). A value that is irrational can always be decided
this way; the cap only protects against values that are secretly exact
halfway cases, which the engine recognises as rationals before they get here.

>>> from flint import arb, fmpq
>>> fixed_decimal(fmpq(1, 3), 4)
'0.3333'
>>> significant_decimal(fmpq(2, 3), 3)
'0.667'
"""

from __future__ import annotations

__all__ = ["decide_scaled", "fixed_decimal", "significant_decimal", "UndecidedError",
           "fixed_from_ball", "significant_from_ball", "float_decimal_from_ball",
           "to_scientific", "OutOfRangeError",
           "MAX_PRECISION_BITS", "MAX_DECIMAL_EXPONENT", "start_precision"]

import math

from flint import arb, fmpq

from symattn.errors import OutOfRangeError, UndecidedError
from symattn.values.exact import NAN, NEG_INF, Exact, to_ball, working_precision
from symattn.values.rounding import (Rounding, decimal_bounds, decimal_digits, format_scaled,
                              round_ball, round_bounds, round_scaled)

MAX_PRECISION_BITS = 1 << 16
# Decimals are written in positional form first, so a number's size bounds the
# work: numbers up to 10**MAX_DECIMAL_EXPONENT are written out (the exponential
# of a scaled score up to about 230,000); beyond that is a clear error, not a hang.
MAX_DECIMAL_EXPONENT = 100_000
_LOG2_10 = math.log2(10)


def _brief(value: Exact) -> str:
    """The value's text for a message, shortened when it is very long."""
    text = str(getattr(value, "text", value))
    return text if len(text) <= 80 else f"{text[:60]}... ({len(text):,} characters)"


def _power(exponent: int) -> str:
    """10^exponent for a message; an exponent of more than 15 digits is only counted."""
    digits = len(decimal_digits(abs(exponent)))
    if digits <= 15:
        return f"10^{exponent:,}"
    return f"10^({'-' if exponent < 0 else ''}a {digits}-digit number)"


def _upper_exponent(ball: arb) -> int | None:
    """A decimal exponent e with |x| < 10**e for every x in a finite ball; None for 0."""
    upper = ball.abs_upper()
    if upper.is_zero():
        return None
    mantissa, power = upper.man_exp()
    binary = int(power) + int(mantissa).bit_length()     # |x| < 2**binary
    # floor(binary * c) + 1 with c just above log10(2) (below it for binary < 0):
    # integer arithmetic, as binary may have thousands of digits.
    return (binary * (30103 if binary > 0 else 30102)) // 100_000 + 1


def _about_exponent(ball: arb) -> int:
    """floor(log10 |x|) of a ball's nonzero midpoint, for messages (exact below 10**15)."""
    mantissa_fmpz, power = ball.mid().man_exp()
    mantissa = abs(int(mantissa_fmpz))
    binary = int(power) + mantissa.bit_length() - 1          # 2**binary <= |mid|
    top = mantissa >> max(mantissa.bit_length() - 53, 0)
    fraction = math.log2(top) - (top.bit_length() - 1)       # log2 |mid| - binary, in [0, 1)
    log10_2 = 30102999566398119521                           # log10(2) to 20 digits
    return (binary * log10_2 + int(fraction * log10_2)) // 10 ** 20


def _check_size(value: Exact, ball: arb) -> None:
    """Refuse a value whose finite ball lies wholly beyond 10**MAX_DECIMAL_EXPONENT."""
    high = _upper_exponent(ball)
    if high is not None and high > MAX_DECIMAL_EXPONENT + 1 and \
            ball.abs_lower() > arb(10) ** MAX_DECIMAL_EXPONENT:
        raise _too_large(value, _about_exponent(ball))


def _too_large(value: Exact, exponent: int | None = None) -> OutOfRangeError:
    size = f"is about {_power(exponent)}" if exponent is not None else "is too large to evaluate"
    return OutOfRangeError(f"{_brief(value)} {size}: beyond the 10^{MAX_DECIMAL_EXPONENT:,} "
                           "symattn writes out in decimals")


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
    rough = to_ball(value, 64)
    if rough is not None and rough.is_finite():
        high = _upper_exponent(rough)
        if high is None or high < -places - 1:
            return 0                # |value| < 10**-(places + 1): zero under every rule
        _check_size(value, rough)
        # A ball's precision is relative: only the digits that show (and a margin) count.
        size = high if high < -8 else min(max(high, 4), MAX_DECIMAL_EXPONENT + 2)
        bits = int(max(places + size, 0) * _LOG2_10) + 64
        max_bits = max(max_bits, 2 * bits)
    while bits <= max_bits:
        ball = to_ball(value, bits)
        if ball is not None:
            decided = round_ball(ball, places, rule)
            if decided is not None:
                return decided
            if not ball.is_finite() and bits * 2 > max_bits:
                raise _too_large(value)
        bits *= 2
    raise UndecidedError(f"could not decide the rounding of {_brief(value)} "
                         f"to {places} places within {max_bits} bits")


def fixed_decimal(value: Exact, places: int, rule: Rounding = Rounding.HALF_UP,
                  decimal_separator: str = ".") -> str:
    """``value`` rounded to ``places`` decimal places, trailing zeros kept."""
    if value is NEG_INF:
        return "-inf"
    if value is NAN:
        return "nan"
    return format_scaled(decide_scaled(value, places, rule), places, decimal_separator)


def _exponent(value: Exact) -> int | None:
    """floor(log10 |value|), proved; None for zero."""
    if isinstance(value, fmpq):
        if value == 0:
            return None
        p, q = abs(int(value.p)), int(value.q)
        exponent = len(decimal_digits(p)) - len(decimal_digits(q))   # within one
        # p/q < 10**e and p/q >= 10**(e + 1), in integers
        below = p < q * 10 ** exponent if exponent >= 0 else p * 10 ** -exponent < q
        if below:
            exponent -= 1
        elif (p >= q * 10 ** (exponent + 1)) if exponent + 1 >= 0 \
                else (p * 10 ** -(exponent + 1) >= q):
            exponent += 1
        return exponent
    bits = 64
    while bits <= MAX_PRECISION_BITS:
        ball = to_ball(value, bits)
        assert ball is not None
        if not ball.is_finite():
            if bits * 2 > MAX_PRECISION_BITS:
                raise _too_large(value)
            bits *= 2
            continue
        _check_size(value, ball)
        high = _upper_exponent(ball)
        if high is not None and high < -MAX_DECIMAL_EXPONENT:
            raise OutOfRangeError(f"{_brief(value)} is below {_power(high)}: too small to write "
                                  f"with significant digits (the limit is "
                                  f"10^-{MAX_DECIMAL_EXPONENT:,}); use --places")
        if not ball.contains(0):
            mantissa, power = ball.mid().man_exp()
            binary = int(power) + int(mantissa).bit_length() if mantissa else 0
            estimate = math.floor((binary - 1) / _LOG2_10)
            with working_precision(bits):
                size = abs(ball)
                for exponent in (estimate - 1, estimate, estimate + 1):
                    if size >= arb(10) ** exponent and size < arb(10) ** (exponent + 1):
                        return exponent       # both comparisons proved
        bits *= 2
    raise UndecidedError(f"could not tell the size of {_brief(value)}")


def _power_of_ten(value: Exact, digits: int, rule: Rounding, separator: str) -> str:
    """A value whose size cannot be settled because it is (or hugs) a power of ten.

    Every point within half a unit of the last digit of 10**k prints as
    1.000...*10**k at ``digits`` figures, on either side of 10**k; so if the
    value rounds to exactly that at the places of exponent k, that is the answer.
    """
    ball = to_ball(value, MAX_PRECISION_BITS // 16)
    if ball is None or ball.contains(0):
        finest = to_ball(value, MAX_PRECISION_BITS)
        high = _upper_exponent(finest) if finest is not None and finest.is_finite() else None
        if high is None:
            raise UndecidedError(f"could not tell {_brief(value)} from zero")
        raise OutOfRangeError(f"could not tell {_brief(value)} from zero: it is below "
                              f"{_power(high)}, too close to 0 to write with significant "
                              "digits")
    mantissa, power = ball.mid().man_exp()
    binary = int(power) + int(mantissa).bit_length()
    for exponent in {math.floor((binary - 1) / _LOG2_10), round((binary - 1) / _LOG2_10)}:
        places = digits - 1 - exponent
        try:
            scaled = decide_scaled(value, places, rule)
        except UndecidedError:
            continue
        if abs(scaled) == 10 ** (digits - 1):
            return format_scaled(scaled, places, separator)
    raise UndecidedError(f"could not decide the digits of {_brief(value)}")


def significant_decimal(value: Exact, digits: int, rule: Rounding = Rounding.HALF_UP,
                        decimal_separator: str = ".") -> str:
    """``value`` to ``digits`` significant digits, in positional notation.

    >>> from flint import arb, fmpq
    >>> significant_decimal(fmpq(99995, 10000), 4), significant_decimal(fmpq(24, 25), 2)
    ('10.00', '0.96')
    >>> significant_decimal(fmpq(0), 3)
    '0'
    """
    if value is NEG_INF:
        return "-inf"
    if value is NAN:
        return "nan"
    try:
        exponent = _exponent(value)
    except OutOfRangeError:
        raise
    except UndecidedError:
        return _power_of_ten(value, digits, rule, decimal_separator)
    if exponent is None:
        return "0"
    if exponent > MAX_DECIMAL_EXPONENT:
        raise _too_large(value, exponent)
    if exponent < -MAX_DECIMAL_EXPONENT:
        raise OutOfRangeError(f"{_brief(value)} is about {_power(exponent)}: too small to write "
                              f"with significant digits (the limit is "
                              f"10^-{MAX_DECIMAL_EXPONENT:,}); use --places")
    places = digits - 1 - exponent
    scaled = decide_scaled(value, places, rule)
    if len(decimal_digits(abs(scaled))) > digits:
        # Rounded up to the next power of ten (9.9995 -> 10.00): one place fewer.
        return format_scaled(scaled // 10, places - 1, decimal_separator)
    return format_scaled(scaled, places, decimal_separator)


# --------------------------------------------------------------- from a ball
# The batch path: a whole matrix is evaluated as balls at one precision, and
# each entry is formatted from its ball when the ball decides it. Entries it
# cannot decide (too wide a ball, or an exact halfway case) return None and go
# through the per-entry functions above, which raise the precision or round
# the exact rational.

def fixed_from_ball(ball: arb | None, places: int, rule: Rounding, separator: str = ".",
                    guard_digits: int = 8) -> str | None:
    """``places`` decimals of the value in ``ball`` if the ball decides them."""
    if ball is None or not ball.is_finite():
        return None
    low, high, exponent = decimal_bounds(ball, max(places, 0) + guard_digits + 8)
    if exponent + places > MAX_DECIMAL_EXPONENT:
        return None   # too large to write out: the per-entry path says so
    scaled = round_bounds(low, high, exponent, places, rule)
    return None if scaled is None else format_scaled(scaled, places, separator)


def significant_from_ball(ball: arb | None, digits: int, rule: Rounding, separator: str = ".",
                          guard_digits: int = 8) -> str | None:
    """``digits`` significant digits of the value in ``ball`` if the ball decides them."""
    if ball is None or not ball.is_finite():
        return None
    if ball.is_zero():
        return "0"
    low, high, exponent = decimal_bounds(ball, digits + guard_digits)
    if low <= 0 <= high:
        return None
    low_digits = len(decimal_digits(abs(low)))
    if low_digits != len(decimal_digits(abs(high))):
        return None   # the ball straddles a power of ten: its size is not settled
    magnitude = low_digits - 1 + exponent
    if abs(magnitude) > MAX_DECIMAL_EXPONENT:
        return None   # beyond what is written out: the per-entry path says so
    places = digits - 1 - magnitude
    scaled = round_bounds(low, high, exponent, places, rule)
    if scaled is None:
        return None
    if len(decimal_digits(abs(scaled))) > digits:   # rounded up to a power of ten
        return format_scaled(scaled // 10, places - 1, separator)
    return format_scaled(scaled, places, separator)


_EPS = 2.0 ** -50            # a few units in the last place of a double, rounded up
_SLACK = 2.0 ** -44          # bound on the error of scaling by 10**places (many ulps)
_POWERS = [10.0 ** k for k in range(300)]   # exact up to 10**22, within an ulp beyond
_POWERS_INT = [10 ** k for k in range(400)]


def float_decimal_from_ball(ball: arb | None, places: int | None, digits: int | None,
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
        if not ball.is_zero():
            return None
        if places is None:
            return "0"   # an exact zero (a masked weight), as significant_decimal prints it
        return format_scaled(0, places, separator)
    magnitude = abs(x)
    if not 1e-290 < magnitude < 1e290:
        return None
    delta = float(ball.rad()) * (1 + _EPS) + magnitude * _EPS
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
    rounded = math.floor(scaled + 0.5)   # the margin keeps scaled away from any .5
    if digits is not None and (digits >= len(_POWERS_INT) or
                               not _POWERS_INT[digits - 1] <= rounded < _POWERS_INT[digits]):
        # The size estimate was off, or the value rounds up to the next power of
        # ten (9.99999 -> 10.0000): let the exact paths decide the layout.
        return None
    if digits is not None and places > digits + 7:
        text = f"{x:.{digits - 1}e}"   # tiny: scientific (the formatter keeps it)
    else:
        text = f"{x:.{places}f}"
        if rounded == 0 and text[0] == "-":
            text = text[1:]           # -0.00 prints as 0.00, as format_scaled does
    return text if separator == "." else text.replace(".", separator)


def to_scientific(text: str, digits: int | None = None) -> str:
    """Rewrite a positional decimal with ``digits`` significant digits (None: all of
    the text's) as ``d.ddde-12``.

    >>> to_scientific("0.0000000001230", 4), to_scientific("-123400000000000000000000", 4)
    ('1.230e-10', '-1.234e+23')
    >>> to_scientific("0.0000000001230")
    '1.230e-10'
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
    digits = len(significant) if digits is None else digits
    mantissa = significant[:digits].ljust(digits, "0")
    tail = f"{separator}{mantissa[1:]}" if digits > 1 else ""
    return f"{sign}{mantissa[0]}{tail}e{exponent:+03d}"
