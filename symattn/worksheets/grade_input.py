"""Students' answers for ``symattn grade``, read from the three forms a class hands them in.

- A CSV of student x blank: the first column the student, a header row of
  blank ids (``1.e1``; a bare ``e1`` when one exercise has it), and, when the
  key has several variants, a column ``variant`` (its number) or ``code`` (the
  code the sheet shows, ``T1``).
- A Moodle quiz "responses" report, downloaded as CSV: the student's
  ``First name`` and ``Surname`` (or ``Email address``), ``Response 1``,
  ``Response 2``, ... one per quiz slot in the order of the answers file (one
  slot per blank, or one per exercise, a Cloze question whose response reads
  ``part 1: 7.389; part 2: 0.665``). The variant comes from a ``variant`` or
  ``code`` column, or from the ``Right answer N`` columns when the report has
  them.
- A folder of typed answer files, one per student: lines ``blank_id = answer``,
  and optionally ``student = NAME`` (default: the file's name) and ``code = T1``
  or ``variant = 3``; ``#`` starts a comment.

A CSV may start with a byte order mark and be separated by commas, semicolons
or tabs. A file that cannot be read as its form is an ``InputError`` naming
the file and line; a single answer is never an error (``grading`` reads it).

>>> from symattn.worksheets.sheet import answers_document, build
>>> from symattn.worksheets.grade_key import read_key
>>> key = read_key(answers_document(build(seed=7, kinds=("softmax_table",))), "k.json")
>>> [(s.student, s.answers[:2]) for s in read_table("\\ufeffname;1.e1;a1\\nAna;7,389;0.6\\n",
...                                               "c.csv", key)]
[('Ana', (('1.e1', '7,389', 2), ('1.a1', '0.6', 2)))]
"""

from __future__ import annotations

__all__ = ["Submission", "read_table", "read_moodle", "read_typed", "is_moodle"]

import csv
import re
from dataclasses import dataclass
from typing import Sequence

from symattn.errors import InputError, Location
from symattn.worksheets.grade_key import Key, KeyVariant



@dataclass(frozen=True)
class Submission:
    """One student's answers: (blank id, or the name as written when it names no blank of
    the key, answer text, line)."""

    student: str
    source: str
    line: int
    variant: KeyVariant | None
    unknown_variant: str                     # the variant or code as written, when unknown
    answers: tuple[tuple[str, str, int], ...]


def _at(source: str, line: int) -> Location:
    """A line of an answers file, as errors name it."""
    return Location(file=source, key=f"line {line}")


def _rows(text: str, source: str) -> list[list[str]]:
    text = text.lstrip("\ufeff")
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise InputError("no rows", _at(source, 1))
    counts = {mark: lines[0].count(mark) for mark in (",", ";", "\t")}
    delimiter = max(counts, key=lambda mark: counts[mark])
    try:
        return list(csv.reader(text.splitlines(), delimiter=delimiter, strict=True))
    except csv.Error as error:
        raise InputError(f"not a CSV file: {error}", Location(file=source)) from None


def _variant_of(key: Key, number: str, code: str) -> tuple[KeyVariant | None, str]:
    if number.strip():
        found = key.variant(int(number)) if number.strip().isdigit() else None
        return found, "" if found else number.strip()
    if code.strip():
        found = key.by_code(code)
        return found, "" if found else code.strip()
    if len(key.variants) == 1:
        return key.variants[0], ""
    return None, ""


def _column(header: Sequence[str], *names: str) -> int | None:
    folded = [cell.strip().casefold() for cell in header]
    for name in names:
        if name in folded:
            return folded.index(name)
    return None


def _needs_variant(key: Key, source: str, has_column: bool) -> None:
    if len(key.variants) > 1 and not has_column:
        raise InputError(f"the key has {len(key.variants)} variants: add a column \"variant\" "
                         "(its number) or \"code\" (the code on the sheet)",
                         _at(source, 1))


def read_table(text: str, source: str, key: Key) -> list[Submission]:
    """A CSV of student x blank."""
    rows = _rows(text, source)
    header = rows[0]
    variant_at, code_at = _column(header, "variant"), _column(header, "code")
    _needs_variant(key, source, variant_at is not None or code_at is not None)
    answer_columns = [c for c in range(1, len(header)) if c not in (variant_at, code_at)]
    ids = {c: key.resolve(header[c]) for c in answer_columns}
    found = []
    for number, row in enumerate(rows[1:], 2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(header):
            raise InputError(f"{len(row)} cells in a row under a header of {len(header)}",
                             _at(source, number))
        row = row + [""] * (len(header) - len(row))
        variant, unknown = _variant_of(key, row[variant_at] if variant_at is not None else "",
                                       row[code_at] if code_at is not None else "")
        answers = tuple((ids[c] or header[c].strip(), row[c], number) for c in answer_columns)
        found.append(Submission(row[0].strip(), source, number, variant, unknown, answers))
    return found


# ------------------------------------------------------------------ Moodle responses
_RESPONSE = re.compile(r"^(response|right answer)\s+(\d+)$", re.I)
_PART = re.compile(r"(?:^|;\s*)[^\d;:]*?(\d+)\s*:\s*")


def is_moodle(text: str) -> bool:
    """Whether a CSV is a Moodle responses report (it has a ``Response 1`` column)."""
    first = text.lstrip("\ufeff").splitlines()[0] if text.strip() else ""
    return re.search(r"(^|[,;\t\"])\s*Response 1\s*(\"|[,;\t]|$)", first, re.I) is not None


def _cloze_parts(text: str) -> list[str]:
    """``part 1: 7.389; part 2: 0.665`` (any language's word for part) -> its answers."""
    marks = list(_PART.finditer(text))
    if not marks or marks[0].start() != 0:
        return [text]
    return [text[m.end():(marks[k + 1].start() if k + 1 < len(marks) else len(text))].strip()
            for k, m in enumerate(marks)]


def _slots(ids: Sequence[str], count: int) -> list[list[str]] | None:
    """The blank ids each response slot holds: one blank each, or one exercise each;
    None when ``count`` is neither."""
    exercises: dict[str, list[str]] = {}
    for blank_id in ids:
        exercises.setdefault(blank_id.split(".", 1)[0], []).append(blank_id)
    if count == len(ids):
        return [[blank_id] for blank_id in ids]
    if count == len(exercises):
        return list(exercises.values())
    return None


def _check_slots(key: Key, count: int, source: str) -> None:
    for variant in key.variants:
        if _slots(variant.ids(), count) is None:
            exercises = len({blank_id.split(".", 1)[0] for blank_id in variant.ids()})
            raise InputError(f"{count} responses, but variant {variant.variant} of the key has "
                             f"{len(variant.ids())} blanks in {exercises} exercises (one "
                             "response per blank or per exercise)", _at(source, 1))


def read_moodle(text: str, source: str, key: Key) -> list[Submission]:
    """A Moodle quiz responses report (CSV)."""
    rows = _rows(text, source)
    header = [cell.strip() for cell in rows[0]]
    responses: dict[int, int] = {}
    rights: dict[int, int] = {}
    for c, cell in enumerate(header):
        match = _RESPONSE.match(cell)
        if match:
            (responses if match.group(1).lower() == "response" else rights)[
                int(match.group(2))] = c
    _check_slots(key, len(responses), source)
    variant_at, code_at = _column(header, "variant"), _column(header, "code")
    _needs_variant(key, source, variant_at is not None or code_at is not None or
                   len(rights) == len(responses))
    first, last = _column(header, "first name"), _column(header, "surname", "last name")
    email = _column(header, "email address", "email")
    found = []
    for number, row in enumerate(rows[1:], 2):
        row = row + [""] * (len(header) - len(row))
        name = " ".join(row[c].strip() for c in (first, last) if c is not None).strip() or \
            (row[email].strip() if email is not None else "")
        if not name or not any(row[c].strip() for c in responses.values()):
            continue     # the report's "Overall average" and other summary rows
        cells = [row[responses[slot]] for slot in sorted(responses)]
        variant, unknown = _variant_of(key, row[variant_at] if variant_at is not None else "",
                                       row[code_at] if code_at is not None else "")
        if variant is None and not unknown and rights:
            variant = _by_right_answers(key, len(responses),
                                        [row[rights[s]] for s in sorted(rights)])
        slots = _slots(variant.ids() if variant else key.variants[0].ids(), len(responses))
        answers = []
        for blank_ids, cell in zip(slots or [], cells):
            parts = _cloze_parts(cell) if len(blank_ids) > 1 else [cell]
            parts += [""] * (len(blank_ids) - len(parts))
            answers += [(b, "" if p.strip() == "-" else p, number)
                        for b, p in zip(blank_ids, parts)]
        found.append(Submission(name, source, number, variant, unknown, tuple(answers)))
    return found


def _same(printed: str, expected: str) -> bool:
    return printed.strip().replace(",", ".").replace(" ", "") == \
        expected.strip().replace(",", ".").replace(" ", "")


def _by_right_answers(key: Key, count: int, cells: list[str]) -> KeyVariant | None:
    """The one variant whose numeric answers are the report's right answers."""
    matching = []
    for variant in key.variants:
        slots = _slots(variant.ids(), count) or []
        shown = [part for blank_ids, cell in zip(slots, cells) for part in
                 (_cloze_parts(cell) if len(blank_ids) > 1 else [cell])]
        ids = [blank_id for blank_ids in slots for blank_id in blank_ids]
        pairs = [(text, variant.blank(blank_id)) for text, blank_id in zip(shown, ids)]
        numeric = [(text, blank) for text, blank in pairs
                   if blank is not None and blank.kind == "number"]
        if numeric and all(_same(text, str(blank.record.get("expected", "")))
                           for text, blank in numeric):
            matching.append(variant)
    return matching[0] if len(matching) == 1 else None


# ------------------------------------------------------------------ typed answer files
def read_typed(text: str, source: str, key: Key) -> Submission:
    """One student's typed answer file: ``blank_id = answer`` lines."""
    student = ""
    number = code = ""
    answers: list[tuple[str, str, int]] = []
    for line_number, line in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        name, equals, answer = body.partition("=")
        if not equals or not name.strip():
            raise InputError("a line that is not \"blank_id = answer\"",
                             _at(source, line_number))
        name = name.strip()
        if name.casefold() == "student":
            student = answer.strip()
        elif name.casefold() == "variant":
            number = answer
        elif name.casefold() == "code":
            code = answer
        else:
            answers.append((key.resolve(name) or name, answer, line_number))
    from pathlib import PurePath

    variant, written = _variant_of(key, number, code)
    if variant is None and not written and len(key.variants) > 1:
        raise InputError(f"the key has {len(key.variants)} variants: add a line "
                         "\"code = ...\" (the code on the sheet) or \"variant = N\"",
                         _at(source, 1))
    return Submission(student or PurePath(source).stem, source, 1, variant, written,
                      tuple(answers))
