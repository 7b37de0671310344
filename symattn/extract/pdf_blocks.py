"""Rows of numbers on a PDF page that line up: matrices and tables, written as text.

A matrix set by TeX or a browser is its rows on lines of their own, with tall
brackets that are glyphs (or pieces) of their own; a table is rows of cells
with no brackets. Both are found the same way: runs of numbers on
consecutive lines whose columns line up, evenly spaced. Then:

- a matrix (a tall bracket just left of its first column) is written whole,
  ``[[ 1  2 ], [ 3  4 ]]``, on the line set at its vertical middle (where its
  name, ``K =``, and the rest of the equation, ``= [[...]]``, stand), so
  matrices side by side, of different heights, each come out whole, in order;
- a table is one Markdown row per line, ``| cat | 0.5 | 0.3 |``, the words
  before the numbers its first cell.

>>> row = lambda base, *words: Line(base, 10.0, [Token(w, 20.0 * k, 20.0 * k + 8)
...                                              for k, w in enumerate(words)])
>>> lines = [row(100, "", "", "1", "2"), row(106, "K", "="), row(112, "", "", "3", "4")]
>>> region_lines(lines, [Delimiter(34.0, 38.0, 106.0)])
['K = [[ 1  2 ], [ 3  4 ]]']
>>> region_lines([row(100, "cat", "0.5", "0.3"), row(112, "dog", "1.5", "0.7")], [])
['| cat | 0.5 | 0.3 |', '| dog | 1.5 | 0.7 |']
"""

from __future__ import annotations

__all__ = ["Token", "Line", "Delimiter", "region_lines"]

import re
import statistics
from dataclasses import dataclass, field

_NUMERIC = re.compile(r"^[-−]?(?:[0-9]+(?:[.,][0-9]+)?%?|∞)$")


@dataclass(frozen=True)
class Token:
    """A word of a line and its left and right edge."""

    text: str
    x0: float
    x1: float

    @property
    def centre(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def numeric(self) -> bool:
        return bool(_NUMERIC.match(self.text))


@dataclass
class Line:
    """One line of a column: its baseline, font size and words (empty words dropped)."""

    base: float
    size: float
    tokens: list[Token]
    mark: str = ""         # written before the line when it stays as it is: "## " a heading

    def __post_init__(self) -> None:
        self.tokens = [t for t in self.tokens if t.text]


@dataclass(frozen=True)
class Delimiter:
    """A tall bracket (or a piece of one): where it stands."""

    x0: float
    x1: float
    base: float
    top: float | None = None      # of its box, when known
    bottom: float | None = None


@dataclass
class _Block:
    centres: list[float]
    tolerance: float
    rows: list[tuple[int, int, int]] = field(default_factory=list)   # (line, first, end)
    spacing: float = 0.0
    bracketed: bool = False

    def fits(self, line: Line, first: int, end: int, lines: list[Line]) -> bool:
        run = line.tokens[first:end]
        if len(run) != len(self.centres) or not all(
                abs(t.centre - c) <= self.tolerance for t, c in zip(run, self.centres)):
            return False
        gap = line.base - lines[self.rows[-1][0]].base
        return 0 < gap <= (1.35 * self.spacing if self.spacing else 2.5 * line.size)

    def span(self, lines: list[Line]) -> tuple[float, float]:
        tokens = [t for r, first, end in self.rows for t in lines[r].tokens[first:end]]
        return min(t.x0 for t in tokens), max(t.x1 for t in tokens)


def _stacked(delimiters: list[Delimiter], size: float) -> list[tuple[float, float, float]]:
    """Tall delimiters as (x, top, bottom): pieces stacked at one x (TeX builds a tall
    bracket from a top, extensions and a bottom) are one; a lone glyph (a stretched
    bracket) reaches a line and a half up and down. Where the pieces' boxes are known,
    the delimiter reaches at least as far as they do (a font's pieces may stand on
    their baseline or hang below it)."""
    spans: list[list[float]] = []
    for d in sorted(delimiters, key=lambda d: (round(d.x0), d.base)):
        centre = (d.x0 + d.x1) / 2
        head = d.base if d.top is None else d.top
        foot = d.base if d.bottom is None else d.bottom
        last = spans[-1] if spans else None
        if last and abs(last[0] - centre) < 1 and d.base - last[2] <= 1.5 * size:
            last[2], last[4] = d.base, max(last[4], foot)
        else:
            spans.append([centre, d.base, d.base, head, foot])
    lone, pieces = (1.5 * size, 1.5 * size, 0.0), (size, 0.5 * size, 0.2 * size)
    return [(x, min(top - up, head - slack), max(bottom + down, foot + slack))
            for x, top, bottom, head, foot in spans
            for up, down, slack in [lone if top == bottom else pieces]]


def _runs(line: Line, delimiters: list[tuple[float, float, float]]) -> list[tuple[int, int]]:
    """(first, end) of each run of numbers in a line; a bracket between two ends a run."""
    runs: list[tuple[int, int]] = []
    first: int | None = None
    tokens = line.tokens
    for k, token in enumerate(tokens + [Token("", 0, 0)]):
        split = first is not None and k < len(tokens) and any(
            tokens[k - 1].x1 <= x <= token.x0 and top <= line.base <= bottom
            for x, top, bottom in delimiters)
        if first is not None and (not token.numeric or split):
            runs.append((first, k))
            first = None
        if token.numeric and first is None:
            first = k
    return runs


def _new_block(line: Line, r: int, first: int, end: int) -> _Block:
    centres = [t.centre for t in line.tokens[first:end]]
    spacing = min((b - a for a, b in zip(centres, centres[1:])), default=4 * line.size)
    return _Block(centres, max(line.size * 0.6, 0.45 * spacing), [(r, first, end)])


def _still_open(block: _Block, line: Line, lines: list[Line]) -> bool:
    """A block stays open past a line that does not touch its columns (a name beside it,
    the row of another matrix beside it), while the lines stay close."""
    x0, x1 = block.span(lines)
    gap = line.base - lines[block.rows[-1][0]].base
    touches = any(t.x1 > x0 and t.x0 < x1 for t in line.tokens)
    return not touches and gap <= 2.6 * max(block.spacing, line.size)


def _blocks(lines: list[Line], delimiters: list[tuple[float, float, float]]) -> list[_Block]:
    done: list[_Block] = []
    open_blocks: list[_Block] = []
    for r, line in enumerate(lines):
        extended: list[_Block] = []
        for first, end in _runs(line, delimiters):
            block = next((b for b in open_blocks if b not in extended and
                          b.fits(line, first, end, lines)), None)
            if block is None:
                extended.append(_new_block(line, r, first, end))
                continue
            if len(block.rows) == 1:
                block.spacing = line.base - lines[block.rows[0][0]].base
            block.rows.append((r, first, end))
            extended.append(block)
        still = [b for b in open_blocks if b not in extended and _still_open(b, line, lines)]
        done.extend(b for b in open_blocks if b not in extended and b not in still)
        open_blocks = extended + still
    done.extend(open_blocks)
    return [b for b in done if len(b.rows) >= 2]


def _bracketed(block: _Block, lines: list[Line], delimiters: list[Delimiter]) -> bool:
    """A tall bracket just left of the block's first column, beside its rows."""
    top, bottom = lines[block.rows[0][0]].base, lines[block.rows[-1][0]].base
    size = lines[block.rows[0][0]].size
    left = block.span(lines)[0]
    return any(left - 3 * size <= d.x1 <= left + 0.5 * size and
               top - 2 * size <= d.base <= bottom + 2 * size for d in delimiters)


def _anchor(block: _Block, lines: list[Line], tokens: list[list[Token]]) -> int:
    """The line at the block's vertical middle, where the matrix is written: the line of
    words beside it (``K =``, ``is``) when there is one near the middle."""
    middle = (lines[block.rows[0][0]].base + lines[block.rows[-1][0]].base) / 2
    near = max(block.spacing, lines[block.rows[0][0]].size)
    words = [r for r in range(len(lines)) if tokens[r] and abs(lines[r].base - middle) <= near]
    return min(words or range(len(lines)), key=lambda r: (abs(lines[r].base - middle), r))


def _matrix_text(block: _Block, lines: list[Line]) -> str:
    rows = ["  ".join(t.text for t in lines[r].tokens[first:end]) for r, first, end in block.rows]
    return "[[ " + " ], [ ".join(rows) + " ]]"


def _table_row(tokens: list[Token], first: int, end: int) -> str:
    cells = ([" ".join(t.text for t in tokens[:first])] if first else []) + \
        [t.text for t in tokens[first:end]]
    rest = " ".join(t.text for t in tokens[end:])
    return "| " + " | ".join(cells) + " |" + (" " + rest if rest else "")


def _row_vectors(line: Line, delimiters: list[tuple[float, float, float]]) -> list[Token]:
    """The line's words with each run of two numbers or more between tall brackets of
    its own (a matrix of one row: TeX's brackets are drawn, not text) written as one
    word ``[1 0 1]``, as the same row with brackets of text reads."""
    tokens = list(line.tokens)
    for first, end in reversed(_runs(line, delimiters)):
        x0, x1 = tokens[first].x0, tokens[end - 1].x1
        reach = line.size

        def beside(lo: float, hi: float) -> bool:
            return any(lo <= x <= hi and top <= line.base <= bottom
                       for x, top, bottom in delimiters)
        if end - first >= 2 and beside(x0 - reach, x0) and beside(x1, x1 + reach):
            text = "[" + " ".join(t.text for t in tokens[first:end]) + "]"
            tokens[first:end] = [Token(text, x0, x1)]
    return tokens


def region_lines(lines: list[Line], delimiters: list[Delimiter]) -> list[str]:
    """The text of a column's lines, matrices written whole, tables as Markdown rows."""
    size = statistics.median(line.size for line in lines) if lines else 10.0
    stacked = _stacked(delimiters, size)
    blocks = _blocks(lines, stacked)
    in_blocks = {r for b in blocks for r, _, _ in b.rows}
    lines = [line if r in in_blocks else
             Line(line.base, line.size, _row_vectors(line, stacked), line.mark)
             for r, line in enumerate(lines)]
    matrices = [b for b in blocks if _bracketed(b, lines, delimiters)]
    tables = [b for b in blocks if b not in matrices and len(b.centres) >= 2]
    tokens = [list(line.tokens) for line in lines]
    for block in matrices:
        for r, first, end in block.rows:
            taken = set(lines[r].tokens[first:end])
            tokens[r] = [t for t in tokens[r] if t not in taken]
    for block in matrices:
        x0, x1 = block.span(lines)
        anchor = _anchor(block, lines, tokens)
        tokens[anchor] = sorted(tokens[anchor] + [Token(_matrix_text(block, lines), x0, x1)],
                                key=lambda t: t.x0)
    table_rows = {r: (first, end) for b in tables for r, first, end in b.rows}
    out = []
    for r, row in enumerate(tokens):
        if r in table_rows and row == lines[r].tokens:
            out.append(_table_row(row, *table_rows[r]))
        elif row:
            mark = lines[r].mark if row == lines[r].tokens else ""
            out.append(mark + " ".join(t.text for t in row))
    return out
