"""The SymPy path: inputs with identifiers or roots, kept as exact expressions.

Used when some entry is not rational (``sqrt(3)``, ``a``, ``w_11``) or an
option is symbolic. The steps are the same as on the fast path; each entry is
a SymPy expression, wrapped so that numbers come out certified.

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"scaled": [["a", 0]]}})
>>> steps = build_steps(problem)
>>> [step.name for step in steps], steps[-1].value.text(0, 0)
(['scaled', 'exp', 'exp_sum', 'weights'], 'exp(a)/(exp(a) + 1)')
"""

from __future__ import annotations

__all__ = ['build_steps']

import sympy

from symattn.derivation import grids
from symattn.derivation.attention import input_step, scaled_formula, source_of
from symattn.derivation.steps import Step, make_step
from symattn.derivation.sympy_grid import SympyGrid, scale_factor_sympy, sympy_matrix
from symattn.problem.problem import Problem

# How the SymPy sources of the projections are written in formulas.
_SOURCE_SYMBOLS = {"X_kv": "X_{kv}", "X_pos": "X_{pos}", "X_kv_pos": "X_{kv,pos}",
                   "X_q": "X_Q", "X_k": "X_K", "X_v": "X_V"}


def build_steps(problem: Problem) -> tuple[Step, ...]:
    """The same named steps as the fast path, with SymPy values."""
    return _SympySteps(problem).build()


class _SympySteps:
    """The steps of one problem on the SymPy path, stage by stage."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.matrices: dict[str, sympy.Matrix] = {}
        self.steps: list[Step] = []

    def add(self, name: str, matrix: sympy.Matrix, formula: str | None = None,
            operands: tuple[str, ...] | None = None) -> None:
        self.steps.append(make_step(name, SympyGrid(matrix), formula=formula, operands=operands))

    def build(self) -> tuple[Step, ...]:
        inputs = self.problem.inputs
        start = "scaled" if "scaled" in inputs else "scores" if "scores" in inputs else None
        self.inputs_and_positions()
        self.projections(start)
        scaled = self.scaled(self.scores(start), start)
        masked, operand = self.masked(scaled)
        weights = self.weights(masked, operand)
        if "V" in self.matrices:
            self.add("output", (weights * self.matrices["V"]).applyfunc(sympy.powsimp))
        return tuple(self.steps)

    def inputs_and_positions(self) -> None:
        """X, X_kv and the projection matrices; with sinusoidal positions, PE and X_pos."""
        problem, matrices = self.problem, self.matrices
        for name in ("X", "X_kv", "X_q", "X_k", "X_v", "W_Q", "W_K", "W_V"):
            if name in problem.inputs:
                matrices[name] = sympy_matrix(problem.inputs[name])
                self.steps.append(input_step(problem, name, SympyGrid(matrices[name])))
        if problem.positions == "sinusoidal":   # (symattn.derivation.positions) PE added to X
            from symattn.derivation import positions

            self.steps += positions.encoding_steps(problem, matrices)

    def projections(self, start: str | None) -> None:
        """Q, K and V, given or projected (V only when the scores are given)."""
        inputs, matrices = self.problem.inputs, self.matrices
        sources = {"X": "X", "X_kv": "X_kv", "X_q": "X_q", "X_k": "X_k", "X_v": "X_v"}
        if self.problem.positions == "sinusoidal":
            sources = {**sources, "X": "X_pos", "X_kv": "X_kv_pos"}
        for name in ("Q", "K", "V"):
            if name in inputs:
                matrices[name] = sympy_matrix(inputs[name])
                self.add(name, matrices[name], formula=name, operands=())
            elif f"W_{name}" in inputs and (start is None or name == "V"):
                source = sources[source_of(name, inputs)]
                matrices[name] = (matrices[source] * matrices[f"W_{name}"]).applyfunc(sympy.expand)
                self.add(name, matrices[name],
                         formula=f"{_SOURCE_SYMBOLS.get(source, source)} W_{name}",
                         operands=(source, f"W_{name}"))

    def scores(self, start: str | None) -> sympy.Matrix:
        """QK^T (of the rotated Q and K with RoPE), or the scores given."""
        problem, matrices = self.problem, self.matrices
        if start is not None:
            scores = sympy_matrix(problem.inputs[start])
            if start == "scores":
                self.add("scores", scores, formula="S", operands=())
            return scores
        if problem.positions == "none":
            scores = (matrices["Q"] * matrices["K"].T).applyfunc(sympy.expand)
            self.add("scores", scores)
            return scores
        from symattn.derivation import positions

        left, right = "Q", "K"
        if problem.positions == "rope":
            self.steps += positions.rotation_steps(problem, matrices)
            left, right = "Q_rot", "K_rot"
        scores = (matrices[left] * matrices[right].T).applyfunc(sympy.expand)
        scores = scores.applyfunc(positions.linearise)
        if left == "Q":
            self.add("scores", scores)
        else:
            self.add("scores", scores, formula="Q_{rot} K_{rot}^{\\top}", operands=(left, right))
        return scores

    def scaled(self, scores: sympy.Matrix, start: str | None) -> sympy.Matrix:
        if start == "scaled":
            self.add("scaled", scores, formula="\\tilde{S}", operands=())
            return scores
        scaled = (scores * scale_factor_sympy(self.problem)).applyfunc(sympy.expand)
        self.add("scaled", scaled, formula=scaled_formula(self.problem))
        return scaled

    def masked(self, scaled: sympy.Matrix) -> tuple[sympy.Matrix, str]:
        """The masked scores, and the step the weights read ("masked" or "scaled")."""
        allowed = self.problem.allowed()
        n, m = scaled.shape
        masked = sympy.Matrix(n, m, lambda i, j: scaled[i, j] if allowed[i][j]
                              else sympy.S.NegativeInfinity)
        if all(all(row) for row in allowed):
            return masked, "scaled"
        self.steps.append(make_step("mask", grids.MaskGrid(allowed)))
        self.add("masked", masked)
        return masked, "masked"

    def weights(self, masked: sympy.Matrix, operand: str) -> sympy.Matrix:
        """Softmax (exp and exp_sum steps first) or division by the row sum."""
        problem = self.problem
        n, m = masked.shape
        if problem.normalisation == "softmax":
            numerators = masked.applyfunc(sympy.exp)
            totals = sympy.Matrix(n, 1, lambda i, _: sum(numerators.row(i)))
            self.add("exp", numerators, operands=(operand,))
            self.add("exp_sum", totals)
        else:
            allowed = problem.allowed()
            numerators = sympy.Matrix(n, m, lambda i, j: masked[i, j] if allowed[i][j] else 0)
            totals = sympy.Matrix(n, 1, lambda i, _: sum(numerators.row(i)))
        weights = _normalised(problem, numerators, totals)
        if problem.normalisation == "softmax":
            self.add("weights", weights)
        else:
            self.add("weights", weights, formula="\\frac{Z_{ij}}{\\sum_j Z_{ij}}",
                     operands=(operand,))
        return weights


def _normalised(problem: Problem, numerators: sympy.Matrix, totals: sympy.Matrix
                ) -> sympy.Matrix:
    """Each row divided by its total; a fully masked row as options.fully_masked says."""
    allowed = problem.allowed()
    n, m = numerators.shape
    weights = sympy.zeros(n, m)
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
    return weights
