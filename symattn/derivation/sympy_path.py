"""The SymPy path: inputs with identifiers or roots, kept as exact expressions.

Used when some entry is not rational (``sqrt(3)``, ``a``, ``w_11``) or an
option is symbolic. The steps are the same as on the fast path; each entry is
a SymPy expression, wrapped so that numbers come out certified.
"""

from __future__ import annotations

__all__ = ['build_steps']

from typing import Any

import sympy

from symattn.derivation import grids
from symattn.derivation.sympy_grid import SympyGrid, _matrix
from symattn.errors import InputError
from symattn.problem.problem import Problem
from symattn.values.symbolic import value_to_sympy


def build_steps(problem: Problem) -> tuple[Any, ...]:
    """The same named steps as the fast path, with SymPy values."""
    from symattn.derivation.attention import (
        _embedding_lookup,
        scaled_formula,
        source_of,
    )
    from symattn.derivation.steps import make_step

    inputs = problem.inputs
    matrices: dict[str, sympy.Matrix] = {}
    steps = []
    for name in ("X", "X_kv", "W_Q", "W_K", "W_V"):
        if name in inputs:
            matrices[name] = _matrix(inputs[name])
            steps.append(make_step(name, SympyGrid(matrices[name]),
                                   **_embedding_lookup(problem, name)))
    # options.positions (symattn.derivation.positions): PE added to X, or Q and K rotated
    sources = {"X": "X", "X_kv": "X_kv"}
    if problem.positions == "sinusoidal":
        from symattn.derivation import positions

        steps += positions.encoding_steps(problem, matrices)
        sources = {"X": "X_pos", "X_kv": "X_kv_pos"}
    start = "scaled" if "scaled" in inputs else "scores" if "scores" in inputs else None
    for name in ("Q", "K", "V"):
        if name in inputs:
            matrices[name] = _matrix(inputs[name])
            steps.append(make_step(name, SympyGrid(matrices[name]), formula=name, operands=()))
        elif f"W_{name}" in inputs and (start is None or name == "V"):
            source = sources[source_of(name, inputs)]
            matrices[name] = (matrices[source] * matrices[f"W_{name}"]).applyfunc(sympy.expand)
            symbol = {"X_kv": "X_{kv}", "X_pos": "X_{pos}", "X_kv_pos": "X_{kv,pos}"}
            steps.append(make_step(name, SympyGrid(matrices[name]),
                                   formula=f"{symbol.get(source, source)} W_{name}",
                                   operands=(source, f"W_{name}")))
    if start is None:
        left, right = "Q", "K"
        if problem.positions == "rope":
            from symattn.derivation import positions

            steps += positions.rotation_steps(problem, matrices)
            left, right = "Q_rot", "K_rot"
        scores = (matrices[left] * matrices[right].T).applyfunc(sympy.expand)
        if problem.positions != "none":
            from symattn.derivation import positions

            scores = scores.applyfunc(positions.linearise)
        steps.append(make_step("scores", SympyGrid(scores), **(
            {} if left == "Q" else {"formula": "Q_{rot} K_{rot}^{\\top}",
                                    "operands": (left, right)})))
    else:
        scores = _matrix(inputs[start])
        if start == "scores":
            steps.append(make_step("scores", SympyGrid(scores), formula="S", operands=()))
    if start == "scaled":
        scaled = scores
        steps.append(make_step("scaled", SympyGrid(scaled), formula="\\tilde{S}", operands=()))
    else:
        factor = value_to_sympy(problem.scale_value) / value_to_sympy(problem.temperature)
        scaled = (scores * factor).applyfunc(sympy.expand)
        steps.append(make_step("scaled", SympyGrid(scaled), formula=scaled_formula(problem)))
    allowed = problem.allowed()
    n, m = scaled.shape
    masked = sympy.Matrix(n, m, lambda i, j: scaled[i, j] if allowed[i][j] else sympy.S.NegativeInfinity)
    any_masked = not all(all(row) for row in allowed)
    if any_masked:
        steps.append(make_step("mask", grids.MaskGrid(allowed)))
        steps.append(make_step("masked", SympyGrid(masked)))
    operand = "masked" if any_masked else "scaled"
    weights = sympy.zeros(n, m)
    if problem.normalisation == "softmax":
        exp = masked.applyfunc(sympy.exp)
        sums = sympy.Matrix(n, 1, lambda i, _: sum(exp.row(i)))
        steps.append(make_step("exp", SympyGrid(exp), operands=(operand,)))
        steps.append(make_step("exp_sum", SympyGrid(sums)))
        numerators, totals = exp, sums
    else:
        numerators = sympy.Matrix(n, m, lambda i, j: masked[i, j] if allowed[i][j] else 0)
        totals = sympy.Matrix(n, 1, lambda i, _: sum(numerators.row(i)))
    for i in range(n):
        if not any(allowed[i]):
            if problem.fully_masked == "error":
                raise grids.fully_masked_row(i)
            fill = sympy.S.NaN if problem.fully_masked == "nan" else sympy.S.Zero
            for j in range(m):
                weights[i, j] = fill
            continue
        if totals[i, 0] == 0:
            raise grids.zero_row_sum(i)
        for j in range(m):
            # powsimp lets exp(a)*exp(-a) cancel, so equal scores give exact 1/count.
            weights[i, j] = sympy.powsimp(numerators[i, j] / totals[i, 0])
    if problem.normalisation == "softmax":
        steps.append(make_step("weights", SympyGrid(weights)))
    else:
        steps.append(make_step("weights", SympyGrid(weights),
                               formula="\\frac{Z_{ij}}{\\sum_j Z_{ij}}", operands=(operand,)))
    if "V" in matrices:
        output = (weights * matrices["V"]).applyfunc(sympy.powsimp)
        steps.append(make_step("output", SympyGrid(output)))
    return tuple(steps)
