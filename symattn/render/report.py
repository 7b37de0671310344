"""Lay out check reports as text, Markdown or JSON (the JSON schema is stable).

Text and Markdown speak the reader's language: ``language`` when given, else
each report's own (its spec's ``language`` key), else English. The verdicts,
their reasons and the table headings come from the catalogs; ``where`` is the
claim's key as the spec wrote it (``weights[3,1]``, ``@ label``), so that a
reader finds the line of the spec it judges. A report on a size spec
(``[sizes]``) writes its sizes with the language's digit groups and decimal mark.

JSON: ``{"symattn": version, "schema_version": "1", "reports": [{"title", "source",
"rounding", "summary": {"ok", "propagated", "wrong", "undecided"}, "claims": [{"step",
"position", "row", "column", "line", "label", "printed", "exact", "exact_decimal", "exact_rounded",
"recomputed", "verdict", "flags", "reason", "carried_from", "carried_wrong"}]}]}``; the
``reason`` there is in English. A wrong number that a slip of the catalogue gives
(``verify.slips``) has ``"slip"`` too: the slip's id (``"column_softmax"``), or a list
of ids when several slips give the same number; the field is absent otherwise. A
spec that could not be checked is an entry ``{"source", "error", "status"}`` in its
place among the reports (``error`` is the line printed on stderr, ``status`` 2 for
unusable input, 3 for a bug).
"""

from __future__ import annotations

__all__ = ["report_text", "report_markdown", "report_json", "report_document", "report_table",
           "report_writer", "report_text_lines", "report_markdown_lines", "compact_json"]

import dataclasses
import json
from pathlib import PurePath
from typing import Callable, Sequence

from symattn import messages
from symattn._version import SCHEMA_VERSION, __version__
from symattn.render.printings import labels_in
from symattn.render.reasons import NoteWriter
from symattn.errors import visible
from symattn.verify.verdicts import Failed, Report, Verdict

_SEPARATORS = {"en": "."}        # every other language writes a decimal comma


def _numbers(verdict: Verdict, notes: NoteWriter) -> tuple[str, str]:
    """The verdict's printed and exact rounded numbers as the report shows them."""
    sizes = any(reason.key.startswith("sizes.") for reason in verdict.reasons)
    show = notes.size if sizes else notes.number
    printed, rounded = verdict.printed, verdict.exact_rounded
    return show(printed) if printed else "", show(rounded) if rounded else ""


def _where(verdict: Verdict) -> str:
    return verdict.position + (f" @ {verdict.label}" if verdict.label else "")


def report_writer(report: Report, language: str | None, mode: str) -> NoteWriter:
    """The writer of one report's words: ``language``, else the report's own, else English;
    ``mode`` plain (text) or markdown."""
    chosen = language or report.language or "en"
    escape = _md if mode == "markdown" else str
    return NoteWriter(messages.load(chosen), None, _SEPARATORS.get(chosen, ","), escape,
                      mode=mode)


def _summary(report: Report, notes: NoteWriter) -> str:
    counts = report.counts
    c = notes.catalog
    undecided = c.fill("report.undecided", count=str(counts["undecided"])) \
        if counts["undecided"] else ""
    return notes.convert(c.fill("report.counts", total=str(len(report.verdicts)),
                                ok=str(counts["ok"]), propagated=str(counts["propagated"]),
                                wrong=str(counts["wrong"]), undecided=undecided))


def _heading(report: Report, language: str) -> str:
    """The title (in the report's language) and where the spec is: a bundled example by
    its name alone."""
    where = PurePath((report.source or "").removeprefix("example ")).name   # never a path
    title = report.title_in(language) or where or "spec"
    source = f" ({where})" if where and title != where else ""
    return f"{title}{source}"


def _rounding(report: Report, notes: NoteWriter) -> str:
    rule = notes.catalog.text(f"rounding.{report.rounding.value}")
    return notes.convert(notes.catalog.fill("report.rounding", rule=rule))


def _verdict_text(verdict: Verdict, notes: NoteWriter) -> str:
    word = notes.verdict_word(verdict.verdict)
    word = word.upper() if verdict.verdict == "wrong" else word
    flags = notes.flags(verdict)
    return word + (f" [{flags}]" if flags else "")


def _columns(notes: NoteWriter) -> tuple[str, ...]:
    return tuple(notes.convert(notes.catalog.text(f"report.{name}"))
                 for name in ("where", "printed", "exact", "verdict", "reason"))


def report_table(report: Report, language: str | None = None
                 ) -> tuple[str, str, tuple[str, ...], list[tuple[str, str, str, str, str, str]]]:
    """One report as plain strings (heading, summary line, column headings, a row per
    claim: where, printed, exact, verdict, reason, the verdict key), for other layouts
    (render.notebook's HTML)."""
    notes = report_writer(report, language, "plain")
    report = labels_in(report, notes.catalog.language)
    shown, _ = _shown_rows(report, notes, False)
    rows = [(_where(v), *_numbers(v, notes), _verdict_text(v, notes), notes.reason(v),
             v.verdict) for v in shown.verdicts]
    return (_heading(report, notes.catalog.language),
            f"{_rounding(report, notes)} {_summary(report, notes)}", _columns(notes), rows)


def report_text(reports: Sequence[Report], language: str | None = None,
                problems_only: bool = False) -> str:
    """The reports as aligned text tables, in ``language`` (else each spec's own);
    ``problems_only``: the rows of the numbers an author has to look at."""
    out = []
    for report in reports:
        out += report_text_lines(report, report_writer(report, language, "plain"),
                                 problems_only=problems_only)
    return "\n".join(out)


def _shown_rows(report: Report, notes: NoteWriter, problems_only: bool
                ) -> tuple[Report, list[str]]:
    """The report with the rows to show (problems first), and the line saying how many
    right ones are not shown."""
    if not problems_only:   # every row, the problems first (in the spec's order)
        first = sorted(report.verdicts, key=lambda v: not v.is_problem)
        return dataclasses.replace(report, verdicts=tuple(first)), []
    shown = tuple(v for v in report.verdicts if v.is_problem)
    hidden = len(report.verdicts) - len(shown)
    note = [notes.convert(notes.catalog.fill("report.right_hidden", count=str(hidden)))] \
        if hidden else []
    return dataclasses.replace(report, verdicts=shown), note


def report_text_lines(report: Report, notes: NoteWriter, below: Sequence[str] = (),
                      problems_only: bool = False) -> list[str]:
    """One report's lines of text: heading, its underline, the summary, ``below`` (more
    lines under the summary), a blank line, the table, a blank line."""
    report = labels_in(report, notes.catalog.language)
    heading = visible(_heading(report, notes.catalog.language))
    shown, hidden = _shown_rows(report, notes, problems_only)
    out = [heading, "=" * len(heading), f"{_rounding(report, notes)} "
           f"{_summary(report, notes)}", *below, *hidden, ""]
    rows = [_columns(notes)] + _rows(shown, notes)
    widths = [max(map(len, column)) for column in list(zip(*rows))[:4]]
    out += [f"{where.ljust(widths[0])}  {printed.ljust(widths[1])}  "
            f"{rounded.ljust(widths[2])}  {verdict.ljust(widths[3])}  {reason}"
            for where, printed, rounded, verdict, reason in rows]
    out.append("")
    return out


def _rows(report: Report, notes: NoteWriter) -> list[tuple[str, str, str, str, str]]:
    """Each verdict's cells of the text table: where, printed, exact rounded, verdict,
    reason (a cell with characters a terminal would not show is made visible)."""
    rows = []
    words: dict[str, str] = {}      # a verdict without flags, in words
    for v in report.verdicts:
        if v.flags:
            word = _verdict_text(v, notes)
        else:
            word = words.get(v.verdict) or words.setdefault(v.verdict, _verdict_text(v, notes))
        printed, rounded = _numbers(v, notes)
        row = (_where(v), printed, rounded, word, notes.reason(v))
        if not "".join(row).isprintable():
            row = (visible(row[0]), visible(row[1]), visible(row[2]), word, visible(row[4]))
        rows.append(row)
    return rows


def _md(text: str) -> str:
    """User text (titles, labels, printed numbers) as Markdown shows it literally, as
    ``derive --format markdown`` does: no HTML, code spans, table cells or blocks."""
    # imported here: it brings the worked-example layout, which text and JSON never use
    from symattn.render.markdown_document import escape_markdown

    return escape_markdown(text)


def report_markdown(reports: Sequence[Report], language: str | None = None,
                    problems_only: bool = False) -> str:
    """The reports as Markdown tables, in ``language`` (else each spec's own);
    ``problems_only``: the rows of the numbers an author has to look at."""
    out = []
    for report in reports:
        out += report_markdown_lines(report, report_writer(report, language, "markdown"),
                                     problems_only=problems_only)
    return "\n".join(out)


def report_markdown_lines(report: Report, notes: NoteWriter, below: Sequence[str] = (),
                          problems_only: bool = False) -> list[str]:
    """One report's Markdown lines: heading, summary, ``below`` (paragraphs under the
    summary, each a line), the table, a blank line."""
    report = labels_in(report, notes.catalog.language)
    columns = _columns(notes)
    shown, hidden = _shown_rows(report, notes, problems_only)
    out = [f"## {_md(_heading(report, notes.catalog.language))}", "",
           f"{_rounding(report, notes)} {_summary(report, notes)}", "",
           *(line for paragraph in [*below, *hidden] for line in (paragraph, "")),
           "| " + " | ".join(columns) + " |", "|---|---|---|---|---|"]
    for v in shown.verdicts:
        verdict = notes.verdict_word(v.verdict)
        verdict = f"**{verdict}**" if v.verdict == "wrong" else verdict
        flags = notes.flags(v)
        if flags:
            verdict += f" ({flags})"
        printed, exact = _numbers(v, notes)
        out.append(f"| <code>{_md(_where(v))}</code> | {printed} | {exact} | {verdict} | "
                   f"{notes.reason(v)} |")
    out.append("")
    return out


def report_document(reports: Sequence[Report | Failed], max_terms: int | None = None,
                    claims: bool = True) -> dict[str, object]:
    """The JSON document of check reports as Python data (schemas/check.json); a spec
    that failed is an entry with its ``error`` line and exit ``status`` instead of claims.
    A closed form of more than ``max_terms`` exponentials is null (None: every one
    written), and its report says how many (``exact_omitted``) and ``max_terms``. With
    ``claims`` False, each report has its counts and no claims (``check --summary``)."""
    return _document(reports, max_terms, (lambda r: r.to_records(max_terms)) if claims
                     else None)


def report_json(reports: Sequence[Report | Failed], max_terms: int | None = None) -> str:
    """The reports as one JSON document (``report_document``), one claim a line."""
    return compact_json(report_document(reports, max_terms))


def _document(reports: Sequence[Report | Failed], max_terms: int | None,
              claims: Callable[[Report], Sequence[object]] | None) -> dict[str, object]:
    return {"symattn": __version__, "schema_version": SCHEMA_VERSION,
            "reports": [_report_entry(r, max_terms, claims) for r in reports]}


def _report_entry(r: Report | Failed, max_terms: int | None,
                  claims: Callable[[Report], Sequence[object]] | None) -> dict[str, object]:
    if isinstance(r, Failed):
        return {"source": r.source, "error": r.error, "status": r.status}
    omitted = r.exact_omitted(max_terms)
    return {"title": r.title, **({"variant": r.variant} if r.variant else {}),
            "source": r.source, "rounding": r.rounding.value,
            "summary": r.counts, **({"claims": claims(r)} if claims else {}),
            **({"exact_omitted": omitted, "max_terms": max_terms} if omitted else {})}


def compact_json(document: object, depth: int = 4) -> str:
    """``json.dumps(document, indent=1)`` down to ``depth`` levels; anything deeper
    (one claim, one matrix row) on one line, by ``json.dumps`` without indenting."""
    return _compact(document, depth, 0) + "\n"


def _compact(value: object, depth: int, level: int) -> str:
    if level >= depth or not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, ensure_ascii=False)
    inner = "\n" + " " * (level + 1)
    if isinstance(value, dict):
        items = [f"{json.dumps(key, ensure_ascii=False)}: {_compact(item, depth, level + 1)}"
                 for key, item in value.items()]
        return "{" + inner + ("," + inner).join(items) + "\n" + " " * level + "}"
    items = [_compact(item, depth, level + 1) for item in value]
    return "[" + inner + ("," + inner).join(items) + "\n" + " " * level + "]"
