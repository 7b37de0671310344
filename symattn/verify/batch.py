"""Roundings of many claims on one grid, decided for the whole grid at once.

A check of every weight and output entry of a large head asks for three
roundings per claim (at the printed places under the rule, at three more
places truncated for the near-tie flag, at four more for the shown decimal).
One ``arb`` ball per question costs microseconds; here the grid's certified
double-precision enclosure (``values.enclosures``, the one derive's decimals
use) answers each question for every entry in one numpy pass
(``values.enclosure_roundings``). An entry the enclosure cannot settle (an exact
tie, a value hugging a boundary, a row without an enclosure) gives None, and the
caller decides it exactly, one by one.
"""

from __future__ import annotations

__all__ = ["GridRoundings", "Table", "settled", "MAX_PLACES"]

from collections import Counter
from typing import TYPE_CHECKING, Callable, Sequence

from flint import fmpq

from symattn.values.decimals import decide_scaled
from symattn.values.enclosure_roundings import enclosure_roundings
from symattn.values.enclosures import Enclosure
from symattn.values.exact import Exact
from symattn.values.rounding import Rounding
from symattn.verify.claims import Claim

if TYPE_CHECKING:
    from symattn.derivation.steps import Derivation

# 10**k is an exact double up to k = 22; further places are left to the exact path.
MAX_PLACES = 22
# Below this many claims on a grid, the per-claim balls are cheaper than numpy's import.
_MIN_CLAIMS = 512

# Rows of rounded entries, and rows saying which of them the enclosure settles.
Table = tuple[list[list[int]], list[list[bool]]]


class GridRoundings:
    """Rounded entries of the derivation's grids, one table per (step, places, rule).

    ``claims`` counts the claims on each step: a step with few claims is left
    to the per-claim path.
    """

    def __init__(self, derivation: Derivation, claims: dict[str, int]) -> None:
        self._enclosures: dict[str, Enclosure | None] = {}
        self._tables: dict[tuple[str, int, bool], Table | None] = {}
        self._lookup: Callable[[str], Enclosure | None] = lambda step: _enclosure_of(
            derivation, step)
        self._claims = claims
        self.rule = Rounding.HALF_UP

    @classmethod
    def for_claims(cls, derivation: Derivation, claims: Sequence[Claim],
                   rule: Rounding = Rounding.HALF_UP) -> GridRoundings:
        """The tables for these claims (their entries counted per step); ``rule`` is
        ``decide``'s default."""
        tables = cls(derivation, Counter(claim.target.step for claim in claims
                                         if claim.target.part == "entry"))
        tables.rule = rule
        return tables

    def decide(self, value: Exact, places: int, rule: Rounding | None = None,
               at: Claim | None = None) -> int:
        """``value * 10**places`` rounded under ``rule`` (else the default): from the grid's
        table when ``value`` is the entry claimed ``at`` (times 100 for a percentage) and
        the table settles it, else exactly (``decimals.decide_scaled``)."""
        rule = rule or self.rule
        if at is not None and at.target.part == "entry" and not isinstance(value, fmpq):
            target = at.target
            batched = self.rounded(target.step, target.row, target.column,
                                   places + (2 if at.printed.percent else 0), rule)
            if batched is not None:
                return batched
        return decide_scaled(value, places, rule)

    def rounded(self, step: str, row: int, column: int, places: int, rule: Rounding
                ) -> int | None:
        """``value * 10**places`` rounded under ``rule`` for one entry, or None if the
        enclosure does not settle it (or the grid has none)."""
        return settled(self.table(step, places, rule), row, column)

    def table(self, step: str, places: int, rule: Rounding) -> Table | None:
        """Every entry of the step rounded (rows of ints) and whether the enclosure settles
        it (rows of bools); None when the step has no table (few claims, no enclosure)."""
        key = (step, places, rule is Rounding.TRUNCATE)
        if key in self._tables:
            return self._tables[key]
        table = None
        if self._claims.get(step, 0) >= _MIN_CLAIMS and 0 <= places <= MAX_PLACES:
            enclosure = self._enclosure(step)
            table = None if enclosure is None else _table(enclosure, places, key[2])
        self._tables[key] = table
        return table

    def _enclosure(self, step: str) -> Enclosure | None:
        if step not in self._enclosures:
            self._enclosures[step] = self._lookup(step)
        return self._enclosures[step]


def _enclosure_of(derivation: Derivation, step: str) -> Enclosure | None:
    if step not in derivation:
        return None
    enclosure = getattr(derivation[step].value, "enclosure", None)
    return enclosure() if callable(enclosure) else None


def _table(enclosure: Enclosure, places: int, truncate: bool) -> Table:
    """Every entry rounded at ``places`` (half rules: to nearest, which all half rules
    agree on away from a midpoint; truncation: towards zero), and where that is proved."""
    rounded = enclosure_roundings(enclosure, places, truncate=truncate)
    return rounded.scaled.tolist(), rounded.proved.tolist()


def settled(table: Table | None, row: int, column: int) -> int | None:
    """The rounded entry of a ``GridRoundings.table``, or None where it is left open."""
    if table is None:
        return None
    values, decided = table
    try:
        return values[row][column] if decided[row][column] else None
    except IndexError:
        return None
