"""A class set as questions for a learning platform: per exercise (``items``) or per blank.

``items`` makes one ``Item`` per exercise and variant: the exercise's prompt,
its given matrices and tables (math as ``\\(...\\)`` for MathJax, which Moodle
and most platforms render), every blank boxed with its label, and after each
part a ``FIELD`` mark per blank it holds (each format puts its own field
there), with one ``Answer`` per blank. ``questions`` makes one ``Question``
per blank and variant (for GIFT, which has one answer block per question):
the asked blank boxed, the others as dots, in a category per exercise and
variant. An answer is ``numerical`` (a value with a tolerance, both from the
answers data, and the slips' numbers scored 0 with their feedback:
``slip_answers``), ``multichoice`` (the options, one right), ``shortanswer``
(a masked entry, -inf, or a calculator-free fraction, 2/9: neither is a
number a platform reads) or ``essay`` (a ``design`` exercise, whose answers
are graded by their check; the reference answer goes to the grader). Every
answer keeps its blank's id.

>>> from symattn.worksheets import sheet as worksheet
>>> sheets = worksheet.build(seed=7, variants=2, kinds=("softmax_table",))
>>> found = questions(sheets)
>>> len(found), found[0].answer.kind, found[0].answer.value, found[0].answer.tolerance
(18, 'numerical', '7.389', '0.0005')
>>> found[0].category == found[8].category != found[9].category
True
>>> exercise = items(sheets)
>>> len(exercise), [a.blank for a in exercise[0].answers][:3], len(FIELD.findall(exercise[0].text))
(2, ['e1', 'a1', 'e2'], 9)
"""

from __future__ import annotations

__all__ = ["Answer", "Question", "Item", "questions", "items", "by_category", "html_text",
           "plain_text", "fill_fields", "FIELD"]

import html
import re
from dataclasses import dataclass
from typing import Any, Callable, Sequence, TypeVar

from symattn import messages
from symattn.render.exports.slip_answers import SlipAnswers, Wrong
from symattn.render.worksheet import _Context, number_math
from symattn.values.exact import NEG_INF
from symattn.worksheets.model import (Blank, Blanks, Choice, Exercise, Fragment, Given, Grid,
                                      Table, Text, User)
from symattn.worksheets.sheet import Worksheet

_USER = re.compile("\ue000(\\d+)\ue001")
MINUS_INFINITY = ("-inf", "-∞", "−∞", "-oo")
# Where an exercise question's k-th answer field stands in its HTML (each format puts its
# own field there).
FIELD = re.compile("\ue002(\\d+)\ue003")
_ALL = Blank("", "", None)       # "every blank asked": each shown boxed with its label


@dataclass(frozen=True)
class Answer:
    """What a platform grades: ``kind`` and the strings for it."""

    kind: str                                # numerical | multichoice | shortanswer | essay
    value: str = ""                          # numerical: a decimal with a point
    tolerance: str = "0"                     # numerical: absolute, a decimal with a point
    unit: str = ""                           # numerical: the unit the answer is in
    options: tuple[tuple[str, bool], ...] = ()   # multichoice: (HTML, right?)
    accepted: tuple[str, ...] = ()           # shortanswer: every accepted spelling
    reference: str = ""                      # essay: the reference answer (HTML)
    wrong: tuple[Wrong, ...] = ()            # numerical: the slips' answers, scored 0
    blank: str = ""                          # the blank's id (the answers file's)
    label: str = ""                          # the blank's label (HTML math)


@dataclass(frozen=True)
class Question:
    category: tuple[str, ...]                # path below the course's top category
    name: str
    idnumber: str                            # unique in the class set
    variant: int
    text: str                                # HTML
    answer: Answer


@dataclass(frozen=True)
class Item:
    """One exercise of one variant as one question: ``text`` (HTML) holds a ``FIELD``
    mark for each of ``answers``, in order."""

    category: tuple[str, ...]                # path below the course's top category
    name: str
    idnumber: str                            # unique in the class set
    variant: int
    text: str
    answers: tuple[Answer, ...]


class _HtmlContext(_Context):
    """Fragments as in the sheet, but user text kept raw until the HTML is made."""

    def __init__(self, catalog: messages.Catalog, locale: str) -> None:
        super().__init__(catalog, locale, key=False)
        self.users: list[str] = []

    def text(self, fragment: Fragment) -> str:
        if isinstance(fragment, User):
            self.users.append(fragment.text)
            return f"\ue000{len(self.users) - 1}\ue001"
        return super().text(fragment)

    def html(self, fragment: Fragment) -> str:
        return html_text(self.text(fragment), self.users)

    def math_html(self, latex: str) -> str:
        return html.escape(rf"\({latex}\)", quote=False)


def html_text(latex_text: str, users: Sequence[str] = ()) -> str:
    """A catalog message (LaTeX text with ``$...$`` math) as HTML for MathJax.

    >>> html_text("Round to $0{,}001$~or <less> & more")
    'Round to \\\\(0{,}001\\\\)\\xa0or &lt;less&gt; &amp; more'
    """
    out = []
    for k, piece in enumerate(latex_text.split("$")):
        if k % 2:
            out.append(html.escape(rf"\({piece}\)", quote=False))
        else:
            piece = piece.replace("~", "\u00a0")
            piece = re.sub(r"\\texttt\{([^}]*)\}", r"\1", piece)
            out.append(html.escape(piece, quote=False))
    text = "".join(out)
    return _USER.sub(lambda m: html.escape(users[int(m.group(1))], quote=False), text)


def plain_text(latex_text: str) -> str:
    """A catalog heading as plain text (names and categories): no ``$``, no ties.

    >>> plain_text("Zadanie 1: Zapytania i~klucze")
    'Zadanie 1: Zapytania i klucze'
    """
    return " ".join(latex_text.replace("$", "").replace("~", " ").split())


def _matrix(rows: Sequence[Sequence[Any]], context: _HtmlContext, asked: Blank | None) -> str:
    cells = []
    for row in rows:
        cells.append(" & ".join(_cell(c, context, asked) for c in row))
    return r"\begin{bmatrix}" + r" \\ ".join(cells) + r"\end{bmatrix}"


def _cell(cell: Any, context: _HtmlContext, asked: Blank | None) -> str:
    if isinstance(cell, Blank):
        if asked is _ALL:
            return rf"\boxed{{{cell.label}}}"
        return r"\boxed{?}" if cell is asked else r"\ldots"
    return context.math(cell)


def _part_html(part: Any, context: _HtmlContext, asked: Blank | None) -> str:
    """A part of the exercise as HTML: the asked blank as a boxed question mark."""
    caption = f"<p>{context.html(part.caption)}</p>" if getattr(part, "caption", None) else ""
    if isinstance(part, Text):
        return f"<p>{context.html(part.message)}</p>"
    if isinstance(part, Given):
        items = r" \quad ".join(f"{label} = {_matrix(rows, context, None)}"
                                for label, rows in part.items)
        return caption + f"<p>{context.math_html(items)}</p>"
    if isinstance(part, Grid):
        grid = part.label + " = " + _matrix(part.rows, context, asked)
        return caption + f"<p>{context.math_html(grid)}</p>"
    if isinstance(part, Table):
        return caption + _table_html(part, context, asked)
    if isinstance(part, Blanks) and asked in part.blanks:
        asked_math = context.math_html(asked.label + r" = \boxed{?}")
        return caption + f"<p>{asked_math}</p>"
    if isinstance(part, Choice) and part.blank is asked:
        return caption
    return ""


def _table_html(part: Table, context: _HtmlContext, asked: Blank | None) -> str:
    head = "".join(f"<th>{context.html(h)}</th>" for h in part.header)
    rows = []
    for row in part.rows:
        cells = []
        for cell in row:
            if isinstance(cell, Blank):
                cells.append(f"<td>{context.math_html(_cell(cell, context, asked))}</td>")
            else:
                cells.append(f"<td>{context.html(cell)}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _answer(blank: Blank, part: Choice | None, context: _HtmlContext,
            slips: SlipAnswers) -> Answer:
    label = context.math_html(blank.label)
    if blank.kind == "choice" and part is not None:
        options = tuple((f"({blank.mark(k, context.locale)}) {context.html(label)}",
                         option == blank.value)
                        for k, (option, label) in enumerate(zip(blank.options, part.labels)))
        return Answer("multichoice", options=options, blank=blank.id, label=label)
    if blank.kind == "design":
        reference = context.math_html(number_math_vector(blank.value, context.locale))
        return Answer("essay", reference=reference, blank=blank.id, label=label)
    if blank.kind == "size":
        return Answer("numerical", str(blank.value), "0", unit=blank.unit, blank=blank.id,
                      label=label)
    if blank.value is NEG_INF:
        return Answer("shortanswer", accepted=MINUS_INFINITY, blank=blank.id, label=label)
    shown = blank.expected("en")
    if "/" in shown:                # a fraction (2/9) is no number a platform reads
        return Answer("shortanswer", accepted=(shown, shown.replace("/", " / ")),
                      blank=blank.id, label=label)
    return Answer("numerical", blank.expected("en"), blank.tolerance_text(),
                  wrong=slips.of(blank), blank=blank.id, label=label)


def number_math_vector(values: Sequence[Any], locale: str) -> str:
    return r"\begin{bmatrix}" + " & ".join(number_math(v, None, locale) for v in values) + \
        r"\end{bmatrix}"


def _holds(part: Any, blank: Blank) -> bool:
    """Whether ``part`` lays out ``blank`` (the part then differs per asked blank)."""
    if isinstance(part, Blanks):
        return any(b is blank for b in part.blanks)
    if isinstance(part, (Grid, Table)):
        return any(cell is blank for row in part.rows for cell in row)
    return isinstance(part, Choice) and part.blank is blank


def _heading(catalog: messages.Catalog, number: int, exercise: Exercise) -> str:
    title = catalog.text(f"kind.{exercise.kind}.title")
    return plain_text(catalog.fill("sheet.exercise", number=str(number), title=title))


def _instructions(sheet: Worksheet, context: _HtmlContext) -> str:
    return context.html(context.catalog.fill("sheet.instructions", unit=number_math(
        _unit(sheet.places), None, sheet.language)))


def _choice_of(exercise: Exercise, blank: Blank) -> Choice | None:
    return next((p for p in exercise.parts if isinstance(p, Choice) and p.blank is blank),
                None)


def _exercise_questions(sheet: Worksheet, number: int, exercise: Exercise,
                        catalog: messages.Catalog, top: str) -> list[Question]:
    heading = _heading(catalog, number, exercise)
    context = _HtmlContext(catalog, sheet.language)
    instructions = _instructions(sheet, context)
    slips = SlipAnswers(exercise, sheet.language, sheet.places, html_text)
    shared = [_part_html(part, context, None) for part in exercise.parts]   # no blank asked
    out = []
    for blank in exercise.blanks:
        choice = _choice_of(exercise, blank)
        body = "".join(_part_html(part, context, blank) if _holds(part, blank) else shared[k]
                       for k, part in enumerate(exercise.parts))
        unit = f"<p>({html.escape(blank.unit)})</p>" if blank.kind == "size" and blank.unit \
            else ""
        out.append(Question(
            category=(top, heading, plain_text(catalog.fill("lms.variant",
                                                             number=str(sheet.variant)))),
            name=f"{heading} - {blank.id} - {sheet.variant}",
            idnumber=f"s{sheet.seed}-v{sheet.variant}-e{number}-{blank.id}",
            variant=sheet.variant, text=f"<p><em>{instructions}</em></p>{body}{unit}",
            answer=_answer(blank, choice, context, slips)))
    return out


def field(k: int) -> str:
    """The mark of answer ``k``'s field in an item's HTML."""
    return f"\ue002{k}\ue003"


def fill_fields(text: str, render: Callable[[int], str]) -> str:
    """An item's HTML with each field mark replaced by ``render(k)``."""
    return FIELD.sub(lambda m: render(int(m.group(1))), text)


def _field_lines(blanks: Sequence[Blank], order: dict[int, int], context: _HtmlContext,
                 ) -> str:
    """``label = FIELD`` per blank (a choice or a design: the field alone, a block)."""
    lines = []
    for blank in blanks:
        mark = field(order[id(blank)])
        if blank.kind in ("choice", "design"):
            lines.append(f"<div>{mark}</div>")
            continue
        unit = f" {html.escape(blank.unit)}" if blank.kind == "size" and blank.unit else ""
        lines.append(f"<p>{context.math_html(blank.label + ' =')} {mark}{unit}</p>")
    return "".join(lines)


def _part_blanks(part: Any) -> list[Blank]:
    if isinstance(part, Blanks):
        return list(part.blanks)
    if isinstance(part, Choice):
        return [part.blank]
    if isinstance(part, (Grid, Table)):
        return [cell for row in part.rows for cell in row if isinstance(cell, Blank)]
    return []


def _item_html(exercise: Exercise, context: _HtmlContext) -> str:
    """The exercise with every blank boxed by its label, each part followed by the fields
    of its blanks."""
    order = {id(blank): k for k, blank in enumerate(exercise.blanks)}
    out = []
    for part in exercise.parts:
        blanks = _part_blanks(part)
        if isinstance(part, (Blanks, Choice)):
            caption = f"<p>{context.html(part.caption)}</p>" if part.caption else ""
            out.append(caption + _field_lines(blanks, order, context))
        else:
            out.append(_part_html(part, context, _ALL) + _field_lines(blanks, order, context))
    return "".join(out)


def _exercise_item(sheet: Worksheet, number: int, exercise: Exercise,
                   catalog: messages.Catalog, top: str) -> Item:
    heading = _heading(catalog, number, exercise)
    context = _HtmlContext(catalog, sheet.language)
    slips = SlipAnswers(exercise, sheet.language, sheet.places, html_text)
    answers = tuple(_answer(blank, _choice_of(exercise, blank), context, slips)
                    for blank in exercise.blanks)
    text = f"<p><em>{_instructions(sheet, context)}</em></p>{_item_html(exercise, context)}"
    return Item(category=(top, heading), name=f"{heading} - {sheet.variant}",
                idnumber=f"s{sheet.seed}-v{sheet.variant}-e{number}", variant=sheet.variant,
                text=text, answers=answers)


def _unit(places: int) -> Any:
    from flint import fmpq

    return fmpq(1, 10 ** places)


def _top(sheet: Worksheet, catalog: messages.Catalog) -> str:
    title = sheet.title or plain_text(catalog.text("sheet.title"))
    return f"{title} ({sheet.language}, {sheet.seed})"


def questions(sheets: Sequence[Worksheet]) -> list[Question]:
    """One question per blank per variant, in sheet order, variant by variant."""
    out: list[Question] = []
    for sheet in sheets:
        catalog = messages.load(sheet.language)
        top = _top(sheet, catalog)
        for number, exercise in enumerate(sheet.exercises, 1):
            out.extend(_exercise_questions(sheet, number, exercise, catalog, top))
    return out


def items(sheets: Sequence[Worksheet]) -> list[Item]:
    """One question per exercise per variant, in sheet order, variant by variant."""
    out: list[Item] = []
    for sheet in sheets:
        catalog = messages.load(sheet.language)
        top = _top(sheet, catalog)
        out.extend(_exercise_item(sheet, number, exercise, catalog, top)
                   for number, exercise in enumerate(sheet.exercises, 1))
    return out


_Q = TypeVar("_Q", Question, Item)


def by_category(found: Sequence[_Q]) -> dict[tuple[str, ...], list[_Q]]:
    """The questions grouped by category, categories in sheet order."""
    out: dict[tuple[str, ...], list[_Q]] = {}
    for item in found:
        out.setdefault(item.category, []).append(item)
    return out
