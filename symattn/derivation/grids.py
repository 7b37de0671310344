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
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Sequence

from flint import arb, fmpq, fmpq_mat

from symattn.derivation.grid_data import GridData, bool_matrix
from symattn.errors import FullyMaskedRowError, InputError
from symattn.values.exact import (NEG_INF, Exact, RationalOrSurd, exact_text, RationalTexts,
                                  to_ball, working_precision)
from symattn.values.written import closed_form_terms, written_texts

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    from symattn.values.enclosures import Doubles, Enclosure


_Block = list[tuple[str | None, ...]]   # a block's closed forms, row by row


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


class Grid(GridData, ABC):
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

    def texts(self, rows: Sequence[int], columns: Sequence[int], max_terms: int | None = None
              ) -> list[tuple[str | None, ...]]:
        """The closed forms of a block, None where one writes more than ``max_terms``
        exponentials (None: every one). Subclasses write whole blocks at once."""
        return [tuple(self.text(i, j) if max_terms is None or self.terms(i, j) <= max_terms
                      else None for j in columns) for i in rows]

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

    def texts(self, rows: Sequence[int], columns: Sequence[int], max_terms: int | None = None
              ) -> list[tuple[str | None, ...]]:
        """Closed forms, None past ``max_terms`` exponentials: a feed-forward, LayerNorm,
        logit or shifted-sum entry grows with the softmax rows it is built from (counted
        before it is written: a long one is never written)."""
        return written_texts(self.exact, rows, columns, max_terms)

    def terms(self, i: int, j: int) -> int:
        return closed_form_terms(self.values[i][j])


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
        return closed_form_terms(self.exact(i, j)) if self._terms is None else \
            self._terms(i, j)

    def exact(self, i: int, j: int) -> Exact:
        key = (i, j)
        value = self._values.get(key)
        if value is None:
            value = self._values[key] = self._compute(i, j)
        return value


class RationalGrid(Grid):
    """A matrix of rationals (inputs, Q, K, V, QK^T)."""

    def __init__(self, matrix: fmpq_mat,
                 factors: tuple[fmpq_mat, fmpq_mat] | None = None) -> None:
        self.matrix = matrix
        self.factors = factors    # (Q, K) with matrix == Q K^T: numerators in one product
        self.shape = (matrix.nrows(), matrix.ncols())

    def exact(self, i: int, j: int) -> Exact:
        return self.matrix[i, j]

    @cached_property
    def rational_texts(self) -> RationalTexts:
        """The entries' texts, a block at a time (numerators read once)."""
        return RationalTexts(self.matrix)

    def texts(self, rows: Sequence[int], columns: Sequence[int], max_terms: int | None = None
              ) -> list[tuple[str | None, ...]]:
        return list(self.rational_texts.block(rows, columns))

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        matrix = self.matrix
        with working_precision(prec):
            return [[arb(matrix[i, j]) for j in columns] for i in rows]

    @cached_property
    def _enclosure(self) -> Enclosure | None:
        from symattn.values import enclosures

        matrix = enclosures.integer_matrix(self.matrix)
        scale = None if matrix is None else enclosures.scale_of(fmpq(1), matrix.denominator)
        if matrix is None or scale is None:
            return None
        errors = None if matrix.exact else (2.01 * enclosures.U) * abs(matrix.numerators)
        return enclosures.scaled_enclosure(matrix.numerators, errors, scale)

    def enclosure(self) -> Enclosure | None:
        """Double-precision enclosure of every entry (``verify.batch``, ``max_shift``)."""
        return self._enclosure


class ScaledGrid(Grid):
    """``factor * base``: the scores after 1/sqrt(d_k) and the temperature."""

    shown_again = True    # the masked scores show its entries (``NumberFormat`` keeps them)

    def __init__(self, base: fmpq_mat, factor: RationalOrSurd,
                 holes: frozenset[tuple[int, int]] = frozenset(),
                 factors: tuple[fmpq_mat, fmpq_mat] | None = None) -> None:
        self.base = base
        self.factor = factor
        self.holes = holes  # entries given as -oo in the input
        self.factors = factors  # (Q, K) with base == Q K^T, for the double-precision enclosure
        self._rational_texts: RationalTexts | None = None
        self._texts: dict[tuple[tuple[int, ...], tuple[int, ...]], _Block] = {}
        self.shape = (base.nrows(), base.ncols())

    def exact(self, i: int, j: int) -> Exact:
        if (i, j) in self.holes:
            return NEG_INF
        return self.factor * self.base[i, j]

    def texts(self, rows: Sequence[int], columns: Sequence[int], max_terms: int | None = None
              ) -> list[tuple[str | None, ...]]:
        # The masked scores and the exponentials are written from these texts too:
        # the blocks of the last 16 calls are kept (a 1024-row view in 64-row blocks).
        key = (tuple(rows), tuple(columns))
        found = self._texts.get(key)
        if found is None:
            if len(self._texts) >= 16:
                del self._texts[next(iter(self._texts))]
            found = self._texts[key] = self._block_texts(rows, columns)
        return found

    def _block_texts(self, rows: Sequence[int], columns: Sequence[int]
                     ) -> list[tuple[str | None, ...]]:
        if not isinstance(self.factor, fmpq):
            return super().texts(rows, columns)
        block: list[tuple[str | None, ...]] = list(self._scaled_texts().block(rows, columns))
        if self.holes:
            where = {i: k for k, i in enumerate(rows)}, {j: k for k, j in enumerate(columns)}
            for i, j in self.holes:
                if i in where[0] and j in where[1]:
                    row = list(block[where[0][i]])
                    row[where[1][j]] = exact_text(NEG_INF)
                    block[where[0][i]] = tuple(row)
        return block

    def _scaled_texts(self) -> RationalTexts:
        """The entries (a rational factor) over one denominator, read once."""
        if self._rational_texts is None:
            assert isinstance(self.factor, fmpq)
            self._rational_texts = RationalTexts(self.base * self.factor)
        return self._rational_texts

    def factor_ball(self, prec: int) -> arb:
        """A certified ball for the factor (a rational or a surd: always finite)."""
        return to_ball(self.factor, prec)

    @cached_property
    def score_inputs(self) -> tuple[Doubles, Doubles | None, int] | None:
        """``enclosures.scores_enclosure_inputs`` of the scores, made once for every
        enclosure built on them (scaled, masked, exponentials, weights)."""
        from symattn.values import enclosures

        return enclosures.scores_enclosure_inputs(self.base, self.factors)

    @cached_property
    def _enclosure(self) -> Enclosure | None:
        from symattn.values import enclosures
        import numpy as np

        inputs = self.score_inputs
        scale = None if inputs is None else enclosures.scale_of(self.factor, inputs[2])
        if inputs is None or scale is None:
            return None
        holes = np.zeros(self.shape, dtype=bool)
        for i, j in self.holes:
            holes[i, j] = True
        return enclosures.scaled_enclosure(inputs[0], inputs[1], scale, holes)

    def enclosure(self) -> Enclosure | None:
        """Double-precision enclosure of every entry (``verify.batch``, ``max_shift``)."""
        return self._enclosure


class MaskGrid(Grid):
    """The additive mask: 0 where attention is allowed, -oo where it is not."""

    def __init__(self, allowed: Sequence[Sequence[bool]]) -> None:
        self.allowed = allowed
        self.shape = (len(allowed), len(allowed[0]))

    def exact(self, i: int, j: int) -> Exact:
        return fmpq(0) if self.allowed[i][j] else NEG_INF

    def texts(self, rows: Sequence[int], columns: Sequence[int], max_terms: int | None = None
              ) -> list[tuple[str | None, ...]]:
        masked = exact_text(NEG_INF)
        return [tuple("0" if self.allowed[i][j] else masked for j in columns) for i in rows]

    def enclosure(self) -> Enclosure:
        """Zeros and -oo, as an enclosure (decimals of a large mask at once)."""
        from symattn.values.enclosures import Enclosure
        import numpy as np

        allowed = bool_matrix(self.allowed, self.shape)
        zeros = np.zeros(self.shape)
        return Enclosure(zeros, zeros, np.ones(self.shape[0], dtype=bool), ~allowed)


class MaskedGrid(Grid):
    """Scaled scores plus the mask: masked entries are exactly -oo."""

    def __init__(self, scaled: ScaledGrid, allowed: Sequence[Sequence[bool]]) -> None:
        self.scaled = scaled
        self.allowed = allowed
        self.shape = scaled.shape
        self._open: dict[int, list[int]] = {}

    def exact(self, i: int, j: int) -> Exact:
        return self.scaled.exact(i, j) if self.allowed[i][j] else NEG_INF

    @property
    def unmasked(self) -> ScaledGrid:
        """The grid whose entries this one shows where the mask allows (``NumberFormat``
        writes its decimals from that grid's)."""
        return self.scaled

    def texts(self, rows: Sequence[int], columns: Sequence[int], max_terms: int | None = None
              ) -> list[tuple[str | None, ...]]:
        masked = exact_text(NEG_INF)
        allowed = self.allowed
        return [tuple(text if allowed[i][j] else masked for j, text in zip(columns, row))
                for i, row in zip(rows, self.scaled.texts(rows, columns, max_terms))]

    def open_array(self) -> NDArray[np.bool_]:
        """The entries that are open as a numpy bool matrix (neither masked nor given -oo)."""
        allowed = bool_matrix(self.allowed, self.shape)
        if self.scaled.holes:
            allowed = allowed.copy()
        for i, j in self.scaled.holes:
            allowed[i, j] = False
        return allowed  # type: ignore[no-any-return]

    def enclosure(self) -> Enclosure | None:
        """The scaled scores' enclosure with the masked entries -oo."""
        import dataclasses

        scaled = self.scaled.enclosure()
        if scaled is None:
            return None
        allowed = bool_matrix(self.allowed, self.shape)
        assert scaled.neg_inf is not None
        return dataclasses.replace(scaled, neg_inf=scaled.neg_inf | ~allowed)

    def open_columns(self, i: int) -> list[int]:
        """The keys row i may attend to (computed once per row; callers must not modify it)."""
        columns = self._open.get(i)
        if columns is None:
            row = self.allowed[i]
            columns = self._open[i] = [j for j in range(self.shape[1]) if row[j]] \
                if self.shape[1] < 256 else _true_indices(self, i)
        return columns


def _true_indices(grid: MaskedGrid, i: int) -> list[int]:
    """Where a long row of the mask is True (numpy: a Python loop costs more)."""
    import numpy as np

    row = bool_matrix(grid.allowed, grid.shape)[i]
    return np.flatnonzero(row).tolist()  # type: ignore[no-any-return]
