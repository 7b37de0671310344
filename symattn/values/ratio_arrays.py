"""Closed forms and decimals of a whole rational matrix at once, in exact integers.

A rational matrix over one common denominator ``D`` is its integer numerators;
when they and the powers of ten involved fit in 62 bits, numpy's integer
arithmetic is exact, so every decision here is proved as ``rounding.ratio_decimal``
makes it in Python integers - the same quotient, remainder and rule, a whole
block at a time. Entries outside those bounds (and texts that would switch to
scientific notation) are left to the caller, which writes them one by one.

>>> import numpy as np
>>> from symattn.values.rules import Rounding
>>> numerators = np.array([[-3789, 0, 80000]])
>>> ratio_texts(numerators, 80000).rows()
[('-3789/80000', '0', '1')]
>>> texts, open_ = ratio_decimals(numerators, 80000, None, 6, Rounding.HALF_UP)
>>> texts.rows(), bool(open_.any())
([('-0.0473625', '0', '1.00000')], False)
"""

from __future__ import annotations

__all__ = ["ratio_texts", "ratio_decimals", "LIMIT"]

from typing import TYPE_CHECKING

from symattn.values.rules import Rounding
from symattn.values.rounding import format_scaled
from symattn.values.digit_texts import fixed_texts, split_texts
from symattn.values.text_arrays import TextArray, by_rows, constant

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

LIMIT = 2 ** 62        # every integer formed here stays below this: no overflow in int64


def ratio_texts(numerators: NDArray[np.int64], denominator: int, prefix: bytes = b"",
                suffix: bytes = b"") -> TextArray:
    """``rational_text`` of each ``numerator / denominator`` (denominator below 2**62),
    each between ``prefix`` and ``suffix``."""
    import numpy as np

    def make(rows: slice) -> tuple[TextArray, NDArray[np.bool_]]:
        part = numerators[rows]
        return (_ratio_texts(part, denominator, prefix, suffix),
                np.zeros(part.shape[0], dtype=bool))

    return by_rows(make, numerators.shape[0], numerators.shape[1])[0]


def _ratio_texts(numerators: NDArray[np.int64], denominator: int, prefix: bytes,
                 suffix: bytes) -> TextArray:
    import numpy as np

    common = np.gcd(numerators, np.int64(denominator))
    common[common == 0] = 1
    tops = numerators // common
    bottoms = np.int64(denominator) // common
    places = np.where(bottoms == 1, 0, _digit_count(bottoms))
    return split_texts(np.abs(tops), tops < 0, bottoms, places, "/", prefix, suffix)


def _digit_count(values: NDArray[np.int64]) -> NDArray[np.int64]:
    import numpy as np

    powers = np.array([10 ** k for k in range(1, 19)], dtype=np.int64)
    return np.searchsorted(powers, values, side="right").astype(np.int64) + 1


_POWERS = [10 ** k for k in range(19)]


def _scaled(magnitudes: NDArray[np.int64], denominator: int, places: NDArray[np.int64]
            ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64] | np.int64,
                       NDArray[np.bool_]]:
    """Quotient, remainder and divisor of ``magnitude * 10**places / denominator`` in
    integers, and where that was possible without overflow (elsewhere: anything)."""
    import numpy as np

    up = places >= 0
    index = np.minimum(np.abs(places), 18)
    power = np.array(_POWERS, dtype=np.int64)[index]
    bound = np.array([LIMIT // p for p in _POWERS], dtype=np.int64)[index]
    fits = (np.abs(places) <= 18) & np.where(up, magnitudes <= bound, denominator <= bound)
    with np.errstate(over="ignore"):
        numerator = np.where(up, magnitudes * power, magnitudes)
        common = np.int64(denominator)
        if bool(up.all()):          # one divisor: numpy divides by a constant quickly
            quotient = numerator // common
            return quotient, numerator - quotient * common, common, fits
        divisor = np.where(up, common, common * power)
    quotient, remainder = np.divmod(numerator, divisor)
    return quotient, remainder, divisor, fits


def ratio_decimals(numerators: NDArray[np.int64], denominator: int, places: int | None,
                   digits: int | None, rule: Rounding, separator: str = ".",
                   scientific_beyond: int = 7) -> tuple[TextArray, NDArray[np.bool_]]:
    """``ratio_decimal`` of each ``numerator / denominator`` (``NumberFormat``'s text:
    fixed places or significant digits), and the entries left open (written by the
    caller one by one: beyond 62 bits, more than 18 places, or scientific)."""
    return by_rows(lambda rows: _ratio_decimals(numerators[rows], denominator, places, digits,
                                                rule, separator, scientific_beyond),
                   numerators.shape[0], numerators.shape[1])


def _ratio_decimals(numerators: NDArray[np.int64], denominator: int, places: int | None,
                    digits: int | None, rule: Rounding, separator: str,
                    scientific_beyond: int) -> tuple[TextArray, NDArray[np.bool_]]:
    import numpy as np

    magnitudes = np.abs(numerators)
    zero = magnitudes == 0
    if bool(zero.all()):          # a mask: every entry 0
        text = "0" if places is None else format_scaled(0, places, separator)
        return constant(numerators.shape, text), np.zeros(numerators.shape, dtype=bool)
    if places is not None:
        shown = np.full(numerators.shape, places, dtype=np.int64)
        fits = np.full(numerators.shape, 0 <= places <= 18)
    else:
        assert digits is not None
        with np.errstate(divide="ignore"):
            estimate = np.floor(np.log10(np.where(zero, 1, magnitudes)) - np.log10(denominator))
        shown = digits - 1 - estimate.astype(np.int64)
        # the estimate can be one off: the quotient's digits say which way, exactly
        quotient, _, _, fits = _scaled(magnitudes, denominator, shown)
        shown = np.where(quotient < 10 ** (digits - 1), shown + 1,
                         np.where(quotient >= 10 ** digits, shown - 1, shown))
    quotient, remainder, divisor, more = _scaled(magnitudes, denominator, shown)
    fits &= more & (shown >= 0) & (shown <= 18) & (divisor < LIMIT // 2)
    twice = 2 * remainder
    if rule is Rounding.HALF_UP:
        quotient += twice >= divisor
    elif rule is Rounding.HALF_EVEN:
        quotient += (twice > divisor) | ((twice == divisor) & (quotient % 2 == 1))
    if digits is not None and places is None:
        carried = quotient >= 10 ** digits          # 9.9999996 -> 10.0000
        quotient = np.where(carried, quotient // 10, quotient)
        shown = np.where(carried, shown - 1, shown)
        fits &= shown >= 0
        quotient = np.where(zero, 0, quotient)
        shown = np.where(zero, 0, shown)
    quotient = np.where(fits, quotient, 0)
    shown = np.where(fits, shown, 0)
    texts = fixed_texts(quotient, (numerators < 0) & (quotient != 0), shown, separator)
    open_ = ~fits.ravel() & ~zero.ravel() if places is None else ~fits.ravel()
    if digits is not None and places is None:
        open_ |= texts.lengths > digits + scientific_beyond     # scientific: one by one
    return texts, open_.reshape(numerators.shape)
