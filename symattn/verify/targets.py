"""What a claim is about, in the derivation: its exact value and its position text.

The exact value of an entry is the derivation's own; of a printed term, the
product of the exact factors (``derivation.terms``); of a row sum, the sum of
the row (exactly 1 for an open row of weights); of the divisor, 1/scale.

>>> import symattn
>>> from symattn.verify.claims import Target
>>> derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
>>> exact_value(derivation, Target("scores", 1, 1, "term", 1)), exact_value(derivation,
...     Target("weights", 2, 0, "sum"))
(1, 1)
>>> position(derivation.problem, Target("output", 2, 1))
'output[3,2]'
"""

from __future__ import annotations

__all__ = ["exact_value", "has_divisor", "row_label", "position"]

from functools import reduce
from typing import Callable

from flint import fmpq

from symattn.derivation.attention import scale_divisor
from symattn.derivation.names import split_name
from symattn.derivation.steps import Derivation
from symattn.derivation.terms import claim_term
from symattn.problem.problem import Problem
from symattn.values import arith
from symattn.values.exact import NAN, Exact, Surd
from symattn.verify.claims import QUERY_ROW_STEPS, Target


def exact_value(derivation: Derivation, target: Target) -> Exact:
    """The exact value of what a claim is about."""
    return _EXACT_OF_PART[target.part](derivation, target)


def _divisor(derivation: Derivation, target: Target) -> Exact:
    return scale_divisor(derivation.problem)


def _entry(derivation: Derivation, target: Target) -> Exact:
    return derivation[target.step].value.exact(target.row, target.column)


def _row_sum(derivation: Derivation, target: Target) -> Exact:
    grid, i = derivation[target.step].value, target.row
    if split_name(target.step)[1] == "weights":
        if grid.exact(i, 0) is NAN:
            return NAN
        open_row = any(grid.exact(i, c) != 0 for c in grid.columns())
        return fmpq(1) if open_row else fmpq(0)
    return arith.total(grid.exact(i, c) for c in grid.columns())


def _term(derivation: Derivation, target: Target) -> Exact:
    factors = claim_term(target.step, target.row, target.column, target.term,
                         derivation[target.step].operands)
    return reduce(arith.multiply, (derivation[f.step].value.exact(f.row, f.column)
                                   for f in factors))


_EXACT_OF_PART: dict[str, Callable[[Derivation, Target], Exact]] = {
    "divisor": _divisor, "entry": _entry, "sum": _row_sum, "term": _term,
}


def has_divisor(derivation: Derivation) -> bool:
    """Whether the scores are divided by a number a document can print (sqrt(d_k))."""
    problem = derivation.problem
    if "scaled" not in derivation or not derivation["scaled"].operands:
        return "head1.scaled" in derivation and problem.d_k_value is not None
    return isinstance(problem.scale_value, (fmpq, Surd)) and \
        isinstance(problem.temperature, (fmpq, Surd))


def row_label(problem: Problem, target: Target) -> int:
    """The 1-based row number a document uses: the query position for query rows."""
    positions = problem.query_positions
    if positions is not None and split_name(target.step)[1] in QUERY_ROW_STEPS:
        return positions[target.row]
    return target.row + 1


def position(problem: Problem, target: Target) -> str:
    """The 1-based position text of a target for reports, e.g. ``weights[3,1]``."""
    return target.describe(row_label(problem, target))
