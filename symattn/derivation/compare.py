"""The side-by-side comparisons the seeds draw (``[[compare]]`` in a spec).

Each block derives the problem twice, as given and changed, the way the
experiments do (``symattn whatif`` takes the scaling away with scale 1,
``symattn sweep`` replaces the temperature, reading scores given already
scaled as scores with scale 1 so that T divides them), and keeps, for one
query row, the scores fed to softmax, the weights and the entropy of each
side::

    times        the scores multiplied by a factor (seed 001: ten times larger)
    temperature  the spec's T beside another T (seed 003: T = 1 and T = 0.5)
    scaling      with and without 1/sqrt(d_k) (seeds 001 and 003)

>>> from symattn.problem.problem import Problem
>>> from symattn.derivation.pipeline import derive
>>> problem = Problem.from_mapping({"inputs": {"scaled": [["0.485", "0.445", "0.730"]]},
...                                 "compare": {"kind": "times", "factor": 10}})
>>> block = derive(problem).comparisons[0]
>>> [side.scores[2] for side in block.sides]
[73/100, 73/10]
"""

from __future__ import annotations

__all__ = ["SIDE_KINDS", "build"]

import dataclasses
from typing import Callable

from flint import fmpq

from symattn.derivation.steps import Compared, Derivation, Side
from symattn.errors import InputError, Location
from symattn.problem.comparisons import Comparison
from symattn.problem.problem import Problem
from symattn.values import arith, probabilities
from symattn.values.exact import Exact, Surd

# What each side shows in its heading: "given" (the spec as it is), "times",
# "temperature", "unscaled" (scale 1), "scaled" (1/sqrt(d_k)).
SIDE_KINDS = ("given", "times", "temperature", "unscaled", "scaled")


def _row_index(problem: Problem, comparison: Comparison, where: Location) -> int:
    n = problem.score_shape()[0]
    if comparison.row is None:
        return n - 1
    labels = list(problem.query_positions or range(1, n + 1))
    if comparison.row not in labels:
        raise InputError(f"compare: there is no query row {comparison.row} (rows: "
                         f"{', '.join(str(label) for label in labels)})", where.at(key="row"))
    return labels.index(comparison.row)


def _plain(problem: Problem) -> Problem:
    """The attention part only (no claims, layer, diagnostics or comparisons)."""
    return dataclasses.replace(problem, claims={}, ffn=None, readout=None, diagnostics=(),
                               compare=(), max_shift=False)


def _as_scores(problem: Problem) -> Problem:
    """Scores given already scaled, read as scores with scale 1 (a temperature divides them)."""
    if "scaled" not in problem.inputs:
        return problem
    inputs = {("scores" if k == "scaled" else k): v for k, v in problem.inputs.items()}
    return dataclasses.replace(problem, inputs=inputs, scale=fmpq(1))


def _changed(problem: Problem, comparison: Comparison, where: Location
             ) -> tuple[Problem, str, Exact | None]:
    """The changed problem, and the kind and number of the changed side."""
    base = _as_scores(problem)
    t = problem.temperature if "scaled" not in problem.inputs else fmpq(1)
    if not isinstance(t, (fmpq, Surd)):
        raise InputError("compare needs a numeric temperature", where)
    if comparison.kind == "times":
        assert comparison.factor is not None
        return (dataclasses.replace(base, temperature=arith.divide(t, comparison.factor)),
                "times", comparison.factor)
    if comparison.kind == "temperature":
        assert comparison.temperature is not None
        return (dataclasses.replace(base, temperature=comparison.temperature), "temperature",
                comparison.temperature)
    unit = isinstance(problem.scale, fmpq) and problem.scale == 1
    if "scaled" in problem.inputs:    # raw scores (scale "none") with d_k can be scaled
        if not unit or problem.d_k is None:
            raise InputError("compare kind \"scaling\" needs Q and K, or raw scores with "
                             "scale \"none\" and d_k: the spec gives the scaled scores",
                             where.at(key="kind"))
        return dataclasses.replace(base, scale=None), "scaled", None
    if unit:
        if problem.d_k_value is None:
            raise InputError("compare kind \"scaling\": set options.d_k to scale by "
                             "1/sqrt(d_k)", where.at(key="kind"))
        return dataclasses.replace(problem, scale=None), "scaled", None
    return dataclasses.replace(problem, scale=fmpq(1)), "unscaled", None


def _extreme(values: tuple[Exact, ...], keys: list[int], direction: int) -> int:
    """The key (of ``keys``) whose value is largest (direction 1) or smallest (-1);
    the first of equal ones. Given the scores: softmax keeps their order, and they
    are compared exactly (equal weights may be equal irrationals, which no ball
    separates)."""
    best = keys[0]
    for key in keys[1:]:
        if arith.sign(arith.subtract(values[key], values[best])) == direction:
            best = key
    return best


def _side(derivation: Derivation, kind: str, number: Exact | None, row: int,
          allowed: list[bool]) -> Side:
    source = derivation["masked" if "masked" in derivation else "scaled"].value
    weights = derivation["weights"].value
    values = tuple(weights.exact(row, j) for j in weights.columns())
    scores = tuple(source.exact(row, j) for j in source.columns())
    keys = [j for j, keep in enumerate(allowed) if keep] or [0]
    return Side(kind, number, scores, values, probabilities.entropy_bits(values),
                _extreme(scores, keys, 1), _extreme(scores, keys, -1))


def _block(problem: Problem, comparison: Comparison, derive: Callable[[Problem], Derivation],
           where: Location) -> Compared:
    if problem.heads > 1 or "W_O" in problem.inputs or problem.is_symbolic:
        raise InputError("compare blocks need one head and numeric inputs", where)
    row = _row_index(problem, comparison, where)
    plain = _plain(problem)
    changed, kind, number = _changed(plain, comparison, where)
    given_number: Exact | None = None
    if comparison.kind == "temperature":      # given scaled scores: no T divides them
        t = problem.temperature
        given_number = t if "scaled" not in problem.inputs and isinstance(t, (fmpq, Surd)) \
            else fmpq(1)
    open_keys = problem.allowed()[row]
    left = _side(derive(plain), "given", given_number, row, open_keys)
    right = _side(derive(changed), kind, number, row, open_keys)
    allowed = sum(open_keys)
    return Compared(comparison.kind, row, (left, right),
                    probabilities.log2(fmpq(allowed)) if allowed > 1 else fmpq(0))


def build(problem: Problem, derive: Callable[[Problem], Derivation]
          ) -> tuple[Compared, ...]:
    """The spec's comparison blocks; ``derive`` derives a problem (the pipeline's own)."""
    blocks = problem.compare
    return tuple(_block(problem, comparison, derive, Location(
        file=problem.source, key=f"compare[{k}]" if len(blocks) > 1 else "compare"))
                 for k, comparison in enumerate(blocks, start=1))
