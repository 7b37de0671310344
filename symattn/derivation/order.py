"""The document's own order of operations on the raw scores (``options.order``).

By default the scores are scaled (1/sqrt(d_k), with the temperature) and then
masked. Documents also mask first and scale after, divide by the temperature
in a step of its own before or after the scale, or feed the masked raw scores
to softmax without any scaling. ``options.order`` lists the operations in the
document's order::

    order = ["scale", "mask"]                  the default
    order = ["mask", "scale"]                  masked = S + M, scaled = s Z
    order = ["scale", "temperature", "mask"]   scaled = S/sqrt(d_k), tempered = scaled/T
    order = ["temperature", "scale", "mask"]   tempered = S/T, scaled = tempered/sqrt(d_k)
    order = ["mask"]                           softmax over the masked raw scores

Each operation is a step named as the document names it: ``scaled``,
``tempered``, ``masked`` (the additive mask ``mask`` stands before the
masked scores); the softmax reads the last. Without "temperature" in the list,
the temperature divides together with the scale; without "scale", the scores
are not scaled. Each step carries its entry rule, so ``symattn check`` follows
a printed number from the document's printed previous step.

>>> from symattn.problem.problem import Problem
>>> from symattn.derivation.pipeline import derive
>>> derivation = derive(Problem.from_mapping({"inputs": {"scores": [[4, 2]]},
...     "options": {"d_k": 4, "mask": [[1, 0]], "order": ["mask", "scale"]}}))
>>> [step.name for step in derivation]
['scores', 'mask', 'masked', 'scaled', 'exp', 'exp_sum', 'weights']
>>> derivation["masked"].value.exact(0, 0), derivation["scaled"].value.exact(0, 0)
(4, 2)
"""

from __future__ import annotations

__all__ = ["OPERATIONS", "DEFAULT_ORDER", "ORDER_STEP_INFO", "Ordered", "ordered_steps"]

from dataclasses import dataclass
from typing import Sequence

from flint import fmpq, fmpq_mat

from symattn.derivation import grids
from symattn.derivation.steps import EntryRule, Operand, Step, StepInfo, make_step
from symattn.errors import InputError, Location
from symattn.problem.problem import Problem
from symattn.values import arith
from symattn.values.exact import NEG_INF, Exact, RationalOrSurd, Surd, reciprocal

OPERATIONS = ("scale", "temperature", "mask")
DEFAULT_ORDER = ("scale", "mask")
ORDER_STEP_INFO: dict[str, StepInfo] = {
    "tempered": StepInfo("\\hat{S}", "\\frac{S}{T}", ("scores",),
                         "scores divided by the temperature"),
}
_STEP_OF = {"scale": "scaled", "temperature": "tempered", "mask": "masked"}
# A step's symbol; the last operation's step, which softmax reads, is Z.
_SYMBOL_OF = {"scores": "S", "scaled": "\\tilde{S}", "tempered": "\\hat{S}", "masked": "\\bar{S}"}


@dataclass(frozen=True)
class Ordered:
    """The steps of the operations in order, the grid softmax reads, and its step."""

    steps: tuple[Step, ...]
    final: grids.MaskedGrid
    last: str


def _rational(value: object, what: str, problem: Problem) -> RationalOrSurd:
    if not isinstance(value, (fmpq, Surd)):
        raise InputError(f"options.order needs a numeric {what}",
                         Location(file=problem.source, key="options.order"))
    return value


def _factors(problem: Problem) -> dict[str, RationalOrSurd]:
    """The number each operation multiplies by (the mask: 1)."""
    order = problem.order
    temperature = _rational(problem.temperature, "temperature", problem)
    scale = _rational(problem.scale_value, "scale", problem) if "scale" in order else fmpq(1)
    if "temperature" not in order and temperature != 1:
        if "scale" not in order:
            raise InputError("with a temperature, options.order lists \"temperature\" (or "
                             "\"scale\", which divides by it too)",
                             Location(file=problem.source, key="options.order"))
        scale = scale * reciprocal(temperature)
    return {"scale": scale, "temperature": reciprocal(temperature), "mask": fmpq(1)}


def _formula(operation: str, operand: str, problem: Problem) -> str:
    symbol = _SYMBOL_OF[operand]
    if operation == "mask":
        return f"{symbol} + M"
    if operation == "temperature":
        return f"\\frac{{{symbol}}}{{T}}"
    divided_by_t = "temperature" not in problem.order and problem.temperature != 1
    if problem.scale is None:
        root = "\\sqrt{d_k}\\, T" if divided_by_t else "\\sqrt{d_k}"
        return f"\\frac{{{symbol}}}{{{root}}}"
    return f"\\frac{{s}}{{T}} \\cdot {symbol}" if divided_by_t else f"s \\cdot {symbol}"


def _rule(operation: str, operand: str, factor: RationalOrSurd,
          allowed: Sequence[Sequence[bool]]) -> EntryRule:
    """The entry from the previous step: times the factor, or -oo where masked."""
    def rule(value: Operand, i: int, j: int) -> Exact:
        if not allowed[i][j] and operation == "mask":
            return NEG_INF
        previous = value(operand, i, j)
        return previous if previous is NEG_INF else arith.multiply(previous, factor)
    return rule


def ordered_steps(problem: Problem, base: fmpq_mat, holes: frozenset[tuple[int, int]],
                  qk: tuple[fmpq_mat, fmpq_mat] | None, allowed: Sequence[Sequence[bool]]
                  ) -> Ordered:
    """The steps of ``options.order`` from the raw scores ``base`` (exact)."""
    factors = _factors(problem)
    everything_open = [[True] * len(row) for row in allowed]
    any_masked = not all(all(row) for row in allowed)
    operations = [o for o in problem.order if o != "mask" or any_masked]
    steps: list[Step] = []
    cumulative: RationalOrSurd = fmpq(1)
    masked, operand = False, "scores"
    for k, operation in enumerate(operations):
        if operation == "mask":
            steps.append(make_step("mask", grids.MaskGrid(allowed)))
            masked = True
        cumulative = cumulative * factors[operation]
        name = _STEP_OF[operation]
        grid = grids.MaskedGrid(grids.ScaledGrid(base, cumulative, holes, qk),
                                allowed if masked else everything_open)
        symbol = "Z" if k == len(operations) - 1 else _SYMBOL_OF[name]   # softmax reads Z
        step = Step(name, symbol, _formula(operation, operand, problem),
                    (operand, "mask") if operation == "mask" else (operand,),
                    f"{_STEP_OF[operation]} scores", grid,
                    _rule(operation, operand, factors[operation], allowed), variant="reordered")
        steps.append(step)
        operand = name
    final = grids.MaskedGrid(grids.ScaledGrid(base, cumulative, holes, qk), allowed)
    return Ordered(tuple(steps), final, operand)
