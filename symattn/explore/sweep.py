"""A temperature sweep: the entropy of every row of weights at several temperatures.

``sweep(problem, temperatures)`` derives the problem once per temperature and
collects the entropy of every row of weights (the ``entropy`` diagnostic), its
mean and the largest weight. Everything is exact; the command line
(``cli.explore``) only formats.

>>> import symattn
>>> rows = sweep(symattn.load_example("003-entropy-temperature"),
...              parse_temperatures("0.3,2"))[0].rows
>>> [row.temperature.text for row in rows]
['0.3', '2']
>>> from symattn.values.number_format import NumberFormat
>>> [NumberFormat(digits=3).format(row.mean_entropy) for row in rows]
['0.355', '2.47']
"""

from __future__ import annotations

__all__ = ["parse_temperatures", "SweepRow", "Sweep", "sweep"]

import dataclasses
import math
from dataclasses import dataclass
from typing import Sequence

from flint import fmpq

from symattn.derivation.diagnostics import check_numeric_weights, weights_prefixes
from symattn.derivation.grids import Grid
from symattn.derivation.pipeline import derive
from symattn.errors import InputError
from symattn.explore.shared import attention_only, largest_weight, mean_entropy, shown
from symattn.problem.limits import DEFAULT, Limits, check_sweep
from symattn.problem.symbols import SymbolQuestions
from symattn.problem.problem import Problem
from symattn.values.entries import Entry, parse_entry
from symattn.values.exact import Exact, Surd


def parse_temperatures(text: str) -> list[Entry]:
    """Temperatures as written: ``0.3,1,2`` (or ``0,3;1;2`` with decimal commas).

    Each goes through symattn's entry grammar (never ``float``): fractions and
    roots are fine, and each must be positive.

    >>> [t.value for t in parse_temperatures("0.3, 1/2, sqrt(2)")]
    [3/10, 1/2, Surd(coefficient=1, radicand=2)]
    >>> parse_temperatures("1,-2")
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: --temperatures: '-2' is not a positive number (T must be > 0)
    """
    separator = ";" if ";" in text else ","
    parts = [part.strip() for part in text.split(separator)]
    if not text.strip() or not all(parts):
        raise InputError(f"--temperatures: write positive numbers separated by commas, e.g. "
                         f"0.3,1,2 (got {text!r})")
    result = []
    for part in parts:
        try:
            entry = parse_entry(part)
        except InputError as error:
            raise InputError(f"--temperatures: {error.message}") from None
        value = entry.value
        if not (isinstance(value, fmpq) and value > 0
                or isinstance(value, Surd) and value.coefficient > 0):
            raise InputError(f"--temperatures: {part!r} is not a positive number (T must be > 0)")
        result.append(entry)
    return result


@dataclass(frozen=True)
class SweepRow:
    """One temperature: the entropy of each query row, their mean and the largest weight."""

    temperature: Entry
    entropy: tuple[Exact, ...]          # one per query row, in bits
    mean_entropy: Exact
    largest: tuple[Exact, int, int] | None
    # every weight, row by row: kept only when asked (``sweep(..., keep_weights=True)``)
    weights: tuple[tuple[Exact, ...], ...] = ()


@dataclass(frozen=True)
class Sweep:
    """One head's entropies at every temperature (head is "" for one head)."""

    head: str
    entropy_max: tuple[Exact, ...]
    rows: tuple[SweepRow, ...]
    notes: tuple[str, ...]


def _sweep_base(problem: Problem) -> tuple[Problem, list[str]]:
    # the sweep reports entropies: the spec's [symbols] questions about T do not apply
    base = dataclasses.replace(attention_only(problem), symbols=SymbolQuestions())
    notes = []
    if "scaled" in base.inputs:
        # A temperature does not apply to scores given already scaled; read them
        # as scores with scale 1 so that T divides them.
        inputs = {("scores" if k == "scaled" else k): v for k, v in base.inputs.items()}
        base = dataclasses.replace(base, inputs=inputs, scale=fmpq(1))
        notes.append("the spec gives the scaled scores (inputs.scaled): each T divides them")
    if base.temperature != 1:
        notes.append(f"the spec's own T = {shown(base.temperature)} is replaced by each T")
    return base, notes


def _weights(grid: Grid) -> tuple[tuple[Exact, ...], ...]:
    return tuple(tuple(grid.exact(i, j) for j in range(grid.shape[1])) for i in grid.rows())


def sweep(problem: Problem, temperatures: Sequence[Entry],
          limits: Limits = DEFAULT, keep_weights: bool = False) -> list[Sweep]:
    """Entropies of the weights at each temperature, per head. Each temperature's
    derivation is dropped once its entropies are read (memory stays one derivation,
    and the exact weights when ``keep_weights``, which the calculator page shows);
    temperatures times weights beyond ``limits`` are refused after the first."""
    base, notes = _sweep_base(problem)
    allowed = base.allowed()
    prefixes: list[str] = []
    maxima: dict[str, tuple[Exact, ...]] = {}
    rows: dict[str, list[SweepRow]] = {}
    for t in temperatures:
        derivation = derive(dataclasses.replace(base, temperature=t.value,
                                                diagnostics=("entropy",)))
        if not prefixes:
            prefixes = weights_prefixes(derivation.steps)
            for prefix in prefixes:
                check_numeric_weights(derivation[prefix + "weights"].value, "sweep")
            weights = sum(math.prod(derivation[prefix + "weights"].value.shape)
                          for prefix in prefixes)
            check_sweep(len(temperatures), weights, limits)
            for prefix in prefixes:
                maximum = derivation[prefix + "entropy_max"].value
                maxima[prefix] = tuple(maximum.exact(i, 0) for i in maximum.rows())
                rows[prefix] = []
        for prefix in prefixes:
            entropy = derivation[prefix + "entropy"].value
            values = tuple(entropy.exact(i, 0) for i in entropy.rows())
            grid = derivation[prefix + "weights"].value
            rows[prefix].append(SweepRow(t, values, mean_entropy(values, allowed),
                                         largest_weight(grid, allowed),
                                         _weights(grid) if keep_weights else ()))
    return [Sweep(prefix.rstrip("."), maxima[prefix], tuple(rows[prefix]), tuple(notes))
            for prefix in prefixes]
