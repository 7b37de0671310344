"""The rows of a check report as its reader sees them, for every layout (text, Markdown,
notebook HTML).

Each row names its number in the reader's words ("the weight of key 2 in row 3")
and where it stands: the document's line and column, or the spec's line. The
claim key (``weights[3,2] @ line 75``) is kept for an optional column. Problems
come first. The printings of one entry that are judged alike (the same printed
number, verdict and reason) are one row listing their lines; a reason already
written for an earlier row is referred to ("as for line 76"), and a right
number's reason is its rounding ("0.3945211… → 0.395").

>>> import symattn
>>> from symattn.render.report import report_writer
>>> report = symattn.check(symattn.load_example("000-cat-chases-mouse"))
>>> rows, hidden = report_rows(report, report_writer(report, "en", "plain"),
...                            problems_only=True)
>>> rows[0].what, rows[0].verdict
('the weight of key 1 in row 2', 'carried forward')
"""

from __future__ import annotations

__all__ = ["ReportRow", "report_rows", "Places", "line_ranges"]

from dataclasses import dataclass, replace
from typing import Sequence

from symattn.render.reasons import NoteWriter
from symattn.verify.verdicts import Report, Verdict

# Where each verdict's number stands in a document: (line, column), and the cell (page,
# paragraph) when the document has them, with the word for what they count.
Places = tuple[Sequence[tuple[int, int]], Sequence[int | None], str]

_REFERRED = 40     # a reason shorter than this is written again, not referred to


@dataclass(frozen=True)
class ReportRow:
    """One row of a check report: its cells as the layout shows them, and what it is."""

    place: str            # "71:11" (line:column), "76, 96, 100–102" (printings), "12"
    what: str             # the number in the reader's words
    key: str              # the claim key, as the spec, JSON and templates write it
    printed: str
    exact: str            # the exact value rounded as the document printed it
    verdict: str          # the verdict in words, with its flags
    reason: str
    verdict_key: str      # ok | propagated | wrong | undecided | suspicious
    problem: bool


@dataclass
class _Entry:
    verdict: Verdict
    lines: list[int]
    place: str            # of the first printing


def report_rows(report: Report, notes: NoteWriter, places: Places | None = None,
                problems_only: bool = False) -> tuple[list[ReportRow], int]:
    """The rows of ``report`` (its labels already in the page's words) and how many right
    numbers ``problems_only`` leaves out."""
    entries = _entries(report, notes, places)
    entries.sort(key=lambda e: not e.verdict.is_problem)      # stable: the spec's order
    shown = [e for e in entries if e.verdict.is_problem] if problems_only else entries
    hidden = len(report.verdicts) - len(shown)
    rows: list[ReportRow] = []
    merged: dict[tuple[str, ...], int] = {}
    written: dict[str, str] = {}          # a reason -> the place it was first written at
    for entry in shown:
        row = _row(entry, notes, places is not None)
        same = (entry.verdict.position, row.printed, row.verdict, row.reason)
        if entry.lines and same in merged:
            rows[merged[same]] = _with_place(rows[merged[same]], entry, notes)
            continue
        merged[same] = len(rows)
        line = str(entry.lines[0]) if entry.lines else entry.place
        first = written.setdefault(row.reason, line)
        if first != line and len(row.reason) >= _REFERRED:
            row = replace(row, reason=notes.say("report.same_reason", line=first))
        rows.append(row)
    return rows, hidden if problems_only else 0


def _entries(report: Report, notes: NoteWriter, places: Places | None) -> list[_Entry]:
    """Each verdict with the line it stands at and its place in words."""
    if places is None:
        lines = [report.lines.get(v.claim.key) for v in report.verdicts]
        return [_Entry(v, [line] if line else [], str(line or ""))
                for v, line in zip(report.verdicts, lines)]
    spots, cells, part = places
    entries = []
    for k, verdict in enumerate(report.verdicts):
        line, column = spots[k]
        cell = cells[k] if k < len(cells) else None
        prefix = notes.say(f"report.part_{part}", number=str(cell)) + " " if cell else ""
        entries.append(_Entry(verdict, [line], f"{prefix}{line}:{column}"))
    return entries


def _row(entry: _Entry, notes: NoteWriter, in_document: bool) -> ReportRow:
    v = entry.verdict
    sizes = any(reason.key.startswith("sizes.") for reason in v.reasons)
    show = notes.size if sizes else notes.number
    what = v.position if sizes else notes.where(v)     # a size is named by its key
    if v.label and not in_document:        # a document's labels are its lines
        what += f" ({notes.escape(v.label)})"
    word = notes.verdict_word(v.verdict)
    word = word.upper() if v.verdict == "wrong" else word
    flags = notes.flags(v)
    return ReportRow(place=entry.place, what=what,
                     key=v.position + (f" @ {v.label}" if v.label else ""),
                     printed=show(v.printed) if v.printed else "",
                     exact=show(v.exact_rounded) if v.exact_rounded else "",
                     verdict=word + (f" [{flags}]" if flags else ""),
                     reason=notes.reason(v, brief=True), verdict_key=v.verdict,
                     problem=v.is_problem)


def _with_place(row: ReportRow, entry: _Entry, notes: NoteWriter) -> ReportRow:
    """``row`` standing also where ``entry`` does: its lines, as ranges, and its number
    in words and its key without a label (it names several printings)."""
    lines = sorted({*_lines(row.place), *entry.lines})
    return replace(row, place=line_ranges(lines), what=notes.where(entry.verdict),
                   key=entry.verdict.position)


def _lines(place: str) -> list[int]:
    """The lines a place names ("71:11" -> [71]; "76, 96, 100–102" -> [76, 96, 100, 101, 102])."""
    lines: list[int] = []
    for part in place.split(", "):
        part = part.rsplit(" ", 1)[-1].split(":")[0]
        first, _, last = part.partition("–")
        if first.isdigit():
            lines += range(int(first), int(last or first) + 1)
    return lines


def line_ranges(lines: Sequence[int]) -> str:
    """Sorted line numbers as ranges.

    >>> line_ranges([76, 96, 100, 101, 102])
    '76, 96, 100–102'
    """
    runs: list[list[int]] = []
    for line in lines:
        if runs and line == runs[-1][-1] + 1:
            runs[-1].append(line)
        else:
            runs.append([line])
    return ", ".join(str(run[0]) if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs)


