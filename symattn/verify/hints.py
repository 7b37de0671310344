"""What a wrong printed number does match: the usual slips, named for the reader.

Truncation instead of rounding (of the exact value, or of the value from the
document's own numbers), the opposite sign, a different entry of the same
step, and the value without the 1/sqrt(d_k) scaling. The hints are a
courtesy: a value whose rounding cannot be decided raises ``UndecidedError``
and the caller gives none.

>>> import symattn
>>> from symattn.values.rounding import Rounding
>>> from symattn.verify.claims import Claim, Target, read_printed
>>> derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
>>> hints = WrongHints(derivation, Rounding.HALF_UP)
>>> claim = Claim("scores[2,3]", "", Target("scores", 1, 2), read_printed("0.8"), 0)
>>> found = hints.explain(claim, derivation["scores"].value.exact(1, 2), 8, 1, fmpq(1), None)
>>> [(reason.key, [named.position for named in reason.entries]) for reason in found]
[('match_other_entry', ['scores[1,3]'])]
"""

from __future__ import annotations

__all__ = ["WrongHints"]

import dataclasses

from flint import fmpq

from symattn.derivation.pipeline import derive
from symattn.derivation.steps import Derivation
from symattn.errors import InputError
from symattn.values import arith
from symattn.values.decimals import UndecidedError, decide_scaled
from symattn.values.exact import NAN, NEG_INF, Exact
from symattn.values.rounding import Rounding
from symattn.verify.claims import Claim, Target
from symattn.verify.targets import exact_value, position
from symattn.verify.verdicts import Named, Reason

_SEARCH_LIMIT = 4096        # entries searched for "matches a different entry"
# The steps after the scaling, where a forgotten 1/sqrt(d_k) shows.
_SCALED_STEPS = ("scaled", "masked", "exp", "exp_sum", "weights", "output")


class WrongHints:
    """The slips a wrong number matches, for one derivation and rounding rule."""

    def __init__(self, derivation: Derivation, rule: Rounding) -> None:
        self.derivation = derivation
        self.rule = rule
        self._unscaled: Derivation | None | bool = False   # False: not derived yet

    def decide(self, value: Exact, places: int, rule: Rounding | None = None) -> int:
        return decide_scaled(value, places, rule or self.rule)

    def explain(self, claim: Claim, value: Exact, printed_scaled: int, places: int,
                scale: fmpq, recomputed: Exact | None) -> list[Reason]:
        """What a wrong number (``printed_scaled`` at ``places``) does match, if anything;
        ``value`` is the exact value times ``scale`` (100 for a percentage)."""
        found = self._truncations(value, printed_scaled, places, scale, recomputed)
        if self.decide(arith.multiply(value, fmpq(-1)), places) == printed_scaled:
            found.append(Reason.of("match_sign"))
        target = claim.target
        if target.part == "entry":
            other = self._other_entry(target, printed_scaled, places, scale)
            if other is not None:
                found.append(Reason.of("match_other_entry", (other,)))
            unscaled = self._unscaled_value(target)
            if unscaled is not None and self.decide(arith.multiply(unscaled, scale),
                                                    places) == printed_scaled:
                found.append(Reason.of("match_unscaled"))
        return found

    def _truncations(self, value: Exact, printed_scaled: int, places: int, scale: fmpq,
                     recomputed: Exact | None) -> list[Reason]:
        if self.rule is Rounding.TRUNCATE:
            return []
        found = []
        if self.decide(value, places, Rounding.TRUNCATE) == printed_scaled:
            found.append(Reason.of("match_truncation"))
        if recomputed is not None and self.decide(
                arith.multiply(recomputed, scale), places, Rounding.TRUNCATE) == printed_scaled:
            found.append(Reason.of("match_truncation_document"))
        return found

    def _other_entry(self, target: Target, printed_scaled: int, places: int,
                     scale: fmpq) -> Named | None:
        """The first other entry of the step (its own row first) that prints the same."""
        grid = self.derivation[target.step].value
        rows, columns = grid.shape
        if rows * columns > _SEARCH_LIMIT:
            return None
        order = [(target.row, c) for c in range(columns)] + \
            [(r, c) for r in range(rows) for c in range(columns) if r != target.row]
        for r, c in order:
            if (r, c) == (target.row, target.column):
                continue
            value = grid.exact(r, c)
            if value is NEG_INF or value is NAN or not getattr(value, "is_numeric", True):
                continue
            try:
                if self.decide(arith.multiply(value, scale), places) == printed_scaled:
                    other = Target(target.step, r, c)
                    return Named(other, position(self.derivation.problem, other))
            except UndecidedError:
                continue
        return None

    def _unscaled_value(self, target: Target) -> Exact | None:
        """The target's exact value with scale and temperature 1 (derived once, on demand)."""
        derivation = self.derivation
        if target.step not in _SCALED_STEPS or "scaled" not in derivation or \
                not derivation["scaled"].operands:
            return None
        if self._unscaled is False:
            variant = dataclasses.replace(derivation.problem, scale=fmpq(1), temperature=fmpq(1))
            try:
                self._unscaled = derive(variant)
            except InputError:
                self._unscaled = None
        if not isinstance(self._unscaled, Derivation):
            return None
        value = exact_value(self._unscaled, target)
        return None if value is NEG_INF or value is NAN else value
