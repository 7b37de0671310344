"""Lines of text from the glyphs of one PDF page: columns, scripts, matrices, tables.

A PDF's text layer is a set of glyphs with positions, not lines. This module
rebuilds the lines a reader sees, from geometry alone:

- glyphs of one size on one baseline form a row; a two-column page (a
  gutter no row crosses, long lines in the first column, one margin in the
  second) is read column by column;
- a row of smaller glyphs right after a glyph of another row, a little above
  or below it, joins it as super- or subscripts, written ``^{...}`` /
  ``_{...}`` (``e^{0.5}``, ``d_{k}``, ``q_{1}``) so the document normaliser
  reads them as it reads LaTeX;
- brackets and unreadable glyphs alone on their baseline are the pieces of
  tall delimiters: dropped from the text, kept as marks for
  ``symattn.extract.pdf_blocks``, which writes matrices and tables;
- a line in a bold font (not a monospaced one), with no plain words or plain
  numbers in it, is a heading: ``# `` to ``#### `` before it, by its size; bold
  words a quad before the text of their line are a heading run into it, put on a
  line of their own;
- stacked fractions (a bar drawn as a thin rule, glyphs above and below it) are
  written ``\\frac{NUM}{DEN}`` and radical signs put on their radicand's
  baseline, by ``symattn.extract.pdf_fractions``;
- a glyph that cannot be read is U+FFFD: the number holding it is then
  unreadable (``symattn.extract.document`` marks it so).

>>> g = [Glyph("x", 0, 5, 100, 10), Glyph("2", 5, 9, 97, 7), Glyph("=", 12, 18, 100, 10),
...      Glyph("1", 22, 27, 100, 10)]
>>> page_lines(g, 600.0)
['x^{2} = 1']
"""

from __future__ import annotations

__all__ = ["Glyph", "Rule", "page_lines", "UNREADABLE"]

import bisect
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from symattn.extract.pdf_blocks import Delimiter, Line, Token, region_lines
from symattn.extract.pdf_fractions import linear_math
from symattn.extract.pdf_glyphs import UNREADABLE, Glyph, Rule

_BRACKETS = frozenset("[](){}|‖⟨⟩")
# bracket pieces that TeX and others build tall delimiters from: layout, not text
_PIECES = frozenset(chr(c) for c in range(0x239B, 0x23B0))


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


def _is_delimiter(glyph: Glyph, text_size: float, isolated: bool) -> bool:
    """A tall bracket or a piece of one (layout, dropped from the text)."""
    if glyph.char in _PIECES:
        return True
    if glyph.char in _BRACKETS and max(glyph.size, glyph.height) > 1.5 * text_size:
        return True
    return isolated


def _rows(glyphs: list[Glyph]) -> list[_Row]:
    """Glyphs of one size on one baseline (within a tenth of the size), top to bottom.

    Glyphs of another size on the same baseline make a row of their own: a
    subscript can share the baseline of a matrix row printed beside it; the
    rows are joined again, by position, in ``_with_scripts``."""
    rows: list[_Row] = []
    active: list[_Row] = []
    for glyph in sorted(glyphs, key=lambda g: (g.base, g.x0)):
        active = [r for r in active if glyph.base - r.base <= 0.12 * r.size]
        row = next((r for r in active if 1 / 1.15 <= glyph.size / r.size <= 1.15 and
                    abs(glyph.base - r.base) <= 0.12 * min(glyph.size, r.size)), None)
        if row is None:
            row = _Row([glyph], glyph.base, glyph.size)
            rows.append(row)
            active.append(row)
        else:
            row.glyphs.append(glyph)
    for row in rows:
        row.glyphs.sort(key=lambda g: g.x0)
    return sorted(rows, key=lambda r: r.base)


def _isolated(glyphs: list[Glyph]) -> set[int]:
    """Brackets and unreadable glyphs with no text near them on their baseline: the
    pieces of tall delimiters. A bracket within a letter's width of text (``[ 1.4,``
    as NumPy prints it), or of a bracket that is (``[[3, 12]``), is text; so is any
    bracket in a monospaced font."""
    lone: set[int] = set()
    for row in _rows(glyphs):
        order = row.glyphs
        # a bracket in a monospaced font is code's (a print's closing "]" on its own line)
        attached = [g.char not in _BRACKETS and g.char != UNREADABLE or g.mono for g in order]
        for sweep in (range(1, len(order)), range(len(order) - 2, -1, -1)):
            for k in sweep:
                near = k - 1 if sweep.step == 1 else k + 1
                if not attached[k] and attached[near] and min(
                        abs(order[near].x0 - order[k].x1),
                        abs(order[k].x0 - order[near].x1)) < 1.0 * order[k].size:
                    attached[k] = True
        lone.update(id(g) for g, kept in zip(order, attached) if not kept)
    return lone


def _covered(rows: list[_Row], width: float, margin: float) -> list[int]:
    """For each whole x on the page, how many rows have a glyph within ``margin`` of it."""
    steps = int(width) + 2
    change = [0] * (steps + 1)
    for row in rows:
        end = -1
        for glyph in row.glyphs:     # sorted by x0: merged spans, each counted once a row
            start = max(int(glyph.x0 - margin) + 1, end + 1, 0)
            stop = min(int(glyph.x1 + margin), steps - 1)
            if start <= stop:
                change[start] += 1
                change[stop + 1] -= 1
                end = stop
    counts, running = [], 0
    for delta in change[:steps]:
        running += delta
        counts.append(running)
    return counts


def _gutter(rows: list[_Row], width: float, size: float) -> float | None:
    """The x of the gap between two columns, or None for a page of one column."""
    if len(rows) < 6:
        return None
    counts = _covered(rows, width, 0.4 * size)    # a word space is no gutter
    middle = range(int(width * 0.35), int(width * 0.65))
    if not middle:
        return None
    best = min((counts[x], x) for x in middle if x < len(counts))
    if best[0] > len(rows) // 10:
        return None
    x = float(best[1])
    widths = [max(g.x1 for g in r.glyphs if g.x1 < x) - r.x0 for r in rows
              if any(g.x1 < x for g in r.glyphs)]
    if not widths or statistics.median(widths) < 0.22 * width:
        return None      # the first column's lines are long: running text, not labels
    left = [max(g.x1 for g in r.glyphs if g.x1 < x) for r in rows
            if any(g.x1 < x for g in r.glyphs)]
    right = [min(g.x0 for g in r.glyphs if g.x0 > x) for r in rows
             if any(g.x0 > x for g in r.glyphs)]
    if len(left) < len(rows) * 0.3 or len(right) < len(rows) * 0.3:
        return None
    # columns of running text: most lines of the first reach close to the gutter (short
    # lines on a page of one column, beside a matrix, do not)
    # and the second column's lines start at one margin
    near_left = sum(1 for end in left if end > x - 0.12 * width)
    margin = statistics.median(right)
    aligned = sum(1 for start in right if abs(start - margin) <= size)
    return x if near_left >= len(left) / 2 and aligned >= 0.6 * len(right) else None


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
    """Rows of smaller glyphs joined to the row they are scripts of (or continue, on the
    same baseline)."""
    rows = sorted(rows, key=lambda r: r.base)
    bases = [r.base for r in rows]
    reach = 0.6 * max((r.size for r in rows), default=0.0)
    joined = {id(r): _script_of(r, rows[bisect.bisect_left(bases, r.base - reach):
                                         bisect.bisect_right(bases, r.base + reach)])
              for r in rows}     # only the rows near its baseline: linear in the rows
    main = [r for r in rows if joined[id(r)] is None]
    for row in rows:
        found = joined[id(row)]
        if found is None:
            continue
        host, role = found
        while joined[id(host)] is not None:     # a script of a script: the base row
            host = joined[id(host)][0]          # type: ignore[index]
        host.glyphs.extend(row.glyphs)
        host.glyphs.sort(key=lambda g: g.x0)
        if role:
            host.roles.update({id(g): role for g in row.glyphs})
    return sorted(main, key=lambda r: r.base)


def _script_of(row: _Row, rows: list[_Row]) -> tuple[_Row, str] | None:
    """The larger row this one is a super- or subscript of: its first glyph comes right
    after a glyph of that row (``x₁``, ``e^{0.5}``), raised or lowered a little; with
    no shift, smaller text going on in the line."""
    best: tuple[float, _Row, float] | None = None
    for other in rows:
        if other is row or row.size >= 0.9 * other.size:
            continue
        shift = other.base - row.base          # > 0: raised
        if not -0.45 * other.size <= shift <= 0.6 * other.size:
            continue
        gap = min((abs(row.x0 - g.x1) for g in other.glyphs if g.x0 < row.x0), default=None)
        if gap is not None and gap < 0.5 * other.size and (best is None or gap < best[0]):
            best = (gap, other, shift)
    if best is None:       # no base glyph before it: smaller words on the same baseline
        same = [o for o in rows if o is not row and o.size > row.size and
                abs(o.base - row.base) <= 0.12 * row.size]
        return (same[0], "") if same else None
    _, host, shift = best
    return host, "" if abs(shift) < 0.1 * host.size else "^" if shift > 0 else "_"


def _tokens(row: _Row) -> list[Token]:
    """The row's words: a gap wider than an eighth of the font size separates them."""
    tokens: list[Token] = []
    text: list[str] = []
    role = ""
    start = previous = None
    for glyph in row.glyphs:
        gap = glyph.x0 - previous.x1 if previous else 0.0
        if previous is not None and gap > 0.12 * max(glyph.size, previous.size):
            text.append("}" if role else "")
            tokens.append(Token("".join(text), start.x0 if start else 0.0, previous.x1))
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
        tokens.append(Token("".join(text), start.x0 if start else 0.0, previous.x1))
    return tokens


def _words(row: _Row) -> list[list[Glyph]]:
    """The row's glyphs word by word, split where ``_tokens`` splits them."""
    words: list[list[Glyph]] = []
    for glyph in row.glyphs:
        if words and glyph.x0 - words[-1][-1].x1 <= 0.12 * max(glyph.size,
                                                              words[-1][-1].size):
            words[-1].append(glyph)
        else:
            words.append([glyph])
    return words


def _heading_mark(row: _Row, body: float) -> str:
    """``# `` to ``#### `` before a line that is a heading: its words set in a bold font
    (a symbol of the math in it need not be, nor a script), its numbers too (``Final
    Output: [3, 2]`` is a bold label, not a heading), no word of plain text after it (a
    heading run into its paragraph stays text), no gap as wide as between the cells of a
    table; the level from its size against the
    body text's."""
    plain = [g for g in row.glyphs if g.char.isalnum() and id(g) not in row.roles]
    if sum(g.char.isalpha() for g in plain) < 2 or not plain[0].bold or \
            len(row.glyphs) > 120 or any(not g.bold and g.char.isdigit() for g in plain):
        return ""
    words = _words(row)
    if any(b[0].x0 - a[-1].x1 > 1.2 * row.size for a, b in zip(words, words[1:])):
        return ""        # words spaced as table cells: a table's bold heading row
    for word in words:
        light = [g for g in word if g.char.isalpha() and not g.bold and id(g) not in row.roles]
        if len(light) >= 2 and any(g.char.islower() for g in light):
            return ""
    ratio = statistics.median(g.size for g in plain) / body if body else 1.0
    level = 1 if ratio >= 1.5 else 2 if ratio >= 1.25 else 3 if ratio >= 1.1 else 4
    return "#" * level + " "


def _run_in(row: _Row) -> list[_Row]:
    """A heading run into its paragraph (LaTeX's ``\\paragraph``: bold words, a quad,
    then the text) as two rows, the heading first; any other row as it is. A bold label
    a word space from its text (``Note: ...``) stays one row."""
    glyphs = row.glyphs
    for k in range(1, len(glyphs)):
        before, after = glyphs[k - 1], glyphs[k]
        if not before.bold:
            return [row]
        if not after.bold and after.x0 - before.x1 >= 0.8 * before.size:
            head, rest = glyphs[:k], glyphs[k:]
            if sum(g.char.isalpha() for g in head) >= 2 and sum(
                    g.char.islower() and not g.bold for g in rest) >= 2:
                return [_Row(head, row.base, row.size, row.roles),
                        _Row(rest, row.base, row.size, row.roles)]
            return [row]
    return [row]


def _line_text(glyphs: list[Glyph]) -> str | None:
    """A group of glyphs (a numerator, a denominator) as one line of text, its scripts
    written as everywhere else; None when they make more than one line."""
    rows = _with_scripts(_rows(glyphs))
    if len(rows) != 1:
        return None
    return " ".join(token.text for token in _tokens(rows[0]))


def page_lines(glyphs: list[Glyph], width: float, rules: Sequence[Rule] = ()) -> list[str]:
    """The lines of one page, in reading order (see the module docstring); ``rules`` are
    the page's thin horizontal lines, where fraction bars are found."""
    glyphs = [g for g in glyphs if not g.char.isspace()]
    if not glyphs:
        return []
    glyphs = linear_math(glyphs, rules, _line_text)
    text_size = statistics.median(g.size for g in glyphs)
    lone = _isolated(glyphs)
    delimiters = [g for g in glyphs if _is_delimiter(g, text_size, id(g) in lone)]
    kept = [g for g in glyphs if not _is_delimiter(g, text_size, id(g) in lone)]
    if not kept:
        return []
    rows = _rows(kept)
    lines: list[str] = []
    marks = [Delimiter(d.x0, d.x1, d.base, d.base + d.depth - d.height, d.base + d.depth)
             for d in delimiters]
    body = statistics.median([g.size for g in kept if not g.bold] or [text_size])
    for region in _split(rows, _gutter(rows, width, text_size)):
        lines.extend(region_lines([Line(r.base, r.size, _tokens(r), _heading_mark(r, body))
                                   for row in _with_scripts(region) for r in _run_in(row)],
                                  marks))
    return lines
