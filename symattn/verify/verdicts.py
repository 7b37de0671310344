"""The records of a check: a ``Verdict`` per printed number, a ``Report`` per spec.

>>> from symattn.values.rounding import Rounding
>>> Report("empty", None, Rounding.HALF_UP, ()).counts
{'ok': 0, 'propagated': 0, 'wrong': 0, 'undecided': 0}
"""

from __future__ import annotations

__all__ = ["VERDICTS", "FLAGS", "Verdict", "Report"]

from dataclasses import dataclass, field

from symattn.values.rounding import Rounding
from symattn.verify.claims import Claim

VERDICTS = ("ok", "propagated", "wrong", "undecided")
FLAGS = ("tie", "near-tie", "inconsistent", "approximate", "carried_wrong")


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
    # The printed numbers it was carried from that are themselves wrong ("weights[2,1] = 0.37").
    carried_wrong: tuple[str, ...] = ()
    # The printed numbers a propagated verdict was carried from (the claims themselves).
    used: tuple[Claim, ...] = field(default=(), compare=False, repr=False)

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
