"""The numbers of a document and their structure: vectors, matrices, names, equations.

A ``Number`` is one printed number with its place in the document. A
``Group`` is a vector or matrix printed in brackets (``[0.1, 0.2]``,
``[ 0.9  0.8 ]``, ``array([[...]])``, ``tensor([[...]])``, a LaTeX
``bmatrix``/``pmatrix``, or a table row: ``symattn.extract.tables``), with the
names written before it (``q₃ = [...]``, ``Q = E W_Q = K = ... = [[...]]``) or,
on a continuation line (``= [...]``), on the line above. Brackets are paired
in one pass, so scanning is linear in the text however its brackets nest or
fail to close. Every other
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

__all__ = ["Number", "Group", "Scanned", "scan", "expression_above", "ENDS_EXPRESSION",
           "CONTINUES_ABOVE",
           "MAX_NUMBERS"]

import bisect
import dataclasses
import re
from dataclasses import dataclass, field, replace

from symattn.extract.document import Document
from symattn.extract.numbers import CELL_CONTENT, NUMBER, Group, Number, read_numbers
from symattn.extract.tables import frame_rows, table_rows

MAX_NUMBERS = 20_000       # numbers placed from one document; the rest are counted, not placed
# Brackets are paired in one pass (linear in the text, whatever its nesting): a
# bracket with no bracket inside is a row; one holding only rows, with at most
# spaces and a comma or semicolon between them, is a matrix.
_BRACKET = re.compile(r"[\[\]]")
MAX_ROW_CHARACTERS = 1500  # a longer bracket is not read as a row
MAX_ROWS = 200             # a matrix with more rows is read row by row
# one way to match, no backtracking; a comment in code may close the line: "[1, 0],  # Token 0"
_ROW_SEPARATOR = re.compile(r"\s*(?:[,;]\s*)?(?:(?:#|//)[^\n]*\n\s*)?")
_ELISION = re.compile(r"\.\.\.|…")
_NAME = re.compile(r"^\s*(?:(?:np|torch|numpy)\.)?(?P<name>[^\W\d_][\w^]*?)(?:\[\w+\])?\s*"
                   r"(?:\([^()=]{0,40}\))?\s*$")
# the line so far opens a continuation: "   ≈ ", "&= ", "→ " (what the line above computes)
CONTINUES_ABOVE = re.compile(r"^[\s$&]*[=≈→][\s$&]*$")
# "Scaled Scores", "Веса внимания": two or three words in any alphabet
_WORDS = re.compile(r"(?<![\w])[^\W\d_]{2,20}(?: [^\W\d_]{2,20}){1,2}$")
_CALL = re.compile(r"(?:(?:np|torch|numpy)\.)?(?:array|tensor|matrix)\(\s*$")
_ARROW = re.compile(r"→|⇒|->|=>")
_MARKUP = re.compile(r"`|\*\*")
# two names multiplied: "q1 . k1", "q_1 · k_2", "Q × K^T" (a sentence's full stop has no
# space before it: "We compute. K = [...]" names K)
_NAMES_MULTIPLIED = re.compile(r"(?:^|[\s(])[^\W\d_][\w^]*\s*(?:\s\.\s|[·⋅×*@])\s*"
                               r"[^\W\d_][\w^]*\s*$")


@dataclass
class Scanned:
    """What ``scan`` found, in document order."""

    groups: list[Group] = field(default_factory=list)
    singles: list[Number] = field(default_factory=list)
    skipped: int = 0          # numbers past MAX_NUMBERS


def _comma_is_decimal(body: str) -> bool:
    """In a bracket: commas are decimal commas when something else separates the numbers."""
    if not re.search(r"\d,\d", body):
        return False
    return ";" in body or bool(re.search(r",\s", body))


def _row(body: str, offset: int, document: Document) -> tuple[Number, ...] | None:
    if not CELL_CONTENT.match(body) or not re.search(r"\d|∞", body) or _ELISION.search(body):
        return None        # words, or a row NumPy shortened with "...": not read
    if _comma_is_decimal(body):
        return tuple(read_numbers(body, offset, document, True, in_row=True))
    return tuple(read_numbers(body.replace(",", " "), offset, document, False, in_row=True))


def _names(document: Document, start: int, floor: int) -> tuple[str, ...]:
    """The names written before a group on its line: ``q_1 = x_1 · W_Q = [``."""
    line_start = document.text.rfind("\n", floor, start) + 1    # never past the last group
    return _names_in(document.text[max(line_start, floor):start])


def _names_in(before: str) -> tuple[str, ...]:
    # an arrow ends what was said before it: "d_k = 2 → Output = [[...]]" names the output only
    before = _ARROW.split(_CALL.sub("", before.rstrip()).rstrip())[-1]
    # Markdown's inline code and bold around a name: "- `q1 = [1, 0]`", "**K** = [[...]]"
    before = _MARKUP.sub(" ", before)
    if not before.endswith(("=", "≈")):
        return _label(before)
    segments = re.split("[=≈]", before[:-1])
    names = []
    for number, segment in enumerate(segments):
        if _NAMES_MULTIPLIED.search(segment):
            continue      # "q1 . k1 = [1, 0] . [1, 1]": the groups are its factors, not it
        segment = re.split(r"[:;.,(]\s|\s[-—–]\s", segment)[-1]
        match = _NAME.match(segment) or _NAME.match(segment.split("(")[-1])
        words = _WORDS.search(segment[-80:].rstrip())
        if not match and words:      # "Scaled Scores =": the words together name it
            names.append("_".join(words.group(0).split()))
            continue
        if not match and number == 0 and segment.split():
            match = _NAME.match(segment.split()[-1])   # "Let q_3 = [...]"
        if match:
            names.append(match["name"])
    return tuple(names)


_LABEL = re.compile(r"(?:^|[.;:!?(]\s)\s*(?:(?:[-*+•]|\d{1,2}[.)])\s+)?"
                    r"(?P<label>[^:;.!?()=]{1,60}?)[\s*_`]*[:：][\s*_`$]*$")


def _label(before: str) -> tuple[str, ...]:
    """The name a label gives the group after its colon: ``Softmax: [...]``,
    ``- **Attention weights:** [...]``, ``print("Q:", Q)``'s ``Q: [[...]]``."""
    found = _LABEL.search(before[-120:])
    if found is None:
        return ()
    label = found["label"].strip(" *_`\"'")
    match = _NAME.match(label)
    if match:
        return (match["name"],)
    words = _WORDS.search(label)
    return ("_".join(words.group(0).split()),) if words else ()


def _first_factor(text: str, group: Group, following: Group) -> bool:
    """``group`` times ``following`` is what the names before ``group`` stand for: the two
    are written side by side (or ``·``, ``×``) and an ``=`` follows the second."""
    gap = text[group.end:following.start]
    return len(gap) <= 40 and gap.count("\n") <= 1 and set(gap) <= _PRODUCT_GAP and \
        bool(_EQUALS_AFTER.match(text, following.end))


_PRODUCT_GAP = frozenset(" \t·×*\n")
_EQUALS_AFTER = re.compile(r"\s{0,40}=")
# after a group: the end of its line, and no factor or term on the next line
ENDS_EXPRESSION = re.compile(r"[\s.,;$\\]*(?:\n|$)(?![\s$]*[\[×·*+\-])")


def _names_above(document: Document, start: int, floor: int) -> tuple[str, ...]:
    """The names of a group that opens its line under a line ending in ``=`` or an open call:
    ``W_q = np.array(`` then ``[`` / ``[0.2, 0.4], ...`` on the lines below."""
    text = document.text
    line_start = text.rfind("\n", floor, start) + 1
    if line_start == 0 or text[line_start:start].strip() or line_start - 1 < floor:
        return ()
    above_start = text.rfind("\n", max(floor, line_start - 1 - MAX_ROW_CHARACTERS),
                             line_start - 1) + 1
    if above_start < floor:
        return ()      # a group ends on the line above: its names are not this group's
    return _names_in(text[above_start:line_start - 1])


def _argument_position(text: str, group: Group, previous: Group | None,
                       position: int | None) -> int | None:
    """``attention([[1, 0]], [[1, 0], [0, 1]], [[1, 2], [3, 4]])``: which argument of an
    attention function a matrix is (its queries, keys and values in order), or None."""
    if _ATTENTION_CALL.search(text, max(0, group.start - 80), group.start):
        return 0
    if position is None or previous is None or \
            not _ARGUMENT_GAP.fullmatch(text, previous.end, group.start):
        return None
    return position + 1 if position + 1 < len(_ARGUMENTS) else None


_ATTENTION_CALL = re.compile(r"\b\w*attention\w*\(\s*$", re.IGNORECASE)
_ARGUMENT_GAP = re.compile(r"\s*,\s*")
_ARGUMENTS = ("Q", "K", "V")


def expression_above(document: Document, start: int) -> tuple[str, int] | None:
    """For a continuation line (``= [...]``, ``≈ 0.485`` or ``→ ...`` under the line that
    says what is computed): that line's normalized text and where it starts; else None."""
    text = document.text
    line_start = text.rfind("\n", max(0, start - MAX_ROW_CHARACTERS), start) + 1
    if line_start == 0 or not CONTINUES_ABOVE.match(_CALL.sub("", text[line_start:start])):
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


def _reading_limit(text: str) -> tuple[int, int]:
    """Where the MAX_NUMBERS-th number of a text starts, and how many come after it."""
    limit, count = len(text), 0
    for count, match in enumerate(NUMBER.finditer(text), start=1):
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
    groups.extend(table_rows(document, taken))
    groups.extend(frame_rows(document, taken))
    groups.sort(key=lambda g: g.start)
    floor, position = 0, None
    for index, group in enumerate(groups):
        rows = group.rows
        if re.search(r"[≈~]\s*$", text[max(0, group.start - 3):group.start]):
            rows = tuple(tuple(replace(n, approximate=True) for n in row) for row in rows)
        position = _argument_position(text, group, groups[index - 1] if index else None,
                                      position)
        names, above = _names(document, group.start, floor) or \
            _names_above(document, group.start, floor) or \
            (() if position is None else (_ARGUMENTS[position],)), ""
        if index + 1 < len(groups) and _first_factor(text, group, groups[index + 1]):
            names = ()     # "Q = X W_Q = [X] [W_Q] = [Q]": the names are the product's
        continued = expression_above(document, group.start)
        if continued:
            above = continued[0]
            # no group on the line above, and this group ends the expression (not the first
            # factor of a product written on below: "Q = X W_Q" then "= [X] [W_Q] = [Q]")
            if not names and continued[1] >= floor and ENDS_EXPRESSION.match(text, group.end):
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
            singles.extend(read_numbers(document.text[position:start], position, document, True))
        position = max(position, end)
    return singles
