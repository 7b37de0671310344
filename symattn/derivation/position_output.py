"""The output of attention with positions on the fast path: ``weights @ V``.

An output entry is rational when its row of weights is (then the mean of the
open values, exactly), or equal to a value every open key shares (the weights
add up to 1); otherwise a closed form with certified balls.
"""

from __future__ import annotations

__all__ = ["OutputTrigGrid"]

from typing import Sequence

from flint import arb, arb_mat, fmpq

from symattn.derivation.grids import Grid
from symattn.derivation.position_grids import ROUGH, TrigGrid, WeightsTrigGrid, exp_text, row_terms
from symattn.values import arith
from symattn.values.exact import NAN, Exact, Irrational, working_precision
from symattn.values.trig import TrigSum, TrigValue


class OutputTrigGrid(Grid):
    """``weights @ V``, V rational (RoPE, given V) or sums of sines and cosines."""

    def __init__(self, weights: WeightsTrigGrid, values: TrigGrid) -> None:
        self.weights = weights
        self.values = values
        self.shape = (weights.shape[0], values.shape[1])

    def terms(self, i: int, k: int) -> int:
        return 1 if self.weights.row_is_rational(i) else 2 * row_terms(self.weights.masked, i)

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
        first = self.values.balls(ROUGH, [columns[0]], [k])[0][0]
        for c in columns[1:]:
            ball = self.values.balls(ROUGH, [c], [k])[0][0]
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
                               f"{exp_text(masked, i, c)}" for c in columns
                               if self.values.exact(c, k) != 0)
        denominator = " + ".join(exp_text(masked, i, c) for c in columns)
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
