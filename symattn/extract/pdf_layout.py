"""Lines of text from the glyphs of one PDF page: columns, scripts, matrices, tables.

A PDF's text layer is a set of glyphs with positions, not lines. This module
rebuilds the lines a reader sees, from geometry alone:

- glyphs on one baseline form a row; a two-column page (a gutter no row
  crosses, with text on both sides) is read column by column;
- a row of smaller glyphs just above or below a row joins it as super- or
  subscripts, written ``^{...}`` / ``_{...}`` (``e^{0.5}``, ``d_{k}``, ``q_{1}``)
  so the document normaliser reads them as it reads LaTeX;
- rows of numbers whose columns line up (a matrix set by TeX, whose
  brackets are glyphs of their own spanning the rows, or a table) are written
  one row per line as the scanner reads them: ``[[ 1 2 ]`` / `` [ 3 4 ]]`` for
  a matrix, ``| 1 | 2 |`` for a table; a name written beside the matrix
  (``K =``, vertically centred, maybe on a row of its own) is put before it;
- a glyph that cannot be read becomes U+FFFD: the number holding it is then
  unreadable (``symattn.extract.pdf_text`` marks it so).

>>> g = [Glyph("x", 0, 5, 100, 10), Glyph("2", 5, 9, 97, 7), Glyph("=", 12, 18, 100, 10),
...      Glyph("1", 22, 27, 100, 10)]
>>> page_lines(g, 600.0)
['x^{2} = 1']
"""

from __future__ import annotations

__all__ = ["Glyph", "page_lines", "UNREADABLE"]

import re
import statistics
from dataclasses import dataclass, field

UNREADABLE = "\ufffd"
_NUMERIC = re.compile(r"^[-−]?(?:[0-9]+(?:[.,][0-9]+)?%?|∞)$")
_BRACKETS = frozenset("[](){}|‖⟨⟩")
# bracket pieces that TeX and others build tall delimiters from: layout, not text
_PIECES = frozenset(chr(c) for c in range(0x239B, 0x23B0))


@dataclass(frozen=True)
class Glyph:
    """One glyph: its text, left and right edge, baseline (down the page) and font size."""

    char: str
    x0: float
    x1: float
    base: float
    size: float


@dataclass
class _Row:
    glyphs: list[Glyph]
    base: float
    size: float
    roles: dict[int, str] = field(default_factory=dict)   # id(glyph) -> "^" or "_"

    @property
    def x0(self) -> float:
        return min(g.x0 for g in self.glyphs)

    @property
    def x1(self) -> float:
        return max(g.x1 for g in self.glyphs)


@dataclass
class _Token:
    text: str
    x0: float
    x1: float

    @property
    def centre(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def numeric(self) -> bool:
        return bool(_NUMERIC.match(self.text))


def _is_delimiter(glyph: Glyph, text_size: float, isolated: bool) -> bool:
    """A tall bracket or a piece of one (layout, dropped from the text)."""
    if glyph.char in _PIECES:
        return True
    if glyph.char in _BRACKETS and glyph.size > 1.4 * text_size:
        return True
    return glyph.char == UNREADABLE and isolated


def _rows(glyphs: list[Glyph]) -> list[_Row]:
    """Glyphs on one baseline (within a tenth of the smaller size), top to bottom."""
    rows: list[_Row] = []
    for glyph in sorted(glyphs, key=lambda g: (g.base, g.x0)):
        if rows and abs(glyph.base - rows[-1].base) <= 0.12 * min(glyph.size, rows[-1].size):
            rows[-1].glyphs.append(glyph)
            rows[-1].size = max(rows[-1].size, glyph.size)
        else:
            rows.append(_Row([glyph], glyph.base, glyph.size))
    for row in rows:
        row.glyphs.sort(key=lambda g: g.x0)
    return rows


def _isolated(glyphs: list[Glyph]) -> set[int]:
    """Unreadable glyphs with no other glyph near them on their baseline."""
    lone = set()
    for row in _rows(glyphs):
        for k, glyph in enumerate(row.glyphs):
            if glyph.char != UNREADABLE:
                continue
            near = [g for g in row.glyphs[max(0, k - 1):k + 2] if g is not glyph and
                    min(abs(g.x0 - glyph.x1), abs(glyph.x0 - g.x1)) < 0.4 * glyph.size]
            if not near:
                lone.add(id(glyph))
    return lone


def _gutter(rows: list[_Row], width: float, size: float) -> float | None:
    """The x of the gap between two columns, or None for a page of one column."""
    if len(rows) < 6:
        return None
    best: tuple[int, float] | None = None
    for step in range(int(width * 0.35), int(width * 0.65)):
        x = float(step)
        crossing = sum(1 for r in rows if any(g.x0 - size * 0.5 < x < g.x1 + size * 0.5
                                              for g in r.glyphs))
        if best is None or crossing < best[0]:
            best = (crossing, x)
    if best is None or best[0] > len(rows) // 10:
        return None
    x = best[1]
    left = sum(1 for r in rows if r.x0 < x)
    right = sum(1 for r in rows if r.x1 > x)
    return x if left >= len(rows) * 0.3 and right >= len(rows) * 0.3 else None


def _split(rows: list[_Row], gutter: float | None) -> list[list[_Row]]:
    """Regions read in order: rows crossing the gutter alone, else left then right."""
    if gutter is None:
        return [rows]
    regions: list[list[_Row]] = []
    left: list[_Row] = []
    right: list[_Row] = []
    for row in rows:
        if any(g.x0 < gutter < g.x1 for g in row.glyphs):
            regions.extend(r for r in (left, right, [row]) if r)
            left, right = [], []
            continue
        sides = ([g for g in row.glyphs if g.x1 <= gutter], [g for g in row.glyphs
                                                             if g.x1 > gutter])
        for side, bucket in zip(sides, (left, right)):
            if side:
                bucket.append(_Row(side, row.base, max(g.size for g in side)))
    regions.extend(r for r in (left, right) if r)
    return regions


def _with_scripts(rows: list[_Row]) -> list[_Row]:
    """Rows of smaller glyphs joined to the row they are scripts of."""
    main = [r for r in rows if not _script_of(r, rows)]
    for row in rows:
        if row in main:
            continue
        host = _script_of(row, main)
        if host is None:
            main.append(row)
            continue
        role = "^" if row.base < host.base else "_"
        host.glyphs.extend(row.glyphs)
        host.glyphs.sort(key=lambda g: g.x0)
        host.roles.update({id(g): role for g in row.glyphs})
    return sorted(main, key=lambda r: r.base)


def _script_of(row: _Row, rows: list[_Row]) -> _Row | None:
    """The larger row this one is a super- or subscript of, if any."""
    for other in rows:
        if other is row or row.size >= 0.9 * other.size:
            continue
        shift = other.base - row.base          # > 0: raised
        if not -0.45 * other.size <= shift <= 0.6 * other.size or abs(shift) < 0.05:
            continue
        if row.x0 >= other.x0 - other.size and row.x1 <= other.x1 + 3 * other.size:
            return other
    return None


def _tokens(row: _Row) -> list[_Token]:
    """The row's words: a gap wider than a fifth of the font size separates them."""
    tokens: list[_Token] = []
    text: list[str] = []
    role = ""
    start = previous = None
    for glyph in row.glyphs:
        gap = glyph.x0 - previous.x1 if previous else 0.0
        if previous is not None and gap > 0.2 * max(glyph.size, previous.size):
            text.append("}" if role else "")
            tokens.append(_Token("".join(text), start.x0 if start else 0.0, previous.x1))
            text, role, start = [], "", None
        now = row.roles.get(id(glyph), "")
        if now != role:
            text.append(("}" if role else "") + (now + "{" if now else ""))
            role = now
        text.append(glyph.char)
        start = start or glyph
        previous = glyph
    if previous is not None:
        text.append("}" if role else "")
        tokens.append(_Token("".join(text), start.x0 if start else 0.0, previous.x1))
    return tokens


@dataclass
class _Block:
    """Rows of numbers whose columns line up: a matrix or a table."""

    centres: list[float]
    tolerance: float
    rows: list[tuple[int, int, int]] = field(default_factory=list)   # (row, first, end)
    names: list[int] = field(default_factory=list)                   # rows of a name
    bracketed: bool = False

    def fits(self, tokens: list[_Token], first: int, end: int) -> bool:
        run = tokens[first:end]
        return len(run) == len(self.centres) and all(
            abs(t.centre - c) <= self.tolerance for t, c in zip(run, self.centres))


def _runs(tokens: list[_Token]) -> list[tuple[int, int]]:
    """(first, end) of each run of numeric tokens in a row."""
    runs, first = [], None
    for k, token in enumerate(tokens + [_Token("", 0, 0)]):
        if token.numeric and first is None:
            first = k
        elif not token.numeric and first is not None:
            runs.append((first, k))
            first = None
    return runs


def _new_block(tokens: list[_Token], first: int, end: int, size: float) -> _Block:
    centres = [t.centre for t in tokens[first:end]]
    spacing = min((b - a for a, b in zip(centres, centres[1:])), default=4 * size)
    return _Block(centres, max(size * 0.6, 0.45 * spacing))


def _blocks(rows: list[list[_Token]], sizes: list[float]) -> list[_Block]:
    """Blocks of two or more aligned rows of numbers, with the name rows between them."""
    done: list[_Block] = []
    open_blocks: list[_Block] = []
    for r, tokens in enumerate(rows):
        runs = _runs(tokens)
        if not runs and open_blocks and tokens and all(
                tokens[-1].x1 < b.centres[0] for b in open_blocks):
            for block in open_blocks:
                block.names.append(r)     # "K =" set between the rows of a matrix
            continue
        kept: list[_Block] = []
        for first, end in runs:
            fitting = next((b for b in open_blocks if b.fits(tokens, first, end)), None)
            if fitting in kept:
                continue
            block = fitting or _new_block(tokens, first, end, sizes[r])
            block.rows.append((r, first, end))
            kept.append(block)
        done.extend(b for b in open_blocks if b not in kept)
        open_blocks = kept
    done.extend(open_blocks)
    return [b for b in done if len(b.rows) >= 2 and (len(b.centres) >= 2 or b.bracketed)]


def _mark_brackets(blocks: list[_Block], delimiters: list[Glyph], rows: list[_Row],
                   tokens: list[list[_Token]]) -> None:
    """A block with a tall bracket just left of its first column is a matrix."""
    for block in blocks:
        top, bottom = rows[block.rows[0][0]].base, rows[block.rows[-1][0]].base
        size = rows[block.rows[0][0]].size
        left = min(tokens[r][first].x0 for r, first, _ in block.rows)
        block.bracketed = any(
            left - 3 * size <= d.x1 <= left + 0.5 * size and
            d.base >= top - 2 * size and d.base - d.size <= bottom + size for d in delimiters)


def _render(tokens: list[_Token], spans: dict[int, tuple[int, str, str]], kept: set[int]
            ) -> str:
    """A row's text: tokens joined by spaces, a block's run between its brackets."""
    out: list[str] = []
    k = 0
    while k < len(tokens):
        if k not in kept:
            k += 1
            continue
        if k in spans:
            end, opening, closing = spans[k]
            out.append(opening + "  ".join(t.text for t in tokens[k:end]) + closing)
            k = end
            continue
        out.append(tokens[k].text)
        k += 1
    return " ".join(out)


def _table_row(tokens: list[_Token], first: int, end: int) -> str:
    """A row of a table as a Markdown row: the words before the numbers are its first cell."""
    cells = ([" ".join(t.text for t in tokens[:first])] if first else []) + \
        [t.text for t in tokens[first:end]]
    rest = " ".join(t.text for t in tokens[end:])
    return "| " + " | ".join(cells) + " |" + (" " + rest if rest else "")


def _side_text(block: _Block, tokens: list[list[_Token]], starts: dict[int, list[int]]
               ) -> tuple[list[str], set[tuple[int, int]]]:
    """The words set beside a matrix's later rows (``V =`` on the middle row, a name on a
    row of its own): they belong before the matrix."""
    words: list[str] = []
    moved: set[tuple[int, int]] = set()
    for r in sorted(block.names + [r for r, _, _ in block.rows[1:]]):
        first = next((f for row, f, _ in block.rows if row == r), len(tokens[r]))
        begin = max((e for e in starts.get(r, []) if e <= first), default=0)
        for k in range(begin, first):
            words.append(tokens[r][k].text)
            moved.add((r, k))
    return words, moved


def _region_lines(rows: list[_Row], delimiters: list[Glyph]) -> list[str]:
    tokens = [_tokens(row) for row in rows]
    blocks = _blocks(tokens, [row.size for row in rows])
    _mark_brackets(blocks, delimiters, rows, tokens)
    blocks = [b for b in blocks if len(b.centres) >= 2 or b.bracketed]
    spans: dict[int, dict[int, tuple[int, str, str]]] = {}
    tables: dict[int, tuple[int, int]] = {}
    ends: dict[int, list[int]] = {}
    for block in blocks:
        for r, _, end in block.rows:
            ends.setdefault(r, []).append(end)
    moved: set[tuple[int, int]] = set()
    for block in blocks:
        last = len(block.rows) - 1
        if not block.bracketed:
            for r, first, end in block.rows:
                tables.setdefault(r, (first, end))
            continue
        words, taken = _side_text(block, tokens, ends)
        moved |= taken
        for k, (r, first, end) in enumerate(block.rows):
            opening = " ".join(words + ["[[ "]) if k == 0 else " [ "
            spans.setdefault(r, {})[first] = (end, opening, " ]]" if k == last else " ]")
    lines = []
    for r, row_tokens in enumerate(tokens):
        if r in tables and r not in spans:
            lines.append(_table_row(row_tokens, *tables[r]))
            continue
        kept = {k: t for k, t in enumerate(row_tokens) if (r, k) not in moved}
        if kept:
            lines.append(_render(row_tokens, spans.get(r, {}), set(kept)))
    return lines


def page_lines(glyphs: list[Glyph], width: float) -> list[str]:
    """The lines of one page, in reading order (see the module docstring)."""
    glyphs = [g for g in glyphs if not g.char.isspace()]
    if not glyphs:
        return []
    text_size = statistics.median(g.size for g in glyphs)
    lone = _isolated(glyphs)
    delimiters = [g for g in glyphs if _is_delimiter(g, text_size, id(g) in lone)]
    kept = [g for g in glyphs if not _is_delimiter(g, text_size, id(g) in lone)]
    if not kept:
        return []
    rows = _rows(kept)
    lines: list[str] = []
    for region in _split(rows, _gutter(rows, width, text_size)):
        lines.extend(_region_lines(_with_scripts(region), delimiters))
    return lines
