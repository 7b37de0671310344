"""GIFT: Moodle's plain-text question format, one ``$CATEGORY`` per exercise and variant.

GIFT has one answer block per question and no embedded answers, so each blank
of an exercise is its own question, and the questions of one exercise in one
variant share a category (``.../Exercise 1: .../Variant 3``): a quiz made of
one variant's categories asks every blank from that variant.

``::name::[html]text{#value:tolerance}`` for a number (with slips:
``{#=value:tolerance =%0%slipped:tolerance#feedback ...}``, each slip's number
scored 0 with its feedback), ``{=right ~wrong ...}``
for a choice, ``{=a =b}`` for a short answer and ``{####reference}`` for an essay (the
reference answer as general feedback). Every
string passes ``escape``: on one line (line breaks and other control characters
folded into a space, so no string starts a question or a category of its own),
and ``~ = # { } :`` and the backslash get a backslash; a category's line, which
GIFT reads to its end without escapes, is only folded.

>>> escape("a{b}: 1=2 ~ #3 \\\\(x\\\\)")
'a\\\\{b\\\\}\\\\: 1\\\\=2 \\\\~ \\\\#3 \\\\\\\\(x\\\\\\\\)'
"""

from __future__ import annotations

__all__ = ["document", "escape", "SPECIAL"]

import re
from typing import Sequence

from symattn.render.exports.moodle import category_path
from symattn.render.exports.questions import Answer, Question, by_category, questions
from symattn.worksheets.sheet import Worksheet

SPECIAL = "\\~=#{}:"


# Line breaks (those Python's splitlines and PHP's readers know) and other controls, and lone
# surrogates, which UTF-8 cannot write.
_BREAKS = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]+|[\ud800-\udfff]")


def escape(text: str, special: str = SPECIAL) -> str:
    """``text`` on one line, with GIFT's ``special`` characters escaped.

    >>> escape("T\\n::INJ::{=x}"), escape("$a\\r\\nb:", special="")
    ('T \\\\:\\\\:INJ\\\\:\\\\:\\\\{\\\\=x\\\\}', '$a b:')
    """
    folded = _BREAKS.sub(lambda m: "" if "\ud800" <= m.group() <= "\udfff" else " ", text)
    return "".join("\\" + c if c in special else c for c in folded)


def _answer(answer: Answer) -> str:
    if answer.kind == "numerical" and answer.wrong:
        return f"{{#={answer.value}:{answer.tolerance}" + "".join(
            f" =%0%{wrong.value}:{wrong.tolerance}#{escape(wrong.feedback)}"
            for wrong in answer.wrong) + "}"
    if answer.kind == "numerical":
        return f"{{#{answer.value}:{answer.tolerance}}}"
    if answer.kind == "multichoice":
        return "{" + " ".join(("=" if right else "~") + escape(text)
                              for text, right in answer.options) + "}"
    if answer.kind == "shortanswer":
        return "{" + " ".join("=" + escape(text) for text in answer.accepted) + "}"
    return f"{{####{escape(answer.reference)}}}"        # an essay; the reference as feedback


def _question(item: Question) -> str:
    return f"::{escape(item.name)}::[html]{escape(item.text)}{_answer(item.answer)}\n"


def document(sheets: Sequence[Worksheet]) -> bytes:
    """The GIFT file of a class set (UTF-8)."""
    lines = []
    for category, items in by_category(questions(sheets)).items():
        lines.append(f"$CATEGORY: {escape(category_path(category), special='')}\n")
        lines.extend(f"// {escape(item.idnumber)}\n" + _question(item) for item in items)
    return "\n".join(lines).encode("utf-8")
