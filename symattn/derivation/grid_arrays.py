"""Whole grids as numpy arrays: the closed forms of every entry at once, and a
rational grid's integer numerators over one denominator.

For writing a large derivation (JSON of 1,024 x 1,024 steps): the grids of
the rational core - inputs, products, scaled and masked scores, the mask and
the exponentials of rational scores - write their closed forms here a whole
matrix at a time (``values.text_arrays``), with the same text entry by entry
as ``Grid.texts``; every other grid goes through ``Grid.texts``.

>>> from flint import fmpq, fmpq_mat
>>> from symattn.derivation.grids import MaskedGrid, ScaledGrid
>>> masked = MaskedGrid(ScaledGrid(fmpq_mat([[0, 3]]), fmpq(1, 2)), [[True, False]])
>>> text_array(masked, None).rows(), rational_parts(masked)[1]
([('0', '-oo')], 2)
"""

from __future__ import annotations

__all__ = ["text_array", "rational_parts"]

from typing import TYPE_CHECKING, Callable

from flint import fmpq, fmpq_mat

from symattn.derivation.grid_data import bool_matrix
from symattn.derivation.grids import Grid, MaskGrid, MaskedGrid, RationalGrid, ScaledGrid
from symattn.derivation.softmax_grids import ExpGrid, OutputGrid, WeightsGrid
from symattn.values.ratio_arrays import LIMIT, ratio_texts
from symattn.values.text_arrays import TextArray, choose, constant, from_rows

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Parts = tuple[NDArray[np.int64], int, NDArray[np.bool_] | None]

_PARTS = "_symattn_int64_parts"     # where a grid keeps its parts once made


def _int64(matrix: fmpq_mat) -> tuple[NDArray[np.int64], int] | None:
    import numpy as np

    numerators, denominator = matrix.numer_denom()
    if int(denominator) >= LIMIT:
        return None
    try:
        entries = numerators.entries()
        values = np.fromiter(map(int, entries), dtype=np.int64, count=len(entries))
    except OverflowError:
        return None
    if values.size and int(np.abs(values).max()) >= LIMIT:
        return None
    return values.reshape(matrix.nrows(), matrix.ncols()), int(denominator)


def _product(factors: tuple[fmpq_mat, fmpq_mat]) -> tuple[NDArray[np.int64], int] | None:
    """The integer numerators of ``Q K^T`` from one product of doubles, when every
    partial sum is an integer below 2**52 (exact in any order: ``enclosures``)."""
    import numpy as np

    found = _double_product(factors)
    if found is None or found[1] is not None or found[2] >= LIMIT:
        return None
    return found[0].astype(np.int64), int(found[2])


def _double_product(factors: tuple[fmpq_mat, fmpq_mat]
                    ) -> tuple[NDArray[np.float64], None, int] | None:
    from symattn.values import enclosures

    query, key = (enclosures.integer_matrix(m) for m in factors)
    if query is None or key is None or not (query.exact and key.exact):
        return None
    d = factors[0].ncols()
    largest = [float(abs(m.numerators).max()) if m.numerators.size else 0.0
               for m in (query, key)]
    if d * largest[0] * largest[1] > 2.0 ** 52:
        return None
    return query.numerators @ key.numerators.T, None, query.denominator * key.denominator


def _holes(grid: ScaledGrid) -> NDArray[np.bool_] | None:
    import numpy as np

    if not grid.holes:
        return None
    holes = np.zeros(grid.shape, dtype=bool)
    for i, j in grid.holes:
        holes[i, j] = True
    return holes


def _allowed(grid: MaskGrid | MaskedGrid) -> NDArray[np.bool_]:
    return bool_matrix(grid.allowed, grid.shape)  # type: ignore[no-any-return]


def _scaled_parts(grid: ScaledGrid) -> Parts | None:
    """``factor * base`` as ``N a / (D b)`` for ``factor = a / b`` and ``base = N / D``."""
    import numpy as np

    factor = grid.factor
    assert isinstance(factor, fmpq)
    inputs = grid.score_inputs if grid.factors is not None else None   # kept by the grid
    found = None if inputs is None or inputs[1] is not None or inputs[2] >= LIMIT else \
        (inputs[0].astype(np.int64), int(inputs[2]))
    if found is None:
        found = _int64(grid.base * factor)
        return None if found is None else (found[0], found[1], _holes(grid))
    numerators, denominator = found
    top, bottom = int(factor.p), int(factor.q)
    largest = int(np.abs(numerators).max()) if numerators.size else 0
    if largest * abs(top) >= LIMIT or denominator * bottom >= LIMIT:
        return None
    return numerators * top, denominator * bottom, _holes(grid)


def _make_parts(grid: Grid) -> Parts | None:
    if isinstance(grid, RationalGrid):
        found = _product(grid.factors) if grid.factors is not None else None
        found = found or _int64(grid.matrix)
        return None if found is None else (found[0], found[1], None)
    if isinstance(grid, ScaledGrid) and isinstance(grid.factor, fmpq):
        return _scaled_parts(grid)
    if isinstance(grid, MaskGrid):       # 0 or -oo
        import numpy as np

        return np.zeros(grid.shape, dtype=np.int64), 1, ~_allowed(grid)
    if isinstance(grid, MaskedGrid):
        scaled = rational_parts(grid.scaled)
        if scaled is None:
            return None
        masked = ~_allowed(grid)
        return scaled[0], scaled[1], masked if scaled[2] is None else masked | scaled[2]
    return None


def rational_parts(grid: Grid) -> Parts | None:
    """``(N, D, minus_infinity)``: entry (i, j) is ``N[i, j] / D`` (int64, below 2**62)
    except where ``minus_infinity`` (None: nowhere) says -oo; None for a grid that is
    not rational or does not fit. Made once per grid."""
    if _PARTS not in vars(grid):
        setattr(grid, _PARTS, _make_parts(grid))
    found: Parts | None = getattr(grid, _PARTS)
    return found


_last: list[tuple[object, TextArray]] = []   # the texts of the last numerators written


def _ratio_texts(parts: Parts) -> TextArray:
    """``ratio_texts`` of the parts, kept for the next grid with the same numerators
    (the masked scores and the exponentials are written from the scaled scores';
    the exponentials take them last)."""
    if _last and _last[0][0] is parts[0]:
        return _last[0][1]
    texts = ratio_texts(parts[0], parts[1])
    _last[:] = [(parts[0], texts)]
    return texts


def _softmax_array(grid: Grid, max_terms: int | None) -> TextArray | None:
    """The weights' or the output's texts, which to leave out decided at once."""
    from symattn.derivation import softmax_arrays

    weights = grid.weights if isinstance(grid, OutputGrid) else grid
    if max_terms is None or not isinstance(weights, WeightsGrid) or \
            weights.normalisation != "softmax" or weights.masked.scaled.holes:
        return None
    parts = rational_parts(weights.masked)
    if parts is None:
        return None
    if isinstance(grid, WeightsGrid):
        return softmax_arrays.weights_array(grid, parts, max_terms)
    assert isinstance(grid, OutputGrid)
    values = _int64(grid.values)
    if values is None:
        return None
    return softmax_arrays.output_array(grid, parts, values[0], max_terms)


def text_array(grid: Grid, max_terms: int | None,
               advance: Callable[[int], object] | None = None) -> TextArray:
    """The closed forms of every entry of ``grid`` (None past ``max_terms``), as
    ``grid.texts`` writes them; ``advance(rows)`` is told of the rows written where they
    are written a few at a time (long softmax rows: a progress bar moves)."""
    whole = range(grid.shape[0]), range(grid.shape[1])
    if isinstance(grid, MaskGrid):
        return choose(_allowed(grid), b"0", constant(grid.shape, "-oo"))
    parts = rational_parts(grid)
    if parts is not None:
        texts = _ratio_texts(parts)
        return texts if parts[2] is None else choose(parts[2], b"-oo", texts)
    if isinstance(grid, ExpGrid):
        masked = rational_parts(grid.masked)
        if masked is not None:
            shared = _last.pop()[1] if _last and _last[0][0] is masked[0] else None
            arguments = shared.wrapped(b"exp(", b")") if shared is not None and shared.width \
                else ratio_texts(masked[0], masked[1], b"exp(", b")")
            exps = choose(masked[0] == 0, b"1", arguments)
            return exps if masked[2] is None else choose(masked[2], b"0", exps)
    found = _softmax_array(grid, max_terms)
    if found is not None:
        return found
    rows: list[tuple[str | None, ...]] = []
    for start in range(0, grid.shape[0], 64):
        chunk = whole[0][start:start + 64]
        rows += grid.texts(chunk, whole[1], max_terms)
        if advance is not None:
            advance(len(chunk))
    return from_rows(rows, grid.shape[1])
