"""The data face of a grid (docs/python.md): ``grid[i, j]`` 0-based like Python,
``at(r, c)`` 1-based like specs, ``tolist``, ``to_sympy``, ``to_numpy``, and the
``PositionError`` of an index outside the grid.

>>> from flint import fmpq_mat
>>> from symattn.derivation.grids import RationalGrid
>>> grid = RationalGrid(fmpq_mat([[1, 2], [3, 4]]))
>>> grid[1, 0], grid.at(2, 1), grid.tolist()[0]
(3, 3, [Fraction(1, 1), Fraction(2, 1)])
"""

from __future__ import annotations

__all__ = ["GridData", "bool_matrix"]

import functools
import operator
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Sequence

from flint import arb, fmpq

from symattn.errors import Location, PositionError
from symattn.values.exact import Exact


class GridData:
    """What a grid offers Python code besides ``exact`` (mixed into ``Grid``)."""

    shape: tuple[int, int]

    if TYPE_CHECKING:
        def exact(self, i: int, j: int) -> Exact: ...

        def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
                  ) -> Sequence[Sequence[arb | None]]: ...

        def rows(self) -> range: ...

        def columns(self) -> range: ...

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # Every grid's ``exact`` refuses a row or column outside it with a PositionError,
        # not an IndexError from inside. Indices are 0 to n - 1 (no negative ones).
        super().__init_subclass__(**kwargs)
        exact = cls.__dict__.get("exact")
        if exact is not None and not getattr(exact, "__isabstractmethod__", False):
            cls.exact = _checked(exact)  # type: ignore[method-assign, assignment]

    # The data face (docs/python.md): 0-based like Python, ``at`` 1-based like specs.
    def __getitem__(self, index: tuple[int, int]) -> Exact:
        """``grid[i, j]``: the exact value of entry (i, j), 0-based."""
        if not (isinstance(index, tuple) and len(index) == 2):
            raise PositionError(f"index a grid by (row, column), got {index!r}",
                                Location(key="grid[i, j]"))
        return self.exact(*index)

    def at(self, row: int, column: int = 1) -> Exact:
        """The exact value at ``row``, ``column``, 1-based as in specs, claims and pages."""
        _check_position(self.shape, row - 1 if isinstance(row, int) else row,
                        column - 1 if isinstance(column, int) else column, 1, "at")
        return self.exact(row - 1, column - 1)

    def tolist(self) -> list[list[Any]]:
        """Exact values row by row: ``Fraction`` where rational, else a SymPy expression
        (``-oo`` for a masked score)."""
        return [[_python_value(self.exact(i, j)) for j in self.columns()] for i in self.rows()]

    def to_sympy(self) -> Any:
        """The grid as a ``sympy.Matrix`` of exact values."""
        import sympy

        from symattn.values.closed_forms import to_sympy

        return sympy.Matrix([[to_sympy(self.exact(i, j)) for j in self.columns()]
                             for i in self.rows()])

    def to_numpy(self, dtype: Any = float) -> Any:
        """The grid as a NumPy array of floats, each rounded from a certified ball to
        the nearest double (-inf for a mask, nan where there is no number)."""
        import numpy

        block = self.balls(64, self.rows(), self.columns())
        return numpy.array([[numpy.nan if ball is None else float(ball.mid())
                             for ball in row] for row in block], dtype=dtype)

    def __repr__(self) -> str:
        rows, columns = self.shape
        return f"<{type(self).__name__} {rows}x{columns}>"


def _check_position(shape: tuple[int, int], i: object, j: object, base: int,
                    function: str = "exact") -> None:
    for value, size, what in ((i, shape[0], "row"), (j, shape[1], "column")):
        try:
            index: Any = value
            number = None if isinstance(index, bool) else operator.index(index)
        except TypeError:
            number = None
        if number is None or not 0 <= number < size:
            raise PositionError(f"{what} {value + base if isinstance(value, int) else value!r}"
                                f" is outside the {shape[0]}x{shape[1]} grid ({what}s "
                                f"{base} to {size - 1 + base})", Location(key=function))


def _checked(exact: Callable[[Any, int, int], Exact]) -> Callable[[Any, int, int], Exact]:
    @functools.wraps(exact)
    def checked(self: GridData, i: int, j: int = 0) -> Exact:
        try:            # free unless it raises: grids are read millions of times
            return exact(self, i, j)
        except (IndexError, TypeError):
            _check_position(self.shape, i, j, 0)
            raise           # the indices were fine: a real error inside
    return checked


def _python_value(value: Exact) -> Any:
    if isinstance(value, fmpq):
        return Fraction(int(value.p), int(value.q))
    from symattn.values.closed_forms import to_sympy

    return to_sympy(value)


_BOOLS: list[tuple[object, Any]] = []   # the last matrix made, with its rows


def bool_matrix(rows: Sequence[Sequence[bool]], shape: tuple[int, int]) -> Any:
    """``rows`` as a read-only numpy bool matrix, made once for the last rows asked
    (the mask, the masked scores and the softmax enclosures share one mask)."""
    import numpy as np

    if _BOOLS and _BOOLS[0][0] is rows:
        return _BOOLS[0][1]
    matrix = np.array(rows, dtype=bool).reshape(shape)
    matrix.flags.writeable = False
    _BOOLS[:] = [(rows, matrix)]
    return matrix
