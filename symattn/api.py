"""The public face's own functions: derive with notebook display, render with verdicts.

``symattn.derive`` returns a ``Derivation`` that Jupyter shows as the worked
example; ``symattn.render_latex`` and ``symattn.render_markdown`` judge the
spec's printed numbers (when it has claims) and hand the report to the
renderer, which itself never checks.

>>> import symattn
>>> derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
>>> derivation._repr_latex_().startswith("%")
True
>>> "\\\\end{document}" in symattn.render_latex(derivation)
True
"""

from __future__ import annotations

__all__ = ["derive", "report_on_claims", "render_latex", "render_markdown", "NotebookDerivation"]

from dataclasses import dataclass
from pathlib import Path

from symattn import messages

from symattn.derivation import pipeline
from symattn.derivation.steps import Derivation
from symattn.problem.problem import Problem
from symattn.render import latex_document, markdown_document, worked
from symattn.verify import checker


@dataclass(frozen=True)
class NotebookDerivation(Derivation):
    """A ``Derivation`` that notebooks (Jupyter, nbconvert) display as the worked example,
    in ``language`` (None: the spec's ``language``, else English)."""

    language: str | None = None

    def _repr_latex_(self) -> str:
        return render_latex(self, fragment=True, language=self.language)

    def _repr_markdown_(self) -> str:
        return render_markdown(self, language=self.language)


def derive(problem: Problem, language: str | None = None) -> Derivation:
    """All steps of the attention computation for ``problem``, exactly; notebooks show
    it in ``language`` (default: the spec's ``language``, else English)."""
    if language is not None:
        messages.load(language)           # an unknown language is an error here, not later
    derivation = pipeline.derive(problem)
    return NotebookDerivation(derivation.problem, derivation.steps, derivation.comparisons,
                              language)


def report_on_claims(derivation: Derivation) -> checker.Report | None:
    """The verdicts on the spec's printed numbers, or None when it printed none."""
    return checker.check(derivation) if derivation.problem.claims else None


def render_latex(derivation: Derivation, options: worked.Options | None = None, *,
                 fragment: bool = False, template_dir: str | Path | None = None,
                 language: str | None = None, engine: str = "auto",
                 handout: bool = False) -> str:
    """The worked example as LaTeX, each printed number with its verdict, in
    ``language`` (en, pl, cs, ru, uk; default: the options', else the spec's, else en);
    ``engine``: pdflatex, lualatex, xelatex, or auto (see ``render.engines``);
    ``handout``: a clean copy, without the verdicts and their notes."""
    report = None if handout else report_on_claims(derivation)
    return latex_document.render_latex(derivation, options, fragment=fragment,
                                       template_dir=template_dir, report=report,
                                       language=language, engine=engine)


def render_markdown(derivation: Derivation, options: worked.Options | None = None, *,
                    template_dir: str | Path | None = None, language: str | None = None,
                    handout: bool = False) -> str:
    """The worked example as Markdown, each printed number with its verdict, in
    ``language`` (en, pl, cs, ru, uk; default: the options', else the spec's, else en);
    ``handout``: without the verdicts."""
    report = None if handout else report_on_claims(derivation)
    return markdown_document.render_markdown(derivation, options, template_dir=template_dir,
                                             report=report, language=language)
