"""Decimals of a whole enclosure at once: ``decimals.float_decimal_from_ball`` for arrays.

The same test, entry by entry but in numpy: the true value lies within
``delta`` of the double ``x``; when the distance from ``x * 10**places`` to
the nearest rounding midpoint, less every floating-point error made in
measuring it, exceeds ``delta * 10**places``, no point of the enclosure is
near a midpoint, so the true value rounds exactly as ``x`` does and Python's
correctly rounded ``%f`` of ``x`` gives the digits. Every other entry is
returned as None and decided exactly by the caller. Only the half rules use
this (halves never pass the test, so half-up and half-even agree here).
"""

from __future__ import annotations

__all__ = ["texts_from_enclosure", "text_array_from_enclosure", "FAST_DIGITS"]

from dataclasses import dataclass
from typing import TYPE_CHECKING

from symattn.values.decimals import _EPS, _POWERS, _SLACK
from symattn.values.enclosures import Enclosure
from symattn.values.rounding import format_scaled
from symattn.values.digit_texts import fixed_texts
from symattn.values.text_arrays import TextArray, by_rows, choose

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

# Beyond about 15 significant digits a double cannot decide anything.
FAST_DIGITS = 15


@dataclass(frozen=True)
class _Decided:
    """Which entries the enclosure decides, and at how many places each is written."""

    decided: NDArray[np.bool_]     # the enclosure settles the entry's rounding
    zero: NDArray[np.bool_]        # exactly zero (mid == rad == 0) in a known row
    places: NDArray[np.intp]       # decimal places to write (meaningful where decided)
    printed: NDArray[np.float64]   # the double to print: x, or |x| where it rounds to 0
    rounded: NDArray[np.float64]   # |x| * 10**places rounded: the digits (where decided)


def texts_from_enclosure(enclosure: Enclosure, places: int | None, digits: int | None,
                         separator: str = ".", scientific_beyond: int = 7
                         ) -> tuple[list[list[str | None]], NDArray[np.bool_]]:
    """Decimal text of each entry the enclosure decides (else None), and where the Nones are.

    ``places`` (fixed decimals) or ``digits`` (significant digits) in
    positional notation, except that with ``digits`` a value whose positional
    text would carry more than ``digits + scientific_beyond`` characters is
    written ``1.23457e-08`` (``NumberFormat``'s rule). An entry that is
    exactly zero (``mid == rad == 0``) prints as a zero.
    """
    import numpy as np

    if places is not None:
        digits = None          # fixed places win, as in NumberFormat
    decided = _decide(enclosure, places, digits)
    texts = np.full(enclosure.mid.shape, None, dtype=object)
    texts[decided.zero] = "0" if places is None else format_scaled(0, places, separator)
    for value in np.bincount(decided.places[decided.decided]).nonzero()[0].tolist():
        chosen = decided.decided & (decided.places == value)
        # "0.000ddd" has value + 2 characters: past the limit, scientific.
        if digits is not None and value + 2 > digits + scientific_beyond:
            pattern = f"%.{digits - 1}e"        # tiny: scientific (the formatter keeps it)
        else:
            pattern = f"%.{value}f"
        numbers = decided.printed[chosen].tolist()
        if separator == ".":
            texts[chosen] = [pattern % number for number in numbers]
        else:
            texts[chosen] = [(pattern % number).replace(".", separator) for number in numbers]
    settled = decided.decided | decided.zero
    if enclosure.neg_inf is not None:   # exactly -oo: written as NumberFormat writes it
        neg_inf = enclosure.neg_inf & enclosure.known[:, None]
        texts[neg_inf] = "-inf"
        settled = settled | neg_inf
    rows: list[list[str | None]] = texts.tolist()
    return rows, ~settled


def text_array_from_enclosure(enclosure: Enclosure, places: int | None, digits: int | None,
                              separator: str = ".", scientific_beyond: int = 7
                              ) -> tuple[TextArray, NDArray[np.bool_]]:
    """``texts_from_enclosure`` as a ``TextArray``: the decided digits written from the
    rounded integers a whole block at once (what ``%.Nf`` of the double writes, since
    no point of the enclosure is near a rounding midpoint), scientific ones one by one."""
    def make(rows: slice) -> tuple[TextArray, NDArray[np.bool_]]:
        index = range(enclosure.mid.shape[0])[rows]
        return _text_array(enclosure.block(index, range(enclosure.mid.shape[1])), places,
                           digits, separator, scientific_beyond)

    return by_rows(make, enclosure.mid.shape[0], enclosure.mid.shape[1])


def _text_array(enclosure: Enclosure, places: int | None, digits: int | None,
                separator: str, scientific_beyond: int) -> tuple[TextArray, NDArray[np.bool_]]:
    import numpy as np

    if places is not None:
        digits = None
    decided = _decide(enclosure, places, digits)
    scientific = decided.decided & (decided.places + 2 > digits + scientific_beyond) \
        if digits is not None else np.zeros(decided.decided.shape, dtype=bool)
    positional = decided.decided & ~scientific & (decided.places <= 18)
    shown = np.where(positional, decided.places, 0)
    texts = fixed_texts(np.where(positional, decided.rounded, 0.0).astype(np.int64),
                        positional & (decided.printed < 0), shown, separator)
    zero_text = "0" if places is None else format_scaled(0, places, separator)
    texts = choose(decided.zero, zero_text.encode("ascii"), texts)
    settled = positional | decided.zero
    if enclosure.neg_inf is not None:   # exactly -oo: written as NumberFormat writes it
        neg_inf = enclosure.neg_inf & enclosure.known[:, None]
        texts = choose(neg_inf, b"-inf", texts)
        settled = settled | neg_inf
    if scientific.any():
        where = np.flatnonzero(scientific)
        pattern = f"%.{(digits or 1) - 1}e"
        written = [pattern % number for number in decided.printed.ravel()[where].tolist()]
        if separator != ".":
            written = [text.replace(".", separator) for text in written]
        texts = texts.replaced(where.tolist(), written)
        settled = settled | scientific
    return texts, ~settled


def _decide(enclosure: Enclosure, places: int | None, digits: int | None) -> _Decided:
    """The test of the module docstring, for every entry at once."""
    import numpy as np

    x = enclosure.mid
    magnitude = np.abs(x)
    rows_known = enclosure.known[:, None]
    zero = rows_known & (x == 0.0) & (enclosure.rad == 0.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ok = rows_known & (magnitude > 1e-290) & (magnitude < 1e290)
        delta = enclosure.rad * (1 + _EPS) + magnitude * _EPS
        if places is not None:
            place = np.full(x.shape, float(places))
        elif digits is not None:
            place = digits - 1 - np.floor(np.log10(np.where(ok, magnitude, 1.0)))
        else:
            raise ValueError("texts_from_enclosure needs places or digits")
        ok &= (place >= 0) & (place < len(_POWERS))
        place_index = np.where(ok, place, 0).astype(np.intp)
        power = np.asarray(_POWERS)[place_index]
        scaled = magnitude * power
        ok &= scaled < 2.0 ** 52
        fraction = scaled - np.floor(scaled)
        margin = np.abs(fraction - 0.5) - scaled * _SLACK - delta * power * (1 + _EPS)
        ok &= margin > 0.0
        rounded = np.floor(scaled + 0.5)
        if digits is not None:
            ok &= (rounded >= 10.0 ** (digits - 1)) & (rounded <= 10.0 ** digits)
            # Rounded up to the next power of ten (0.009996 -> 0.0100 at 3 digits):
            # decided at these places, written with one place fewer, which
            # rounds the same way (both the value and x lie within 0.05 of it there).
            carried = ok & (rounded == 10.0 ** digits)
            place_index = np.where(carried, place_index - 1, place_index)
            ok &= place_index >= 0
            rounded = np.where(carried, rounded / 10.0, rounded)
    # -0.00 prints as 0.00, as format_scaled does
    printed = np.where(ok & (rounded == 0.0), magnitude, x)
    return _Decided(ok, zero, place_index, printed, np.where(ok, rounded, 0.0))
