"""The SymPy path: inputs with identifiers or roots, kept as exact expressions.

Used when some entry is not rational (``sqrt(3)``, ``a``, ``w_11``) or an
option is symbolic. The steps are the same as on the fast path; each entry is
a SymPy expression, wrapped so that numbers come out certified: expressions
without free symbols are evaluated as python-flint balls by ``to_ball``.
This module is only imported when needed (SymPy is slow to import).
"""

from __future__ import annotations

__all__ = ["tree_to_sympy", "SympyValue", "SympyGrid", "build_steps", "to_ball"]

from dataclasses import dataclass
from typing import Any

import sympy
from flint import arb, fmpq

from symattn import grids
from symattn.entries import Symbolic
from symattn.errors import InputError
from symattn.exact import NAN, NEG_INF, Exact, Surd, working_precision
from symattn.problem import EntryMatrix, Problem


def tree_to_sympy(tree: tuple[Any, ...]) -> sympy.Expr:
    """Build a SymPy expression from the entry parser's syntax tree."""
    kind = tree[0]
    if kind == "num":
        return sympy.Rational(int(tree[1].p), int(tree[1].q))
    if kind == "sym":
        return sympy.Symbol(tree[1], real=True)
    if kind == "neg":
        return -tree_to_sympy(tree[1])
    if kind == "sqrt":
        return sympy.sqrt(tree_to_sympy(tree[1]))
    if kind == "pow":
        return tree_to_sympy(tree[1]) ** tree[2]
    left, right = tree_to_sympy(tree[1]), tree_to_sympy(tree[2])
    return {"add": left + right, "sub": left - right, "mul": left * right}.get(kind) \
        if kind != "div" else left / right


def value_to_sympy(value: Exact | Symbolic) -> sympy.Expr:
    if isinstance(value, fmpq):
        return sympy.Rational(int(value.p), int(value.q))
    if isinstance(value, Surd):
        return value_to_sympy(value.coefficient) * sympy.sqrt(value.radicand)
    if isinstance(value, Symbolic):
        return value.to_sympy()
    if value is NEG_INF:
        return sympy.S.NegativeInfinity
    raise TypeError(f"cannot convert {value!r}")


def to_ball(expr: sympy.Expr, prec: int) -> arb:
    """A certified ball for a closed-form expression (no free symbols).

    Understands rationals, sums, products, integer and rational powers (roots
    of integers such as 10000**(-1/3)), exp, sin, cos, E and pi.

    >>> import sympy
    >>> ball = to_ball(sympy.sin(sympy.Rational(1, 100)) + sympy.cos(sympy.pi / 3), 64)
    >>> ball.mid().str(12, radius=False), ball.rad() < 1e-15
    ('0.509999833334', True)
    """
    with working_precision(prec):
        return _ball(expr)


def _ball(expr: sympy.Expr) -> arb:
    if expr.is_Rational:
        return arb(fmpq(int(expr.p), int(expr.q)))
    if expr.is_Add:
        return sum((_ball(a) for a in expr.args), arb(0))
    if expr.is_Mul:
        result = arb(1)
        for factor in expr.args:
            result *= _ball(factor)
        return result
    if expr.is_Pow:
        base, exponent = expr.args
        if exponent.is_Integer:
            return _ball(base) ** int(exponent)
        if exponent.is_Rational:
            # 10**(2/3) and 10000**(-1/3): a root of the base, then an integer power
            root = _ball(base).root(int(exponent.q)) if exponent.q != 2 else _ball(base).sqrt()
            return root ** int(exponent.p)
        return (_ball(exponent) * _ball(base).log()).exp()
    if isinstance(expr, sympy.exp):
        return _ball(expr.args[0]).exp()
    if isinstance(expr, sympy.sin):
        return _ball(expr.args[0]).sin()
    if isinstance(expr, sympy.cos):
        return _ball(expr.args[0]).cos()
    if expr == sympy.E:
        return arb(1).exp()
    if expr == sympy.pi:
        return arb.pi()
    raise InputError(f"cannot evaluate {expr} numerically")


@dataclass(frozen=True)
class SympyValue:
    """An exact expression that is not a plain rational."""

    expr: sympy.Expr

    @property
    def text(self) -> str:
        return sympy.sstr(self.expr)

    @property
    def is_numeric(self) -> bool:
        return not self.expr.free_symbols

    def ball(self, prec: int) -> arb | None:
        return to_ball(self.expr, prec) if self.is_numeric else None


def sympy_to_exact(expr: sympy.Expr) -> Any:
    if expr is sympy.S.NegativeInfinity:
        return NEG_INF
    if expr is sympy.S.NaN:
        return NAN
    if expr.is_Rational:
        return fmpq(int(expr.p), int(expr.q))
    return SympyValue(expr)


class SympyGrid(grids.Grid):
    """A grid over a SymPy matrix."""

    def __init__(self, matrix: sympy.Matrix) -> None:
        self.matrix = matrix
        self.shape = (matrix.rows, matrix.cols)

    def exact(self, i: int, j: int) -> Any:
        return sympy_to_exact(self.matrix[i, j])


def _matrix(entries: EntryMatrix) -> sympy.Matrix:
    return sympy.Matrix([[value_to_sympy(entry.value) for entry in row] for row in entries])


def build_steps(problem: Problem) -> tuple[Any, ...]:
    """The same named steps as the fast path, with SymPy values."""
    from symattn.engine import _embedding_lookup, make_step, scaled_formula, source_of

    inputs = problem.inputs
    matrices: dict[str, sympy.Matrix] = {}
    steps = []
    for name in ("X", "X_kv", "W_Q", "W_K", "W_V"):
        if name in inputs:
            matrices[name] = _matrix(inputs[name])
            steps.append(make_step(name, SympyGrid(matrices[name]),
                                   **_embedding_lookup(problem, name)))
    # options.positions (symattn.positions): PE added to X, or Q and K rotated
    sources = {"X": "X", "X_kv": "X_kv"}
    if problem.positions == "sinusoidal":
        from symattn import positions

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
            from symattn import positions

            steps += positions.rotation_steps(problem, matrices)
            left, right = "Q_rot", "K_rot"
        scores = (matrices[left] * matrices[right].T).applyfunc(sympy.expand)
        if problem.positions != "none":
            from symattn import positions

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
                raise grids.FullyMaskedRowError(
                    f"row {i + 1} of the scores is fully masked, so softmax is 0/0; set "
                    "options.fully_masked to \"nan\" (as PyTorch returns) or \"zeros\"")
            fill = sympy.S.NaN if problem.fully_masked == "nan" else sympy.S.Zero
            for j in range(m):
                weights[i, j] = fill
            continue
        if totals[i, 0] == 0:
            raise InputError(f"row {i + 1} of the scores sums to 0, so dividing by the row "
                             "sum is undefined; use normalisation = \"softmax\"")
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
