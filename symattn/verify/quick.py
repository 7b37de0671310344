"""The common verdict of a large check, made without the general path's detours.

A check of every weight and output entry of a head is mostly plain decimals
(``0.0167186``) that round the exact value: ``ok``. For such a claim on a grid
whose roundings ``batch.GridRoundings`` settles, ``QuickOk.verdict`` gives the
verdict the general path (``checker._Judge``) gives - the same fields, flags and
reasons - from the grid's tables, with its closed form and its English reason
written only when a report reads them (``verdicts.Verdict``). Anything else (a
percentage, e-notation, a number that is not ok, a value the tables leave open,
a tie, ``--working``) gives None: the general path judges it.
tests/test_check_batch.py holds the two paths to the same verdicts.
"""

from __future__ import annotations

__all__ = ["QuickOk", "tie_flags", "NEAR_TIE"]

from functools import partial
from typing import Callable

from flint import fmpq

from symattn.derivation.steps import Derivation
from symattn.values.decimals import UndecidedError
from symattn.values.exact import Exact, Irrational, exact_text
from symattn.values.rounding import Rounding, format_scaled, is_tie, round_scaled
from symattn.verify.batch import MAX_PLACES, GridRoundings, Table, settled
from symattn.verify.claims import Claim, Target
from symattn.verify.printed import made
from symattn.verify.shown import SHOWN_EXTRA_PLACES, shown_decimal
from symattn.verify.targets import plain_positions, position
from symattn.verify.verdicts import Reason, Verdict, reason_writer

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


class QuickOk:
    """``ok`` verdicts of plain decimals, from the grids' tables where they settle them."""

    def __init__(self, derivation: Derivation, rule: Rounding, grids: GridRoundings,
                 working: bool) -> None:
        self.derivation = derivation
        self.rule = rule
        self.grids = grids
        self.working = working
        self._steps: dict[str, _Step] = {}
        self._rule_arg = ("rule", rule.value)
        self._ok_text = reason_writer("ok", "exact", "rule", "rounded")   # its English reason

    def verdict(self, claim: Claim) -> Verdict | None:
        """The verdict on ``claim`` when it is a plain decimal that is ok; else None."""
        printed, target = claim.printed, claim.target
        if self.working or target.part != "entry" or printed.percent or printed.scientific \
                or printed.continues or printed.exact or not isinstance(printed.value, fmpq):
            return None
        step = self._steps.get(target.step) or self._step(target.step)
        row, column, places = target.row, target.column, printed.places
        exact = step.exact(row, column)
        if isinstance(exact, fmpq):
            shown = self._rational(exact, printed.value, places, claim)
        elif isinstance(exact, Irrational):
            shown = self._irrational(step, row, column, printed.value, places)
        else:
            return None
        if shown is None:
            return None
        decimal, rounded, flags = shown
        if printed.approximate:
            flags = ("approximate",) + flags
        reasons = (made(Reason, key="ok", args=(("exact", decimal), self._rule_arg,
                                                ("rounded", rounded)), entries=()),)
        return Verdict.later(partial(exact_text, exact),
                             partial(self._ok_text, decimal, self.rule.value, rounded),
                             claim=claim, position=step.position(target),
                             printed=printed.text, exact_decimal=decimal, exact_rounded=rounded,
                             recomputed=None, verdict="ok", flags=flags, reasons=reasons)

    def _step(self, name: str) -> _Step:
        """The step's grid and tables, looked up once per step."""
        step = self._steps[name] = _Step(self.derivation, name, self.grids, self.rule)
        return step

    def _rational(self, exact: fmpq, printed: fmpq, places: int, claim: Claim
                  ) -> tuple[str, str, tuple[str, ...]] | None:
        """Shown decimal, rounded text and flags of an exact rational that rounds to the
        printed number (not at a tie, whose reason says more)."""
        if exact == 0:      # a masked weight: 0 rounds to 0 under every rule, far from ties
            zero = format_scaled(0, places)
            return (zero, zero, ()) if printed == 0 else None
        rounded = round_scaled(exact, places, self.rule)
        if rounded != printed * 10 ** places:
            return None
        flags = tie_flags(self.grids.decide, self.rule, exact, places, claim)
        if "tie" in flags:
            return None
        return shown_decimal(exact, places), format_scaled(rounded, places), flags

    def _irrational(self, step: _Step, row: int, column: int, printed: fmpq, places: int
                    ) -> tuple[str, str, tuple[str, ...]] | None:
        """The same from the grid's tables, when they settle every rounding asked."""
        tables = step.tables.get(places) or step.tables_at(places)
        rounded = settled(tables[0], row, column)
        if rounded is None or rounded != printed * 10 ** places:
            return None
        flags: tuple[str, ...] = ()
        if self.rule is not Rounding.TRUNCATE:
            fine = settled(tables[1], row, column)
            if fine is None:
                return None
            flags = ("near-tie",) if abs(fine) % 1000 in (499, 500) else ()
        digits = settled(tables[2], row, column)
        if digits is None:
            return None
        return (format_scaled(digits, places + SHOWN_EXTRA_PLACES) + "...",
                format_scaled(rounded, places), flags)


class _Step:
    """One step's exact entries, report positions and ``GridRoundings`` tables: per
    printed places, the rounding at those places under the rule, at three more
    truncated (the near-tie flag) and at ``SHOWN_EXTRA_PLACES`` more half up (the
    shown decimal)."""

    def __init__(self, derivation: Derivation, name: str, grids: GridRoundings,
                 rule: Rounding) -> None:
        self.name = name
        self.exact: Callable[[int, int], Exact] = derivation[name].value.exact
        self._plain = plain_positions(derivation.problem, name)
        self._problem = derivation.problem
        self._grids = grids
        self._rule = rule
        self.tables: dict[int, tuple[Table | None, Table | None, Table | None]] = {}

    def position(self, target: Target) -> str:
        """``targets.position``: ``step[row,column]`` written at once where that is it."""
        if self._plain:
            return f"{self.name}[{target.row + 1},{target.column + 1}]"
        return position(self._problem, target)

    def tables_at(self, places: int) -> tuple[Table | None, Table | None, Table | None]:
        """The three tables for numbers printed with ``places`` places."""
        if not 0 <= places <= MAX_PLACES:
            tables: tuple[Table | None, Table | None, Table | None] = (None, None, None)
        else:
            table = self._grids.table
            truncating = self._rule is Rounding.TRUNCATE     # no midpoints: no near-ties
            tables = (table(self.name, places, self._rule),
                      None if truncating else table(self.name, places + 3, Rounding.TRUNCATE),
                      table(self.name, places + SHOWN_EXTRA_PLACES, Rounding.HALF_UP))
        self.tables[places] = tables
        return tables
