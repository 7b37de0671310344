"""The layout around printed numbers: tables read by their headings, and lines that
continue the expression above them.

A Markdown table whose column headings name quantities (``| key | score | weight |``)
is read column by column, each column a vector named by its heading; other tables stay
row by row. A vector alone after the ``=`` or ``≈`` that opens a line continues the
expression above it and takes the name that expression starts with::

    out_1 = 0.731 × v_1 + 0.269 × v_2
          ≈ [1.462, 1.076]                 <- out_1

>>> from symattn.extract.document import from_text
>>> from symattn.extract.scanner import scan
>>> page = from_text("| key | score | weight |\\n|---|---|---|\\n"
...                  "| k1 | 1 | 0.7 |\\n| k2 | 0 | 0.3 |\\n")
>>> [(g.names, [n.text for n in g.numbers]) for g in table_columns(page.text, scan(page).groups)]
[(('scores',), ['1', '0']), (('weights',), ['0.7', '0.3'])]
"""

from __future__ import annotations

__all__ = ["table_columns", "continued"]

import dataclasses
import re

from symattn.extract.place import heading_step
from symattn.extract.scanner import CONTINUES_ABOVE, ENDS_EXPRESSION, Group, Number

_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")


def table_columns(text: str, groups: list[Group]) -> list[Group]:
    """Markdown tables whose column headings name quantities (``| token | score | weight |``)
    are read column by column: each column of numbers is a vector named by its heading.
    Other tables stay row by row (a matrix printed as a table)."""
    result: list[Group] = []
    run: list[Group] = []

    def flush() -> None:
        result.extend(_columns_of(text, run) or run)
        run.clear()

    for group in groups:
        row = text[group.start:group.end].lstrip().startswith("|")
        if row and (not run or text.count("\n", run[-1].end, group.numbers[0].start) <= 1):
            run.append(group)
            continue
        flush()
        (run if row else result).append(group)
    flush()
    return sorted(result, key=lambda g: g.start)


def _cells(text: str, start: int) -> list[tuple[int, int]]:
    """The (start, end) offsets of the cells of the table line starting at ``start``."""
    end = text.find("\n", start)
    line = text[start:end if end >= 0 else len(text)]
    bars = [start + i for i, c in enumerate(line) if c == "|"]
    return list(zip(bars, bars[1:]))


def _columns_of(text: str, rows: list[Group]) -> list[Group]:
    """The columns of one table by heading, or [] when no heading names a quantity."""
    if not rows:
        return []
    first_line = text.rfind("\n", 0, rows[0].numbers[0].start) + 1
    separator_start = text.rfind("\n", 0, max(0, first_line - 1)) + 1
    if not _TABLE_SEPARATOR.match(text[separator_start:first_line - 1]):
        return []
    heading_start = text.rfind("\n", 0, max(0, separator_start - 1)) + 1
    headings = [text[a + 1:b].strip() for a, b in _cells(text, heading_start)]
    columns: dict[int, list[Number]] = {}
    for row in rows:
        cells = _cells(text, text.rfind("\n", 0, row.numbers[0].start) + 1)
        for number in row.numbers:
            index = next((k for k, (a, b) in enumerate(cells) if a < number.start < b), -1)
            columns.setdefault(index, []).append(number)
    named = {k: step for k in columns if 0 <= k < len(headings)
             if (step := heading_step(headings[k])) is not None}
    if not any(named.values()) or any(len(c) != len(rows) for c in columns.values()):
        return []
    return [Group((tuple(numbers),), numbers[0].start, numbers[-1].end,
                  (named[k],) if k in named else ()) for k, numbers in sorted(columns.items())]


_CHAIN_START = re.compile(r"^[\s$]*(?:\\text\{)?(?P<name>[A-Za-z][\w^]{0,20})\}?"
                          r"(?:\([^()=\n]{0,40}\))?\s*&?\s*[=≈]")
_OPENS_WITH_SIGN = re.compile(r"^[\s$&]*[=≈+]")     # = ..., ≈ ..., + ... (a term more)
_CHAIN_LINES = 8           # how far up a continued line looks for the name it continues


def continued(text: str, group: Group) -> Group:
    """A group alone after the ``=`` that opens a line continues the expression above:
    it is named by the name that expression starts with (``out_1 = 0.4·v_1 + ...`` then
    ``≈ [1.0, 2.0]`` on the next line is out_1)."""
    line_start = text.rfind("\n", 0, group.start) + 1
    if group.names or not CONTINUES_ABOVE.match(text[line_start:group.start]) or \
            not ENDS_EXPRESSION.match(text, group.end):
        return group
    end = line_start - 1
    for _ in range(_CHAIN_LINES):
        if end <= 0:
            break
        start = text.rfind("\n", 0, end) + 1
        line = text[start:end]
        if not line.strip():
            break
        if not _OPENS_WITH_SIGN.match(line):      # the line the expression starts on
            chain = _CHAIN_START.match(line)
            return dataclasses.replace(group, names=(chain["name"],)) if chain else group
        end = start - 1
    return group
