"""Which softmax closed forms of a large grid are written at all, decided a whole
matrix at once (``grid_arrays.text_array`` of the weights and the output).

Past ``max_terms`` exponentials a closed form is left out (null). Deciding that
entry by entry in Python costs more than the rest of a 1,024-token JSON; with
the scores' integer numerators it is a few numpy passes: a row is rational
when its open scores are all equal, a weight's length is one term per open key,
and an output entry is rational (one term) only when every group of equal
scores has the same mean value - so not when the values of three keys whose
scores no other key shares differ. Rows these tests cannot settle (rational
ones, short ones, fewer than three such keys, values that agree) are written
by the grid itself, as before.
"""

from __future__ import annotations

__all__ = ["weights_array", "output_array"]

from typing import TYPE_CHECKING

from symattn.derivation.softmax_grids import OutputGrid, WeightsGrid
from symattn.values.text_arrays import TextArray, choose, constant

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    # a rational grid's int64 numerators, denominator and -oo entries (grid_arrays)
    Parts = tuple[NDArray[np.int64], int, NDArray[np.bool_] | None]


def _open_rows(parts: Parts) -> tuple[NDArray[np.bool_], NDArray[np.int64], NDArray[np.bool_]]:
    """Open entries, their count per row, and which rows have all open scores equal."""
    import numpy as np

    numerators, _, masked = parts
    open_ = np.ones(numerators.shape, dtype=bool) if masked is None else ~masked
    count = open_.sum(axis=1)
    top = np.where(open_, numerators, np.iinfo(np.int64).min).max(axis=1)
    low = np.where(open_, numerators, np.iinfo(np.int64).max).min(axis=1)
    return open_, count, (count == 0) | (top == low)


def _with_rows(array: TextArray, grid: WeightsGrid | OutputGrid, rows: list[int],
               max_terms: int | None) -> TextArray:
    """``array`` with the given rows written by the grid itself."""
    m = grid.shape[1]
    index: list[int] = []
    texts: list[str | None] = []
    columns = range(m)
    for i in rows:
        index += range(i * m, (i + 1) * m)
        texts += grid.texts([i], columns, max_terms)[0]
    return array.replaced(index, texts)


def weights_array(grid: WeightsGrid, parts: Parts, max_terms: int) -> TextArray:
    """``grid.texts`` of every weight: null past ``max_terms``, 0 where masked."""
    open_, count, rational = _open_rows(parts)
    long = ~rational & (1 + count > max_terms)
    array = choose(open_, constant(grid.shape, ""), b"0")
    array = choose(open_ & long[:, None], _null(grid.shape), array)
    return _with_rows(array, grid, (~long).nonzero()[0].tolist(), max_terms)


def output_array(grid: OutputGrid, parts: Parts, values: NDArray[np.int64],
                 max_terms: int) -> TextArray:
    """``grid.texts`` of every output entry (``values``: V's numerators)."""
    import numpy as np

    open_, count, rational = _open_rows(parts)
    n, m = grid.shape
    # three keys of each row whose scores no other open key shares (groups of one)
    alone = _alone(parts[0], open_)
    found = np.cumsum(alone, axis=1)
    order = np.stack([np.argmax(alone & (found == r), axis=1) for r in (1, 2, 3)], axis=1)
    settled = ~rational & (2 * count > max_terms) & (found[:, -1] >= 3)
    first = values[order]                     # n x 3 x m: V at those keys
    differ = (first[:, 0] != first[:, 1]) | (first[:, 0] != first[:, 2])
    long = settled[:, None] & differ          # no common mean: 2 * count terms, left out
    write = ~settled | ~differ.all(axis=1)    # rows with an entry to write
    array = choose(long, _null((n, m)), constant((n, m), ""))
    return _with_rows(array, grid, write.nonzero()[0].tolist(), max_terms)


def _alone(numerators: NDArray[np.int64], open_: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Open entries whose score no other open entry of the row has."""
    import numpy as np

    big = np.iinfo(np.int64).max
    keys = np.where(open_, numerators, big)
    order = np.argsort(keys, axis=1, kind="stable")
    ordered = np.take_along_axis(keys, order, axis=1)
    same = ordered[:, 1:] == ordered[:, :-1]
    shared = np.zeros(ordered.shape, dtype=bool)
    shared[:, 1:] |= same
    shared[:, :-1] |= same
    alone = np.empty(ordered.shape, dtype=bool)
    np.put_along_axis(alone, order, ~shared & (ordered != big), axis=1)
    return alone & open_


def _null(shape: tuple[int, int]) -> TextArray:
    import numpy as np

    array = constant(shape, "")
    array.null = np.ones(shape[0] * shape[1], dtype=bool)
    return array
