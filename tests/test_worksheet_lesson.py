"""Worksheets for a lesson: find-the-error asks a row worth asking, no leaks, presets.

The find-the-error property test draws 1,000 exercises (the generator only, no
rendering) and checks each with plain ``fractions``: the problem has no zero
key, value or column of K and no tied scores in a row; the row asked for is one
the mistake changes as printed, and its correct values are not trivial.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from symattn.values.exact import NEG_INF
from symattn.worksheets.model import Setup
from symattn.worksheets.numbers import variant_random
from symattn.worksheets.mistakes import find_error
from suite_profile import examples, languages


def _matrix(rows: list[list[str]]) -> list[list[Fraction]]:
    return [[Fraction(x) for x in row] for row in rows]


def _check_find_error(seed: int) -> str:
    exercise = find_error(variant_random(seed, 1, 1, "find_error"), Setup())
    inputs = exercise.problems[0]["inputs"]
    Q, K, V = (_matrix(inputs[name]) for name in ("Q", "K", "V"))
    assert all(any(x != 0 for x in row) for row in K), (seed, "a zero key")
    assert all(any(x != 0 for x in row) for row in V), (seed, "a zero value")
    assert all(any(row[c] != 0 for row in K) for c in range(len(K[0]))), (seed, "zero column")
    for q in Q:
        scores = [sum((a * b for a, b in zip(q, k)), Fraction(0)) for k in K]
        assert len(set(scores)) == len(scores), (seed, "tied scores", scores)
    facts = exercise.facts
    step, row = facts["step"], facts["row"]
    fixed = [b for b in exercise.blanks if b.id.startswith("r")]
    # The blanks are the correct row: two or more finite non-zero entries.
    finite = [b for b in fixed if b.value is not NEG_INF and b.value != 0]
    assert len(finite) >= 2, (seed, facts["mistake"], [b.expected() for b in fixed])
    # ... and the student's printed row differs from it, as printed.
    assert facts["claims"][step][row] != [b.expected() for b in fixed], (seed, facts)
    label = fixed[0].label
    assert label.endswith(f"_{{{row + 1},1}}")
    return str(facts["mistake"])


def test_find_error_asks_a_changed_non_trivial_row_over_1000_seeds() -> None:
    # 1,000 seeds in the full profile; the quick one's 100 still meet every mistake.
    seen = {_check_find_error(seed) for seed in range(examples(1000))}
    assert seen == {"no_scaling", "column_softmax", "kv_swapped", "leaked_future",
                    "rounded_carried"}


@pytest.mark.parametrize("mistake", ["column_softmax", "rounded_carried", "leaked_future"])
def test_causal_mistakes_never_ask_row_one(mistake: str) -> None:
    # Under a causal mask row 1 of Z, E and A has one open key: always trivial.
    for seed in range(40):
        exercise = find_error(variant_random(seed, 1, 1, "find_error"),
                              Setup(mistakes=(mistake,)))
        assert exercise.facts["row"] >= 1


# ------------------------------------------------------------------ no leaks
import json  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from flint import fmpq  # noqa: E402

from symattn import messages  # noqa: E402
from symattn.errors import InputError  # noqa: E402
from symattn.render.worksheet import key_latex, sheet_latex  # noqa: E402
from symattn.render.worksheet_short import short_key_latex  # noqa: E402
from symattn.worksheets import sheet as worksheet  # noqa: E402

SEED = 987654321


def test_blanks_have_one_width_per_kind_whatever_the_answer() -> None:
    sheet = worksheet.build(seed=5, kinds="all", language="pl")[0]
    tex = sheet_latex(sheet)
    widths = re.findall(r"\\symattnblank\{([^}]*)\}", tex)
    lengths = {len(b.expected("pl")) for e in sheet.exercises for b in e.blanks
               if b.kind == "number"}
    assert len(lengths) >= 3                  # answers of many lengths (1, 1,75, -0,707)
    assert len(set(widths)) == 2, set(widths)   # one width for numbers, one for sizes
    assert len(widths) == sum(1 for e in sheet.exercises for b in e.blanks
                              if b.kind != "choice")


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_the_sheet_shows_a_code_and_only_the_key_the_seed(language: str) -> None:
    sheets = worksheet.build(seed=SEED, variants=3, language=language,
                             kinds=("softmax_table", "entropy"))
    codes = [s.code for s in sheets]
    assert len(set(codes)) == 3 and all(re.fullmatch(r"[A-Z][1-3]", c) for c in codes)
    catalog = messages.load(language)
    seed_word = catalog.text("sheet.variant").split("{{seed}}")[0].split(",")[-1].strip()
    for sheet in sheets:
        tex = sheet_latex(sheet)
        assert str(SEED) not in tex and seed_word not in tex
        assert sheet.code in tex
        for key in (key_latex(sheet), short_key_latex(sheet)):
            assert str(SEED) in key and sheet.code in key
    document = json.loads(worksheet.answers_document(sheets))
    assert document["seed"] == SEED
    assert [v["code"] for v in document["variants"]] == codes


@pytest.mark.parametrize("language,letters", [("en", "ABCDE"), ("pl", "ABCDE"),
                                              ("cs", "ABCDE"), ("ru", "АБВГД"),
                                              ("uk", "АБВГД")])
def test_option_letters_are_in_the_sheets_alphabet(language: str, letters: str) -> None:
    sheet = worksheet.build(seed=2, language=language, kinds=("find_error",))[0]
    tex = sheet_latex(sheet)
    marks = re.findall(r"\((.)\)~", tex)
    assert "".join(m for m in marks if not m.isdigit()) == letters
    mistake = next(b for b in sheet.exercises[0].blanks if b.id == "mistake")
    answer = mistake.expected(language)
    assert answer == letters[mistake.options.index(mistake.value)]
    record = next(r for r in sheet.answers() if r["blank"] == "mistake")
    assert [o["mark"] for o in record["options"]] == list(letters)


# ------------------------------------------------------------------ presets
def _exponentials(exercise: object) -> int:
    """How many e^x a student evaluates: one per open key of each row whose weights
    (or exponentials) the exercise asks for; find-the-error asks none in a lesson."""
    cells = set()
    for blank in exercise.blanks:           # type: ignore[attr-defined]
        if blank.claim is None or exercise.kind == "find_error":  # type: ignore[attr-defined]
            continue
        match = re.fullmatch(r"(weights|exp)\[(\d+),(\d+)\]", blank.claim[1])
        if match and blank.value != 0:       # a masked key needs no e^x
            cells.add((blank.claim[0], match.group(2), match.group(3)))
    return len(cells)


@pytest.mark.parametrize("seed", range(1, 13))
def test_lesson45_is_five_or_six_short_exercises(seed: int) -> None:
    sheet = worksheet.build(seed=seed, preset="lesson45", language="cs")[0]
    assert 5 <= len(sheet.exercises) <= 6
    assert sum(len(e.blanks) for e in sheet.exercises) <= 25
    assert sum(_exponentials(e) for e in sheet.exercises) <= 8
    find = next(e for e in sheet.exercises if e.kind == "find_error")
    assert find.facts["mistake"] != "rounded_carried"     # its row needs exponentials
    assert worksheet.check_answers(sheet) > 0
    tex = sheet_latex(sheet)
    assert tex.count(r"\vspace{2cm minus 1cm}") == len(sheet.exercises)   # room to work


def test_homework_and_exam_presets() -> None:
    homework = worksheet.build(seed=3, preset="homework")[0]
    exam = worksheet.build(seed=3, preset="exam")[0]
    assert len(homework.exercises) == 10 and len(exam.exercises) == 6
    assert r"\vspace" not in sheet_latex(homework).split(r"\begin{document}")[1]
    assert "sizes" in [e.kind for e in exam.exercises]
    # An explicit list of exercises wins over the preset's.
    chosen = worksheet.build(seed=3, preset="exam", kinds=("entropy",))[0]
    assert [e.kind for e in chosen.exercises] == ["entropy"]


@pytest.mark.parametrize("seed", range(1, 21))
def test_calculator_free_answers_are_whole_numbers_or_short_fractions(seed: int) -> None:
    sheet = worksheet.build(seed=seed, preset="lesson45", numbers="calculator-free")[0]
    for exercise in sheet.exercises:
        for blank in exercise.blanks:
            if blank.kind in ("choice", "size"):
                continue
            assert blank.places is None, (exercise.kind, blank.id)
            value = blank.value
            if value is NEG_INF:
                continue
            assert isinstance(value, fmpq) and int(value.q) in (1, 2, 3, 4, 5, 6, 7, 8, 9,
                                                                10, 11, 12, 13, 16)
        if "whole" in exercise.facts:     # e^{ln k} = k: the weights are k / sum
            whole = [Fraction(k) for k in exercise.facts["whole"]]
            weights = [b for b in exercise.blanks if b.claim and "weights" in b.claim[1]]
            assert [Fraction(int(b.value.p), int(b.value.q)) for b in weights] == \
                [k / sum(whole) for k in whole]
            assert all(b.kind == "fraction" for b in weights)
            if exercise.kind == "output_row":
                values = exercise.facts["values"]
                outputs = [b for b in exercise.blanks if b.id.startswith("o")]
                for k, blank in enumerate(outputs):
                    expected = sum((w * values[j][k] for j, w in enumerate(whole)),
                                   Fraction(0)) / sum(whole)
                    assert Fraction(int(blank.value.p), int(blank.value.q)) == expected
    assert worksheet.check_answers(sheet) > 0      # fractions judged by the checker
    assert "ln" in sheet_latex(sheet) and r"\tfrac" in key_latex(sheet)


def test_calculator_free_refuses_kinds_and_settings_without_a_free_form() -> None:
    with pytest.raises(InputError, match="temperature: no calculator-free form"):
        worksheet.build(numbers="calculator-free", kinds=("temperature",))
    with pytest.raises(InputError, match="rounded_carried: not a calculator-free mistake"):
        worksheet.build(numbers="calculator-free", kinds=("find_error",),
                        mistakes=("rounded_carried",))
    with pytest.raises(InputError, match="perfect square"):
        worksheet.build(numbers="calculator-free", d_k=2)
    with pytest.raises(InputError, match="unknown preset 'lesson90'"):
        worksheet.build(preset="lesson90")
    # Presets leave out what has no calculator-free form.
    exam = worksheet.build(seed=1, preset="exam", numbers="calculator-free")[0]
    assert "weights_row" not in [e.kind for e in exam.exercises]


def test_short_key_has_every_answer_and_one_line_of_working() -> None:
    sheet = worksheet.build(seed=4, language="en", kinds="all")[0]
    tex = short_key_latex(sheet)
    body = tex.split(r"\begin{document}")[1]
    assert body.count(r"\textbf{Working.}") == len(sheet.exercises)
    for exercise in sheet.exercises:
        for blank in exercise.blanks:
            if blank.kind == "number":
                number = blank.expected("en").replace("-inf", r"-\infty")
                assert number.replace(".", "{.}") in body or number in body, blank
    assert r"\symattnanswer" not in body       # no boxes: a list of answers
    listed = sum(line.count(r";\quad") + 1 for line in body.splitlines()
                 if line.startswith(r"\par\textbf{Answers:}"))
    assert listed == sum(len(e.blanks) for e in sheet.exercises)


def test_layout_rules_in_the_latex() -> None:
    sheet = worksheet.build(seed=6, language="ru", kinds=("fill_matrix", "sizes"))[0]
    tex = sheet_latex(sheet)
    assert r"\relpenalty=10000" in tex                       # no break after "="
    assert re.search(r"\\VAR|\{instructions\}", tex) is None
    head, _, _ = tex.partition(r"\begin{minipage}")
    assert "\\par\n\\bigskip\n\\par\\noindent" in head      # space after instructions
    grid = tex[tex.index(r"S = Q K^{\top} = ") + len(r"S = Q K^{\top} = "):]
    assert grid.startswith(r"\left[\begin{array}{ccc")     # outer column padding kept
    assert "KiB" in tex and r"2^{10}" in tex                 # KiB defined on the sheet
    key = key_latex(sheet)
    assert key.count(r"\needspace{") == len(sheet.exercises)  # no heading at a page foot
    # A short formula that ends a sentence is tied to the word before it.
    assert re.search(r" \$0\{,\}001\$\.", tex) is None


# ------------------------------------------------------------ the command, PDF
HAVE_TEX = shutil.which("pdflatex") is not None and shutil.which("pdfinfo") is not None


def _pages(path: Path) -> int:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True)
    return int(re.search(r"Pages:\s+(\d+)", info.stdout).group(1))  # type: ignore[union-attr]


@pytest.mark.skipif(not HAVE_TEX, reason="pdflatex or pdfinfo is not installed")
@pytest.mark.parametrize("language", languages(messages.LANGUAGES))
def test_lesson45_pdf_is_two_pages_and_its_short_key_at_most_three(language: str) -> None:
    from symattn.cli.app import main

    with tempfile.TemporaryDirectory() as folder:
        status = main(["worksheet", "--preset", "lesson45", "--language", language, "--pdf",
                       "--short-key", "--seed", str(SEED), "-o", folder])
        assert status == 0
        out = Path(folder)
        assert _pages(out / "worksheet.pdf") <= 2
        assert _pages(out / "worksheet-key-short.pdf") <= 3
        text = subprocess.run(["pdftotext", str(out / "worksheet.pdf"), "-"],
                              capture_output=True, text=True, check=True).stdout
        assert str(SEED) not in text
        short = subprocess.run(["pdftotext", str(out / "worksheet-key-short.pdf"), "-"],
                               capture_output=True, text=True, check=True).stdout
        assert str(SEED) in short


@pytest.mark.parametrize("seed", range(3))
def test_short_key_working_of_the_new_kinds(seed: int) -> None:
    """Each new kind gets a line a student can follow: the decode step by the new row's
    weights, the mixed heads by the heads' outputs, the next token over the logits
    the key lists, the stable softmax over the shifted scores (never e^{900})."""
    kinds = ("kv_cache", "multi_head", "next_token", "stable_softmax", "design")
    sheet = worksheet.build(seed=seed, language="en", kinds=kinds)[0]
    body = short_key_latex(sheet).split(r"\begin{document}")[1]
    lines = [line for line in body.splitlines() if line.startswith(r"\par\textbf{Working.}")]
    assert len(lines) == len(kinds)
    decode, mixed, readout, stable, design = lines
    assert re.search(r"o_\{3,\d\} = a_\{3,1\} \\cdot", decode)
    # The first output by each head's output whose entry of W_O's first column is not 0.
    W_O = sheet.exercises[1].problems[0]["inputs"]["W_O"]
    assert "o_{" in mixed and ",1} = o^{(" in mixed
    for head in (1, 2):
        assert (f"o^{{({head})}}_{{" in mixed) == (W_O[head - 1][0] != "0"), (mixed, W_O)
    logits = {int(z) for z in re.findall(r"\$z_\{\d\} = (-?\d+)\$", body)}
    assert {int(e) for e in re.findall(r"e\^\{(-?\d+)\}", readout)} <= logits
    powers = [int(e) for e in re.findall(r"e\^\{(-?\d+)\}", stable)]
    assert powers and max(powers) == 0
    assert "q = [" in design
