"""The steps of attention with positions on the fast path, as grids, up to the output.

Rational inputs with ``options.positions`` take this path (``positions``
lists the steps; ``position_values`` holds the exact sums of sines and cosines
and the ball matrices that ``TrigGrid`` reads, PE to the scores). From the
scores on, exactness is decided as on the rational core, by structure: an
exponential is 1 only for a score exactly 0; a softmax row is rational
(1/count) only when its open scores are exactly equal; an output entry is
rational when its row of weights is, or equals a value every open key shares.
Equalities are first refuted by certified balls (cheap), and only confirmed
on the exact forms when the balls cannot tell. Everything else is carried as
an ``Irrational``: its closed form, written when read, and certified balls.

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"Q": [[1, 2], [1, 2]], "K": [[3, 0], [1, 1]]},
...                                 "options": {"positions": "rope"}})
>>> from symattn.derivation.positions import build_steps
>>> steps = {step.name: step for step in build_steps(problem)}
>>> steps["scores"].value.exact(0, 0), steps["scores"].value.text(0, 1)
(3, '3*cos(1) + sin(1)')
"""

from __future__ import annotations

__all__ = ["TrigGrid", "ScaledTrigGrid", "MaskedTrigGrid", "ExpTrigGrid",
           "ExpSumTrigGrid", "WeightsTrigGrid", "OutputTrigGrid"]

from typing import Sequence

from flint import arb, arb_mat, fmpq

from symattn.defaults import MAX_TERMS
from symattn.derivation import grids
from symattn.derivation.attention import scale_factor
from symattn.derivation.grids import Grid
from symattn.derivation.position_values import PositionValues
from symattn.values import arith
from symattn.values.exact import (NAN, NEG_INF, Exact, Irrational, exact_text, to_ball,
                                  working_precision)
from symattn.values.trig import TrigSum, TrigValue

_ROUGH = 64       # bits of the balls that refute an equality before exact forms are built
# Closed forms whose bound (terms before like ones are collected) is at most the default
# --max-terms are counted exactly; a longer bound is taken as the count, so that the
# default report never builds a score's sum only to leave it out (a millisecond a score).
_EXACT_COUNT = MAX_TERMS


class TrigGrid(Grid):
    """A step whose entries are sums of sines and cosines (PE ... scores)."""

    def __init__(self, values: PositionValues, step: str, shape: tuple[int, int]) -> None:
        self.values = values
        self.step = step
        self.shape = shape

    def trig(self, i: int, j: int) -> TrigSum:
        return self.values.trig(self.step, i, j)

    def rational(self, i: int, j: int) -> fmpq | None:
        """The entry if it is rational, else None (a score proved irrational
        cheaply is not written out here)."""
        if self.step == "scores" and self.values.proved_irrational(i, j):
            return None
        value = self.trig(i, j)
        return value.constant if value.is_rational else None

    def exact(self, i: int, j: int) -> Exact:
        value = self.rational(i, j)
        if value is not None:
            return value
        step, values = self.step, self.values
        return TrigValue(lambda: self.trig(i, j).text(),
                         lambda prec: values.matrix(step, prec)[i, j], lambda: self.trig(i, j))

    def terms(self, i: int, j: int) -> int:
        """Sines and cosines written out: counted exactly when few, else bounded."""
        bound = self.values.bound(self.step, i, j)
        return max(1, self.trig(i, j).count) if bound <= _EXACT_COUNT else bound

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        matrix = self.values.matrix(self.step, prec)
        return [[matrix[i, j] for j in columns] for i in rows]


class ScaledTrigGrid(Grid):
    """The scores times scale / temperature (a rational or a square root)."""

    fast_kinds = True     # every entry a rational, surd or Irrational (max_shift reads it)

    def __init__(self, scores: TrigGrid) -> None:
        self.scores = scores
        self.factor = scale_factor(scores.values.problem)
        self.shape = scores.shape
        self._values: dict[tuple[int, int], Exact] = {}

    def trig(self, i: int, j: int) -> TrigSum:
        """The score's exact form (the factor is the same for every entry)."""
        return self.scores.trig(i, j)

    def exact(self, i: int, j: int) -> Exact:
        found = self._values.get((i, j))
        if found is None:   # one object per entry: x - x is then exactly 0 (arith)
            value = self.scores.rational(i, j)
            found = self.factor * value if value is not None else TrigValue(
                lambda: self._text(self.trig(i, j)), lambda prec: self.ball_of(i, j, prec),
                lambda: self.trig(i, j), self.factor)
            self._values[(i, j)] = found
        return found

    def _text(self, value: TrigSum) -> str:
        if isinstance(self.factor, fmpq):
            scaled = TrigSum(value.basis)
            scaled.add_scaled(value, self.factor)
            return scaled.text()
        return f"{exact_text(self.factor)}*({value.text()})"

    def terms(self, i: int, j: int) -> int:
        return self.scores.terms(i, j)

    def row_terms(self, i: int) -> int:
        """A bound on the exponentials, sines and cosines of a sum over row i."""
        values = self.scores.values
        return sum(1 + values.bound("scores", i, c) for c in range(self.shape[1]))

    def ball_of(self, i: int, j: int, prec: int) -> arb:
        with working_precision(prec + 8):
            return to_ball(self.factor, prec + 8) * self.scores.values.matrix("scores", prec)[i, j]

    def row_balls(self, i: int, columns: Sequence[int], prec: int) -> list[arb]:
        """Balls of entries (i, j) for j in ``columns``."""
        matrix = self.scores.values.matrix("scores", prec)
        with working_precision(prec + 8):
            factor = to_ball(self.factor, prec + 8)
            return [factor * matrix[i, j] for j in columns]

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        return [self.row_balls(i, columns, prec) for i in rows]

    def is_zero(self, i: int, j: int) -> bool:
        """Whether the entry is exactly 0 (a ball first, the exact form if it must)."""
        if not self.ball_of(i, j, _ROUGH).contains(0):
            return False
        return self.scores.rational(i, j) == 0

    def same(self, i: int, j: int, k: int) -> bool:
        """Whether entries (i, j) and (i, k) are exactly equal."""
        if j == k:
            return True
        if not self.ball_of(i, j, _ROUGH).overlaps(self.ball_of(i, k, _ROUGH)):
            return False
        return self.trig(i, j) == self.trig(i, k)


class MaskedTrigGrid(Grid):
    """Scaled scores plus the mask: masked entries exactly -oo."""

    fast_kinds = True

    def __init__(self, scaled: ScaledTrigGrid, allowed: Sequence[Sequence[bool]]) -> None:
        self.scaled = scaled
        self.allowed = allowed
        self.shape = scaled.shape
        self.open = [[j for j in range(self.shape[1]) if row[j]] for row in allowed]

    def exact(self, i: int, j: int) -> Exact:
        return self.scaled.exact(i, j) if self.allowed[i][j] else NEG_INF

    def terms(self, i: int, j: int) -> int:
        return self.scaled.terms(i, j) if self.allowed[i][j] else 1

    def row_terms(self, i: int) -> int:
        """A bound on the exponentials, sines and cosines of a sum over row i."""
        return _row_terms(self, i)

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        block = self.scaled.balls(prec, rows, columns)
        return [[ball if self.allowed[i][j] else None for j, ball in zip(columns, row)]
                for i, row in zip(rows, block)]


def _exp_text(masked: MaskedTrigGrid, i: int, j: int) -> str:
    value = masked.exact(i, j)
    return "1" if value == 0 else f"exp({exact_text(value)})"


def _row_terms(masked: MaskedTrigGrid, i: int) -> int:
    """Exponentials and their sines and cosines in a sum over row i (a bound)."""
    values = masked.scaled.scores.values
    return sum(1 + values.bound("scores", i, c) for c in masked.open[i])


class ExpTrigGrid(Grid):
    """e to each masked score (not shifted)."""

    def __init__(self, masked: MaskedTrigGrid) -> None:
        self.masked = masked
        self.shape = masked.shape

    def terms(self, i: int, j: int) -> int:
        return 1 + self.masked.terms(i, j) if self.masked.allowed[i][j] else 1

    def exact(self, i: int, j: int) -> Exact:
        if not self.masked.allowed[i][j]:
            return fmpq(0)
        scaled = self.masked.scaled
        if scaled.is_zero(i, j):
            return fmpq(1)
        def evaluate(prec: int) -> arb:
            with working_precision(prec + 8):
                return scaled.ball_of(i, j, prec + 8).exp()

        return Irrational(lambda: _exp_text(self.masked, i, j), evaluate)


class ExpSumTrigGrid(Grid):
    """Row sums of the exponentials."""

    def __init__(self, exp: ExpTrigGrid) -> None:
        self.exp_grid = exp
        self.shape = (exp.shape[0], 1)

    def terms(self, i: int, j: int = 0) -> int:
        return _row_terms(self.exp_grid.masked, i)

    def exact(self, i: int, j: int = 0) -> Exact:
        masked = self.exp_grid.masked
        columns = masked.open[i]
        if all(masked.scaled.is_zero(i, c) for c in columns):
            return fmpq(len(columns))

        def evaluate(prec: int) -> arb:
            balls = masked.scaled.row_balls(i, columns, prec + 8)
            with working_precision(prec + 8):
                return sum((ball.exp() for ball in balls), arb(0))

        return Irrational(lambda: " + ".join(_exp_text(masked, i, c) for c in columns),
                          evaluate)


class WeightsTrigGrid(Grid):
    """Softmax (or division by the row sum) of the masked scores."""

    def __init__(self, masked: MaskedTrigGrid, normalisation: str, fully_masked: str) -> None:
        self.masked = masked
        self.normalisation = normalisation
        self.fully_masked = fully_masked
        self.shape = masked.shape
        self._rational: dict[int, bool] = {}
        self._rows: dict[tuple[int, int], list[arb]] = {}
        for i in range(self.shape[0]):
            if not masked.open[i] and fully_masked == "error":
                raise grids.fully_masked_row(i)
            if masked.open[i] and normalisation == "sum":
                self._check_sum(i)

    def row_is_rational(self, i: int) -> bool:
        """Softmax: every open score equal exactly. Sum: every open score rational."""
        found = self._rational.get(i)
        if found is None:
            columns, scaled = self.masked.open[i], self.masked.scaled
            if self.normalisation == "sum":
                found = all(scaled.scores.rational(i, c) is not None for c in columns)
            else:
                found = all(scaled.same(i, columns[0], c) for c in columns[1:])
            self._rational[i] = found
        return found

    def terms(self, i: int, j: int) -> int:
        if not self.masked.allowed[i][j] or self.row_is_rational(i):
            return 1
        return 1 + self.masked.terms(i, j) + _row_terms(self.masked, i)

    def exact(self, i: int, j: int) -> Exact:
        columns = self.masked.open[i]
        if not columns:
            return NAN if self.fully_masked == "nan" else fmpq(0)
        if not self.masked.allowed[i][j]:
            return fmpq(0)
        if self.row_is_rational(i):
            if self.normalisation != "sum":
                return fmpq(1, len(columns))
            values = [self.masked.scaled.exact(i, c) for c in columns]
            return arith.divide(values[columns.index(j)], arith.total(values))
        return Irrational(lambda: self._text(i, j), lambda prec: self.row(i, prec)[j])

    def _text(self, i: int, j: int) -> str:
        columns = self.masked.open[i]
        if self.normalisation == "sum":
            terms = " + ".join(f"({exact_text(self.masked.exact(i, c))})" for c in columns)
            return f"({exact_text(self.masked.exact(i, j))})/({terms})"
        terms = " + ".join(_exp_text(self.masked, i, c) for c in columns)
        return f"{_exp_text(self.masked, i, j)}/({terms})"

    def row(self, i: int, prec: int) -> list[arb]:
        """Certified weights of row i (shifted by a midpoint near the row maximum)."""
        key = (i, prec)
        found = self._rows.get(key)
        if found is None:
            found = self._rows[key] = self._row(i, prec)
        return found

    def _row(self, i: int, prec: int) -> list[arb]:
        columns = self.masked.open[i]
        zero = arb(0)
        result = [zero] * self.shape[1]
        if not columns:
            return [arb("nan") if self.fully_masked == "nan" else zero] * self.shape[1]
        work = prec + 16
        scores = self.masked.scaled.row_balls(i, columns, work)
        with working_precision(work):
            if self.normalisation == "sum":
                total = sum(scores, zero)
                parts = [s / total for s in scores]
            else:
                top = arb(max(s.mid() for s in scores))       # any shift gives the same weights
                exps = [(s - top).exp() for s in scores]
                inverse = 1 / sum(exps, zero)
                parts = [e * inverse for e in exps]
        for c, part in zip(columns, parts):
            result[c] = part
        return result

    def _check_sum(self, i: int) -> None:
        """Refuse a row whose scores sum to exactly 0 (normalisation = sum)."""
        columns, scaled = self.masked.open[i], self.masked.scaled
        with working_precision(_ROUGH):
            total = sum((scaled.ball_of(i, c, _ROUGH) for c in columns), arb(0))
        if not total.contains(0):
            return
        exact = TrigSum(scaled.scores.values.basis)
        for c in self.masked.open[i]:
            exact.add_scaled(self.masked.scaled.trig(i, c), fmpq(1))
        if exact.is_rational and exact.constant == 0:
            raise grids.zero_row_sum(i)

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        result: list[list[arb | None]] = []
        for i in rows:
            if not self.masked.open[i] and self.fully_masked == "nan":
                result.append([None] * len(columns))
                continue
            row = self.row(i, prec)
            result.append([row[j] for j in columns])
        return result


class OutputTrigGrid(Grid):
    """``weights @ V``, V rational (RoPE, given V) or sums of sines and cosines."""

    def __init__(self, weights: WeightsTrigGrid, values: TrigGrid) -> None:
        self.weights = weights
        self.values = values
        self.shape = (weights.shape[0], values.shape[1])

    def terms(self, i: int, k: int) -> int:
        return 1 if self.weights.row_is_rational(i) else 2 * _row_terms(self.weights.masked, i)

    def exact(self, i: int, k: int) -> Exact:
        weights = self.weights
        columns = weights.masked.open[i]
        if not columns:
            return NAN if weights.fully_masked == "nan" else fmpq(0)
        if weights.row_is_rational(i):
            total = TrigSum(self.values.values.basis)
            for c in columns:
                total.add_scaled(self.values.trig(c, k), _as_fmpq(weights.exact(i, c)))
            return self._value(total, i, k)
        if self._shared(columns, k):   # the weights add up to 1
            return self.values.exact(columns[0], k)
        return Irrational(lambda: self._text(i, k), lambda prec: self._ball(i, k, prec))

    def _value(self, total: TrigSum, i: int, k: int) -> Exact:
        if total.is_rational:
            return total.constant
        return TrigValue(total.text, lambda prec: self._ball(i, k, prec), lambda: total)

    def _shared(self, columns: Sequence[int], k: int) -> bool:
        """Whether every open key's value in column k is exactly the same."""
        first = self.values.balls(_ROUGH, [columns[0]], [k])[0][0]
        for c in columns[1:]:
            ball = self.values.balls(_ROUGH, [c], [k])[0][0]
            if ball is None or first is None or not ball.overlaps(first):
                return False
        value = self.values.trig(columns[0], k)
        return all(self.values.trig(c, k) == value for c in columns[1:])

    def _text(self, i: int, k: int) -> str:
        masked = self.weights.masked
        columns = masked.open[i]
        if self.weights.normalisation == "sum":
            return " + ".join(f"({self.weights.text(i, c)})*({self.values.text(c, k)})"
                              for c in columns)
        numerator = " + ".join(f"{arith.parenthesised(self.values.exact(c, k))}*"
                               f"{_exp_text(masked, i, c)}" for c in columns
                               if self.values.exact(c, k) != 0)
        denominator = " + ".join(_exp_text(masked, i, c) for c in columns)
        return f"({numerator or 0})/({denominator})"

    def _ball(self, i: int, k: int, prec: int) -> arb:
        row = self.weights.row(i, prec + 8)
        column = self.values.values.matrix(self.values.step, prec + 8)
        with working_precision(prec + 8):
            return sum((row[c] * column[c, k] for c in self.weights.masked.open[i]), arb(0))

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        """weights @ V for the chosen rows as one ball-matrix product."""
        weights = self.weights
        if any(not weights.masked.open[i] for i in rows):
            return [[self.ball(i, k, prec) if weights.masked.open[i] or
                     weights.fully_masked != "nan" else None for k in columns] for i in rows]
        values = self.values.values.matrix(self.values.step, prec + 8)
        m = values.nrows()
        with working_precision(prec + 8):
            block = arb_mat(len(rows), m, [ball for i in rows for ball in weights.row(i, prec + 8)])
            product = block * values
        return [[product[r, k] for k in columns] for r in range(len(rows))]


def _as_fmpq(value: Exact) -> fmpq:
    if not isinstance(value, fmpq):
        raise TypeError(f"expected a rational weight, got {value!r}")
    return value
