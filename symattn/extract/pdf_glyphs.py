"""What a PDF page shows, as the layout reads it: glyphs and horizontal rules.

``symattn.extract.pdf_text`` reads them from the page; ``symattn.extract.pdf_layout``
and ``symattn.extract.pdf_fractions`` rebuild lines from them.
"""

from __future__ import annotations

__all__ = ["Glyph", "Rule", "UNREADABLE"]

from dataclasses import dataclass

UNREADABLE = "\ufffd"


@dataclass(frozen=True)
class Glyph:
    """One glyph: its text, left and right edge, baseline (down the page) and font size."""

    char: str
    x0: float
    x1: float
    base: float
    size: float
    height: float = 0.0        # of its box: a bracket drawn tall has a tall box
    bold: bool = False         # set in a bold font (headings are)
    mono: bool = False         # set in a monospaced font (code, prints of NumPy)
    depth: float = 0.0         # how far its box reaches below the baseline (a piece of a
    #                            TeX bracket can hang below it)


@dataclass(frozen=True)
class Rule:
    """A thin horizontal line drawn on the page (a fraction bar, a radical's bar, an
    underline, a table's border): its left and right edge and its height down the page."""

    x0: float
    x1: float
    y: float
