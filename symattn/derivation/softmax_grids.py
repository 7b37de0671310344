"""The softmax side of the fast rational core: exponentials, row sums, weights, output.

The masked scores are ``factor * s`` with ``s`` rational and ``factor`` a
rational or a single surd (``grids.ScaledGrid``). From there on exactness is
decided by structure, not by looking at digits:

* e^x for a non-zero algebraic x is transcendental (Lindemann-Weierstrass), so
  an exponential is rational only when x = 0 (e^0 = 1) or x = -oo (0);
* a softmax weight is rational exactly when every unmasked score in its row is
  equal (then it is 1/count): otherwise the exponentials of the distinct scores
  would satisfy a non-trivial linear relation with algebraic coefficients;
* an output entry sum_j w_j v_j is rational exactly when each group of equal
  scores has the same mean value v, and then it equals that mean.

Everything not rational is carried as an ``Irrational``: its exact text and a
certified ball at any precision.

>>> from flint import fmpq_mat
>>> from symattn.derivation.grids import ScaledGrid
>>> masked = MaskedGrid(ScaledGrid(fmpq_mat([[1, 1, 2]]), fmpq(1)), [[True, True, False]])
>>> weights = WeightsGrid(masked, "softmax", "error")
>>> [weights.exact(0, j) for j in range(3)], ExpGrid(masked).text(0, 0)
([1/2, 1/2, 0], 'exp(1)')
"""

from __future__ import annotations

__all__ = ["ExpGrid", "ExpSumGrid", "WeightsGrid", "OutputGrid"]

from functools import cached_property, lru_cache
from typing import Callable, Sequence

from flint import arb, arb_mat, fmpq, fmpq_mat, fmpz, fmpz_mat

from symattn.derivation.grids import (Grid, MaskedGrid, flatten_balls, fully_masked_row,
                                      zero_row_sum)
from symattn.derivation.softmax_texts import RowTexts, exp_text as _exp_text, exp_texts
from symattn.values.enclosures import Enclosure
from symattn.values.exact import (EXACT_ZERO, NAN, NEG_INF, Exact, Irrational, to_ball,
                                  working_precision)


class ExpGrid(Grid):
    """e to each masked score, row by row, not shifted by the row maximum."""

    def __init__(self, masked: MaskedGrid) -> None:
        self.masked = masked
        self.shape = masked.shape

    def exact(self, i: int, j: int) -> Exact:
        argument = self.masked.exact(i, j)
        if argument is NEG_INF:
            return fmpq(0)
        if argument == 0:
            return fmpq(1)
        scaled = self.masked.scaled

        def evaluate(prec: int) -> arb:
            with working_precision(prec):
                return (scaled.factor_ball(prec) * arb(scaled.base[i, j])).exp()

        return Irrational(lambda: _exp_text(argument), evaluate)

    def texts(self, rows: Sequence[int], columns: Sequence[int], max_terms: int | None = None
              ) -> list[tuple[str | None, ...]]:
        return exp_texts(self.masked.texts(rows, columns, max_terms))

    @cached_property
    def _enclosure(self) -> Enclosure | None:
        from symattn.values import enclosures

        scaled = self.masked.scaled
        inputs = scaled.score_inputs
        if inputs is None:
            return None
        return enclosures.exp_enclosure(inputs[0], inputs[1], scaled.factor, inputs[2],
                                        self.masked.open_array())

    def enclosure(self) -> Enclosure | None:
        """Double-precision enclosure of every exponential (``enclosures``), or None."""
        return self._enclosure


class ExpSumGrid(Grid):
    """Row sums of the exponentials: an n x 1 column."""

    def __init__(self, exp: ExpGrid) -> None:
        self.exp_grid = exp
        self.shape = (exp.shape[0], 1)
        self.row_texts = RowTexts(exp.masked)

    def terms(self, i: int, j: int = 0) -> int:
        return len(self.exp_grid.masked.open_columns(i))

    def exact(self, i: int, j: int = 0) -> Exact:
        columns = self.exp_grid.masked.open_columns(i)
        base = self.exp_grid.masked.scaled.base
        if all(base[i, c] == 0 for c in columns):
            return fmpq(len(columns))
        exp_grid = self.exp_grid
        row_texts = self.row_texts

        def text() -> str:
            return row_texts.sum(i)

        def evaluate(prec: int) -> arb:
            total = arb(0)
            for c in columns:
                term = exp_grid.ball(i, c, prec)
                if term is None:        # an open key's exponential is finite
                    raise ArithmeticError(f"exp of open score ({i}, {c}) has no ball")
                with working_precision(prec):
                    total += term
            return total

        return Irrational(text, evaluate)

    @property
    def entry_cost(self) -> int:   # each sum costs a row of exponentials by balls
        return self.exp_grid.shape[1]

    def enclosure(self) -> Enclosure | None:
        """The row sums of the exponentials' enclosure."""
        from symattn.values.enclosures import row_sum_enclosure

        exps = self.exp_grid.enclosure()
        return None if exps is None else row_sum_enclosure(exps)


class WeightsGrid(Grid):
    """Row-normalised weights: softmax (default) or division by the row sum."""

    def __init__(self, masked: MaskedGrid, normalisation: str, fully_masked: str) -> None:
        self.masked = masked
        self.normalisation = normalisation
        self.fully_masked = fully_masked
        self.shape = masked.shape
        self.row_texts = RowTexts(masked)
        self._rational_rows: dict[int, bool] = {}
        # The certified softmax of a row, shared by its entries and by the output.
        self.row_ball_cache: Callable[[int, int], list[arb]] = lru_cache(maxsize=4096)(
            self._row_balls)
        for i in range(self.shape[0]):
            self._check_row(i)

    @property
    def base(self) -> fmpq_mat:
        return self.masked.scaled.base

    def _check_row(self, i: int) -> None:
        columns = self.masked.open_columns(i)
        if not columns and self.fully_masked == "error":
            raise fully_masked_row(i)
        if columns and self.normalisation == "sum":
            total = sum((self.base[i, c] for c in columns), fmpq(0))
            if total == 0:
                raise zero_row_sum(i)

    def terms(self, i: int, j: int) -> int:
        if self.normalisation == "sum" or not self.masked.allowed[i][j] or \
                self.row_is_rational(i):
            return 1
        return 1 + len(self.masked.open_columns(i))

    def row_is_rational(self, i: int) -> bool:
        """Softmax: all unmasked scores equal. Sum normalisation: always."""
        known = self._rational_rows.get(i)
        if known is None:
            columns = self.masked.open_columns(i)
            if self.normalisation == "sum" or not columns:
                known = True
            else:
                base = self.base
                first = base[i, columns[0]]
                known = all(base[i, c] == first for c in columns)
            self._rational_rows[i] = known
        return known

    def _has_softmax_balls(self, i: int) -> bool:
        """Row i is a softmax over at least one open key (``row_ball_cache`` applies)."""
        return self.normalisation != "sum" and bool(self.masked.open_columns(i))

    def exact(self, i: int, j: int) -> Exact:
        columns = self.masked.open_columns(i)
        if not columns:
            return NAN if self.fully_masked == "nan" else fmpq(0)
        if not self.masked.allowed[i][j]:
            return fmpq(0)
        if self.normalisation == "sum":
            total = sum((self.base[i, c] for c in columns), fmpq(0))
            return self.base[i, j] / total
        if self.row_is_rational(i):
            return fmpq(1, len(columns))

        row_texts = self.row_texts

        def text() -> str:
            return f"{row_texts.exps(i)[j]}/({row_texts.sum(i)})"

        return Irrational(text, lambda prec: self.row_ball_cache(i, prec)[j])

    def texts(self, rows: Sequence[int], columns: Sequence[int], max_terms: int | None = None
              ) -> list[tuple[str | None, ...]]:
        if self.normalisation == "sum":
            return super().texts(rows, columns, max_terms)
        block: list[tuple[str | None, ...]] = []
        for i in rows:
            if not self.row_is_rational(i) and max_terms is not None and \
                    1 + len(self.masked.open_columns(i)) > max_terms:   # too long to write
                allowed = self.masked.allowed[i]
                block.append(tuple(None if allowed[j] else "0" for j in columns))
            elif self.row_is_rational(i):
                block += super().texts([i], columns, max_terms)
            else:
                block.append(self.row_texts.weights(i, columns))
        return block

    @cached_property
    def integer_scores(self) -> tuple[fmpz_mat, fmpz]:
        """The scores as integers over one common denominator: s_ij = N_ij / D."""
        return self.base.numer_denom()

    def _row_balls(self, i: int, prec: int) -> list[arb]:
        """Certified softmax of row i (a softmax row with an open key), shifted by the
        row maximum (exactly).

        With s_ij = N_ij / D, each exponent is (factor / D) * (N_ij - max_j N_ij):
        an exact integer difference times one ball, so the shift by the row
        maximum costs nothing in accuracy and every exponential is at most 1.
        """
        columns = self.masked.open_columns(i)
        zero = EXACT_ZERO
        numerators, denominator = self.integer_scores
        with working_precision(prec):
            step = self.masked.scaled.factor_ball(prec) / denominator
            row = [numerators[i, c] for c in columns]
            # The factor is positive, so the largest scaled score has the largest N.
            top = max(row)
            one = arb(1)
            exps = [(step * (s - top)).exp() if s != top else one for s in row]
            inverse = one / sum(exps, zero)   # one division, then products
            result = [zero] * self.shape[1]
            for c, e in zip(columns, exps):
                result[c] = e * inverse
        return result

    @cached_property
    def _enclosure(self) -> Enclosure | None:
        if self.normalisation != "softmax":
            return None
        from symattn.values import enclosures

        scaled = self.masked.scaled
        inputs = scaled.score_inputs
        scale = None if inputs is None else enclosures.scale_of(scaled.factor, inputs[2])
        if inputs is None or scale is None:
            return None
        scores, score_errors, _ = inputs
        return enclosures.softmax_enclosure(scores, scale, self.masked.open_array(), score_errors)

    def enclosure(self) -> Enclosure | None:
        """Double-precision enclosure of every weight (``enclosures``), or None."""
        return self._enclosure

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        whole_rows = list(columns) == list(range(self.shape[1]))
        result: list[Sequence[arb | None]] = []
        for i in rows:
            if not self._has_softmax_balls(i):
                result.append([self.ball(i, j, prec) for j in columns])
            else:
                row = self.row_ball_cache(i, prec)
                result.append(row if whole_rows else [row[j] for j in columns])
        return result

    def ball(self, i: int, j: int, prec: int) -> arb | None:
        value = self.exact(i, j)
        if isinstance(value, Irrational):
            return self.row_ball_cache(i, prec)[j]
        return to_ball(value, prec)


class OutputGrid(Grid):
    """``weights @ V``: each output row is the weighted sum of the value rows."""

    def __init__(self, weights: WeightsGrid, values: fmpq_mat) -> None:
        self.weights = weights
        self.values = values
        self.shape = (weights.shape[0], values.ncols())
        self._row_cache: dict[tuple[int, int], list[arb]] = {}
        self._value_balls: dict[int, arb_mat] = {}
        self._groups: dict[int, list[list[int]]] = {}

    def exact(self, i: int, k: int) -> Exact:
        weights = self.weights
        columns = weights.masked.open_columns(i)
        if not columns:
            return NAN if weights.fully_masked == "nan" else fmpq(0)
        if weights.row_is_rational(i):
            return sum((_as_fmpq(weights.exact(i, c)) * self.values[c, k] for c in columns),
                       fmpq(0))
        common = self._common_group_mean(i, k)
        if common is not None:
            return common

        row_texts = weights.row_texts

        def text() -> str:
            return row_texts.output(i, k, self.values)

        return Irrational(text, lambda prec: self._ball(i, k, prec))

    @cached_property
    def _enclosure(self) -> Enclosure | None:
        from symattn.values import enclosures

        weights = self.weights.enclosure()
        values = enclosures.integer_matrix(self.values) if weights is not None else None
        if weights is None or values is None:
            return None
        return enclosures.product_enclosure(weights, values)

    def enclosure(self) -> Enclosure | None:
        """Double-precision enclosure of every output entry (``enclosures``), or None."""
        return self._enclosure

    def terms(self, i: int, k: int) -> int:
        weights = self.weights
        if weights.row_is_rational(i) or self._common_group_mean(i, k) is not None:
            return 1
        return 2 * len(weights.masked.open_columns(i))

    def _score_groups(self, i: int) -> list[list[int]]:
        """The open columns of row i, grouped by equal score (the same for every k)."""
        cache = self._groups
        if i not in cache:
            # equal scores have equal numerators over the common denominator
            # (fmpz keys: hashing an fmpq costs far more)
            numerators = self.weights.integer_scores[0]
            groups: dict[fmpz, list[int]] = {}
            for c in self.weights.masked.open_columns(i):
                groups.setdefault(numerators[i, c], []).append(c)
            cache[i] = list(groups.values())
        return cache[i]

    def _common_group_mean(self, i: int, k: int) -> fmpq | None:
        """The rational value of the entry, if every equal-score group has one mean."""
        values = self.values
        common = None
        for group in self._score_groups(i):
            mean = values[group[0], k] if len(group) == 1 else \
                sum((values[c, k] for c in group), fmpq(0)) / len(group)
            if common is None:
                common = mean
            elif mean != common:
                return None
        return common

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        """weights @ V for the chosen rows as one ball-matrix product."""
        weights = self.weights
        if weights.fully_masked == "nan" and any(
                not weights.masked.open_columns(i) for i in rows):
            return super().balls(prec, rows, columns)
        m = self.values.nrows()
        flat = flatten_balls(weights.balls(prec, rows, range(m)))
        if flat is None:          # not after the check above: every weight is finite
            return super().balls(prec, rows, columns)
        with working_precision(prec):
            values = arb_mat(self.values)
            product = arb_mat(len(rows), m, flat) * values
            return [[product[r, c] for c in columns] for r in range(len(rows))]

    def _ball(self, i: int, k: int, prec: int) -> arb:
        return self._row_balls(i, prec)[k]

    def _row_balls(self, i: int, prec: int) -> list[arb]:
        """Row i of ``weights @ V`` as balls: one ball-matrix product per row and
        precision (a check asks for many entries of a row, at a few precisions)."""
        key = (i, prec)
        found = self._row_cache.get(key)
        if found is None:
            if len(self._row_cache) >= 64:
                del self._row_cache[next(iter(self._row_cache))]
            weights = self.weights.row_ball_cache(i, prec)
            with working_precision(prec):
                values = self._value_balls.get(prec)
                if values is None:
                    values = self._value_balls[prec] = arb_mat(self.values)
                product = arb_mat(1, len(weights), weights) * values
                found = self._row_cache[key] = [product[0, k] for k in range(self.shape[1])]
        return found


def _as_fmpq(value: Exact) -> fmpq:
    if not isinstance(value, fmpq):
        raise TypeError(f"expected a rational weight, got {value!r}")
    return value
