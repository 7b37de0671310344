"""What the experiments share: the attention part of a problem, the largest
weight of a grid, the mean entropy, and exact options shown as written.

>>> shown(fmpq(3, 10)), shown(fmpq(1, 3)), shown(fmpq(2))
('0.3', '1/3', '2')
"""

from __future__ import annotations

__all__ = ["attention_only", "largest_weight", "mean_entropy", "pick", "shown", "PICK_BITS"]

import dataclasses
from typing import Sequence

from flint import arb, fmpq

from symattn.derivation.grids import Grid
from symattn.problem.problem import Problem
from symattn.values import probabilities
from symattn.values.decimals import fixed_decimal
from symattn.values.entries import Symbolic
from symattn.values.exact import NAN, Exact, exact_text, terminating_places

PICK_BITS = 128        # precision of the balls that pick the largest weight

# A terminating rational is shown as its decimal up to this many places (0.3, not 3/10).
_SHOWN_PLACES = 12


def attention_only(problem: Problem) -> Problem:
    """The attention part only: no claims, no layer after it, no diagnostics, no comparisons."""
    return dataclasses.replace(problem, claims={}, ffn=None, readout=None, diagnostics=(),
                               compare=())


def shown(value: Exact | Symbolic) -> str:
    """A rational as a terminating decimal when it is one (3/10 -> 0.3), else exact text."""
    if isinstance(value, fmpq):
        places = terminating_places(value)
        if places is not None and places <= _SHOWN_PLACES:
            return fixed_decimal(value, places)
    return value.text if isinstance(value, Symbolic) else exact_text(value)


def _midpoint(ball: arb) -> tuple[int, int, int]:
    """A key that orders balls by midpoint: sign, binary exponent, mantissa.

    Not the midpoint as a rational: e^-(10^10) would need a 10^10-bit denominator.
    """
    mantissa, exponent = (int(x) for x in ball.mid().man_exp())
    if mantissa == 0:
        return (0, 0, 0)
    size = abs(mantissa).bit_length()
    top = abs(mantissa) << max(PICK_BITS - size, 0) >> max(size - PICK_BITS, 0)
    sign = 1 if mantissa > 0 else -1
    return (sign, sign * (exponent + size), sign * top)


def pick(balls: Sequence[arb | None]) -> tuple[int, int] | None:
    """Indices of the smallest and the largest finite ball (by midpoint)."""
    mids = [(_midpoint(b), k) for k, b in enumerate(balls) if b is not None and b.is_finite()]
    if not mids:
        return None
    return min(mids)[1], max(mids, key=lambda pair: (pair[0], -pair[1]))[1]


def largest_weight(grid: Grid, allowed: Sequence[Sequence[bool]]
                   ) -> tuple[Exact, int, int] | None:
    """The largest weight and its 0-based (row, column).

    Rows with a single unmasked key are left out when others exist: their
    weight is 1 at any temperature. The entry is picked with 128-bit balls
    (entries closer than that print alike); its value is exact.
    """
    rows = [i for i in grid.rows() if sum(allowed[i]) >= 2] or list(grid.rows())
    m = grid.shape[1]
    block = grid.balls(PICK_BITS, rows, range(m))
    flat = [ball if allowed[i][j] else None for i, row in zip(rows, block)
            for j, ball in enumerate(row)]
    picked = pick(flat)
    if picked is None:
        return None
    i, j = rows[picked[1] // m], picked[1] % m
    return grid.exact(i, j), i, j


def mean_entropy(entropies: Sequence[Exact],
                 allowed: Sequence[Sequence[bool]] | None = None) -> Exact:
    """The mean over the rows that have keys (a fully masked row is left out)."""
    values = [h for i, h in enumerate(entropies)
              if h is not NAN and (allowed is None or any(allowed[i]))]
    return probabilities.mean(values) if values else NAN
