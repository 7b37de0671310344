"""What a wrong printed number does match: the slips of the catalogue, named for the reader.

Every slip of ``verify.slips.CATALOGUE`` is tried on a wrong number: a slip
of the computation by the slipped value of the claim's own entry (the slipped
derivations are made once, when the first wrong number asks), a slip of the
writing by the right value written its way (truncation also of the value
from the document's own numbers), and ``other_entry`` by the other entries of
the same step, its own row first. A slip is named only when its exact value
rounds, under the rule in force and at the printed places, to the printed
number; two slips that give the same number are both named; a number no slip
gives is just wrong. The hints are a courtesy: a slipped value whose rounding
cannot be decided is passed over.

>>> import symattn
>>> from symattn.values.rounding import Rounding
>>> from symattn.verify.claims import Claim, Target, read_printed
>>> derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
>>> hints = WrongHints(derivation, Rounding.HALF_UP)
>>> claim = Claim("scores[2,3]", "", Target("scores", 1, 2), read_printed("0.8"), 0)
>>> found = hints.explain(claim, derivation["scores"].value.exact(1, 2), 8, 1, fmpq(1), None)
>>> [(reason.key, dict(reason.args)["slip"], [named.position for named in reason.entries])
...  for reason in found]
[('slip.match_entries', 'other_entry', ['scores[1,3]'])]
"""

from __future__ import annotations

__all__ = ["WrongHints", "slip_reason"]

from flint import fmpq

from symattn.derivation.steps import Derivation
from symattn.values import arith
from symattn.values.decimals import UndecidedError, decide_scaled
from symattn.values.exact import NAN, NEG_INF, Exact
from symattn.values.rounding import Rounding
from symattn.verify.claims import Claim, Target
from symattn.verify.slips import CATALOGUE, Outcome, Slip
from symattn.verify.targets import position
from symattn.verify.verdicts import Named, Reason

_SEARCH_LIMIT = 4096        # entries searched for "matches a different entry"


def slip_reason(slip: str, entries: tuple[Named, ...] = ()) -> Reason:
    """The clause naming a slip (the message ``slip.match``: its name and explanation;
    with the entries it matches, ``slip.match_entries``)."""
    if entries:
        return Reason.of("slip.match_entries", entries, slip=slip)
    return Reason.of("slip.match", slip=slip, slip_explain=slip)


class WrongHints:
    """The slips a wrong number matches, for one derivation and rounding rule."""

    def __init__(self, derivation: Derivation, rule: Rounding) -> None:
        self.derivation = derivation
        self.rule = rule
        self._outcomes: dict[str, tuple[Outcome, ...]] = {}

    def decide(self, value: Exact, places: int, rule: Rounding | None = None) -> int:
        return decide_scaled(value, places, rule or self.rule)

    def outcomes(self, slip: Slip) -> tuple[Outcome, ...]:
        """The slip's outcomes on this derivation, made when first asked."""
        found = self._outcomes.get(slip.id)
        if found is None:
            found = self._outcomes[slip.id] = slip.outcomes(self.derivation) \
                if slip.outcomes is not None else ()
        return found

    def explain(self, claim: Claim, value: Exact, printed_scaled: int, places: int,
                scale: fmpq, recomputed: Exact | None) -> list[Reason]:
        """The clauses naming each slip that gives the wrong number (``printed_scaled`` at
        ``places``); ``value`` is the exact value times ``scale`` (100 for a percentage)."""
        found = []
        for slip in CATALOGUE:
            if slip.elsewhere:
                other = self._other_entry(claim.target, printed_scaled, places, scale)
                if other is not None:
                    found.append(slip_reason(slip.id, (other,)))
            elif printed_scaled in self.printed(slip, claim.target, value, places, scale,
                                                recomputed):
                found.append(slip_reason(slip.id))
        return found

    def explain_masked(self, claim: Claim, printed_scaled: int | None = None, places: int = 0,
                       scale: fmpq = fmpq(1)) -> list[Reason]:
        """The slips of the computation that give a wrong -inf (``printed_scaled`` None: the
        entry is open, the slip masks it) or a number where the entry is masked."""
        found = []
        for slip in CATALOGUE:
            if slip.outcomes is None:
                continue
            if printed_scaled is None:
                hit = any(outcome.masks(claim.target) for outcome in self.outcomes(slip))
            else:
                hit = printed_scaled in self.printed(slip, claim.target, fmpq(0), places, scale)
            if hit:
                found.append(slip_reason(slip.id))
        return found

    def printed(self, slip: Slip, target: Target, value: Exact, places: int, scale: fmpq,
                recomputed: Exact | None = None) -> set[int]:
        """The numbers the slip prints for ``target`` at ``places`` (as integers on the
        printed scale), each decided with certainty; ``value`` is the right value on that
        scale. A grader asks this of every blank."""
        if slip.written is not None:
            return self._written(slip, value, places, scale, recomputed)
        printed = set()
        for outcome in self.outcomes(slip):
            slipped = outcome.value(target)
            if slipped is None or not getattr(slipped, "is_numeric", True):
                continue
            try:
                printed.add(self.decide(arith.multiply(slipped, scale), places))
            except (UndecidedError, ValueError):
                continue
        return printed

    def _written(self, slip: Slip, value: Exact, places: int, scale: fmpq,
                 recomputed: Exact | None) -> set[int]:
        assert slip.written is not None
        values = [value]
        if slip.id == "truncation" and recomputed is not None:
            values.append(arith.multiply(recomputed, scale))
        printed = set()
        for one in values:
            try:
                written = slip.written(one, places, self.rule, scale)
            except (UndecidedError, ValueError):
                continue
            if written is not None:
                printed.add(written)
        return printed

    def _other_entry(self, target: Target, printed_scaled: int, places: int,
                     scale: fmpq) -> Named | None:
        """The first other entry of the step (its own row first) that prints the same."""
        if target.part != "entry":
            return None
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
