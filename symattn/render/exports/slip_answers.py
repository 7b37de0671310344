"""The wrong answers a learning platform recognises: each slip's number for a blank, scored 0.

For a numeric blank that ``symattn check`` can judge (its claim), every slip
of ``verify.slips.CATALOGUE`` is asked what it prints at the blank's places
(``WrongHints.printed``: the slipped exact value, rounded half-up with
certainty; a rounding that cannot be decided gives nothing). ``other_entry``
gives the other entries of the blank's row in the same step, and
``percent_fraction`` applies to probabilities only (weights, probs). A number
the key itself prints is no slip answer, and neither is one whose interval
(the number plus or minus half a unit in its last place) touches the key's
(the key plus or minus its tolerance): a platform takes the first answer that
matches, and a right answer must never be scored 0. Slips that print the same
number are one answer naming each of them. Every slip answer is then proved
as the key is (``Worksheet.verify``): ``symattn check`` judges it, printed
for the blank's claim, and the answer is kept only when the verdict is wrong
and names a slip; the slips it names are the ones the feedback names.

A blank printed exactly (a whole score, an exact entropy) is tried at the
sheet's places, the places the instructions ask for.

>>> from symattn.worksheets import sheet as worksheet
>>> sheets = worksheet.build(seed=7, preset="lesson45")
>>> exercise = sheets[0].exercises[2]
>>> blank = exercise.blanks[0]
>>> blank.claim, blank.expected(), blank.tolerance_text()
((0, 'weights[3,1]'), '0.231', '0.0006')
>>> found = SlipAnswers(exercise, "en", 3).of(blank)
>>> [(wrong.value, wrong.slips) for wrong in found][:3]
[('0.114', ('no_scaling',)), ('0.292', ('dk_scaling',)), ('0.384', ('column_softmax',))]
"""

from __future__ import annotations

__all__ = ["Wrong", "SlipAnswers", "PROBABILITY_STEPS"]

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from flint import fmpq

from symattn import messages
from symattn.derivation.names import base_name
from symattn.derivation.steps import Derivation
from symattn.values.decimals import UndecidedError, decide_scaled
from symattn.values.exact import NAN, NEG_INF, terminating_places
from symattn.values.rounding import Rounding, format_scaled
from symattn.verify.claims import Target, read_claims
from symattn.verify.hints import WrongHints
from symattn.verify.slips import CATALOGUE, SLIPS
from symattn.worksheets.answers import derive_spec
from symattn.worksheets.model import Blank, Exercise, half_ulp

PROBABILITY_STEPS = frozenset({"weights", "probs"})
_RULE = Rounding.HALF_UP          # the rule the sheets' keys are rounded by


@dataclass(frozen=True)
class Wrong:
    """A slip's answer: ``value`` (a decimal with a point) within ``tolerance``, the slips
    that print it (catalogue order) and the feedback naming them (HTML, sheet language)."""

    value: str
    tolerance: str
    slips: tuple[str, ...]
    feedback: str


def _decimal(scaled: int, places: int) -> fmpq:
    return fmpq(scaled, 10 ** places)


class SlipAnswers:
    """The slip answers of one exercise's blanks (its problems derived once); ``html`` makes
    a catalog message (LaTeX text) the platform's HTML."""

    def __init__(self, exercise: Exercise, language: str, places: int,
                 html: Callable[[str], str] = str) -> None:
        self.exercise = exercise
        self.html = html
        self.catalog = messages.load(language)
        self.places = places
        self._derived: dict[int, tuple[Derivation, WrongHints]] = {}
        self._proved: dict[int, dict[str, tuple[Wrong, ...]]] = {}

    def _hints(self, problem: int) -> tuple[Derivation, WrongHints]:
        if problem not in self._derived:
            derivation = derive_spec(self.exercise.problems[problem])
            self._derived[problem] = (derivation, WrongHints(derivation, _RULE))
        return self._derived[problem]

    def _places(self, blank: Blank) -> int | None:
        """The places a slip's number is printed at; None where no slip is tried."""
        if blank.kind != "number" or blank.claim is None or blank.value is NEG_INF or \
                not self.exercise.problems:
            return None
        if blank.places is not None:
            return blank.places
        exact = terminating_places(blank.value) if isinstance(blank.value, fmpq) else None
        return self.places if exact is not None and exact <= self.places else None

    def of(self, blank: Blank) -> tuple[Wrong, ...]:
        """The blank's slip answers, in the order of their first slip in the catalogue,
        each confirmed by the checker."""
        if self._places(blank) is None:
            return ()
        assert blank.claim is not None
        problem = blank.claim[0]
        if problem not in self._proved:
            self._proved[problem] = self._prove(problem)
        return self._proved[problem].get(blank.id, ())

    def _prove(self, problem: int) -> dict[str, tuple[Wrong, ...]]:
        """Every candidate of the problem's blanks judged by one check; the confirmed ones."""
        from symattn.verify import checker

        candidates = {blank.id: (blank, self._candidates(blank)) for blank in
                      self.exercise.blanks if blank.claim is not None and
                      blank.claim[0] == problem and self._places(blank) is not None}
        claims = {f"{blank.claim[1]} @ {bid}-{k}": wrong.value
                  for bid, (blank, found) in candidates.items() if blank.claim is not None
                  for k, wrong in enumerate(found)}
        if not claims:
            return {}
        report = checker.check(derive_spec({**self.exercise.problems[problem],
                                            "claims": claims}))
        verdicts = {v.claim.key: v for v in report.verdicts}
        out: dict[str, tuple[Wrong, ...]] = {}
        for bid, (blank, found) in candidates.items():
            kept = []
            for k, wrong in enumerate(found):
                assert blank.claim is not None
                verdict = verdicts.get(f"{blank.claim[1]} @ {bid}-{k}")
                if verdict is None or verdict.verdict != "wrong" or not verdict.slips:
                    continue
                kept.append(Wrong(wrong.value, wrong.tolerance, verdict.slips, " ".join(
                    self.feedback(slip) for slip in verdict.slips)))
            out[bid] = tuple(kept)
        return out

    def _candidates(self, blank: Blank) -> tuple[Wrong, ...]:
        """The slips' numbers for the blank, before the checker has judged them."""
        places = self._places(blank)
        if places is None:
            return ()
        assert blank.claim is not None
        derivation, hints = self._hints(blank.claim[0])
        shapes = {step.name: step.shape for step in derivation.steps}
        (claim,) = read_claims({blank.claim[1]: "0"}, shapes,
                               derivation.problem.query_positions)
        printed = self._printed(derivation, hints, claim.target, blank.value, places)
        return self._answers(blank, printed, places)

    def _printed(self, derivation: Derivation, hints: WrongHints, target: Target, value: Any,
                 places: int) -> dict[int, list[str]]:
        """Each number a slip prints (as an integer at ``places``) -> the slips."""
        found: dict[int, list[str]] = {}
        for slip in CATALOGUE:
            if slip.id == "percent_fraction" and base_name(target.step) not in \
                    PROBABILITY_STEPS:
                continue
            numbers = self._elsewhere(derivation, target, places) if slip.elsewhere else \
                hints.printed(slip, target, value, places, fmpq(1))
            for number in sorted(numbers):
                found.setdefault(number, []).append(slip.id)
        return found

    def _elsewhere(self, derivation: Derivation, target: Target, places: int) -> set[int]:
        """The other entries of the target's row in the same step, rounded with certainty."""
        if target.part != "entry":
            return set()
        grid = derivation[target.step].value
        numbers = set()
        for column in range(grid.shape[1]):
            other = grid.exact(target.row, column)
            if column == target.column or other is NEG_INF or other is NAN or \
                    not getattr(other, "is_numeric", True):
                continue
            try:
                numbers.add(decide_scaled(other, places, _RULE))
            except (UndecidedError, ValueError):
                continue
        return numbers

    def _answers(self, blank: Blank, printed: Mapping[int, list[str]], places: int
                 ) -> tuple[Wrong, ...]:
        key = blank.value if blank.places is None else \
            _decimal(decide_scaled(blank.value, places, _RULE), places)
        reach = blank.tolerance() + half_ulp(places)
        tolerance = format_scaled(5, places + 1)
        out = []
        for number, slips in sorted(printed.items(), key=lambda item: min(
                _ORDER[s] for s in item[1])):
            if abs(_decimal(number, places) - key) <= reach:
                continue            # the key's own number, or too near it to tell apart
            out.append(Wrong(format_scaled(number, places), tolerance, tuple(slips),
                             " ".join(self.feedback(slip) for slip in slips)))
        return tuple(out)

    def feedback(self, slip: str) -> str:
        """The sentence naming ``slip``, through ``html``."""
        return self.html(self.catalog.fill(
            "lms.slip_feedback", name=self.catalog.text(f"slip.{slip}.name"),
            explain=self.catalog.text(f"slip.{slip}.explain")))


_ORDER = {slip: k for k, slip in enumerate(SLIPS)}
