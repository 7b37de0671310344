"""Verdicts on printed numbers: ok, propagated, wrong - decided with certainty.

For each claim the exact value is rounded to the printed places under the
rule in force (half-up unless the spec or the command says otherwise), with
``decimals.decide_scaled``: rationals exactly, everything else from certified
balls. A number that is not ok is recomputed along the document's own path:
every operand that the document printed is taken as printed (rounded), every
other operand is itself recomputed that way, down to the inputs. If the
printed number follows from that, it is ``propagated`` and the report names the
printed numbers that carried the rounding; otherwise it is ``wrong`` and the
report says what it should be and what it does match. Verdicts are data;
nothing here raises for a wrong number.

>>> import symattn
>>> report = check(symattn.derive(symattn.load_example("000-cat-chases-mouse")))
>>> [v.verdict for v in report.verdicts if v.position == "output[2,2]" and not v.label]
['propagated']
"""

from __future__ import annotations

__all__ = ["Verdict", "Report", "check", "VERDICTS", "FLAGS"]

import dataclasses
from dataclasses import dataclass
from typing import Iterable

from flint import fmpq

from symattn.values import arith
from symattn.verify.claims import QUERY_ROW_STEPS, Claim, Printed, Target, read_claims
from symattn.derivation.steps import Derivation
from symattn.derivation.pipeline import derive
from symattn.derivation.attention import scale_factor
from symattn.defaults import DIGITS
from symattn.errors import InputError, Location
from symattn.values.exact import NAN, NEG_INF, Exact, Surd, exact_text, to_ball
from symattn.derivation.names import split_name
from symattn.values.decimals import UndecidedError, decide_scaled, fixed_decimal
from symattn.values.rounding import (Rounding, format_scaled, intervals_meet, is_tie, parse_rounding,
                              printed_interval, round_scaled)

VERDICTS = ("ok", "propagated", "wrong", "undecided")
FLAGS = ("tie", "near-tie", "inconsistent", "approximate")
NEAR_TIE = fmpq(1, 1000)   # within a thousandth of a unit in the last place of a midpoint
_SHOWN_EXTRA_PLACES = 4
_SEARCH_LIMIT = 4096        # entries searched for "matches a different entry"


@dataclass(frozen=True)
class Verdict:
    """The judgement on one printed number (all fields are plain text)."""

    claim: Claim
    position: str                 # 1-based, e.g. "weights[3,1]"
    printed: str
    exact: str                    # exact closed form
    exact_decimal: str            # exact value with a few more places than printed
    exact_rounded: str            # exact value rounded as the document should print it
    recomputed: str | None        # from the document's own numbers, same places
    verdict: str                  # ok | propagated | wrong | undecided
    flags: tuple[str, ...]
    reason: str
    carried_from: tuple[str, ...] = ()

    @property
    def step(self) -> str:
        return self.claim.target.step

    @property
    def label(self) -> str:
        return self.claim.label


@dataclass(frozen=True)
class Report:
    """All verdicts of one spec, in the order the claims were written."""

    title: str
    source: str | None
    rounding: Rounding
    verdicts: tuple[Verdict, ...]

    @property
    def counts(self) -> dict[str, int]:
        counts = {name: 0 for name in VERDICTS}
        for verdict in self.verdicts:
            counts[verdict.verdict] += 1
        return counts

    @property
    def has_wrong(self) -> bool:
        return any(v.verdict == "wrong" for v in self.verdicts)


def check(derivation: Derivation, rounding: Rounding | str | None = None) -> Report:
    """Judge every claim of the derivation's problem."""
    problem = derivation.problem
    rule = rounding if isinstance(rounding, Rounding) else (
        parse_rounding(rounding) if rounding else problem.rounding)
    shapes = {step.name: step.shape for step in derivation.steps}
    claims = read_claims(problem.claims, shapes, problem.query_positions, problem.source)
    for claim in claims:
        if claim.target.part == "divisor" and not _has_divisor(derivation):
            raise InputError("there is no divisor here: the scaled scores are given directly "
                             "or the scale is symbolic", Location(file=problem.source,
                                                                  key=f"claims.{claim.key}"))
    checker = _Checker(derivation, rule, claims)
    verdicts = [checker.judge(claim) for claim in claims]
    verdicts = _flag_inconsistent(verdicts, rule)
    return Report(problem.title, problem.source, rule, tuple(verdicts))


def _has_divisor(derivation: Derivation) -> bool:
    from symattn.values.exact import Surd

    problem = derivation.problem
    if "scaled" not in derivation or not derivation["scaled"].operands:
        return "head1.scaled" in derivation and problem.d_k_value is not None
    return isinstance(problem.scale_value, (fmpq, Surd)) and \
        isinstance(problem.temperature, (fmpq, Surd))


class _Checker:
    def __init__(self, derivation: Derivation, rule: Rounding, claims: list[Claim]) -> None:
        self.derivation = derivation
        self.problem = derivation.problem
        self.rule = rule
        self.printed: dict[Target, Claim] = {}
        for claim in sorted(claims, key=lambda c: (not c.primary, c.order)):
            self.printed.setdefault(claim.target, claim)
        self.memo: dict[Target, tuple[Exact, frozenset[Claim]]] = {}
        self._unscaled: Derivation | None | bool = False

    # ------------------------------------------------------------ positions
    def row_label(self, target: Target) -> int:
        positions = self.problem.query_positions
        if positions is not None and split_name(target.step)[1] in QUERY_ROW_STEPS:
            return positions[target.row]
        return target.row + 1

    def position(self, target: Target) -> str:
        return target.describe(self.row_label(target))

    # ------------------------------------------------------------ exact values
    def grid(self, name: str):  # type: ignore[no-untyped-def]
        return self.derivation[name].value

    def exact(self, target: Target, derivation: Derivation | None = None) -> Exact:
        derivation = derivation or self.derivation
        grid = lambda name: derivation[name].value  # noqa: E731
        i, j = target.row, target.column
        if target.part == "divisor":
            factor = scale_factor(derivation.problem)
            return 1 / factor if isinstance(factor, fmpq) else factor.reciprocal()
        if target.part == "entry":
            return grid(target.step).exact(i, j)
        if target.part == "sum":
            if split_name(target.step)[1] == "weights":
                weights = grid(target.step)
                if weights.exact(i, 0) is NAN:
                    return NAN
                open_row = any(weights.exact(i, c) != 0 for c in weights.columns())
                return fmpq(1) if open_row else fmpq(0)
            return arith.total(grid(target.step).exact(i, c) for c in grid(target.step).columns())
        t = target.term
        prefix, base = split_name(target.step)
        if base == "scores":
            return arith.multiply(grid(prefix + "Q").exact(i, t), grid(prefix + "K").exact(j, t))
        if base == "output" and derivation.__contains__(prefix + "weights"):
            return arith.multiply(grid(prefix + "weights").exact(i, t),
                                  grid(prefix + "V").exact(t, j))
        return grid(prefix + "exp").exact(i, t)          # exp_sum terms

    # ------------------------------------------------ the document's own path
    def operand(self, step: str, i: int, j: int) -> tuple[Exact, frozenset[Claim]]:
        target = Target(step, i, j)
        claim = self.printed.get(target)
        if claim is not None and claim.printed.value is not NEG_INF and not claim.printed.percent:
            return claim.printed.value, frozenset({claim})
        if claim is not None and claim.printed.percent:
            return claim.printed.value / 100, frozenset({claim})
        return self.recompute(target)

    def has(self, name: str) -> bool:
        return name in self.derivation

    def recompute(self, target: Target) -> tuple[Exact, frozenset[Claim]]:
        if target not in self.memo:
            self.memo[target] = self._recompute(target)
        return self.memo[target]

    def _sum(self, pairs: Iterable[tuple[Exact, frozenset[Claim]]]) -> tuple[Exact, frozenset[Claim]]:
        values, used = [], frozenset()
        for value, claims in pairs:
            values.append(value)
            used |= claims
        return arith.total(values), used

    def _product(self, left: tuple[Exact, frozenset[Claim]], right: tuple[Exact, frozenset[Claim]]
                 ) -> tuple[Exact, frozenset[Claim]]:
        return arith.multiply(left[0], right[0]), left[1] | right[1]

    def _terms(self, target: Target) -> list[Claim] | None:
        """The printed terms of an entry's sum, if the document printed all of them."""
        prefix, base = split_name(target.step)
        operand = {"scores": "Q", "output": "weights", "exp_sum": "exp"}.get(base)
        if operand is None or not self.has(prefix + operand):
            return None
        count = lambda: self.grid(prefix + operand).shape[1]  # noqa: E731
        terms = [self.printed.get(Target(target.step, target.row, target.column, "term", t))
                 for t in range(count())]
        return terms if all(t is not None for t in terms) else None  # type: ignore[return-value]

    def _recompute(self, target: Target) -> tuple[Exact, frozenset[Claim]]:
        step, i, j = target.step, target.row, target.column
        if target.part in ("divisor",):
            return self.exact(target), frozenset()
        if target.part == "sum":
            columns = self.grid(step).columns()
            return self._sum(self.operand(step, i, c) for c in columns)
        # Inside a head, the attention steps read that head's own operands.
        prefix, base = split_name(step)
        op = lambda name, r, c: self.operand(prefix + name, r, c)  # noqa: E731
        has = lambda name: self.has(prefix + name)  # noqa: E731
        if target.part == "term":
            t = target.term
            if base == "scores":
                return self._product(op("Q", i, t), op("K", j, t))
            if base == "output":
                return self._product(op("weights", i, t), op("V", t, j))
            return op("exp", i, t)
        terms = self._terms(target)
        if terms is not None:
            return arith.total(t.printed.value for t in terms), frozenset(terms)
        rule = self.derivation[step].entry if self.has(step) else None
        if rule is not None:
            used: set[Claim] = set()

            def operand(name: str, row: int, column: int) -> Exact:
                value, claims = self.operand(name, row, column)
                used.update(claims)
                return value

            return rule(operand, i, j), frozenset(used)
        operands = self.derivation[step].operands if self.has(step) else ()
        if not prefix and base in ("Q", "K", "V") and len(operands) == 2:
            source, weight = operands
            inner = self.grid(source).shape[1]
            return self._sum(self._product(op(source, i, k), op(weight, k, j))
                             for k in range(inner))
        if base == "scores" and operands:
            left, right = (split_name(o)[1] for o in operands)   # Q, K (or Q_rot, K_rot)
            inner = self.grid(prefix + left).shape[1]
            return self._sum(self._product(op(left, i, k), op(right, j, k))
                             for k in range(inner))
        if base == "scaled" and operands:
            score = op("scores", i, j)
            divisor = self.printed.get(Target("divisor", part="divisor"))
            if divisor is not None:
                return arith.divide(score[0], divisor.printed.value), score[1] | {divisor}
            if not _has_divisor(self.derivation):   # a symbolic scale: no numeric path
                return self.exact(target), frozenset()
            return arith.multiply(score[0], scale_factor(self.problem)), score[1]
        if base == "masked":
            if self.grid(prefix + "mask").exact(i, j) is NEG_INF:
                return NEG_INF, frozenset()
            return op("scaled", i, j)
        if base == "exp":
            value, used_claims = op("masked" if has("masked") else "scaled", i, j)
            return arith.exp(value), used_claims
        if base == "exp_sum":
            return self._sum(op("exp", i, c) for c in self.grid(prefix + "exp").columns())
        if base == "weights":
            if not self._allowed(prefix, i, j) or not self._open_columns(prefix, i):
                return self.exact(target), frozenset()
            if self.problem.normalisation == "sum":
                source = "masked" if has("masked") else "scaled"
                value, used_claims = op(source, i, j)
                row = self._sum(op(source, i, c) for c in self._open_columns(prefix, i))
                return arith.divide(value, row[0]), used_claims | row[1]
            numerator = op("exp", i, j)
            denominator = op("exp_sum", i, 0)
            return arith.divide(numerator[0], denominator[0]), numerator[1] | denominator[1]
        if base == "output" and has("V") and has("weights"):
            return self._sum(self._product(op("weights", i, c), op("V", c, j))
                             for c in self.grid(prefix + "weights").columns())
        return self.exact(target), frozenset()

    def _allowed(self, prefix: str, i: int, j: int) -> bool:
        return not self.has(prefix + "mask") or \
            self.grid(prefix + "mask").exact(i, j) is not NEG_INF

    def _open_columns(self, prefix: str, i: int) -> list[int]:
        return [c for c in self.grid(prefix + "weights").columns()
                if self._allowed(prefix, i, c)]

    # ---------------------------------------------------------------- verdicts
    def decide(self, value: Exact, places: int, rule: Rounding | None = None) -> int:
        return decide_scaled(value, places, rule or self.rule)

    def judge(self, claim: Claim) -> Verdict:
        target, printed = claim.target, claim.printed
        position = self.position(target)
        flags = ["approximate"] if printed.approximate else []
        exact = self.exact(target)
        base = dict(claim=claim, position=position, printed=printed.text,
                    exact=exact_text(exact) if exact is not NAN else "nan")
        if printed.value is NEG_INF or exact is NEG_INF:
            same = printed.value is NEG_INF and exact is NEG_INF
            return Verdict(**base, exact_decimal="-inf" if exact is NEG_INF else "",
                           exact_rounded="-inf" if exact is NEG_INF else "",
                           recomputed=None, verdict="ok" if same else "wrong",
                           flags=tuple(flags),
                           reason="masked: exactly -inf" if same else (
                               "this entry is masked (-inf)" if exact is NEG_INF else
                               "this entry is not masked"))
        if exact is NAN or not getattr(exact, "is_numeric", True):
            return Verdict(**base, exact_decimal="", exact_rounded="", recomputed=None,
                           verdict="undecided", flags=tuple(flags),
                           reason="the exact value has no decimal (symbolic or nan)")
        if printed.exact:
            return self._judge_closed_form(claim, exact, base, flags)
        places = printed.places
        scale = fmpq(100) if printed.percent else fmpq(1)
        value = arith.multiply(exact, scale)
        printed_scaled = int(printed.value * fmpq(10) ** places)
        unit = "%" if printed.percent else ""
        try:
            rounded = self.decide(value, places)
        except UndecidedError as error:
            return Verdict(**base, exact_decimal="", exact_rounded="", recomputed=None,
                           verdict="undecided", flags=tuple(flags), reason=str(error))
        except ValueError:   # built from symbolic entries: no decimal exists
            return Verdict(**base, exact_decimal="", exact_rounded="", recomputed=None,
                           verdict="undecided", flags=tuple(flags),
                           reason="the exact value has no decimal (symbolic or nan)")
        exact_rounded = format_scaled(rounded, places) + unit
        exact_decimal = _shown_decimal(value, places) + unit
        flags += self._tie_flags(value, places)
        base.update(exact_decimal=exact_decimal, exact_rounded=exact_rounded)
        if rounded == printed_scaled:
            reason = f"exact {exact_decimal} rounds {self.rule.value} to {exact_rounded}"
            if "tie" in flags:
                other = Rounding.HALF_EVEN if self.rule is Rounding.HALF_UP else Rounding.HALF_UP
                reason += (f"; exactly halfway, so the rule decides ({other.value} gives "
                           f"{format_scaled(self.decide(value, places, other), places)}{unit})")
            return Verdict(**base, recomputed=None, verdict="ok", flags=tuple(flags),
                           reason=reason)
        if printed.continues and self.decide(value, places, Rounding.TRUNCATE) == printed_scaled:
            return Verdict(**base, recomputed=None, verdict="ok", flags=tuple(flags),
                           reason=f"exact {exact_decimal} begins with the printed digits "
                                  f"(the ellipsis says more follow)")
        recomputed = None
        recomputed_value: Exact = exact
        try:
            recomputed_value, used = self.recompute(target)
            recomputed_scaled = self.decide(arith.multiply(recomputed_value, scale), places) \
                if used else None
        except (ValueError, ZeroDivisionError, UndecidedError):
            # The document's own numbers give no finite value here (a printed -inf
            # used as a number, a printed zero sum): there is no path to follow.
            used, recomputed_scaled = frozenset(), None
        if used and recomputed_scaled is not None:
            recomputed = format_scaled(recomputed_scaled, places) + unit
            if recomputed_scaled == printed_scaled:
                document_tie = isinstance(recomputed_value, fmpq) and "tie" not in flags and \
                    is_tie(recomputed_value * scale, places, self.rule)
                if document_tie:
                    flags.append("tie")
                carried = tuple(sorted((c for c in used if c.target != target
                                        and self._is_rounded(c)), key=lambda c: c.order))
                names = ", ".join(f"{self.position(c.target)} = {c.printed.text}"
                                  for c in carried)
                shown = _shown_decimal(arith.multiply(recomputed_value, scale), places)
                return Verdict(**base, recomputed=recomputed, verdict="propagated",
                               flags=tuple(flags),
                               reason=f"exact {exact_decimal} rounds to {exact_rounded}, but "
                                      f"from the document's printed {names}: {shown}{unit} "
                                      f"-> {recomputed}" + (
                                          f" (exactly halfway: {self.rule.value} decides)"
                                          if document_tie else ""),
                               carried_from=tuple(self.position(c.target) for c in carried))
        try:
            matches = self._explain(claim, value, printed_scaled, places, scale,
                                    recomputed_value if used else None)
        except UndecidedError:   # the hints are a courtesy; a value beyond them gets none
            matches = []
        reason = f"should be {exact_rounded} (exact {exact_decimal})"
        if recomputed is not None and recomputed != exact_rounded:
            reason += f"; from the document's own numbers it would be {recomputed}"
        if matches:
            reason += "; matches " + ", ".join(matches)
        if abs(rounded - printed_scaled) == 1:
            reason += "; off by one in the last digit"
        return Verdict(**base, recomputed=recomputed, verdict="wrong", flags=tuple(flags),
                       reason=reason)

    def _judge_closed_form(self, claim: Claim, exact: Exact, base: dict,  # type: ignore[type-arg]
                           flags: list[str]) -> Verdict:
        """A printed fraction or root (1/3, sqrt(2)/2): right only if exactly equal."""
        printed = claim.printed.value / 100 if claim.printed.percent else claim.printed.value
        shown = _shown_decimal(exact, DIGITS)
        base.update(exact_decimal=shown, exact_rounded=exact_text(exact))
        if isinstance(exact, (fmpq, Surd)):
            same = exact == printed
        else:
            try:   # an irrational value can be proved different, not equal
                same = None if arith.sign(arith.subtract(exact, printed)) == 0 else False
            except UndecidedError:
                same = None
        if same is None:
            return Verdict(**base, recomputed=None, verdict="undecided", flags=tuple(flags),
                           reason=f"the printed closed form and the exact value {shown} agree "
                                  "to every digit computed, but equality cannot be proved")
        if same:
            return Verdict(**base, recomputed=None, verdict="ok", flags=tuple(flags),
                           reason=f"exactly {exact_text(exact)}")
        return Verdict(**base, recomputed=None, verdict="wrong", flags=tuple(flags),
                       reason=f"should be {exact_text(exact)} (exact {shown}), not "
                              f"{exact_text(printed)}")

    def _is_rounded(self, claim: Claim) -> bool:
        """True when a printed number differs from its exact value (it carries error)."""
        printed = claim.printed.value
        if printed is NEG_INF:
            return False
        exact = self.exact(claim.target)
        value = printed / 100 if claim.printed.percent else printed
        return not (isinstance(exact, fmpq) and exact == value)

    def _tie_flags(self, value: Exact, places: int) -> list[str]:
        if self.rule is Rounding.TRUNCATE:
            return []
        if isinstance(value, fmpq):
            if is_tie(value, places, self.rule):
                return ["tie"]
            scaled = abs(value) * fmpq(10) ** places
            fraction = scaled - int(scaled.p) // int(scaled.q)
            return ["near-tie"] if abs(fraction - fmpq(1, 2)) < NEAR_TIE else []
        # Irrational: is it within NEAR_TIE of a midpoint? Decide it on the
        # grid of thousandths of the last place (certified, like any rounding).
        try:
            fine = self.decide(value, places + 3, Rounding.TRUNCATE)
        except UndecidedError:   # e.g. 1 - 10^-(10^9): not near a midpoint at these places
            return []
        remainder = abs(fine) % 1000
        return ["near-tie"] if remainder in (499, 500) else []

    def _explain(self, claim: Claim, value: Exact, printed_scaled: int, places: int,
                 scale: fmpq, recomputed: Exact | None) -> list[str]:
        """What a wrong number does match, if anything."""
        found = []
        if self.rule is not Rounding.TRUNCATE and \
                self.decide(value, places, Rounding.TRUNCATE) == printed_scaled:
            found.append("truncation instead of rounding")
        if recomputed is not None and self.rule is not Rounding.TRUNCATE and self.decide(
                arith.multiply(recomputed, scale), places, Rounding.TRUNCATE) == printed_scaled:
            found.append("truncation of the value from the document's own numbers")
        if self.decide(arith.multiply(value, fmpq(-1)), places) == printed_scaled:
            found.append("the value with the opposite sign")
        target = claim.target
        if target.part == "entry":
            other = self._other_entry(target, printed_scaled, places, scale)
            if other:
                found.append(f"{other}, a different entry of the same step")
            unscaled = self._unscaled_value(target)
            if unscaled is not None and self.decide(arith.multiply(unscaled, scale),
                                                    places) == printed_scaled:
                found.append("the value without the 1/sqrt(d_k) scaling")
        return found

    def _other_entry(self, target: Target, printed_scaled: int, places: int,
                     scale: fmpq) -> str | None:
        grid = self.grid(target.step)
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
                    return self.position(Target(target.step, r, c))
            except UndecidedError:
                continue
        return None

    def _unscaled_value(self, target: Target) -> Exact | None:
        if target.step not in ("scaled", "masked", "exp", "exp_sum", "weights", "output") or \
                not self.has("scaled") or not self.derivation["scaled"].operands:
            return None
        if self._unscaled is False:
            variant = dataclasses.replace(self.problem, scale=fmpq(1), temperature=fmpq(1))
            try:
                self._unscaled = derive(variant)
            except InputError:
                self._unscaled = None
        if not isinstance(self._unscaled, Derivation):
            return None
        value = self.exact(target, self._unscaled)
        return None if value is NEG_INF or value is NAN else value


def arb_interval(low: fmpq, high: fmpq) -> object:
    from flint import arb

    return arb((low + high) / 2, (high - low) / 2)


def _shown_decimal(value: Exact, places: int) -> str:
    """The value with a few more places than printed; exact digits when it terminates.

    >>> _shown_decimal(fmpq(26, 25), 2), _shown_decimal(fmpq(1, 3), 2)
    ('1.04', '0.333333...')
    """
    extra = max(places, 0) + _SHOWN_EXTRA_PLACES
    if isinstance(value, fmpq):
        for shown in range(max(places, 0), extra + 1):
            if (value * fmpq(10) ** shown).q == 1:
                return fixed_decimal(value, shown)
    return fixed_decimal(value, extra) + "..."


def _flag_inconsistent(verdicts: list[Verdict], rule: Rounding) -> list[Verdict]:
    """Flag each printing that no single value could share with another printing
    of the same quantity (0.394 and 0.395 clash; 39% and 0.395 do not)."""
    groups: dict[Target, list[int]] = {}
    for index, verdict in enumerate(verdicts):
        groups.setdefault(verdict.claim.target, []).append(index)
    result = list(verdicts)
    for indices in groups.values():
        for k in indices:
            clashes = [m for m in indices if m != k and not _compatible(
                verdicts[k].claim.printed, verdicts[m].claim.printed, rule)]
            if clashes:
                verdict = verdicts[k]
                others = ", ".join(verdicts[m].printed + (f" ({verdicts[m].label})"
                                                          if verdicts[m].label else "")
                                   for m in clashes)
                result[k] = dataclasses.replace(
                    verdict, flags=verdict.flags + ("inconsistent",),
                    reason=verdict.reason + f"; printed differently elsewhere: {others}")
    return result


def _rounding_interval(printed: Printed, rule: Rounding) -> tuple[fmpq, bool, fmpq, bool]:
    """Values that print as ``printed`` under ``rule``: (low, low closed, high, high closed)."""
    value = printed.value / 100 if printed.percent else printed.value
    places = printed.places + (2 if printed.percent else 0)
    unit = fmpq(1, 10) ** places if places >= 0 else fmpq(10) ** -places
    assert isinstance(value, fmpq)
    if printed.continues:
        # the digits shown begin the value: rounded or cut off
        low = value - unit / 2 if value > 0 else value - unit
        high = value + unit if value > 0 else value + unit / 2
        return low, True, high, False
    return printed_interval(value, unit, rule)


def _compatible(first: Printed, second: Printed, rule: Rounding) -> bool:
    if first.value is NEG_INF or second.value is NEG_INF:
        return first.value is second.value
    if first.exact or second.exact:
        if first.exact and second.exact:
            return bool(first.value == second.value)
        closed, decimal = (first, second) if first.exact else (second, first)
        low, low_closed, high, high_closed = _rounding_interval(decimal, rule)
        ball = to_ball(closed.value / 100 if closed.percent else closed.value, 128)
        return ball is None or bool(ball.overlaps(arb_interval(low, high)))
    return intervals_meet(_rounding_interval(first, rule), _rounding_interval(second, rule))
