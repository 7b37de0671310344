"""Matrices that fit the page: the rows and columns on show, elision marks, widths.

A large step shows its first and last rows and columns (``view.shown_indices``)
with ``\\cdots``, ``\\vdots`` and ``\\ddots`` between them; a matrix still too
wide for a display line shows fewer columns (``rows.fewer_limits``). Cells
are exact when every entry is short and the matrix fits, else decimals.

>>> import symattn
>>> from symattn.values.number_format import NumberFormat
>>> derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
>>> layout = Layout(derivation, Cells(derivation, NumberFormat()), limit=2)
>>> layout.shape("scaled"), layout.shown("scaled")
('1 \\\\times 3', ((0,), (0, 2)))
>>> layout.layout((0,), (0, 2), lambda i, j: f"a_{j}")
(('a_0', '\\\\cdots', 'a_2'),)
"""

from __future__ import annotations

__all__ = ["Layout", "WIDTH", "CELL", "decimal_parts", "aligned_rows", "HEAT", "pad_to_marks",
           "align_softmax_row"]

import re
from dataclasses import replace
from typing import Callable, Sequence

from symattn.derivation.steps import Derivation
from symattn.render import latex
from symattn.render.view import shown_indices
from symattn.render.worked.cells import Cells
from symattn.render.worked.model import (LINE_WIDTH, Cell, HeatCell, Heatmap, Line, Matrix,
                                         MatrixRows, SoftmaxRow, Value, printed_width)
from symattn.render.worked.rows import fewer_limits

WIDTH = 72          # widest matrix (rough characters, see latex.approx_width) shown exactly
CELL = 16           # widest single entry (rough characters) of an exact matrix

CellText = Callable[[int, int], str]


def _width(cells: MatrixRows) -> float:
    """Rough printed width of a matrix: its widest cell per column, plus spacing."""
    if not cells or not all(isinstance(c, str) for row in cells for c in row):
        return 0.0
    columns = max(len(row) for row in cells)
    widths = [max((latex.approx_width(str(row[c])) for row in cells if c < len(row)),
                  default=0.0) for c in range(columns)]
    return sum(widths) + 1.5 * columns + 2


HEAT = 60           # percent of the heat colour behind a weight of 1
_NUMBER = re.compile(r"(-?\d+)((?:\.|\{,\})\d+)?((?: \\cdot 10\^\{-?\d+\})?)")


def decimal_parts(cell: str) -> tuple[str, str] | None:
    """A number split at its decimal mark, for columns aligned on it; None for
    anything else (a fraction, e^2, an elision mark).

    >>> decimal_parts("-0{,}25"), decimal_parts("12"), decimal_parts("1.5 \\\\cdot 10^{-3}")
    (('-0', '{,}25'), ('12', ''), ('1', '.5 \\\\cdot 10^{-3}'))
    >>> decimal_parts("\\\\frac{1}{3}") is None
    True
    """
    match = _NUMBER.fullmatch(cell.strip())
    if match is None:
        return None
    return match.group(1), (match.group(2) or "") + match.group(3)


def aligned_rows(cells: MatrixRows, small: bool = False) -> tuple[tuple[str, ...], ...]:
    """``cells`` as rows of an array with two columns per entry (``r@{}l``), aligned
    on the decimal mark; () when some cell is not a string or none is a number.
    ``small``: every part in script size (a matrix too wide for a line).

    >>> aligned_rows((("0.5", "12"), (r"\\vdots", r"\\vdots")))
    (('0 & .5', '12 & '), ('\\\\multicolumn{2}{c}{\\\\vdots}', '\\\\multicolumn{2}{c}{\\\\vdots}'))
    """
    if not all(isinstance(cell, str) for row in cells for cell in row):
        return ()
    parts = [[decimal_parts(str(cell)) for cell in row] for row in cells]
    if not any(part for row in parts for part in row):
        return ()
    size = "\\scriptstyle " if small else ""
    return tuple(tuple(f"{size}{part[0]} & {size}{part[1]}" if part else
                       f"\\multicolumn{{2}}{{c}}{{{size}{cell}}}"
                       for cell, part in zip(row, row_parts))
                 for row, row_parts in zip(cells, parts))


def _decimal_cell(value: Value) -> str:
    return value.inline if value.is_exact else value.decimal or value.inline


class Layout:
    """Matrices of a derivation's steps laid out for the page.

    ``max_columns`` is the most columns (elision marks included) any matrix
    had, for amsmath's MaxMatrixCols.
    """

    def __init__(self, derivation: Derivation, cells: Cells, limit: int | None) -> None:
        self.d = derivation
        self.cells = cells
        self.limit = limit
        self.max_columns = 10

    def layout(self, rows: Sequence[int], columns: Sequence[int],
               cell: Callable[[int, int], Cell]) -> MatrixRows:
        """Cells with \\cdots / \\vdots / \\ddots where rows or columns are elided."""
        gaps = [c > 0 and columns[c] != columns[c - 1] + 1 for c in range(len(columns))]
        self.max_columns = max(self.max_columns, len(columns) + sum(gaps))
        out: list[tuple[Cell, ...]] = []
        for r, i in enumerate(rows):
            if r > 0 and i != rows[r - 1] + 1:
                out.append(tuple(x for c in range(len(columns)) for x in
                                 ((r"\ddots",) if gaps[c] else ()) + (r"\vdots",)))
            line: list[Cell] = []
            for c, j in enumerate(columns):
                if gaps[c]:
                    line.append(r"\cdots")
                line.append(cell(i, j))
            out.append(tuple(line))
        return tuple(out)

    def shown(self, name: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The rows and the columns of step ``name`` on show."""
        rows, columns = self.d[name].shape
        return shown_indices(rows, self.limit), shown_indices(columns, self.limit)

    def shape(self, name: str, transpose: bool = False) -> str:
        """The shape of step ``name`` as math, ``n \\times m``."""
        rows, columns = self.d[name].shape
        if transpose:
            rows, columns = columns, rows
        return f"{rows} \\times {columns}"

    def matrix(self, name: str, cell: CellText, exact: bool, transpose: bool = False) -> Matrix:
        """Step ``name`` with ``cell(i, j)`` in each entry on show (``transpose``: as
        its transpose), with as many columns as fit a line."""
        rows, columns = self.shown(name)
        n, m = self.d[name].shape
        at: list[tuple[int, int, str]] = []     # the entries of the last layout tried

        def noted(i: int, j: int) -> str:
            text = cell(i, j)
            at.append((i, j, text))
            return text

        def laid_out(rows: Sequence[int], columns: Sequence[int],
                     entry: Callable[[int, int], str]) -> MatrixRows:
            at.clear()
            return self.layout(rows, columns, entry)

        if transpose:   # printed rows are the matrix's columns, printed columns its rows
            shown_rows, cells = self._fitted(columns, n, lambda r: laid_out(
                columns, r, lambda a, b: noted(b, a)))
            elided = len(shown_rows) < n or len(columns) < m
        else:
            shown_columns, cells = self._fitted(rows, m, lambda c: laid_out(rows, c, noted))
            elided = len(rows) < n or len(shown_columns) < m
        width = _width(cells)
        return Matrix(cells, self.shape(name, transpose), exact, elided, width,
                      aligned_rows(cells, printed_width(width) != width), tuple(at), name)

    def _fitted(self, rows: Sequence[int], count: int,
                cells_for: Callable[[Sequence[int]], MatrixRows]
                ) -> tuple[Sequence[int], MatrixRows]:
        """The columns on show and the cells, with fewer columns while too wide for a line."""
        for limit in fewer_limits(self.limit, count):
            columns = shown_indices(count, limit)
            cells = cells_for(columns)
            if printed_width(_width(cells)) <= LINE_WIDTH:
                break
        return columns, cells

    def fits(self, name: str, cell: CellText) -> bool:
        """Whether a matrix of these cells fits the page width."""
        rows, columns = self.shown(name)
        widths = [max(latex.approx_width(cell(i, j)) for i in rows) for j in columns]
        cell_limit = CELL if len(widths) > 1 else WIDTH // 2
        return max(widths, default=0) <= cell_limit and sum(widths) + 2 * len(widths) <= WIDTH

    def values(self, name: str) -> dict[tuple[int, int], Value]:
        """The entries of step ``name`` on show."""
        rows, columns = self.shown(name)
        return {(i, j): self.cells.value(name, i, j) for i in rows for j in columns}

    def operand(self, name: str, transpose: bool = False) -> Matrix:
        """A matrix substituted into a formula: exact if it fits, else decimals."""
        values = self.values(name)
        if all(v.inline for v in values.values()) and self.fits(
                name, lambda i, j: values[i, j].inline):
            return self.matrix(name, lambda i, j: values[i, j].inline, True, transpose)
        return self.matrix(name, lambda i, j: _decimal_cell(values[i, j]),
                           all(v.is_exact for v in values.values()), transpose)

    def result(self, name: str, approximate: bool = False) -> tuple[Line, ...]:
        """``= exact`` (when every entry is short and it fits) and ``\\approx decimals``."""
        values = self.values(name)

        def inline(i: int, j: int) -> str:
            return values[i, j].inline

        if all(v.is_exact for v in values.values()):
            return (Line("=", self.matrix(name, inline, True)),)
        lines = []
        no_decimals = any(not v.decimal for v in values.values())
        if all(v.inline for v in values.values()) and (no_decimals or not approximate and
                                                       self.fits(name, inline)):
            lines.append(Line("=", self.matrix(name, inline, True)))
        if not no_decimals:
            lines.append(Line(r"\approx", self.matrix(
                name, lambda i, j: _decimal_cell(values[i, j]), False)))
        return tuple(lines)

    def exp_of(self, source: str) -> Matrix:
        """e^z of every entry z of step ``source`` on show: exact exponents when
        short, else their decimals (and the matrix is then not exact)."""
        exact = True

        def cell(i: int, j: int) -> str:
            nonlocal exact
            argument = self.cells.exact(source, i, j, inline=True)
            if argument is None or len(argument) > latex.SHORT // 2:
                exact = False
                argument = self.cells.value(source, i, j).decimal
            return latex.exp_latex(argument)

        rows, _ = self.shown(source)
        n, m = self.d[source].shape
        columns, cells = self._fitted(rows, m, lambda c: self.layout(rows, c, cell))
        elided = len(rows) < n or len(columns) < m
        width = _width(cells)
        return Matrix(cells, self.shape(source), exact, elided, width,
                      aligned_rows(cells, printed_width(width) != width))

    def heatmap(self, name: str, row_label: Callable[[int], str],
                column_label: Callable[[int], str]) -> Heatmap:
        """The decimals of step ``name`` (weights) as a table, rows and columns
        labelled, each entry shaded in proportion to its size (1 = ``HEAT`` %)."""
        rows, columns = self.shown(name)
        cells = _heat_cells({key: _decimal_cell(value)
                             for key, value in self.values(name).items()})
        laid = self.layout(rows, columns, lambda i, j: f"{i} {j}")   # positions, marks
        labels = [row_label(i) for i in rows]
        body = []
        for line in laid:
            if all(c in (r"\vdots", r"\ddots") for c in line):
                body.append((r"$\vdots$", tuple(HeatCell(str(c), "") for c in line)))
            else:
                body.append((labels.pop(0), tuple(
                    cells[int(str(c).split()[0]), int(str(c).split()[1])]
                    if str(c)[:1].isdigit() else HeatCell(str(c), "") for c in line)))
        heads = [column_label(j) for j in columns]
        gaps = [c > 0 and columns[c] != columns[c - 1] + 1 for c in range(len(columns))]
        header = tuple(x for c, head in enumerate(heads)
                       for x in ((r"$\cdots$",) if gaps[c] else ()) + (head,))
        return Heatmap(header, tuple(body))


def _heat_cells(texts: dict[tuple[int, int], str]) -> dict[tuple[int, int], HeatCell]:
    """Decimals padded (``\\phantom``) to their column's places, and their shades."""
    places: dict[int, int] = {}
    for (_, j), text in texts.items():
        places[j] = max(places.get(j, 0), len((decimal_parts(text) or ("", ""))[1]))
    mark = "{,}" if any("{,}" in text for text in texts.values()) else "."
    cells = {}
    for (i, j), text in texts.items():
        parts = decimal_parts(text)
        if parts is None or "10^{" in parts[1]:       # tiny: a shade of 0
            cells[i, j] = HeatCell(text, "0" if parts else "")
            continue
        pad = places[j] - len(parts[1])
        if pad > 0:
            filler = "" if parts[1] else mark
            text += f"\\phantom{{{filler + '0' * (pad - len(filler))}}}"
        number = float(parts[0] + parts[1].replace("{,}", "."))
        cells[i, j] = HeatCell(text, str(round(HEAT * min(abs(number), 1.0))))
    return cells


_PADDABLE = re.compile(r"(-?\d+)((?:\.|\{,\})\d+)?(\\,\\%)?")


def pad_to_marks(texts: list[str]) -> list[str]:
    """Numbers of a right-aligned table column padded with ``\\phantom`` to the
    most decimal places among them, so that their decimal marks align; other
    entries unchanged.

    >>> pad_to_marks(["1", "0{,}25", "-\\\\infty", "12{,}5\\\\,\\\\%"])
    ['1\\\\phantom{{,}00}', '0{,}25', '-\\\\infty', '12{,}5\\\\,\\\\%\\\\phantom{0}']
    """
    matches = [_PADDABLE.fullmatch(text) for text in texts]
    places = max((len(m.group(2) or "") for m in matches if m), default=0)
    mark = "{,}" if any("{,}" in text for text in texts) else "."
    out = []
    for text, match in zip(texts, matches):
        pad = places - len(match.group(2) or "") if match else 0
        if match is None or pad <= 0:
            out.append(text)
            continue
        filler = "" if match.group(2) else mark
        filler += "0" * (pad - len(filler))
        # after a percent sign: the same width, so the marks still align
        out.append(f"{match.group(1)}{match.group(2) or ''}{match.group(3) or ''}"
                   f"\\phantom{{{filler}}}")
    return out


def _shown(value: Value) -> str:
    return value.exact if value.is_exact else value.decimal


def _with_shown(value: Value, text: str) -> Value:
    return replace(value, exact=text) if value.is_exact else replace(value, decimal=text)


def align_softmax_row(row: SoftmaxRow) -> SoftmaxRow:
    """A softmax table with its score, exponential, weight and percent columns
    aligned on the decimal mark (the sum row's weight and percent included)."""
    entries = [e for e in row.entries if not e.elision]
    columns = {}
    for field in ("score", "exp", "weight"):
        extra = [row.weight_total] if field == "weight" else []
        columns[field] = pad_to_marks([_shown(getattr(e, field)) for e in entries] + extra)
    percents = pad_to_marks([e.percent for e in entries] + [row.percent_total])
    aligned = iter(range(len(entries)))
    new_entries = []
    for entry in row.entries:
        if entry.elision:
            new_entries.append(entry)
            continue
        k = next(aligned)
        new_entries.append(replace(
            entry, percent=percents[k], score=_with_shown(entry.score, columns["score"][k]),
            exp=_with_shown(entry.exp, columns["exp"][k]),
            weight=_with_shown(entry.weight, columns["weight"][k])))
    return replace(row, entries=tuple(new_entries), weight_total=columns["weight"][-1],
                   percent_total=percents[-1])
