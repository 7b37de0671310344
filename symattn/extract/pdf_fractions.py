"""Stacked fractions and radicals on a PDF page, written on one line as LaTeX writes them.

TeX and browsers set ``\\frac{2.034}{5.068}`` as a numerator over a bar over a
denominator, three baselines where the text had one; ``\\sqrt{2}`` as a radical
sign raised to the top of its bar, above the ``2``. Read by baseline alone, the
numerator and denominator become lines of their own and the radical sign a
superscript. Here they are put back:

- a **radical sign** ``√`` moves to the baseline of the glyph right after it (its
  radicand), so ``√2`` reads as it was written;
- a **fraction** is a thin horizontal rule (the bar: a path of the page, not a
  glyph) with glyphs just above it and just below it, each group centred on the
  bar, inside its ends, on no longer line of text and with no gap wider than a
  word space in it (the cells of a table over a border have wider gaps). It
  becomes one glyph ``\\frac{NUM}{DEN}`` on the line the bar stands in (the
  glyphs left or right of it on the bar's math axis), which the document
  normaliser reads as it reads LaTeX: ``2.034/5.068``, ``(2.034 + 1)/5.068``.
  Fractions inside fractions are read first (the shorter bar first).

A rule with nothing above or below it (an underline, a radical's own bar, a
horizontal line between paragraphs) changes nothing.
"""

from __future__ import annotations

__all__ = ["linear_math"]

import bisect
from collections.abc import Callable, Sequence

from symattn.extract.pdf_glyphs import Glyph, Rule

_RADICAL = "√"
MAX_RULES = 2000          # bars looked at on one page: a drawing of many lines is no formula

LineText = Callable[[list[Glyph]], "str | None"]


def _radicand(sign: Glyph, glyphs: Sequence[Glyph]) -> Glyph | None:
    """The glyph a radical sign stands over: the nearest one starting at its right edge,
    on a baseline between the sign's own (at its top) and a little below its box."""
    reach = max(sign.height, sign.size)
    near = [g for g in glyphs if g is not sign and g.char != _RADICAL and
            sign.x1 - 0.5 * sign.size <= g.x0 <= sign.x1 + 0.3 * sign.size and
            sign.base - 0.3 * sign.size <= g.base <= sign.base + reach + 0.3 * sign.size]
    return min(near, key=lambda g: (abs(g.x0 - sign.x1), g.base), default=None)


class _Near:
    """The page's glyphs by baseline: those within a few font sizes of a height, found
    without looking at the rest of the page (a page of many bars stays quick)."""

    def __init__(self, glyphs: list[Glyph]) -> None:
        self.glyphs = sorted(glyphs, key=lambda g: g.base)
        self.bases = [g.base for g in self.glyphs]
        self.reach = 3 * max((g.size for g in glyphs), default=0.0)
        self.gone: set[int] = set()
        self.added: list[Glyph] = []

    def around(self, y: float) -> list[Glyph]:
        window = self.glyphs[bisect.bisect_left(self.bases, y - self.reach):
                             bisect.bisect_right(self.bases, y + self.reach)]
        return [g for g in window if id(g) not in self.gone] + \
            [g for g in self.added if id(g) not in self.gone and abs(g.base - y) <= self.reach]

    def replace(self, old: list[Glyph], new: Glyph) -> None:
        self.gone.update(id(g) for g in old)
        self.added.append(new)

    def all(self) -> list[Glyph]:
        return [g for g in self.glyphs + self.added if id(g) not in self.gone]


def _radicals(glyphs: list[Glyph], rules: list[Rule]) -> tuple[list[Glyph], list[Rule]]:
    """Radical signs on their radicand's baseline, and the rules that are not the bars
    of radicals (a radical's bar starts at the sign's right edge, at its top)."""
    near = _Near(glyphs)
    by_start = sorted(rules, key=lambda r: r.x0)
    starts = [r.x0 for r in by_start]
    out: list[Glyph] = []
    bars: set[int] = set()
    for glyph in glyphs:
        if glyph.char != _RADICAL:
            out.append(glyph)
            continue
        slack = 0.3 * glyph.size
        bars.update(id(rule) for rule in by_start[bisect.bisect_left(starts, glyph.x1 - slack):
                                                  bisect.bisect_right(starts, glyph.x1 + slack)]
                    if abs(rule.y - glyph.base) <= 0.6 * glyph.size)
        radicand = _radicand(glyph, near.around(glyph.base))
        out.append(glyph if radicand is None else
                   Glyph(glyph.char, glyph.x0, glyph.x1, radicand.base, radicand.size,
                         glyph.height))
    return out, [rule for rule in rules if id(rule) not in bars]


def _inside(glyph: Glyph, rule: Rule) -> bool:
    slack = 0.2 * glyph.size
    return glyph.x0 >= rule.x0 - slack and glyph.x1 <= rule.x1 + slack


def _on_a_longer_line(glyph: Glyph, rule: Rule, glyphs: Sequence[Glyph]) -> bool:
    """A glyph on the same baseline just outside the bar's ends, a word space away or
    less: the glyph is part of a line of text that runs past the bar (the line above a
    bar, or below it); the numerators of a matrix's next column stand further off."""
    return any(abs(g.base - glyph.base) <= 0.15 * glyph.size and not _inside(g, rule) and
               (rule.x0 - 0.6 * g.size <= g.x1 <= rule.x0 or
                rule.x1 <= g.x0 <= rule.x1 + 0.6 * g.size) for g in glyphs)


def _side(rule: Rule, glyphs: Sequence[Glyph], above: bool) -> list[Glyph] | None:
    """The glyphs just above (or below) a bar, but for lines of text running past it; None
    when they are no numerator (denominator): nothing there, off the bar's centre, or
    words spaced as table cells."""
    if above:
        band = [g for g in glyphs if _inside(g, rule) and 0 < rule.y - g.base <= 1.1 * g.size]
    else:
        band = [g for g in glyphs if _inside(g, rule) and
                0.3 * g.size < g.base - rule.y <= 1.6 * g.size]
    band = [g for g in band if not _on_a_longer_line(g, rule, glyphs)]
    if band:
        # one line of glyphs, the one next to the bar (under a matrix's fraction stands
        # the next row's), and its scripts: higher (e^{x}) or lower (d_{k}), smaller
        core = max(g.size for g in band)
        main = [g for g in band if g.size >= 0.9 * core]
        near = max(g.base for g in main) if above else min(g.base for g in main)
        band = [g for g in main if abs(g.base - near) <= 0.15 * core] + [
            g for g in glyphs if g.size < 0.9 * core and _inside(g, rule) and
            near - 0.8 * core <= g.base <= near + 0.6 * core and
            (g.base < rule.y if above else g.base > rule.y)]
    if not band:
        return None
    ordered = sorted(band, key=lambda g: g.x0)
    reach = ordered[0].x1
    for glyph in ordered[1:]:
        if glyph.x0 - reach > 0.9 * glyph.size:
            return None
        reach = max(reach, glyph.x1)
    centre = (ordered[0].x0 + reach) / 2
    if abs(centre - (rule.x0 + rule.x1) / 2) > 0.15 * (rule.x1 - rule.x0) + 1.0:
        return None
    return band


def _axis_glyph(rule: Rule, glyphs: Sequence[Glyph], taken: set[int]) -> Glyph | None:
    """A glyph of the line the fraction stands in: left or right of the bar, its
    baseline a little below the bar (the bar is on the math axis)."""
    near = [g for g in glyphs if id(g) not in taken and
            0 <= g.base - rule.y <= 0.6 * g.size and
            (rule.x0 - 3 * g.size <= g.x1 <= rule.x0 + 0.2 * g.size or
             rule.x1 - 0.2 * g.size <= g.x0 <= rule.x1 + 3 * g.size)]
    return min(near, key=lambda g: min(abs(g.x1 - rule.x0), abs(g.x0 - rule.x1)), default=None)


def _fraction(rule: Rule, glyphs: list[Glyph], line_text: LineText
              ) -> tuple[list[Glyph], Glyph] | None:
    """The glyphs of this bar's fraction and the one glyph that writes it, or None."""
    numerator = _side(rule, glyphs, above=True)
    denominator = _side(rule, glyphs, above=False)
    if numerator is None or denominator is None:
        return None
    top, bottom = line_text(numerator), line_text(denominator)
    if top is None or bottom is None:
        return None
    taken = {id(g) for g in numerator + denominator}
    size = max(g.size for g in numerator + denominator)
    beside = _axis_glyph(rule, glyphs, taken)
    base, size = (beside.base, beside.size) if beside else (rule.y + 0.25 * size, size)
    written = Glyph(f"\\frac{{{top}}}{{{bottom}}}", rule.x0, rule.x1, base, size, size)
    return numerator + denominator, written


def linear_math(glyphs: list[Glyph], rules: Sequence[Rule], line_text: LineText
                ) -> list[Glyph]:
    """The glyphs with radicals on their radicands' baselines and each stacked fraction one
    glyph ``\\frac{NUM}{DEN}`` (see the module docstring). ``line_text`` writes a group
    of glyphs as one line of text, or None when they are not one line."""
    if not rules and not any(g.char == _RADICAL for g in glyphs):
        return glyphs
    glyphs, bars = _radicals(glyphs, list(rules)[:MAX_RULES])
    page = _Near(glyphs)
    for rule in sorted(bars, key=lambda r: (r.x1 - r.x0, r.y)):
        near = page.around(rule.y)
        done = _fraction(rule, near, line_text) if near else None
        if done is not None:
            page.replace(*done)
    return page.all()
