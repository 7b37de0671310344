"""Positions: sinusoidal encodings added to X, rotary (RoPE) rotations of Q and K.

Self-attention without positions cannot tell the order of its tokens:
permuting the rows of X permutes the rows of the output, exactly
(``explore.permute`` proves it entry by entry). Positions break that
symmetry. With ``options.positions`` set, the derivation gains these steps:

``positions = "sinusoidal"`` (Vaswani et al. 2017), before the projections::

    PE[p, 2i]   = sin(p / base^(2i/d_model))
    PE[p, 2i+1] = cos(p / base^(2i/d_model))       p = 0, 1, ..., n-1 (0-based)
    X_pos = X + PE          Q = X_pos W_Q, K = X_pos W_K, V = X_pos W_V

(with ``X_kv``, the key/value sequence gets its own ``PE_kv`` and ``X_kv_pos``).

``positions = "rope"`` (RoFormer, Su et al. 2021; LLaMA), after the projections:
every consecutive pair of columns (2i, 2i+1) of the query or key row at
position p (0-based) is rotated by the angle p * base^(-2i/d_k)::

    [x_2i, x_2i+1] -> [x_2i cos a - x_2i+1 sin a,  x_2i sin a + x_2i+1 cos a]
    scores = Q_rot K_rot^T

(Hugging Face's ``rotate_half`` pairs column i with column i + d_k/2 instead:
the same rotation after a fixed permutation of the columns.) ``base`` is
``options.position_base`` (default 10000).

This module is the entry: what positions cannot be combined with (``check``,
for both paths), whether a problem takes the fast path (``applies``: rational
inputs, a rational or square-root scale and temperature), and the fast path's
steps (``build_steps``), without SymPy: exact sums of sines and cosines
(``position_values``) in grids from the scores to the output
(``position_grids``). Roots and identifiers take the SymPy path
(``sympy_path`` with ``sympy_positions``), with the same step names, formulas
and descriptions.

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"X": [[0, 0], [0, 0]], "W_Q": "identity",
...     "W_K": "identity"}, "options": {"positions": "sinusoidal"}})
>>> steps = {step.name: step for step in build_steps(problem)}
>>> steps["PE"].value.text(1, 0), steps["scores"].value.exact(1, 1)   # sin^2 + cos^2
('sin(1)', 1)
"""

from __future__ import annotations

__all__ = ["build_steps", "check", "applies"]

from typing import Iterator

from flint import fmpq

from symattn.derivation import grids
from symattn.derivation.attention import input_step, scaled_formula, source_of
from symattn.derivation.position_grids import (ExpSumTrigGrid, ExpTrigGrid, MaskedTrigGrid,
                                               OutputTrigGrid, ScaledTrigGrid, TrigGrid,
                                               WeightsTrigGrid)
from symattn.derivation.position_values import INPUTS, PositionValues
from symattn.derivation.steps import Step, make_step
from symattn.errors import InputError, Location, ShapeError
from symattn.problem.problem import Problem
from symattn.values.exact import Surd

_SYMBOLS = {"X": "X", "X_kv": "X_{kv}", "X_pos": "X_{pos}", "X_kv_pos": "X_{kv,pos}"}


def _where(problem: Problem) -> Location:
    return Location(file=problem.source, key="options.positions")


def check(problem: Problem) -> None:
    """Refuse, with a clear message, what positions cannot be combined with."""
    kind = problem.positions
    if kind == "none":
        return
    inputs = problem.inputs
    for name in ("scores", "scaled"):
        if name in inputs:
            raise InputError(f"positions = \"{kind}\" needs the token vectors (X with W_Q, "
                             f"W_K, W_V, or Q and K), not {name}", _where(problem))
    for name in ("X_q", "X_k", "X_v"):
        if name in inputs:     # which sequence each position belongs to is not defined
            raise InputError(f"positions = \"{kind}\" is not supported with separate "
                             f"sources ({name}) yet; give X (and X_kv for keys and values)",
                             _where(problem))
    if problem.heads > 1 or "W_O" in inputs:
        raise InputError(f"positions = \"{kind}\" is not supported with several heads or W_O "
                         "yet; use one head", _where(problem))
    if kind == "sinusoidal":
        for name in ("Q", "K"):
            if name in inputs:
                raise InputError(f"positions = \"sinusoidal\" adds PE to X before the "
                                 f"projections, but {name} is given directly; give X with "
                                 f"W_{name}, or use positions = \"rope\"", _where(problem))
    if kind == "rope":
        width = problem.projected_shape("Q")[1]
        if width % 2:
            raise ShapeError(f"RoPE rotates pairs of columns, so d_k must be even, but Q has "
                             f"{width} columns", _where(problem))


def applies(problem: Problem) -> bool:
    """Whether positions take this path: every input rational, the scale and
    temperature rational or a square root (no symbols)."""
    for name in INPUTS:
        for row in problem.inputs.get(name, ()):
            if any(not isinstance(entry.value, fmpq) for entry in row):
                return False
    return isinstance(problem.scale_value, (fmpq, Surd)) and \
        isinstance(problem.temperature, (fmpq, Surd))


def build_steps(problem: Problem) -> Iterator[Step]:
    """Every step from the inputs to the output, positions included."""
    values = PositionValues(problem)
    inputs = problem.inputs
    for name in ("X", "X_kv", "W_Q", "W_K", "W_V"):
        if name in inputs:
            yield input_step(problem, name, TrigGrid(values, name, problem.shape(name)))
    if values.sinusoidal:
        yield from _encodings(problem, values)
    for name in ("Q", "K", "V"):
        shape = problem.projected_shape(name) if name in inputs or f"W_{name}" in inputs \
            else None
        if shape is None:
            continue
        grid = TrigGrid(values, name, shape)
        if name in inputs:
            yield make_step(name, grid, formula=name, operands=())
        else:
            source = source_of(name, inputs)
            source = f"{source}_pos" if values.sinusoidal else source
            yield make_step(name, grid, formula=f"{_SYMBOLS[source]} W_{name}",
                            operands=(source, f"W_{name}"))
    yield from _attention(problem, values)


def _encodings(problem: Problem, values: PositionValues) -> Iterator[Step]:
    base = problem.position_base
    for source, pe, total in (("X", "PE", "X_pos"), ("X_kv", "PE_kv", "X_kv_pos")):
        if source not in problem.inputs:
            continue
        rows, width = problem.shape(source)
        yield make_step(pe, TrigGrid(values, pe, (rows, width)), description=(
            f"sinusoidal positions: PE[p, 2i] = sin(p / {base}^(2i/{width})), "
            f"PE[p, 2i+1] = cos(p / {base}^(2i/{width})), p = 0..{rows - 1} (0-based)"))
        yield make_step(total, TrigGrid(values, total, (rows, width)),
                        description="each token's vector plus the encoding of its position")


def _attention(problem: Problem, values: PositionValues) -> Iterator[Step]:
    base = problem.position_base
    shape = problem.score_shape()
    if not values.sinusoidal:
        for name, kind in (("Q", "query"), ("K", "key")):
            rotated = problem.projected_shape(name)
            yield make_step(f"{name}_rot", TrigGrid(values, f"{name}_rot", rotated),
                            description=(
                                f"RoPE: each {kind} row at position p (0-based) with every "
                                f"column pair (2i, 2i+1) rotated by the angle p * "
                                f"{base}^(-2i/{rotated[1]})"))
    scores = TrigGrid(values, "scores", shape)
    if values.sinusoidal:
        yield make_step("scores", scores)
    else:
        yield make_step("scores", scores, formula="Q_{rot} K_{rot}^{\\top}",
                        operands=("Q_rot", "K_rot"))
    scaled = ScaledTrigGrid(scores)
    yield make_step("scaled", scaled, formula=scaled_formula(problem))
    allowed = problem.allowed()
    masked = MaskedTrigGrid(scaled, allowed)
    operand = "scaled"
    if not all(all(row) for row in allowed):
        yield make_step("mask", grids.MaskGrid(allowed))
        yield make_step("masked", masked)
        operand = "masked"
    if problem.normalisation == "softmax":
        exp = ExpTrigGrid(masked)
        yield make_step("exp", exp, operands=(operand,))
        yield make_step("exp_sum", ExpSumTrigGrid(exp))
        weights = WeightsTrigGrid(masked, "softmax", problem.fully_masked)
        yield make_step("weights", weights)
    else:
        weights = WeightsTrigGrid(masked, "sum", problem.fully_masked)
        yield make_step("weights", weights, formula="\\frac{Z_{ij}}{\\sum_j Z_{ij}}",
                        operands=(operand,))
    if "V" in problem.inputs or "W_V" in problem.inputs:
        yield make_step("output", OutputTrigGrid(weights, TrigGrid(values, "V",
                                                                   problem.projected_shape("V"))))
