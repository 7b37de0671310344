"""The attention weights as a heatmap in inline SVG, tokens labelled.

The panels are ``render.figure.weights_panels`` (the same rows, columns and
printed weights as the matplotlib figure), drawn here as SVG text: the page
needs no image file and no plotting library. Each cell carries its weight as
text (up to ``figure.ANNOTATED`` rows and columns) and as a ``<title>``; the
whole picture has a text alternative.

>>> from symattn.render.figure import Panel
>>> svg = panel_svg(Panel("", ("a",), ("a", "<b>"), ((0.25, 0.75),), (("0.25", "0.75"),)),
...                 "Weights", "keys", "queries")
>>> svg.count("<rect"), "&lt;b&gt;" in svg
(2, True)
"""

from __future__ import annotations

__all__ = ["heatmap_html", "panel_svg", "shade"]

from symattn import messages
from symattn.derivation.steps import Derivation
from symattn.render import figure
from symattn.render.web.page import escape, words

_CELL = 44
_LIGHT = (247, 251, 255)    # weight 0 (matplotlib's "Blues" at its ends)
_DARK = (8, 48, 107)        # weight 1


def shade(value: float) -> str:
    """The fill of a cell of weight ``value`` (0 light, 1 dark blue).

    >>> shade(0.0), shade(1.0)
    ('#f7fbff', '#08306b')
    """
    t = min(max(value, 0.0), 1.0) if value == value else 0.0     # nan: as 0
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(_LIGHT, _DARK))


def _label_width(labels: tuple[str, ...]) -> int:
    return 12 + 8 * max((len(label) for label in labels), default=1)


def panel_svg(panel: figure.Panel, title: str, keys: str, queries: str) -> str:
    """One panel: a row per query, a column per key, each cell shaded by its weight."""
    annotated = len(panel.rows) <= figure.ANNOTATED and len(panel.columns) <= figure.ANNOTATED
    longest = max((len(cell) for row in panel.cells for cell in row), default=1)
    side = max(_CELL, 7 * longest + 10) if annotated else _CELL     # room for "0,00085"
    left, top = _label_width(panel.rows) + 22, _label_width(panel.columns) // 2 + 40
    width = left + side * len(panel.columns) + 10
    height = top + side * len(panel.rows) + 10
    name = f"{title}: {panel.title}" if panel.title else title
    out = [f'<svg class="heatmap" role="img" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">',
           f"<title>{escape(name)} ({escape(queries)} {len(panel.rows)} × "
           f"{escape(keys)} {len(panel.columns)})</title>",
           f'<text x="{left}" y="16" font-size="14" font-weight="bold">{escape(name)}</text>',
           f'<text x="{left}" y="{height - 1}" font-size="11" fill="#57606a">'
           f"{escape(queries)} ↓ · {escape(keys)} →</text>"]
    for j, label in enumerate(panel.columns):
        x, y = left + side * j + side // 2, top - 6
        out.append(f'<text x="{x}" y="{y}" font-size="12" text-anchor="start" '
                   f'transform="rotate(-45 {x} {y})">{escape(label)}</text>')
    for i, label in enumerate(panel.rows):
        y = top + side * i + side // 2 + 4
        out.append(f'<text x="{left - 6}" y="{y}" font-size="12" text-anchor="end">'
                   f"{escape(label)}</text>")
        for j, value in enumerate(panel.values[i]):
            x, cell = left + side * j, panel.cells[i][j]
            out.append(f'<rect x="{x}" y="{top + side * i}" width="{side}" height="{side}" '
                       f'fill="{shade(value)}" stroke="#ffffff"><title>{escape(label)} → '
                       f"{escape(panel.columns[j])}: {escape(cell)}</title></rect>")
            if annotated:
                colour = "#ffffff" if value > 0.6 else "#1f2328"
                out.append(f'<text x="{x + side // 2}" y="{y}" font-size="11" '
                           f'text-anchor="middle" fill="{colour}">{escape(cell)}</text>')
    out.append("</svg>")
    return "\n".join(out)


def heatmap_html(derivation: Derivation, language: str, locale: str) -> str:
    """Every weights panel of ``derivation`` as a figure with its caption ("" if none)."""
    # symbolic weights (a temperature T left as a symbol) have no colours to draw
    panels = [panel for panel in figure.weights_panels(derivation, locale)
              if any(value == value for row in panel.values for value in row)]
    if not panels:
        return ""
    catalog = messages.load(language)
    title, keys = catalog.text("layout.figure_title"), catalog.text("layout.figure_keys")
    queries = catalog.text("layout.figure_queries")
    drawn = "\n".join(panel_svg(panel, title, keys, queries) for panel in panels)
    caption = words(catalog.text("layout.heatmap"))
    return f'<figure class="heatmap">\n{drawn}\n<figcaption>{caption}</figcaption>\n</figure>'
