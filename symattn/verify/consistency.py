"""Printings of one quantity that no single value could share are flagged.

0.394 and 0.395 clash (no number rounds to both); 39% and 0.395 do not. A
printed closed form clashes with a decimal it cannot round to.

>>> from symattn.values.rounding import Rounding
>>> from symattn.verify.claims import read_printed
>>> compatible(read_printed("0.394"), read_printed("0.395"), Rounding.HALF_UP)
False
>>> compatible(read_printed("39%"), read_printed("0.395"), Rounding.HALF_UP)
True
"""

from __future__ import annotations

__all__ = ["flag_inconsistent", "flag_carried_wrong", "compatible"]

import dataclasses

from flint import arb, fmpq

from symattn.values.exact import NEG_INF, to_ball
from symattn.values.rounding import Rounding, intervals_meet, printed_interval
from symattn.verify.claims import Printed, Target
from symattn.verify.verdicts import Named, Reason, Verdict, reason_text


def flag_inconsistent(verdicts: list[Verdict], rule: Rounding) -> list[Verdict]:
    """Flag each printing that no single value could share with another printing
    of the same quantity (0.394 and 0.395 clash; 39% and 0.395 do not)."""
    groups: dict[Target, list[int]] = {}
    for index, verdict in enumerate(verdicts):
        groups.setdefault(verdict.claim.target, []).append(index)
    result = list(verdicts)
    for indices in groups.values():
        clashing = _clashing_pairs([verdicts[k].claim.printed for k in indices], rule)
        if not clashing:
            continue
        # The same printing clashes with the same others: worded once per distinct
        # printing, not once per printing (4,000 printings of one entry were quadratic).
        others: dict[Printed, str] = {}
        for k in indices:
            printed = verdicts[k].claim.printed
            if printed not in others:
                others[printed] = _others([verdicts[m] for m in indices
                                           if (printed, verdicts[m].claim.printed) in clashing])
            if others[printed]:
                result[k] = _flagged(verdicts[k], others[printed])
    return result


def _clashing_pairs(printings: list[Printed], rule: Rounding) -> set[tuple[Printed, Printed]]:
    """The pairs of the distinct printings that are not ``compatible``: each pair judged
    once, however often the document printed the quantity (4,000 equal printings: one)."""
    if len(printings) < 2:
        return set()
    distinct = list(dict.fromkeys(printings))
    return {(first, second) for first in distinct for second in distinct
            if not compatible(first, second, rule)}


def flag_carried_wrong(verdicts: list[Verdict]) -> list[Verdict]:
    """Flag each number carried forward from a printed number that is itself wrong:
    right from the printed 0.37, but 0.37 is wrong."""
    wrong = {v.claim: v for v in verdicts if v.verdict == "wrong"}
    result = []
    for verdict in verdicts:
        sources = [wrong[c] for c in verdict.used if c in wrong] \
            if verdict.verdict == "propagated" else []
        if sources:
            named = tuple(f"{source.position} = {source.printed}" for source in sources)
            reason = Reason.of("carried_wrong", tuple(
                Named(s.claim.target, s.position, s.printed) for s in sources))
            verdict = dataclasses.replace(
                verdict, flags=verdict.flags + ("carried_wrong",), carried_wrong=named,
                reason=verdict.reason + "; " + reason_text((reason,)),
                reasons=verdict.reasons + (reason,))
        result.append(verdict)
    return result


def _others(clashes: list[Verdict]) -> str:
    """The clashing printings as a reason names them: ``0.49 (label), 0.6``."""
    return ", ".join(other.printed + (f" ({other.label})" if other.label else "")
                     for other in clashes)


def _flagged(verdict: Verdict, others: str) -> Verdict:
    reasons = verdict.reasons + (Reason.of("inconsistent", others=others),)
    return dataclasses.replace(verdict, flags=verdict.flags + ("inconsistent",),
                               reason=verdict.reason + f"; printed differently elsewhere: {others}",
                               reasons=reasons)


def compatible(first: Printed, second: Printed, rule: Rounding) -> bool:
    """Whether one value could be printed both ways."""
    if first.value is NEG_INF or second.value is NEG_INF:
        return first.value is second.value
    if first.exact and second.exact:
        return bool(first.value == second.value)
    if first.exact or second.exact:
        closed, decimal = (first, second) if first.exact else (second, first)
        low, _, high, _ = _rounding_interval(decimal, rule)
        ball = to_ball(closed.number, 128)
        return ball is None or bool(ball.overlaps(_ball_between(low, high)))
    return intervals_meet(_rounding_interval(first, rule), _rounding_interval(second, rule))


def _ball_between(low: fmpq, high: fmpq) -> arb:
    return arb((low + high) / 2, (high - low) / 2)


def _rounding_interval(printed: Printed, rule: Rounding) -> tuple[fmpq, bool, fmpq, bool]:
    """Values that print as ``printed`` (a decimal) under ``rule``: (low, low closed,
    high, high closed)."""
    value = printed.number
    if not isinstance(value, fmpq):   # read_printed reads every decimal as a rational
        raise TypeError(f"{printed.text!r} is not a printed decimal")
    places = printed.places + (2 if printed.percent else 0)
    unit = fmpq(1, 10) ** places if places >= 0 else fmpq(10) ** -places
    if printed.continues:
        # the digits shown begin the value: rounded or cut off
        low = value - unit / 2 if value > 0 else value - unit
        high = value + unit if value > 0 else value + unit / 2
        return low, True, high, False
    return printed_interval(value, unit, rule)
