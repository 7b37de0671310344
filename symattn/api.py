"""The public face's own functions: derive and check with notebook display, the renderers.

``symattn.derive`` returns a ``Derivation`` that Jupyter shows as the worked
example (``.display(places=2, language="pl", rows=4)`` picks how) and that
``to_dict()`` turns into the ``derive --format json`` document; ``symattn.check``
returns a ``Report`` shown as a verdict table. ``render_latex``,
``render_markdown`` and ``render_text`` take the command line's options;
``render_latex`` and ``render_markdown`` judge the spec's printed numbers
(when it has claims) and hand the report to the renderer, which itself never
checks. Every bad argument is a ``symattn.Error`` (docs/errors.md).

>>> import symattn
>>> derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
>>> derivation._repr_latex_().startswith("%")
True
>>> "\\\\end{document}" in symattn.render_latex(derivation)
True
>>> derivation.to_dict()["schema_version"]
'1'
"""

from __future__ import annotations

__all__ = ["derive", "check", "report_on_claims", "render_latex", "render_markdown",
           "render_html", "render_text", "report_json", "report_text", "report_markdown",
           "NotebookDerivation", "NotebookStep", "NotebookReport"]

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from symattn import defaults, messages
from symattn.derivation import pipeline
from symattn.derivation.steps import Derivation, Step
from symattn.errors import InputError, argument
from symattn.problem.problem import Problem
from symattn.render import latex_document, markdown_document, notebook, view, worked
from symattn.render import report as report_render
from symattn.render import text as text_render
from symattn.values.number_format import NumberFormat
from symattn.verify import checker
from symattn.verify.verdicts import Report


@dataclass(frozen=True, repr=False)
class NotebookDerivation(Derivation):
    """A ``Derivation`` that notebooks (Jupyter, nbconvert) display as the worked example,
    in ``language`` (None: the spec's ``language``, else English), with ``options``
    (``display``)."""

    language: str | None = None
    options: worked.Options | None = None

    def _repr_latex_(self) -> str:
        return render_latex(self, self.options, fragment=True, language=self.language)

    def _repr_markdown_(self) -> str:
        return render_markdown(self, self.options, language=self.language)

    def _repr_html_(self) -> str:
        """The page of ``derive --format html`` (its body), which reads offline: MathML,
        the heatmap in SVG, the verdicts on the spec's printed numbers."""
        language = self._shown_language()
        number_format, limit = self._shown_format(language)
        return notebook.derivation_html(self, number_format, language,
                                        report_on_claims(self), limit)

    def __getitem__(self, name: str) -> NotebookStep:
        """The step ``name``, which notebooks show as on the page (its formula and matrix)."""
        step = super().__getitem__(name)       # a name that is no step: its error
        made: dict[str, NotebookStep] = self.__dict__.setdefault("_shown_steps", {})
        if step.name not in made:       # once a step: the checker and renderers ask often
            language = self._shown_language()
            number_format, limit = self._shown_format(language)
            made[step.name] = NotebookStep(
                **{f.name: getattr(step, f.name) for f in dataclasses.fields(step)},
                number_format=number_format, language=language, limit=limit)
        return made[step.name]

    def figure(self, language: str | None = None) -> Any:
        """The weights as a matplotlib ``Figure`` (one panel per head), which Jupyter shows
        inline; the backend the user chose is left alone (needs ``symattn[plot]``)."""
        from symattn.render.figure import weights_figure

        chosen = _language(language or self._shown_language(), "figure")
        return weights_figure(self, chosen, self._shown_format(chosen)[0].locale)

    def _shown_language(self) -> str:
        return self.language or (self.options.language if self.options else None) or \
            self.problem.language or "en"

    def _shown_format(self, language: str) -> tuple[NumberFormat, int | None]:
        if self.options is not None:
            return self.options.number_format, self.options.limit
        return _number_format(self, None, None, None, language), defaults.ROWS_SHOWN

    def display(self, *, places: int | None = None, digits: int | None = None,
                rounding: str | None = None, language: str | None = None,
                rows: int | None = defaults.ROWS_SHOWN) -> NotebookDerivation:
        """The same derivation, shown with ``places`` (or significant ``digits``), in
        ``language``, matrices of more than ``rows`` rows elided (None: all)."""
        language = _language(language or self.language or self.problem.language or "en",
                             "display")
        number_format = _number_format(self, digits, places, rounding, language)
        if rows is not None and (not isinstance(rows, int) or rows < 0):
            raise argument("display", "rows", f"rows must be 0 (all) or more, got {rows!r}")
        options = worked.Options(number_format=number_format, limit=rows or None,
                                 language=language)
        return dataclasses.replace(self, language=language, options=options)

    def to_dict(self, *, places: int | None = None, digits: int | None = None,
                rounding: str | None = None, max_terms: int | None = defaults.MAX_TERMS
                ) -> dict[str, object]:
        """The ``derive --format json`` document as Python data (same options)."""
        return notebook.derivation_document(self, _number_format(self, digits, places,
                                                                 rounding, "en"), max_terms)


@dataclass(frozen=True, repr=False)
class NotebookStep(Step):
    """A ``Step`` that notebooks show as its section of the page: formula in MathML, the
    matrix, each number's exact form and certified digits on hover and focus."""

    number_format: NumberFormat = NumberFormat()
    language: str = "en"
    limit: int | None = defaults.ROWS_SHOWN

    def _repr_html_(self) -> str:
        return notebook.step_html(self, self.number_format, self.language, self.limit)


@dataclass(frozen=True, repr=False)
class NotebookReport(Report):
    """A ``Report`` that notebooks display as a verdict table (HTML or Markdown), in
    ``display_language`` (None: the spec's ``language``, else English)."""

    display_language: str | None = None

    def _repr_html_(self) -> str:
        return notebook.report_html(self, self.display_language)

    def _repr_markdown_(self) -> str:
        return notebook.report_markdown(self, self.display_language)


def derive(problem: Problem, language: str | None = None) -> NotebookDerivation:
    """All steps of the attention computation for ``problem``, exactly; notebooks show
    it in ``language`` (default: the spec's ``language``, else English).

    ``problem`` is a ``Problem`` (``symattn.load``, ``symattn.loads``,
    ``symattn.load_example``, ``Problem.from_arrays``); anything else, an example's
    name included, is an ``ArgumentError`` that says which function reads it.
    """
    given: object = problem
    if isinstance(given, str):
        raise argument("derive", "problem", f"expected a Problem, got the text {given[:80]!r}"
                       "; read it first: symattn.load_example(NAME) for a bundled example, "
                       "symattn.load(PATH) for a file, symattn.loads(TEXT) for spec text")
    if not isinstance(given, Problem):
        raise argument("derive", "problem", "expected a Problem (symattn.load, "
                       f"Problem.from_arrays ...), got {type(given).__name__}")
    if language is not None:
        _language(language, "derive")
    _show_matrices_in_notebooks()
    derivation = pipeline.derive(problem)
    return NotebookDerivation(derivation.problem, derivation.steps, derivation.comparisons,
                              language)


def _show_matrices_in_notebooks() -> None:
    """In a running IPython (Jupyter), a bare matrix (``step.value``) shows as HTML too:
    a formatter for symattn's own matrix type, as SymPy registers its printing. Nothing
    is done outside IPython, and nothing is imported."""
    import sys

    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is None:
        return
    from symattn.derivation.grids import Grid

    shell.display_formatter.formatters["text/html"].for_type(Grid, notebook.matrix_html)


def check(derivation: Derivation | Problem, rounding: str | None = None,
          working: bool = False, language: str | None = None,
          precision: str | None = None) -> NotebookReport:
    """The verdict on every printed number of the spec's ``[claims]`` (a ``Problem`` is
    derived first); ``rounding`` overrides the spec's rule; ``working``: numbers under one
    label must follow from each other as printed (``check --working``); notebooks show
    the report in ``language`` (default: the one ``derive`` was given, else the spec's);
    ``precision``: the float format the document's framework computed in (``check
    --precision``; default the spec's ``options.precision``, else exact)."""
    if not isinstance(working, bool):
        raise argument("check", "working", f"expected True or False, got {working!r}")
    if language is not None:
        _language(language, "check")
    if precision is not None:
        from symattn.values.floats import PRECISIONS

        if precision not in PRECISIONS:
            raise argument("check", "precision", f"expected one of {', '.join(PRECISIONS)}, "
                           f"got {precision!r}")
    report = checker.check(derivation, rounding, working, precision)
    fields = {f.name: getattr(report, f.name) for f in dataclasses.fields(report)}
    chosen = language or (_chosen(derivation) if isinstance(derivation, Derivation) else None)
    return NotebookReport(**fields, display_language=chosen)


def report_on_claims(derivation: Derivation) -> checker.Report | None:
    """The verdicts on the spec's printed numbers, or None when it printed none."""
    return checker.check(derivation) if derivation.problem.claims else None


def render_latex(derivation: Derivation, options: worked.Options | None = None, *,
                 fragment: bool = False, template_dir: str | Path | None = None,
                 language: str | None = None, engine: str = "auto",
                 handout: bool = False) -> str:
    """The worked example as LaTeX, each printed number with its verdict, in
    ``language`` (en, pl, cs, ru, uk; default: the one ``derive`` was given, else the
    options', else the spec's, else en); ``engine``: pdflatex, lualatex, xelatex, or
    auto (see ``render.engines``); ``handout``: a clean copy, without the verdicts and
    their notes, and (unless ``options`` ask for them) without the spec's file name and
    the paragraph on how the numbers are shown."""
    _derivation(derivation, "render_latex", language)
    report = None if handout else report_on_claims(derivation)
    options = _page_options(derivation, options, language, handout)
    return latex_document.render_latex(derivation, options, fragment=fragment,
                                       template_dir=template_dir, report=report,
                                       language=language or _chosen(derivation), engine=engine)


def render_markdown(derivation: Derivation, options: worked.Options | None = None, *,
                    template_dir: str | Path | None = None, language: str | None = None,
                    handout: bool = False) -> str:
    """The worked example as Markdown, each printed number with its verdict, in
    ``language`` (en, pl, cs, ru, uk; default: the one ``derive`` was given, else the
    options', else the spec's, else en); ``handout``: without the verdicts (and, unless
    ``options`` ask for them, the spec's file name and the paragraph on the method)."""
    _derivation(derivation, "render_markdown", language)
    report = None if handout else report_on_claims(derivation)
    options = _page_options(derivation, options, language, handout)
    return markdown_document.render_markdown(derivation, options, template_dir=template_dir,
                                             report=report,
                                             language=language or _chosen(derivation))


def render_html(derivation: Derivation, *, places: int | None = None,
                digits: int | None = None, rounding: str | None = None,
                language: str | None = None, handout: bool = False,
                number_format: NumberFormat | None = None,
                limit: int | None = defaults.ROWS_SHOWN, source: str = "") -> str:
    """``derive --format html``: one self-contained page (MathML, the weights as an SVG
    heatmap, the verdicts on the spec's printed numbers unless ``handout``), in
    ``language``; ``number_format`` (else ``places``/``digits``/``rounding`` over the
    spec's own), matrices of more than ``limit`` rows elided (None: all), ``source``: the
    file name the page names."""
    _derivation(derivation, "render_html", language)
    chosen = language or _chosen(derivation) or derivation.problem.language or "en"
    shown = number_format or _number_format(derivation, digits, places, rounding, chosen)
    report = None if handout else report_on_claims(derivation)
    return notebook.derivation_page(derivation, shown, chosen, report, limit, source)


def render_text(derivation: Derivation, *, places: int | None = None,
                digits: int | None = None, rounding: str | None = None,
                language: str | None = None, max_rows: int = defaults.ROWS_SHOWN,
                max_terms: int = defaults.MAX_TERMS) -> str:
    """Every step as ``symattn derive`` prints it (the same options: ``max_rows`` 0
    shows every row, ``max_terms`` 0 writes every closed form)."""
    _derivation(derivation, "render_text", language)
    chosen = language or _chosen(derivation) or derivation.problem.language or "en"
    for name, value in (("max_rows", max_rows), ("max_terms", max_terms)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise argument("render_text", name, f"{name} must be 0 (all) or more, got {value!r}")
    number_format = _number_format(derivation, digits, places, rounding, chosen)
    shown = tuple(s.name for s in derivation if not s.hidden)
    built = view.build_view(derivation, number_format, steps=shown, max_terms=max_terms or None,
                            limit=None if max_rows == 0 else max(max_rows, 2))
    return text_render.render_text(built, chosen)


def report_json(reports: Report | Sequence[Report], max_terms: int = defaults.MAX_TERMS
                ) -> str:
    """Reports as ``check --format json`` writes them (docs/cli.md, schemas/check.json):
    a closed form of more than ``max_terms`` exponentials is null (0 writes every one)."""
    if isinstance(max_terms, bool) or not isinstance(max_terms, int) or max_terms < 0:
        raise argument("report_json", "max_terms",
                       f"max_terms must be 0 (all) or more, got {max_terms!r}")
    return report_render.report_json(_reports(reports, "report_json"), max_terms or None)


def report_text(reports: Report | Sequence[Report], language: str | None = None) -> str:
    """Reports as ``check`` prints them, in ``language`` (else each spec's own)."""
    _language(language, "report_text")
    return report_render.report_text(_reports(reports, "report_text"), language)


def report_markdown(reports: Report | Sequence[Report], language: str | None = None) -> str:
    """Reports as ``check --format markdown`` writes them."""
    _language(language, "report_markdown")
    return report_render.report_markdown(_reports(reports, "report_markdown"), language)


def _reports(reports: Report | Sequence[Report], function: str) -> list[Report]:
    chosen: object = [reports] if isinstance(reports, Report) else reports
    if isinstance(chosen, (str, bytes)) or not isinstance(chosen, Sequence) or \
            not all(isinstance(r, Report) for r in chosen):
        raise argument(function, "reports", "expected a Report (symattn.check) or a list of "
                       f"them, got {type(reports).__name__}")
    return list(chosen)


def _derivation(derivation: Any, function: str, language: str | None) -> None:
    if not isinstance(derivation, Derivation):
        raise argument(function, "derivation", "expected a Derivation (symattn.derive), got "
                       f"{type(derivation).__name__}")
    _language(language, function)


def _language(language: str | None, function: str) -> str:
    if language is None:
        return "en"
    if not isinstance(language, str):
        raise argument(function, "language", f"language must be one of "
                       f"{', '.join(messages.LANGUAGES)}, got {language!r}")
    try:
        messages.load(language)
    except InputError as error:
        raise argument(function, "language", error.message) from None
    return language


def _number_format(derivation: Derivation, digits: int | None, places: int | None,
                   rounding: str | None, language: str) -> NumberFormat:
    """The command line's --digits / --places / --rounding over the spec's own."""
    problem = derivation.problem
    rule: Any = problem.rounding if rounding is None else rounding   # NumberFormat reads names
    return NumberFormat(digits=problem.digits if digits is None else digits, places=places,
                        rounding=rule, locale=language)


def _page_options(derivation: Derivation, options: worked.Options | None,
                  language: str | None, handout: bool) -> worked.Options:
    """The options of a worked example (the spec's own when None), a handout's without
    the file name and the method paragraph unless they ask for them."""
    chosen = options or latex_document.default_options(derivation,
                                                       language or _chosen(derivation))
    return chosen.for_handout(handout)


def _chosen(derivation: Derivation) -> str | None:
    """The language ``derive(problem, language=...)`` chose, if any."""
    return derivation.language if isinstance(derivation, NotebookDerivation) else None
