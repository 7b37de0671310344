"""QTI 2.1: a content package (zip) of items, a test and a manifest.

Each question is an ``assessmentItem`` (namespace ``imsqti_v2p1``):

* a number: a ``float`` response with its ``correctResponse``, a
  ``textEntryInteraction``, and response processing that scores 1 when
  ``<equal toleranceMode="absolute" tolerance="t t">`` holds;
* a choice: an ``identifier`` response, a ``choiceInteraction`` of
  ``simpleChoice``s, and the ``match_correct`` template;
* a masked entry: a ``string`` response mapped from every accepted spelling
  (``map_response``);
* a design exercise: an ``extendedTextInteraction``, scored by a person, the
  reference answer in a ``rubricBlock`` for the scorer.

``assessment.xml`` is one test whose section selects one variant (a
sub-section holding every item of that variant), and ``imsmanifest.xml``
lists every file (resource types ``imsqti_item_xmlv2p1`` and
``imsqti_test_xmlv2p1``). The zip's dates are fixed, so the same seed gives
the same bytes.

>>> import io, zipfile
>>> from symattn.worksheets import sheet as worksheet
>>> data = package(worksheet.build(seed=7, variants=2, kinds=("softmax_table",)))
>>> names = zipfile.ZipFile(io.BytesIO(data)).namelist()
>>> names[:2], len(names)
(['imsmanifest.xml', 'assessment.xml'], 20)
"""

from __future__ import annotations

__all__ = ["package", "item_xml", "NS", "MANIFEST_NS"]

import io
import xml.etree.ElementTree as ET
import zipfile
from typing import Sequence

from symattn.render.exports.questions import Answer, Question, questions
from symattn.render.exports.xml_text import serialise, xml_text
from symattn.worksheets.sheet import Worksheet

NS = "http://www.imsglobal.org/xsd/imsqti_v2p1"
MANIFEST_NS = "http://www.imsglobal.org/xsd/imscp_v1p1"
_TEMPLATES = "http://www.imsglobal.org/question/qti_v2p1/rptemplates/"
_DATE = (1980, 1, 1, 0, 0, 0)


def _q(tag: str) -> str:
    return f"{{{NS}}}{tag}"


def _sub(parent: ET.Element, tag: str, **attributes: str) -> ET.Element:
    return ET.SubElement(parent, _q(tag), attributes)


def _html(parent: ET.Element, text: str) -> None:
    """The question's HTML (well-formed: p, em, table, tr, th, td) inside ``parent``."""
    fragment = ET.fromstring(f"<div>{xml_text(text)}</div>")
    for element in fragment.iter():
        element.tag = _q(element.tag)
    fragment.tag = _q("div")
    parent.append(fragment)


def _value(parent: ET.Element, text: str) -> None:
    _sub(parent, "value").text = text


def _declarations(item: ET.Element, answer: Answer) -> None:
    base = {"numerical": "float", "multichoice": "identifier", "shortanswer": "string",
            "essay": "string"}[answer.kind]
    response = _sub(item, "responseDeclaration", identifier="RESPONSE", cardinality="single",
                    baseType=base)
    if answer.kind == "numerical":
        _value(_sub(response, "correctResponse"), answer.value)
    elif answer.kind == "multichoice":
        right = next(k for k, (_, ok) in enumerate(answer.options) if ok)
        _value(_sub(response, "correctResponse"), f"C{right + 1}")
    elif answer.kind == "shortanswer":
        _value(_sub(response, "correctResponse"), answer.accepted[0])
        mapping = _sub(response, "mapping", defaultValue="0")
        for text in answer.accepted:
            _sub(mapping, "mapEntry", mapKey=text, mappedValue="1")
    outcome = _sub(item, "outcomeDeclaration", identifier="SCORE", cardinality="single",
                   baseType="float")
    _value(_sub(outcome, "defaultValue"), "0")


def _body(item: ET.Element, question: Question) -> None:
    body = _sub(item, "itemBody")
    _html(body, question.text)
    answer = question.answer
    if answer.kind == "numerical":
        paragraph = _sub(body, "p")
        _sub(paragraph, "textEntryInteraction", responseIdentifier="RESPONSE",
             expectedLength="12")
        if answer.unit:
            paragraph[-1].tail = f" {answer.unit}"
    elif answer.kind == "multichoice":
        interaction = _sub(body, "choiceInteraction", responseIdentifier="RESPONSE",
                           shuffle="false", maxChoices="1")
        for k, (text, _) in enumerate(answer.options, 1):
            choice = _sub(interaction, "simpleChoice", identifier=f"C{k}")
            _html(choice, text)
    elif answer.kind == "shortanswer":
        _sub(_sub(body, "p"), "textEntryInteraction", responseIdentifier="RESPONSE",
             expectedLength="8")
    else:
        _sub(body, "extendedTextInteraction", responseIdentifier="RESPONSE")
        rubric = _sub(body, "rubricBlock", view="scorer")
        _html(rubric, f"<p>{answer.reference}</p>")


def _processing(item: ET.Element, answer: Answer) -> None:
    if answer.kind == "multichoice":
        _sub(item, "responseProcessing", template=_TEMPLATES + "match_correct")
    elif answer.kind == "shortanswer":
        _sub(item, "responseProcessing", template=_TEMPLATES + "map_response")
    elif answer.kind == "numerical":
        condition = _sub(_sub(item, "responseProcessing"), "responseCondition")
        branch = _sub(condition, "responseIf")
        equal = _sub(branch, "equal", toleranceMode="absolute",
                     tolerance=f"{answer.tolerance} {answer.tolerance}",
                     includeLowerBound="true", includeUpperBound="true")
        _sub(equal, "variable", identifier="RESPONSE")
        _sub(equal, "correct", identifier="RESPONSE")
        score = _sub(branch, "setOutcomeValue", identifier="SCORE")
        _sub(score, "baseValue", baseType="float").text = "1"


def item_xml(question: Question) -> bytes:
    """One ``assessmentItem`` as XML."""
    item = ET.Element(_q("assessmentItem"), {"identifier": question.idnumber,
                                             "title": question.name, "adaptive": "false",
                                             "timeDependent": "false"})
    _declarations(item, question.answer)
    _body(item, question)
    _processing(item, question.answer)
    return _serialise(item, NS)


def _serialise(root: ET.Element, namespace: str) -> bytes:
    ET.register_namespace("", namespace)
    return serialise(root)


def _test(items: Sequence[Question], sheets: Sequence[Worksheet]) -> bytes:
    test = ET.Element(_q("assessmentTest"), {"identifier": "classset",
                                             "title": items[0].category[0] if items else ""})
    part = _sub(test, "testPart", identifier="part", navigationMode="nonlinear",
                submissionMode="simultaneous")
    section = _sub(part, "assessmentSection", identifier="classset", title="classset",
                   visible="false")
    _sub(section, "selection", select="1")
    for sheet in sheets:
        variant = _sub(section, "assessmentSection", identifier=f"variant{sheet.variant}",
                       title=f"{sheet.variant}", visible="true")
        for item in items:
            if item.variant == sheet.variant:
                _sub(variant, "assessmentItemRef", identifier=item.idnumber,
                     href=f"items/{item.idnumber}.xml")
    return _serialise(test, NS)


def _manifest(items: Sequence[Question]) -> bytes:
    def tag(name: str) -> str:
        return f"{{{MANIFEST_NS}}}{name}"

    manifest = ET.Element(tag("manifest"), {"identifier": "symattn-classset"})
    metadata = ET.SubElement(manifest, tag("metadata"))
    ET.SubElement(metadata, tag("schema")).text = "QTIv2.1 Package"
    ET.SubElement(metadata, tag("schemaversion")).text = "1.0.0"
    ET.SubElement(manifest, tag("organizations"))
    resources = ET.SubElement(manifest, tag("resources"))
    test = ET.SubElement(resources, tag("resource"), {
        "identifier": "classset", "type": "imsqti_test_xmlv2p1", "href": "assessment.xml"})
    ET.SubElement(test, tag("file"), {"href": "assessment.xml"})
    for item in items:
        href = f"items/{item.idnumber}.xml"
        ET.SubElement(test, tag("dependency"), {"identifierref": item.idnumber})
        resource = ET.SubElement(resources, tag("resource"), {
            "identifier": item.idnumber, "type": "imsqti_item_xmlv2p1", "href": href})
        ET.SubElement(resource, tag("file"), {"href": href})
    return _serialise(manifest, MANIFEST_NS)


def package(sheets: Sequence[Worksheet]) -> bytes:
    """The zipped QTI 2.1 content package of a class set."""
    items = questions(sheets)
    files = [("imsmanifest.xml", _manifest(items)), ("assessment.xml", _test(items, sheets))]
    files += [(f"items/{item.idnumber}.xml", item_xml(item)) for item in items]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files:
            archive.writestr(zipfile.ZipInfo(name, date_time=_DATE), data,
                             compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
