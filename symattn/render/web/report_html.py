"""Check reports as HTML: problems first, each verdict in colour, symbol and word.

The rows are ``render.report.report_table``'s (already in the order the text
report shows them: the problems first, each number in words with its line); here
they are only laid out, the printed and exact numbers each in two cells so that
the column lines up on the decimal mark.

>>> import symattn
>>> report = symattn.check(symattn.load_example("001-softmax-10-2-1"))
>>> table = report_section(report, "en")
>>> table.count("<tr>") == len(report.verdicts) + 1, "✓" in table, "key 1 in row 1" in table
(True, True, True)
"""

from __future__ import annotations

__all__ = ["report_section", "report_page", "document_page"]

import dataclasses
from typing import Sequence

from symattn import defaults, messages
from symattn.extract.checking import DocumentCheck
from symattn.render import report as report_render
from symattn.render.report import PLAIN_TABLE, TableOptions
from symattn.render.report_rows import ReportRow
from symattn.render.reports.document import counts_line, document_lists
from symattn.render.web.claims_html import MARKS
from symattn.render.web.page import escape, filled, numbered, page
from symattn.render.web.tips import number_tip
from symattn.verify.verdicts import Report

# report_table's heading, summary, column headings by name and rows
Table = tuple[str, str, dict[str, str], list[ReportRow]]



def report_section(report: Report, language: str | None = None, level: int = 2,
                   options: TableOptions = PLAIN_TABLE) -> str:
    """One report: heading (``<h{level}>``), rounding and counts, the table."""
    return _section(report, report_render.report_table(report, language, options), language,
                    level, options=options)


def _tips(report: Report, language: str | None) -> dict[str, str]:
    """Each claimed position's tip: the exact value and more places, all certain (every
    printing of one position has the same exact value)."""
    notes = report_render.report_writer(report, language, "plain")
    tips: dict[str, str] = {}
    for k, v in enumerate(report.verdicts):
        if v.position not in tips:      # a closed form of many exponentials is not written
            exact = v.exact if report.writes_exact(k, defaults.MAX_TERMS) else None
            more = notes.number(v.exact_decimal) if v.exact_decimal else None
            tips[v.position] = number_tip(exact, more, notes.catalog, places=True)
    return tips


def _no_catalog(report: Report, language: str | None) -> list[str]:
    """The line saying the spec's language has no catalog ("pt"), if it has none."""
    if not report.written_language:
        return []
    catalog = report_render.report_writer(report, language, "plain").catalog
    note = filled(catalog, "languages.missing_report", language=report.written_language)
    return [f"<p>{note}</p>"]


def _section(report: Report, table: Table, language: str | None, level: int,
             whole: bool = False, options: TableOptions = PLAIN_TABLE,
             below: Sequence[str] = (), after: Sequence[tuple[str, list[str]]] = ()) -> str:
    """A report's section; ``whole``: a page of reports, which says when the spec's
    language has no catalog (a derivation page says so under its own title); ``below``:
    paragraphs under the summary, ``after``: lists (a heading and its items) after the
    table, all text to escape."""
    heading, summary, columns, rows = table
    heading = options.heading[0] if options.heading else heading
    out = ['<section class="report">', f"<h{level}>{escape(heading)}</h{level}>",
           *(f"<p>{escape(line.strip())}</p>" for line in options.heading[1:]),
           f"<p>{escape(summary)}</p>", *(_no_catalog(report, language) if whole else []),
           *(f"<p>{escape(line)}</p>" for line in below)]
    if rows:
        out += _table(report, columns, rows, language, options.keys)
    for title, items in after:
        out += [f"<h{level + 1}>{escape(title)}</h{level + 1}>", "<ul>",
                *(f"<li>{escape(item)}</li>" for item in items), "</ul>"]
    out.append("</section>")
    return "\n".join(out)


def _table(report: Report, columns: dict[str, str], rows: Sequence[ReportRow],
           language: str | None, keys: bool) -> list[str]:
    """The verdict table (and what "suspicious" means, when a row is)."""
    tips = _tips(report, language)
    places = any(row.place for row in rows)
    head = [f'<th scope="col">{escape(columns["line"])}</th>'] * places + [
        f'<th scope="col">{escape(columns["where"])}</th>'] + [
        f'<th scope="col">{escape(columns["key"])}</th>'] * keys + [
        f'<th scope="col" colspan="2">{escape(columns["printed"])}</th>',
        f'<th scope="col" colspan="2">{escape(columns["exact"])}</th>',
        f'<th scope="col">{escape(columns["verdict"])}</th>',
        f'<th scope="col">{escape(columns["reason"])}</th>']
    out = ['<table class="report">', f'<thead><tr>{"".join(head)}</tr></thead>', "<tbody>"]
    for row in rows:
        mark = MARKS.get(row.verdict_key, "?")
        tip = tips.get(row.key.split(" @ ")[0], "")
        place = f"<td>{escape(row.place)}</td>" if places else ""
        key = f"<td><code>{escape(row.key)}</code></td>" if keys else ""
        out.append(f'<tr>{place}<td title="{escape(row.key)}">{escape(row.what)}</td>{key}'
                   f"{numbered(row.printed)}{numbered(row.exact, tip)}"
                   f'<td class="{escape(row.verdict_key)}"><span aria-hidden="true">'
                   f"{mark}</span>\u00a0{escape(row.verdict)}</td><td>{escape(row.reason)}"
                   "</td></tr>")
    out += ["</tbody>", "</table>"]
    if any(row.verdict_key == "suspicious" for row in rows):
        notes = report_render.report_writer(report, language, "plain")
        out.append(f"<p>{escape(notes.suspicious_legend())}</p>")
    return out


def report_page(reports: Sequence[Report], language: str | None = None,
                options: TableOptions = PLAIN_TABLE) -> str:
    """``check --format html``: every report on one page, in ``language`` (else each
    report's own; the page's ``lang`` is the first report's)."""
    chosen = language or next((r.language for r in reports if r.language), None) or "en"
    if len(reports) == 1:           # the report's heading is the page's
        table = report_render.report_table(reports[0], language, options)
        return page(table[0], _section(reports[0], table, language, 1, True, options), chosen)
    title = messages.load(chosen).text("web.check_title")
    body = "\n".join([f"<h1>{escape(title)}</h1>", *(
        _section(r, report_render.report_table(r, language, options), language, 2, True,
                 options) for r in reports)])
    return page(title, body, chosen)


def document_page(checks: Sequence[DocumentCheck], language: str | None = None,
                  show_unplaced: bool = False, options: TableOptions = PLAIN_TABLE,
                  examples: Sequence[Sequence[str]] = ()) -> str:
    """``check DOC --format html``: each report with where its numbers stand, the
    document's counts, and its lists (suspicious numbers, and with ``show_unplaced``
    those not placed); ``examples``: each report's example lines (its title, its inputs
    as inferred) as its heading."""
    chosen = language or checks[0].report.language or "en"
    sections = []
    for k, check in enumerate(checks):
        notes = report_render.report_writer(check.report, language, "plain")
        shown = dataclasses.replace(options, places=(check.places, check.cells, check.part),
                                    heading=tuple(examples[k]) if k < len(examples) else ())
        table = report_render.report_table(check.report, language, shown)
        sections.append(_section(check.report, table, language, 2, True, shown,
                                 [counts_line(check, notes)],
                                 document_lists(check, notes, show_unplaced)))
    title = sections and report_render.report_table(checks[0].report, language)[0]
    return page(str(title or "symattn"), "\n".join(sections), chosen)
