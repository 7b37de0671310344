"""Norms and cosines: a score read as cos(theta) |q| |k|, and the scale as a number.

Documents explain the score q_i . k_j geometrically, as the cosine of the
angle between the query and the key times their lengths, and print the three
factors. The steps (each a ``formula_step``, so ``symattn check`` recomputes a
printed cosine from the document's printed Q and K)::

    q_norm   n x 1   |q_i| = sqrt(sum_t q_it^2)
    k_norm   m x 1   |k_j| = sqrt(sum_t k_jt^2)
    cosine   n x m   cos theta_ij = q_i . k_j / (|q_i| |k_j|)   (nan for a zero vector)
    scale    1 x 1   the multiplier of the scores: 1/sqrt(d_k), or options.scale

They stand right after the raw scores. ``[diagnostics] cosine = true`` lays
out the first three on the page; a spec that only claims them (``cosine[1,2]``,
``scores[1,2].factors``, ``scale``) gets them as hidden steps: computed and
claimable, not laid out.

>>> from symattn.problem.problem import Problem
>>> from symattn.derivation.pipeline import derive
>>> derivation = derive(Problem.from_mapping({"inputs": {"Q": [[3, 4]], "K": [[4, 3], [0, 2]]},
...     "diagnostics": {"cosine": True}}))
>>> derivation["q_norm"].value.exact(0, 0), derivation["cosine"].value.exact(0, 0)
(5, 24/25)
>>> "scale" in derivation, derivation["cosine"].hidden
(False, False)
"""

from __future__ import annotations

__all__ = ["COSINE_STEP_INFO", "COSINE_STEPS", "insert", "claimed_steps"]

import dataclasses
import re
from typing import Any, Mapping, Sequence

from flint import fmpq

from symattn.derivation import grids
from symattn.derivation.steps import Operand, Step, StepInfo, formula_step, step_shape
from symattn.problem.problem import Problem
from symattn.values import arith
from symattn.values.exact import NAN, Exact, Surd

COSINE_STEP_INFO: dict[str, StepInfo] = {
    "q_norm": StepInfo("\\|q\\|", "\\sqrt{\\sum_t q_{it}^2}", ("Q",),
                       "length of each query vector"),
    "k_norm": StepInfo("\\|k\\|", "\\sqrt{\\sum_t k_{jt}^2}", ("K",),
                       "length of each key vector"),
    "cosine": StepInfo("\\cos\\theta", "\\frac{q_i \\cdot k_j}{\\|q_i\\|\\,\\|k_j\\|}",
                       ("Q", "K", "q_norm", "k_norm"),
                       "cosine of the angle between query i and key j"),
    "scale": StepInfo("s", "s", (), "the number every raw score is multiplied by"),
}
COSINE_STEPS = ("q_norm", "k_norm", "cosine")
# A claim key naming one of these steps (or the printed factors of a score).
_CLAIMED = re.compile(r"^\s*(?P<step>q_norm|k_norm|cosine|scale)\b|\.\s*factors\s*(?:@|$)")


def claimed_steps(claims: Mapping[str, Any]) -> set[str]:
    """The steps of this module a spec's claims name (``.factors`` names the three)."""
    named: set[str] = set()
    for key in claims:
        match = _CLAIMED.search(str(key))
        if match is not None:
            named |= {match["step"]} if match["step"] else set(COSINE_STEPS)
    return named


def _cosine(width: int) -> Any:
    def cosine(operand: Operand, i: int, j: int) -> Exact:
        dot = arith.total(arith.multiply(operand("Q", i, t), operand("K", j, t))
                          for t in range(width))
        lengths = arith.multiply(operand("q_norm", i, 0), operand("k_norm", j, 0))
        if isinstance(lengths, (fmpq, Surd)) and lengths == 0 or \
                isinstance(lengths, Surd) and lengths.coefficient == 0:
            return NAN                      # a zero vector has no direction
        return arith.divide(dot, lengths)
    return cosine


def _norm_rule(name: str, width: int) -> Any:
    def norm(operand: Operand, i: int, _: int) -> Exact:
        return arith.sqrt(arith.total(arith.multiply(operand(name, i, t), operand(name, i, t))
                                      for t in range(width)))
    return norm


def cosine_steps(earlier: Sequence[Step]) -> list[Step]:
    """q_norm, k_norm and cosine from the Q and K steps among ``earlier``."""
    (n, width), (m, _) = step_shape(earlier, "Q"), step_shape(earlier, "K")
    steps = [formula_step(COSINE_STEP_INFO["q_norm"], "q_norm", (n, 1), _norm_rule("Q", width),
                          earlier)]
    steps.append(formula_step(COSINE_STEP_INFO["k_norm"], "k_norm", (m, 1),
                              _norm_rule("K", width), [*earlier, *steps]))
    steps.append(formula_step(COSINE_STEP_INFO["cosine"], "cosine", (n, m), _cosine(width),
                              [*earlier, *steps]))
    return steps


def scale_step(problem: Problem) -> Step | None:
    """The scale as a 1 x 1 step, when it is a number (None for a symbolic scale)."""
    scale = problem.scale_value
    if not isinstance(scale, (fmpq, Surd)):
        return None
    info = COSINE_STEP_INFO["scale"]
    return Step("scale", info.symbol, info.formula, (), info.description,
                grids.ValueGrid([[scale]]), hidden=True)


def insert(problem: Problem, steps: Sequence[Step]) -> list[Step]:
    """``steps`` with the norms and cosines after the raw scores, as the spec asks."""
    from symattn.errors import InputError, Location

    out = list(steps)
    wanted = claimed_steps(problem.claims)
    shown = "cosine" in problem.diagnostics
    names = {step.name for step in out}
    after = next((k for k, s in enumerate(out) if s.name == "scores"), None)
    if shown or wanted & set(COSINE_STEPS):
        if after is None or not {"Q", "K"} <= names:
            raise InputError("norms and cosines need the queries Q and keys K of a single "
                             "head (given, or computed from X)",
                             Location(file=problem.source, key="diagnostics.cosine"
                                      if shown else "claims"))
        added = cosine_steps(out)
        if not shown:
            added = [dataclasses.replace(step, hidden=True) for step in added]
        out[after + 1:after + 1] = added
    scaled = next((s for s in out if s.name == "scaled"), None)
    if "scale" in wanted and "scale" not in names and scaled is not None and scaled.operands:
        step = scale_step(problem)
        if step is not None:
            index = next(k for k, s in enumerate(out) if s.name == "scaled")
            out.insert(index, step)
    return out
