"""Tables: Markdown table rows, and printed DataFrames or aligned tables under a
line of column names. Each row with two numbers or more is a ``Group`` of one
row that keeps the heading over each number, the row's label and where its
table starts (``Group.headings``, ``Group.label``, ``Group.table``), so that
placement can tell a table's columns apart.
"""

from __future__ import annotations

__all__ = ["table_rows", "frame_rows"]

import bisect
import re
from dataclasses import dataclass, field

from symattn.extract.document import Document
from symattn.extract.numbers import CELL_CONTENT, Group, Number, read_numbers

_TABLE_ROW = re.compile(r"^[ \t]*\|([^\n]*\|)[ \t]*$", re.MULTILINE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass
class _Table:
    """The Markdown table being read: its heading cells and where it starts."""

    start: int = -1
    headings: list[str] = field(default_factory=list)
    last: tuple[int, int, list[str]] = (-2, -2, [])    # the line before: start, end, cells


def _table_row(document: Document, match: re.Match[str], table: _Table) -> Group | None:
    """One Markdown table row with at least two numbers, with its headings and label."""
    cells = match.group(1).split("|")[:-1]
    numbers: list[Number] = []
    headings: list[str] = []
    labels: list[str] = []
    offset = match.start(1)
    for column, cell in enumerate(cells):
        stripped = cell.strip()
        if stripped and CELL_CONTENT.match(stripped):
            read = read_numbers(cell, offset, document, bool(re.search(r"\d,\d", cell)), True)
            numbers.extend(read)
            heading = table.headings[column] if column < len(table.headings) else ""
            headings.extend([heading] * len(read))
        elif stripped and not numbers:
            labels.append(stripped)
        offset += len(cell) + 1
    if len(numbers) < 2:
        return None
    return Group((tuple(numbers),), match.start(), match.end(), (), tuple(headings),
                 " ".join(labels), table.start if table.headings else match.start())


def table_rows(document: Document, taken: list[tuple[int, int]]) -> list[Group]:
    """Markdown table rows with at least two numbers, each a vector; a row under a
    heading line (``| a | b |`` over ``|---|---|``) keeps the heading of each number."""
    groups = []
    table = _Table()
    for match in _TABLE_ROW.finditer(document.text):
        cells = [cell.strip() for cell in match.group(1).split("|")[:-1]]
        follows = match.start() == table.last[1] + 1
        if not follows:
            table = _Table()
        if _TABLE_RULE.match(match.group(0)):
            if follows:
                table.start, table.headings = table.last[0], table.last[2]
            table.last = (match.start(), match.end(), [])
            continue
        table.last = (match.start(), match.end(), cells)
        group = _table_row(document, match, table)
        if group is not None:
            groups.append(group)
            taken.append((match.start(), match.end()))
    return groups


_LINE = re.compile(r"[^\n]+")
_TOKEN = re.compile(r"\S+")
_PRINTED_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]{1,3})?")


def _column_names(heading: re.Match[str]) -> list[re.Match[str]] | None:
    """The column names of a headings line; numbers only as pandas numbers columns
    (0, 1, 2, ...), so that two lines of numbers are never a heading and a row."""
    names = list(_TOKEN.finditer(heading.group(0)))
    numeric = [bool(_PRINTED_NUMBER.fullmatch(name.group(0))) for name in names]
    if any(numeric) and [name.group(0) for name in names] != [str(k) for k in range(len(names))]:
        return None
    return names


def _columns(line: re.Match[str], heading: re.Match[str] | None
             ) -> tuple[str, list[re.Match[str]]] | None:
    """A line of a printed DataFrame or aligned table: its label and value cells, the
    headings line above lined up with the values (right- or left-aligned)."""
    tokens = list(_TOKEN.finditer(line.group(0)))
    if heading is None or len(tokens) < 2 or \
            not all(_PRINTED_NUMBER.fullmatch(t.group(0)) for t in tokens[1:]):
        return None
    headings = _column_names(heading)
    if headings is None or len(headings) < 2 or len(tokens) - len(headings) not in (0, 1):
        return None
    values = tokens[len(tokens) - len(headings):]      # a label (an index) before them
    if len(values) == len(tokens) and not _PRINTED_NUMBER.fullmatch(tokens[0].group(0)):
        return None
    if not (all(h.end() == v.end() for h, v in zip(headings, values)) or
            all(h.start() == v.start() for h, v in zip(headings, values))):
        return None
    return (tokens[0].group(0) if len(values) < len(tokens) else ""), values


def frame_rows(document: Document, taken: list[tuple[int, int]]) -> list[Group]:
    """Rows of a printed DataFrame or an aligned table under a headings line: each row a
    vector, with the heading over each number and the row's label (index)."""
    groups: list[Group] = []
    free = sorted(taken)
    starts = [start for start, _ in free]
    previous: re.Match[str] | None = None     # the line before, a headings line perhaps
    headings: re.Match[str] | None = None     # the headings line of the table being read
    for line in _LINE.finditer(document.text):
        index = bisect.bisect_right(starts, line.end()) - 1
        if index >= 0 and free[index][1] > line.start():
            previous = headings = None        # a line with a group in it
            continue
        follows = previous is not None and previous.end() + 1 == line.start()
        if not (follows and headings is not None):
            headings = previous if follows else None
        columns = _columns(line, headings)
        if columns is None or headings is None:
            previous, headings = line, None
            continue
        label, values = columns
        numbers = [n for v in values for n in
                   read_numbers(v.group(0), line.start() + v.start(), document, False, True)]
        if len(numbers) != len(values):       # "1e1000": a cell that is not one number
            previous, headings = line, None
            continue
        names = tuple(h.group(0) for h in _TOKEN.finditer(headings.group(0)))
        groups.append(Group((tuple(numbers),), line.start(), line.end(), (), names, label,
                            headings.start()))
        if headings is previous:
            taken.append((headings.start(), headings.end()))   # column names, not numbers
        taken.append((line.start(), line.end()))
        previous = line
    return groups
