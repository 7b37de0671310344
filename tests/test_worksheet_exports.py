"""Answers for learning platforms: Moodle XML, GIFT and QTI 2.1 round-trip.

Each export is parsed back here with tools of its own (xml.etree, a small GIFT
parser, zipfile) and compared with the answers data of the class set
(``Worksheet.answers``: the printed answer and its tolerance), not with the
exporter's own records. The Moodle XML is checked against the elements
Moodle's importer reads (question/format/xml/format.php: ``import_headers``,
``import_numerical``, ``import_multichoice``, ``import_answer``).
"""

from __future__ import annotations

import dataclasses
import html
import io
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path
from typing import Any

import pytest

from symattn.render import exports
from symattn.render.exports import gift, qti
from symattn.worksheets import sheet as worksheet

KINDS = ("softmax_table", "causal_mask", "temperature", "sizes", "next_token", "design")
QTI = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
CP = "{http://www.imsglobal.org/xsd/imscp_v1p1}"


@pytest.fixture(scope="module")
def sheets() -> list[worksheet.Worksheet]:
    return worksheet.build(seed=11, variants=3, language="ru", kinds=KINDS)


def _expected(sheets: list[worksheet.Worksheet]) -> dict[str, dict[str, Any]]:
    """idnumber -> the answers data of that blank (what each export must carry)."""
    out = {}
    for sheet in sheets:
        for record in sheet.answers():
            out[f"s{sheet.seed}-v{sheet.variant}-e{record['exercise']}-{record['blank']}"] = record
    return out


def _number(record: dict[str, Any]) -> str:
    return record["expected"].replace(",", ".")


# ---------------------------------------------------------------- Moodle XML
def _moodle(data: bytes) -> list[tuple[str, ET.Element]]:
    """(category path in force, question element) for every question, as Moodle reads it."""
    root = ET.fromstring(data)
    assert root.tag == "quiz"
    category, out = "", []
    for question in root.findall("question"):
        if question.get("type") == "category":
            category = question.findtext("category/text") or ""
            continue
        out.append((category, question))
    return out


def _single(questions: list[tuple[str, ET.Element]], kind: str) -> list[ET.Element]:
    return [q for _, q in questions if q.get("type") == kind]


def test_moodle_xml_has_the_structure_moodles_importer_reads() -> None:
    """An exercise of one blank is that blank's own question type; several blanks are a
    Cloze question (read back in tests/test_export_lms.py); a design exercise an essay."""
    sheets = worksheet.build(seed=11, variants=3, language="ru", kinds=KINDS)
    expected = _expected(sheets)
    found = _moodle(exports.export("moodle", sheets))
    assert len(found) == 3 * len(KINDS)
    for category, question in found:
        assert category.startswith("$course$/top/")
        assert question.findtext("name/text")
        text = question.find("questiontext")
        assert text is not None and text.get("format") == "html" and text.findtext("text")
        assert re.fullmatch(r"s11-v\d-e\d", question.findtext("idnumber") or "")
    kinds = [q.get("type") for _, q in found]
    assert kinds.count("essay") == 3 and kinds.count("cloze") == 3 * (len(KINDS) - 1)
    for question in _single(found, "essay"):
        reference = question.findtext("graderinfo/text") or ""
        record = expected[f"{question.findtext('idnumber')}-q"]
        assert all(x in reference for x in record["exact"])


def test_moodle_numerical_question_for_one_blank_carries_slip_answers() -> None:
    """An exercise of one blank (its first blank kept) is a numerical question: the key,
    then each slip's number at fraction 0 with its feedback."""
    from symattn.render.exports import moodle
    from symattn.render.exports.questions import FIELD, items

    sheets = worksheet.build(seed=1, variants=2, kinds=("output_row",))
    quiz = ET.Element("quiz")
    for item in items(sheets):
        first = FIELD.search(item.text)
        assert first is not None
        text = item.text[:first.end()] + FIELD.sub("", item.text[first.end():])
        moodle._item(quiz, dataclasses.replace(item, text=text, answers=item.answers[:1]))
    numerical = quiz.findall("question")
    assert [q.get("type") for q in numerical] == ["numerical", "numerical"]
    for question, sheet in zip(numerical, sheets):
        record = sheet.answers()[0]
        (right, *wrong) = question.findall("answer")
        assert right.get("fraction") == "100" and right.findtext("text") == _number(record)
        assert right.findtext("tolerance") == record["tolerance"]
        assert wrong and all(a.get("fraction") == "0" and a.findtext("feedback/text")
                             and a.findtext("tolerance") == "0.0005" for a in wrong)
        values = [float(a.findtext("text") or "") for a in wrong]
        assert float(_number(record)) not in values and len(set(values)) == len(values)


def test_a_class_set_of_30_variants_is_30_variants_of_each_exercise() -> None:
    sheets = worksheet.build(seed=3, variants=30, kinds=("softmax_table", "temperature"))
    found = _moodle(exports.export("moodle", sheets))
    categories: dict[str, list[ET.Element]] = {}
    for category, question in found:
        categories.setdefault(category, []).append(question)
    assert len(categories) == 2
    assert all(len(questions) == 30 for questions in categories.values())
    ids = [q.findtext("idnumber") for _, q in found]
    assert len(set(ids)) == len(ids) == 60
    # the same exercise, 30 different sets of numbers
    first = next(iter(categories.values()))
    assert len({q.findtext("questiontext/text") for q in first}) == 30


def test_user_text_is_escaped_in_every_format() -> None:
    import symattn

    nasty = ["<b>cat</b>", "a&b", "{x}:~=#"]
    problem = symattn.Problem.from_mapping({
        "title": "T<1> & {2}", "tokens": nasty,
        "inputs": {"Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [1, 1]],
                   "V": [[1, 2], [0, 1], [2, 0]]}})
    sheets = worksheet.build(seed=1, variants=3, problem=problem, kinds=("scores_row",))
    xml = exports.export("moodle", sheets)
    texts = [html.unescape(q.findtext("questiontext/text") or "") for _, q in _moodle(xml)]
    assert all(any(token in text for text in texts) for token in nasty)
    raw = [q.findtext("questiontext/text") or "" for _, q in _moodle(xml)]
    assert not any("<b>cat" in text for text in raw)      # escaped once as HTML, too
    records = _gift(exports.export("gift", sheets).decode("utf-8"))
    assert all(any(token in html.unescape(r["text"]) for r in records) for token in nasty)
    for data in _qti(exports.export("qti", sheets)).values():
        ET.fromstring(data)                                # well-formed
    categories = {c for c, _ in _moodle(xml)}
    # a category's name is HTML to Moodle: escaped once, it shows as written
    assert all(c.startswith("$course$/top/T&lt;1&gt; &amp; {2} (en, 1)/") for c in categories)


# ---------------------------------------------------------------------- GIFT
def _split(text: str, stop: str) -> tuple[str, str]:
    """(text up to the first unescaped ``stop``, the rest after it)."""
    k = 0
    while k < len(text):
        if text[k] == "\\":
            k += 2
            continue
        if text.startswith(stop, k):
            return text[:k], text[k + len(stop):]
        k += 1
    raise AssertionError(f"no {stop!r} in {text[:80]!r}")


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _gift(text: str) -> list[dict[str, Any]]:
    """A small GIFT reader: categories, ::name::, [html] text and the answer block."""
    records, category = [], ""
    for block in text.split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith("//")]
        if not lines:
            continue
        if lines[0].startswith("$CATEGORY: "):
            category = lines[0][len("$CATEGORY: "):]
            continue
        line = " ".join(lines)
        assert line.startswith("::")
        name, rest = _split(line[2:], "::")
        assert rest.startswith("[html]")
        body, rest = _split(rest[len("[html]"):], "{")
        answer, rest = _split(rest, "}")
        assert rest.strip() == ""
        records.append({"category": category, "name": _unescape(name),
                        "text": _unescape(body), "answer": answer})
    return records


def _gift_answer(answer: str) -> dict[str, Any]:
    if answer.startswith("#") and not answer.startswith("####"):
        # the right answer first: "#v:t", or "#=v:t =%0%slip:t#feedback ..."
        value, tolerance = answer[1:].split(" =%0%")[0].lstrip("=").split(":")
        return {"kind": "numerical", "value": value, "tolerance": tolerance}
    if answer.startswith("####") or answer == "":
        return {"kind": "essay", "reference": _unescape(answer[4:])}
    parts = re.findall(r"([=~])((?:\\.|[^\\=~])*)", answer)
    return {"kind": "choice", "options": [(mark == "=", _unescape(text).strip())
                                          for mark, text in parts]}


def test_gift_round_trips_answers_and_tolerances(sheets) -> None:
    expected = list(_expected(sheets).values())
    records = _gift(exports.export("gift", sheets).decode("utf-8"))
    assert len(records) == len(expected)
    by_key = {(r["exercise"], r["blank"], v): r for v, s in enumerate(sheets, 1)
              for r in s.answers()}
    for record in records:
        exercise = re.search(r"(\d+)", record["name"])
        blank, variant = record["name"].rsplit(" - ", 2)[1:]
        assert exercise is not None
        data = by_key[(exercise.group(1), blank, int(variant))]
        answer = _gift_answer(record["answer"])
        if data["type"] == "number" and data["expected"] != "-inf":
            assert answer == {"kind": "numerical", "value": _number(data),
                              "tolerance": data["tolerance"]}
        elif data["type"] == "size":
            assert answer["value"] == data["value"] and answer["tolerance"] == "0"
        elif data["type"] == "choice":
            right = [text for ok, text in answer["options"] if ok]
            assert len(right) == 1 and right[0].startswith(f"({data['expected']})")
        elif data["type"] == "design":
            assert answer["kind"] == "essay"
        else:
            assert {text for _, text in answer["options"]} >= {"-inf", "-∞"}
        assert "\n" not in record["text"] and record["text"].startswith("<p>")


@pytest.mark.parametrize("text", ["a~b", "x=1", "#3", "{y}", "p: q", "back\\slash"])
def test_gift_escapes_every_special_character(text: str) -> None:
    escaped = gift.escape(text)
    assert _unescape(escaped) == text
    assert not re.search(r"(?<!\\)[~=#{}:]", escaped.replace("\\\\", ""))


# ----------------------------------------------------------------------- QTI
def _qti(data: bytes) -> dict[str, bytes]:
    archive = zipfile.ZipFile(io.BytesIO(data))
    assert archive.testzip() is None
    return {name: archive.read(name) for name in archive.namelist()}


def test_qti_package_round_trips_answers_and_tolerances(sheets) -> None:
    expected = _expected(sheets)
    files = _qti(exports.export("qti", sheets))
    manifest = ET.fromstring(files["imsmanifest.xml"])
    hrefs = {r.get("href") for r in manifest.iter(f"{CP}resource")}
    assert hrefs == set(files) - {"imsmanifest.xml"}
    items = {name: ET.fromstring(data) for name, data in files.items()
             if name.startswith("items/")}
    assert len(items) == 3 * len(KINDS)               # an item per exercise and variant
    blanks = 0
    for item in items.values():
        assert item.tag == f"{QTI}assessmentItem"
        for declaration in item.findall(f"{QTI}responseDeclaration"):
            rid = declaration.get("identifier") or ""
            record = expected[f"{item.get('identifier')}-{rid.removeprefix('R_')}"]
            blanks += 1
            _check_qti_blank(item, rid, declaration, record)
    assert blanks == len(expected)


def _check_qti_blank(item: ET.Element, rid: str, declaration: ET.Element,
                     record: dict[str, Any]) -> None:
    correct = declaration.findtext(f"{QTI}correctResponse/{QTI}value")
    base = declaration.get("baseType")
    if base == "float":
        equal = next(e for e in item.iter(f"{QTI}equal")
                     if e.find(f"{QTI}correct") is not None
                     and e.find(f"{QTI}variable").get("identifier") == rid)  # type: ignore
        assert equal.get("toleranceMode") == "absolute"
        assert equal.get("tolerance") == f"{record['tolerance']} {record['tolerance']}"
        assert correct == (_number(record) if record["type"] == "number" else record["value"])
        assert any(i.get("responseIdentifier") == rid
                   for i in item.iter(f"{QTI}textEntryInteraction"))
    elif base == "identifier":
        interaction = next(i for i in item.iter(f"{QTI}choiceInteraction")
                           if i.get("responseIdentifier") == rid)
        chosen = next(c for c in interaction.findall(f"{QTI}simpleChoice")
                      if c.get("identifier") == correct)
        assert "".join(chosen.itertext()).strip().startswith(f"({record['expected']})")
    elif record["type"] == "design":
        assert item.find(f".//{QTI}extendedTextInteraction") is not None
        assert item.find(f".//{QTI}rubricBlock") is not None
    else:
        assert correct == "-inf"


def test_qti_test_selects_one_whole_variant() -> None:
    sheets = worksheet.build(seed=3, variants=30, kinds=("softmax_table",))
    files = _qti(qti.package(sheets))
    test = ET.fromstring(files["assessment.xml"])
    outer = test.find(f".//{QTI}assessmentSection")
    assert outer is not None
    selection = outer.find(f"{QTI}selection")
    assert selection is not None and selection.get("select") == "1"
    variants = outer.findall(f"{QTI}assessmentSection")
    assert len(variants) == 30
    refs = [{r.get("href") for r in v.findall(f"{QTI}assessmentItemRef")} for v in variants]
    assert all(len(r) == 1 for r in refs) and len(set().union(*refs)) == 30
    assert all(href in files for r in refs for href in r)


def test_exports_are_byte_identical_for_the_same_seed() -> None:
    one = worksheet.build(seed=5, variants=2, kinds=("softmax_table", "design"))
    two = worksheet.build(seed=5, variants=2, kinds=("softmax_table", "design"))
    for name in exports.FORMATS:
        assert exports.export(name, one) == exports.export(name, two)


# ----------------------------------------------------------------------- CLI
def test_cli_writes_every_export(tmp_path: Path) -> None:
    from symattn.cli.app import main

    out = tmp_path / "class"
    assert main(["worksheet", "--seed", "2", "-n", "2", "-x", "softmax_table,design", "-o",
                 str(out), "--export", "moodle,gift,qti", "--name", "set"]) == 0
    assert {p.name for p in out.iterdir()} >= {"set-moodle.xml", "set-gift.txt", "set-qti.zip"}
    assert main(["worksheet", "-o", str(tmp_path / "no"), "--export", "xlsx"]) == 2
    assert not (tmp_path / "no").exists()
