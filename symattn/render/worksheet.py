"""A worksheet and its answer key as LaTeX, in one of five languages.

``render(sheet, key=False)`` turns the language-free exercises of a
``sheet.Worksheet`` into strings - prose from the message catalog of the
sheet's language, numbers from ``NumberFormat`` with its decimal separator,
user text escaped by ``latex.escape_text`` - and lays them out with
``templates/worksheet.tex.j2``. The key shows every blank filled in and, per
exercise, the derivation from ``latex_document.render_steps`` (the worked
example's own step templates, in the same language).

The preamble sets up babel for the language, the T1 and T2A font encodings
(Cyrillic text, and Czech and Polish letters, with pdflatex) and UTF-8 input.

>>> from symattn.worksheets import sheet as worksheet
>>> sheet = worksheet.build(seed=1, language="pl", kinds=("softmax_table",))[0]
>>> tex = render(sheet)
>>> "\\\\usepackage[polish]{babel}" in tex, "Tabela softmaksu" in tex
(True, True)
"""

from __future__ import annotations

__all__ = ["render", "sheet_latex", "key_latex", "BABEL", "blank_width", "number_math",
           "fraction_math", "ExerciseView"]

from dataclasses import dataclass
from functools import singledispatch
from pathlib import Path
from typing import Any, Callable, Sequence

from flint import fmpq

from symattn import messages
from symattn.render import engines
from symattn.render import latex
from symattn.render import templating
from symattn._version import __version__
from symattn.worksheets.model import (Blank, Blanks, Choice, Exercise, Fragment, Given, Grid,
                                      Math, Msg, Num, Part, Sentence, Table, Text, User)
from symattn.worksheets.model import decimal_value
from symattn.worksheets.sheet import Worksheet
from symattn.values.number_format import NumberFormat
from symattn.render.worksheet_math import (blank_width, formula_math, fraction_math, grouped,
                                             number_math, tie_last_formula)
from symattn.messages import Catalog

BABEL = {"en": "english", "pl": "polish", "cs": "czech", "ru": "russian", "uk": "ukrainian"}
CYRILLIC = ("ru", "uk")
INLINE_CHOICES = 80        # options this long in all (characters of LaTeX) share a line


# ----------------------------------------------------------------- fragments
class _Context:
    def __init__(self, catalog: Catalog, locale: str, key: bool, places: int = 3) -> None:
        self.catalog = catalog
        self.locale = locale
        self.key = key
        self.places = places

    def math(self, fragment: Fragment) -> str:
        """A fragment as math (Num, Math) or as text wrapped for math (the rest)."""
        if isinstance(fragment, Num):
            return number_math(fragment.value, fragment.places, self.locale)
        if isinstance(fragment, Math):
            return fragment.latex
        return rf"\text{{{self.text(fragment)}}}"

    def text(self, fragment: Fragment) -> str:
        """A fragment as text: messages filled, user text escaped, numbers in $...$."""
        if isinstance(fragment, str):
            return fragment
        if isinstance(fragment, (Num, Math)):
            return f"${self.math(fragment)}$"
        if isinstance(fragment, User):
            return latex.escape_text(fragment.text)
        if isinstance(fragment, Sentence):      # each token numbered: cat_1 eat_2 fish_3
            return " ".join(self.catalog.fill("sheet_tokens.token", token=self.text(User(t)),
                                              number=self.math(Num(k)))
                            for k, t in enumerate(fragment.tokens, 1))
        if isinstance(fragment, Msg):
            values = {name: self.param(value) for name, value in fragment.params}
            return tie_last_formula(self.catalog.fill(fragment.id, **values))
        raise TypeError(f"not a fragment: {fragment!r}")

    def param(self, value: Any) -> str:
        """Placeholders: numbers and math as math (the message writes the $...$)."""
        if isinstance(value, (Num, Math)):
            return self.math(value)
        return self.text(value)

    def cell(self, cell: Any, width: str, math: bool = True) -> dict[str, str]:
        """A matrix or table cell: a given fragment, a blank, or (key) the answer."""
        if not isinstance(cell, Blank):
            return {"text": self.math(cell) if math else self.text(cell), "blank": "",
                    "answer": ""}
        return {"text": "", "blank": width, "answer": self.answer(cell) if self.key else ""}

    def answer(self, blank: Blank) -> str:
        """The answer as math, exactly what the key prints."""
        if blank.kind == "size":
            unit = rf"\,\text{{{blank.unit}}}" if blank.unit else ""
            return grouped(int(blank.value)) + unit
        if blank.kind == "choice":
            return rf"\text{{{blank.expected(self.locale)}}}"
        if blank.kind == "fraction":
            return fraction_math(blank.value)
        if blank.kind == "design":
            return r"\begin{bmatrix}" + " & ".join(number_math(x, None, self.locale)
                                                   for x in blank.value) + r"\end{bmatrix}"
        return number_math(blank.value, blank.places, self.locale)


def _width(blanks: Sequence[Blank], context: _Context) -> str:
    kind = "size" if any(b.kind == "size" for b in blanks) else "number"
    return blank_width(kind, context.places)


# --------------------------------------------------------------------- parts
@dataclass(frozen=True)
class PartView:
    """One part for the template: ``type`` and strings (see worksheet.tex.j2)."""

    type: str
    caption: str = ""
    text: str = ""
    items: tuple[Any, ...] = ()
    rows: tuple[Any, ...] = ()
    header: tuple[str, ...] = ()
    columns: str = ""
    label: str = ""


def _matrix(rows: Sequence[Sequence[Any]], context: _Context, width: str) -> tuple[Any, ...]:
    return tuple(tuple(context.cell(c, width) for c in row) for row in rows)


def _caption(part: Given | Blanks | Grid | Table | Choice, context: _Context) -> str:
    return context.text(part.caption) if part.caption else ""


@singledispatch
def _part(part: Part, context: _Context) -> PartView:
    """One part of an exercise as strings for the template, by the part's type."""
    raise TypeError(f"unknown part {part!r}")


@_part.register
def _text(part: Text, context: _Context) -> PartView:
    return PartView("text", text=context.text(part.message))


@_part.register
def _given(part: Given, context: _Context) -> PartView:
    items = tuple({"label": label, "rows": _matrix(rows, context, "")}
                  for label, rows in part.items)
    tall = any("frac" in cell["text"] for item in items for row in item["rows"] for cell in row)
    return PartView("given", _caption(part, context), items=items, label="tall" if tall else "")


@_part.register
def _blanks(part: Blanks, context: _Context) -> PartView:
    width = _width(part.blanks, context)
    items = tuple({"label": b.label, **context.cell(b, width)} for b in part.blanks)
    return PartView("blanks", _caption(part, context), items=items)


@_part.register
def _grid(part: Grid, context: _Context) -> PartView:
    blanks = [c for row in part.rows for c in row if isinstance(c, Blank)]
    return PartView("grid", _caption(part, context), label=part.label,
                    rows=_matrix(part.rows, context, _width(blanks, context)),
                    columns="c" * max((len(row) for row in part.rows), default=1))


@_part.register
def _table(part: Table, context: _Context) -> PartView:
    caption = _caption(part, context)
    blanks = [c for row in part.rows for c in row if isinstance(c, Blank)]
    width = _width(blanks, context)
    rows = tuple(tuple(context.cell(c, width, math=False) for c in row) for row in part.rows)
    header = tuple(context.text(h) for h in part.header)
    columns = "".join("l" if all(isinstance(row[k], Msg) for row in part.rows) else "c"
                      for k in range(len(part.header)))
    note = ""
    if context.key:
        rows, note = _key_sums(part, rows, context)
    return PartView("table", caption, rows=rows, header=header, columns=columns, text=note)


def _key_sums(part: Table, rows: tuple[Any, ...], context: _Context
              ) -> tuple[tuple[Any, ...], str]:
    """In the key, a sum row's 1 under a column of rounded answers (the weights)
    becomes the sum of the answers as printed (0.999), with a note why."""
    if not part.rows or Num(1) not in part.rows[-1]:
        return rows, ""
    column = part.rows[-1].index(Num(1))
    answers = [row[column] for row in part.rows[:-1]]
    if not all(isinstance(b, Blank) and b.kind == "number" for b in answers):
        return rows, ""
    printed = [b.value if b.places is None else decimal_value(b.value, b.places)
               for b in answers]
    places = max((b.places or 0 for b in answers), default=0)
    total = sum(printed, fmpq(0))
    if total == 1:
        return rows, ""
    shown = number_math(total, places, context.locale)
    last = tuple({"text": shown, "blank": "", "answer": ""} if k == column else cell
                 for k, cell in enumerate(rows[-1]))
    return rows[:-1] + (last,), context.catalog.fill("selfcheck.rounded_sum_key",
                                                     weights=shown)


@_part.register
def _choice(part: Choice, context: _Context) -> PartView:
    caption = _caption(part, context)
    blank = part.blank
    labelled = [(option, context.text(label)) for option, label in zip(blank.options, part.labels)]
    options = tuple({"mark": blank.mark(k, context.locale), "text": text,
                     "correct": context.key and option == blank.value}
                    for k, (option, text) in enumerate(labelled))
    inline = sum(len(text) + 8 for _, text in labelled) <= INLINE_CHOICES
    return PartView("choice", caption, items=options, label="inline" if inline else "")


# ------------------------------------------------------------------ key steps
def _derivation(exercise: Exercise, context: _Context) -> tuple[dict[str, str], ...]:
    """The key's derivations: the chosen steps of each problem, in the sheet's language."""
    from symattn.worksheets.answers import derive_spec
    from symattn.render import worked
    from symattn.render.latex_document import render_steps

    out = []
    for key_step in exercise.key_steps:
        derivation = derive_spec(exercise.problems[key_step.problem])
        number_format = NumberFormat(digits=None, places=key_step.places, locale=context.locale)
        options = worked.Options(number_format=number_format, language=context.catalog.language,
                                 expand_rows=key_step.rows or (), limit=None)
        body = render_steps(derivation, options, key_step.steps)
        caption = context.text(key_step.caption) if key_step.caption else ""
        out.append({"caption": caption, "body": body})
    return tuple(out)


def _sizes(exercise: Exercise, context: _Context) -> tuple[dict[str, str], ...]:
    """The key's working for size questions: formula, numbers, value."""
    if not exercise.sizes:
        return ()
    from symattn import sizes

    computed = sizes.compute(sizes.ModelShape(**exercise.problems[0]["sizes"]))
    blanks = {blank.id: blank for blank in exercise.blanks}
    lines = []
    for name in exercise.sizes:
        quantity = computed.quantity(name)
        blank = blanks[name]
        value = grouped(int(quantity.value))
        unit = r"\,\text{B}" if quantity.kind == "bytes" else ""
        answer = context.answer(blank) if blank.unit not in ("", "B") else ""
        lines.append({"name": context.text(Msg.of(f"kind.sizes.{name}")),
                      "formula": formula_math(quantity.formula),
                      "substituted": formula_math(quantity.substituted),
                      "value": value + unit, "answer": answer})
    return tuple(lines)


# ------------------------------------------------------------------ document
def _exercise(number: int, exercise: Exercise, context: _Context) -> dict[str, Any]:
    catalog = context.catalog
    view: dict[str, Any] = {
        "number": str(number),
        "title": catalog.text(f"kind.{exercise.kind}.title"),
        "parts": tuple(_part(part, context) for part in exercise.parts),
        "notes": (), "derivations": (), "sizes": ()}
    if context.key:
        view["notes"] = tuple(context.text(note.message) for note in exercise.notes)
        view["derivations"] = _derivation(exercise, context)
        view["sizes"] = _sizes(exercise, context)
    return view


ExerciseView = Callable[[int, Exercise, "_Context"], dict[str, Any]]


def render(sheet: Worksheet, key: bool = False, template_dir: str | Path | None = None,
           short: ExerciseView | None = None) -> str:
    """The LaTeX of a worksheet (``key=False``), of its answer key, or of its short
    key (``short``: the view of an exercise there, ``worksheet_short``)."""
    from symattn.worksheets.presets import space_of

    catalog = messages.load(sheet.language)
    key = key or short is not None
    context = _Context(catalog, sheet.language, key, sheet.places)
    view = short or _exercise
    exercises = tuple(view(k, e, context) for k, e in enumerate(sheet.exercises, 1))
    free = sheet.numbers == "calculator-free"
    # The sheet shows a neutral code only; the key maps it back to the variant and seed.
    variant = catalog.fill("sheet_lesson.key_variant", code=sheet.code,
                           variant=str(sheet.variant), variants=str(sheet.variants),
                           seed=str(sheet.seed)) if key else \
        catalog.fill("sheet_lesson.code", code=sheet.code)
    title = latex.escape_text(sheet.title) if sheet.title else catalog.text("sheet.title")
    document = {
        "language": sheet.language, "babel": BABEL[sheet.language],
        "encodings": "T1,T2A" if sheet.language in CYRILLIC else "T2A,T1",
        "key": key, "title": title, "variant": variant, "max_columns": "20",
        "cyrillic": sheet.language in CYRILLIC,
        "heading": catalog.text("sheet_lesson.short_heading" if short is not None else
                                "sheet.key_heading" if key else "sheet.heading"),
        "instructions": catalog.text("sheet_lesson.instructions_free") if free else
        catalog.fill("sheet.instructions", unit=number_math(fmpq(1, 10 ** sheet.places), None,
                                                            sheet.language)),
        "short": short is not None, "space": "" if key else space_of(sheet.preset),
        # A lesson's sheet fits two pages: a smaller type and narrower margins.
        "fontsize": "10pt" if space_of(sheet.preset) else "11pt",
        "margin": "1.6cm" if space_of(sheet.preset) else "2cm",
        "exercises": exercises}
    return engines.render_for_engine(lambda tex: templating.render(
        "worksheet.tex.j2", template_dir, messages=catalog, doc=document, version=__version__,
        tex=tex), None, sheet.language)


def sheet_latex(sheet: Worksheet, template_dir: str | Path | None = None) -> str:
    """The LaTeX of the worksheet a class fills in."""
    return render(sheet, key=False, template_dir=template_dir)


def key_latex(sheet: Worksheet, template_dir: str | Path | None = None) -> str:
    """The LaTeX of the sheet's answer key."""
    return render(sheet, key=True, template_dir=template_dir)

