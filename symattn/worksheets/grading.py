"""``symattn grade``: each student's answer to each blank right, wrong, a named slip, or unreadable.

The rule an answer is graded by is the teacher's (``Rule``):

- ``places`` (the default: each blank's own places in the key, or ``--places N``):
  the answer, rounded half-up to N places (or written with fewer and read as
  it is), is the exact value rounded to N places: "rounds to 0.309 at 3
  places". A blank the key prints exactly (a score of 3, an entropy of 1.75)
  must be that value exactly, unless N is given.
- ``tolerance`` (``--tolerance T``, or ``key``: each blank's tolerance in the
  answers file, which allows for working from rounded earlier answers): the
  answer is within T of the exact value: "within 0.0005 of 0.309017".

A wrong number is matched against every slip of the catalogue
(``verify.hints``, the same search ``symattn check`` makes on a document): a
slip is named only when its exact value rounds to the answer under the same
rule (at N places; under a tolerance, at the places the student wrote), two
slips that give the same number are both named, and a number no slip gives is
just wrong. Answers are read leniently and never fail: ``0,309`` (a decimal
comma), ``30.9 %`` (a percentage of a fraction), ``≈0.31``, spaces around it;
anything else (``abc``, an empty cell, an unknown blank or variant) is
``unreadable`` with the reason.

>>> from symattn.worksheets.sheet import answers_document, build
>>> from symattn.worksheets.grade_key import read_key
>>> from symattn.worksheets.grade_input import read_table
>>> key = read_key(answers_document(build(seed=7, kinds=("output_row",))), "k.json")
>>> [b.id + "=" + b.record["expected"] for b in key.variants[0].blanks]
['1.a1=0.100', '1.a2=0.164', '1.a3=0.736', '1.o1=-0.80', '1.o2=0.06']
>>> table = ("student,1.a1,1.a2,1.a3,1.o1\\nAna,\\"0,100\\",16.4 %,≈0.736, -0.80 \\n"
...          "Bo,0.099,0.254,0.5,x\\n")
>>> grading = grade(key, read_table(table, "c.csv", key), Rule())
>>> [m.verdict for m in grading.students[0].marks]
['right', 'right', 'right', 'right']
>>> [(m.blank, m.verdict, m.slips)
...  for m in grading.students[1].marks]   # doctest: +NORMALIZE_WHITESPACE
[('1.a1', 'slip', ('truncation',)), ('1.a2', 'slip', ('column_softmax', 'qk_swapped')),
 ('1.a3', 'wrong', ()), ('1.o1', 'unreadable', ())]
"""

from __future__ import annotations

__all__ = ["Rule", "Mark", "StudentGrades", "Grading", "grade", "read_answer", "VERDICTS"]

import re
from dataclasses import dataclass
from typing import Any, Sequence

from flint import fmpq

from symattn.errors import InputError
from symattn.values.decimals import UndecidedError, decide_scaled
from symattn.values.exact import NEG_INF, Exact
from symattn.values.number_format import NumberFormat
from symattn.values.rounding import Rounding
from symattn.verify.claims import Claim
from symattn.verify.hints import WrongHints
from symattn.verify.printed import Printed, read_printed
from symattn.worksheets.grade_input import Submission
from symattn.worksheets.grade_key import Key, KeyBlank

VERDICTS = ("right", "slip", "wrong", "unreadable")
_RULE = Rounding.HALF_UP          # how the worksheets round their answers
_CLOSE = 30                       # places an irrational is compared to under a tolerance
_MINUS_INF = ("-inf", "−inf", "-∞", "−∞", "-oo", "−oo")


@dataclass(frozen=True)
class Rule:
    """How a number is graded: ``places`` None is the key's own places; ``tolerance``
    None is no tolerance rule, ``"key"`` each blank's tolerance in the key."""

    places: int | None = None
    tolerance: fmpq | str | None = None


@dataclass(frozen=True)
class Mark:
    """One answer graded. ``reading`` is the number as read (plain, a decimal point), ""
    when unreadable; ``why`` the message key of an unreadable answer; ``rule`` the
    message key and values of the rule applied (words are the renderer's)."""

    blank: str
    answer: str
    reading: str
    verdict: str
    slips: tuple[str, ...] = ()
    why: str = ""
    rule: tuple[str, tuple[tuple[str, str], ...]] = ("", ())


@dataclass(frozen=True)
class StudentGrades:
    student: str
    source: str
    line: int
    variant: int | None
    code: str
    marks: tuple[Mark, ...]


@dataclass(frozen=True)
class Grading:
    key: Key
    rule: Rule
    students: tuple[StudentGrades, ...]

    def verdict_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(VERDICTS, 0)
        for student in self.students:
            for mark in student.marks:
                counts[mark.verdict] += 1
        return counts

    def slip_counts(self) -> list[tuple[str, int, int]]:
        """(slip, answers it was named for, students), most frequent first."""
        answers: dict[str, int] = {}
        students: dict[str, set[int]] = {}
        for k, student in enumerate(self.students):
            for mark in student.marks:
                for slip in mark.slips:
                    answers[slip] = answers.get(slip, 0) + 1
                    students.setdefault(slip, set()).add(k)
        return sorted(((slip, n, len(students[slip])) for slip, n in answers.items()),
                      key=lambda row: (-row[1], row[0]))


# ------------------------------------------------------------------ reading an answer
def read_answer(text: str) -> Printed | None:
    """A student's number: a decimal comma or point, a percentage, ``≈``, spaces, -inf.
    None when it is not a number.

    >>> [read_answer(t).number for t in ("0,309", " 30.9 % ", "≈0.31", "1/3")]
    [309/1000, 309/1000, 31/100, 1/3]
    >>> read_answer("abc"), read_answer("1,2,3"), read_answer("-∞").value
    (None, None, NEG_INF)
    """
    body = re.sub(r"[\s\u00a0\u2009\u202f]+", "", text).replace("−", "-")
    if body.casefold() in _MINUS_INF:
        return Printed(text, NEG_INF, 0)
    if not body or len(body) > 60:
        return None
    number_format = "1 234,5" if "," in body and "." not in body else "1,234.5"
    if body.count(",") > 1 and number_format == "1 234,5":
        return None
    try:
        printed = read_printed(body, number_format=number_format)
    except InputError:
        return None
    if printed is None or not isinstance(printed.number, fmpq):
        return None
    if printed.percent:       # 30.9 % is 0.309: two places more
        return Printed(text, printed.number, printed.places + 2, approximate=True)
    return printed


def _number(reading: Printed) -> fmpq:
    """A reading's value (read_answer makes only rationals, and -inf, kept apart)."""
    value = reading.number
    assert isinstance(value, fmpq)
    return value


def _plain(value: fmpq, places: int) -> str:
    return NumberFormat(digits=None, places=max(places, 0)).format(value) or ""


# ------------------------------------------------------------------ grading
class _Grader:
    def __init__(self, key: Key, rule: Rule) -> None:
        self.key = key
        self.rule = rule
        self.locale = key.language
        self._hints: dict[int, WrongHints] = {}

    def hints(self, blank: KeyBlank) -> WrongHints | None:
        if blank.derivation is None or blank.target is None:
            return None
        found = self._hints.get(id(blank.derivation))
        if found is None:
            found = self._hints[id(blank.derivation)] = WrongHints(blank.derivation, _RULE)
        return found

    def shown(self, value: Exact, places: int) -> str:
        return NumberFormat(digits=None, places=places, locale=self.locale).format(value) or ""

    def mark(self, blank: KeyBlank | None, blank_id: str, answer: str, key: Key) -> Mark:
        if blank is None:
            why = "grade.why_other_variant" if blank_id in key.blank_ids() else \
                "grade.why_blank"
            return Mark(blank_id, answer, "", "unreadable", why=why)
        if not answer.strip():
            return Mark(blank_id, answer, "", "unreadable", why="grade.why_empty")
        kind = blank.kind
        if kind == "choice":
            return self.choice(blank, answer)
        if kind == "size":
            return self.size(blank, answer)
        if kind == "design":
            return self.design(blank, answer)
        return self.number(blank, answer)

    # -- numbers
    def number(self, blank: KeyBlank, answer: str) -> Mark:
        reading = read_answer(answer)
        value = blank.value
        if reading is None:
            return Mark(blank.id, answer, "", "unreadable", why="grade.why_number")
        if value is None:
            return Mark(blank.id, answer, "", "unreadable", why="grade.why_key")
        read_text = "-inf" if reading.value is NEG_INF else _plain(_number(reading),
                                                                   reading.places)
        if value is NEG_INF or reading.value is NEG_INF:
            return self.masked(blank, answer, reading, read_text)
        places, rule = self.places_rule(blank)
        if places is None:      # by a tolerance, or exactly; slips at the places written
            right, slip_places = self.within(blank, reading), reading.places
        else:
            right = decide_scaled(reading.number, places, _RULE) == \
                decide_scaled(value, places, _RULE)
            slip_places = places
        if right:
            return Mark(blank.id, answer, read_text, "right", rule=rule)
        slips = self.slips(blank, reading, slip_places)
        return Mark(blank.id, answer, read_text, "slip" if slips else "wrong", slips, rule=rule)

    def places_rule(self, blank: KeyBlank) -> tuple[int | None, tuple[str, tuple[Any, ...]]]:
        """The places an answer is compared at (None: by a tolerance or exactly) and the
        rule's message key and values."""
        rule = self.rule
        if rule.tolerance is not None:
            tolerance = self.tolerance(blank)
            return None, ("grade.rule_tolerance", (
                ("tolerance", _plain(tolerance, _places_of(tolerance))),
                ("value", self.shown(blank.value, 6))))
        places = rule.places if rule.places is not None else blank.places
        if places is None:
            return None, ("grade.rule_exact", (("expected", str(blank.record.get(
                "expected", ""))),))
        return places, ("grade.rule_places", (("expected", self.shown(blank.value, places)),
                                              ("places", str(places))))

    def tolerance(self, blank: KeyBlank) -> fmpq:
        if isinstance(self.rule.tolerance, fmpq):
            return self.rule.tolerance
        if self.rule.tolerance == "key":
            written = read_answer(str(blank.record.get("tolerance", "0")))
            if written is not None and isinstance(written.number, fmpq):
                return written.number
        return fmpq(0)

    def within(self, blank: KeyBlank, reading: Printed) -> bool:
        """|answer - exact| <= the tolerance (exactly, under no tolerance rule)."""
        value = blank.value
        tolerance = self.tolerance(blank) if self.rule.tolerance is not None else fmpq(0)
        if not isinstance(value, fmpq):
            value = fmpq(decide_scaled(value, _CLOSE, _RULE), 10 ** _CLOSE)
            if tolerance == 0:
                return False
        return bool(abs(_number(reading) - value) <= tolerance)

    def slips(self, blank: KeyBlank, reading: Printed, places: int) -> tuple[str, ...]:
        hints = self.hints(blank)
        if hints is None or blank.target is None or places < 0:
            return ()
        try:
            printed = decide_scaled(reading.number, places, _RULE)
        except (UndecidedError, ValueError):
            return ()
        claim = Claim(blank.id, "", blank.target, reading, 0)
        found = hints.explain(claim, blank.value, printed, places, fmpq(1), None)
        return tuple(dict.fromkeys(str(dict(reason.args)["slip"]) for reason in found))

    def masked(self, blank: KeyBlank, answer: str, reading: Printed, read_text: str) -> Mark:
        """-inf against a number, or a number against -inf: right only when both are."""
        rule = ("grade.rule_exact", (("expected", "-inf" if blank.value is NEG_INF else
                                      str(blank.record.get("expected", ""))),))
        if blank.value is NEG_INF and reading.value is NEG_INF:
            return Mark(blank.id, answer, read_text, "right", rule=rule)
        hints = self.hints(blank)
        slips: tuple[str, ...] = ()
        if hints is not None and blank.target is not None:
            claim = Claim(blank.id, "", blank.target, reading, 0)
            found = hints.explain_masked(claim) if reading.value is NEG_INF else \
                hints.explain_masked(claim, decide_scaled(reading.number, reading.places),
                                     reading.places)
            slips = tuple(dict.fromkeys(str(dict(r.args)["slip"]) for r in found))
        return Mark(blank.id, answer, read_text, "slip" if slips else "wrong", slips, rule=rule)

    # -- choices, sizes, designs
    def choice(self, blank: KeyBlank, answer: str) -> Mark:
        options = blank.record.get("options") or []
        said = answer.strip().strip("()").strip().casefold()
        chosen = next((o for o in options if said in (str(o.get("mark")).casefold(),
                                                     str(o.get("id")).casefold())), None)
        rule = ("grade.rule_choice", (("expected", str(blank.record.get("expected", ""))),))
        if chosen is None:
            return Mark(blank.id, answer, "", "unreadable", why="grade.why_option", rule=rule)
        verdict = "right" if chosen.get("id") == blank.value else "wrong"
        return Mark(blank.id, answer, str(chosen.get("mark")), verdict, rule=rule)

    def size(self, blank: KeyBlank, answer: str) -> Mark:
        match = re.fullmatch(r"\s*([0-9][0-9\s\u00a0\u2009\u202f]*)\s*([A-Za-z]*)\s*", answer)
        unit = str(blank.record.get("unit", ""))
        rule = ("grade.rule_exact", (("expected", str(blank.record.get("expected", ""))),))
        if match is None:
            return Mark(blank.id, answer, "", "unreadable", why="grade.why_number", rule=rule)
        number = int(re.sub(r"\D", "", match.group(1)))
        written_unit = match.group(2)
        reading = f"{number} {written_unit or unit}".strip()
        right = number == int(blank.value) and written_unit in ("", unit)
        return Mark(blank.id, answer, reading, "right" if right else "wrong", rule=rule)

    def design(self, blank: KeyBlank, answer: str) -> Mark:
        from symattn.worksheets.reasoning import check_design

        entries = re.findall(r"[+\-−]?\d+", answer)
        rule = ("grade.rule_design", ())
        check = blank.record.get("check")
        if not entries or not isinstance(check, dict):
            return Mark(blank.id, answer, "", "unreadable", why="grade.why_number", rule=rule)
        numbers = [int(e.replace("−", "-")) for e in entries]
        meets = check_design(check, numbers).meets
        return Mark(blank.id, answer, "(" + "; ".join(map(str, numbers)) + ")",
                    "right" if meets else "wrong", rule=rule)


def _places_of(value: fmpq) -> int:
    from symattn.values.exact import terminating_places

    return terminating_places(value) or 0


def grade(key: Key, submissions: Sequence[Submission], rule: Rule) -> Grading:
    """Every answer of every submission graded against ``key`` under ``rule``."""
    grader = _Grader(key, rule)
    students = []
    for submission in submissions:
        variant = submission.variant
        if variant is None:
            why = "grade.why_variant" if submission.unknown_variant else "grade.why_no_variant"
            marks = tuple(Mark(blank_id, answer, "", "unreadable", why=why)
                          for blank_id, answer, _ in submission.answers)
        else:     # a blank of another variant: skipped when empty (a column of the class)
            marks = tuple(grader.mark(variant.blank(blank_id), blank_id, answer, key)
                          for blank_id, answer, _ in submission.answers
                          if variant.blank(blank_id) is not None or answer.strip())
        students.append(StudentGrades(submission.student, submission.source, submission.line,
                                      variant.variant if variant else None,
                                      variant.code if variant else submission.unknown_variant,
                                      marks))
    return Grading(key, rule, tuple(students))
