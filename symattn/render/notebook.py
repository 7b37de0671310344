"""How notebooks (Jupyter, nbconvert, Quarto) show symattn's results.

The HTML is the page of ``--format html`` (``render.web``), as a cell shows
it: the style sheet and the content, no script, MathML and SVG that an
nbconvert export reads offline. ``report_html`` is one check report (problems
first, the numbers lined up on the decimal mark), ``derivation_html`` a whole
derivation, ``step_html`` one step, ``matrix_html`` a bare matrix;
``report_markdown`` the Markdown table; ``derivation_document`` the derive JSON
as Python data. Nothing here computes or checks.

>>> import symattn
>>> report = symattn.check(symattn.load_example("001-softmax-10-2-1"))
>>> "<table" in report_html(report, "en") and "</table>" in report_html(report, "en")
True
"""

from __future__ import annotations

__all__ = ["report_html", "report_markdown", "derivation_html", "derivation_page",
           "step_html", "matrix_html", "derivation_document"]

from symattn import defaults, messages
from symattn.derivation.grids import Grid
from symattn.derivation.steps import Derivation, Step
from symattn.render import report as report_render
from symattn.render import text, view
from symattn.render.web import derivation_html as page_render
from symattn.render.web.page import fragment
from symattn.render.web.report_html import report_section
from symattn.values.number_format import NumberFormat
from symattn.verify.verdicts import Report


def report_html(report: Report, language: str | None = None) -> str:
    """The report as a cell shows it: heading, summary, the table (problems first)."""
    chosen = language or report.language or "en"
    return fragment(report_section(report, language, level=3), chosen)


def derivation_html(derivation: Derivation, number_format: NumberFormat, language: str,
                    report: Report | None = None,
                    limit: int | None = defaults.ROWS_SHOWN) -> str:
    """The derivation as a cell shows it: the page's content, in ``language``."""
    return fragment(page_render.derivation_body(derivation, number_format, language, report,
                                                limit), language)


def derivation_page(derivation: Derivation, number_format: NumberFormat, language: str,
                    report: Report | None = None, limit: int | None = defaults.ROWS_SHOWN,
                    source: str = "") -> str:
    """The whole page of ``derive --format html``."""
    return page_render.derivation_page(derivation, number_format, language, report, limit,
                                       source)


def step_html(step: Step, number_format: NumberFormat, language: str,
              limit: int | None = defaults.ROWS_SHOWN) -> str:
    """One step as a cell shows it: formula, matrix, each number's exact form on focus."""
    shown = view.step_view(step, number_format, limit)
    catalog = messages.load(language)
    body = page_render.step_html(shown, 1, catalog, {step.name: step.symbol},
                                 page_render.certified_cells(step, shown, number_format))
    return fragment(body, language)


def matrix_html(grid: Grid, number_format: NumberFormat | None = None, language: str = "en",
                limit: int | None = defaults.ROWS_SHOWN) -> str:
    """A bare matrix (``derivation["weights"].value``) as a cell shows it: the bracketed
    numbers, each with its exact form and certified digits on focus."""
    number_format = number_format or NumberFormat(locale=language)
    step = Step("matrix", "", "", (), "", grid)
    shown = view.step_view(step, number_format, limit)
    body = page_render.matrix_html(shown, page_render.certified_cells(step, shown,
                                                                      number_format),
                                   messages.load(language), {})
    return fragment(body, language)


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
