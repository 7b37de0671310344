"""JSON rows of a character matrix (a ``TextArray`` whose texts sit in rows of one
width), written a block of rows at a time in numpy, byte for byte as ``json.dumps``
writes each row.

Each row of the block is laid out at once in a wider matrix: ``[``, then for each
text its slot of the matrix's width between quotes and followed by ``", "`` (``]``
after the last), then the break to the next row - every mark in a column of its own,
written by slicing. The bytes of a slot outside its text are set to zero (a mask
per text, from a table made once per width), and a text that needs no escapes
holds no zero byte, so the JSON is the laid-out bytes without their zeros
(``bytes.translate`` deletes them, faster than a numpy gather).

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
_BREAK = ROW_BREAK.encode("ascii")
_TABLE_WIDTH = 64          # wider rows: the mask by comparison (a table would be too big)


def matrix_json(matrix: NDArray[np.uint8], offsets: NDArray[np.int64],
                sizes: NDArray[np.int64], m: int, first: int, last: int) -> bytes:
    """Rows ``first`` to ``last`` (exclusive) of an n x m block of texts, as JSON lists
    joined by ``ROW_BREAK``: text k of the block is ``matrix[k, offsets[k]:][:sizes[k]]``
    and needs no escapes (``offsets`` and ``sizes`` are the block's, whole)."""
    import numpy as np

    width = matrix.shape[1]
    rows = last - first
    part = slice(first * m, last * m)
    slot = width + 4                   # a quote, the text's columns, a quote, ", "
    laid = np.empty((rows, 1 + m * slot + len(_BREAK)), dtype=np.uint8)
    laid[:, 0] = ord("[")
    slots = laid[:, 1:1 + m * slot].reshape(rows, m, slot)
    in_text = _in_use(offsets[part], sizes[part], width).reshape(rows, m, width)
    np.multiply(matrix[part].reshape(rows, m, width), in_text, out=slots[:, :, 1:width + 1])
    slots[:, :, 0] = slots[:, :, width + 1] = ord('"')
    slots[:, :, width + 2] = ord(",")
    slots[:, :, width + 3] = ord(" ")
    slots[:, m - 1, width + 2] = ord("]")
    slots[:, m - 1, width + 3] = 0
    laid[:, 1 + m * slot:] = np.frombuffer(_BREAK, dtype=np.uint8)
    laid[-1, 1 + m * slot:] = 0        # no break after the block's last row
    return laid.tobytes().translate(None, b"\0")     # bytes.translate deletes in one pass


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
