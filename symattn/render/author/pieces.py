"""What an author's template can print: proved numbers and ready-made pieces.

Every number is formatted here, from the exact value, by ``NumberFormat`` with
the spec's rounding rule, so a number a document prints from symattn is the
number ``symattn check`` confirms. Positions are 1-based, as in specs and claims.
The pieces are written for the document's kind: LaTeX (numbers as
mathematics, ``0{,}25``) or Markdown (plain text, ``$...$`` for formulas).
"""

from __future__ import annotations

__all__ = ["Number", "StepValues", "RowValues", "Terms", "Pieces"]

import dataclasses
import re
from symattn import messages
from symattn.derivation.names import base_name
from symattn.derivation.steps import Derivation, Step
from symattn.errors import InputError
from symattn.render import latex, prose
from symattn.render.markdown_document import escape_markdown
from symattn.render.worked.names import heading
from symattn.derivation.terms import term_count
from symattn.verify.claims import QUERY_ROW_STEPS, Target, row_index
from symattn.verify.targets import exact_value, has_divisor
from symattn.values.exact import Exact
from symattn.values.number_format import NumberFormat


def _text(value: Exact, number_format: NumberFormat, kind: str) -> str:
    """A decimal as the document prints it: math for LaTeX, plain text for Markdown."""
    formatted = number_format.format(value)
    if formatted is None:
        raise InputError("this value has free symbols: it has no decimals to print")
    if kind == "latex":
        return latex.math_decimal(formatted)
    return {"-inf": "\u2212\u221e", "nan": "NaN"}.get(formatted, formatted)


class Number:
    """One proved entry of a step; prints with the spec's digits, or ``| places(n)``,
    ``| digits(n)``. An entry printed term by term (a score, an output) has ``terms``:
    ``scores[3,1].terms[2]``, as reports name the term."""

    def __init__(self, value: Exact, number_format: NumberFormat, kind: str,
                 entry: tuple[Derivation, Target] | None = None) -> None:
        self._value, self._format, self._kind = value, number_format, kind
        self._entry = entry

    @property
    def terms(self) -> Terms:
        if self._entry is None:
            raise InputError("only an entry of a step is printed term by term")
        return Terms(*self._entry, self._format, self._kind)

    def formatted(self, places: int | None = None, digits: int | None = None) -> str:
        """The decimal at ``places`` fixed places or ``digits`` significant digits."""
        number_format = self._format
        if places is not None:
            number_format = dataclasses.replace(number_format, places=_whole(places, -100, 1000,
                                                                             "places"))
        elif digits is not None:
            number_format = dataclasses.replace(number_format, digits=_whole(digits, 1, 1000,
                                                                             "digits"),
                                                places=None)
        return _text(self._value, number_format, self._kind)

    def __str__(self) -> str:
        return self.formatted()


def _whole(value: object, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InputError(f"{what} must be a whole number from {low} to {high}, got {value!r}")
    return value


def _position(key: object, shape: tuple[int, int], name: str,
              positions: tuple[int, ...] | None) -> tuple[int, int]:
    """A 1-based ``[i, j]`` (``[i]`` of a one-column step, ``[j]`` of a one-row step) as
    0-based indices; a query row is named by its token position, as reports name it."""
    parts = key if isinstance(key, tuple) else (key, 1) if shape[1] == 1 else \
        (positions[0] if positions else 1, key) if shape[0] == 1 else (key,)
    if len(parts) != 2 or not all(isinstance(p, int) and not isinstance(p, bool)
                                  for p in parts):
        how = f"{name}[i, j]" + (f" or {name}[j]" if shape[0] == 1 else "")
        raise InputError(f"write {how} with whole numbers (1-based), got {key!r}; "
                         f"{name} is {shape[0]} x {shape[1]}")
    i, j = parts
    if not ((positions is not None or 1 <= i <= shape[0]) and 1 <= j <= shape[1]):
        raise InputError(f"{name}[{i},{j}] is outside the {shape[0]} x {shape[1]} {name} "
                         "(positions are 1-based)")
    return row_index(i, name, positions, shape[0]), j - 1


class Terms:
    """The terms of one entry, 1-based: ``scores[3,1].terms[2]``."""

    def __init__(self, derivation: Derivation, entry: Target, number_format: NumberFormat,
                 kind: str) -> None:
        self._derivation, self._entry, self._format, self._kind = \
            derivation, entry, number_format, kind

    def __getitem__(self, term: object) -> Number:
        shapes = {step.name: step.shape for step in self._derivation}
        count = term_count(self._entry.step, shapes)
        if isinstance(term, bool) or not isinstance(term, int) or not 1 <= term <= count:
            raise InputError(f"{self._entry.step} entries have {count} terms (1-based), "
                             f"got terms[{term!r}]" if count else
                             f"{self._entry.step} entries are not printed term by term")
        target = dataclasses.replace(self._entry, part="term", term=term - 1)
        return Number(exact_value(self._derivation, target), self._format, self._kind)


class StepValues:
    """A step as the template sees it: ``weights[3, 2]`` is a ``Number``, ``weights[3].sum``
    its row's sum, as reports name them."""

    def __init__(self, derivation: Derivation, step: Step, number_format: NumberFormat,
                 kind: str) -> None:
        self._derivation, self._step, self._format, self._kind = \
            derivation, step, number_format, kind
        self._positions = derivation.problem.query_positions \
            if base_name(step.name) in QUERY_ROW_STEPS else None

    def __getitem__(self, key: object) -> Number | RowValues:
        rows, columns = self._step.shape
        if isinstance(key, int) and not isinstance(key, bool) and rows > 1 and columns > 1:
            i, _ = _position((key, 1), self._step.shape, self._step.name, self._positions)
            return RowValues(self, i)
        i, j = _position(key, self._step.shape, self._step.name, self._positions)
        return self.number(Target(self._step.name, i, j))

    def number(self, target: Target) -> Number:
        return Number(exact_value(self._derivation, target), self._format, self._kind,
                      (self._derivation, target) if target.part == "entry" else None)


class RowValues:
    """One row of a step: ``weights[3].sum``; an entry is ``weights[3, 2]``."""

    def __init__(self, step: StepValues, row: int) -> None:
        self._step, self._row = step, row

    @property
    def sum(self) -> Number:
        return self._step.number(Target(self._step._step.name, self._row, part="sum"))

    def __str__(self) -> str:
        name = self._step._step.name
        raise InputError(f"a row of {name} is not one number: write {name}[i, j] or "
                         f"{name}[i].sum")


class Pieces:
    """The functions a template calls: ``matrix``, ``steps``, ``softmax_table``."""

    def __init__(self, derivation: Derivation, number_format: NumberFormat, kind: str,
                 language: str) -> None:
        self.derivation, self.number_format, self.kind = derivation, number_format, kind
        self.catalog = messages.load(language)

    def step(self, name: object) -> Step:
        if not isinstance(name, str) or name not in self.derivation:
            raise InputError(f"no step named {name!r}; this derivation has "
                             f"{', '.join(self.derivation.names)}")
        return self.derivation[name]

    def format_of(self, places: object = None, digits: object = None) -> NumberFormat:
        if places is not None:
            return dataclasses.replace(self.number_format,
                                       places=_whole(places, -100, 1000, "places"))
        if digits is not None:
            return dataclasses.replace(self.number_format, places=None,
                                       digits=_whole(digits, 1, 1000, "digits"))
        return self.number_format

    def values(self, name: str) -> StepValues:
        return StepValues(self.derivation, self.step(name), self.number_format, self.kind)

    def divisor(self) -> Number | None:
        """The number the scores are divided by (``divisor``, as reports name it), if any."""
        if not has_divisor(self.derivation):
            return None
        return Number(exact_value(self.derivation, Target("scores", part="divisor")),
                      self.number_format, self.kind)

    def _labels(self, count: int) -> list[str]:
        tokens = self.derivation.problem.tokens
        if len(tokens) != count:
            return [str(k + 1) for k in range(count)]
        escape = _latex_text if self.kind == "latex" else escape_markdown
        return [escape(token) for token in tokens]

    def _cells(self, step: Step, number_format: NumberFormat, kind: str = "") -> list[list[str]]:
        rows, columns = step.shape
        return [[_text(step.value.exact(i, j), number_format, kind or self.kind)
                 for j in range(columns)] for i in range(rows)]

    def matrix(self, name: object, places: object = None, digits: object = None) -> str:
        """The step's entries: a ``bmatrix`` (LaTeX, inside math) or a table (Markdown)."""
        step = self.step(name)
        cells = self._cells(step, self.format_of(places, digits))
        if self.kind == "latex":
            return _bmatrix(cells)
        columns = self._labels(step.shape[1]) if step.shape[1] > 1 else [""]
        lines = ["|  | " + " | ".join(columns) + " |",
                 "|---|" + "---:|" * len(columns)]
        lines += [f"| {label} | " + " | ".join(row) + " |"
                  for label, row in zip(self._labels(step.shape[0]), cells)]
        return "\n".join(lines)

    def steps(self, names: tuple[object, ...], places: object = None,
              digits: object = None) -> str:
        """Each named step: its heading, then ``symbol = formula = matrix`` on display."""
        chosen = [self.step(name) for name in names] or \
            [step for step in self.derivation if not step.hidden]
        parts = []
        for step in chosen:
            title = heading(step, self.catalog)
            formula = f"{step.symbol} = {step.formula}" if step.formula != step.symbol \
                else step.symbol
            matrix = _bmatrix(self._cells(step, self.format_of(places, digits), "latex"))
            if self.kind == "latex":
                parts.append(f"\\paragraph{{{title}}}\n\\[\n{formula} =\n{matrix}\n\\]")
            else:
                parts.append(f"**{prose.markdown(title)}**\n\n$$\n{formula} =\n{matrix}\n$$")
        return "\n\n".join(parts)

    def softmax_table(self, row: object, places: object = None, digits: object = None) -> str:
        """Query row ``row`` (1-based) of the softmax: each key's score, exponential and
        weight, and the row sum."""
        weights = self.step("weights")
        i, _ = _position((row, 1), weights.shape, "weights",
                         self.derivation.problem.query_positions)
        number_format = self.format_of(places, digits)
        exp = self.derivation["exp"] if "exp" in self.derivation else None
        source = self.step(exp.operands[0] if exp is not None and exp.operands else
                           next(name for name in ("masked", "scaled", "scores")
                                if name in self.derivation))
        header = [self.catalog.text("step.weights_key"), "$z_j$"] + \
            (["$e^{z_j}$"] if exp is not None else []) + ["$a_j$"]
        keys = self._labels(weights.shape[1])
        table = []
        for j, key in enumerate(keys):
            cells = [source.value.exact(i, j)] + \
                ([exp.value.exact(i, j)] if exp is not None else []) + [weights.value.exact(i, j)]
            table.append([key] + [self._math(_text(v, number_format, self.kind))
                                  for v in cells])
        if exp is not None and "exp_sum" in self.derivation:
            total = self.derivation["exp_sum"].value.exact(i, 0)
            table.append([self.catalog.text("step.weights_sum_row"), "",
                          self._math(_text(total, number_format, self.kind)), ""])
        return self._table(header, table)

    def _math(self, text: str) -> str:
        return f"${text}$" if self.kind == "latex" else text

    def _table(self, header: list[str], rows: list[list[str]]) -> str:
        if self.kind == "latex":
            lines = ["\\begin{tabular}{l" + "r" * (len(header) - 1) + "}", "\\hline",
                     " & ".join(header) + " \\\\", "\\hline"]
            lines += [" & ".join(row) + " \\\\" for row in rows]
            return "\n".join(lines + ["\\hline", "\\end{tabular}"])
        lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
        return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows])


_MACROS = re.compile(r"\\symattncyr\{([^{}]*)\}|\\symattn(?:char|cjk|sym)\{([0-9A-F]{4,6})\}")


def _latex_text(text: str) -> str:
    """User text escaped for LaTeX, its characters left to the author's preamble (fonts,
    ``fontenc``, babel) instead of symattn's own macros."""
    return _MACROS.sub(lambda m: m.group(1) if m.group(1) is not None
                       else chr(int(m.group(2), 16)), latex.escape_text(text))


def _bmatrix(cells: list[list[str]]) -> str:
    body = " \\\\\n".join(" & ".join(row) for row in cells)
    return f"\\begin{{bmatrix}}\n{body}\n\\end{{bmatrix}}"
