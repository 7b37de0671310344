"""Printed numbers in a worked example: each next to its entry, with its verdict.

The verdicts come from ``checker.check`` as data; here they are only placed.
Printings of whole entries become matrices shaped like the step (one per
label: the main printing and each repeated one, ``@ label``); terms, row sums,
the divisor and entries outside the part on show are listed in a table. Every
printed number that is not ok is listed again with the checker's reason.
"""

from __future__ import annotations

__all__ = ["step_claims", "summary", "printed_latex", "rounded_latex"]

from typing import Any

from flint import fmpq

from symattn.render import latex
from symattn.values.exact import NEG_INF
from symattn.values.rounding import format_scaled
from symattn.render.worked.model import ClaimCell, ClaimRow, Matrix, PrintedGroup, StepClaims, Summary


def printed_latex(verdict: Any) -> str:
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


def rounded_latex(verdict: Any, separator: str) -> str:
    """The exact value rounded as the document printed it, in the output's separator."""
    text = verdict.exact_rounded
    if not text:
        return ""
    if separator == ",":
        text = text.replace(".", ",")
    return latex.printed_math(text) or ""


def _row(builder: Any, verdict: Any) -> ClaimRow:
    where = verdict.position + (f" @ {verdict.label}" if verdict.label else "")
    return ClaimRow(where=builder.text(where), printed=printed_latex(verdict),
                    verdict=verdict.verdict,
                    exact=rounded_latex(verdict, builder.fmt.separator),
                    reason=builder.text(verdict.reason),
                    flags=builder.text(", ".join(verdict.flags)))


def step_claims(builder: Any, name: str) -> StepClaims:
    """The printed numbers that belong to step ``name``."""
    verdicts = [v for v in builder.report.verdicts if v.claim.target.step == name
                or name == "scaled" and v.claim.target.part == "divisor"]
    if not verdicts:
        return StepClaims()
    rows, columns = builder.shown(name)
    groups: dict[str, dict[tuple[int, int], ClaimCell]] = {}
    others = []
    for verdict in verdicts:
        target = verdict.claim.target
        cells = groups.setdefault(verdict.label, {}) if target.part == "entry" else None
        key = (target.row, target.column)
        if cells is not None and target.row in rows and target.column in columns \
                and key not in cells:
            exact = "" if verdict.verdict == "ok" else rounded_latex(verdict,
                                                                     builder.fmt.separator)
            cells[key] = ClaimCell(printed_latex(verdict), verdict.verdict, exact)
        else:
            others.append(_row(builder, verdict))
    printed = []
    for label, cells in groups.items():
        if not cells:
            continue
        layout = builder.layout(rows, columns, lambda i, j: cells.get((i, j), ""))
        elided = len(rows) < builder.d[name].shape[0] or \
            len(columns) < builder.d[name].shape[1]
        matrix = Matrix(layout, builder.shape(name), False, elided)
        printed.append(PrintedGroup(builder.text(label), matrix))
    notes = tuple(_row(builder, v) for v in verdicts if v.verdict != "ok")
    return StepClaims(tuple(printed), tuple(others), notes)


def summary(report: Any) -> Summary:
    counts = report.counts
    return Summary(total=str(len(report.verdicts)), ok=str(counts["ok"]),
                   propagated=str(counts["propagated"]), wrong=str(counts["wrong"]),
                   undecided=str(counts["undecided"]), rounding=report.rounding.value)
