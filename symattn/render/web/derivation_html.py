"""A derivation as an HTML page: every step's formula in MathML, its matrix, the weights
as a heatmap, and the verdicts on the spec's printed numbers, problems first.

The strings are the view's (``render.view``: the same closed forms and decimals
as ``derive``'s text); each number on show also carries, on hover and on
keyboard focus, its exact form and ``CERTIFIED`` certified significant digits.
Nothing here computes or checks: the report comes from ``api`` (judge, then
render).

>>> import symattn
>>> derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
>>> text = derivation_page(derivation, NumberFormat(digits=3), "en")
>>> text.startswith("<!DOCTYPE html>"), "<math" in text, "<svg" in text
(True, True, True)
"""

from __future__ import annotations

__all__ = ["derivation_page", "derivation_body", "step_html", "matrix_html", "certified_cells",
           "CERTIFIED"]

from typing import Mapping, Sequence

from symattn import defaults, messages
from symattn.derivation.steps import Derivation, Step
from symattn.messages import Catalog
from symattn.render import view as view_render
from symattn.render.number_words import numbers_text
from symattn.render.view import StepView
from symattn.render.web.heatmap_svg import heatmap_html
from symattn.render.web.claims_html import Mark, printed_marks
from symattn.render.web.mathml import prose_html, to_mathml
from symattn.render.web.page import escape, filled, page, tipped, words
from symattn.render.web.report_html import report_section
from symattn.render.web.tips import CERTIFIED, certified_block, number_tip
from symattn.render.web.worked_html import Tips, expansions_html
from symattn.render import worked
from symattn.derivation.names import base_name
from symattn.render.worked.names import description, formula_words, heading
from symattn.values.number_format import NumberFormat
from symattn.verify.verdicts import Report

SYMBOLIC_SHOWN = 40     # a symbolic entry (no decimal) up to this long is shown as it is

Cells = Sequence[Sequence[str | None]]
_SIGNS = {"-inf": "−∞", "inf": "∞"}     # a masked score as the page prints it


def certified_cells(step: Step, shown: StepView, number_format: NumberFormat) -> Cells:
    """The entries on show to ``CERTIFIED`` significant digits (None where undecidable)."""
    return certified_block(step.value, shown.rows, shown.columns, number_format)


def _widths(step: StepView) -> list[int]:
    """Each column's widest whole part (digits before the decimal mark), for the
    alignment on the mark."""
    return [max(len(_whole(row[c] or "")) for row in step.decimal)
            for c in range(len(step.columns))]


def _whole(text: str) -> str:
    cut = next((k for k, char in enumerate(text) if char in ".,"), len(text))
    return text[:cut]


def _number(decimal: str, width: int, tip: str, mark: Mark | None) -> str:
    """One entry: the whole part padded to the column's ``width`` (so that the column
    lines up on the decimal mark), the rest, the verdict mark of a printed number."""
    whole = _whole(decimal)
    shown = (f'<span class="w" style="min-width: {width}ch">{escape(whole)}</span>'
             f"{escape(decimal[len(whole):])}")
    if mark is not None:
        tip += "\n" + "\n".join(mark.lines)
        shown += f' <span class="{mark.key}" aria-hidden="true">{mark.mark}</span>'
    return tipped(shown, tip)


def matrix_html(step: StepView, certified: Cells, catalog: Catalog,
                marks: Mapping[tuple[str, int, int], Mark]) -> str:
    """The step's decimals as a bracketed table, elided rows and columns marked."""
    symbolic = catalog.text("text.symbolic")
    widths = _widths(step)
    out = ['<table class="matrix">']
    for r, row in enumerate(step.decimal):
        if r > 0 and step.rows[r] != step.rows[r - 1] + 1:
            out.append("<tr>" + "<td>⋮</td>" * len(row) + "</tr>")
        cells = []
        for c, decimal in enumerate(row):
            if c > 0 and step.columns[c] != step.columns[c - 1] + 1:
                cells.append("<td>⋯</td>")
            tip = number_tip(step.exact[r][c], certified[r][c], catalog)
            exact = step.exact[r][c]
            shown = _SIGNS.get(decimal, decimal) if decimal is not None else \
                exact if exact is not None and len(exact) <= SYMBOLIC_SHOWN else symbolic
            mark = marks.get((step.name, step.rows[r], step.columns[c]))
            cells.append(f"<td>{_number(shown, widths[c], tip, mark)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


def step_html(step: StepView, number: int, catalog: Catalog, symbols: Mapping[str, str],
              certified: Cells, marks: Mapping[tuple[str, int, int], Mark] | None = None,
              worked: str = "") -> str:
    """One step: heading, description, formula (MathML), its matrix, and the rows it
    writes out (``worked``: ``worked_html.expansions_html``)."""
    title = heading(step, catalog)
    head = prose_html(catalog.fill("step.heading", number=str(number), heading=title))
    said = description(step, catalog)
    out = [f'<section class="step" id="step-{escape(step.name)}">', f"<h2>{head}</h2>"]
    if said and said.lower() != title.lower():
        out.append(f"<p>{prose_html(said[:1].upper() + said[1:])}.</p>")
    formula = formula_words(step.formula, symbols, catalog)
    if formula not in (step.symbol, step.name):
        out.append(f'<div class="formula">{to_mathml(f"{step.symbol} = {formula}", block=True)}'
                   "</div>")
    shape = f"{step.shape[0]} × {step.shape[1]}"
    out.append(f'<div class="eq">{to_mathml(step.symbol + " =")}'
               f"{matrix_html(step, certified, catalog, marks or {})}"
               f'<span class="note">({shape})</span></div>')
    if worked:
        out.append(worked)
    out.append("</section>")
    return "\n".join(out)


def _written_out(derivation: Derivation, number_format: NumberFormat, language: str,
                 report: Report | None, limit: int | None, tips: Tips) -> dict[str, str]:
    """The rows each step writes out (the worked example's, as Markdown shows them), as
    HTML by step name, their numbers with the ``tips`` of the matrix entries they are."""
    options = worked.Options(number_format=number_format, limit=limit, language=language)
    document = worked.build(derivation, report, options, escape=str)
    catalog = messages.load(language)
    return {model.step: expansions_html(model, catalog, tips) for model in document.steps
            if model.expansions}


def _tips(steps: Sequence[StepView], certified: Mapping[str, Cells], catalog: Catalog) -> Tips:
    """The tip of every matrix entry on show, by (step, row, column), 0-based."""
    return {(step.name, step.rows[r], step.columns[c]):
            number_tip(step.exact[r][c], certified[step.name][r][c], catalog)
            for step in steps for r in range(len(step.rows)) for c in range(len(step.columns))}


def derivation_body(derivation: Derivation, number_format: NumberFormat, language: str,
                    report: Report | None = None, limit: int | None = defaults.ROWS_SHOWN,
                    source: str = "") -> str:
    """The page's content: title, setup, the report (problems first), then the steps."""
    catalog = messages.load(language)
    shown = tuple(s.name for s in derivation if not s.hidden)
    built = view_render.build_view(derivation, number_format, limit=limit, steps=shown)
    title = built.shown("title", language) or catalog.text("document.title")
    out = [f"<h1>{escape(title)}</h1>"]
    if built.shown("description", language):
        out.append(f"<p>{escape(built.shown('description', language))}</p>")
    if built.written_language:   # "pt": no catalog, so this page is in English
        note = filled(catalog, "languages.missing_page", language=built.written_language)
        out.append(f"<p>{note}</p>")
    if source:
        out.append(f"<p>{filled(catalog, 'document.source', source=source)}</p>")
    if built.tokens:
        out.append(f"<p>{filled(catalog, 'document.tokens', tokens=', '.join(built.tokens))}</p>")
    numbers = words(catalog.fill("text.decimals", numbers=numbers_text(number_format, catalog)))
    out += [f"<p>{numbers[:1].upper() + numbers[1:]}.</p>",
            f'<p class="note screen">{words(catalog.text("html.hint"))}</p>']
    symbols = {step.name: step.symbol for step in built.steps}
    marks = printed_marks(report, catalog) if report is not None else {}
    last_weights = max((k for k, s in enumerate(built.steps) if base_name(s.name) == "weights"),
                       default=None)
    certified = {step.name: certified_cells(derivation[step.name], step, number_format)
                 for step in built.steps}
    written = _written_out(derivation, number_format, language, report, limit,
                           _tips(built.steps, certified, catalog))
    for number, step in enumerate(built.steps, start=1):
        out.append(step_html(step, number, catalog, symbols, certified[step.name], marks,
                             written.get(step.name, "")))
        if number - 1 == last_weights:
            out.append(heatmap_html(derivation, language, number_format.locale))
    if report is not None:      # after the steps whose numbers it judges
        out.append(report_section(report, language))
    if built.next_tokens:
        tokens = " = ".join(built.next_tokens)
        out.append(f"<p>{filled(catalog, 'document.next_token', tokens=tokens)}</p>")
    return "\n".join(out)


def derivation_page(derivation: Derivation, number_format: NumberFormat, language: str,
                    report: Report | None = None, limit: int | None = defaults.ROWS_SHOWN,
                    source: str = "") -> str:
    """``derive --format html``: the whole page (``report`` None: a handout's, unmarked)."""
    catalog = messages.load(language)
    title = derivation.problem.prose_in("title", language) or catalog.text("document.title")
    return page(title, derivation_body(derivation, number_format, language, report, limit,
                                       source), language)
