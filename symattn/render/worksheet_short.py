"""The short answer key of a worksheet: every answer and one line of working.

``short_exercise`` turns one exercise into strings for ``worksheet.tex.j2``
(``doc.short``): its answers as ``label = answer`` (a size by its name, a
choice by its option letter and text) and the line of working of
``worksheets.shortkey`` (or, for sizes, the formula of the last quantity).

>>> from symattn.worksheets import sheet as worksheet
>>> tex = short_key_latex(worksheet.build(seed=7, kinds=("softmax_table",))[0])
>>> "Short answer key" in tex, "a_{1} = e^{2}" in tex
(True, True)
"""

from __future__ import annotations

__all__ = ["short_exercise", "short_key_latex"]

from pathlib import Path
from typing import Any

from symattn.render.worksheet import _Context, _sizes, render
from symattn.worksheets.sheet import Worksheet
from symattn.worksheets.model import Blank, Blanks, Choice, Exercise, Grid, Msg, Part, Table
from symattn.worksheets.shortkey import working


def _answer(blank: Blank, context: _Context) -> str:
    if blank.kind == "size":
        name = context.text(Msg.of(f"kind.sizes.{blank.id}"))
        return f"{name}: ${context.answer(blank)}$"
    return f"${blank.label} = {context.answer(blank)}$"


def _blanks(part: Part) -> list[Blank]:
    if isinstance(part, Blanks):
        return list(part.blanks)
    if isinstance(part, Grid):
        return [cell for row in part.rows for cell in row if isinstance(cell, Blank)]
    return []


def _choice(part: Choice, context: _Context) -> str:
    blank = part.blank
    index = blank.options.index(blank.value)
    caption = context.text(part.caption) + " " if part.caption else ""
    return f"{caption}({blank.mark(index, context.locale)})~{context.text(part.labels[index])}"


def _working(exercise: Exercise, context: _Context) -> str:
    line = working(exercise)
    if line and isinstance(line[0], Msg):
        return context.text(line[0])
    if line:
        return "$" + "".join(context.math(fragment) for fragment in line) + "$"
    sizes = _sizes(exercise, context)
    if sizes:
        last = sizes[-1]
        return f"{last['name']}: ${last['formula']} = {last['substituted']} = {last['value']}$"
    return ""


def short_exercise(number: int, exercise: Exercise, context: _Context) -> dict[str, Any]:
    """One exercise of the short key: number, title, answers, one line of working."""
    answers = []
    for part in exercise.parts:
        if isinstance(part, Choice):
            answers.append(_choice(part, context))
        elif isinstance(part, Table):       # column by column: e^z, the sum, then weights
            columns = max((len(row) for row in part.rows), default=0)
            answers.extend(_answer(row[k], context) for k in range(columns)
                           for row in part.rows if k < len(row) and isinstance(row[k], Blank))
        else:
            answers.extend(_answer(blank, context) for blank in _blanks(part))
    return {"number": str(number), "title": context.catalog.text(f"kind.{exercise.kind}.title"),
            "answers": tuple(answers), "working": _working(exercise, context),
            "parts": (), "notes": (), "derivations": (), "sizes": ()}


def short_key_latex(sheet: Worksheet, template_dir: str | Path | None = None) -> str:
    """The LaTeX of the sheet's short key: every answer and one line of working each."""
    return render(sheet, template_dir=template_dir, short=short_exercise)
