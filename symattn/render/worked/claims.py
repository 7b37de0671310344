"""Printed numbers in a worked example: each next to its entry, with its verdict.

The verdicts come from ``checker.check`` as data; here they are only placed.
Printings of whole entries become matrices shaped like the step (one per
label: the main printing and each repeated one, ``@ label``); terms, row sums,
the divisor and entries outside the part on show are listed in a table. Every
printed number that is not ok is listed again with the checker's reason.
"""

from __future__ import annotations

__all__ = ["step_claims", "summary", "printed_latex", "rounded_latex"]

from typing import Callable

from flint import fmpq

from symattn import messages
from symattn.messages import Catalog
from symattn.render import latex
from symattn.render.worked.layout import Layout
from symattn.render.worked.model import (ClaimCell, ClaimRow, Matrix, PrintedGroup, StepClaims,
                                         Summary)
from symattn.values.exact import NEG_INF
from symattn.values.rounding import format_scaled
from symattn.verify.checker import Report, Verdict


def printed_latex(verdict: Verdict) -> str:
    """The printed number as math, as printed (or normalised if it is unusual)."""
    shown = latex.printed_math(verdict.printed)
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


def _flags(verdict: Verdict, text: Callable[[str], str], catalog: Catalog | None) -> str:
    """The verdict's flags as text; carried from a wrong number in the catalog's words."""
    flags = text(", ".join(f for f in verdict.flags if f != "carried_wrong"))
    if not verdict.carried_wrong:
        return flags
    printed = ", ".join(latex.printed_math(source.partition(" = ")[2]) or ""
                        for source in verdict.carried_wrong)
    words = (catalog or messages.load("en")).fill("carried.wrong_source", printed=printed)
    return f"{flags}; {words}" if flags else words


def _row(verdict: Verdict, text: Callable[[str], str], separator: str,
         catalog: Catalog | None = None) -> ClaimRow:
    where = verdict.position + (f" @ {verdict.label}" if verdict.label else "")
    return ClaimRow(where=text(where), printed=printed_latex(verdict),
                    verdict=verdict.verdict, exact=rounded_latex(verdict, separator),
                    reason=text(verdict.reason), flags=_flags(verdict, text, catalog))


def step_claims(report: Report, name: str, layout: Layout, text: Callable[[str], str],
                separator: str, catalog: Catalog | None = None) -> StepClaims:
    """The printed numbers that belong to step ``name``.

    ``layout`` places them like the step's matrix, ``text`` escapes prose,
    ``separator`` is the document's decimal separator and ``catalog`` words
    the flags (English when None).
    """
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
            cells[key] = ClaimCell(printed_latex(verdict), verdict.verdict, exact)
        else:
            others.append(_row(verdict, text, separator, catalog))
    printed = tuple(PrintedGroup(text(label), _printed_matrix(layout, name, cells))
                    for label, cells in groups.items() if cells)
    notes = tuple(_row(v, text, separator, catalog) for v in verdicts if v.verdict != "ok")
    return StepClaims(printed, tuple(others), notes)


def _printed_matrix(layout: Layout, name: str, cells: dict[tuple[int, int], ClaimCell]
                    ) -> Matrix:
    """The printed entries where they stand in step ``name``'s matrix, "" elsewhere."""
    rows, columns = layout.shown(name)
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
