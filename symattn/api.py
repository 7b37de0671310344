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

from pathlib import Path

from symattn.derivation import pipeline
from symattn.derivation.steps import Derivation
from symattn.problem.problem import Problem
from symattn.render import latex_document, markdown_document, worked
from symattn.verify import checker


class NotebookDerivation(Derivation):
    """A ``Derivation`` that notebooks (Jupyter, nbconvert) display as the worked example."""

    def _repr_latex_(self) -> str:
        return render_latex(self, fragment=True)

    def _repr_markdown_(self) -> str:
        return render_markdown(self)


def derive(problem: Problem) -> Derivation:
    """All steps of the attention computation for ``problem``, exactly."""
    derivation = pipeline.derive(problem)
    return NotebookDerivation(derivation.problem, derivation.steps, derivation.comparisons)


def report_on_claims(derivation: Derivation) -> checker.Report | None:
    """The verdicts on the spec's printed numbers, or None when it printed none."""
    return checker.check(derivation) if derivation.problem.claims else None


def render_latex(derivation: Derivation, options: worked.Options | None = None, *,
                 fragment: bool = False, template_dir: str | Path | None = None) -> str:
    """The worked example as LaTeX, each printed number with its verdict."""
    return latex_document.render_latex(derivation, options, fragment=fragment,
                                       template_dir=template_dir,
                                       report=report_on_claims(derivation))


def render_markdown(derivation: Derivation, options: worked.Options | None = None, *,
                    template_dir: str | Path | None = None) -> str:
    """The worked example as Markdown, each printed number with its verdict."""
    return markdown_document.render_markdown(derivation, options, template_dir=template_dir,
                                             report=report_on_claims(derivation))
