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

__all__ = ["Options", "build", "DETAILS", "expand_row_indices"]

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

from flint import fmpq

from symattn import messages
from symattn.defaults import ROWS_SHOWN
from symattn.values import arith
from symattn.render import latex
from symattn.verify.claims import QUERY_ROW_STEPS
from symattn.derivation.steps import Derivation, Step
from symattn.errors import InputError
from symattn.values.exact import NAN, NEG_INF, Surd, terminating_places
from symattn.values.number_format import NumberFormat
from symattn.messages import Catalog
from symattn.render.view import shown_indices
from symattn.render.worked.claims import step_claims, summary
from symattn.render.worked.model import (LINE_WIDTH, Document, Line, Matrix, Pair, StepModel, Value,
                                  printed_width)
from symattn.render.worked.rows import fewer_limits, output_row, scaled_row, score_row, softmax_row

DETAILS = ("summary", "full")
WIDTH = 72          # widest matrix (rough characters, see latex.approx_width) shown exactly
# Step headings and the translations of step descriptions: symattn/messages/*.toml
CELL = 16           # widest single entry (rough characters) of an exact matrix


def _width(cells: tuple[tuple[Any, ...], ...]) -> float:
    """Rough printed width of a matrix: its widest cell per column, plus spacing."""
    if not cells or not all(isinstance(c, str) for row in cells for c in row):
        return 0.0
    columns = max(len(row) for row in cells)
    widths = [max((latex.approx_width(row[c]) for row in cells if c < len(row)), default=0.0)
              for c in range(columns)]
    return sum(widths) + 1.5 * columns + 2


@dataclass(frozen=True)
class Options:
    """What to show: number format, detail, expanded rows (1-based labels), elision."""

    number_format: NumberFormat = NumberFormat()
    detail: str = "full"
    expand_rows: tuple[int, ...] | None = None
    limit: int | None = ROWS_SHOWN
    language: str = "en"        # the prose: headings and step descriptions (messages)


def build(derivation: Derivation, report: Any = None, options: Options | None = None,
          escape: Callable[[str], str] = latex.escape_text) -> Document:
    """The worked example of ``derivation`` (with ``report``'s verdicts, if given)."""
    return _Builder(derivation, report, options or Options(), escape).document()


KINDS = ("scores", "scaled", "mask", "masked", "exp", "exp_sum", "weights", "output")


def family(name: str) -> str:
    """The prefix of a step's family: "head1." for "head1.scores", "" for "scores"."""
    return name.rpartition(".")[0] + "." if "." in name else ""


def _base(name: str) -> str:
    return name.rpartition(".")[2]


def _kind(step: Step) -> str:
    """The template a step is laid out with (docs/templates.md)."""
    prefix, base = family(step.name), _base(step.name)
    if base == "mask":
        return "mask"
    if not step.operands:
        return "input"
    if base in ("Q", "K", "V"):
        return "generic" if prefix else "projection"
    if base == "scaled" and prefix:
        return "generic"              # a head's own scale is not the problem's
    if base == "output" and step.operands != (prefix + "weights", prefix + "V"):
        return "generic"              # e.g. multi-head: Concat(heads) W_O
    return base if base in KINDS else "generic"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _description(step: Step, catalog: Catalog) -> str:
    """The step's description in the catalog's language (the engine's is English)."""
    translated = catalog.get(f"description.{_base(step.name)}")
    return translated if isinstance(translated, str) else step.description


def _heading(step: Step, catalog: Catalog) -> str:
    headings = catalog["heading"]
    if step.name in headings:
        return str(headings[step.name])
    if _base(step.name) in headings and step.operands:
        head = family(step.name).rstrip(".")
        return catalog.fill("heading.of_head", heading=headings[_base(step.name)], head=head)
    text = _description(step, catalog) or step.name
    return text[:1].upper() + text[1:]


def score_step(derivation: Derivation) -> Step:
    """The first step of scores (n queries x m keys), of the first head if several."""
    for step in derivation.steps:
        if _base(step.name) in ("scaled", "scores"):
            return step
    raise KeyError("scaled")


def row_labels(derivation: Derivation) -> list[int]:
    """1-based labels of the query rows (their positions when given)."""
    n = score_step(derivation).shape[0]
    return list(derivation.problem.query_positions or range(1, n + 1))


def expand_row_indices(derivation: Derivation, chosen: Sequence[int] | None) -> list[int]:
    """0-based query rows to expand: the chosen labels, else the last row (all if n <= 3)."""
    labels = row_labels(derivation)
    if chosen is None:
        return list(range(len(labels))) if len(labels) <= 3 else [len(labels) - 1]
    indices = []
    for label in chosen:
        if label not in labels:
            raise InputError(f"--expand-rows: there is no query row {label}; the rows are "
                             f"{', '.join(str(x) for x in labels)}")
        indices.append(labels.index(label))
    return sorted(set(indices))


class _Builder:
    def __init__(self, derivation: Derivation, report: Any, options: Options,
                 escape: Callable[[str], str]) -> None:
        if options.detail not in DETAILS:
            raise InputError(f"unknown detail {options.detail!r}; use summary or full")
        self.d = derivation
        self.problem = derivation.problem
        self.report = report
        self.fmt = options.number_format
        self.locale = self.fmt.locale
        self.limit = options.limit
        self.full = options.detail == "full"
        self.options = options
        self.catalog = messages.load(options.language)
        self._escape = escape
        self.cyrillic = False
        self.columns = 10
        self.cache: dict[tuple[str, int, int, bool], str | None] = {}
        self.labels = row_labels(derivation)
        self.prefix = ""
        self.expanded = expand_row_indices(derivation, options.expand_rows) if self.full else []

    # ------------------------------------------------------------------ text
    def text(self, raw: str) -> str:
        self.cyrillic = self.cyrillic or latex.has_cyrillic(raw)
        return self._escape(raw)

    def row_label(self, name: str, i: int) -> str:
        return str(self.labels[i]) if name in QUERY_ROW_STEPS else str(i + 1)

    def token(self, index: int, role: str) -> str:
        tokens = self.problem.tokens
        n, m = score_step(self.d).shape
        if role == "key":
            return self.text(tokens[index]) if len(tokens) == m else ""
        if len(tokens) == n and self.problem.query_positions is None:
            return self.text(tokens[index])
        if len(tokens) == m:
            return self.text(tokens[self.labels[index] - 1])
        return self.text(tokens[index]) if len(tokens) == n else ""

    # ---------------------------------------------------------------- values
    def raw(self, name: str, i: int, j: int) -> Any:
        return self.d[name].value.exact(i, j)

    def exact(self, name: str, i: int, j: int, inline: bool = False) -> str | None:
        key = (name, i, j, inline)
        if key not in self.cache:
            raw = self.raw(name, i, j)
            text = latex.exact_latex(raw, self.locale, inline)
            self.cache[key] = text if text is not None else self._structural(name, i, j)
        return self.cache[key]

    def _structural(self, name: str, i: int, j: int) -> str | None:
        """Exact LaTeX of an irrational entry from the step's definition."""
        prefix, base = family(name), _base(name)
        exp, total, values = prefix + "exp", prefix + "exp_sum", prefix + "V"
        if base == "exp" and self.d[name].operands:
            argument = self.exact(self.d[name].operands[0], i, j, inline=True)
            return None if argument is None else latex.exp_latex(argument)
        if exp not in self.d:
            return None
        if base == "exp_sum":
            terms = [self.exact(exp, i, c) for c in self.d[exp].value.columns()
                     if self.raw(exp, i, c) != 0]
            return None if None in terms else latex.sum_latex(terms)  # type: ignore[arg-type]
        if total not in self.d or base not in ("weights", "output") or \
                base == "output" and self.d[name].operands != (prefix + "weights", values):
            return None
        denominator = self.exact(total, i, 0)
        if base == "weights":
            numerator = self.exact(exp, i, j)
        else:
            terms = []
            for c in self.d[exp].value.columns():
                value = self.raw(values, c, j)
                if self.raw(exp, i, c) == 0 or value == 0:
                    continue
                power, factor = self.exact(exp, i, c), self.exact(values, c, j)
                if power is None or factor is None:
                    return None
                terms.append(power if factor == "1" else f"-{power}" if factor == "-1"
                             else f"{factor}\\, {power}")
            numerator = latex.sum_latex(terms)
        if numerator is None or denominator is None:
            return None
        return latex.frac_latex(numerator, denominator)

    def make_value(self, raw: Any, exact: str | None, inline: str | None = None) -> Value:
        """Exact form (if short), decimal, and the chain ``= exact \\approx decimal``."""
        decimal_text = self.fmt.format(raw)
        decimal = latex.math_decimal(decimal_text) if decimal_text is not None else ""
        if exact is not None and len(exact) > latex.SHORT and decimal:
            exact = None
        inline = inline if inline is not None and exact is not None else exact
        if raw is NEG_INF or raw is NAN or exact is not None and (
                not decimal or self._decimal_is_exact(raw, decimal_text)):
            shown = exact if exact is not None else decimal
            return Value(shown, decimal, f"= {shown}", True, inline or shown)
        if exact is not None:
            return Value(exact, decimal, f"= {exact} \\approx {decimal}", False, inline or "")
        return Value("", decimal, f"\\approx {decimal}", False)

    @staticmethod
    def _decimal_is_exact(raw: Any, text: str | None) -> bool:
        if not isinstance(raw, fmpq) or text is None:
            return False
        places = terminating_places(raw)
        if places is None or places > latex.MAX_EXACT_PLACES:
            return False
        shown = len(text.replace(",", ".").partition(".")[2])
        return places <= shown

    def value(self, name: str, i: int, j: int) -> Value:
        return self.make_value(self.raw(name, i, j), self.exact(name, i, j),
                               self.exact(name, i, j, inline=True))

    @staticmethod
    def after(relation: str, value: Value) -> Value:
        """``value`` as the end of a chain: after an approximation, only its decimal."""
        if relation == "=" or value.is_exact or not value.decimal:
            return value
        return Value("", value.decimal, f"\\approx {value.decimal}", False)

    def factor(self, name: str, i: int, j: int) -> tuple[str, bool]:
        """An operand inside a substitution: exact when short and simple, else decimal."""
        value = self.value(name, i, j)
        if value.is_exact or value.exact and "e^" not in value.exact:
            return value.exact, True
        return value.decimal, False

    # -------------------------------------------------------------- matrices
    def layout(self, rows: Sequence[int], columns: Sequence[int],
               cell: Callable[[int, int], Any]) -> tuple[tuple[Any, ...], ...]:
        """Cells with \\cdots / \\vdots / \\ddots where rows or columns are elided."""
        gaps = [c > 0 and columns[c] != columns[c - 1] + 1 for c in range(len(columns))]
        width = len(columns) + sum(gaps)
        self.columns = max(self.columns, width)
        out: list[tuple[Any, ...]] = []
        for r, i in enumerate(rows):
            if r > 0 and i != rows[r - 1] + 1:
                out.append(tuple(x for c in range(len(columns)) for x in
                                 ((r"\ddots",) if gaps[c] else ()) + (r"\vdots",)))
            line: list[Any] = []
            for c, j in enumerate(columns):
                if gaps[c]:
                    line.append(r"\cdots")
                line.append(cell(i, j))
            out.append(tuple(line))
        return tuple(out)

    def shown(self, name: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        rows, columns = self.d[name].shape
        return shown_indices(rows, self.limit), shown_indices(columns, self.limit)

    def shape(self, name: str, transpose: bool = False) -> str:
        rows, columns = self.d[name].shape
        if transpose:
            rows, columns = columns, rows
        return f"{rows} \\times {columns}"

    def matrix(self, name: str, cell: Callable[[int, int], str], exact: bool,
               transpose: bool = False) -> Matrix:
        rows, columns = self.shown(name)
        n, m = self.d[name].shape
        if transpose:   # printed rows are the matrix's columns, printed columns its rows
            shown_rows, cells = self._fitted(columns, n, lambda r: self.layout(
                columns, r, lambda a, b: cell(b, a)))
            elided = len(shown_rows) < n or len(columns) < m
        else:
            shown_columns, cells = self._fitted(rows, m, lambda c: self.layout(rows, c, cell))
            elided = len(rows) < n or len(shown_columns) < m
        return Matrix(cells, self.shape(name, transpose), exact, elided, _width(cells))

    def _fitted(self, rows: Sequence[int], count: int,
                cells_for: Callable[[Sequence[int]], tuple[tuple[Any, ...], ...]]
                ) -> tuple[Sequence[int], tuple[tuple[Any, ...], ...]]:
        """The columns on show and the cells, with fewer columns while too wide for a line."""
        for limit in fewer_limits(self.limit, count):
            columns = shown_indices(count, limit)
            cells = cells_for(columns)
            if printed_width(_width(cells)) <= LINE_WIDTH:
                break
        return columns, cells

    def fits(self, name: str, cell: Callable[[int, int], str]) -> bool:
        """Whether a matrix of these cells fits the page width."""
        rows, columns = self.shown(name)
        widths = [max(latex.approx_width(cell(i, j)) for i in rows) for j in columns]
        cell_limit = CELL if len(widths) > 1 else WIDTH // 2
        return max(widths, default=0) <= cell_limit and sum(widths) + 2 * len(widths) <= WIDTH

    def values(self, name: str) -> dict[tuple[int, int], Value]:
        rows, columns = self.shown(name)
        return {(i, j): self.value(name, i, j) for i in rows for j in columns}

    @staticmethod
    def _decimal_cell(value: Value) -> str:
        return value.inline if value.is_exact else value.decimal or value.inline

    def operand(self, name: str, transpose: bool = False) -> Matrix:
        """A matrix substituted into a formula: exact if it fits, else decimals."""
        values = self.values(name)
        if all(v.inline for v in values.values()) and self.fits(
                name, lambda i, j: values[i, j].inline):
            return self.matrix(name, lambda i, j: values[i, j].inline, True, transpose)
        return self.matrix(name, lambda i, j: self._decimal_cell(values[i, j]),
                           all(v.is_exact for v in values.values()), transpose)

    def result(self, name: str, approximate: bool = False) -> tuple[Line, ...]:
        """``= exact`` (when every entry is short and it fits) and ``\\approx decimals``."""
        values = self.values(name)
        inline = lambda i, j: values[i, j].inline  # noqa: E731
        if all(v.is_exact for v in values.values()):
            return (Line("=", self.matrix(name, inline, True)),)
        lines = []
        no_decimals = any(not v.decimal for v in values.values())
        if all(v.inline for v in values.values()) and (no_decimals or not approximate and
                                                       self.fits(name, inline)):
            lines.append(Line("=", self.matrix(name, inline, True)))
        if not no_decimals:
            lines.append(Line(r"\approx", self.matrix(
                name, lambda i, j: self._decimal_cell(values[i, j]), False)))
        return tuple(lines)

    # ----------------------------------------------------------------- steps
    def document(self) -> Document:
        steps = tuple(self.step(step, number) for number, step in enumerate(self.d, start=1))
        problem = self.problem
        fmt = self.fmt
        numbers = (f"{fmt.places} decimal places" if fmt.places is not None
                   else f"{fmt.digits} significant digits") + f", rounded {fmt.rounding.value}"
        if fmt.separator == ",":
            numbers += ", with a decimal comma"
        title = self.text(problem.title)
        summary_model = None
        if self.report is not None and self.report.verdicts:
            summary_model = summary(self.report)
        source = Path(problem.source).name if problem.source else ""
        return Document(
            title=title, description=self.text(problem.description),
            source=self.text(source), tokens=self.text(", ".join(problem.tokens)),
            numbers=self.text(numbers), detail=self.options.detail, full=self.full,
            expanded=", ".join(str(self.labels[i]) for i in self.expanded),
            setup=self.setup(), steps=steps, summary=summary_model,
            cyrillic=self.cyrillic, max_columns=str(self.columns))

    def setup(self) -> tuple[Pair, ...]:
        problem = self.problem
        n, m = score_step(self.d).shape
        pairs = [Pair("queries", f"n = {n}"), Pair("keys", f"m = {m}")]
        if problem.d_k_value is not None:
            pairs.append(Pair("key dimension", f"d_k = {problem.d_k_value}"))
        if problem.scale is not None and "scaled" not in problem.inputs:
            pairs.append(Pair("scale", f"s = {self.any_latex(problem.scale)}"))
        if problem.temperature != 1:
            pairs.append(Pair("temperature", f"T = {self.any_latex(problem.temperature)}"))
        mask = problem.mask.kind
        if mask != "none" or any(_base(s.name) == "mask" for s in self.d):
            kind = mask if mask != "none" else "given"
            pairs.append(Pair("mask", f"\\text{{{kind}}}"))
        return tuple(pairs)

    def any_latex(self, value: Any) -> str:
        if hasattr(value, "to_sympy"):
            return latex.sympy_latex(value.to_sympy())
        text = latex.exact_latex(value, self.locale)
        return text if text is not None else latex.math_decimal(str(self.fmt.format(value)))

    def n(self, base: str) -> str:
        """The step ``base`` of the family being built ("head1.exp" for "exp")."""
        return self.prefix + base

    def step(self, step: Step, number: int) -> StepModel:
        kind = _kind(step)
        self.prefix = family(step.name)
        operands: dict[str, Matrix] = {}
        info: dict[str, str] = {}
        expansions: tuple[Any, ...] = ()
        name = step.name
        if kind == "scaled" or kind == "input" and _base(name) == "scaled":
            info = self.scale_info()
        if kind == "mask":
            info = self.mask_info()
        if kind == "weights":
            info = {"normalisation": self.problem.normalisation}
        if self.full:
            if kind == "projection":
                operands = {"X": self.operand("X"), "W": self.operand(f"W_{name}")}
            elif kind == "scores":
                operands = {"Q": self.operand(self.n("Q")),
                            "K_T": self.operand(self.n("K"), transpose=True)}
                expansions = tuple(score_row(self, i) for i in self.expanded)
            elif kind == "scaled":
                operands = {"S": self.operand(self.n("scores"))}
                expansions = tuple(scaled_row(self, i) for i in self.expanded)
            elif kind == "masked":
                operands = {"S": self.operand(self.n("scaled")),
                            "M": self.operand(self.n("mask"))}
            elif kind == "exp":
                operands = {"Z": self.exp_of(step.operands[0])}
            elif kind == "weights":
                expansions = tuple(softmax_row(self, i) for i in self.expanded)
            elif kind == "output":
                operands = {"A": self.operand(self.n("weights")),
                            "V": self.operand(self.n("V"))}
                expansions = tuple(output_row(self, i) for i in self.expanded)
        relation = "=" if all(m.exact for m in operands.values()) else r"\approx"
        result = self.result(name, approximate=relation != "=")
        if len(result) > 1 and any(m.rows == result[0].matrix.rows for m in operands.values()):
            result = result[1:]             # the substitution already is the exact result
        claims = step_claims(self, name) if self.report is not None else None
        has_masked = self.step_has_masked(name)
        model = StepModel(kind=kind, name=self.text(name), number=str(number),
                          heading=self.text(_heading(step, self.catalog)),
                          description=self.text(_sentence(_description(step, self.catalog))),
                          symbol=step.symbol,
                          formula=step.formula, shape=self.shape(name), result=result,
                          operands=operands, relation=relation, info=info,
                          expansions=expansions, has_masked=has_masked)
        if claims is not None:
            model = StepModel(**{**model.__dict__, "claims": claims})
        return model

    # ------------------------------------------------------------- per kind
    def scale_info(self) -> dict[str, str]:
        """How the scores are scaled: the factor, the divisor and per-entry form."""
        problem = self.problem
        temperature = problem.temperature
        t = "" if temperature == 1 else self.any_latex(temperature)
        info = {"d_k": str(problem.d_k_value or ""), "temperature": t, "scale": "",
                "divisor": "", "divisor_value": "", "factor": "", "entry": "{s}"}
        if problem.scale is None and problem.d_k_value is not None:
            root = f"\\sqrt{{{problem.d_k_value}}}"
            divisor = root if not t else f"{root} \\cdot {latex._factor(t)}"
            info.update(divisor=divisor, factor=latex.frac_latex("1", divisor),
                        entry=latex.frac_latex("{s}", divisor))
        elif problem.scale is not None:
            scale = self.any_latex(problem.scale)
            info["scale"] = scale if problem.scale != 1 else ""
            if problem.scale == 1:
                if t:
                    info.update(divisor=t, factor=latex.frac_latex("1", t),
                                entry=latex.frac_latex("{s}", t))
            else:
                info.update(factor=scale if not t else latex.frac_latex(scale, t),
                            entry=latex.product_latex(scale, "{s}") if not t else
                            latex.frac_latex(latex.product_latex(scale, "{s}"), t))
        if info["divisor"]:
            try:
                from symattn.derivation.attention import scale_factor

                factor = scale_factor(problem)
            except AssertionError:
                factor = None
            if isinstance(factor, (fmpq, Surd)):
                divisor_value = 1 / factor if isinstance(factor, fmpq) else factor.reciprocal()
                value = self.make_value(divisor_value, latex.exact_latex(divisor_value,
                                                                         self.locale))
                info["divisor_value"] = value.chain
        return info

    def mask_info(self) -> dict[str, str]:
        mask = self.problem.mask
        padded = ", ".join(str(k + 1) for k in mask.padded_keys)
        return {"mask": mask.kind if mask.kind != "none" else "given", "padded": padded}

    def exp_of(self, source: str) -> Matrix:
        exact = True

        def cell(i: int, j: int) -> str:
            nonlocal exact
            argument = self.exact(source, i, j, inline=True)
            if argument is None or len(argument) > latex.SHORT // 2:
                exact = False
                argument = self.value(source, i, j).decimal
            return latex.exp_latex(argument)

        rows, _ = self.shown(source)
        n, m = self.d[source].shape
        columns, cells = self._fitted(rows, m, lambda c: self.layout(rows, c, cell))
        elided = len(rows) < n or len(columns) < m
        return Matrix(cells, self.shape(source), exact, elided, _width(cells))

    def keys(self, i: int) -> tuple[list[int], bool]:
        """The key columns on show for row i, and whether some are elided."""
        m = self.d[self.n("scaled")].shape[1]
        shown = shown_indices(m, self.limit)
        return list(shown), len(shown) < m

    def step_has_masked(self, name: str) -> bool:
        """True when the step shows -inf, or is computed from scores that had -inf."""
        if self.n("scaled") not in self.d:
            return False
        n, m = self.d[self.n("scaled")].shape
        masked = any(not self.allowed(i, j) for i in range(n) for j in range(m))
        if _base(name) in ("mask", "masked", "exp", "exp_sum", "weights", "output"):
            return masked
        if _base(name) in ("scores", "scaled"):
            grid = self.d[name].value
            return any(grid.exact(i, j) is NEG_INF for i in grid.rows() for j in grid.columns())
        return False

    def allowed(self, i: int, j: int) -> bool:
        source = self.n("masked") if self.n("masked") in self.d else self.n("scaled")
        return self.raw(source, i, j) is not NEG_INF

    def product(self, left: Any, right: Any) -> Any:
        """The exact product of two entries (SymPy values on the symbolic path)."""
        if hasattr(left, "expr") or hasattr(right, "expr"):
            from symattn.values.symbolic import sympy_to_exact, value_to_sympy

            to = lambda v: v.expr if hasattr(v, "expr") else value_to_sympy(v)  # noqa: E731
            return sympy_to_exact(to(left) * to(right))
        return arith.multiply(left, right)

    def total(self, values: Any) -> Any:
        """The exact sum of entries (SymPy values on the symbolic path)."""
        values = list(values)
        if any(hasattr(v, "expr") for v in values):
            from symattn.values.symbolic import sympy_to_exact, value_to_sympy

            to = lambda v: v.expr if hasattr(v, "expr") else value_to_sympy(v)  # noqa: E731
            return sympy_to_exact(sum(to(v) for v in values))
        return arith.total(values)

    def percent_value(self, raw: Any) -> Value:
        """A percentage: two places fewer than the weights when places are fixed."""
        fmt = self.fmt
        if fmt.places is not None:
            fmt = NumberFormat(digits=None, places=max(fmt.places - 2, 0),
                               rounding=fmt.rounding, locale=fmt.locale)
        saved, self.fmt = self.fmt, fmt
        try:
            return self.make_value(raw, latex.exact_latex(raw, self.locale))
        finally:
            self.fmt = saved
