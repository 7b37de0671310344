"""A 30-variant lesson for learning platforms: one question per exercise and variant, slips named.

Each export is read back with readers written here from the formats' own
documentation, not with the exporter's code: Moodle's embedded answers
(Cloze) by a small parser of the grammar in Moodle's documentation and its
multianswer parser (a field ``{marks:TYPE:alternatives}``, alternatives split
at an unescaped ``~``, a grade ``=`` or ``%n%``, an answer up to an unescaped
``#``, the feedback after it, ``} # ~ / " \\`` escaped by a backslash; a
numerical answer ``number(:number)?``), GIFT by its numerical grammar
(``{#=value:tolerance =%0%value:tolerance#feedback}``), QTI 2.1 with
xml.etree. The key's numbers and tolerances are compared with the answers
data of the class set; a softmax row and its slips are recomputed here with
mpmath.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
import zipfile
from fractions import Fraction
from typing import Any

import mpmath
import pytest

from symattn import messages
from symattn.render import exports
from symattn.worksheets import sheet as worksheet

VARIANTS = 30
QTI = "{http://www.imsglobal.org/xsd/imsqti_v2p1}"
_NUMBER = r"-?(?:[0-9]+[.,]?[0-9]*|[.,][0-9]+)(?:[eE][-+]?[0-9]+)?"
_TYPES = ("NUMERICAL", "NM", "MULTICHOICE", "MC", "MULTICHOICE_V", "MCV", "SHORTANSWER", "SA")


@pytest.fixture(scope="module")
def lesson() -> list[worksheet.Worksheet]:
    return worksheet.build(seed=7, variants=VARIANTS, preset="lesson45")


@pytest.fixture(scope="module")
def records(lesson) -> dict[tuple[int, str, str], dict[str, Any]]:
    """(variant, exercise, blank) -> that blank's answers data."""
    return {(sheet.variant, r["exercise"], r["blank"]): r for sheet in lesson
            for r in sheet.answers()}


# ------------------------------------------------------------ a Cloze reader
def _until(text: str, stops: str) -> tuple[str, str]:
    """(text up to the first unescaped character of ``stops``, the rest from it)."""
    k = 0
    while k < len(text):
        if text[k] == "\\":
            k += 2
            continue
        if text[k] in stops:
            return text[:k], text[k:]
        k += 1
    return text, ""


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def cloze_fields(text: str) -> list[dict[str, Any]]:
    """Every field of a Cloze question text, each alternative parsed."""
    fields = []
    for start in re.finditer(r"\{([0-9]*):([A-Z_]+):", text):
        assert start.group(2) in _TYPES, start.group(2)
        body, rest = _until(text[start.end():], "}")
        assert rest.startswith("}"), "a field must end with an unescaped }"
        alternatives = []
        while body:
            alternative, body = _until(body, "~")
            body = body[1:]
            grade = re.match(r"=|%(-?[0-9]+(?:[.,][0-9]*)?)%", alternative)
            fraction = 0.0 if grade is None else \
                100.0 if grade.group(0) == "=" else float(grade.group(1))
            alternative = alternative[grade.end():] if grade else alternative
            answer, feedback = _until(alternative, "#")
            record = {"fraction": fraction, "answer": _unescape(answer),
                      "feedback": _unescape(feedback[1:])}
            if start.group(2) in ("NUMERICAL", "NM"):
                number = re.fullmatch(f"({_NUMBER})(?::({_NUMBER}))?", answer)
                assert number, f"not a numerical answer: {answer!r}"
                record["value"], record["tolerance"] = number.group(1), number.group(2)
            alternatives.append(record)
        fields.append({"type": start.group(2), "alternatives": alternatives})
    return fields


def test_the_cloze_reader_reads_the_documented_example() -> None:
    (field,) = cloze_fields(r"x {2:NUMERICAL:=23.8:0.1#Right~%50%23.8:2#Half \} \#~%0%1:0} y")
    assert field["type"] == "NUMERICAL"
    assert [(a["fraction"], a["value"], a["tolerance"], a["feedback"])
            for a in field["alternatives"]] == [(100.0, "23.8", "0.1", "Right"),
                                                (50.0, "23.8", "2", "Half } #"),
                                                (0.0, "1", "0", "")]


# ----------------------------------------------------------------- checks
def _interval_clear(key: Fraction, tolerance: Fraction, value: Fraction,
                    slip_tolerance: Fraction) -> bool:
    return abs(value - key) > tolerance + slip_tolerance


def _check_number(record: dict[str, Any], alternatives: list[dict[str, Any]]) -> int:
    """The key first, exactly as the answers data; every slip answer at 0, clear of it,
    with feedback naming a slip. Returns the number of slip answers."""
    key, *slips = alternatives
    assert key["fraction"] == 100
    assert key["value"] == record["expected"].replace(",", ".")
    assert key["tolerance"] == record["tolerance"]
    values = [s["value"] for s in slips]
    assert len(set(values)) == len(values)
    for slip in slips:
        assert slip["fraction"] == 0 and slip["feedback"]
        assert any(name in slip["feedback"] for name in _ALL_NAMES), slip["feedback"]
        assert _interval_clear(Fraction(key["value"]), Fraction(key["tolerance"]),
                               Fraction(slip["value"]), Fraction(slip["tolerance"]))
    return len(slips)


def _shown(name: str) -> str:
    """A catalog name as the HTML shows it: ``$x$`` as MathJax's ``\\(x\\)``."""
    return re.sub(r"\$([^$]*)\$", lambda m: f"\\({m.group(1)}\\)", name)


_ALL_NAMES = {_shown(messages.load("en").text(f"slip.{slip}.name")) for slip in (
    "no_scaling", "dk_scaling", "dmodel_scaling", "temperature_multiplied", "column_softmax",
    "matrix_softmax", "qk_swapped", "kv_swapped", "mask_after_softmax", "leaked_future",
    "diagonal_hidden", "rounded_carried", "at_v", "v_at", "natural_log", "truncation",
    "percent_fraction", "sign", "other_entry")}


def _moodle(data: bytes) -> dict[str, list[ET.Element]]:
    root = ET.fromstring(data)
    category, out = "", {}
    for question in root.findall("question"):
        if question.get("type") == "category":
            category = question.findtext("category/text") or ""
            continue
        out.setdefault(category, []).append(question)
    return out


def test_moodle_one_question_per_exercise_and_variant_with_slip_feedback(lesson,
                                                                        records) -> None:
    categories = _moodle(exports.export("moodle", lesson))
    assert len(categories) == len(lesson[0].exercises)
    assert all(len(found) == VARIANTS for found in categories.values())
    slips = 0
    for found in categories.values():
        for question in found:
            match = re.fullmatch(r"s7-v(\d+)-e(\d+)", question.findtext("idnumber") or "")
            assert match
            variant, exercise = int(match.group(1)), match.group(2)
            blanks = [r for (v, e, _), r in records.items() if v == variant and e == exercise]
            text = question.findtext("questiontext/text") or ""
            assert question.get("type") == "cloze"
            fields = cloze_fields(text)
            assert len(fields) == len(blanks)       # every blank of this variant, in order
            for field, record in zip(fields, blanks):
                if record["type"] == "number" and record["expected"] != "-inf":
                    assert field["type"] == "NUMERICAL"
                    slips += _check_number(record, field["alternatives"])
                elif record["type"] == "choice":
                    right = [a for a in field["alternatives"] if a["fraction"] == 100]
                    assert len(right) == 1 and right[0]["answer"].startswith(
                        f"({record['expected']})")
                else:
                    assert {a["answer"] for a in field["alternatives"]} >= {"-inf", "-∞"}
    assert slips > VARIANTS * 20


def _gift_numerical(block: str) -> list[dict[str, Any]]:
    """``#=v:t =%0%v:t#feedback ...`` -> the alternatives (GIFT escapes ``~=#{}:``)."""
    assert block.startswith("#")
    out = []
    for piece in re.split(r"(?<!\\)=", block[1:])[1:]:
        grade = re.match(r"%(-?[0-9]+)%", piece)
        fraction = 100 if grade is None else int(grade.group(1))
        piece = piece[grade.end():] if grade else piece
        answer, _, feedback = piece.partition("#")
        value, tolerance = answer.strip().split(":")
        out.append({"fraction": fraction, "value": value, "tolerance": tolerance,
                    "feedback": _unescape(feedback.strip())})
    return out


def test_gift_groups_each_exercise_and_variant_with_slip_feedback(lesson, records) -> None:
    text = exports.export("gift", lesson).decode("utf-8")
    blocks = [b for b in text.split("\n\n") if b.strip()]
    categories = [b for b in blocks if b.startswith("$CATEGORY: ")]
    assert len(categories) == len(lesson[0].exercises) * VARIANTS
    slips = 0
    for block in blocks:
        if block.startswith("$CATEGORY: "):
            continue
        idnumber = block.splitlines()[0][3:]
        match = re.fullmatch(r"s7-v(\d+)-e(\d+)-(\w+)", idnumber)
        assert match
        record = records[(int(match.group(1)), match.group(2), match.group(3))]
        answer = _until(block[block.rindex("::[html]"):], "{")[1]
        answer = answer[1:answer.rindex("}")]
        if record["type"] == "number" and record["expected"] != "-inf" and "=" in answer:
            slips += _check_number(record, _gift_numerical(answer))
    assert slips > VARIANTS * 20


_ORDER = ["responseDeclaration", "outcomeDeclaration", "itemBody", "responseProcessing",
          "modalFeedback"]


def _check_qti_structure(item: ET.Element) -> None:
    """What the QTI 2.1 information model asks of an item (no XSD is at hand): its
    children in the model's order, an inline interaction inside a paragraph, a block
    interaction never inside one, each FEEDBACK value shown by a modalFeedback."""
    names = [child.tag.removeprefix(QTI) for child in item]
    assert names == sorted(names, key=_ORDER.index) and names.count("itemBody") == 1
    for paragraph in item.iter(f"{QTI}p"):
        for inner in paragraph.iter():
            assert inner.tag not in (f"{QTI}choiceInteraction",
                                     f"{QTI}extendedTextInteraction", f"{QTI}div")
    body = item.find(f"{QTI}itemBody")
    assert body is not None
    for block in (f"{QTI}choiceInteraction", f"{QTI}extendedTextInteraction",
                  f"{QTI}rubricBlock"):
        assert len(list(item.iter(block))) == len(body.findall(block))   # in the body itself
    for text in item.iter(f"{QTI}textEntryInteraction"):
        assert any(text in list(p) for p in item.iter(f"{QTI}p"))
    shown = {f.get("identifier") for f in item.findall(f"{QTI}modalFeedback")}
    set_values = {v.text for setter in item.iter(f"{QTI}setOutcomeValue")
                  if setter.get("identifier") == "FEEDBACK"
                  for v in setter.iter(f"{QTI}baseValue")}
    assert set_values == shown


def test_qti_one_item_per_exercise_and_variant_with_slip_feedback(lesson, records) -> None:
    archive = zipfile.ZipFile(io.BytesIO(exports.export("qti", lesson)))
    items = [ET.fromstring(archive.read(n)) for n in archive.namelist()
             if n.startswith("items/")]
    assert len(items) == len(lesson[0].exercises) * VARIANTS
    slips = 0
    for item in items:
        match = re.fullmatch(r"s7-v(\d+)-e(\d+)", item.get("identifier") or "")
        assert match
        blanks = [r for (v, e, _), r in records.items()
                  if v == int(match.group(1)) and e == match.group(2)]
        _check_qti_structure(item)
        declared = [d.get("identifier") for d in item.findall(f"{QTI}responseDeclaration")]
        assert declared == [f"R_{r['blank']}" for r in blanks]
        interactions = [i.get("responseIdentifier") for i in item.iter()
                        if i.tag.endswith("Interaction")]
        assert interactions == declared
        feedback = {f.get("identifier"): "".join(f.itertext())
                    for f in item.findall(f"{QTI}modalFeedback")}
        for condition in item.iter(f"{QTI}responseCondition"):
            first = condition.find(f"{QTI}responseIf")
            assert first is not None
            equal = first.find(f"{QTI}equal")
            if equal is None:
                continue
            rid = equal.find(f"{QTI}variable").get("identifier")  # type: ignore[union-attr]
            record = next(r for r in blanks if f"R_{r['blank']}" == rid)
            assert equal.get("tolerance") == f"{record['tolerance']} {record['tolerance']}"
            for other in condition.findall(f"{QTI}responseElseIf"):
                value = other.findtext(f"{QTI}equal/{QTI}baseValue") or ""
                shown = other.findtext(f".//{QTI}setOutcomeValue/{QTI}multiple/{QTI}baseValue")
                assert shown in feedback and value in feedback[shown]
                assert any(name in feedback[shown] for name in _ALL_NAMES)
                tolerance = Fraction((other.find(f"{QTI}equal").get("tolerance")  # type: ignore
                                      or "").split()[0])
                assert _interval_clear(Fraction(record["expected"]),
                                       Fraction(record["tolerance"]), Fraction(value),
                                       tolerance)
                slips += 1
    assert slips > VARIANTS * 20


# ------------------------------------------ one exercise recomputed with mpmath
def _rounded(x: Any, places: int = 3) -> Fraction:
    """Half-up rounding of an mpmath number far from a midpoint."""
    scaled = Fraction(str(mpmath.nstr(x * 10 ** places, 30, strip_zeros=False)))
    return Fraction(int(scaled + Fraction(1, 2)) if scaled >= 0
                    else -int(-scaled + Fraction(1, 2)), 10 ** places)


def test_an_output_row_key_and_its_slips_recomputed(lesson) -> None:
    mpmath.mp.dps = 40
    sheet = lesson[4]
    exercise = sheet.exercises[2]
    assert exercise.kind == "output_row"
    spec = exercise.problems[0]
    q = [[int(x) for x in row] for row in spec["inputs"]["Q"]]
    k = [[int(x) for x in row] for row in spec["inputs"]["K"]]
    row = int(exercise.blanks[0].claim[1].split("[")[1].split(",")[0]) - 1   # type: ignore
    scores = [sum(a * b for a, b in zip(q[row], key)) for key in k]

    def softmax(divisor: float) -> list[Any]:
        exps = [mpmath.e ** (mpmath.mpf(s) / divisor) for s in scores]
        return [e / sum(exps) for e in exps]

    right, unscaled = softmax(mpmath.sqrt(4)), softmax(1)
    (question,) = list(_moodle(exports.export("moodle", [sheet])).values())[2]
    fields = cloze_fields(question.findtext("questiontext/text") or "")
    no_scaling = _shown(messages.load("en").text("slip.no_scaling.name"))
    for j, field in enumerate(fields[:len(scores)]):
        key, *slips = field["alternatives"]
        assert Fraction(key["value"]) == _rounded(right[j])
        assert Fraction(key["tolerance"]) >= Fraction(1, 2000)
        named = [s for s in slips if no_scaling in s["feedback"]]
        far = abs(_rounded(unscaled[j]) - Fraction(key["value"])) > \
            Fraction(key["tolerance"]) + Fraction(1, 2000)
        assert [Fraction(s["value"]) for s in named] == ([_rounded(unscaled[j])] if far else [])
        percent = [s for s in slips if Fraction(s["value"]) == _rounded(100 * right[j])]
        assert percent and all(s["tolerance"] == "0.0005" for s in slips)


def _mpf(x: Fraction) -> Any:
    return mpmath.mpf(x.numerator) / x.denominator


def _ceil_tenth_unit(x: Any, places: int = 3) -> Fraction:
    """|x| rounded up to a tenth of a unit in the last place."""
    step = mpmath.mpf(10) ** (places + 1)
    return Fraction(int(mpmath.ceil(abs(x) * step)), 10 ** (places + 1))


def test_a_softmax_table_tolerances_and_slips_recomputed(lesson) -> None:
    """The tolerances (half a unit, plus what carrying rounded exponentials costs) and
    every slip's number of a softmax table, from its scores alone."""
    mpmath.mp.dps = 40
    sheet = lesson[11]
    exercise = sheet.exercises[0]
    assert exercise.kind == "softmax_table"
    z = [_mpf(Fraction(x)) for x in exercise.problems[0]["inputs"]["scaled"][0]]
    exps = [mpmath.e ** x for x in z]
    total = sum(exps)
    weights = [e / total for e in exps]
    rounded = [_rounded(e) for e in exps]
    carried_total = sum(rounded)
    half = Fraction(1, 2000)
    tolerance = {f"e{j + 1}": half for j in range(len(z))}
    tolerance["sum"] = half + _ceil_tenth_unit(_mpf(carried_total) - total)
    written_total = _rounded(_mpf(carried_total))
    for j, w in enumerate(weights):
        carried = _mpf(rounded[j]) / _mpf(written_total)
        tolerance[f"a{j + 1}"] = half + _ceil_tenth_unit(carried - w)
    slipped: dict[str, set[Fraction]] = {}
    for j in range(len(z)):
        others = [k for k in range(len(z)) if k != j]
        slipped[f"e{j + 1}"] = {-_rounded(exps[j])} | {_rounded(exps[k]) for k in others}
        slipped[f"a{j + 1}"] = {Fraction(1), _rounded(100 * weights[j]), -_rounded(weights[j])} \
            | {_rounded(weights[k]) for k in others}          # columns, %, sign, others
    slipped["sum"] = {-_rounded(total)}
    (question,) = list(_moodle(exports.export("moodle", [sheet])).values())[0]
    fields = cloze_fields(question.findtext("questiontext/text") or "")
    for blank, field in zip(exercise.blanks, fields):
        key, *slips = field["alternatives"]
        exact = Fraction(key["value"]) if blank.places is None else None
        right = exact if exact is not None else _rounded(
            exps[int(blank.id[1:]) - 1] if blank.id.startswith("e") else
            total if blank.id == "sum" else weights[int(blank.id[1:]) - 1])
        assert Fraction(key["value"]) == right
        reach = (0 if exact is not None else tolerance[blank.id]) + half
        assert Fraction(key["tolerance"]) == (0 if exact is not None else tolerance[blank.id])
        expected = {v for v in slipped[blank.id] if abs(v - right) > reach}
        assert {Fraction(s["value"]) for s in slips} == expected, blank.id


def test_a_calculator_free_fraction_is_a_short_answer_in_every_format() -> None:
    sheets = worksheet.build(seed=7, variants=3, preset="lesson45", numbers="calculator-free")
    fractions = {(sheet.variant, r["exercise"], r["blank"]): r["expected"] for sheet in sheets
                 for r in sheet.answers() if "/" in r["expected"]}
    assert fractions
    found = 0
    for question in [q for qs in _moodle(exports.export("moodle", sheets)).values() for q in qs]:
        match = re.fullmatch(r"s7-v(\d+)-e(\d+)", question.findtext("idnumber") or "")
        assert match
        blanks = [r["blank"] for r in sheets[int(match.group(1)) - 1].answers()
                  if r["exercise"] == match.group(2)]
        fields = cloze_fields(question.findtext("questiontext/text") or "")  # all parse
        for blank, field in zip(blanks, fields):
            fraction = fractions.get((int(match.group(1)), match.group(2), blank))
            if fraction is not None:
                found += 1
                assert field["type"] == "SHORTANSWER"
                assert field["alternatives"][0] == {"fraction": 100.0, "answer": fraction,
                                                    "feedback": ""}
    assert found == len(fractions)
    gift = exports.export("gift", sheets).decode("utf-8")
    assert not re.search(r"\{#=?-?\d+/\d+", gift)               # no fraction as a number
    archive = zipfile.ZipFile(io.BytesIO(exports.export("qti", sheets)))
    for name in archive.namelist():
        if name.startswith("items/"):
            for value in ET.fromstring(archive.read(name)).iter(f"{QTI}baseValue"):
                if value.get("baseType") == "float":
                    float(value.text or "")
