"""The numbers of a document and their structure: vectors, matrices, names, equations.

A ``Number`` is one printed number with its place in the document. A
``Group`` is a vector or matrix printed in brackets (``[0.1, 0.2]``,
``[ 0.9  0.8 ]``, ``array([[...]])``, ``tensor([[...]])``, a LaTeX
``bmatrix``/``pmatrix`` or a Markdown table row), with the names written
before it (``q₃ = [...]``, ``Q = E W_Q = K = ... = [[...]]``). Every other
number is a single number of its line; its role in the equation it stands in
(``e^0.485 = 1.624``, ``0.97 / 2 = 0.485``, a sum written out term by term)
is read by ``symattn.extract.place``.

>>> from symattn.extract.document import from_text
>>> found = scan(from_text("q₃ = [ 0,9; 0,8 ]\\ne^0.485 = 1.624 (31 %)"))
>>> [(g.names, [n.text for n in g.numbers]) for g in found.groups]
[(('q_3',), ['0,9', '0,8'])]
>>> [(n.text, n.line, n.percent) for n in found.singles]
[('0.485', 2, False), ('1.624', 2, False), ('31 %', 2, True)]
"""

from __future__ import annotations

__all__ = ["Number", "Group", "Scanned", "scan", "expression_above", "MAX_NUMBERS"]

import bisect
import dataclasses
import math
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction

from symattn.extract.document import Document

MAX_NUMBERS = 20_000       # numbers placed from one document; the rest are counted, not placed
_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>-\s?)?(?:(?P<inf>∞)|(?P<body>[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?"
    r"(?![0-9])|[0-9]+(?:[.,][0-9]+)?(?:[eE][+-]?[0-9]{1,3})?))(?![\w])(?P<percent>\s?%)?")
# Brackets are paired in one pass (linear in the text, whatever its nesting): a
# bracket with no bracket inside is a row; one holding only rows, with at most
# spaces and a comma or semicolon between them, is a matrix.
_BRACKET = re.compile(r"[\[\]]")
MAX_ROW_CHARACTERS = 1500  # a longer bracket is not read as a row
MAX_ROWS = 200             # a matrix with more rows is read row by row
_ROW_SEPARATOR = re.compile(r"\s*[,;]?\s*")
_ELISION = re.compile(r"\.\.\.|…")
_CELL_CONTENT = re.compile(r"^[\s\d.,;%≈~∞+\-eE]*$")
_TABLE_ROW = re.compile(r"^[ \t]*\|([^\n]*\|)[ \t]*$", re.MULTILINE)
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_NAME = re.compile(r"^\s*(?:(?:np|torch|numpy)\.)?(?P<name>[A-Za-z][\w^]*?)(?:\[\w+\])?\s*"
                   r"(?:\([^()=]{0,40}\))?\s*$")
_CONTINUATION = re.compile(r"^\s*[=≈→]\s*$")
_CALL = re.compile(r"(?:(?:np|torch|numpy)\.)?(?:array|tensor|matrix)\(\s*$")


@dataclass(frozen=True)
class Number:
    """One printed number; ``value`` is None for minus infinity."""

    text: str
    value: Fraction | None
    places: int
    percent: bool
    approximate: bool
    start: int                # in the normalized text
    end: int
    line: int                 # 1-based, in the original document
    column: int

    @property
    def printed(self) -> str:
        """The number as a claim writes it: as printed, ``-inf`` for minus infinity."""
        if self.value is None:
            return "-inf"
        return ("~" if self.approximate else "") + self.text

    @property
    def magnitude(self) -> Fraction | None:
        """The value as a plain number (a percentage divided by 100)."""
        if self.value is None:
            return None
        return self.value / 100 if self.percent else self.value

    @property
    def approximately(self) -> float:
        """The magnitude as a float (-inf for minus infinity), computed once."""
        cached = self.__dict__.get("_float")
        if cached is None:
            magnitude = self.magnitude
            cached = -math.inf if magnitude is None else float(magnitude)
            object.__setattr__(self, "_float", cached)
        return float(cached)


@dataclass(frozen=True)
class Group:
    """A vector (one row) or matrix printed in brackets, with the names written before it."""

    rows: tuple[tuple[Number, ...], ...]
    start: int
    end: int
    names: tuple[str, ...]
    # A table row: the column headings over its numbers (one per number, "" where
    # there is none), the label written before them in the row, and where the
    # table starts (the same for every row of one table; -1 outside tables).
    headings: tuple[str, ...] = ()
    label: str = ""
    table: int = -1
    # A group on a continuation line ("= [...]" under "Q = X W_Q"): the text of the
    # line above (normalized), which says what the group is; "" otherwise.
    above: str = ""

    @property
    def numbers(self) -> list[Number]:
        return [n for row in self.rows for n in row]

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.rows[0])

    @property
    def line(self) -> int:
        return self.rows[0][0].line


@dataclass
class Scanned:
    """What ``scan`` found, in document order."""

    groups: list[Group] = field(default_factory=list)
    singles: list[Number] = field(default_factory=list)
    skipped: int = 0          # numbers past MAX_NUMBERS


def _number(match: re.Match[str], decimal_comma: bool, document: Document,
            offset: int) -> Number:
    sign = "-" if (match["sign"] or "").strip() == "-" else ""
    percent = bool(match["percent"])
    start = offset + match.start()
    before = document.text[max(0, start - 3):start]
    approximate = "≈" in before or "~" in before
    line, column = document.where(start)
    if match["inf"]:
        return Number(sign + "∞", None, 0, False, approximate, start, offset + match.end(),
                      line, column)
    body = match["body"]
    grouped = body.count(",") > 1 or "," in body and "." in body   # 2,980.96 and 1,000,000
    digits = body.replace(",", "") if grouped else \
        body.replace(",", ".") if decimal_comma else body
    if "," in digits:     # a comma where commas separate numbers: the first part only
        digits = digits.split(",")[0]
    mantissa, _, exponent = digits.lower().partition("e")
    places = len(mantissa.split(".")[1]) if "." in mantissa else 0
    places = max(0, places - int(exponent or 0))
    text = sign + body + (match["percent"] or "")
    return Number(text, Fraction(sign + digits), places, percent, approximate, start,
                  offset + match.end(), line, column)


def _numbers(text: str, offset: int, document: Document, decimal_comma: bool,
             in_row: bool = False) -> list[Number]:
    """The numbers of a text; outside a row, a minus right after a number is the
    operator between two terms (``0.9 - 0.1``), inside one it is a sign (``[0.1 -0.2]``)."""
    found = []
    for match in _NUMBER.finditer(text):
        before = text[max(0, match.start() - 4):match.start()]
        if match["sign"] and not in_row and re.search(r"[\d)\]]\s*$", before):
            match = _NUMBER.match(text, match.start("inf") if match["inf"] else
                                  match.start("body")) or match   # a minus between two terms
        found.append(_number(match, decimal_comma, document, offset))
    return found


def _comma_is_decimal(body: str) -> bool:
    """In a bracket: commas are decimal commas when something else separates the numbers."""
    if not re.search(r"\d,\d", body):
        return False
    return ";" in body or bool(re.search(r",\s", body))


def _row(body: str, offset: int, document: Document) -> tuple[Number, ...] | None:
    if not _CELL_CONTENT.match(body) or not re.search(r"\d|∞", body) or _ELISION.search(body):
        return None        # words, or a row NumPy shortened with "...": not read
    if _comma_is_decimal(body):
        return tuple(_numbers(body, offset, document, True, in_row=True))
    return tuple(_numbers(body.replace(",", " "), offset, document, False, in_row=True))


def _names(document: Document, start: int, floor: int) -> tuple[str, ...]:
    """The names written before a group on its line: ``q_1 = x_1 · W_Q = [``."""
    line_start = document.text.rfind("\n", floor, start) + 1    # never past the last group
    return _names_in(document.text[max(line_start, floor):start])


def _names_in(before: str) -> tuple[str, ...]:
    before = _CALL.sub("", before.rstrip()).rstrip()
    if not before.endswith(("=", "≈")):
        return ()
    segments = re.split("[=≈]", before[:-1])
    names = []
    for number, segment in enumerate(segments):
        segment = re.split(r"[:;.,(]\s|\s[-—–]\s", segment)[-1]
        match = _NAME.match(segment) or _NAME.match(segment.split("(")[-1])
        if not match and number == 0 and segment.split():
            match = _NAME.match(segment.split()[-1])   # "Let q_3 = [...]"
        if match:
            names.append(match["name"])
    return tuple(names)


def expression_above(document: Document, start: int) -> tuple[str, int] | None:
    """For a continuation line (``= [...]``, ``≈ 0.485`` or ``→ ...`` under the line that
    says what is computed): that line's normalized text and where it starts; else None."""
    text = document.text
    line_start = text.rfind("\n", max(0, start - MAX_ROW_CHARACTERS), start) + 1
    if line_start == 0 or not _CONTINUATION.match(_CALL.sub("", text[line_start:start])):
        return None
    above_start = text.rfind("\n", max(0, line_start - 1 - MAX_ROW_CHARACTERS),
                             line_start - 1) + 1
    above = text[above_start:line_start - 1]
    return (above.strip(), above_start) if above.strip() else None


@dataclass
class _Open:
    """A bracket not closed yet: where it opens, and the rows closed directly inside it."""

    start: int
    rows: list[tuple[int, int]] = field(default_factory=list)
    deeper: bool = False      # it holds a bracket that is not a row: not a matrix


@dataclass
class _Brackets:
    """Bracket spans in document order: matrices, rows read alone, elided (not read)."""

    matrices: list[tuple[int, int, list[tuple[int, int]]]] = field(default_factory=list)
    rows: list[tuple[int, int]] = field(default_factory=list)
    elided: list[tuple[int, int]] = field(default_factory=list)


def _is_matrix(text: str, bracket: _Open, end: int) -> bool:
    """Only rows inside, with spaces and one comma or semicolon between them."""
    if bracket.deeper or len(bracket.rows) > MAX_ROWS:
        return False
    gaps = [(bracket.start + 1, bracket.rows[0][0])]
    gaps += [(a[1], b[0]) for a, b in zip(bracket.rows, bracket.rows[1:])]
    gaps.append((bracket.rows[-1][1], end))
    return all(_ROW_SEPARATOR.fullmatch(text, a, b) for a, b in gaps)


def _closed(text: str, bracket: _Open, end: int, found: _Brackets, elisions: list[int]
            ) -> bool:
    """Sort a bracket that closes at ``end``; True when it is a row itself."""
    if not bracket.rows and not bracket.deeper:
        return end - bracket.start - 1 <= MAX_ROW_CHARACTERS
    if bracket.rows and _is_matrix(text, bracket, end):
        found.matrices.append((bracket.start, end + 1, bracket.rows))
    elif bisect.bisect_left(elisions, bracket.start) < bisect.bisect_left(elisions, end):
        found.elided.append((bracket.start, end + 1))   # a print NumPy shortened
    else:
        found.rows.extend(bracket.rows)
    return False


def _brackets(text: str) -> _Brackets:
    """Pair the brackets of a text in one pass; unclosed ones give their rows alone."""
    found = _Brackets()
    elisions = [match.start() for match in _ELISION.finditer(text)]
    stack: list[_Open] = []
    for match in _BRACKET.finditer(text):
        if match.group(0) == "[":
            stack.append(_Open(match.start()))
            continue
        if not stack:
            continue
        bracket = stack.pop()
        is_row = _closed(text, bracket, match.start(), found, elisions)
        if stack and is_row:
            stack[-1].rows.append((bracket.start, match.end()))
        elif stack:
            stack[-1].deeper = True
        elif is_row:
            found.rows.append((bracket.start, match.end()))
    for bracket in stack:
        found.rows.extend(bracket.rows)
    return found


def _matrix(rows: list[tuple[int, int]], document: Document
            ) -> tuple[tuple[Number, ...], ...] | None:
    read: list[tuple[Number, ...]] = []
    for start, end in rows:
        row = _row(document.text[start + 1:end - 1], start + 1, document)
        if row is None or not row or (read and len(row) != len(read[0])):
            return None
        read.append(row)
    return tuple(read) if read else None


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
        if stripped and _CELL_CONTENT.match(stripped):
            read = _numbers(cell, offset, document, bool(re.search(r"\d,\d", cell)), True)
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


def _table_rows(document: Document, taken: list[tuple[int, int]]) -> list[Group]:
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


def _columns(line: re.Match[str], heading: re.Match[str] | None
             ) -> tuple[str, list[re.Match[str]]] | None:
    """A line of a printed DataFrame or aligned table: its label and value cells, the
    headings line above lined up with the values (right- or left-aligned)."""
    tokens = list(_TOKEN.finditer(line.group(0)))
    numeric = [bool(_PRINTED_NUMBER.fullmatch(t.group(0))) for t in tokens]
    if heading is None or len(tokens) < 2 or not all(numeric[1:]):
        return None
    headings = list(_TOKEN.finditer(heading.group(0)))
    values = tokens[1:] if not numeric[0] or len(tokens) == len(headings) + 1 else tokens
    if len(values) < 2 or len(values) != len(headings) or \
            any(_PRINTED_NUMBER.fullmatch(h.group(0)) for h in headings[:1]) and numeric[0] \
            and values is tokens:
        return None
    if not (all(h.end() == v.end() for h, v in zip(headings, values)) or
            all(h.start() == v.start() for h, v in zip(headings, values))):
        return None
    return (tokens[0].group(0) if values is not tokens else ""), values


def _frame_rows(document: Document, taken: list[tuple[int, int]]) -> list[Group]:
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
                   _numbers(v.group(0), line.start() + v.start(), document, False, True)]
        names = tuple(h.group(0) for h in _TOKEN.finditer(headings.group(0)))
        groups.append(Group((tuple(numbers),), line.start(), line.end(), (), names, label,
                            headings.start()))
        if headings is previous:
            taken.append((headings.start(), headings.end()))   # column names, not numbers
        taken.append((line.start(), line.end()))
        previous = line
    return groups


def _reading_limit(text: str) -> tuple[int, int]:
    """Where the MAX_NUMBERS-th number of a text starts, and how many come after it."""
    limit, count = len(text), 0
    for count, match in enumerate(_NUMBER.finditer(text), start=1):
        if count == MAX_NUMBERS + 1:
            limit = match.start()
    return limit, max(0, count - MAX_NUMBERS)


def scan(document: Document) -> Scanned:
    """Find every number of a document: groups first, then the single numbers.

    Only the first MAX_NUMBERS numbers are read (a bound on time for huge
    files); how many were left is ``Scanned.skipped``.
    """
    limit, skipped = _reading_limit(document.text)
    if skipped:
        document = dataclasses.replace(document, text=document.text[:limit],
                                       origin=document.origin[:limit])
    found = _scan(document)
    found.skipped += skipped
    return found


def _bracket_groups(document: Document, taken: list[tuple[int, int]]) -> list[Group]:
    """Matrices and rows in brackets; the spans they cover are added to ``taken``."""
    text = document.text
    found = _brackets(text)
    groups: list[Group] = []
    for start, end, inside in found.matrices:
        rows = _matrix(inside, document)
        if rows:
            groups.append(Group(rows, start, end, ()))
            taken.append((start, end))
        else:
            found.rows.extend(inside)     # rows of unequal length: each read alone
    taken.extend(found.elided)
    for start, end in found.rows:
        if re.match(r"[\w)]", text[start - 1:start]) and start > 0:
            continue     # an index: E[0], scores[3,1]
        row = _row(text[start + 1:end - 1], start + 1, document)
        if row:
            groups.append(Group((row,), start, end, ()))
            taken.append((start, end))
    return groups


def _scan(document: Document) -> Scanned:
    found = Scanned()
    taken: list[tuple[int, int]] = []
    text = document.text
    groups = _bracket_groups(document, taken)
    groups.extend(_table_rows(document, taken))
    groups.extend(_frame_rows(document, taken))
    groups.sort(key=lambda g: g.start)
    floor = 0
    for group in groups:
        rows = group.rows
        if re.search(r"[≈~]\s*$", text[max(0, group.start - 3):group.start]):
            rows = tuple(tuple(replace(n, approximate=True) for n in row) for row in rows)
        names, above = _names(document, group.start, floor), ""
        continued = expression_above(document, group.start)
        if continued:
            above = continued[0]
            if not names and continued[1] >= floor:     # no group on the line above
                names = _names_in(above + " =")
        found.groups.append(replace(group, rows=rows, names=names, above=above))
        floor = group.end
    taken.sort()
    found.singles = _singles(document, taken)
    return _bounded(found)


def _bounded(found: Scanned) -> Scanned:
    """The first MAX_NUMBERS numbers of the document (in order); the rest are counted."""
    items = sorted([(g.start, g) for g in found.groups] + [(n.start, n) for n in found.singles],
                   key=lambda item: item[0])
    kept: list[Group | Number] = []
    count = 0
    for _, item in items:
        size = len(item.numbers) if isinstance(item, Group) else 1
        if count + size > MAX_NUMBERS:
            found.skipped += size
            continue
        count += size
        kept.append(item)
    found.groups = [g for g in kept if isinstance(g, Group)]
    found.singles = [n for n in kept if isinstance(n, Number)]
    return found


def _singles(document: Document, taken: list[tuple[int, int]]) -> list[Number]:
    """Numbers outside every group; a comma between digits is a decimal comma here."""
    singles: list[Number] = []
    position = 0
    for start, end in taken + [(len(document.text), len(document.text))]:
        if start > position:
            singles.extend(_numbers(document.text[position:start], position, document, True))
        position = max(position, end)
    return singles
