"""Worksheets: seeded nice numbers, every answer confirmed by the checker, catalogs.

The key must never hold a wrong number: each answer is the engine's exact
value formatted by NumberFormat, and here (as in ``symattn worksheet``) each
printed answer is judged by ``verify`` / ``sizes.check_spec`` as a claim.
"""

from __future__ import annotations

import json
import re

import pytest
from flint import fmpq

from symattn import messages
from symattn.worksheets import sheet as worksheet
from symattn.derivation.steps import STEP_INFO
from symattn.derivation.diagnostics import DIAGNOSTIC_STEP_INFO
from symattn.errors import InputError
from symattn.values.exact import NEG_INF
from symattn.worksheets.mistakes import MISTAKES, PLANTED_STEP, STEPS
from symattn.worksheets.model import Setup, decimal_value, half_ulp
from symattn.worksheets.catalog import KINDS
from symattn.worksheets.answers import derive_spec, softmax_carried
from symattn.worksheets.numbers import (clear_of_midpoints, draw_attention, scores_of,
                                        variant_random)
from symattn.render.worksheet import key_latex, sheet_latex

ALL = tuple(KINDS)


@pytest.fixture(scope="module")
def sheets() -> dict[str, list[worksheet.Worksheet]]:
    """Three variants of every kind in every language (the numbers do not depend on it)."""
    return {language: worksheet.build(seed=5, variants=3, language=language, kinds=ALL)
            for language in messages.LANGUAGES}


# ------------------------------------------------------------------ the key
@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_every_answer_of_every_key_is_ok_for_the_checker(
        sheets: dict[str, list[worksheet.Worksheet]], language: str) -> None:
    for sheet in sheets[language]:
        claimed = [b for e in sheet.exercises for b in e.blanks if b.claim is not None]
        verdicts = [v for report in sheet.verify() for v in report.verdicts]
        assert len(verdicts) == len(claimed) > 50
        assert {v.verdict for v in verdicts} == {"ok"}, [
            (v.position, v.printed, v.reason) for v in verdicts if v.verdict != "ok"]
        assert worksheet.check_answers(sheet) == len(verdicts)


def test_every_number_blank_is_claimed_and_printed_in_the_key(
        sheets: dict[str, list[worksheet.Worksheet]]) -> None:
    sheet = sheets["pl"][0]
    key = key_latex(sheet)
    for exercise in sheet.exercises:
        for blank in exercise.blanks:
            if blank.kind not in ("choice", "design"):     # design: graded by its check
                assert blank.claim is not None, (exercise.kind, blank.id)
            if blank.kind == "number":
                shown = blank.expected("pl").replace(",", "{,}").replace("-inf", r"-\infty")
                assert f"\\symattnanswer{{{shown}}}" in key, (exercise.kind, blank.id, shown)


def test_answer_specs_are_specs_symattn_check_reads(tmp_path, sheets) -> None:
    from symattn.cli.app import main

    paths = []
    for name, spec in sheets["cs"][1].answer_specs():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
        paths.append(str(path))
    out = tmp_path / "report.json"
    assert main(["check", *paths, "--format", "json", "-o", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    reports = report if isinstance(report, list) else report.get("reports", [report])
    verdicts = [c["verdict"] for r in reports for c in r["claims"]]
    assert verdicts and set(verdicts) == {"ok"}


def test_answers_json_has_value_printed_answer_and_tolerance(sheets) -> None:
    document = json.loads(worksheet.answers_document(sheets["ru"]))
    assert document["language"] == "ru" and len(document["variants"]) == 3
    answers = document["variants"][0]["answers"]
    kinds = {a["type"] for a in answers}
    assert kinds == {"number", "size", "choice", "design"}
    for answer in answers:
        assert {"exercise", "blank", "exact", "expected", "tolerance"} <= set(answer)
        if answer["type"] == "number" and answer["expected"] != "-inf":
            assert "." not in answer["expected"]           # a decimal comma in Russian
            value = fmpq(*map(int, answer["exact"].split("/"))) \
                if re.fullmatch(r"-?\d+(/\d+)?", answer["exact"]) else None
            if value is not None and answer["places"] is None:
                assert answer["tolerance"] == "0"


def test_tolerance_covers_answers_from_rounded_earlier_answers() -> None:
    """A student who carries the rounded e^z (and the rounded sum) forward is in tolerance."""
    for seed in range(40):
        exercise = worksheet.build(seed=seed, kinds=("softmax_table",))[0].exercises[0]
        blanks = {b.id: b for b in exercise.blanks}
        exps = [blanks[f"e{j}"].value for j in range(1, 5)]
        total, weights = softmax_carried(exps, 3)
        assert abs(total - decimal_value(blanks["sum"].value, 9)) <= blanks["sum"].tolerance()
        for j, weight in enumerate(weights, 1):
            blank = blanks[f"a{j}"]
            assert abs(weight - decimal_value(blank.value, 9)) <= blank.tolerance()
            assert blank.tolerance() >= half_ulp(3)


# ------------------------------------------------------------- the generator
def test_same_seed_same_sheets_other_seed_other_numbers() -> None:
    first = worksheet.build(seed=9, variants=2, language="uk")
    again = worksheet.build(seed=9, variants=2, language="uk")
    other = worksheet.build(seed=10, variants=2, language="uk")
    assert [sheet_latex(s) for s in first] == [sheet_latex(s) for s in again]
    assert [key_latex(s) for s in first] == [key_latex(s) for s in again]
    assert worksheet.answers_document(first) == worksheet.answers_document(again)
    assert first[0].answers() != other[0].answers()


def test_a_class_set_has_different_sheets_with_the_same_structure() -> None:
    sheets = worksheet.build(seed=3, variants=30, kinds=("softmax_table", "weights_row",
                                                         "find_error", "sizes"))
    bodies = {re.sub(r"Variant \d+/30", "", sheet_latex(s)) for s in sheets}
    assert len(bodies) == 30
    assert {tuple(e.kind for e in s.exercises) for s in sheets} == {
        ("softmax_table", "weights_row", "find_error", "sizes")}
    assert {tuple(b.id for e in s.exercises for b in e.blanks if e.kind != "find_error")
            for s in sheets}.__len__() == 1


@pytest.mark.parametrize("seed", range(30))
def test_generated_numbers_keep_hand_steps_short(seed: int) -> None:
    attention = draw_attention(variant_random(seed, 1, 1, "x"), 3, 3, 4, 2)
    for row in scores_of(attention.Q, attention.K):
        scaled = [s / 2 for s in row]                  # d_k = 4
        assert all((x * 100).q == 1 for x in scaled)   # at most two decimal places
        assert len(set(scaled)) >= 2 and max(scaled) - min(scaled) <= 3
    assert all(x.q == 1 for row in attention.Q + attention.K + attention.V for x in row)
    sheet = worksheet.build(seed=seed, kinds=("softmax_table", "weights_row", "causal_mask",
                                              "temperature", "no_scaling"))[0]
    for exercise in sheet.exercises:
        for blank in exercise.blanks:
            if blank.kind == "number" and blank.places is not None:
                assert clear_of_midpoints(blank.value, blank.places), (exercise.kind, blank.id)


def test_d_k_a_perfect_square_gives_short_scaled_scores() -> None:
    sheet = worksheet.build(seed=2, d_k=9, kinds=("scores_row",))[0]
    scaled = [b for b in sheet.exercises[0].blanks if b.id.startswith("t")]
    assert all(b.places is None for b in scaled)       # exact: QK^T / 3 is whole
    assert "d_k = 9" in sheet_latex(sheet)
    irrational = worksheet.build(seed=2, d_k=2, kinds=("scores_row",))[0]
    assert all(b.places == 3 for b in irrational.exercises[0].blanks if b.id.startswith("t")
               and b.value != 0)


# ---------------------------------------------------------- find the error
def test_every_mistake_is_planted_where_the_key_says(sheets) -> None:
    seen = set()
    for seed in range(60):
        exercise = KINDS["find_error"](variant_random(seed, 1, 1, "find_error"), Setup())
        facts = exercise.facts
        seen.add(facts["mistake"])
        # The printed derivation, judged on the right problem: the first number that is
        # not ok is in the step the key names (propagated: a rounded number carried).
        from symattn.verify import checker

        report = checker.check(derive_spec({**exercise.problems[0], "claims": facts["claims"]}))
        order = {step: k for k, step in enumerate(STEPS)}
        ordered = sorted(report.verdicts, key=lambda v: (order[v.step], v.claim.order))
        first = next(v for v in ordered if v.verdict != "ok")
        assert first.step == PLANTED_STEP[facts["mistake"]] == facts["step"]
        expected = "propagated" if facts["mistake"] == "rounded_carried" else "wrong"
        assert first.verdict == expected
        blanks = {b.id: b for b in exercise.blanks}
        assert blanks["step"].value == facts["step"] and blanks["mistake"].value == \
            facts["mistake"]
        assert blanks["step"].expected() == str(STEPS.index(facts["step"]) + 1)
    assert seen == set(MISTAKES)


def test_mistakes_can_be_chosen() -> None:
    sheets = worksheet.build(seed=1, variants=6, kinds=("find_error",),
                             mistakes=("leaked_future",))
    assert {s.exercises[0].facts["mistake"] for s in sheets} == {"leaked_future"}
    key = key_latex(sheets[0])
    assert r"\symattnchosen] (D)~\textbf{a future token leaked through the mask}" in key
    assert "must be $-\\infty$ (a later token)" in key and "$z_{" in key


# ------------------------------------------------------------------ a spec
def test_a_worksheet_on_a_specs_own_matrices() -> None:
    import symattn

    problem = symattn.load_example("000-cat-chases-mouse")
    sheets = worksheet.build(seed=1, variants=3, problem=problem,
                             kinds=("scores_row", "output_row", "find_error"))
    tex = sheet_latex(sheets[0])
    assert "cat chases mouse" in tex
    Q = derive_spec(sheets[0].exercises[1].problems[0])["Q"].value
    assert str(Q.exact(1, 0)) == "1/5"                  # the spec's X W_Q
    for sheet in sheets:
        worksheet.check_answers(sheet)


def test_sizes_from_a_size_spec() -> None:
    from symattn import sizes
    from symattn.problem import examples

    mapping = sizes.read_spec(str(examples.path("001-score-matrix-memory")))
    sheet = worksheet.build(kinds=("sizes",), sizes_spec=mapping)[0]
    answers = {a["blank"]: a["expected"] for a in sheet.answers()}
    assert answers["head_dim"] == "128" and answers["score_bytes"] == "64 MiB"
    worksheet.check_answers(sheet)


@pytest.mark.parametrize("kwargs, message", [
    ({"language": "de"}, "unknown language 'de'"),
    ({"variants": 0}, "variants must be between 1"),
    ({"kinds": "softmax,sizes"}, "did you mean `softmax_table`"),
    ({"places": 9}, "places must be between 1 and 6"),
    ({"mistakes": ("typo",)}, "unknown mistake 'typo'"),
    ({"seed": -1}, "seed must be a whole number"),
])
def test_bad_settings_are_input_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=re.escape(message)):
        worksheet.build(**kwargs)


def test_symbolic_specs_are_refused() -> None:
    import symattn

    with pytest.raises(InputError, match="rational numbers"):
        worksheet.build(problem=symattn.load_example("003-positions-sinusoidal"))


# ---------------------------------------------------------------- catalogs
def test_catalogs_have_every_message_with_the_same_placeholders() -> None:
    english = messages.load("en")
    for language in messages.LANGUAGES[1:]:
        catalog = messages.load(language)
        assert set(catalog.keys()) == set(english.keys()), language
        for key in english.keys():
            mine, theirs = english.get(key), catalog.get(key)
            if isinstance(mine, str):
                assert messages.placeholders(mine) == messages.placeholders(theirs), key
        for name in list(STEP_INFO) + list(DIAGNOSTIC_STEP_INFO):
            assert catalog.get(f"description.{name}"), (language, name)


def test_messages_write_math_as_math() -> None:
    """Every message is LaTeX: math between balanced $...$, never ASCII math in the prose
    (-oo, ->, QK^T, log2, sqrt(...), q_i . k_j) and no tool names."""
    ascii_math = re.compile(r"-oo|->|\^T\b|\blog2\b|sqrt\(|\w_\w+ \. \w_|symattn")
    for language in messages.LANGUAGES:
        catalog = messages.load(language)
        for key in catalog.keys():
            value = catalog.get(key)
            for text in value if isinstance(value, list) else [value]:
                text = re.sub(r"\{\{[a-z_]+\}\}", "", text)
                assert text.count("$") % 2 == 0, (language, key)
                prose = re.sub(r"\$[^$]*\$", "", text)
                if key.startswith("text."):       # the text listing names --max-terms
                    prose = prose.replace("--max-terms", "").replace("--format json", "")
                assert not ascii_math.search(prose), (language, key, prose)


def test_every_kind_and_mistake_has_its_messages() -> None:
    for language in messages.LANGUAGES:
        catalog = messages.load(language)
        for kind in KINDS:
            assert catalog.get(f"kind.{kind}.title"), (language, kind)
        for mistake in MISTAKES:
            assert catalog.get(f"mistake.{mistake}.name"), (language, mistake)
        assert catalog.get("sheet_tokens.sentence") and catalog.get("sheet_tokens.token")


def test_no_fixed_english_phrase_in_the_worksheet_templates() -> None:
    from pathlib import Path

    folder = Path(__file__).resolve().parent.parent / "templates"
    for name in ("worksheet.tex.j2", "_worksheet.tex.j2", "steps.tex.j2"):
        text = (folder / name).read_text(encoding="utf-8")
        body = re.sub(r"\\#\{.*?\}", "", text, flags=re.S)      # comments
        body = re.sub(r"\\(BLOCK|VAR)\{[^}]*\}", "", body)      # tags
        body = re.sub(r"\\[A-Za-z@]+", "", body)                # commands
        words = re.findall(r"\b[A-Za-z]{4,}\b", body)
        allowed = {"bmatrix", "itemize", "gather", "center", "tabular", "document",
                   "article", "english", "babel", "fontenc", "inputenc", "lmodern",
                   "geometry", "margin", "amsmath", "amssymb", "xcolor", "booktabs",
                   "glyphtounicode", "plus", "minus", "minipage", "linewidth", "baselineskip",
                   "section", "subsection", "normalfont", "large", "bfseries", "normalsize",
                   "small", "thepage", "parskip", "utf8", "sty", "symattn", "Generated",
                   "Compile", "with", "pdflatex", "program", "itemsep", "rgb", "oddfoot",
                   "evenfoot",
                   "abovedisplayskip", "belowdisplayskip", "abovedisplayshortskip",
                   "belowdisplayshortskip", "Large", "arraystretch", "rule", "hfill",
                   "quad", "qquad", "square", "boxtimes", "ensuremath", "text", "fbox",
                   "fcolorbox", "hspace", "textcolor", "textbf", "toprule", "midrule",
                   "bottomrule", "setlength", "startsection", "makeatletter", "needspace",
                   "array"}
        assert not [w for w in words if w not in allowed], (name, words)


def test_neg_inf_answers_print_as_minus_infinity() -> None:
    sheet = worksheet.build(seed=4, kinds=("causal_mask",), language="cs")[0]
    masked = [b for b in sheet.exercises[0].blanks if b.value is NEG_INF]
    assert len(masked) == 3 and {b.expected("cs") for b in masked} == {"-inf"}
    assert key_latex(sheet).count(r"\symattnanswer{-\infty}") == 3


@pytest.mark.parametrize("d_k", range(1, 17))
def test_every_d_k_and_number_of_places_gives_a_checked_key(d_k: int) -> None:
    sheet = worksheet.build(seed=d_k, d_k=d_k, places=1 + d_k % 6,
                            kinds=("scores_row", "weights_row", "output_row", "fill_matrix"))[0]
    assert worksheet.check_answers(sheet) > 10
    assert f"d_k = {d_k}" in sheet_latex(sheet)
