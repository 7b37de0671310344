"""Moodle XML: one question per exercise and variant, one category per exercise.

The structure is what Moodle's importer (``question/format/xml/format.php``)
reads: ``<quiz>`` of ``<question type="category">`` (the path in
``<category><text>``, below ``$course$/top``) and one question per exercise
of each variant, each with ``<name><text>``, ``<questiontext
format="html"><text>`` and ``<idnumber>``:

* ``cloze`` (embedded answers) for an exercise of several blanks: the
  exercise's text with a field after each part for each of its blanks
  (``cloze.field``: a number within its tolerance, the slips' numbers scored
  0 with their feedback; a choice; a masked entry);
* for an exercise of one blank, that blank's own type: ``numerical``
  (``<answer fraction="100"><text>`` the value ``</text><tolerance>`` the
  absolute tolerance ``</tolerance>``, then each slip's answer at fraction 0
  with its ``<feedback>``), ``multichoice`` (``<single>true``, one answer
  with fraction 100) or ``shortanswer`` (a masked entry, several accepted
  spellings);
* ``essay`` for a design exercise (graded by a person: the reference
  answers in ``<graderinfo>``), as embedded answers have no essay field.

A category holds one exercise in every variant, so a quiz that takes a random
question from each category gives a student every blank of an exercise from
one variant. ElementTree writes the file, so every string is XML-escaped,
through ``xml_text.serialise`` (characters XML forbids taken out); names of
categories are HTML-escaped, as Moodle shows them as HTML.

>>> from symattn.worksheets import sheet as worksheet
>>> xml = document(worksheet.build(seed=7, variants=2, kinds=("temperature",)))
>>> xml.count(b'<question type="cloze">'), xml.count(b'<question type="numerical">')
(2, 0)
"""

from __future__ import annotations

__all__ = ["document", "category_path"]

import html
import xml.etree.ElementTree as ET
from typing import Sequence

from symattn.render.exports.cloze import field as cloze_field, text as cloze_text
from symattn.render.exports.questions import Answer, Item, by_category, fill_fields, items
from symattn.render.exports.xml_text import serialise
from symattn.worksheets.sheet import Worksheet


def category_path(parts: Sequence[str]) -> str:
    """``$course$/top/...``, a slash inside a name doubled (Moodle's escape), each name
    HTML-escaped on one line.

    >>> category_path(["Sheet 1/2", "<b>\\n&"])
    '$course$/top/Sheet 1//2/&lt;b&gt; &amp;'
    """
    return "/".join(["$course$", "top"] + [" ".join(html.escape(p, quote=False).split())
                                           .replace("/", "//") for p in parts])


def _text(parent: ET.Element, tag: str, text: str, **attributes: str) -> ET.Element:
    element = ET.SubElement(parent, tag, attributes)
    ET.SubElement(element, "text").text = text
    return element


def _category(quiz: ET.Element, path: str) -> None:
    question = ET.SubElement(quiz, "question", {"type": "category"})
    _text(question, "category", path)


def _answer(question: ET.Element, answer: Answer) -> None:
    if answer.kind == "numerical":
        element = _text(question, "answer", answer.value, fraction="100",
                        format="moodle_auto_format")
        ET.SubElement(element, "tolerance").text = answer.tolerance
        _text(element, "feedback", "", format="html")
        for wrong in answer.wrong:
            element = _text(question, "answer", wrong.value, fraction="0",
                            format="moodle_auto_format")
            ET.SubElement(element, "tolerance").text = wrong.tolerance
            _text(element, "feedback", wrong.feedback, format="html")
        ET.SubElement(question, "unitgradingtype").text = "0"
        ET.SubElement(question, "unitpenalty").text = "0.1000000"
        ET.SubElement(question, "showunits").text = "3"
        ET.SubElement(question, "unitsleft").text = "0"
    elif answer.kind == "multichoice":
        ET.SubElement(question, "single").text = "true"
        ET.SubElement(question, "shuffleanswers").text = "false"
        ET.SubElement(question, "answernumbering").text = "none"
        for text, right in answer.options:
            element = _text(question, "answer", text, fraction="100" if right else "0",
                            format="html")
            _text(element, "feedback", "", format="html")
    elif answer.kind == "shortanswer":
        ET.SubElement(question, "usecase").text = "0"
        for text in answer.accepted:
            element = _text(question, "answer", text, fraction="100", format="moodle_auto_format")
            _text(element, "feedback", "", format="html")
    else:
        ET.SubElement(question, "responseformat").text = "editor"
        ET.SubElement(question, "responserequired").text = "1"
        ET.SubElement(question, "responsefieldlines").text = "5"
        _text(question, "graderinfo", answer.reference, format="html")
        _text(question, "responsetemplate", "", format="html")


def _question(quiz: ET.Element, kind: str, item: Item, text: str) -> ET.Element:
    question = ET.SubElement(quiz, "question", {"type": kind})
    _text(question, "name", item.name)
    _text(question, "questiontext", text, format="html")
    _text(question, "generalfeedback", "", format="html")
    ET.SubElement(question, "defaultgrade").text = f"{_grade(item)}.0000000"
    ET.SubElement(question, "penalty").text = "0.3333333"
    ET.SubElement(question, "hidden").text = "0"
    ET.SubElement(question, "idnumber").text = item.idnumber
    return question


def _grade(item: Item) -> int:
    """A mark per blank (Cloze adds up its fields' marks of 1)."""
    return max(1, len(item.answers))


def _reference(item: Item) -> str:
    """Every blank's reference answer, for the grader of an essay."""
    lines = []
    for answer in item.answers:
        if answer.kind == "essay":
            shown = answer.reference
        elif answer.kind == "multichoice":
            shown = next(text for text, right in answer.options if right)
        elif answer.kind == "shortanswer":
            shown = answer.accepted[0]
        else:
            shown = f"{answer.value} {answer.unit}".strip()
        lines.append(f"<p>{answer.label}: {shown}</p>")
    return "".join(lines)


def _options(answer: Answer) -> str:
    return "".join(f"<p>{text}</p>" for text, _ in answer.options)


def _item(quiz: ET.Element, item: Item) -> None:
    kinds = {answer.kind for answer in item.answers}
    if "essay" in kinds:
        text = fill_fields(item.text, lambda k: _options(item.answers[k]))
        question = _question(quiz, "essay", item, text)
        _answer(question, Answer("essay", reference=_reference(item)))
    elif len(item.answers) == 1:
        question = _question(quiz, item.answers[0].kind, item, fill_fields(
            item.text, lambda k: ""))
        _answer(question, item.answers[0])
    else:
        _question(quiz, "cloze", item, fill_fields(
            cloze_text(item.text), lambda k: cloze_field(item.answers[k])))


def document(sheets: Sequence[Worksheet]) -> bytes:
    """The Moodle XML file of a class set (UTF-8)."""
    quiz = ET.Element("quiz")
    for category, found in by_category(items(sheets)).items():
        _category(quiz, category_path(category))
        for item in found:
            _item(quiz, item)
    return serialise(quiz)
