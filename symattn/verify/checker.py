"""Verdicts on printed numbers: ok, propagated, wrong - decided with certainty.

For each claim the exact value is rounded to the printed places under the
rule in force (half-up unless the spec or the command says otherwise), with
``decimals.decide_scaled``: rationals exactly, everything else from certified
balls. A number that is not ok is recomputed along the document's own path
(``recompute``): every operand that the document printed is taken as printed
(rounded), every other operand is itself recomputed that way, down to the
inputs. If the printed number follows from that, it is ``propagated`` and the
report names the printed numbers that carried the rounding; otherwise it is
``wrong`` and the report says what it should be and what it does match
(``hints``). Verdicts are data (``verdicts``); nothing here raises for a
wrong number.

>>> import symattn
>>> report = check(symattn.derive(symattn.load_example("000-cat-chases-mouse")))
>>> [v.verdict for v in report.verdicts if v.position == "output[2,2]" and not v.label]
['propagated']
"""

from __future__ import annotations

__all__ = ["Verdict", "Report", "check", "VERDICTS", "FLAGS"]

import dataclasses
from dataclasses import dataclass
from typing import Callable, Sequence

from flint import fmpq

from symattn.defaults import DIGITS
from symattn.collector import uncollected
from symattn.derivation import pipeline
from symattn.derivation.steps import Derivation
from symattn.errors import InputError, Location, argument
from symattn.problem.problem import Problem
from symattn.values import arith
from symattn.values.decimals import UndecidedError, to_scientific
from symattn.values.exact import NAN, NEG_INF, Exact, Surd, exact_text
from symattn.values.rounding import Rounding, format_scaled, is_tie, parse_rounding
from symattn.verify import framework, input_rounding
from symattn.verify.batch import GridRoundings
from symattn.verify.claims import Claim, read_claims
from symattn.verify.consistency import flag_carried_wrong, flag_inconsistent
from symattn.verify.hints import WrongHints
from symattn.verify.recompute import DocumentPath
from symattn.verify.shown import SHOWN_EXTRA_PLACES, short_exponent, shown_decimal
from symattn.verify.targets import exact_value, has_divisor, position
from symattn.verify.verdicts import (FLAGS, VERDICTS, Named, Reason, Report, Verdict,
                                    reason_text)

_NO_DECIMAL = Reason.of("no_decimal")
NEAR_TIE = fmpq(1, 1000)   # within a thousandth of a unit in the last place of a midpoint

# decide(value, places, rule=None, at=None): ``GridRoundings.decide``
Decide = Callable[[Exact, int, "Rounding | None", "Claim | None"], int]


def tie_flags(decide: Decide, rule: Rounding, value: Exact, places: int, claim: Claim
              ) -> tuple[str, ...]:
    """("tie",) when the value is exactly halfway at the printed places, ("near-tie",)
    when it is within ``NEAR_TIE`` of a unit in the last place of a midpoint (not under
    truncation, which has no midpoints)."""
    if rule is Rounding.TRUNCATE:
        return ()
    if isinstance(value, fmpq):
        if is_tie(value, places, rule):
            return ("tie",)
        scaled = abs(value) * fmpq(10) ** places
        fraction = scaled - int(scaled.p) // int(scaled.q)
        return ("near-tie",) if abs(fraction - fmpq(1, 2)) < NEAR_TIE else ()
    # Irrational: is it within NEAR_TIE of a midpoint? Decide it on the
    # grid of thousandths of the last place (certified, like any rounding).
    try:
        fine = decide(value, places + 3, Rounding.TRUNCATE, claim)
    except UndecidedError:   # e.g. 1 - 10^-(10^9): not near a midpoint at these places
        return ()
    return ("near-tie",) if abs(fine) % 1000 in (499, 500) else ()


def check(derivation: Derivation | Problem, rounding: Rounding | str | None = None,
          working: bool = False, precision: str | None = None) -> Report:
    """Judge every claim of the derivation's problem (a ``Problem`` is derived first).

    With ``working``, the numbers printed under one label are one piece of
    working (a written-out line, a table): a number that can be followed
    from numbers printed under its label must follow from them, rounded as
    printed, or it is wrong even when it rounds the exact value (0.38 * 2
    printed as 0.75).

    ``precision`` (else the spec's ``options.precision``) is the floating-point format
    the document's numbers came from: a wrong number that is what the format computes
    is ok with the flag ``framework_precision`` (``verify.framework``). Inputs printed
    rounded (``inputs_printed``) are followed by ``verify.input_rounding``.
    """
    if isinstance(derivation, Problem):
        derivation = pipeline.derive(derivation)
    if not isinstance(derivation, Derivation):
        raise argument("check", "derivation", "expected a Problem (symattn.load, "
                       "symattn.load_example) or its Derivation (symattn.derive), got "
                       f"{type(derivation).__name__}")
    problem = derivation.problem
    if rounding is not None and not isinstance(rounding, str):
        raise argument("check", "rounding", f"expected half-up, half-even or truncate, got "
                       f"{rounding!r}")
    try:
        rule = rounding if isinstance(rounding, Rounding) else (
            parse_rounding(rounding) if rounding else problem.rounding)
    except InputError as error:
        raise argument("check", "rounding", error.message) from None
    with uncollected():     # thousands of verdicts: no cycle collection while they are made
        return _checked(derivation, rule, working, precision)


def _checked(derivation: Derivation, rule: Rounding, working: bool, precision: str | None
             ) -> Report:
    """``check`` once its arguments are read."""
    problem = derivation.problem
    shapes = {step.name: step.shape for step in derivation.steps}
    claims = read_claims(problem.claims, shapes, problem.query_positions, problem.source,
                         problem.number_format)
    for claim in claims:
        if claim.target.part == "divisor" and not has_divisor(derivation):
            raise InputError("there is no divisor here: the scaled scores are given directly "
                             "or the scale is symbolic", Location(file=problem.source,
                                                                  key=f"claims.{claim.key}"))
    judge = _Judge(derivation, rule, claims, working)
    judged = framework.reconsider(problem, [judge.judge(claim) for claim in claims], rule,
                                  precision or problem.precision)
    judged = input_rounding.reconsider(problem, judged, rule)
    verdicts = flag_carried_wrong(flag_inconsistent(judged, rule))
    titles = problem.prose.get("title") or \
        ({problem.language: problem.title} if problem.title else {})
    return Report(problem.title, problem.source, rule, tuple(verdicts), problem.language,
                  problem.variant, problem.claim_lines, _exact_terms(derivation, verdicts),
                  titles, problem.labels, problem.written_language)


def _exact_terms(derivation: Derivation, verdicts: Sequence[Verdict]) -> tuple[int, ...]:
    """How many exponentials each verdict's closed form writes (``Report.exact_terms``):
    the entry's, as ``derive`` counts them for ``--max-terms``; 1 for a sum or a term."""
    terms_of: dict[str, Callable[[int, int], int]] = {}
    counts = []
    for verdict in verdicts:
        target = verdict.claim.target
        if target.part != "entry":
            counts.append(1)
            continue
        terms = terms_of.get(target.step)
        if terms is None:
            terms = terms_of[target.step] = derivation[target.step].value.terms
        counts.append(terms(target.row, target.column))
    return tuple(counts)


@dataclass(frozen=True)
class _Heading:
    """The fields a verdict on one claim has whatever it says, filled in as judging goes."""

    claim: Claim
    position: str
    value: Exact           # the exact value (the verdict writes its closed form)
    flags: tuple[str, ...]
    exact_decimal: str = ""
    exact_rounded: str = ""

    def verdict(self, verdict: str, *reasons: Reason, recomputed: str | None = None,
                carried_from: tuple[str, ...] = (), used: tuple[Claim, ...] = ()) -> Verdict:
        return Verdict(self.claim, self.position, self.claim.printed.text, self.value,
                       self.exact_decimal, self.exact_rounded, recomputed, verdict, self.flags,
                       reason_text(reasons), carried_from, reasons, used=used)


@dataclass(frozen=True)
class _Reading:
    """A printed decimal against the exact value, both on the printed scale."""

    places: int
    scale: fmpq            # 100 for a percentage
    unit: str              # "%" for a percentage
    value: Exact           # the exact value times the scale
    printed_scaled: int    # the printed digits as an integer (0.394 at 3 places: 394)
    rounded: int           # the exact value rounded to the places, as an integer
    scientific: bool = False   # printed in e-notation: shown so (7.95e-232, not 0.000...)

    def shown(self, scaled: int) -> str:
        text = format_scaled(scaled, self.places)
        if self.scientific and scaled:
            text = short_exponent(to_scientific(text))   # every digit printed
        return text + self.unit


@dataclass(frozen=True)
class _Followed:
    """The claim recomputed from the document's printed numbers (``used``)."""

    value: Exact
    scaled: int            # rounded to the printed places, on the printed scale
    used: frozenset[Claim]


class _Judge:
    """Judges each claim of one derivation under one rounding rule."""

    def __init__(self, derivation: Derivation, rule: Rounding, claims: list[Claim],
                 working: bool = False) -> None:
        self.derivation = derivation
        self.rule = rule
        self.working = working
        self._claims = claims
        self._path: DocumentPath | None = None
        self.hints = WrongHints(derivation, rule)
        grids = GridRoundings.for_claims(derivation, claims, rule)
        # decide(value, places, rule=None, at=None): rounded, from a grid's batch when it can
        self.decide = grids.decide

    def path(self) -> DocumentPath:
        """The document's own numbers, indexed when the first claim that is not plainly
        ok asks (a check of thousands of right numbers never needs them)."""
        if self._path is None:
            self._path = DocumentPath(self.derivation, self._claims)
        return self._path

    def _shown(self, value: Exact, places: int, claim: Claim) -> str:
        """``shown_decimal`` of the claimed entry's value, from the batch when it can."""
        if isinstance(value, fmpq) or claim.printed.scientific:
            return shown_decimal(value, places, claim.printed)
        extra = max(places, 0) + SHOWN_EXTRA_PLACES
        return format_scaled(self.decide(value, extra, Rounding.HALF_UP, claim), extra) + "..."

    def position(self, claim: Claim) -> str:
        return position(self.derivation.problem, claim.target)

    def judge(self, claim: Claim) -> Verdict:
        """The verdict on one printed number."""
        exact = exact_value(self.derivation, claim.target)
        heading = _Heading(claim, self.position(claim), exact,
                           ("approximate",) if claim.printed.approximate else ())
        if claim.printed.value is NEG_INF or exact is NEG_INF:
            return _masked(heading, exact, self._masked_slips)
        if exact is NAN or not getattr(exact, "is_numeric", True):
            return heading.verdict("undecided", _NO_DECIMAL)
        if claim.printed.exact:
            try:
                return _closed_form(heading, exact)
            except ValueError:   # a sum built from symbolic entries: no decimal exists
                return heading.verdict("undecided", _NO_DECIMAL)
        return self._decimal(heading, exact)

    def _decimal(self, heading: _Heading, exact: Exact) -> Verdict:
        """A printed decimal: ok if the exact value rounds to it, else followed along
        the document's own numbers (propagated), else wrong."""
        printed = heading.claim.printed
        scale = fmpq(100) if printed.percent else fmpq(1)
        value = arith.multiply(exact, scale)
        try:
            rounded = self.decide(value, printed.places, at=heading.claim)
        except UndecidedError as error:
            return heading.verdict("undecided", Reason.of("undecided", detail=str(error)))
        except ValueError:   # built from symbolic entries: no decimal exists
            return heading.verdict("undecided", _NO_DECIMAL)
        reading = _Reading(printed.places, scale, "%" if printed.percent else "", value,
                           int(printed.value * fmpq(10) ** printed.places), rounded,
                           printed.scientific)
        heading = dataclasses.replace(
            heading, exact_rounded=reading.shown(rounded),
            exact_decimal=self._shown(value, printed.places, heading.claim) + reading.unit,
            flags=heading.flags + tie_flags(self.decide, self.rule, value, printed.places,
                                            heading.claim))
        ok = self._ok(heading, reading)
        followed = self._follow(heading.claim, reading) if ok is None or self.working else None
        unfollowed = self._unfollowed(heading, reading, followed)
        if unfollowed is not None:
            return unfollowed
        if ok is not None:
            return ok
        if followed is not None and followed.scaled == reading.printed_scaled:
            return self._propagated(heading, reading, followed)
        return self._wrong(heading, reading, followed)

    def _ok(self, heading: _Heading, reading: _Reading) -> Verdict | None:
        """Ok: the exact value rounds to the printed digits (or begins with them, 0.66...)."""
        if reading.rounded == reading.printed_scaled:
            reasons = [Reason.of("ok", exact=heading.exact_decimal, rule=self.rule.value,
                                 rounded=heading.exact_rounded)]
            if "tie" in heading.flags:
                reasons.append(self._tie_reason(reading))
            return heading.verdict("ok", *reasons)
        if heading.claim.printed.continues and reading.printed_scaled == self.decide(
                reading.value, reading.places, Rounding.TRUNCATE, heading.claim):
            return heading.verdict("ok", Reason.of("begins", exact=heading.exact_decimal))
        return None

    def _tie_reason(self, reading: _Reading) -> Reason:
        """Exactly halfway: the rule decides; the reason names what the other rule gives."""
        other = Rounding.HALF_EVEN if self.rule is Rounding.HALF_UP else Rounding.HALF_UP
        return Reason.of("tie", other_rule=other.value, other=reading.shown(
            self.decide(reading.value, reading.places, other)))

    def _follow(self, claim: Claim, reading: _Reading) -> _Followed | None:
        """The claim from the document's own numbers; None if it printed none on the way."""
        try:
            value, used = self.path().recompute(claim.target, claim.label)
            if not used:
                return None
            scaled = self.decide(arith.multiply(value, reading.scale), reading.places)
        except (ValueError, ZeroDivisionError, UndecidedError):
            # The document's own numbers give no finite value here (a printed -inf
            # used as a number, a printed zero sum): there is no path to follow.
            return None
        return _Followed(value, scaled, used)

    def _unfollowed(self, heading: _Heading, reading: _Reading, followed: _Followed | None
                    ) -> Verdict | None:
        """Wrong in working mode: the number does not follow from the numbers
        printed with it (under its label), although it may round the exact value."""
        label = heading.claim.label
        if not self.working or not label or followed is None or \
                followed.scaled == reading.printed_scaled or \
                not all(c.label == label for c in followed.used):
            return None
        names = tuple(Named(c.target, self.position(c), c.printed.text)
                      for c in sorted(followed.used, key=lambda c: c.order))
        recomputed = reading.shown(followed.scaled)
        return heading.verdict("wrong", Reason.of("unfollowed", names, recomputed=recomputed),
                               recomputed=recomputed)

    def _propagated(self, heading: _Heading, reading: _Reading, followed: _Followed
                    ) -> Verdict:
        """Propagated: the printed number follows from the document's rounded numbers."""
        target = heading.claim.target
        document_tie = isinstance(followed.value, fmpq) and "tie" not in heading.flags and \
            is_tie(followed.value * reading.scale, reading.places, self.rule)
        carried = tuple(sorted((c for c in followed.used if c.target != target
                                and self._is_rounded(c)), key=lambda c: c.order))
        names = tuple(Named(c.target, self.position(c), c.printed.text) for c in carried)
        recomputed = reading.shown(followed.scaled)
        shown = shown_decimal(arith.multiply(followed.value, reading.scale), reading.places,
                               heading.claim.printed)
        reasons = [Reason.of("propagated", names, exact=heading.exact_decimal,
                             rounded=heading.exact_rounded, shown=shown + reading.unit,
                             recomputed=recomputed)]
        if document_tie:
            reasons.append(Reason.of("document_tie", rule=self.rule.value))
            heading = dataclasses.replace(heading, flags=heading.flags + ("tie",))
        return heading.verdict("propagated", *reasons, recomputed=recomputed,
                               carried_from=tuple(self.position(c) for c in carried), used=carried)

    def _wrong(self, heading: _Heading, reading: _Reading, followed: _Followed | None
               ) -> Verdict:
        """Wrong: what it should be, what the document's numbers give, what it matches."""
        recomputed = reading.shown(followed.scaled) if followed is not None else None
        try:
            matches = self.hints.explain(heading.claim, reading.value, reading.printed_scaled,
                                         reading.places, reading.scale,
                                         followed.value if followed is not None else None)
        except UndecidedError:   # the hints are a courtesy; a value beyond them gets none
            matches = []
        reasons = [Reason.of("wrong", rounded=heading.exact_rounded, exact=heading.exact_decimal)]
        if recomputed is not None and recomputed != heading.exact_rounded:
            reasons.append(Reason.of("from_document", recomputed=recomputed))
        if "tie" in heading.flags:    # exactly halfway: say what the other rule gives
            reasons.append(self._tie_reason(reading))
        reasons += matches
        if abs(reading.rounded - reading.printed_scaled) == 1:
            reasons.append(Reason.of("off_by_one"))
        return heading.verdict("wrong", *reasons, recomputed=recomputed)

    def _masked_slips(self, claim: Claim) -> list[Reason]:
        """The slips that give a wrong printed -inf, or a number where the entry is masked."""
        printed = claim.printed
        try:
            if printed.value is NEG_INF:
                return self.hints.explain_masked(claim)
            if not isinstance(printed.value, fmpq):     # a closed form (sqrt(2)/2): no slip
                return []
            scale = fmpq(100) if printed.percent else fmpq(1)
            return self.hints.explain_masked(
                claim, int(printed.value * fmpq(10) ** printed.places), printed.places, scale)
        except UndecidedError:
            return []

    def _is_rounded(self, claim: Claim) -> bool:
        """True when a printed number differs from its exact value (it carries error)."""
        if claim.printed.value is NEG_INF:
            return False
        exact = exact_value(self.derivation, claim.target)
        return not (isinstance(exact, fmpq) and exact == claim.printed.number)


def _masked(heading: _Heading, exact: Exact, slips: Callable[[Claim], list[Reason]]
            ) -> Verdict:
    """A printed or exact -inf: ok only when both are; a wrong one with the slips that
    give it."""
    shown = "-inf" if exact is NEG_INF else ""
    heading = dataclasses.replace(heading, exact_decimal=shown, exact_rounded=shown)
    if heading.claim.printed.value is NEG_INF and exact is NEG_INF:
        return heading.verdict("ok", Reason.of("masked_ok"))
    return heading.verdict("wrong", Reason.of("masked" if exact is NEG_INF else "not_masked"),
                           *slips(heading.claim))


def _closed_form(heading: _Heading, exact: Exact) -> Verdict:
    """A printed fraction or root (1/3, sqrt(2)/2): right only if exactly equal."""
    printed = heading.claim.printed.number
    shown = shown_decimal(exact, DIGITS)
    heading = dataclasses.replace(heading, exact_decimal=shown, exact_rounded=exact_text(exact))
    same: bool | None
    if isinstance(exact, (fmpq, Surd)):
        same = exact == printed
    else:
        try:   # an irrational value can be proved different, not equal
            same = None if arith.sign(arith.subtract(exact, printed)) == 0 else False
        except UndecidedError:
            same = None
    if same is None:
        return heading.verdict("undecided", Reason.of("closed_undecided", exact=shown))
    if same:
        return heading.verdict("ok", Reason.of("closed_ok", exact=exact_text(exact)))
    return heading.verdict("wrong", Reason.of("closed_wrong", rounded=exact_text(exact),
                                              exact=shown, printed=exact_text(printed)))
