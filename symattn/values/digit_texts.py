"""Decimal digits of whole integer arrays as a ``TextArray``: integers, fixed-point
decimals and fractions, each laid out in a row of one character matrix.

>>> import numpy as np
>>> integer_texts(np.array([[12, -3], [0, 4500]])).json_rows()
['["12", "-3"]', '["0", "4500"]']
>>> fixed_texts(np.array([[5, 123]]), np.array([[True, False]]), np.array([[2, 1]])).rows()
[('-0.05', '12.3')]
>>> split_texts(np.array([[3, 7]]), np.array([[True, False]]), np.array([[4, 1]]),
...             np.array([[1, 0]]), "/", b"exp(", b")").rows()
[('exp(-3/4)', 'exp(7)')]
"""

from __future__ import annotations

__all__ = ["integer_texts", "fixed_texts", "split_texts"]

from typing import TYPE_CHECKING

from symattn.values.text_arrays import TextArray

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Ints = NDArray[np.int64]
    Bools = NDArray[np.bool_]


def integer_texts(values: Ints) -> TextArray:
    """``str`` of each integer (magnitudes below 10**18)."""
    import numpy as np

    return fixed_texts(np.abs(values), values < 0, np.zeros(values.shape, dtype=np.int64))


def fixed_texts(magnitudes: Ints, negative: Bools, places: Ints,
                separator: str = ".") -> TextArray:
    """``format_scaled``: ``-`` where ``negative``, then ``magnitude / 10**places`` with
    ``places`` (>= 0, at most 18) digits after ``separator``, leading zero kept.
    Magnitudes below 10**18."""
    import numpy as np

    places_flat = places.ravel().astype(np.int64)
    values = magnitudes.ravel().astype(np.int64)
    if values.size and int(places_flat.max()):
        powers = np.array([10 ** k for k in range(19)], dtype=np.int64)
        whole, fraction = np.divmod(values, powers[places_flat])
    else:
        whole, fraction = values, values
    return split_texts(whole.reshape(magnitudes.shape), negative, fraction, places_flat,
                       separator)


def split_texts(whole: Ints, negative: Bools, after: Ints, places: Ints,
                separator: str = ".", prefix: bytes = b"", suffix: bytes = b"") -> TextArray:
    """``prefix``, ``-`` where ``negative``, the digits of ``whole``, then where ``places``
    is above 0 ``separator`` and the last ``places`` digits of ``after`` (leading
    zeros kept), then ``suffix``. Integers from 0 to below 10**18.

    Every text is laid out in one row of a character matrix with the separator
    in one column for all: the whole part right-aligned before it, the rest after.
    """
    import numpy as np

    shape = whole.shape
    values = whole.ravel()
    count = len(values)
    places_flat = places.ravel().astype(np.int64)
    most = int(places_flat.max()) if count else 0
    whole_digits = _digits(values)
    sign = negative.ravel()
    point = len(prefix) + (int(whole_digits.max()) if count else 1) + 1   # the separator
    width = point + 1 + most + len(suffix)
    chars = np.zeros((count, width), dtype=np.uint8)
    _write_digits(chars, values, point - 1, point - 1 - len(prefix))
    if most:
        # place k after the separator is digit (places - 1 - k) of ``after``: shift
        # each left to ``most`` places, then write the digits from the right
        powers = np.array([10 ** k for k in range(19)], dtype=np.int64)
        padded = after.ravel() % powers[places_flat] * powers[most - places_flat]
        _write_digits(chars, padded, point + most, most)
    chars += ord("0")
    chars[:, point] = separator.encode("ascii")[0]
    rows = np.arange(count, dtype=np.int64)
    starts = rows * width + point - whole_digits - sign - len(prefix)
    lengths = len(prefix) + sign + whole_digits + np.where(places_flat > 0, places_flat + 1, 0)
    flat = chars.ravel()
    flat[starts[sign] + len(prefix)] = ord("-")
    for offset, byte in enumerate(prefix):
        flat[starts + offset] = byte
    ends = starts + lengths
    for offset, byte in enumerate(suffix):
        flat[ends + offset] = byte
    return TextArray((shape[0], shape[1]), flat, starts, lengths + len(suffix), width=width)


def _digits(values: Ints) -> Ints:
    """How many decimal digits each non-negative integer has (0 has one)."""
    import numpy as np

    count = np.ones(values.shape, dtype=np.int64)
    largest = int(values.max()) if values.size else 0
    power = 10
    while power <= largest:
        count += values >= power
        power *= 10
    return count


def _write_digits(chars: NDArray[np.uint8], values: Ints, last: int, count: int) -> None:
    """The last ``count`` decimal digits of ``values`` into columns ``last - count + 1``
    to ``last`` of ``chars`` (as numbers 0-9); 32-bit arithmetic where it fits (numpy
    divides by a constant with a product and a shift)."""
    import numpy as np

    small = values.size and int(values.max()) < 2 ** 32
    rest = values.astype(np.uint32) if small else values
    ten = np.uint32(10) if small else np.int64(10)
    for k in range(count):
        quotient = rest // ten
        chars[:, last - k] = rest - quotient * ten
        rest = quotient
