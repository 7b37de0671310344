"""A report as data: lines and tables whose numbers carry their exact value.

The explore reports (``sweep``, ``whatif``, ``permute``, ``kvcache``,
``sizes``) build a list of ``Block``: a plain line (``str``), a ``Line`` of
pieces, or a ``Table``. A piece is text or a ``Number``: the decimal as the
report prints it, with its exact form and its certified digits, taken from the
exact value the report already has. ``text`` lays the blocks out as the text
report (a number is its printed decimal, so the text is what it always was);
``render.web.text_html`` lays the same blocks out as a page, where each number
shows its exact form and certified digits on hover and keyboard focus.

>>> from flint import fmpq
>>> from symattn.values.number_format import NumberFormat
>>> third = number(fmpq(1, 3), NumberFormat(digits=3))
>>> third.shown, third.exact, third.certified
('0.333', '1/3', '0.333333333333333')
>>> print(text(["Title", Line(("x = [", third, "]")),
...            Table(("T", "H"), (("0.3", third), ("2", "1")), right=(1,))]))
Title
x = [0.333]
T        H
0.3  0.333
2        1
<BLANKLINE>
"""

from __future__ import annotations

__all__ = ["Number", "Piece", "Line", "Table", "Matrix", "Matrices", "Block", "number",
           "numbers", "grid_numbers", "bracketed", "padded", "joined", "matrix_rows", "text",
           "text_lines"]

from dataclasses import dataclass
from typing import Iterable, Sequence, Union

from symattn.derivation.grids import Grid
from symattn.render.text_table import aligned
from symattn.render.web.tips import certified, certified_block
from symattn.values.exact import Exact, exact_text
from symattn.values.number_format import NumberFormat


@dataclass(frozen=True)
class Number:
    """A number as printed (``shown``), its exact form, and ``CERTIFIED`` certified
    significant digits (None when it has none: a symbolic value, a count)."""

    shown: str
    exact: str | None
    certified: str | None = None

    def __str__(self) -> str:
        return self.shown


Piece = Union[str, Number]


@dataclass(frozen=True)
class Line:
    """One line of a report made of pieces (text and numbers)."""

    pieces: tuple[Piece, ...]

    def __str__(self) -> str:
        return "".join(map(str, self.pieces))

    def __len__(self) -> int:
        return len(str(self))


@dataclass(frozen=True)
class Table:
    """A table: a header (none when empty) and rows of cells, the columns ``right``
    right-aligned, each line after ``indent`` (the text layout is ``text_table.aligned``'s)."""

    header: tuple[str, ...]
    rows: tuple[tuple[Piece | Line, ...], ...]
    right: tuple[int, ...] = ()
    indent: str = ""

    def lines(self) -> list[str]:
        rows = [[str(cell) for cell in row] for row in self.rows]
        if not self.header:
            return aligned(rows[0], rows[1:], right=self.right, indent=self.indent)
        return aligned(self.header, rows, right=self.right, indent=self.indent)


@dataclass(frozen=True)
class Matrix:
    """A labelled matrix: its numbers, and the rows and columns they are (0-based; where
    one is not next to the one before, some are left out)."""

    label: str
    cells: tuple[tuple[Number, ...], ...]
    rows: tuple[int, ...]
    columns: tuple[int, ...]

    def block(self) -> list[Line]:
        """The label over the matrix (``matrix_rows``), every line padded to one width."""
        lines = matrix_rows(self.cells, self.rows, self.columns, indent="")
        width = max(len(self.label), *(len(line) for line in lines))
        return [padded(self.label, width)] + [padded(line, width) for line in lines]


@dataclass(frozen=True)
class Matrices:
    """Labelled matrices side by side when they fit ``width`` characters, else one under
    another, each line after two spaces."""

    matrices: tuple[Matrix, ...]
    width: int

    def text_rows(self) -> list[Line]:
        blocks = [matrix.block() for matrix in self.matrices]
        total = sum(len(block[0]) for block in blocks) + 3 * (len(blocks) - 1) + 2
        if total <= self.width:
            return [_stripped(joined(["  ", joined(parts, "   ")], "")) for parts in zip(*blocks)]
        out: list[Line] = []
        for k, block in enumerate(blocks):
            out += ([Line(("",))] if k else []) + [_stripped(joined(["  ", line], ""))
                                                   for line in block]
        return out

    def lines(self) -> list[str]:
        return [str(line) for line in self.text_rows()]


Block = Union[str, Line, Table, Matrices]


def number(value: Exact, number_format: NumberFormat) -> Number:
    """An exact value as a report prints it (``reports.shared.decimal``), with its exact
    text and its certified digits in the same rounding and decimal mark."""
    from symattn.render.reports.shared import decimal

    return Number(decimal(value, number_format), exact_text(value),
                  certified(value, number_format))


def grid_numbers(grid: Grid, number_format: NumberFormat, symbolic: str) -> list[list[Number]]:
    """Every entry of ``grid`` as a number (``symbolic`` shown where it has no decimal)."""
    rows, columns = tuple(grid.rows()), tuple(grid.columns())
    shown = number_format.format_block(grid, rows, columns)
    digits = certified_block(grid, rows, columns, number_format)
    return [[Number(shown[r][c] or symbolic, grid.text(i, j), digits[r][c])
             for c, j in enumerate(columns)] for r, i in enumerate(rows)]


def numbers(values: Iterable[Exact], number_format: NumberFormat) -> list[Number]:
    """``number`` of each value."""
    return [number(value, number_format) for value in values]


def joined(parts: Sequence[Piece | Line], between: str) -> Line:
    """``parts`` one after another with ``between`` between them, as one line."""
    pieces: list[Piece] = []
    for k, part in enumerate(parts):
        if k:
            pieces.append(between)
        pieces += part.pieces if isinstance(part, Line) else (part,)
    return Line(tuple(pieces))


def bracketed(values: Sequence[Piece], comma: str = ", ") -> Line:
    """A row of numbers as ``[a, b]``."""
    return joined(["[", joined(values, comma), "]"], "")


def padded(part: Piece | Line, width: int, right: bool = False) -> Line:
    """``part`` padded with spaces to ``width`` characters (on the left when ``right``)."""
    pad = " " * max(0, width - len(str(part)))
    return joined([pad, part] if right else [part, pad], "")


def _stripped(line: Line) -> Line:
    """``line`` without its trailing spaces (the padding of its last block)."""
    pieces = list(line.pieces)
    while pieces and isinstance(pieces[-1], str) and not pieces[-1].strip():
        pieces.pop()
    if pieces and isinstance(pieces[-1], str):
        pieces[-1] = pieces[-1].rstrip()
    return Line(tuple(pieces))


def matrix_rows(cells: Sequence[Sequence[Piece]], rows: Sequence[int], columns: Sequence[int],
                indent: str = "    ") -> list[Line]:
    """``matrix_lines`` as lines of pieces: a cell that is a number stays one."""
    widths = [max(len(str(row[c])) for row in cells) for c in range(len(columns))]
    lines = []
    for r, row in enumerate(cells):
        parts: list[Piece | Line] = []
        for c, cell in enumerate(row):
            if c > 0 and columns[c] != columns[c - 1] + 1:
                parts.append("...")
            parts.append(padded(cell, widths[c], right=True))
        if r > 0 and rows[r] != rows[r - 1] + 1:
            lines.append(Line((f"{indent}  ...",)))
        lines.append(joined([f"{indent}[ ", joined(parts, "  "), " ]"], ""))
    return lines


def text_lines(blocks: Iterable[Block]) -> list[str]:
    """The blocks' lines as the text report prints them."""
    out: list[str] = []
    for block in blocks:
        out += block.lines() if isinstance(block, (Table, Matrices)) else [str(block)]
    return out


def text(blocks: Iterable[Block]) -> str:
    """The text report of ``blocks``: their lines, each ended by a newline."""
    return "\n".join(text_lines(blocks)) + "\n"
