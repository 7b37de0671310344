"""Diagnostics the documents discuss: entropy of attention rows, saturation.

Enabled per spec by a ``[diagnostics]`` table::

    [diagnostics]
    entropy = true      # entropy, entropy_max
    jacobian = true     # jacobian_norm, jacobian_norm_unscaled

Steps, appended after everything else (for several heads, once per head with
the head's prefix: ``head1.entropy``, ...), each an n x 1 column::

    entropy                 H_i = -sum_j w_ij log2 w_ij        (0 log 0 = 0)
    entropy_max             log2(k_i), k_i = unmasked keys of row i
    jacobian_norm           ||diag(w_i) - w_i^T w_i||_F        (Frobenius norm)
    jacobian_norm_unscaled  the same for softmax(raw scores): no 1/sqrt(d_k), T = 1

Each is a ``formula_step``: its entry rule reads the weights (or the raw
scores) through the operand function, so ``symattn check`` recomputes a
printed entropy from the document's printed weights, and every renderer shows
the steps like any other. Values are exact where they are rational (a uniform
row over 4 keys has entropy exactly 2 and Jacobian norm sqrt(3)/4; one key
gives exactly 0), with certified balls otherwise (see ``values.probabilities``).

>>> from symattn.problem.problem import Problem
>>> from symattn.derivation.pipeline import derive
>>> problem = Problem.from_mapping({"inputs": {"scaled": [[1, 1, 1, 1], [0, 1, "-inf", 0]]},
...                                 "diagnostics": {"entropy": True, "jacobian": True}})
>>> derivation = derive(problem)
>>> derivation["entropy"].value.exact(0, 0), derivation["entropy_max"].value.text(1, 0)
(2, 'log(3)/log(2)')
>>> derivation["jacobian_norm"].value.exact(0, 0)
Surd(coefficient=1/4, radicand=3)
>>> "jacobian_norm_unscaled" in derivation     # scaled scores given: nothing to unscale
False
"""

from __future__ import annotations

__all__ = ["STAGES", "DIAGNOSTIC_STEP_INFO", "diagnostic_steps", "weights_prefixes",
           "check_numeric_weights"]

import dataclasses
from typing import Sequence

from flint import fmpq

from symattn.derivation.grids import Grid
from symattn.derivation.names import split_name
from symattn.derivation.softmax_grids import WeightsGrid
from symattn.derivation.steps import EntryRule, Operand, Step, StepInfo, formula_step, step_shape
from symattn.errors import InputError
from symattn.problem.problem import Problem
from symattn.values import probabilities
from symattn.values.exact import NAN, NEG_INF, Exact

DIAGNOSTIC_STEP_INFO: dict[str, StepInfo] = {
    "entropy": StepInfo("H", "-\\sum_j A_{ij} \\log_2 A_{ij}", ("weights",),
                        "Shannon entropy of each row of weights, in bits (0 log 0 = 0)"),
    "entropy_max": StepInfo("H_{\\max}", "\\log_2 k_i", ("mask",),
                            "largest possible entropy: log2 of the number k_i of unmasked "
                            "keys in row i"),
    "jacobian_norm": StepInfo(
        "\\|J\\|_F", "\\|\\operatorname{diag}(A_{i}) - A_{i}^{\\top} A_{i}\\|_F", ("weights",),
        "Frobenius norm of the softmax Jacobian of each row; near 0 means saturated"),
    "jacobian_norm_unscaled": StepInfo(
        "\\|J_1\\|_F", "\\|J(\\operatorname{softmax}(S_{i}))\\|_F", ("scores",),
        "the same for the softmax of the raw scores QK^T (scale 1, T = 1)"),
}


def weights_prefixes(steps: Sequence[Step]) -> list[str]:
    """Head prefixes of the weights steps: ``[""]`` for one head, ``["head1.", ...]``."""
    return [split_name(step.name)[0] for step in steps if split_name(step.name)[1] == "weights"]


def _step(name: str, prefix: str, shape: tuple[int, int], rule: EntryRule,
          earlier: Sequence[Step]) -> Step:
    info = DIAGNOSTIC_STEP_INFO[name]
    if prefix:
        info = StepInfo(info.symbol, info.formula, tuple(prefix + o for o in info.operands),
                        info.description)
    return formula_step(info, prefix + name, shape, rule, earlier)


def _guarded(label: str, rule: EntryRule) -> EntryRule:
    """The rule, with a ValueError (a negative weight, ...) as an InputError naming the row."""
    def guarded(operand: Operand, i: int, j: int) -> Exact:
        try:
            return rule(operand, i, j)
        except ValueError as error:
            raise InputError(f"{label}, row {i + 1}: {error}") from None
    return guarded


def check_numeric_weights(grid: Grid, who: str) -> None:
    """Refuse weights with free symbols: ``who`` needs numbers (entropies, largest weights)."""
    if isinstance(grid, WeightsGrid):         # the rational core: always numbers
        return
    for i in grid.rows():
        for j in grid.columns():
            if not getattr(grid.exact(i, j), "is_numeric", True):
                raise InputError(f"{who} needs numbers: the weights of this spec are "
                                 "symbolic (they have free symbols)")


def diagnostic_steps(problem: Problem, earlier: Sequence[Step], prefix: str) -> list[Step]:
    """The diagnostics steps of one head (prefix ``""`` for single-head attention)."""
    weights = next(step.value for step in earlier if step.name == prefix + "weights")
    check_numeric_weights(weights, "[diagnostics]")
    steps: list[Step] = []
    if "entropy" in problem.diagnostics:
        steps += _entropy_steps(problem, earlier, prefix)
    if "jacobian" in problem.diagnostics:
        steps += _jacobian_steps(problem, [*earlier, *steps], prefix)
    return steps


def _entropy_steps(problem: Problem, earlier: Sequence[Step], prefix: str) -> list[Step]:
    weights_name = prefix + "weights"
    n, m = step_shape(earlier, weights_name)
    counts = [sum(row) for row in problem.allowed()]

    def entropy(operand: Operand, i: int, _: int) -> Exact:
        return probabilities.entropy_bits(operand(weights_name, i, c) for c in range(m))

    def entropy_max(operand: Operand, i: int, _: int) -> Exact:
        return probabilities.log2(fmpq(counts[i])) if counts[i] else NAN

    first = _step("entropy", prefix, (n, 1), _guarded(f"{prefix}entropy", entropy), earlier)
    step = _step("entropy_max", prefix, (n, 1), entropy_max, [*earlier, first])
    source = prefix + "mask" if any(s.name == prefix + "mask" for s in earlier) else weights_name
    return [first, dataclasses.replace(step, operands=(source,))]


def _jacobian_steps(problem: Problem, earlier: Sequence[Step], prefix: str) -> list[Step]:
    if problem.normalisation != "softmax":
        raise InputError("the softmax Jacobian ([diagnostics] jacobian) needs "
                         "normalisation = \"softmax\"")
    weights_name, scores_name = prefix + "weights", prefix + "scores"
    n, m = step_shape(earlier, weights_name)
    allowed = problem.allowed()

    def jacobian(operand: Operand, i: int, _: int) -> Exact:
        return probabilities.softmax_jacobian_norm(operand(weights_name, i, c) for c in range(m))

    steps = [_step("jacobian_norm", prefix, (n, 1), _guarded(f"{prefix}jacobian_norm", jacobian),
                   earlier)]
    if not any(step.name == scores_name for step in earlier):
        return steps
    empty_row: Exact = NAN if problem.fully_masked == "nan" else fmpq(0)

    def unscaled(operand: Operand, i: int, _: int) -> Exact:
        if not any(allowed[i]):
            return empty_row
        row = [operand(scores_name, i, c) if allowed[i][c] else NEG_INF for c in range(m)]
        return probabilities.softmax_jacobian_norm(probabilities.softmax(row))

    steps.append(_step("jacobian_norm_unscaled", prefix, (n, 1),
                       _guarded(f"{prefix}jacobian_norm_unscaled", unscaled), [*earlier, *steps]))
    return steps


def diagnostics(problem: Problem, earlier: Sequence[Step]) -> list[Step]:
    """Entropy and Jacobian steps for every head, as ``[diagnostics]`` asks."""
    if not problem.diagnostics:
        return []
    steps: list[Step] = []
    for prefix in weights_prefixes(earlier):
        steps += diagnostic_steps(problem, list(earlier) + steps, prefix)
    return steps


STAGES = (diagnostics,)
