"""The exact value of each step as a grid of entries: the base grids.

A ``Grid`` gives the exact value of each entry and certified balls for a
block. Here are the grids up to the masked scores: values computed entry by
entry (``ValueGrid``), exact rational matrices (inputs, Q, K, V, QK^T), the
scaled scores ``factor * QK^T`` with ``factor`` a rational or a single surd
(1/sqrt(d_k)/T), the mask and the masked scores. The softmax side (exp, row
sums, weights, output) is in ``softmax_grids``. Grids never format and never
round.

>>> from flint import fmpq_mat
>>> scaled = ScaledGrid(fmpq_mat([[1, 2]]), fmpq(1, 2))
>>> MaskedGrid(scaled, [[True, False]]).exact(0, 0), MaskGrid([[True, False]]).exact(0, 1)
(1/2, NEG_INF)
"""

from __future__ import annotations

__all__ = ["Grid", "ValueGrid", "LazyValueGrid", "RationalGrid", "ScaledGrid", "MaskGrid",
           "MaskedGrid", "FullyMaskedRowError", "fully_masked_row", "zero_row_sum", "flatten_balls"]

from abc import ABC, abstractmethod
from typing import Callable, Sequence

from flint import arb, fmpq, fmpq_mat

from symattn.errors import FullyMaskedRowError, InputError
from symattn.values.exact import (NEG_INF, Exact, RationalOrSurd, exact_text, to_ball,
                                  working_precision)


def fully_masked_row(i: int) -> FullyMaskedRowError:
    """The error for row i (0-based) of the scores masked everywhere, under fully_masked = error."""
    return FullyMaskedRowError(
        f"row {i + 1} of the scores is fully masked, so softmax is 0/0; set "
        "options.fully_masked to \"nan\" (as PyTorch returns) or \"zeros\"")


def zero_row_sum(i: int) -> InputError:
    """The error for row i (0-based) whose scores sum to 0 under normalisation = sum."""
    return InputError(f"row {i + 1} of the scores sums to 0, so dividing by the row "
                      "sum is undefined; use normalisation = \"softmax\"")


def flatten_balls(block: Sequence[Sequence[arb | None]]) -> list[arb] | None:
    """The balls of a block row by row, or None if an entry has none (-oo or nan)."""
    flat: list[arb] = []
    for row in block:
        for ball in row:
            if ball is None:
                return None
            flat.append(ball)
    return flat


class Grid(ABC):
    """An n x m grid of exact values; subclasses say how each entry is made."""

    shape: tuple[int, int]

    @abstractmethod
    def exact(self, i: int, j: int) -> Exact:
        """The exact value of entry (i, j), 0-based."""

    def ball(self, i: int, j: int, prec: int) -> arb | None:
        """A certified ball for entry (i, j) at ``prec`` bits (None for -oo and nan)."""
        return to_ball(self.exact(i, j), prec)

    def text(self, i: int, j: int) -> str:
        """The exact, SymPy-readable text of entry (i, j)."""
        return exact_text(self.exact(i, j))

    def terms(self, i: int, j: int) -> int:
        """How many exponentials the closed form of entry (i, j) writes out.

        A softmax entry has one per open key, so a long row's closed forms
        grow with the sequence; views skip writing the longest ones.
        """
        return 1

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        """Certified balls for a block of entries (None for -oo and nan).

        Subclasses compute whole rows or matrices at once where that is
        cheaper than entry by entry.
        """
        return [[self.ball(i, j, prec) for j in columns] for i in rows]

    def rows(self) -> range:
        return range(self.shape[0])

    def columns(self) -> range:
        return range(self.shape[1])


class ValueGrid(Grid):
    """A grid of values computed entry by entry (the steps after attention).

    Values are rational where the arithmetic stays rational (see ``arith``) and
    ``Irrational`` otherwise; meant for the small matrices of worked examples.
    """

    def __init__(self, values: Sequence[Sequence[Exact]]) -> None:
        self.values = [list(row) for row in values]
        self.shape = (len(self.values), len(self.values[0]) if self.values else 0)

    def exact(self, i: int, j: int) -> Exact:
        return self.values[i][j]


class LazyValueGrid(Grid):
    """A grid whose entries are computed when first read, then kept.

    For steps over a large matrix of which a page shows a few rows (the
    max-shift of positions, ``derivation.max_shift``): making every entry
    up front would cost more than the whole derivation.
    """

    def __init__(self, shape: tuple[int, int], compute: Callable[[int, int], Exact],
                 terms: Callable[[int, int], int] | None = None) -> None:
        self.shape = shape
        self._compute = compute
        self._terms = terms
        self._values: dict[tuple[int, int], Exact] = {}

    def terms(self, i: int, j: int) -> int:
        return 1 if self._terms is None else self._terms(i, j)

    def exact(self, i: int, j: int) -> Exact:
        key = (i, j)
        value = self._values.get(key)
        if value is None:
            value = self._values[key] = self._compute(i, j)
        return value


class RationalGrid(Grid):
    """A matrix of rationals (inputs, Q, K, V, QK^T)."""

    def __init__(self, matrix: fmpq_mat) -> None:
        self.matrix = matrix
        self.shape = (matrix.nrows(), matrix.ncols())

    def exact(self, i: int, j: int) -> Exact:
        return self.matrix[i, j]

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        matrix = self.matrix
        with working_precision(prec):
            return [[arb(matrix[i, j]) for j in columns] for i in rows]


class ScaledGrid(Grid):
    """``factor * base``: the scores after 1/sqrt(d_k) and the temperature."""

    def __init__(self, base: fmpq_mat, factor: RationalOrSurd,
                 holes: frozenset[tuple[int, int]] = frozenset(),
                 factors: tuple[fmpq_mat, fmpq_mat] | None = None) -> None:
        self.base = base
        self.factor = factor
        self.holes = holes  # entries given as -oo in the input
        self.factors = factors  # (Q, K) with base == Q K^T, for the double-precision enclosure
        self.shape = (base.nrows(), base.ncols())

    def exact(self, i: int, j: int) -> Exact:
        if (i, j) in self.holes:
            return NEG_INF
        return self.factor * self.base[i, j]

    def factor_ball(self, prec: int) -> arb:
        """A certified ball for the factor (a rational or a surd: always finite)."""
        return to_ball(self.factor, prec)


class MaskGrid(Grid):
    """The additive mask: 0 where attention is allowed, -oo where it is not."""

    def __init__(self, allowed: Sequence[Sequence[bool]]) -> None:
        self.allowed = allowed
        self.shape = (len(allowed), len(allowed[0]))

    def exact(self, i: int, j: int) -> Exact:
        return fmpq(0) if self.allowed[i][j] else NEG_INF


class MaskedGrid(Grid):
    """Scaled scores plus the mask: masked entries are exactly -oo."""

    def __init__(self, scaled: ScaledGrid, allowed: Sequence[Sequence[bool]]) -> None:
        self.scaled = scaled
        self.allowed = allowed
        self.shape = scaled.shape
        self._open: dict[int, list[int]] = {}

    def exact(self, i: int, j: int) -> Exact:
        return self.scaled.exact(i, j) if self.allowed[i][j] else NEG_INF

    def open_columns(self, i: int) -> list[int]:
        """The keys row i may attend to (computed once per row; callers must not modify it)."""
        columns = self._open.get(i)
        if columns is None:
            columns = self._open[i] = [j for j in range(self.shape[1]) if self.allowed[i][j]]
        return columns
