"""Check reports as HTML: problems first, each verdict in colour, symbol and word.

The rows are ``render.report.report_table``'s (already in the order the text
report shows them: the problems first); here they are only laid out, the
printed and exact numbers each in two cells so that the column lines up on the
decimal mark.

>>> import symattn
>>> report = symattn.check(symattn.load_example("001-softmax-10-2-1"))
>>> table = report_section(report, "en")
>>> table.count("<tr>") == len(report.verdicts) + 1, "✓" in table
(True, True)
"""

from __future__ import annotations

__all__ = ["report_section", "report_page"]

from typing import Sequence

from symattn import defaults
from symattn.render import report as report_render
from symattn.render.web.claims_html import MARKS
from symattn.render.web.page import escape, filled, numbered, page
from symattn.render.web.tips import number_tip
from symattn.verify.verdicts import Report

# report_table's heading, summary, column headings and rows
Table = tuple[str, str, tuple[str, ...], list[tuple[str, str, str, str, str, str]]]



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


def _tip(where: str, tips: dict[str, str]) -> str:
    """The tip of the row that stands at ``where`` (a position, or "position @ label")."""
    if where in tips:
        return tips[where]
    found = [position for position in tips if where.startswith(position + " @ ")]
    return tips[max(found, key=len)] if found else ""


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
    where, printed, exact, verdict, reason = (escape(c) for c in columns)
    out = ['<section class="report">', f"<h{level}>{escape(heading)}</h{level}>",
           f"<p>{escape(summary)}</p>", *(_no_catalog(report, language) if whole else []),
           '<table class="report">',
           f'<thead><tr><th scope="col">{where}</th><th scope="col" colspan="2">{printed}</th>'
           f'<th scope="col" colspan="2">{exact}</th><th scope="col">{verdict}</th>'
           f'<th scope="col">{reason}</th></tr></thead>', "<tbody>"]
    for at, shown, rounded, word, why, key in rows:
        mark = MARKS.get(key, "?")
        out.append(f"<tr><td><code>{escape(at)}</code></td>{numbered(shown)}"
                   f'{numbered(rounded, _tip(at, tips))}<td class="{escape(key)}">'
                   '<span aria-hidden="true">'
                   f"{mark}</span>\u00a0{escape(word)}</td><td>{escape(why)}</td></tr>")
    out += ["</tbody>", "</table>", "</section>"]
    return "\n".join(out)


def report_page(reports: Sequence[Report], language: str | None = None) -> str:
    """``check --format html``: every report on one page, in ``language`` (else each
    report's own; the page's ``lang`` is the first report's)."""
    chosen = language or next((r.language for r in reports if r.language), None) or "en"
    if len(reports) == 1:           # the report's heading is the page's
        table = report_render.report_table(reports[0], language)
        return page(table[0], _section(reports[0], table, language, 1, True), chosen)
    body = "\n".join(["<h1>symattn check</h1>", *(
        _section(r, report_render.report_table(r, language), language, 2, True)
        for r in reports)])
    return page("symattn check", body, chosen)
