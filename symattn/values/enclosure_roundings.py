"""Roundings of every entry of an ``Enclosure`` at once, where the enclosure proves them.

The true value lies within ``delta`` of the double ``x``. When ``x * 10**places``
is farther from every rounding boundary (a midpoint for the half rules, an
integer for truncation) than all the errors made in measuring it, the true
value rounds as ``x`` does. Halves never pass the test, so the half rules agree
wherever it decides. Entries it leaves open (an exact tie, a value hugging a
boundary, a row the enclosure does not know) are decided exactly by the caller.
This decides integers only: the text is written by ``rounding.format_scaled``,
like every other decimal.
"""

from __future__ import annotations

__all__ = ["Roundings", "enclosure_roundings"]

from dataclasses import dataclass
from typing import TYPE_CHECKING

from symattn.values.decimals import _EPS, _POWERS, _SLACK
from symattn.values.enclosures import Enclosure

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

@dataclass(frozen=True)
class Roundings:
    """Each entry times ``10**places`` rounded (signed), where ``proved`` says so."""

    scaled: NDArray[np.int64]
    places: NDArray[np.intp]      # the decimal places of each entry's rounding
    proved: NDArray[np.bool_]
    zero: NDArray[np.bool_]       # exactly zero (mid == rad == 0) in a known row


def enclosure_roundings(enclosure: Enclosure, places: int | None, digits: int | None = None,
                        truncate: bool = False) -> Roundings:
    """Every entry rounded at ``places`` decimal places, or (``places`` None) to ``digits``
    significant digits: to nearest (half rules) or towards zero (``truncate``)."""
    import numpy as np

    x = enclosure.mid
    magnitude = np.abs(x)
    known = enclosure.known[:, None]
    zero = known & (x == 0.0) & (enclosure.rad == 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ok = known & (magnitude > 1e-290) & (magnitude < 1e290) & np.isfinite(enclosure.rad)
        if enclosure.neg_inf is not None:
            ok &= ~enclosure.neg_inf
        if places is not None:
            place = np.full(x.shape, float(places))
        elif digits is not None:
            place = digits - 1 - np.floor(np.log10(np.where(ok, magnitude, 1.0)))
        else:
            raise ValueError("enclosure_roundings needs places or digits")
        # 10**k is an exact double up to k = 22, within an ulp beyond (``_SLACK`` covers it)
        ok &= (place >= 0) & (place < len(_POWERS))
        place_index = np.where(ok, place, 0).astype(np.intp)
        power = np.asarray(_POWERS)[place_index]
        scaled = magnitude * power
        ok &= scaled < 2.0 ** 52
        floor = np.floor(scaled)
        fraction = scaled - floor
        if truncate:
            distance, result = np.minimum(fraction, 1.0 - fraction), floor
        else:
            distance, result = np.abs(fraction - 0.5), np.floor(scaled + 0.5)
        delta = enclosure.rad * (1 + _EPS) + magnitude * _EPS
        ok &= distance - scaled * _SLACK - delta * power * (1 + _EPS) > 0.0
        if places is None and digits is not None:
            ok &= (result >= 10.0 ** (digits - 1)) & (result <= 10.0 ** digits)
            # Rounded up to the next power of ten (0.009996 -> 0.0100 at 3 digits): the
            # same number written with one place fewer.
            carried = ok & (result == 10.0 ** digits)
            place_index = np.where(carried, place_index - 1, place_index)
            result = np.where(carried, result / 10.0, result)
            ok &= place_index >= 0
        signed = np.where(ok, np.where(x < 0, -result, result), 0.0).astype(np.int64)
    return Roundings(signed, place_index, ok, zero)
