"""Moodle XML: one category per exercise and blank, holding that blank in every variant.

The structure is what Moodle's importer (``question/format/xml/format.php``)
reads: ``<quiz>`` of ``<question type="category">`` (the path in
``<category><text>``, below ``$course$/top``) and questions of type
``numerical`` (``<answer fraction="100"><text>`` the value ``</text>
<tolerance>`` the absolute tolerance ``</tolerance>``), ``multichoice``
(``<single>true``, one answer with fraction 100), ``shortanswer`` (a masked
entry, several accepted spellings) and ``essay`` (a design exercise: the
reference answer in ``<graderinfo>``), each with ``<name><text>``,
``<questiontext format="html"><text>`` and ``<idnumber>``. A quiz then takes
a random question from each category: every question carries its own data.
ElementTree writes the file, so every string is XML-escaped, through
``xml_text.serialise`` (characters XML forbids taken out); names of categories
are HTML-escaped, as Moodle shows them as HTML.

>>> from symattn.worksheets import sheet as worksheet
>>> xml = document(worksheet.build(seed=7, variants=2, kinds=("temperature",)))
>>> xml.count(b'<question type="numerical">'), xml.count(b'<question type="multichoice">')
(18, 2)
"""

from __future__ import annotations

__all__ = ["document", "category_path"]

import html
import xml.etree.ElementTree as ET
from typing import Sequence

from symattn.render.exports.questions import Answer, Question, by_category, questions
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


def _question(quiz: ET.Element, item: Question) -> None:
    question = ET.SubElement(quiz, "question", {"type": item.answer.kind})
    _text(question, "name", item.name)
    _text(question, "questiontext", item.text, format="html")
    _text(question, "generalfeedback", "", format="html")
    ET.SubElement(question, "defaultgrade").text = "1.0000000"
    ET.SubElement(question, "penalty").text = "0.3333333"
    ET.SubElement(question, "hidden").text = "0"
    ET.SubElement(question, "idnumber").text = item.idnumber
    _answer(question, item.answer)


def document(sheets: Sequence[Worksheet]) -> bytes:
    """The Moodle XML file of a class set (UTF-8)."""
    quiz = ET.Element("quiz")
    for category, items in by_category(questions(sheets)).items():
        _category(quiz, category_path(category))
        for item in items:
            _question(quiz, item)
    return serialise(quiz)
