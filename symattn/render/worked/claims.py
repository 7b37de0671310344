"""Printed numbers in a worked example: each next to its entry, with its verdict.

The verdicts come from ``checker.check`` as data; here they are only placed.
Printings of whole entries become matrices shaped like the step (one per
label: the main printing and each repeated one, ``@ label``); terms, row sums,
the divisor and entries outside the part on show are listed in a table. Every
printed number that is not ok is listed again, named in words as the page
names it, with the checker's reason in the document's language (one note per
number, however often the document printed it).
"""

from __future__ import annotations

__all__ = ["step_claims", "summary", "printed_latex", "rounded_latex"]

from typing import Callable

from flint import fmpq

from symattn.render import latex
from symattn.render.reasons import NoteWriter
from symattn.render.worked.layout import Layout
from symattn.render.worked.model import (ClaimCell, ClaimRow, Matrix, PrintedGroup, StepClaims,
                                         Summary)
from symattn.values.exact import NEG_INF
from symattn.values.rounding import format_scaled
from symattn.verify.checker import Report, Verdict


def printed_latex(verdict: Verdict, separator: str = ".") -> str:
    """The printed number as math, as printed (or normalised if it is unusual), with
    the page's decimal ``separator`` when it printed only a decimal point."""
    text = verdict.printed
    if separator == "," and "," not in text:
        text = text.replace(".", ",")
    shown = latex.printed_math(text)
    if shown is not None:
        return shown
    printed = verdict.claim.printed
    if printed.value is NEG_INF:
        return r"-\infty"
    if printed.exact:        # a printed closed form: 1/3, sqrt(2)/2
        text = latex.exact_latex(printed.value) or ""
    else:
        assert isinstance(printed.value, fmpq)
        scaled = int(printed.value * fmpq(10) ** printed.places)
        text = latex.math_decimal(format_scaled(scaled, printed.places))
    return (r"{\approx}" if printed.approximate else "") + text + (
        r"\,\%" if printed.percent else "")


def rounded_latex(verdict: Verdict, separator: str) -> str:
    """The exact value rounded as the document printed it, in the output's separator."""
    text = verdict.exact_rounded
    if not text:
        return ""
    if separator == ",":
        text = text.replace(".", ",")
    return latex.printed_math(text) or ""


# Flags of an ok number whose reason the page should give (verify.input_rounding, .framework)
_EXPLAINED = {"input_rounding", "framework_precision"}


def _row(verdict: Verdict, notes: NoteWriter, labels: str = "") -> ClaimRow:
    """One printed number in words: where it stands, its verdict and the reason."""
    where = notes.where(verdict)
    if labels:
        where += f" ({labels})"
    return ClaimRow(where=where, printed=printed_latex(verdict, notes.separator),
                    verdict=verdict.verdict,
                    exact=rounded_latex(verdict, notes.separator), reason=notes.reason(verdict),
                    flags=notes.flags(verdict))


def _notes(verdicts: list[Verdict], notes: NoteWriter, text: Callable[[str], str]
           ) -> tuple[ClaimRow, ...]:
    """One note per printed number that is not ok, or ok only through rounded inputs or
    a float format: the printings of one number with the same digits and verdict (the
    main one and its repetitions) share a note."""
    groups: dict[tuple[object, ...], list[Verdict]] = {}
    for verdict in verdicts:
        if verdict.verdict != "ok" or _EXPLAINED & set(verdict.flags):
            key = (verdict.claim.target, verdict.printed.strip(), verdict.verdict)
            groups.setdefault(key, []).append(verdict)
    rows = []
    for group in groups.values():
        times = text(_shown(group[0].label)) if group[0].label else ""  # where it was printed
        if len(group) > 1:
            times = notes.convert(notes.catalog.fill("document.printed_times",
                                                     count=str(len(group))))
        rows.append(_row(group[0], notes, times))
    return tuple(rows)


_LABEL_SHOWN = 40   # characters of a claim's label a page shows (math cannot break it)


def _shown(label: str) -> str:
    """A label as a page shows it: cut to a line's worth, with an ellipsis."""
    return label if len(label) <= _LABEL_SHOWN else label[:_LABEL_SHOWN - 1].rstrip() + "\u2026"


def step_claims(report: Report, name: str, layout: Layout, text: Callable[[str], str],
                notes: NoteWriter) -> StepClaims:
    """The printed numbers that belong to step ``name``.

    ``layout`` places them like the step's matrix, ``text`` escapes prose and
    ``notes`` writes numbers and reasons in the document's language and decimal mark.
    """
    separator = notes.separator
    verdicts = [v for v in report.verdicts if v.claim.target.step == name
                or name == "scaled" and v.claim.target.part == "divisor"]
    if not verdicts:
        return StepClaims()
    rows, columns = layout.shown(name)
    groups: dict[str, dict[tuple[int, int], ClaimCell]] = {}
    others = []
    for verdict in verdicts:
        target = verdict.claim.target
        cells = groups.setdefault(verdict.label, {}) if target.part == "entry" else None
        key = (target.row, target.column)
        if cells is not None and target.row in rows and target.column in columns \
                and key not in cells:
            exact = "" if verdict.verdict == "ok" else rounded_latex(verdict, separator)
            cells[key] = ClaimCell(printed_latex(verdict, separator), verdict.verdict, exact)
        else:
            label = text(_shown(verdict.label)) if verdict.label else ""
            others.append(_row(verdict, notes, label))
    printed = tuple(PrintedGroup(text(_shown(label)), _printed_matrix(layout, name, cells))
                    for label, cells in groups.items() if cells)
    return StepClaims(printed, tuple(others), _notes(verdicts, notes, text))


def _printed_matrix(layout: Layout, name: str, cells: dict[tuple[int, int], ClaimCell]
                    ) -> Matrix:
    """The printed entries where they stand in step ``name``'s matrix, "" elsewhere:
    only the rows with a printed entry (no brackets around rows of blanks)."""
    shown, columns = layout.shown(name)
    rows = tuple(i for i in shown if any((i, j) in cells for j in columns)) or shown
    n, m = layout.d[name].shape
    elided = len(rows) < n or len(columns) < m
    return Matrix(layout.layout(rows, columns, lambda i, j: cells.get((i, j), "")),
                  layout.shape(name), False, elided)


def summary(report: Report) -> Summary:
    """The counts of the verdicts, for the document's summary."""
    counts = report.counts
    return Summary(total=str(len(report.verdicts)), ok=str(counts["ok"]),
                   propagated=str(counts["propagated"]), wrong=str(counts["wrong"]),
                   undecided=str(counts["undecided"]), rounding=report.rounding.value)
