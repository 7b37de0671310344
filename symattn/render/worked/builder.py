"""A derivation as a worked example: formula, numbers substituted, result.

``build(derivation, report, options, escape)`` turns the exact steps (and the
verdicts of ``checker.check``, if the spec has claims) into the records of
``model``: every number already formatted, by ``NumberFormat`` for
decimals and by ``latex`` for exact forms, and every piece of prose already
escaped by ``escape`` for the output format. Templates only lay them out.

>>> import symattn
>>> document = build(symattn.derive(symattn.load_example("001-softmax-10-2-1")))
>>> [step.kind for step in document.steps]
['input', 'exp', 'exp_sum', 'weights']
>>> document.steps[3].expansions[0].entries[0].weight.chain
'= \\\\frac{e^{10}}{e^{10} + e^{2} + e} \\\\approx 0.999541'
"""

from __future__ import annotations

__all__ = ["Options", "build", "shown_steps", "DETAILS"]

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from symattn.defaults import ROWS_SHOWN
from symattn import messages
from symattn.derivation import terms as sum_terms
from symattn.render import latex
from symattn.derivation.steps import Derivation, Step
from symattn.errors import InputError
from symattn.values.exact import NEG_INF, Exact
from symattn.values.number_format import NumberFormat
from symattn.derivation.names import split_name
from symattn.verify.checker import Report
from symattn.render.printings import labels_in
from symattn.render.view import shown_indices
from symattn.render.worked.cells import Cells, after
from symattn.render.worked.claims import step_claims, summary
from symattn.render.reasons import NoteWriter
from symattn.render.worked.labels import Labels, expand_row_indices
from symattn.render.worked.layout import Layout
from symattn.render.worked.model import (Document, Expansion, Heatmap, Pair, StepClaims,
                                         StepModel, Value)
from symattn.render.worked.names import (description, formula_words, heading, sentence,
                                         step_kind)
from symattn.render.worked.products import probs_row, product_row
from symattn.render.worked.comparisons import comparison_models
from symattn.render.worked.rows import output_row, scaled_row, score_row
from symattn.render.worked.table import softmax_row
from symattn.render.worked.steps import (divisor_shown, has_masked, numbers_text, scale_info,
                                         setup_pairs, step_info, step_operands)

DETAILS = ("summary", "full")


@dataclass(frozen=True)
class Options:
    """What to show: number format, detail, expanded rows (1-based labels), elision."""

    number_format: NumberFormat = NumberFormat()
    detail: str = "full"
    expand_rows: tuple[int, ...] | None = None
    limit: int | None = ROWS_SHOWN
    language: str | None = None  # the prose (messages); None: the spec's language, else en
    # the spec's file name and the paragraph on how numbers are shown: None shows them,
    # except in a handout (``for_handout``), which is for students, not for the author
    source: bool | None = None
    method: bool | None = None

    def for_handout(self, handout: bool) -> Options:
        """These options with the source and method left out of a handout unless asked."""
        shown = not handout
        return dataclasses.replace(self, source=shown if self.source is None else self.source,
                                   method=shown if self.method is None else self.method)


def _unless_heading(description: str, step_heading: str) -> str:
    """A step's description, or "" when it only says its heading again (a generic step
    whose description is its heading): the page then gives only the step's size."""
    def words(text: str) -> str:
        return " ".join(text.rstrip(".").split()).lower()
    return "" if words(description) == words(step_heading) else description


def shown_steps(derivation: Derivation) -> list[Step]:
    """The steps a worked example lays out: all but the hidden ones (the unshifted
    exponentials of a max-shifted softmax, ``derivation.max_shift``)."""
    return [step for step in derivation if not step.hidden]


def build(derivation: Derivation, report: Report | None = None, options: Options | None = None,
          escape: Callable[[str], str] = latex.escape_text,
          prose: Callable[[str], str] = str) -> Document:
    """The worked example of ``derivation`` (with ``report``'s verdicts, if given).

    ``escape`` makes user text safe for the output format; ``prose`` turns the
    catalogs' LaTeX prose into it (``prose.markdown`` for Markdown).
    """
    return _Builder(derivation, report, options or Options(), escape, prose).document()


# The query rows each kind writes out entry by entry (rows.py), given the builder.
_EXPANSIONS: dict[str, Callable[[_Builder, int], Expansion]] = {
    "scores": score_row, "scaled": scaled_row, "weights": softmax_row, "output": output_row}


class _Builder:
    """Builds the document step by step from its parts: ``Labels`` (prose, rows,
    tokens), ``Cells`` (numbers) and ``Layout`` (matrices).

    It is the ``b`` that ``rows`` receives: the parts' methods are reachable
    from it under the names rows.py uses (``b.value``, ``b.text``, ...), and
    ``n``, ``keys`` and ``allowed`` answer for the family being built
    (``prefix``: "head1." while building the steps of head 1).
    """

    def __init__(self, derivation: Derivation, report: Report | None, options: Options,
                 escape: Callable[[str], str], prose: Callable[[str], str] = str) -> None:
        if options.detail not in DETAILS:
            raise InputError(f"unknown detail {options.detail!r}; use summary or full")
        self.d = derivation
        self.problem = derivation.problem
        self.report = report
        self.options = options
        self.fmt = options.number_format
        self.locale = self.fmt.locale
        self.limit = options.limit
        self.full = options.detail == "full"
        self.language = options.language or derivation.problem.language or "en"
        self.catalog = messages.load(self.language)
        self.report = labels_in(report, self.language) if report is not None else None
        self.prose = prose
        self.symbols = {step.name: step.symbol for step in derivation}
        self.names = Labels(derivation, escape)
        self.cells = Cells(derivation, self.fmt)
        self.grid = Layout(derivation, self.cells, options.limit)
        # rows.py reads the parts through the builder, by these names
        self.labels, self.text = self.names.labels, self.names.text
        self.row_label, self.token = self.names.row_label, self.names.token
        self.raw, self.exact, self.value = self.cells.raw, self.cells.exact, self.cells.value
        self.make_value, self.factor, self.after = self.cells.make_value, self.cells.factor, after
        self.shown, self.layout, self.shape = self.grid.shown, self.grid.layout, self.grid.shape
        self.prefix = ""
        self.expanded = expand_row_indices(derivation, options.expand_rows) if self.full else []
        # the columns of a step's softmax tables, the same in each (table.py), by family
        self.tables: dict[tuple[str, str], object] = {}

    def document(self) -> Document:
        """The whole worked example."""
        steps = tuple(self.step(step, number)
                      for number, step in enumerate(shown_steps(self.d), start=1))
        comparisons = comparison_models(self)
        problem = self.problem
        report = self.report
        source = Path(problem.source).name if problem.source and \
            self.options.source is not False else ""
        return Document(
            title=self.text(problem.prose_in("title", self.language)),
            description=self.text(problem.prose_in("description", self.language)),
            source=self.text(source), tokens=self.text(", ".join(problem.tokens)),
            numbers=self.prose(numbers_text(self.fmt, self.catalog)), detail=self.options.detail,
            full=self.full, expanded=", ".join(str(self.labels[i]) for i in self.expanded),
            setup=tuple(Pair(self.prose(pair.label), pair.value)
                        for pair in setup_pairs(self.d, self.cells, self.catalog)), steps=steps,
            summary=summary(report) if report is not None and report.verdicts else None,
            cyrillic=self.names.cyrillic or self.language in ("ru", "uk"),
            max_columns=str(self.grid.max_columns), language=self.language,
            comparisons=comparisons, method=self.options.method is not False,
            no_catalog=self.prose(self.catalog.fill(
                "languages.missing_page", language=self.text(problem.written_language)))
            if problem.written_language else "")

    def step(self, step: Step, number: int) -> StepModel:
        """One step: formula, operands substituted (full detail), result, expanded rows."""
        kind, name = step_kind(step), step.name
        self.prefix = split_name(name)[0]
        info = step_info(kind, step, self.problem, self.cells)
        operands = step_operands(self.grid, kind, step) if self.full else {}
        expansions = self.expansions(kind, name)
        relation = "=" if all(m.exact for m in operands.values()) else r"\approx"
        result = self.grid.result(name, approximate=relation != "=")
        if len(result) > 1 and any(m.rows == result[0].matrix.rows for m in operands.values()):
            result = result[1:]             # the substitution already is the exact result
        claims = StepClaims() if self.report is None else step_claims(
            self.report, name, self.grid, self.text, self.notes())
        return StepModel(kind=kind, name=self.text(name), number=str(number),
                         heading=self.prose(heading(step, self.catalog)),
                         description=self.prose(_unless_heading(
                             sentence(description(step, self.catalog)),
                             heading(step, self.catalog)) if kind == "generic" else
                             sentence(description(step, self.catalog))),
                         symbol=step.symbol, shape=self.shape(name),
                         formula=formula_words(step.formula, self.symbols, self.catalog),
                         result=result, operands=operands, relation=relation, info=info,
                         expansions=expansions, claims=claims,
                         has_masked=has_masked(self.d, name, self.allowed),
                         heatmap=self._heatmap(name) if kind == "weights" else None, step=name,
                         shown=divisor_shown(self.problem, self.cells) if info.get("divisor_value")
                         else ())

    def _heatmap(self, name: str) -> Heatmap:
        """The weights labelled by their tokens (else q_i and k_j) and shaded."""
        def row(i: int) -> str:
            return self.token(i, "query") or f"$q_{{{self.row_label(name, i)}}}$"

        def column(j: int) -> str:
            return self.token(j, "key") or f"$k_{{{j + 1}}}$"

        return self.grid.heatmap(name, row, column)

    def expansions(self, kind: str, name: str) -> tuple[Expansion, ...]:
        """The chosen rows written out entry by entry (full detail only)."""
        if not self.full:
            return ()
        if kind == "product":       # the layer after attention (products.py)
            rows = [0] if self.d[name].shape[0] == 1 else self.expanded
            return tuple(product_row(self, name, i) for i in rows)
        if kind == "probs":
            return (probs_row(self),)
        expand = _EXPANSIONS.get(kind)
        return tuple(expand(self, i) for i in self.expanded) if expand else ()

    # ---------------------------------- what rows.py asks about the family being built
    def n(self, base: str) -> str:
        """The step ``base`` of the family being built ("head1.exp" for "exp")."""
        return self.prefix + base

    def keys(self, i: int) -> tuple[list[int], bool]:
        """The key columns on show for row i, and whether some are elided."""
        m = self.d[self.n("scaled")].shape[1]
        shown = shown_indices(m, self.limit)
        return list(shown), len(shown) < m

    def scale_info(self) -> dict[str, str]:
        """How the scores are scaled (``steps.scale_info``)."""
        return scale_info(self.problem, self.cells)

    def allowed(self, i: int, j: int) -> bool:
        """Whether query i may attend to key j in the family being built."""
        source = self.n("masked") if self.n("masked") in self.d else self.n("scaled")
        return self.raw(source, i, j) is not NEG_INF

    def product(self, left: Any, right: Any) -> Any:
        """The exact product of two entries (SymPy values on the symbolic path)."""
        return sum_terms.product(left, right)

    def total(self, values: Any) -> Any:
        """The exact sum of entries (SymPy values on the symbolic path)."""
        return sum_terms.total(values)

    def notes(self) -> NoteWriter:
        """How this document writes the notes on printed numbers (``claims``)."""
        return NoteWriter(self.catalog, self.d, self.fmt.separator, self.text, self.prose)

    def percent_value(self, raw: Exact) -> Value:
        """A percentage: two places fewer than the weights when places are fixed."""
        return self.cells.percent_value(raw)
