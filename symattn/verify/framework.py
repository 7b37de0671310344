"""Printed numbers that are what a framework's floating-point format computed.

With a ``precision`` (``options.precision``, ``symattn check --precision``),
a printed number that is wrong for the exact value is compared with the value
the format gives (``derivation.precision``: the steps as NumPy and PyTorch
compute them on the CPU). If that value rounds to the printed number, the
number is ``ok`` with the flag ``framework_precision``, and the reason names
the format and its value. Weights and outputs are the max-shifted ones
(``torch.softmax``, ``np.exp(x - x.max())``); the exponentials are those of
the scores themselves, as ``exp`` always means.
"""

from __future__ import annotations

__all__ = ["reconsider"]

import dataclasses
import math

from flint import fmpq

from symattn.derivation.precision import Framework, compute
from symattn.problem.problem import Problem
from symattn.values.decimals import UndecidedError, decide_scaled, fixed_decimal
from symattn.values.floats import exact_of
from symattn.values.rules import Rounding
from symattn.verify.verdicts import Reason, Verdict, reason_text


def reconsider(problem: Problem, verdicts: list[Verdict], rule: Rounding,
               precision: str) -> list[Verdict]:
    """The verdicts, each ``wrong`` one compared with what ``precision`` computes."""
    if precision == "exact" or not any(v.verdict == "wrong" for v in verdicts):
        return verdicts
    framework = compute(problem, precision)
    return [_judge(verdict, framework, rule) if verdict.verdict == "wrong" else verdict
            for verdict in verdicts]


def _judge(verdict: Verdict, framework: Framework, rule: Rounding) -> Verdict:
    claim = verdict.claim
    target, printed = claim.target, claim.printed
    if target.part != "entry" or target.step not in framework or printed.exact or \
            not isinstance(printed.value, fmpq) or \
            any(reason.key == "unfollowed" for reason in verdict.reasons):
        return verdict      # (a line that does not add up is wrong in any format)
    value = framework.value(target.step, target.row, target.column)
    if not math.isfinite(value):
        return verdict
    scale = fmpq(100) if printed.percent else fmpq(1)
    scaled = exact_of(value) * scale
    try:
        rounded = decide_scaled(scaled, printed.places, rule)
    except UndecidedError:
        return verdict
    if rounded != int(printed.value * fmpq(10) ** printed.places):
        return verdict
    unit = "%" if printed.percent else ""
    reasons = (Reason.of("rounded.framework_precision", format=framework.format,
                         shown=fixed_decimal(scaled, max(printed.places, 0) + 3) + "..." + unit,
                         exact=verdict.exact_decimal, rounded=verdict.exact_rounded),)
    return dataclasses.replace(verdict, verdict="ok", reasons=reasons, reason=reason_text(reasons),
                               flags=verdict.flags + ("framework_precision",))
