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

__all__ = ["report_section", "report_page"]

from typing import Sequence

from symattn import defaults, messages
from symattn.render import report as report_render
from symattn.render.report_rows import ReportRow
from symattn.render.web.claims_html import MARKS
from symattn.render.web.page import escape, filled, numbered, page
from symattn.render.web.tips import number_tip
from symattn.verify.verdicts import Report

# report_table's heading, summary, column headings by name and rows
Table = tuple[str, str, dict[str, str], list[ReportRow]]



def report_section(report: Report, language: str | None = None, level: int = 2) -> str:
    """One report: heading (``<h{level}>``), rounding and counts, the table."""
    return _section(report, report_render.report_table(report, language), language, level)


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
             whole: bool = False) -> str:
    """A report's section; ``whole``: a page of reports, which says when the spec's
    language has no catalog (a derivation page says so under its own title)."""
    heading, summary, columns, rows = table
    tips = _tips(report, language)
    places = any(row.place for row in rows)
    head = [f'<th scope="col">{escape(columns["line"])}</th>'] * places + [
        f'<th scope="col">{escape(columns["where"])}</th>',
        f'<th scope="col" colspan="2">{escape(columns["printed"])}</th>',
        f'<th scope="col" colspan="2">{escape(columns["exact"])}</th>',
        f'<th scope="col">{escape(columns["verdict"])}</th>',
        f'<th scope="col">{escape(columns["reason"])}</th>']
    out = ['<section class="report">', f"<h{level}>{escape(heading)}</h{level}>",
           f"<p>{escape(summary)}</p>", *(_no_catalog(report, language) if whole else []),
           '<table class="report">',
           f'<thead><tr>{"".join(head)}</tr></thead>', "<tbody>"]
    for row in rows:
        mark = MARKS.get(row.verdict_key, "?")
        tip = tips.get(row.key.split(" @ ")[0], "")
        place = f"<td>{escape(row.place)}</td>" if places else ""
        out.append(f'<tr>{place}<td title="{escape(row.key)}">{escape(row.what)}</td>'
                   f"{numbered(row.printed)}{numbered(row.exact, tip)}"
                   f'<td class="{escape(row.verdict_key)}"><span aria-hidden="true">'
                   f"{mark}</span>\u00a0{escape(row.verdict)}</td><td>{escape(row.reason)}"
                   "</td></tr>")
    out += ["</tbody>", "</table>", "</section>"]
    return "\n".join(out)


def report_page(reports: Sequence[Report], language: str | None = None) -> str:
    """``check --format html``: every report on one page, in ``language`` (else each
    report's own; the page's ``lang`` is the first report's)."""
    chosen = language or next((r.language for r in reports if r.language), None) or "en"
    if len(reports) == 1:           # the report's heading is the page's
        table = report_render.report_table(reports[0], language)
        return page(table[0], _section(reports[0], table, language, 1, True), chosen)
    title = messages.load(chosen).text("web.check_title")
    body = "\n".join([f"<h1>{escape(title)}</h1>", *(
        _section(r, report_render.report_table(r, language), language, 2, True)
        for r in reports)])
    return page(title, body, chosen)
