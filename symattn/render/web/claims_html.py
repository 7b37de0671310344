"""The verdicts on a spec's printed numbers, found by the entry they judge, for the marks
a page sets beside the numbers of its matrices.

>>> import symattn
>>> derivation = symattn.derive(symattn.load_example("004-cat-eats-fish"))
>>> marks = printed_marks(symattn.check(derivation), symattn.messages.load("en"))
>>> marks[("output", 2, 0)].key, marks[("output", 2, 0)].mark
('wrong', '✗')
"""

from __future__ import annotations

__all__ = ["Mark", "printed_marks", "MARKS"]

from dataclasses import dataclass

from symattn.messages import Catalog
from symattn.verify.verdicts import Report, Verdict

MARKS = {"ok": "✓", "propagated": "↝", "wrong": "✗", "undecided": "?"}
# of several printings of one entry, the mark shows the worst
_WORST = {"ok": 0, "propagated": 1, "undecided": 2, "wrong": 3}


@dataclass(frozen=True)
class Mark:
    """The verdict key and symbol of an entry's printings, and one line per printing."""

    key: str
    lines: tuple[str, ...]

    @property
    def mark(self) -> str:
        return MARKS.get(self.key, "?")


def _entry(verdict: Verdict) -> tuple[str, int, int] | None:
    """The 0-based entry a verdict judges (a vector's entry in its only column)."""
    row, column = verdict.row_column
    if row is None:
        return None
    return verdict.step, row - 1, (column or 1) - 1


def printed_marks(report: Report, catalog: Catalog) -> dict[tuple[str, int, int], Mark]:
    """Each judged entry (step, row, column; 0-based) with the mark it is shown with."""
    found: dict[tuple[str, int, int], list[Verdict]] = {}
    for verdict in report.verdicts:
        entry = _entry(verdict)
        if entry is not None:
            found.setdefault(entry, []).append(verdict)
    printed = catalog.text("report.printed")
    marks = {}
    for entry, verdicts in found.items():
        key = max((v.verdict for v in verdicts), key=lambda k: _WORST.get(k, 2))
        lines = tuple(f"{printed}{' @ ' + v.label if v.label else ''}: {v.printed} "
                      f"{MARKS.get(v.verdict, '?')} {catalog.text(f'verdict.{v.verdict}')}"
                      for v in verdicts)
        marks[entry] = Mark(key, lines)
    return marks
