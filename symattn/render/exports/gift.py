"""GIFT: Moodle's plain-text question format, one ``$CATEGORY`` per exercise and blank.

``::name::[html]text{#value:tolerance}`` for a number, ``{=right ~wrong ...}``
for a choice, ``{=a =b}`` for a short answer and ``{####reference}`` for an essay (the
reference answer as general feedback). Every
string is escaped: ``~ = # { } :`` and the backslash get a backslash.

>>> escape("a{b}: 1=2 ~ #3 \\\\(x\\\\)")
'a\\\\{b\\\\}\\\\: 1\\\\=2 \\\\~ \\\\#3 \\\\\\\\(x\\\\\\\\)'
"""

from __future__ import annotations

__all__ = ["document", "escape", "SPECIAL"]

from typing import Sequence

from symattn.render.exports.moodle import category_path
from symattn.render.exports.questions import Answer, Question, by_category, questions
from symattn.worksheets.sheet import Worksheet

SPECIAL = "\\~=#{}:"


def escape(text: str) -> str:
    """``text`` with GIFT's special characters escaped, on one line."""
    out = "".join("\\" + c if c in SPECIAL else c for c in text)
    return " ".join(out.splitlines())


def _answer(answer: Answer) -> str:
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
        lines.append(f"$CATEGORY: {category_path(category)}\n")
        lines.extend(f"// {escape(item.idnumber)}\n" + _question(item) for item in items)
    return "\n".join(lines).encode("utf-8")
