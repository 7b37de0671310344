"""Moodle's embedded answers (Cloze): one field of a multianswer question as text.

A field is ``{1:TYPE:alternatives}``: ``1`` its marks, ``TYPE`` ``NUMERICAL``,
``MULTICHOICE_V`` (radio buttons under each other, which show HTML and math),
or ``SHORTANSWER``; alternatives separated by ``~``, each with its grade
(``=`` right, ``%0%`` scored 0, nothing: wrong), the answer (a number:
``value:tolerance``), and its feedback after ``#``. Inside an answer or a
feedback the characters ``} # ~ / " \\`` get a backslash (Moodle's
documentation of embedded answers; its parser ends an answer at an unescaped
``~ # }`` and a feedback at an unescaped ``~ }``). The question's own text
has every ``{`` as the HTML entity ``&#123;`` (``text``): the browser and
MathJax see the brace, Moodle's parser, which reads the HTML source, never
sees a field where a token or title wrote ``{1:SA:=x}``.

>>> escape('a}b#c~d/e"f\\\\g')
'a\\\\}b\\\\#c\\\\~d\\\\/e\\\\"f\\\\\\\\g'
>>> from symattn.render.exports.questions import Answer
>>> from symattn.render.exports.slip_answers import Wrong
>>> field(Answer("numerical", "0.309", "0.0005",
...              wrong=(Wrong("0.412", "0.0005", ("no_scaling",), "no #1"),)))
'{1:NUMERICAL:=0.309:0.0005~%0%0.412:0.0005#no \\\\#1}'
"""

from __future__ import annotations

__all__ = ["escape", "field", "text", "SPECIAL"]

from symattn.render.exports.questions import Answer

SPECIAL = '\\}#~/"'


def escape(text: str) -> str:
    """``text`` fit for a Cloze answer or feedback (the backslash first)."""
    return "".join("\\" + c if c in SPECIAL else c for c in text)


def text(html: str) -> str:
    """A question's HTML with no ``{`` that could start a field.

    >>> text(r"\\(e^{z}\\) {1:SA:=x}")
    '\\\\(e^&#123;z}\\\\) &#123;1:SA:=x}'
    """
    return html.replace("{", "&#123;")


def field(answer: Answer) -> str:
    """The Cloze field of a numerical, multichoice or shortanswer answer."""
    if answer.kind == "numerical":
        alternatives = [f"={answer.value}:{answer.tolerance}"] + [
            f"%0%{wrong.value}:{wrong.tolerance}#{escape(wrong.feedback)}"
            for wrong in answer.wrong]
        return "{1:NUMERICAL:" + "~".join(alternatives) + "}"
    if answer.kind == "multichoice":
        return "{1:MULTICHOICE_V:" + "~".join(("=" if right else "") + escape(text)
                                              for text, right in answer.options) + "}"
    if answer.kind == "shortanswer":
        return "{1:SHORTANSWER:" + "~".join("=" + escape(text)
                                            for text in answer.accepted) + "}"
    raise ValueError(f"no Cloze field for an answer of kind {answer.kind}")
