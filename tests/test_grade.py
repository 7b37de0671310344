"""``symattn grade``: a class's answers against a worksheet's key, each slip named.

The truth is made here, independently of symattn's engine: the exercises'
matrices are read from the sheets, and every value (the right one and each
slip's) is computed with mpmath, rounded half-up by hand. Thirty students of a
lesson get right answers in many writings, planted slips, numbers no slip
gives and unreadable answers; grade must give each of them its verdict and
exactly the slips whose value rounds to the answer.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any, Callable

import jsonschema
import mpmath
import pytest

from symattn.worksheets.sheet import answers_document, build

from cli_support import assert_one_line_error, run

mpmath.mp.dps = 60
SEED, VARIANTS = 11, 30
SCHEMA = Path(__file__).resolve().parent.parent / "symattn" / "schemas" / "grade.json"
Matrix = list[list[Any]]


@pytest.fixture(scope="module")
def lesson() -> tuple[list[Any], dict[str, Any]]:
    sheets = build(seed=SEED, variants=VARIANTS, preset="lesson45")
    return sheets, json.loads(answers_document(sheets))


# ------------------------------------------------------------------ the truth, by mpmath
def _mp(rows: list[list[str]]) -> Matrix:
    return [[mpmath.mpf(mpmath.fraction(*_ratio(x))) for x in row] for row in rows]


def _ratio(text: str) -> tuple[int, int]:
    if "/" in text:
        p, q = text.split("/")
        return int(p), int(q)
    whole, _, part = text.partition(".")
    return int(whole + part), 10 ** len(part)


def _product(a: Matrix, b: Matrix) -> Matrix:
    return [[mpmath.fsum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def _t(a: Matrix) -> Matrix:
    return [list(row) for row in zip(*a)]


def _row_softmax(scores: Matrix) -> Matrix:
    out = []
    for row in scores:
        exps = [mpmath.e ** x for x in row]
        out.append([x / mpmath.fsum(exps) for x in exps])
    return out


def _column_softmax(scores: Matrix) -> Matrix:
    return _t(_row_softmax(_t(scores)))


def _matrix_softmax(scores: Matrix) -> Matrix:
    total = mpmath.fsum(mpmath.e ** x for row in scores for x in row)
    return [[mpmath.e ** x / total for x in row] for row in scores]


def _round(x: Any, places: int) -> int:
    """Half-up at ``places`` (of |x|, the sign kept), as an integer."""
    scaled = abs(x) * 10 ** places
    rounded = int(mpmath.floor(scaled + mpmath.mpf(1) / 2))
    return -rounded if x < 0 else rounded


def _trunc(x: Any, places: int) -> int:
    scaled = int(mpmath.floor(abs(x) * 10 ** places))
    return -scaled if x < 0 else scaled


def _steps(weights: Matrix, values: Matrix | None) -> dict[str, Matrix]:
    out = {"weights": weights}
    if values is not None:
        out["output"] = _product(weights, values)
    return out


Steps = dict[str, Matrix]


def attention_slips(spec: dict[str, Any]) -> tuple[Steps, dict[str, list[Steps]]]:
    """The right steps and every slip's steps (a list: one per way it happens)."""
    inputs = spec["inputs"]
    values = _mp(inputs["V"]) if "V" in inputs else None
    if "scaled" in inputs:
        scaled = _mp(inputs["scaled"])
        exps = [[mpmath.e ** x for x in row] for row in scaled]
        right = {"exp": exps, "exp_sum": [[mpmath.fsum(row)] for row in exps],
                 **_steps(_row_softmax(scaled), values)}
        slips = {"column_softmax": [_steps(_column_softmax(scaled), values)],
                 "matrix_softmax": [_steps(_matrix_softmax(scaled), values)]}
        return right, slips
    q, k = _mp(inputs["Q"]), _mp(inputs["K"])
    d_k = spec["options"]["d_k"]
    scores = _product(q, _t(k))
    scale = 1 / mpmath.sqrt(d_k)
    scaled = [[x * scale for x in row] for row in scores]
    right = {"scores": scores, **_steps(_row_softmax(scaled), values)}
    slips: dict[str, list[dict[str, Matrix]]] = {
        "no_scaling": [_steps(_row_softmax(scores), values)],
        "dk_scaling": [_steps(_row_softmax([[x / d_k for x in r] for r in scores]), values)],
        "column_softmax": [_steps(_column_softmax(scaled), values)],
        "matrix_softmax": [_steps(_matrix_softmax(scaled), values)],
        "qk_swapped": [_steps(_row_softmax([[x * scale for x in r]
                                            for r in _product(k, _t(q))]), values)]}
    if values is not None and len(values[0]) == len(k[0]):
        swapped = _row_softmax([[x * scale for x in r] for r in _product(q, _t(values))])
        slips["kv_swapped"] = [{"weights": swapped, "output": _product(swapped, k)}]
    if values is not None:
        weights = right["weights"]
        if len(weights) == len(values):
            slips["at_v"] = [{"output": _product(_t(weights), values)}]
        if len(values[0]) == len(weights[0]) and len(weights[0]) == len(right["output"][0]):
            slips["v_at"] = [{"output": _product(values, _t(weights))}]
    slips["rounded_carried"] = []
    for places in (1, 2, 3):
        carried = [[mpmath.mpf(_round(x, places)) / 10 ** places for x in r] for r in scaled]
        slips["rounded_carried"].append(_steps(_row_softmax(carried), values))
    return right, slips


def truth(spec: dict[str, Any], claim: str, places: int, answer: Any) -> tuple[str, set[str]]:
    """The verdict and the slips of ``answer`` (a number) for a blank on ``claim``."""
    step, row, column = _claim(claim)
    right, slips = attention_slips(spec)
    value = right[step][row][column]
    written = _round(answer, places)
    if written == _round(value, places):
        return "right", set()
    named = {slip for slip, ways in slips.items()
             if any(step in way and _round(way[step][row][column], places) == written
                    for way in ways)}
    if _trunc(value, places) == written and _round(value, places) != written:
        named.add("truncation")
    if _round(value * 100, places) == written:
        named.add("percent_fraction")
    if _round(-value, places) == written:
        named.add("sign")
    grid = right[step]
    if any(_round(grid[r][c], places) == written for r in range(len(grid))
           for c in range(len(grid[0])) if (r, c) != (row, column)):
        named.add("other_entry")
    return ("slip" if named else "wrong"), named


def _claim(claim: str) -> tuple[str, int, int]:
    match = re.fullmatch(r"(\w+)\[(\d+)(?:,(\d+))?\]", claim)
    assert match, claim
    return match.group(1), int(match.group(2)) - 1, int(match.group(3) or 1) - 1


# ------------------------------------------------------------------ a class of 30
Writing = Callable[[str, str], str]
WRITINGS: list[Writing] = [
    lambda text, kind: text,
    lambda text, kind: text.replace(".", ","),
    lambda text, kind: f"  {text} ",
    lambda text, kind: f"≈{text}",
    lambda text, kind: text + "0" if "." in text else text,
]


def _percent(text: str) -> str:
    """0.665 as 66.5 % (the same number, written as a percentage)."""
    negative = text.startswith("-")
    whole, _, part = text.lstrip("-").partition(".")
    digits = (whole + part).lstrip("0") or "0"
    places = len(part) - 2
    shown = digits.rjust(places + 1, "0")
    number = f"{shown[:-places]}.{shown[-places:]}" if places > 0 else shown
    return ("-" if negative else "") + number + " %"


def _decimal(value: Any, places: int) -> str:
    scaled = _round(value, places)
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}" if places else f"{sign}{digits}"


def _plants(spec: dict[str, Any], claim: str, places: int) -> list[Any]:
    """Numbers a student might write for a blank: each slip's value and a few others."""
    step, row, column = _claim(claim)
    right, slips = attention_slips(spec)
    value = right[step][row][column]
    found = [way[step][row][column] for ways in slips.values() for way in ways if step in way]
    found += [-value, value * 100, mpmath.mpf(_trunc(value, places)) / 10 ** places,
              value + mpmath.mpf(37) / 10 ** (places + 1)]
    grid = right[step]
    found += [grid[r][c] for r in range(len(grid)) for c in range(len(grid[0]))]
    return found


def make_class(lesson: tuple[list[Any], dict[str, Any]]
               ) -> tuple[list[dict[str, Any]], dict[tuple[str, str], tuple[str, set[str]]]]:
    """Thirty students' answers (per blank id) and the truth of every answer."""
    sheets, document = lesson
    rng = random.Random(20261206)
    students, expected = [], {}
    for sheet, variant in zip(sheets, document["variants"]):
        name = f"student {variant['variant']:02d}"
        answers: dict[str, str] = {}
        for record in variant["answers"]:
            blank_id = f"{record['exercise']}.{record['blank']}"
            text, verdict = _answer(sheet, record, rng)
            answers[blank_id] = text
            expected[(name, blank_id)] = verdict
        students.append({"student": name, "code": variant["code"], "answers": answers})
    return students, expected


def _answer(sheet: Any, record: dict[str, Any], rng: random.Random
            ) -> tuple[str, tuple[str, set[str]]]:
    exercise = sheet.exercises[int(record["exercise"]) - 1]
    places = record.get("places")
    plantable = exercise.kind in ("softmax_table", "output_row") and places is not None \
        and record.get("claim")
    roll = rng.random()
    if roll < 0.04:
        return rng.choice(["abc", "", "1,2,3"]), ("unreadable", set())
    if not plantable or roll < 0.45:
        text = str(record["expected"]).replace(",", ".")
        if plantable:
            writing = rng.choice(WRITINGS + [lambda t, k: _percent(t)] *
                                 (record["claim"].startswith("weights")))
            text = writing(text, "")
        return text, ("right", set())
    spec = exercise.problems[0]
    answer = rng.choice(_plants(spec, record["claim"], places))
    text = _decimal(answer, places)
    written = mpmath.mpf(_ratio(text)[0]) / _ratio(text)[1]
    return rng.choice(WRITINGS)(text, ""), truth(spec, record["claim"], places, written)


def _table(students: list[dict[str, Any]], ids: list[str], delimiter: str = ";") -> str:
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    writer.writerow(["student", "code", *ids])
    for student in students:
        writer.writerow([student["student"], student["code"],
                         *(student["answers"].get(b, "") for b in ids)])
    return "\ufeff" + out.getvalue()


def _graded(document: dict[str, Any]) -> dict[tuple[str, str], tuple[str, set[str]]]:
    return {(s["student"], m["blank"]): (m["verdict"], set(m["slips"]))
            for s in document["students"] for m in s["marks"]}


@pytest.fixture(scope="module")
def planted(lesson: tuple[list[Any], dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
            ) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("grade")
    _, document = lesson
    (folder / "answers.json").write_text(json.dumps(document, ensure_ascii=False), "utf-8")
    students, expected = make_class(lesson)
    ids = list(dict.fromkeys(f"{r['exercise']}.{r['blank']}" for v in document["variants"]
                             for r in v["answers"]))
    (folder / "class.csv").write_text(_table(students, ids), "utf-8")
    return {"folder": folder, "students": students, "expected": expected, "ids": ids,
            "document": document}


def test_the_class_has_every_kind_of_answer(planted: dict[str, Any]) -> None:
    verdicts = [verdict for verdict, _ in planted["expected"].values()]
    slips = {slip for _, named in planted["expected"].values() for slip in named}
    assert len(planted["students"]) == 30
    assert all(verdicts.count(v) >= 5 for v in ("right", "slip", "wrong", "unreadable"))
    assert {"no_scaling", "column_softmax", "truncation", "sign"} <= slips, slips
    assert any(len(named) > 1 for _, named in planted["expected"].values())   # two slips


def test_grade_reproduces_the_planted_truth_and_draws_the_chart(
        planted: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    folder = planted["folder"]
    png, svg = folder / "slips.png", folder / "slips.svg"
    status, out, err = run(capsys, "grade", str(folder / "class.csv"), "--answers",
                           str(folder / "answers.json"), "--format", "json",
                           "--chart", str(png))
    assert status == 0, err
    document = json.loads(out)
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text("utf-8"))).validate(document)
    assert document["slips_named"] is True
    assert _graded(document) == planted["expected"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    status, _, err = run(capsys, "grade", str(folder / "class.csv"), "--answers",
                         str(folder / "answers.json"), "--chart", str(svg), "-o",
                         str(folder / "out.txt"))
    assert status == 0, err
    root = ElementTree.fromstring(svg.read_bytes())
    assert root.tag.endswith("svg")
    counted = {row["slip"]: row["answers"] for row in document["summary"]["slips"]}
    named = [slip for _, slips in planted["expected"].values() for slip in slips]
    assert counted == {slip: named.count(slip) for slip in set(named)}


def test_text_csv_and_html_say_the_same_in_the_keys_language(
        planted: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    folder = planted["folder"]
    args = ["grade", str(folder / "class.csv"), "--answers", str(folder / "answers.json")]
    _, text, _ = run(capsys, *args)
    assert "rounds to" in text and "softmax over columns" in text
    _, table, _ = run(capsys, *args, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(table)))
    assert {(r["student"], r["blank"]): r["verdict"] for r in rows} == \
        {key: verdict for key, (verdict, _) in planted["expected"].items()}
    _, page, _ = run(capsys, *args, "--format", "html", "--language", "pl")
    assert page.startswith("<!DOCTYPE html>") and 'lang="pl"' in page
    assert "softmax policzono po kolumnach" in page and "<script" not in page
    _, page, _ = run(capsys, *args, "--format", "html", "--chart", str(folder / "in.svg"))
    assert page.count("<svg") == 1 and "<?xml" not in page


# ------------------------------------------------------------------ Moodle and typed files
def _slots(variant: dict[str, Any], cloze: bool) -> list[list[str]]:
    """A quiz's slots for one variant: one per blank, or one per exercise (Cloze)."""
    exercises: dict[str, list[str]] = {}
    for record in variant["answers"]:
        exercises.setdefault(record["exercise"], []).append(
            f"{record['exercise']}.{record['blank']}")
    return list(exercises.values()) if cloze else \
        [[b] for blank_ids in exercises.values() for b in blank_ids]


def _moodle(planted: dict[str, Any], cloze: bool) -> str:
    document = planted["document"]
    slots = _slots(document["variants"][0], cloze)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["Surname", "First name", "Email address", "State", "Started on",
                     "Completed", "Time taken", "Grade/10.00"] +
                    [f"Response {k}" for k in range(1, len(slots) + 1)] +
                    [f"Right answer {k}" for k in range(1, len(slots) + 1)])
    for student, variant in zip(planted["students"][:6], document["variants"]):
        slots = _slots(variant, cloze)
        expected = {f"{r['exercise']}.{r['blank']}": str(r["expected"])
                    for r in variant["answers"]}

        def cell(blank_ids: list[str], source: dict[str, str]) -> str:
            if len(blank_ids) == 1:
                return source[blank_ids[0]].strip() or "-"
            return "; ".join(f"part {k}: {source[b].strip()}"
                             for k, b in enumerate(blank_ids, 1))
        last, first = student["student"].split()
        writer.writerow([first, last, "", "Finished", "", "", "10 mins", "5.00"] +
                        [cell(s, student["answers"]) for s in slots] +
                        [cell(s, expected) for s in slots])
    writer.writerow(["Nobody", "", "", "", "", "", "", ""] + [""] * (2 * len(slots)))
    return out.getvalue()


@pytest.mark.parametrize("cloze", [False, True])
def test_a_moodle_responses_report_is_graded_the_same(
        planted: dict[str, Any], cloze: bool, capsys: pytest.CaptureFixture[str]) -> None:
    folder = planted["folder"]
    report = folder / f"responses-{cloze}.csv"
    report.write_text(_moodle(planted, cloze), "utf-8")
    status, out, err = run(capsys, "grade", str(report), "--answers",
                           str(folder / "answers.json"), "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    assert [s["code"] for s in document["students"]] == [f"{s['code']}" for s in
                                                         planted["students"][:6]]
    graded = {(s["student"].split()[1], m["blank"]): (m["verdict"], set(m["slips"]))
              for s in document["students"] for m in s["marks"]}
    expected = {(name.split()[1], blank): truth for (name, blank), truth in
                planted["expected"].items() if name in
                [s["student"] for s in planted["students"][:6]]}
    assert graded == expected


def test_a_folder_of_typed_answers(planted: dict[str, Any],
                                   capsys: pytest.CaptureFixture[str]) -> None:
    folder = planted["folder"] / "typed"
    folder.mkdir()
    for student in planted["students"][:5]:
        lines = ["# typed from the paper sheet", f"student = {student['student']}",
                 f"code = {student['code']}"]
        lines += [f"{b} = {a}" for b, a in student["answers"].items()]
        (folder / f"{student['code']}.txt").write_text("\n".join(lines) + "\n", "utf-8")
    (folder / "T99.txt").write_text("code = Z9\n1.e1 = 7.389\nno.such = 1\n", "utf-8")
    status, out, err = run(capsys, "grade", str(folder), "--answers",
                           str(planted["folder"] / "answers.json"), "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    graded = _graded(document)
    for student in planted["students"][:5]:
        for blank_id in student["answers"]:
            key = (student["student"], blank_id)
            assert graded[key] == planted["expected"][key], key
    unknown = document["students"][-1]
    assert [m["reason"] for m in unknown["marks"]] == ["variant", "variant"]


# ------------------------------------------------------------------ rules and bad files
def test_the_rule_is_the_teachers(planted: dict[str, Any],
                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = planted["folder"]
    document = planted["document"]
    record = next(r for r in document["variants"][0]["answers"] if r["blank"] == "a1")
    value = mpmath.mpf(record["value"])
    near = _decimal(value + mpmath.mpf(4) / 10 ** 4, 4)       # 0.0004 off, 4 places
    table = folder / "rule.csv"
    table.write_text(f"student,code,1.a1\nAna,{document['variants'][0]['code']},{near}\n",
                     "utf-8")
    args = ["grade", str(table), "--answers", str(folder / "answers.json"), "-f", "json"]

    def verdict(*options: str) -> tuple[str, str]:
        status, out, err = run(capsys, *args, *options)
        assert status == 0, err
        mark = json.loads(out)["students"][0]["marks"][0]
        return mark["verdict"], mark["rule"]
    at_three = _round(value + mpmath.mpf(4) / 10 ** 4, 3) == _round(value, 3)
    assert verdict()[0] == ("right" if at_three else "wrong")
    assert verdict()[1].startswith(f"rounds to {_decimal(value, 3)} at 3 decimal places")
    assert verdict("--places", "4")[0] in ("wrong", "slip")
    assert verdict("--tolerance", "0.0005") == ("right", f"within 0.0005 of {_decimal(value, 6)}")
    assert verdict("--tolerance", "0.0003")[0] in ("wrong", "slip")
    _, out, _ = run(capsys, *args, "--tolerance", "0.0005")
    assert json.loads(out)["rule"] == {"places": None, "tolerance": "0.0005"}
    status, _, err = run(capsys, *args, "--tolerance", "-1")
    assert status == 2
    assert_one_line_error(err, "--tolerance")


@pytest.mark.parametrize("name, text, where", [
    ("no-equals.txt", "code = T1\n1.e1 7.389\n", "line 2"),
    ("long-row.csv", "student,code,1.e1\nAna,T1,1,2\n", "line 2"),
    ("no-variant.csv", "student,1.e1\nAna,7.389\n", "line 1"),
])
def test_a_bad_file_is_one_line_naming_it_and_the_line(
        planted: dict[str, Any], name: str, text: str, where: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    folder = planted["folder"] / "bad"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_text(text, "utf-8")
    source = str(path)
    if name.endswith(".txt"):
        single = folder / "single"
        single.mkdir(exist_ok=True)
        (single / name).write_text(text, "utf-8")
        source = str(single)
    status, out, err = run(capsys, "grade", source, "--answers",
                           str(planted["folder"] / "answers.json"), "-o",
                           str(folder / "out.txt"))
    assert status == 2 and out == ""
    assert_one_line_error(err, name, where)
    assert not (folder / "out.txt").exists()


def test_the_grade_schema_is_shipped_and_printed(capsys: pytest.CaptureFixture[str]) -> None:
    shipped = json.loads(SCHEMA.read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(shipped)
    status, out, _ = run(capsys, "schema", "grade")
    assert status == 0 and json.loads(out) == shipped


def test_a_key_that_is_not_an_answers_file(planted: dict[str, Any],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    bad = planted["folder"] / "key.json"
    bad.write_text('{"variants": [', "utf-8")
    status, _, err = run(capsys, "grade", str(planted["folder"] / "class.csv"), "--answers",
                         str(bad))
    assert status == 2
    assert_one_line_error(err, "key.json", "line 1")


def test_without_matplotlib_a_chart_is_one_line_and_nothing_else_needs_it(
        planted: dict[str, Any], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    folder = planted["folder"]
    args = ["grade", str(folder / "class.csv"), "--answers", str(folder / "answers.json")]
    status, _, err = run(capsys, *args, "--chart", str(folder / "none.png"), "-o",
                         str(folder / "none.txt"))
    assert status == 2
    assert_one_line_error(err, "matplotlib")
    assert not (folder / "none.png").exists() and not (folder / "none.txt").exists()
    status, out, _ = run(capsys, *args)
    assert status == 0 and "Class summary" in out


@pytest.fixture(scope="module")
def every_kind() -> Any:
    from symattn.worksheets.grade_key import read_key

    sheets = build(seed=3, kinds=("output_row", "causal_mask", "find_error", "sizes",
                                  "design", "entropy"))
    return read_key(answers_document(sheets), "every-kind.json")


def test_any_text_is_graded_never_an_error(every_kind: Any) -> None:
    from hypothesis import given, settings, strategies as st

    from symattn.worksheets.grade_input import Submission
    from symattn.worksheets.grading import VERDICTS, Rule, grade

    ids = every_kind.blank_ids()
    pieces = st.sampled_from(["0", "1", ".", ",", "%", "≈", "-", "−", " ", "e", "/", "∞",
                              "inf", "(", ")", ";", "MiB", "A", "x", "\u00a0", "9" * 30])
    texts = st.one_of(st.text(max_size=12), st.lists(pieces, max_size=8).map("".join))

    @settings(max_examples=150, deadline=None, derandomize=True)
    @given(st.lists(st.tuples(st.sampled_from(ids), texts), min_size=1, max_size=6),
           st.sampled_from([Rule(), Rule(places=2), Rule(tolerance="key")]))
    def graded(answers: list[tuple[str, str]], rule: Rule) -> None:
        submission = Submission("s", "s.txt", 1, every_kind.variants[0], "",
                                tuple((b, a, 1) for b, a in answers))
        marks = grade(every_kind, [submission], rule).students[0].marks
        assert [m.blank for m in marks] == [b for b, _ in answers]
        assert all(m.verdict in VERDICTS for m in marks)
        assert all(m.verdict == "unreadable" for m, (_, a) in zip(marks, answers)
                   if not a.strip())

    graded()
