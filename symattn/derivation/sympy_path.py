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
from flint import fmpq

from symattn.derivation import grids
from symattn.derivation.attention import input_step, scaled_formula, source_of
from symattn.derivation.steps import Step, make_step
from symattn.derivation.sympy_grid import SympyGrid, scale_factor_sympy, sympy_matrix
from symattn.derivation.sympy_rows import SoftmaxRow
from symattn.problem.problem import Problem
from symattn.values.exact import NAN, Exact

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
        rows = self.weights(masked, operand)
        if "V" in self.matrices:
            self.steps.append(make_step("output", grids.ValueGrid(
                _outputs(self.problem, rows, self.matrices["V"]))))
        return tuple(self.steps)

    def inputs_and_positions(self) -> None:
        """X, X_kv and the projection matrices; with sinusoidal positions, PE and X_pos."""
        problem, matrices = self.problem, self.matrices
        for name in ("X", "X_kv", "X_q", "X_k", "X_v", "W_Q", "W_K", "W_V"):
            if name in problem.inputs:
                matrices[name] = sympy_matrix(problem.inputs[name])
                self.steps.append(input_step(problem, name, SympyGrid(matrices[name])))
        if problem.positions == "sinusoidal":   # (derivation.sympy_positions) PE added to X
            from symattn.derivation import sympy_positions

            self.steps += sympy_positions.encoding_steps(problem, matrices)

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
        from symattn.derivation import sympy_positions

        left, right = "Q", "K"
        if problem.positions == "rope":
            self.steps += sympy_positions.rotation_steps(problem, matrices)
            left, right = "Q_rot", "K_rot"
        scores = (matrices[left] * matrices[right].T).applyfunc(sympy.expand)
        scores = scores.applyfunc(sympy_positions.linearise)
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

    def weights(self, masked: sympy.Matrix, operand: str) -> list[SoftmaxRow]:
        """Softmax (exp and exp_sum steps first) or division by the row sum, row by row
        (``sympy_rows``: each row's exponentials and sum made and written once)."""
        problem = self.problem
        n, m = masked.shape
        softmax = problem.normalisation == "softmax"
        rows = [SoftmaxRow([masked[i, j] for j in range(m)], softmax) for i in range(n)]
        if softmax:
            self.add("exp", sympy.Matrix(n, m, lambda i, j: rows[i].numerators[j]),
                     operands=(operand,))
            self.steps.append(make_step("exp_sum", grids.ValueGrid([[row.total] for row in rows])))
        weights = grids.ValueGrid(_normalised(problem, rows, m))
        if softmax:
            self.steps.append(make_step("weights", weights))
        else:
            self.steps.append(make_step("weights", weights,
                                        formula="\\frac{Z_{ij}}{\\sum_j Z_{ij}}",
                                        operands=(operand,)))
        return rows


def _fill(problem: Problem, i: int) -> Exact:
    """An entry of a fully masked row i, as options.fully_masked says (or its error)."""
    if problem.fully_masked == "error":
        raise grids.fully_masked_row(i)
    return NAN if problem.fully_masked == "nan" else fmpq(0)


def _normalised(problem: Problem, rows: list[SoftmaxRow], m: int) -> list[list[Exact]]:
    """Each row divided by its total; a fully masked row as options.fully_masked says."""
    weights = []
    for i, row in enumerate(rows):
        if not row.open:
            weights.append([_fill(problem, i)] * m)
        elif row.total_expr == 0:
            raise grids.zero_row_sum(i)
        else:
            weights.append(row.weights)
    return weights


def _outputs(problem: Problem, rows: list[SoftmaxRow], values: sympy.Matrix
             ) -> list[list[Exact]]:
    """``A V`` row by row: each entry the row's weighted sum over its one denominator."""
    columns = [[values[j, c] for j in range(values.rows)] for c in range(values.cols)]
    return [[row.output(column) for column in columns] if row.open
            else [_fill(problem, i)] * values.cols for i, row in enumerate(rows)]
