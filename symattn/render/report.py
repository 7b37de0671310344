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
           "report_writer", "report_text_lines", "report_markdown_lines", "compact_json",
           "TableOptions", "PLAIN_TABLE"]

import dataclasses
import json
from pathlib import PurePath
from typing import Callable, Sequence

from symattn import messages
from symattn._version import SCHEMA_VERSION, __version__
from symattn.render.printings import labels_in
from symattn.render.report_rows import Places, ReportRow, report_rows
from symattn.render.text_table import aligned, fitted
from symattn.render.reasons import NoteWriter
from symattn.errors import visible
from symattn.verify.verdicts import Failed, Report

_SEPARATORS = {"en": "."}        # every other language writes a decimal comma
# The widths a text table's columns are first narrowed to when it is too wide for the
# terminal, before the reasons are: lines "76, 96, 100,", a name in words, a verdict.
_FIRST_WIDTHS = {"line": 12, "where": 26, "key": 16, "verdict": 16}


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


def _column(notes: NoteWriter, name: str) -> str:
    return notes.convert(notes.catalog.text(f"report.{name}"))


def _cells(rows: Sequence[ReportRow], notes: NoteWriter, keys: bool
           ) -> tuple[list[str], list[list[str]]]:
    """The table's column headings and cells: place (when any row has one), the number
    in words, its key (``keys``), printed, exact, verdict, reason."""
    names = ["line"] * any(row.place for row in rows) + ["where"] + ["key"] * keys + \
        ["printed", "exact", "verdict", "reason"]
    cells = [[getattr(row, "what" if name == "where" else "place" if name == "line" else name)
              for name in names] for row in rows]
    return [_column(notes, name) for name in names], cells


@dataclasses.dataclass(frozen=True)
class TableOptions:
    """How a check report's table is laid out: ``problems_only`` (``--show problems``),
    ``keys`` (a column of claim keys), ``width`` (text: the width the reasons are wrapped
    to; None: not wrapped), ``places`` (a document's: where each number stands) and
    ``heading`` (text: the heading instead of the report's title and source, and the lines
    under it)."""

    problems_only: bool = False
    keys: bool = False
    width: int | None = None
    places: Places | None = None
    heading: tuple[str, ...] = ()    # a heading in place of the report's title, lines under it


PLAIN_TABLE = TableOptions()      # every row, no key column, not wrapped


def report_table(report: Report, language: str | None = None,
                 options: TableOptions = PLAIN_TABLE
                 ) -> tuple[str, str, dict[str, str], list[ReportRow]]:
    """One report as plain strings for other layouts (render.web's HTML): heading, summary
    lines (with, under ``options.problems_only``, how many right numbers are left out),
    the column headings by name (line, where, key, printed, exact, verdict, reason) and
    its rows (``report_rows``: problems first, in the reader's words, at
    ``options.places``)."""
    notes = report_writer(report, language, "plain")
    report = labels_in(report, notes.catalog.language)
    rows, hidden = report_rows(report, notes, options.places, options.problems_only)
    columns = {name: _column(notes, name) for name in ("line", "where", "key", "printed",
                                                         "exact", "verdict", "reason")}
    summary = " ".join([f"{_rounding(report, notes)} {_summary(report, notes)}",
                        *_hidden(hidden, notes)])
    return _heading(report, notes.catalog.language), summary, columns, rows

def report_text(reports: Sequence[Report], language: str | None = None,
                problems_only: bool = False, keys: bool = False,
                width: int | None = None) -> str:
    """The reports as aligned text tables, in ``language`` (else each spec's own);
    ``problems_only``: the rows of the numbers an author has to look at; ``keys``: with
    a column of claim keys; ``width``: reasons wrapped to fit it."""
    options = TableOptions(problems_only, keys, width)
    out = []
    for report in reports:
        out += report_text_lines(report, report_writer(report, language, "plain"),
                                 options=options)
    return "\n".join(out)


def _hidden(count: int, notes: NoteWriter) -> list[str]:
    """The line saying how many right numbers are not shown."""
    return [notes.convert(notes.catalog.fill("report.right_hidden", count=str(count)))] \
        if count else []


def report_text_lines(report: Report, notes: NoteWriter, below: Sequence[str] = (),
                      options: TableOptions = PLAIN_TABLE) -> list[str]:
    """One report's lines of text: heading, its underline, the summary, ``below`` (more
    lines under the summary), a blank line, the table, a blank line."""
    report = labels_in(report, notes.catalog.language)
    heading, *under = options.heading or (visible(_heading(report, notes.catalog.language)),)
    rows, hidden = report_rows(report, notes, options.places, options.problems_only)
    out = [heading, "=" * len(heading), *fitted(
        [*under, f"{_rounding(report, notes)} {_summary(report, notes)}", *below,
         *_hidden(hidden, notes)], options.width), ""]
    if not rows:
        return out
    header, cells = _cells(rows, notes, options.keys)
    cells = [[visible(cell) for cell in row] for row in cells]
    first = {_column(notes, name): width for name, width in _FIRST_WIDTHS.items()}
    wrapped = {c: first.get(name, 0) for c, name in enumerate(header)
               if name not in {_column(notes, "printed"), _column(notes, "exact")}}
    out += aligned(header, cells, wrap=wrapped, width=options.width)
    out += [*fitted(_legend(rows, notes), options.width), ""]
    return out


def _legend(rows: Sequence[ReportRow], notes: NoteWriter) -> list[str]:
    """What a verdict shown in the table means, when its reasons leave it out."""
    return [notes.suspicious_legend()] if any(r.verdict_key == "suspicious" for r in rows) \
        else []


def _md(text: str) -> str:
    """User text (titles, labels, printed numbers) as Markdown shows it literally, as
    ``derive --format markdown`` does: no HTML, code spans, table cells or blocks."""
    # imported here: it brings the worked-example layout, which text and JSON never use
    from symattn.render.markdown_document import escape_markdown

    return escape_markdown(text)


def report_markdown(reports: Sequence[Report], language: str | None = None,
                    problems_only: bool = False, keys: bool = False) -> str:
    """The reports as Markdown tables, in ``language`` (else each spec's own);
    ``problems_only``: the rows of the numbers an author has to look at; ``keys``: with
    a column of claim keys."""
    options = TableOptions(problems_only, keys)
    out = []
    for report in reports:
        out += report_markdown_lines(report, report_writer(report, language, "markdown"),
                                     options=options)
    return "\n".join(out)


def report_markdown_lines(report: Report, notes: NoteWriter, below: Sequence[str] = (),
                          options: TableOptions = PLAIN_TABLE) -> list[str]:
    """One report's Markdown lines: heading, summary, ``below`` (paragraphs under the
    summary, each a line), the table, a blank line."""
    report = labels_in(report, notes.catalog.language)
    rows, hidden = report_rows(report, notes, options.places, options.problems_only)
    header, cells = _cells(rows, notes, options.keys)
    out = [f"## {_md(_heading(report, notes.catalog.language))}", "",
           f"{_rounding(report, notes)} {_summary(report, notes)}", "",
           *(line for paragraph in [*below, *_hidden(hidden, notes)] for line in (paragraph, ""))]
    if not rows:
        return out
    out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    key = header.index(_column(notes, "key")) if options.keys else -1
    verdict = len(header) - 2
    for row, line in zip(rows, cells):
        line = [f"<code>{_md(cell)}</code>" if c == key else cell for c, cell in enumerate(line)]
        if row.verdict_key == "wrong":
            line[verdict] = f"**{line[verdict]}**"
        out.append("| " + " | ".join(line) + " |")
    out += [line for legend in _legend(rows, notes) for line in ("", legend)]
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
