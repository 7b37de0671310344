"""A grid over a SymPy matrix, for the steps of the SymPy path.
"""

from __future__ import annotations

__all__ = ['SympyGrid']

from typing import Any

import sympy

from symattn.derivation import grids
from symattn.problem.problem import EntryMatrix
from symattn.values.symbolic import sympy_to_exact, value_to_sympy


class SympyGrid(grids.Grid):
    """A grid over a SymPy matrix."""

    def __init__(self, matrix: sympy.Matrix) -> None:
        self.matrix = matrix
        self.shape = (matrix.rows, matrix.cols)

    def exact(self, i: int, j: int) -> Any:
        return sympy_to_exact(self.matrix[i, j])


def _matrix(entries: EntryMatrix) -> sympy.Matrix:
    return sympy.Matrix([[value_to_sympy(entry.value) for entry in row] for row in entries])
