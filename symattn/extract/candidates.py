"""Every quantity of a derivation a document could print, with its value, searchable.

A ``Candidate`` is a ``verify`` claim target (a step entry, a written-out
term, a row sum of the weights, the divisor) with its exact value as a float
for finding and the step's place in the derivation for ordering. Finding
which candidates a printed number can be is a bisection in the sorted values:
the number rounds the candidate (``exact``) or is within two units in its last
place of it (``near``: what an earlier rounded number carried forward gives).

>>> import symattn
>>> derivation = symattn.derive(symattn.load_example("001-kocka-spi-venku"))
>>> index = Candidates(derivation)
>>> [(index.label(c.target), c.target.part) for c in index.matching(Fraction("1.561"), 3,
...                                                                near=True)]
[('exp[3,2]', 'entry'), ('exp_sum[3]', 'term')]
"""

from __future__ import annotations

__all__ = ["Candidate", "Candidates", "MAX_CANDIDATES", "exact_tolerance"]

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Iterator

from symattn.derivation.names import split_name
from symattn.derivation.steps import Derivation
from symattn.derivation.terms import PRINTABLE_TERMS, term_count
from symattn.values.exact import NAN, NEG_INF, Exact, to_ball
from symattn.verify.claims import COLUMN_STEPS, Target
from symattn.verify.targets import exact_value, has_divisor, row_label

MAX_CANDIDATES = 200_000     # quantities indexed from one derivation
_BITS = 80


@dataclass(frozen=True)
class Candidate:
    """One quantity a printed number can be."""

    target: Target
    value: float             # -inf for a masked entry
    order: int               # the step's place in the derivation (the divisor after scores)


def exact_tolerance(places: int) -> float:
    """Half a unit in the last place, with room for float noise."""
    return 0.5 * 10.0 ** -places * (1 + 1e-9) + 1e-15


def _float(value: Exact) -> float | None:
    if value is NEG_INF:
        return -math.inf
    if value is NAN or value is None:
        return None
    try:
        ball = to_ball(value, _BITS)
        return float(ball.mid()) if ball is not None else None
    except (ValueError, TypeError, ArithmeticError, OverflowError):
        return None


_MADE_FROM_BEFORE = frozenset({"scaled", "masked"})


class Candidates:
    """The quantities of one derivation, sorted by value."""

    def __init__(self, derivation: Derivation) -> None:
        self.derivation = derivation
        self.problem = derivation.problem
        self.shapes = {step.name: step.value.shape for step in derivation.steps}
        self.order = {step.name: i for i, step in enumerate(derivation.steps)}
        found: list[Candidate] = []
        for target, order in self._targets():
            if len(found) >= MAX_CANDIDATES:
                break
            value = _float(exact_value(derivation, target))
            if value is not None and not math.isnan(value):
                found.append(Candidate(target, value, order))
        self.all = found
        finite = sorted((c for c in found if math.isfinite(c.value)), key=lambda c: c.value)
        self._finite = finite
        self._keys = [c.value for c in finite]
        self.negative_infinity = [c for c in found if c.value == -math.inf]
        self.by_target = {c.target: c for c in found}
        self.grid: dict[str, list[list[float | None]]] = {
            name: [[None] * columns for _ in range(rows)]
            for name, (rows, columns) in self.shapes.items()}
        for c in found:
            if c.target.part == "entry":
                self.grid[c.target.step][c.target.row][c.target.column] = c.value
        # steps made from the one before that change nothing (the scaled scores with
        # scale 1, the masked scores with no mask): a printed number is the first one's
        steps = [step.name for step in derivation.steps]
        self.repeats = frozenset(
            later for earlier, later in zip(steps, steps[1:])
            if split_name(later)[1] in _MADE_FROM_BEFORE and
            self.shapes[earlier] == self.shapes[later] and
            self.grid[earlier] == self.grid[later] and
            all(v is not None for row in self.grid[later] for v in row))

    def _targets(self) -> Iterator[tuple[Target, int]]:
        for order, step in enumerate(self.derivation.steps):
            rows, columns = step.value.shape
            base = split_name(step.name)[1]
            for i in range(rows):
                for j in range(columns):
                    yield Target(step.name, i, j), order
                    if base in PRINTABLE_TERMS:
                        for t in range(term_count(step.name, self.shapes)):
                            yield Target(step.name, i, j, "term", t), order
                if base == "weights":
                    yield Target(step.name, i, 0, "sum"), order
            if base == "scores" and has_divisor(self.derivation):
                yield Target("divisor", part="divisor"), order

    def matching(self, magnitude: Fraction | None, places: int, near: bool = False
                 ) -> list[Candidate]:
        """Candidates a printed number can be: rounded to it, or (``near``) close to it."""
        if magnitude is None:
            return list(self.negative_infinity)
        tolerance = exact_tolerance(places) * (3 if near else 1)
        low = float(magnitude) - tolerance
        high = float(magnitude) + tolerance
        start = bisect.bisect_left(self._keys, low)
        end = bisect.bisect_right(self._keys, high)
        return self._finite[start:end]

    def sorted_values(self) -> tuple[list[float], list[Candidate]]:
        """The finite candidates sorted by value, and their values (for a bisection)."""
        return self._keys, self._finite

    def label(self, target: Target) -> str:
        """The claim key of one target, 1-based (query positions for query rows)."""
        if target.part == "divisor":
            return "divisor"
        row = row_label(self.problem, target)
        if target.part == "sum":
            return f"{target.step}[{row}].sum"
        if split_name(target.step)[1] in COLUMN_STEPS:
            return f"{target.step}[{row}]"
        return f"{target.step}[{row},{target.column + 1}]"

    def row_key(self, step: str, row: int) -> str:
        """The claim key of one row of a step, 1-based."""
        return f"{step}[{row_label(self.problem, Target(step, row, 0))}]"
