"""JSON rows of a character matrix (a ``TextArray`` whose texts sit in rows of one
width), written a block of rows at a time in numpy, byte for byte as ``json.dumps``
writes each row.

Each text is copied into a wider row with room for its quotes and separator, and
the bytes in use are gathered in order. Which bytes are in use depends only on
where the text starts in its row and how long the written piece is, so the mask
rows come from a table made once per width instead of two comparisons per byte.

>>> import numpy as np
>>> rows = matrix_json(np.frombuffer(b"1/2-3 ", dtype=np.uint8).reshape(2, 3),
...                    np.array([0, 0]), np.array([3, 2]), 2, 0, 1)
>>> rows.decode()
'["1/2", "-3"]'
"""

from __future__ import annotations

__all__ = ["matrix_json", "ROW_BREAK"]

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

ROW_BREAK = ",\n    "      # between the rows of a matrix in a JSON document
_TABLE_WIDTH = 64          # wider rows: the mask by comparison (a table would be too big)


def matrix_json(matrix: NDArray[np.uint8], offsets: NDArray[np.int64],
                sizes: NDArray[np.int64], m: int, first: int, last: int) -> bytes:
    """Rows ``first`` to ``last`` (exclusive) of an n x m block of texts, as JSON lists
    joined by ``ROW_BREAK``: text k of the block is ``matrix[k, offsets[k]:][:sizes[k]]``
    and needs no escapes (``offsets`` and ``sizes`` are the block's, whole)."""
    import numpy as np

    width = matrix.shape[1]
    part = slice(first * m, last * m)
    count = (last - first) * m
    rows = np.arange(count, dtype=np.int64)
    size = sizes[part]
    start = offsets[part] + 2            # in the wide row
    opening = np.zeros(count, dtype=bool)
    opening[::m] = True
    closing = np.zeros(count, dtype=bool)
    closing[m - 1::m] = True
    wide = np.empty((count, width + 5), dtype=np.uint8)
    wide[:, 2:width + 2] = matrix[part]
    flat = wide.ravel()
    begin = rows * (width + 5) + start
    end = begin + size
    flat[begin - 1] = ord('"')
    flat[end] = ord('"')
    flat[begin[opening] - 2] = ord("[")
    flat[end[~closing] + 1] = ord(",")
    flat[end[~closing] + 2] = ord(" ")
    flat[end[closing] + 1] = ord("]")
    low = start - 1 - opening            # the first byte in use: a quote or a bracket
    spans = size + 1 + opening + np.where(closing, 2, 3)
    raw = wide[_in_use(low, spans, width + 5)].tobytes()
    ends = np.cumsum(spans)[m - 1::m].tolist()
    lines = [raw[a:b] for a, b in zip([0] + ends[:-1], ends)]
    return ROW_BREAK.encode("ascii").join(lines)


def _in_use(low: NDArray[np.int64], spans: NDArray[np.int64], width: int) -> NDArray[np.bool_]:
    """Row k of the result is True from column ``low[k]`` for ``spans[k]`` columns."""
    import numpy as np

    if width <= _TABLE_WIDTH:
        return _mask_rows(width).take(low * (width + 1) + spans, axis=0)
    columns = np.arange(width, dtype=np.int64)[None, :]
    return (columns >= low[:, None]) & (columns < (low + spans)[:, None])


@lru_cache(maxsize=None)
def _mask_rows(width: int) -> NDArray[np.bool_]:
    """Row ``low * (width + 1) + span``: True from column ``low`` for ``span`` columns."""
    import numpy as np

    columns = np.arange(width)
    low = np.arange(width + 1)[:, None, None]
    span = np.arange(width + 1)[None, :, None]
    table = (columns >= low) & (columns < low + span)
    return table.reshape((width + 1) * (width + 1), width)
