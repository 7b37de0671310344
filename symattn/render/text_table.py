"""Aligned text tables that fit a width: the one layout of every text table of reports.

Columns are padded to their widest cell; the columns named in ``wrap`` are
wrapped at word boundaries when the table would be wider than ``width``, so a
reason of 300 characters becomes several lines of its cell, not one line of a
terminal's width times three.

>>> for line in aligned(["n", "word"], [["1", "one"], ["22", "twenty two"]], right=(0,)):
...     print(line)
 n  word
 1  one
22  twenty two
>>> for line in aligned(["n", "why"], [["1", "a reason of several words"]], wrap=(1,),
...                     width=16):
...     print(line)
n  why
1  a reason of
   several words
"""

from __future__ import annotations

__all__ = ["aligned", "fitted", "MIN_WRAPPED"]

import textwrap
from typing import Mapping, Sequence

GAP = "  "
MIN_WRAPPED = 12     # no wrapped column is made narrower than this


def aligned(header: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[int] = (),
            wrap: Sequence[int] | Mapping[int, int] = (), width: int | None = None,
            indent: str = "") -> list[str]:
    """The lines of a table: ``header`` then ``rows``, columns ``right`` right-aligned, the
    others left-aligned; with ``width``, the ``wrap`` columns are narrowed until the table
    fits (``_narrow``; a mapping gives each the width it is first narrowed to). Trailing
    spaces are cut."""
    table = [list(header), *(list(row) for row in rows)]
    widths = [max(len(row[c]) for row in table) for c in range(len(header))]
    if width is not None:
        _narrow(widths, wrap, width - len(indent))
    lines = []
    for row in table:
        cells = [textwrap.wrap(cell, widths[c], break_on_hyphens=False) or [""]
                 if len(cell) > widths[c] else [cell] for c, cell in enumerate(row)]
        for k in range(max(map(len, cells))):
            parts = [(part[k] if k < len(part) else "") for part in cells]
            text = GAP.join(p.rjust(widths[c]) if c in right else p.ljust(widths[c])
                            for c, p in enumerate(parts))
            lines.append((indent + text).rstrip())
    return lines


def _narrow(widths: list[int], wrap: Sequence[int] | Mapping[int, int], width: int) -> None:
    """Narrow the ``wrap`` columns of ``widths`` (in place) until the columns and their gaps
    fit ``width``: first each to its width in ``wrap`` (when a mapping), then always the
    widest, the last one (a reason) counted at half its width, none below
    ``MIN_WRAPPED``."""
    def excess() -> int:
        return sum(widths) + len(GAP) * (len(widths) - 1) - width

    if excess() <= 0:
        return
    if isinstance(wrap, Mapping):
        for column, first in wrap.items():      # 0: narrowed only after the others
            if first:
                widths[column] = min(widths[column], max(first, MIN_WRAPPED))
    columns = list(wrap)

    def share(column: int) -> float:
        return widths[column] / (2 if column == columns[-1] else 1)

    while excess() > 0:
        narrowable = [c for c in columns if widths[c] > MIN_WRAPPED]
        if not narrowable:
            return
        widths[max(narrowable, key=share)] -= 1


def fitted(lines: Sequence[str], width: int | None) -> list[str]:
    """Lines of prose wrapped to ``width`` (None: as they are), each continuation indented
    as its line is, and two spaces more.

    >>> fitted(["  inputs: q, k and v from lines 2, 3", "short"], 20)
    ['  inputs: q, k and v', '    from lines 2, 3', 'short']
    """
    if width is None:
        return list(lines)
    out = []
    for line in lines:
        indent = " " * (len(line) - len(line.lstrip(" ")))
        out += textwrap.wrap(line.lstrip(" "), width, initial_indent=indent,
                             subsequent_indent=indent + "  ", break_on_hyphens=False) or [line]
    return out
