"""The attention core on the fast rational path: Q, K, V, scores ... output.

Rational inputs take exact ``fmpq`` matrices and the grids of ``derivation.grids``
and ``derivation.softmax_grids``; nothing here formats numbers.
"""

from __future__ import annotations

__all__ = ['scaled_formula', 'is_unscaled', 'scale_factor', 'scale_divisor', 'source_of',
           'SOURCE_SYMBOLS',
           'input_step', 'rational_matrix', 'attention_core', 'rational_steps']

import dataclasses
from typing import Container, Iterator, cast

from flint import fmpq, fmpq_mat

from symattn.derivation import grids, softmax_grids
from symattn.derivation.grids import Grid
from symattn.derivation.steps import Step, make_step
from symattn.errors import InputError
from symattn.problem.modes import Normalisation
from symattn.problem.problem import EntryMatrix, Problem
from symattn.problem.shapes import projection_source
from symattn.values.exact import NEG_INF, RationalOrSurd, Surd, reciprocal


def scaled_formula(problem: Problem) -> str:
    """LaTeX for the scaled step that says what was actually done."""
    numerator = "S"
    if problem.scale is None:
        body = f"\\frac{{{numerator}}}{{\\sqrt{{d_k}}}}"
    elif problem.scale == 1:
        body = numerator
    else:
        body = f"s \\cdot {numerator}"
    if problem.temperature != 1:
        body = f"\\frac{{1}}{{T}} \\cdot {body}" if problem.scale is not None else \
            f"\\frac{{{numerator}}}{{\\sqrt{{d_k}}\\, T}}"
    return body


def is_unscaled(problem: Problem) -> bool:
    """Whether the spec says its scores are used raw: scale "none" (and T = 1 unless the
    scores are given as ``scaled``, which no temperature divides)."""
    unit = isinstance(problem.scale, fmpq) and problem.scale == 1
    return unit and ("scaled" in problem.inputs or problem.temperature == 1)


def rational_matrix(matrix: EntryMatrix, holes_to_zero: bool = False) -> fmpq_mat:
    """The entries as an exact ``fmpq_mat``; -oo holes as 0 when asked (given scores)."""
    values = [entry.value for row in matrix for entry in row]
    try:   # the common case: every entry a rational (fmpq_mat checks each: TypeError)
        return fmpq_mat(len(matrix), len(matrix[0]), cast(list[fmpq], values))
    except TypeError:
        pass
    rationals = []
    for row in matrix:
        for entry in row:
            value = entry.value
            if isinstance(value, fmpq):
                rationals.append(value)
            elif holes_to_zero:
                rationals.append(fmpq(0))
            else:  # pragma: no cover - symbolic problems take the SymPy path
                raise InputError(f"entry {entry.text!r} is not rational")
    return fmpq_mat(len(matrix), len(matrix[0]), rationals)


def input_step(problem: Problem, name: str, grid: Grid) -> Step:
    """The step of an input matrix; X picked from the vocabulary has W_vocab as its operand."""
    if name != "X" or not problem.sequence:
        return make_step(name, grid)
    return make_step(name, grid, formula="W_{vocab}[\\text{tokens}]", operands=("W_vocab",))


def scale_factor(problem: Problem) -> RationalOrSurd:
    """The number every score is multiplied by: scale / temperature."""
    scale = problem.scale_value
    temperature = problem.temperature
    if not (isinstance(scale, (fmpq, Surd)) and isinstance(temperature, (fmpq, Surd))):
        raise TypeError("the rational core needs a rational or surd scale and temperature")
    return scale * reciprocal(temperature)


def scale_divisor(problem: Problem) -> RationalOrSurd:
    """The number every score is divided by: temperature / scale (``1 / scale_factor``)."""
    return reciprocal(scale_factor(problem))


def source_of(name: str, inputs: Container[str]) -> str:
    """The sequence a projection reads: keys and values may come from X_kv, each of
    Q, K, V from its own X_q, X_k, X_v (``problem.shapes.projection_source``)."""
    return projection_source(name, inputs)


# How a projection's formula writes the sequence it reads.
SOURCE_SYMBOLS = {"X": "X", "X_kv": "X_{kv}", "X_q": "X_Q", "X_k": "X_K", "X_v": "X_V"}


def rational_steps(problem: Problem) -> Iterator[Step]:
    """Every step from the inputs to the output on the fast rational core."""
    inputs = problem.inputs
    matrices: dict[str, fmpq_mat] = {}
    for name in ("X", "X_kv", "X_q", "X_k", "X_v", "W_Q", "W_K", "W_V"):
        if name in inputs:
            matrices[name] = rational_matrix(inputs[name])
            yield input_step(problem, name, grids.RationalGrid(matrices[name]))
    start = "scaled" if "scaled" in inputs else "scores" if "scores" in inputs else None
    for name in ("Q", "K", "V"):
        if name in inputs:
            matrices[name] = rational_matrix(inputs[name])
            yield make_step(name, grids.RationalGrid(matrices[name]), formula=name, operands=())
        elif f"W_{name}" in inputs and (start is None or name == "V"):
            source = source_of(name, inputs)
            matrices[name] = matrices[source] * matrices[f"W_{name}"]
            yield make_step(name, grids.RationalGrid(matrices[name]),
                            formula=f"{SOURCE_SYMBOLS[source]} W_{name}",
                            operands=(source, f"W_{name}"))
    yield from attention_core(problem, matrices, start)


def attention_core(problem: Problem, matrices: dict[str, fmpq_mat], start: str | None
                   ) -> Iterator[Step]:
    """scores ... output from exact Q, K (or given scores) and V."""
    inputs = problem.inputs
    if start is None:
        base = matrices["Q"] * matrices["K"].transpose()
        yield make_step("scores", grids.RationalGrid(base, (matrices["Q"], matrices["K"])))
    else:
        base = rational_matrix(inputs[start], holes_to_zero=True)
        if start == "scores":
            yield make_step("scores", grids.RationalGrid(base), formula="S", operands=())
    allowed = problem.allowed()
    holes = frozenset((i, j) for i, row in enumerate(inputs[start]) for j, entry in
                      enumerate(row) if entry.value is NEG_INF) if start else frozenset()
    if problem.order and start != "scaled":     # the document's own order (derivation.order)
        from symattn.derivation.order import ordered_steps

        ordered = ordered_steps(problem, base, holes, (matrices["Q"], matrices["K"])
                                if start is None else None, allowed)
        yield from ordered.steps
        yield from _softmax_steps(problem, matrices, ordered.final, ordered.last,
                                  None if ordered.steps else "e^{S_{ij}}")
        return
    factor = fmpq(1) if start == "scaled" else scale_factor(problem)
    scaled = grids.ScaledGrid(base, factor, holes,
                              (matrices["Q"], matrices["K"]) if start is None else None)
    step = make_step("scaled", scaled, formula="\\tilde{S}" if start == "scaled"
                     else scaled_formula(problem), operands=() if start == "scaled" else None)
    if is_unscaled(problem):       # raw scores: S itself when given as such
        given = start == "scaled"
        step = dataclasses.replace(step, variant="raw", symbol="S" if given else step.symbol,
                                   formula="S" if given else step.formula)
    yield step
    any_masked = not all(all(row) for row in allowed)
    if any_masked:
        yield make_step("mask", grids.MaskGrid(allowed))
        masked = grids.MaskedGrid(scaled, allowed)
        yield make_step("masked", masked)
    else:
        masked = grids.MaskedGrid(scaled, allowed)
    yield from _softmax_steps(problem, matrices, masked, "masked" if any_masked else "scaled")


def _softmax_steps(problem: Problem, matrices: dict[str, fmpq_mat], masked: grids.MaskedGrid,
                   operand: str, exp_formula: str | None = None) -> Iterator[Step]:
    """exp, exp_sum, weights (or the weights of normalisation "sum") and the output."""
    if problem.normalisation == Normalisation.SOFTMAX:
        exp = softmax_grids.ExpGrid(masked)
        yield make_step("exp", exp, operands=(operand,), formula=exp_formula)
        yield make_step("exp_sum", softmax_grids.ExpSumGrid(exp),
                        formula=f"\\sum_j {exp_formula}" if exp_formula else None)
        weights = softmax_grids.WeightsGrid(masked, Normalisation.SOFTMAX, problem.fully_masked)
        yield make_step("weights", weights)
    else:
        weights = softmax_grids.WeightsGrid(masked, Normalisation.SUM, problem.fully_masked)
        yield make_step("weights", weights, formula="\\frac{Z_{ij}}{\\sum_j Z_{ij}}",
                        operands=(operand,))
    if "V" in matrices:
        yield make_step("output", softmax_grids.OutputGrid(weights, matrices["V"]))
