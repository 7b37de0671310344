"""QTI 2.1: a content package (zip) of items, a test and a manifest.

Each exercise of each variant is one ``assessmentItem`` (namespace
``imsqti_v2p1``) with an interaction per blank, placed after the part that
holds it, each with its own ``responseDeclaration`` (``R_<blank id>``, the
answers file's id):

* a number: a ``float`` response with its ``correctResponse``, a
  ``textEntryInteraction``; it scores 1 when ``<equal toleranceMode="absolute"
  tolerance="t t">`` holds, and else, when it equals a slip's number (within
  half a unit in its last place), adds that answer's identifier to the
  ``FEEDBACK`` outcome, which shows the ``modalFeedback`` naming the slip;
* a choice: an ``identifier`` response, a ``choiceInteraction`` of
  ``simpleChoice``s, scored 1 when it ``match``es the correct one;
* a masked entry: a ``string`` response that scores 1 when it ``match``es an
  accepted spelling;
* a design exercise: an ``extendedTextInteraction``, scored by a person, the
  reference answer in a ``rubricBlock`` for the scorer.

``SCORE`` adds up the blanks scored right (``MAXSCORE`` the blanks scored by
the item). ``assessment.xml`` is one test whose section selects one variant (a
sub-section holding every item of that variant), and ``imsmanifest.xml``
lists every file (resource types ``imsqti_item_xmlv2p1`` and
``imsqti_test_xmlv2p1``). The zip's dates are fixed, so the same seed gives
the same bytes.

>>> import io, zipfile
>>> from symattn.worksheets import sheet as worksheet
>>> data = package(worksheet.build(seed=7, variants=2, kinds=("softmax_table",)))
>>> names = zipfile.ZipFile(io.BytesIO(data)).namelist()
>>> names[:2], len(names)
(['imsmanifest.xml', 'assessment.xml'], 4)
"""

from __future__ import annotations

__all__ = ["package", "item_xml", "NS", "MANIFEST_NS"]

import io
import xml.etree.ElementTree as ET
import zipfile
from typing import Sequence

from symattn.render.exports.questions import Answer, Item, fill_fields, items
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
    """The question's HTML (well-formed: p, em, div, table, tr, th, td) inside ``parent``."""
    fragment = ET.fromstring(f"<div>{xml_text(text)}</div>")
    for element in fragment.iter():
        element.tag = _q(element.tag)
    parent.append(fragment)


def _body(body: ET.Element, text: str, fields: Sequence[ET.Element]) -> None:
    """The item's HTML as the blocks of ``body``, each field mark replaced by its interaction
    from ``fields`` (a block interaction standing alone in its ``div`` takes its place)."""
    marked = fill_fields(xml_text(text), lambda k: f'<field n="{k}"/>')
    fragment = ET.fromstring(f"<div>{marked}</div>")
    for element in list(fragment.iter()):
        element.tag = _q(element.tag)
        for k, child in enumerate(element):
            if child.tag == "field":
                interaction = fields[int(child.get("n", "0"))]
                interaction.tail = child.tail
                element[k] = interaction
    for block in fragment:
        alone = block.tag == _q("div") and len(block) == 1 and not (block.text or "").strip() \
            and not (block[0].tail or "").strip() and block[0].tag in _BLOCK_INTERACTIONS
        body.append(block[0] if alone else block)


_BLOCK_INTERACTIONS = frozenset({f"{{{NS}}}choiceInteraction",
                                 f"{{{NS}}}extendedTextInteraction"})


def _value(parent: ET.Element, text: str) -> None:
    _sub(parent, "value").text = text


def _rid(answer: Answer) -> str:
    return f"R_{answer.blank}"


def _fid(answer: Answer, k: int) -> str:
    return f"F_{answer.blank}_{k + 1}"


_BASE = {"numerical": "float", "multichoice": "identifier", "shortanswer": "string",
         "essay": "string"}


def _declaration(item: ET.Element, answer: Answer) -> None:
    response = _sub(item, "responseDeclaration", identifier=_rid(answer),
                    cardinality="single", baseType=_BASE[answer.kind])
    if answer.kind == "numerical":
        _value(_sub(response, "correctResponse"), answer.value)
    elif answer.kind == "multichoice":
        right = next(k for k, (_, ok) in enumerate(answer.options) if ok)
        _value(_sub(response, "correctResponse"), f"C{right + 1}")
    elif answer.kind == "shortanswer":
        _value(_sub(response, "correctResponse"), answer.accepted[0])


def _outcomes(item: ET.Element, answers: Sequence[Answer]) -> None:
    scored = sum(answer.kind != "essay" for answer in answers)
    for name, default in (("SCORE", "0"), ("MAXSCORE", str(scored))):
        outcome = _sub(item, "outcomeDeclaration", identifier=name, cardinality="single",
                       baseType="float")
        _value(_sub(outcome, "defaultValue"), default)
    _sub(item, "outcomeDeclaration", identifier="FEEDBACK", cardinality="multiple",
         baseType="identifier")


def _interaction(answer: Answer) -> ET.Element:
    if answer.kind in ("numerical", "shortanswer"):
        return ET.Element(_q("textEntryInteraction"), {
            "responseIdentifier": _rid(answer),
            "expectedLength": "12" if answer.kind == "numerical" else "8"})
    if answer.kind == "multichoice":
        interaction = ET.Element(_q("choiceInteraction"), {
            "responseIdentifier": _rid(answer), "shuffle": "false", "maxChoices": "1"})
        for k, (text, _) in enumerate(answer.options, 1):
            choice = _sub(interaction, "simpleChoice", identifier=f"C{k}")
            _html(choice, text)
        return interaction
    return ET.Element(_q("extendedTextInteraction"), {"responseIdentifier": _rid(answer)})


def _rubrics(body: ET.Element, answers: Sequence[Answer]) -> None:
    """The reference answer of each design blank, for the scorer only."""
    for answer in answers:
        if answer.kind == "essay":
            _html(_sub(body, "rubricBlock", view="scorer"),
                  f"<p>{answer.label}: {answer.reference}</p>")


def _equal(parent: ET.Element, answer: Answer, tolerance: str) -> ET.Element:
    equal = _sub(parent, "equal", toleranceMode="absolute", tolerance=f"{tolerance} {tolerance}",
                 includeLowerBound="true", includeUpperBound="true")
    _sub(equal, "variable", identifier=_rid(answer))
    return equal


def _right(branch: ET.Element, answer: Answer) -> None:
    """The condition that the answer is right, inside ``branch``."""
    if answer.kind == "numerical":
        _sub(_equal(branch, answer, answer.tolerance), "correct", identifier=_rid(answer))
    elif answer.kind == "multichoice":
        match = _sub(branch, "match")
        _sub(match, "variable", identifier=_rid(answer))
        _sub(match, "correct", identifier=_rid(answer))
    else:
        either = _sub(branch, "or")
        for text in answer.accepted:
            match = _sub(either, "match")
            _sub(match, "variable", identifier=_rid(answer))
            _sub(match, "baseValue", baseType="string").text = text


def _set(branch: ET.Element, outcome: str, combine: str, base: str, value: str) -> None:
    setter = _sub(branch, "setOutcomeValue", identifier=outcome)
    combined = _sub(setter, combine)
    _sub(combined, "variable", identifier=outcome)
    _sub(combined, "baseValue", baseType=base).text = value


def _processing(item: ET.Element, answers: Sequence[Answer]) -> None:
    processing = _sub(item, "responseProcessing")
    for answer in answers:
        if answer.kind == "essay":
            continue
        condition = _sub(processing, "responseCondition")
        branch = _sub(condition, "responseIf")
        _right(branch, answer)
        _set(branch, "SCORE", "sum", "float", "1")
        for k, wrong in enumerate(answer.wrong):
            branch = _sub(condition, "responseElseIf")
            equal = _equal(branch, answer, wrong.tolerance)
            _sub(equal, "baseValue", baseType="float").text = wrong.value
            _set(branch, "FEEDBACK", "multiple", "identifier", _fid(answer, k))


def _feedback(item: ET.Element, answers: Sequence[Answer]) -> None:
    for answer in answers:
        for k, wrong in enumerate(answer.wrong):
            feedback = _sub(item, "modalFeedback", outcomeIdentifier="FEEDBACK",
                            identifier=_fid(answer, k), showHide="show")
            _html(feedback, f"<p>{answer.label} = {wrong.value}: {wrong.feedback}</p>")


def item_xml(question: Item) -> bytes:
    """One ``assessmentItem`` as XML: an exercise of one variant."""
    item = ET.Element(_q("assessmentItem"), {"identifier": question.idnumber,
                                             "title": question.name, "adaptive": "false",
                                             "timeDependent": "false"})
    for answer in question.answers:
        _declaration(item, answer)
    _outcomes(item, question.answers)
    body = _sub(item, "itemBody")
    _body(body, question.text, [_interaction(answer) for answer in question.answers])
    _rubrics(body, question.answers)
    _processing(item, question.answers)
    _feedback(item, question.answers)
    return _serialise(item, NS)


def _serialise(root: ET.Element, namespace: str) -> bytes:
    ET.register_namespace("", namespace)
    return serialise(root)


def _test(found: Sequence[Item], sheets: Sequence[Worksheet]) -> bytes:
    test = ET.Element(_q("assessmentTest"), {"identifier": "classset",
                                             "title": found[0].category[0] if found else ""})
    part = _sub(test, "testPart", identifier="part", navigationMode="nonlinear",
                submissionMode="simultaneous")
    section = _sub(part, "assessmentSection", identifier="classset", title="classset",
                   visible="false")
    _sub(section, "selection", select="1")
    for sheet in sheets:
        variant = _sub(section, "assessmentSection", identifier=f"variant{sheet.variant}",
                       title=f"{sheet.variant}", visible="true")
        for item in found:
            if item.variant == sheet.variant:
                _sub(variant, "assessmentItemRef", identifier=item.idnumber,
                     href=f"items/{item.idnumber}.xml")
    return _serialise(test, NS)


def _manifest(found: Sequence[Item]) -> bytes:
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
    for item in found:
        href = f"items/{item.idnumber}.xml"
        ET.SubElement(test, tag("dependency"), {"identifierref": item.idnumber})
        resource = ET.SubElement(resources, tag("resource"), {
            "identifier": item.idnumber, "type": "imsqti_item_xmlv2p1", "href": href})
        ET.SubElement(resource, tag("file"), {"href": href})
    return _serialise(manifest, MANIFEST_NS)


def package(sheets: Sequence[Worksheet]) -> bytes:
    """The zipped QTI 2.1 content package of a class set."""
    found = items(sheets)
    files = [("imsmanifest.xml", _manifest(found)), ("assessment.xml", _test(found, sheets))]
    files += [(f"items/{item.idnumber}.xml", item_xml(item)) for item in found]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files:
            archive.writestr(zipfile.ZipInfo(name, date_time=_DATE), data,
                             compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
