"""Printed numbers judged against inputs that were themselves printed rounded.

With ``inputs_printed = "rounded"`` (``problem.printed_inputs``) each entry of a
rounded input stands for every number that prints as it: the ball of half a
unit in its last printed place around it. A printed number that is wrong for
the inputs as printed is looked at again, and decided with ``arb`` balls
(``verify.input_balls``), never by sampling:

- **wrong for every input**: the enclosure of its value over the whole box of
  inputs misses the interval of numbers that round to it. It stays ``wrong``,
  and the reason says so.
- **right for some input** (``ok`` with the flag ``input_rounding``): an input
  point strictly inside the box is found whose value provably rounds to it;
  or two such points whose values provably lie on either side of the printed
  number. Then, the value being continuous on the segment between them, some
  input on it gives the printed number exactly (intermediate value theorem),
  which rounds to itself under every rule. The points are the box's corners
  that push the value up and down (each entry moved to 0.999999 of its half-width
  in the direction that raises or lowers the value, found from the value at
  the ends of that entry's interval; with few entries, looked at again from each
  corner). The reason names the matrices whose
  unprinted digits it takes, one alone where one is enough.
- otherwise ``undecided``: never wrong without proof. So is every number that is
  not proved wrong when more than ``MOST_ENTRIES`` entries are rounded (the search
  computes the steps twice per entry).
"""

from __future__ import annotations

__all__ = ["reconsider"]

import dataclasses
from functools import cached_property

from flint import arb, fmpq

from symattn.derivation.names import split_name
from symattn.derivation.steps import STEP_INFO
from symattn.problem.problem import Problem
from symattn.values.exact import NEG_INF, working_precision
from symattn.values.rules import Rounding
from symattn.verify.claims import Target
from symattn.verify.input_balls import BITS, ENCLOSED_STEPS, Balls, Box, dependencies, evaluate
from symattn.verify.verdicts import Reason, Verdict, reason_text

_INSIDE = fmpq(999999, 10 ** 6)   # how far towards its interval's end an entry is moved
# The witness search computes every step twice per rounded entry; beyond this many
# entries it is not tried (a number not proved wrong is then undecided).
MOST_ENTRIES = 256
# Wrong for a reason no input changes: a line that does not add up (--working), a mask.
_NOT_ABOUT_VALUES = frozenset({"unfollowed", "masked", "not_masked"})
_REFINED_ENTRIES = 64   # up to this many entries, a second look from each corner


def reconsider(problem: Problem, verdicts: list[Verdict], rule: Rounding) -> list[Verdict]:
    """The verdicts, each ``wrong`` one decided again over the rounded inputs."""
    if not problem.rounded_inputs:
        return verdicts
    study = _Study(problem, rule)
    return [study.judge(verdict) if verdict.verdict == "wrong" else verdict
            for verdict in verdicts]


class _Study:
    """The box of rounded inputs of one problem and the balls computed over it."""

    def __init__(self, problem: Problem, rule: Rounding) -> None:
        self.problem = problem
        self.rule = rule
        self.halves: dict[Box, fmpq] = {}
        for name in problem.rounded_inputs:
            for i, row in enumerate(problem.inputs[name]):
                for j, entry in enumerate(row):
                    if entry.places is not None and isinstance(entry.value, fmpq):
                        self.halves[(name, i, j)] = fmpq(1, 2 * 10 ** entry.places)

    @property
    def supported(self) -> bool:
        """One head of numbers: what ``input_balls`` computes."""
        problem = self.problem
        return problem.heads == 1 and "W_O" not in problem.inputs and not problem.is_symbolic

    @cached_property
    def enclosure(self) -> Balls:
        return evaluate(self.problem, self.halves, {})

    @cached_property
    def ends(self) -> dict[Box, tuple[Balls, Balls]]:
        """For each rounded entry: the steps with it moved down, and up, to 0.999999 of its
        half-width (the other entries as printed)."""
        return {box: tuple(evaluate(self.problem, {}, {box: sign * _INSIDE * half})
                           for sign in (-1, 1))     # type: ignore[misc]
                for box, half in self.halves.items()}

    def judge(self, verdict: Verdict) -> Verdict:
        claim = verdict.claim
        printed = claim.printed
        relevant = self._relevant(claim.target)
        if not relevant or printed.value is NEG_INF or verdict.exact == "-oo" or \
                any(reason.key in _NOT_ABOUT_VALUES for reason in verdict.reasons):
            return verdict
        number = printed.number
        if not self.supported or printed.exact or claim.target.part not in ("entry", "sum") \
                or not isinstance(number, fmpq) or _value(self.enclosure, claim.target) is None:
            return self._undecided(verdict, relevant)
        low, high = _rounds_to(number, printed.places, printed.percent, self.rule)
        with working_precision(BITS):
            whole = _value(self.enclosure, claim.target)
            assert whole is not None
            if whole < low or whole > high:
                return _add(verdict, Reason.of("rounded.every_input",
                                               math_matrices=_symbols(relevant)))
        if not self._some_input(claim.target, relevant, low, high):
            return self._undecided(verdict, relevant)
        named = next((tuple([name]) for name in relevant if len(relevant) > 1 and
                      self._some_input(claim.target, (name,), low, high)), relevant)
        reasons = (Reason.of("rounded.input_rounding", math_matrices=_symbols(named)),
                   Reason.of("rounded.as_printed", rounded=verdict.exact_rounded,
                             exact=verdict.exact_decimal))
        return dataclasses.replace(verdict, verdict="ok", reasons=reasons,
                                   reason=reason_text(reasons),
                                   flags=verdict.flags + ("input_rounding",))

    def _relevant(self, target: Target) -> tuple[str, ...]:
        step = split_name(target.step)[1]        # head2.weights: as weights
        return tuple(name for name in dependencies(step, tuple(self.problem.inputs))
                     if name in self.problem.rounded_inputs)

    def _undecided(self, verdict: Verdict, relevant: tuple[str, ...]) -> Verdict:
        if not relevant:
            return verdict
        reasons = verdict.reasons + (Reason.of("rounded.input_undecided",
                                               math_matrices=_symbols(relevant)),)
        return dataclasses.replace(verdict, verdict="undecided", reasons=reasons,
                                   reason=reason_text(reasons))

    def _some_input(self, target: Target, names: tuple[str, ...], low: fmpq, high: fmpq
                    ) -> bool:
        """Whether some inputs in the box (only the entries of ``names`` moved) provably
        give a value that rounds into [low, high]: the corners the slopes point to, then
        (for a few entries) the corners the slopes at those corners point to."""
        boxes = [box for box in self.halves if box[0] in names]
        if len(self.halves) > MOST_ENTRIES or not boxes:
            return False
        rising = self._slopes(target, boxes, {})
        if rising is None or not any(rising.values()):
            return False
        ends = [{box: sign * direction * _INSIDE * self.halves[box]
                 for box, direction in rising.items()} for sign in (-1, 1)]
        for attempt in range(2):
            values = [self._at(target, shift) for shift in ends]
            if _settles(values, low, high):
                return True
            if attempt or len(boxes) > _REFINED_ENTRIES:
                return False
            for k, sign in enumerate((-1, 1)):     # the slopes where each corner stands
                slopes = self._slopes(target, boxes, ends[k])
                if slopes is None:
                    return False
                ends[k] = {box: sign * direction * _INSIDE * self.halves[box]
                           for box, direction in slopes.items()}
        return False

    def _at(self, target: Target, shift: dict[Box, fmpq]) -> arb | None:
        return _value(evaluate(self.problem, {}, shift), target)

    def _slopes(self, target: Target, boxes: list[Box], base: dict[Box, fmpq]
                ) -> dict[Box, int] | None:
        """For each entry: +1 if moving it up (from ``base``) raises the value, -1 if it
        lowers it, 0 if neither shows."""
        slopes: dict[Box, int] = {}
        for box in boxes:
            if base:
                down, up = (self._at(target, {**base, box: sign * _INSIDE * self.halves[box]})
                            for sign in (-1, 1))
            else:
                down, up = (_value(balls, target) for balls in self.ends[box])
            if down is None or up is None:
                return None
            with working_precision(BITS):
                rise = up.mid() - down.mid()
                slopes[box] = 1 if rise > 0 else -1 if rise < 0 else 0
        return slopes


def _settles(values: list[arb | None], low: fmpq, high: fmpq) -> bool:
    """Whether one value provably rounds into (low, high), or two lie on either side of
    its middle (then some point between them gives the middle exactly)."""
    if any(value is None for value in values):
        return False
    with working_precision(BITS):
        middle = (low + high) / 2
        inside = any(low < value < high for value in values)     # type: ignore[operator]
        below = [value < middle for value in values]            # type: ignore[operator]
        above = [value > middle for value in values]            # type: ignore[operator]
        return inside or (below[0] and above[1]) or (above[0] and below[1])


def _value(balls: Balls, target: Target) -> arb | None:
    """A claim's value among the balls (an entry, or a row's sum)."""
    if target.step not in balls or (target.step not in ENCLOSED_STEPS and
                                    target.step.startswith(("head", "ffn"))):
        return None
    row = balls[target.step][target.row]
    if target.part == "sum":
        total = arb(0)
        for value in row:
            if value is None:
                return None
            total += value
        return total
    return row[target.column]


def _rounds_to(number: fmpq, places: int, percent: bool, rule: Rounding) -> tuple[fmpq, fmpq]:
    """The closed interval of values that round to a printed number (on the value's scale)."""
    unit = fmpq(1, 10 ** places) if places >= 0 else fmpq(10 ** -places)
    if percent:
        unit /= 100
    if rule is Rounding.TRUNCATE:
        return (number, number + unit) if number >= 0 else (number - unit, number)
    return number - unit / 2, number + unit / 2


def _symbols(names: tuple[str, ...]) -> str:
    return ", ".join(STEP_INFO[name].symbol if name in STEP_INFO else name for name in names)


def _add(verdict: Verdict, reason: Reason) -> Verdict:
    reasons = verdict.reasons + (reason,)
    return dataclasses.replace(verdict, reasons=reasons, reason=reason_text(reasons))
