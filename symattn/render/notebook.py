"""How notebooks (Jupyter, nbconvert, Quarto) show symattn's results.

``report_html`` lays one check report out as an HTML table (every string
escaped), ``report_markdown`` as a Markdown table; ``derivation_document`` is
the derive JSON as Python data. The words come from the catalogs, through the
same plain-text writer as the text report; nothing here computes or checks.

>>> import symattn
>>> report = symattn.check(symattn.load_example("001-softmax-10-2-1"))
>>> "<table" in report_html(report, "en") and "</table>" in report_html(report, "en")
True
"""

from __future__ import annotations

__all__ = ["report_html", "report_markdown", "derivation_document"]

import html

from symattn.derivation.steps import Derivation
from symattn.render import report as report_render
from symattn.render import text, view
from symattn.values.number_format import NumberFormat
from symattn.verify.verdicts import Report

_COLOURS = {"ok": "#1a7f37", "propagated": "#9a6700", "wrong": "#cf222e", "undecided": "#57606a"}


def report_html(report: Report, language: str | None = None) -> str:
    """The report as an HTML table: where, printed, exact, verdict, reason."""
    heading, summary, columns, rows = report_render.report_table(report, language)
    out = ['<div class="symattn-report">', f"<h4>{html.escape(heading)}</h4>",
           f"<p>{html.escape(summary)}</p>", "<table>", "<thead><tr>" +
           "".join(f"<th>{html.escape(c)}</th>" for c in columns) + "</tr></thead>", "<tbody>"]
    for where, printed, exact, verdict, reason, key in rows:
        style = f' style="color: {_COLOURS.get(key, "inherit")}"'
        strong = ("<strong>", "</strong>") if key == "wrong" else ("", "")
        out.append(f"<tr><td><code>{html.escape(where)}</code></td>"
                   f"<td>{html.escape(printed)}</td><td>{html.escape(exact)}</td>"
                   f"<td{style}>{strong[0]}{html.escape(verdict)}{strong[1]}</td>"
                   f"<td>{html.escape(reason)}</td></tr>")
    out += ["</tbody>", "</table>", "</div>"]
    return "\n".join(out)


def report_markdown(report: Report, language: str | None = None) -> str:
    """The report as a Markdown table (the same as ``check --format markdown``)."""
    return report_render.report_markdown([report], language)


def derivation_document(derivation: Derivation, number_format: NumberFormat | None = None,
                        max_terms: int | None = view.MAX_TERMS) -> dict[str, object]:
    """The derivation as ``derive --format json`` writes it, as Python data."""
    built = view.build_view(derivation, number_format or NumberFormat(
        digits=derivation.problem.digits, rounding=derivation.problem.rounding),
        limit=None, max_terms=max_terms)
    return text.derivation_document(built)
