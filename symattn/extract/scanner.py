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

__all__ = ["Number", "Group", "Scanned", "scan", "MAX_NUMBERS"]

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
    r"(?![0-9])|[0-9]+(?:[.,][0-9]+)?))(?![\w])(?P<percent>\s?%)?")
_VECTOR_BODY = r"[^\[\]]{0,1500}"
_MATRIX = re.compile(r"\[\s*(?:\[" + _VECTOR_BODY + r"\]\s*[,;]?\s*){1,200}\]")
_VECTOR = re.compile(r"\[(" + _VECTOR_BODY + r")\]")
_CELL_CONTENT = re.compile(r"^[\s\d.,;%≈~∞+\-]*$")
_TABLE_ROW = re.compile(r"^\s*\|(.*\|)\s*$", re.MULTILINE)
_NAME = re.compile(r"^\s*(?:(?:np|torch|numpy)\.)?(?P<name>[A-Za-z][\w^]*?)(?:\[\w+\])?\s*"
                   r"(?:\([^()=]{0,40}\))?\s*$")
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
    places = len(digits.split(".")[1]) if "." in digits else 0
    text = sign + body + (match["percent"] or "")
    return Number(text, Fraction(sign + digits), places, percent, approximate, start,
                  offset + match.end(), line, column)


def _numbers(text: str, offset: int, document: Document, decimal_comma: bool
             ) -> list[Number]:
    found = []
    for match in _NUMBER.finditer(text):
        before = text[max(0, match.start() - 4):match.start()]
        # a minus between two terms ("3 - 2", "3-2"), not the sign of an entry ("[1.5 -0.3]")
        if match["sign"] and re.search(r"[\d)\]]\s*$", before) and \
                (match["sign"] != "-" or not before[-1:].isspace()):
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
    if not _CELL_CONTENT.match(body) or not re.search(r"\d|∞", body):
        return None
    if _comma_is_decimal(body):
        pieces = re.split(r"[;\s]+|,\s+", body)
        numbers = _numbers(body, offset, document, True)
        return tuple(numbers) if len(numbers) == len([p for p in pieces if p.strip(",")]) \
            else tuple(numbers)
    return tuple(_numbers(body.replace(",", " "), offset, document, False))


def _names(document: Document, start: int, floor: int) -> tuple[str, ...]:
    """The names written before a group on its line: ``q_1 = x_1 · W_Q = [``."""
    line_start = document.text.rfind("\n", 0, start) + 1
    before = document.text[max(line_start, floor):start]
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


def _matrix(match: re.Match[str], document: Document) -> tuple[tuple[Number, ...], ...] | None:
    rows: list[tuple[Number, ...]] = []
    for inner in _VECTOR.finditer(match.group(0)):
        row = _row(inner.group(1), match.start() + inner.start(1), document)
        if row is None or not row or (rows and len(row) != len(rows[0])):
            return None
        rows.append(row)
    return tuple(rows) if rows else None


def _table_rows(document: Document, taken: list[tuple[int, int]]) -> list[Group]:
    """Markdown table rows with at least two numbers, each a vector."""
    groups = []
    for match in _TABLE_ROW.finditer(document.text):
        cells = match.group(1).split("|")
        numbers: list[Number] = []
        offset = match.start(1)
        for cell in cells:
            stripped = cell.strip()
            if stripped and _CELL_CONTENT.match(stripped):
                numbers.extend(_numbers(cell, offset, document, bool(re.search(r"\d,\d", cell))))
            offset += len(cell) + 1
        if len(numbers) >= 2:
            groups.append(Group((tuple(numbers),), match.start(), match.end(), ()))
            taken.append((match.start(), match.end()))
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


def _scan(document: Document) -> Scanned:
    found = Scanned()
    taken: list[tuple[int, int]] = []
    text = document.text
    groups: list[Group] = []
    for match in _MATRIX.finditer(text):
        rows = _matrix(match, document)
        if rows:
            groups.append(Group(rows, match.start(), match.end(), ()))
            taken.append((match.start(), match.end()))
    matrix_starts = [a for a, _ in taken]      # matrices do not overlap: sorted spans
    for match in _VECTOR.finditer(text):
        inside = bisect.bisect_right(matrix_starts, match.start()) - 1
        if inside >= 0 and match.start() < taken[inside][1] or \
                re.match(r"[\w)]", text[match.start() - 1:match.start()]):
            continue     # inside a matrix, or an index: E[0], scores[3,1]
        row = _row(match.group(1), match.start(1), document)
        if row:
            groups.append(Group((row,), match.start(), match.end(), ()))
            taken.append((match.start(), match.end()))
    groups.extend(_table_rows(document, taken))
    groups.sort(key=lambda g: g.start)
    floor = 0
    for group in groups:
        rows = group.rows
        if re.search(r"[≈~]\s*$", text[max(0, group.start - 3):group.start]):
            rows = tuple(tuple(replace(n, approximate=True) for n in row) for row in rows)
        found.groups.append(Group(rows, group.start, group.end,
                                  _names(document, group.start, floor)))
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
