"""The max-shift of seed 004's NumPy code: subtract the row maximum, then exp.

``np.exp(x - x.max())`` computes the same weights as ``np.exp(x)``, because

    softmax(z)_j = e^{z_j - m} / sum_k e^{z_k - m} = e^{z_j} / sum_k e^{z_k},  m = max_k z_k

(the factor e^{-m} cancels), while every shifted exponential is at most 1, so
none overflows. The steps, after exp_sum of each family (one head, or each
head with its prefix), each a ``formula_step`` whose entry rule the checker
follows along a document's printed numbers::

    row_max          m_i = max_j Z_ij            (over the keys row i may see)
    shifted          Z'_ij = Z_ij - m_i
    exp_shifted      E'_ij = e^{Z'_ij}
    exp_shifted_sum  Sigma'_i = sum_j E'_ij

``exp`` and ``exp_sum`` stay in the derivation (a claim on ``exp`` keeps
meaning e^z) but are hidden from the page, and the weights are written as
E'_ij / Sigma'_i. Their values do not change.

``options.max_shift`` (and ``symattn derive --max-shift``): true or false
force it; "auto" (the default) shifts a family whose exponentials would pass
about 10^6, unless the spec's claims are about its unshifted exponentials (the
document printed those, so the page shows them), and a family whose shifted
steps the claims name.

>>> from symattn.problem.problem import Problem
>>> from symattn.derivation.pipeline import derive
>>> derivation = derive(Problem.from_mapping({"inputs": {"scaled": [[180, 210, 95]]}}))
>>> [step.name for step in derivation if not step.hidden]
['scaled', 'row_max', 'shifted', 'exp_shifted', 'exp_shifted_sum', 'weights']
>>> [derivation["shifted"].value.exact(0, j) for j in range(3)]
[-30, 0, -115]
>>> derivation["exp_shifted"].value.exact(0, 1), derivation["exp"].value.text(0, 1)
(1, 'exp(210)')
"""

from __future__ import annotations

__all__ = ["LIMIT", "SHIFT_STEP_INFO", "apply", "wanted", "row_maximum"]

import dataclasses
import re
from typing import Mapping, Sequence

from flint import arb, fmpq

from symattn.derivation.grids import MaskedGrid, ScaledGrid
from symattn.derivation.names import split_name
from symattn.derivation.steps import EntryRule, Operand, Step, StepInfo, formula_step
from symattn.problem.modes import Normalisation
from symattn.problem.problem import Problem
from symattn.values import arith
from symattn.values.exact import NAN, NEG_INF, Exact, Irrational, NegInf, Surd, to_ball

LIMIT = 10 ** 6          # "about 10^6": beyond this an exponential is shifted in auto mode
_EXACT_KINDS = (fmpq, Surd, Irrational)
SHIFT_STEP_INFO: dict[str, StepInfo] = {
    "row_max": StepInfo("m", "\\max_j Z_{ij}", ("masked",), "the largest score of each row"),
    "shifted": StepInfo("Z'", "Z_{ij} - m_i", ("masked", "row_max"),
                        "each score minus the largest score of its row"),
    "exp_shifted": StepInfo("E'", "e^{Z_{ij} - m_i}", ("shifted",),
                            "exponentials of the shifted scores"),
    "exp_shifted_sum": StepInfo("\\Sigma'", "\\sum_j e^{Z_{ij} - m_i}", ("exp_shifted",),
                                "row sums of the shifted exponentials"),
}
_CLAIM_ON_EXP = re.compile(r"^\s*(?P<prefix>(?:head\d+\.)?)(?:exp|exp_sum)\s*(?:[\[.@]|$)")
_CLAIM_ON_SHIFT = re.compile(r"^\s*(?P<prefix>(?:head\d+\.)?)"
                            r"(?:row_max|shifted|exp_shifted|exp_shifted_sum)\s*(?:[\[.@]|$)")


def row_maximum(values: Sequence[Exact]) -> Exact:
    """The largest of ``values`` that is not -oo (compared exactly, or on proved balls);
    0 when every one is -oo (a fully masked row: nothing to subtract).

    >>> row_maximum([fmpq(1, 2), NEG_INF, fmpq(3, 4)])
    3/4
    """
    best: Exact | None = None
    for value in values:
        if value is NEG_INF or value is NAN:
            continue
        if best is None or arith.sign(arith.subtract(value, best)) > 0:
            best = value
    return fmpq(0) if best is None else best


def _claimed_prefixes(claims: Mapping[str, object], pattern: re.Pattern[str]) -> set[str]:
    """The families (head prefixes) of the claims whose key matches ``pattern``."""
    return {match["prefix"] for key in claims if (match := pattern.match(str(key)))}


def _too_large(step: Step) -> bool:
    """Whether some row sum of exponentials is above ``LIMIT`` (on a ball's midpoint).

    A large grid asks its double-precision enclosure first (every row at once):
    rows it places clearly above or below the limit are settled there, the
    others by a ball, as small grids are.
    """
    grid = step.value
    rows: Sequence[int] = grid.rows()
    enclosure = getattr(grid, "enclosure", None)
    if enclosure is not None and grid.shape[0] * getattr(grid, "entry_cost", 1) >= 4096:
        whole = enclosure()
        if whole is not None:
            margin = 1e-9 * LIMIT
            low, high = whole.mid[:, 0] - whole.rad[:, 0], whole.mid[:, 0] + whole.rad[:, 0]
            if bool((whole.known & (low > LIMIT + margin)).any()):
                return True
            rows = [i for i in rows if not (whole.known[i] and high[i] < LIMIT - margin)]
    for i in rows:
        value = grid.exact(i, 0)
        if isinstance(value, fmpq):
            if value > LIMIT:
                return True
            continue
        if not isinstance(value, _EXACT_KINDS):
            return False
        ball = to_ball(value, 64)
        if ball is not None and ball.mid() > arb(LIMIT):
            return True
    return False


def _source(steps: Sequence[Step], prefix: str) -> str:
    """The step the exponentials read: masked, else scaled (or, with options.order, the
    last of the document's operations)."""
    exp = next((step for step in steps if step.name == prefix + "exp"), None)
    if exp is not None and len(exp.operands) == 1:
        return exp.operands[0]
    names = {step.name for step in steps}
    return prefix + ("masked" if prefix + "masked" in names else "scaled")


def wanted(problem: Problem, steps: Sequence[Step], prefix: str) -> bool:
    """Whether the family ``prefix`` ("" or "head1.") is shown max-shifted."""
    by_name = {step.name: step for step in steps}
    if problem.max_shift is False or prefix + "exp_sum" not in by_name or \
            problem.normalisation != Normalisation.SOFTMAX:
        return False
    source = by_name.get(_source(steps, prefix))
    if source is None:
        return False
    # The fast core's scaled and masked grids hold numbers by construction, and a grid
    # whose entries are made only when read (positions) says so (fast_kinds): no need
    # to make every entry here.
    fast = isinstance(source.value, (MaskedGrid, ScaledGrid)) or \
        getattr(source.value, "fast_kinds", False)
    if not fast and any(not isinstance(source.value.exact(i, j), _EXACT_KINDS + (NegInf,))
                        for i in source.value.rows() for j in source.value.columns()):
        return False           # the SymPy path: its values are expressions
    if problem.max_shift is True or prefix in _claimed_prefixes(problem.claims, _CLAIM_ON_SHIFT):
        return True
    return prefix not in _claimed_prefixes(problem.claims, _CLAIM_ON_EXP) and \
        _too_large(by_name[prefix + "exp_sum"])


def _info(name: str, prefix: str, source: str) -> StepInfo:
    info = SHIFT_STEP_INFO[name]
    operands = tuple(source if o in ("masked", "scaled") else prefix + o for o in info.operands)
    return StepInfo(info.symbol, info.formula, operands, info.description)


def _family(problem: Problem, steps: list[Step], prefix: str) -> list[Step]:
    """The family's steps with the shift inserted after exp_sum."""
    source = _source(steps, prefix)
    shape = next(step.shape for step in steps if step.name == source)
    n, m = shape
    earlier = list(steps)
    added: list[Step] = []
    # Scores made only when read (positions) keep the shifted steps so too; each
    # entry's closed form then has at most twice the terms of its row.
    grid = next(step for step in steps if step.name == source).value
    row_terms = getattr(grid, "row_terms", None) if getattr(grid, "fast_kinds", False) else None
    lazy = (lambda i, _: 2 * row_terms(i)) if row_terms is not None else None

    def add(name: str, size: tuple[int, int], rule: EntryRule) -> None:
        added.append(formula_step(_info(name, prefix, source), prefix + name, size,
                                  rule, earlier + added, lazy))

    def maximum(operand: Operand, i: int, _: int) -> Exact:
        return row_maximum([operand(source, i, c) for c in range(m)])

    def shifted(operand: Operand, i: int, j: int) -> Exact:
        value = operand(source, i, j)
        if value is NEG_INF or value is NAN:
            return value
        return arith.subtract(value, operand(prefix + "row_max", i, 0))

    add("row_max", (n, 1), maximum)
    add("shifted", shape, shifted)
    add("exp_shifted", shape, lambda operand, i, j: arith.exp(operand(prefix + "shifted", i, j)))
    add("exp_shifted_sum", (n, 1), lambda operand, i, _: arith.total(
        operand(prefix + "exp_shifted", i, c) for c in range(m)))
    out: list[Step] = []
    for step in steps:
        if step.name in (prefix + "exp", prefix + "exp_sum"):
            out.append(dataclasses.replace(step, hidden=True))
            if step.name == prefix + "exp_sum":
                out.extend(added)
        elif step.name == prefix + "weights":
            out.append(dataclasses.replace(
                step, formula="\\frac{E'_{ij}}{\\Sigma'_i}",
                operands=(prefix + "exp_shifted", prefix + "exp_shifted_sum")))
        else:
            out.append(step)
    return out


def apply(problem: Problem, steps: Sequence[Step]) -> list[Step]:
    """``steps`` with the max-shift inserted in every family that wants it."""
    out = list(steps)
    prefixes = [split_name(step.name)[0] for step in steps
                if split_name(step.name)[1] == "exp_sum"]
    for prefix in prefixes:
        if wanted(problem, out, prefix):
            out = _family(problem, out, prefix)
    return out
