"""The numbers a worked example prints, as the claims of a document: the page's own check.

``printed_numbers(document)`` lists every number the page prints where it
stands (``model.Shown``): the matrices of each step (its result, and the
operands substituted into its formula), the written-out sums term by term,
the softmax tables, the divisor. ``page_claims`` writes them as a spec's
``[claims]`` table, one label per line or table, so that the checker
(``verify.checker.check(..., working=True)``) follows each number from the
numbers printed beside it. A page passes its own check when no number is
wrong and no two printings of one number clash.

Cells of a matrix are math; a decimal, a fraction a/b, a root and -oo are read
back (``plain``), any other closed form (an exponential, a SymPy expression)
is left out: it is exact by construction.

>>> import symattn
>>> from symattn.render.worked.builder import build
>>> derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
>>> claims = page_claims(build(derivation), derivation.problem)
>>> claims["weights[1].sum @ weights 1 table"]     # 0.999541 + 0.000335 + 0.000123
'0.999999'
"""

from __future__ import annotations

__all__ = ["printed_numbers", "page_claims", "plain", "significant", "self_check"]

import dataclasses
import re
from typing import TYPE_CHECKING, Any, Iterator

from symattn.defaults import DIGITS
from symattn.derivation.steps import Derivation
from symattn.problem.problem import Problem
from symattn.verify.checker import Report, check
from symattn.render.worked.cells import significant
from symattn.render.worked.model import Document, Line, Matrix, Shown, StepModel
from symattn.verify.claims import COLUMN_STEPS, Target
from symattn.derivation.names import base_name
from symattn.derivation.terms import term_count
from symattn.verify.targets import row_label

if TYPE_CHECKING:
    from symattn.render.worked.builder import Options

_DECIMAL = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?%?")
_ROOT = re.compile(r"(-?\d*)\\sqrt\{(\d+)\}(?:/(\d+))?")
_FRACTION = re.compile(r"(-?\d+)/(\d+)")


def plain(cell: str) -> str | None:
    r"""A matrix cell read back as printed text, None for a form left out.

    >>> plain("0{,}36"), plain(r"1.5 \cdot 10^{-3}"), plain(r"-\infty"), plain(r"13\sqrt{2}/25")
    ('0.36', '1.5e-3', '-inf', '13*sqrt(2)/25')
    >>> plain(r"e^{2}") is None
    True
    """
    text = cell.strip().replace("{,}", ".").replace(r"\,\%", "%")
    if text == r"-\infty":
        return "-inf"
    text = re.sub(r"\s*\\cdot\s*10\^\{(-?\d+)\}", r"e\1", text)
    if _DECIMAL.fullmatch(text) or _FRACTION.fullmatch(text):
        return text
    root = _ROOT.fullmatch(text)
    if root:
        coefficient = root[1] if root[1] not in ("", "-") else root[1] + "1"
        return f"{coefficient}*sqrt({root[2]})" + (f"/{root[3]}" if root[3] else "")
    return None


def _matrix(matrix: Matrix, label: str) -> Iterator[Shown]:
    if not matrix.step:
        return
    for i, j, cell in matrix.at:
        text = plain(cell)
        if text is not None:
            yield Shown(matrix.step, i, j, text, label=label)


def _result(step: StepModel, lines: tuple[Line, ...]) -> Iterator[Shown]:
    """The result lines: the first one is the step's printing, the others labelled."""
    for k, line in enumerate(lines):
        yield from _matrix(line.matrix, "" if k == 0 else f"{step.step} result {k + 1}")


def printed_numbers(document: Document) -> list[Shown]:
    """Every number the page prints that can be read back, where it stands."""
    out: list[Shown] = []
    for step in document.steps:
        out += _result(step, step.result)
        for matrix in step.operands.values():
            out += _matrix(matrix, f"{step.step} substituted")
        out += step.shown
        for row in step.expansions:
            out += getattr(row, "shown", ())
            for entry in getattr(row, "entries", ()) + getattr(row, "components", ()):
                out += getattr(entry, "shown", ())
    return out


def _row(problem: Problem, step: str, row: int) -> int:
    return row_label(problem, Target(step, row, 0))


def page_claims(document: Document, problem: Problem, digits: int | None = None
                ) -> dict[str, Any]:
    """The page's numbers as a ``[claims]`` table (first printing of each key wins);
    ``digits``: the significant digits the page prints, if it prints them so."""
    claims: dict[str, Any] = {}
    terms: dict[str, dict[int, str]] = {}
    for shown in printed_numbers(document):
        shown = dataclasses.replace(shown, text=significant(shown.text, digits))
        at = f" @ {shown.label}" if shown.label else ""
        if shown.step == "divisor":
            claims.setdefault("divisor" + at, shown.text)
            continue
        r = _row(problem, shown.step, shown.row)
        if shown.part == "sum":
            claims.setdefault(f"{shown.step}[{r}].sum{at}", shown.text)
        elif shown.part == "term":
            terms.setdefault(f"{shown.step}[{r},{shown.column + 1}].terms{at}", {}).setdefault(
                shown.term, shown.text)
        elif base_name(shown.step) in COLUMN_STEPS:
            claims.setdefault(f"{shown.step}[{r}]{at}", shown.text)
        else:
            claims.setdefault(f"{shown.step}[{r},{shown.column + 1}]{at}", shown.text)
    shapes = _shapes(document)
    for key, printed in terms.items():
        count = term_count(key.partition("[")[0], shapes)
        claims[key] = [printed.get(t, "?") for t in range(count)]
    return claims


def _shapes(document: Document) -> dict[str, tuple[int, int]]:
    """The steps' shapes, read from their headings' shape math ("3 \\times 2")."""
    shapes = {}
    for step in document.steps:
        match = re.fullmatch(r"(\d+) \\times (\d+)", step.shape)
        if match:
            shapes[step.step] = (int(match[1]), int(match[2]))
    return shapes


def self_check(derivation: Derivation, options: Options | None = None) -> Report:
    """The page of ``derivation`` (laid out with ``options``) judged by its own numbers:
    every number it prints as a claim, checked in working mode."""
    from symattn.render.worked.builder import build

    document = build(derivation, None, options)
    number_format = options.number_format if options is not None else None
    digits = number_format.digits if number_format is not None else DIGITS
    if number_format is not None and number_format.places is not None:
        digits = None
    claims = page_claims(document, derivation.problem, digits)
    problem = dataclasses.replace(derivation.problem, claims=claims)
    rounding = options.number_format.rounding if options is not None else None
    return check(dataclasses.replace(derivation, problem=problem), rounding, working=True)
