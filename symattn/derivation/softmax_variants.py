"""Softmax taken another way than along the rows, and a product of grids.

The what-if comparison (``explore.whatif``) and the slip catalogue
(``verify.slips``) both need the weights a softmax gives down the columns, or
over the whole matrix at once, and the output those weights give. Each is the
engine's own row softmax (``values.probabilities.softmax``) applied to other
entries, and the product is the exact sum of products the output step writes.

>>> from flint import fmpq
>>> from symattn.values.exact import NEG_INF
>>> grid = column_softmax(ValueGrid([[fmpq(1), NEG_INF], [fmpq(1), fmpq(0)]]))
>>> [[grid.exact(i, j) for j in range(2)] for i in range(2)]
[[1/2, 0], [1/2, 1]]
>>> whole = matrix_softmax(ValueGrid([[fmpq(0), fmpq(0)], [fmpq(0), NEG_INF]]))
>>> [[whole.exact(i, j) for j in range(2)] for i in range(2)]
[[1/3, 1/3], [1/3, 0]]
"""

from __future__ import annotations

__all__ = ["column_softmax", "matrix_softmax", "grid_product", "transposed"]

from flint import fmpq

from symattn.derivation.grids import Grid, ValueGrid
from symattn.values import arith, probabilities
from symattn.values.exact import NEG_INF, Exact


def column_softmax(masked: Grid) -> ValueGrid:
    """Softmax down each column of the masked scores (-oo entries get 0; a column with
    every entry masked stays 0)."""
    n, m = masked.shape
    columns: list[list[Exact]] = []
    for j in range(m):
        column = [masked.exact(i, j) for i in range(n)]
        columns.append(probabilities.softmax(column) if any(z is not NEG_INF for z in column)
                       else [fmpq(0)] * n)
    return ValueGrid([[columns[j][i] for j in range(m)] for i in range(n)])


def matrix_softmax(masked: Grid) -> ValueGrid:
    """One softmax over every entry of the masked scores at once (-oo entries get 0)."""
    n, m = masked.shape
    flat = probabilities.softmax([masked.exact(i, j) for i in range(n) for j in range(m)])
    return ValueGrid([flat[i * m:(i + 1) * m] for i in range(n)])


def transposed(grid: Grid) -> ValueGrid:
    n, m = grid.shape
    return ValueGrid([[grid.exact(i, j) for i in range(n)] for j in range(m)])


def grid_product(left: Grid, right: Grid) -> ValueGrid:
    """The exact matrix product ``left @ right`` (the inner sizes must agree)."""
    inner = right.shape[0]
    return ValueGrid([[arith.total(arith.multiply(left.exact(i, c), right.exact(c, k))
                                   for c in range(inner))
                       for k in range(right.shape[1])] for i in range(left.shape[0])])
