"""A grid over a SymPy matrix, for the steps of the SymPy path (and the KV cache's rows).

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"Q": [["sqrt(2)", 1]], "K": [[1, "a"]]}})
>>> scale_factor_sympy(problem), SympyGrid(sympy_matrix(problem.inputs["K"])).text(0, 1)
(sqrt(2)/2, 'a')
"""

from __future__ import annotations

__all__ = ['SympyGrid', 'sympy_matrix', 'scale_factor_sympy']

import sympy

from symattn.derivation import grids
from symattn.problem.problem import Problem
from symattn.problem.tables import EntryMatrix
from symattn.values.exact import Exact
from symattn.values.symbolic import sympy_to_exact, value_to_sympy


class SympyGrid(grids.Grid):
    """A grid over a SymPy matrix."""

    def __init__(self, matrix: sympy.Matrix) -> None:
        self.matrix = matrix
        self.shape = (matrix.rows, matrix.cols)

    def exact(self, i: int, j: int) -> Exact:
        return sympy_to_exact(self.matrix[i, j])


def sympy_matrix(entries: EntryMatrix) -> sympy.Matrix:
    """The entries of an input matrix as a SymPy matrix."""
    return sympy.Matrix([[value_to_sympy(entry.value) for entry in row] for row in entries])


def scale_factor_sympy(problem: Problem) -> sympy.Expr:
    """The number every score is multiplied by, scale / temperature, as SymPy."""
    return value_to_sympy(problem.scale_value) / value_to_sympy(problem.temperature)
