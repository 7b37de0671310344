"""``check DOC --spec``: the fail-safe rule, suspicious numbers, the document's counts.

A number is wrong only where its place is certain (a name fixes it); a wrong-looking
number placed by its value alone, or not placed but close to a quantity, is
suspicious: listed with its line and nearest quantity, not counted as wrong.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import jsonschema
import pytest

from cli_support import run
from extract_support import seed

ROOT = Path(__file__).resolve().parent.parent
# Two scores of 0: softmax gives 0.5 and 0.5 (exactly).
INPUTS = '[inputs]\nscaled = [[0, 0]]\n[options]\nscale = "none"\n'
# The weights printed as a bare row: placed on weights[1] by their values alone; 0.6
# looks wrong there. On the side, softmax([2, 0]) = [e^2, 1] / (e^2 + 1) printed as
# [0.879, 0.119]: 0.119 rounds 0.11920..., 0.879 is 1.8 units from 0.88079...
BY_VALUE = ("Scores [0, 0].\n\nSoftmax gives [0.5, 0.6].\n\n"
            "For comparison, [2, 0]  →  softmax  →  [0.879, 0.119], with 12 heads.\n")
# The same row under its step's name: its place is certain, so 0.6 is wrong.
NAMED = "Scores [0, 0].\n\nweights = [0.5, 0.6]\n"


def _files(tmp_path: Path, text: str) -> tuple[str, str]:
    document, spec = tmp_path / "page.md", tmp_path / "inputs.toml"
    document.write_text(text, encoding="utf-8")
    spec.write_text(INPUTS, encoding="utf-8")
    return str(document), str(spec)


def _cut(value: float, places: int) -> str:
    """The value's first ``places`` decimals, cut (as "..." says more follow)."""
    return f"{math.floor(value * 10 ** places) / 10 ** places:.{places}f}"


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, object]]:
    status, out, _ = run(capsys, "check", *argv, "-f", "json")
    document = json.loads(out)
    schema = json.loads((ROOT / "symattn" / "schemas" / "check.json").read_text())
    jsonschema.validate(document, schema)
    return status, document["reports"][0]


def test_a_number_placed_by_value_alone_is_suspicious_not_wrong(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    document, spec = _files(tmp_path, BY_VALUE)
    status, out, _ = run(capsys, "check", document, "--spec", spec, "--language", "en",
                         "--width", "0")
    assert status == 0
    assert "wrong: 0" in out and "WRONG" not in out
    row = next(line for line in out.splitlines() if line.startswith("3:21 "))
    assert " suspicious " in row and "should be 0.5" in row
    assert "the weight of key 2 in row 1" in row
    # what suspicious means, said once under the table
    assert "suspicious: its place is not certain" in out
    status, _, _ = run(capsys, "check", document, "--spec", spec, "--fail-on", "suspicious")
    assert status == 1
    status, _, _ = run(capsys, "check", document, "--spec", spec, "--fail-on",
                       "wrong,suspicious")
    assert status == 1


def test_a_number_whose_name_fixes_its_place_is_wrong(capsys: pytest.CaptureFixture[str],
                                                       tmp_path: Path) -> None:
    document, spec = _files(tmp_path, NAMED)
    status, report = _json(capsys, document, "--spec", spec)
    verdicts = {(c["position"], c["printed"]): c["verdict"] for c in report["claims"]}
    assert status == 1
    assert verdicts[("weights[1,2]", "0.6")] == "wrong"
    assert verdicts[("weights[1,1]", "0.5")] == "ok"
    assert report["suspicious"] == [] and report["summary"]["suspicious"] == 0


def test_a_number_near_a_side_calculation_is_suspicious(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    document, spec = _files(tmp_path, BY_VALUE)
    side = math.exp(2) / (math.exp(2) + 1)           # softmax([2, 0])[1]
    assert round(1 / (math.exp(2) + 1), 3) == 0.119    # the other printed weight is right
    status, report = _json(capsys, document, "--spec", spec)
    assert status == 0
    unplaced = [s for s in report["suspicious"] if s["position"] is None]
    assert unplaced == [{"line": 5, "column": 41, "printed": "0.879", "position": None,
                         "nearest": [{"position": "weights[1,1]",
                                      "exact_decimal": _cut(side, 5) + "...",
                                      "computation": "softmax [2, 0]"}]}]
    placed = [s for s in report["suspicious"] if s["position"] is not None]
    assert [(s["line"], s["column"], s["printed"], s["position"]) for s in placed] == \
        [(3, 21, "0.6", "weights[1,2]")]
    claim = next(c for c in report["claims"] if c["verdict"] == "suspicious")
    assert claim["nearest"] == [{"position": "weights[1,2]", "exact_decimal": "0.5"}]
    # suspicious numbers that are not placed also fail only when asked to
    status, _, _ = run(capsys, "check", document, "--spec", spec, "--fail-on", "suspicious")
    assert status == 1


def test_every_report_counts_the_documents_numbers(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    document, spec = _files(tmp_path, BY_VALUE)
    # placed: the two scores and the two weights; not placed: 2, 0, 0.879, 0.119 of the
    # side calculation and the 12 heads; suspicious: 0.6 (placed) and 0.879 (not placed)
    counts = {"placed": 4, "suspicious": 2, "unplaced": 5, "unreadable": 0}
    _, report = _json(capsys, document, "--spec", spec)
    assert report["document"] == counts
    assert report["summary"] == {"ok": 3, "propagated": 0, "wrong": 0, "undecided": 0,
                                 "suspicious": 1}
    assert [n["printed"] for n in report["not_placed"]] == ["2", "0", "0.879", "0.119", "12"]
    line = ("In the document: 4 numbers placed, 2 suspicious, 5 not placed, "
            "0 unreadable.")
    for form in ("text", "markdown"):
        status, out, _ = run(capsys, "check", document, "--spec", spec, "-f", form,
                             "--language", "en")
        assert status == 0 and line in out.splitlines()
        assert "Suspicious numbers (not counted as wrong):" in out


def test_show_unplaced_lists_line_column_and_text(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    document, spec = _files(tmp_path, BY_VALUE)
    status, out, _ = run(capsys, "check", document, "--spec", spec, "--language", "en")
    assert "Numbers not placed:" not in out
    status, out, _ = run(capsys, "check", document, "--spec", spec, "--language", "en",
                         "--show", "unplaced")
    lines = out.splitlines()
    listed = lines[lines.index("Numbers not placed:") + 1:]
    # "For comparison, [2, 0]  →  softmax  →  [0.879, 0.119], with 12 heads."
    assert [line.strip() for line in listed if line.strip()] == [
        "line 5, column 18: 2", "line 5, column 21: 0", "line 5, column 41: 0.879",
        "line 5, column 48: 0.119", "line 5, column 61: 12"]
    status, out, _ = run(capsys, "check", document, "--spec", spec, "--language", "en",
                         "--show", "unplaced", "-f", "markdown")
    assert "**Numbers not placed:**" in out and "- line 5, column 61: $12$" in out


@pytest.mark.parametrize("language, word, heading, counts", [
    ("en", "suspicious", "Suspicious numbers", "In the document: 4 numbers placed"),
    ("pl", "podejrzana", "Liczby podejrzane", "W dokumencie: liczby przypisane: 4"),
    ("cs", "podezřelé", "Podezřelá čísla", "V dokumentu: čísla přiřazená: 4"),
    ("ru", "подозрительно", "Подозрительные числа", "В документе: чисел размещено: 4"),
    ("uk", "підозріле", "Підозрілі числа", "У документі: чисел розміщено: 4"),
])
def test_the_new_words_in_five_languages(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                         language: str, word: str, heading: str,
                                         counts: str) -> None:
    document, spec = _files(tmp_path, BY_VALUE)
    status, out, _ = run(capsys, "check", document, "--spec", spec, "--language", language,
                         "--show", "unplaced", "--width", "0")
    out = out.replace("\u00a0", " ")     # the catalogs' unbreakable spaces
    assert status == 0
    row = next(line for line in out.splitlines() if line.startswith("3:21 "))
    assert word in row and f"{word}: " in out        # the verdict, and what it means
    assert heading in out and counts in out
    if language != "en":
        assert "suspicious" not in out and "not placed" not in out and "near" not in out


def test_seed_001_reports_the_softmax_of_10_2_1_printed_as_0_9997(
        capsys: pytest.CaptureFixture[str]) -> None:
    path = seed("001")
    if path is None:
        pytest.skip("the seed documents are not beside the project (../shared/seeds)")
    spec = ROOT / "symattn" / "examples" / "001-kocka-spi-venku.toml"
    # softmax([10, 2, 1])[1] = e^10 / (e^10 + e^2 + e^1) = 0.99954..., printed 0.9997
    exact = math.exp(10) / (math.exp(10) + math.exp(2) + math.exp(1))
    assert round(exact, 4) == 0.9995
    status, out, _ = run(capsys, "check", str(path), "--spec", str(spec), "--language", "en")
    line = next(line for line in out.splitlines() if "0.9997 is suspicious" in line)
    assert line.strip().startswith("line 60, column 35:")
    assert f"the weight of key 1 in row 1 of softmax [10, 2, 1] = {_cut(exact, 6)}…" in line
    _, report = _json(capsys, str(path), "--spec", str(spec))
    found = [s for s in report["suspicious"] if s["printed"] == "0.9997"]
    assert [(s["line"], s["position"], s["nearest"][0]["computation"]) for s in found] == \
        [(60, None, "softmax [10, 2, 1]")]


def test_a_number_the_checker_cannot_read_is_not_placed_and_the_rest_is_checked(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # e^10 = 22026.46...: "22,026" reads as 22026 or 22.026, and the page writes decimal
    # points elsewhere, so no claim can say which; the other numbers are still judged
    document, spec = tmp_path / "page.md", tmp_path / "inputs.toml"
    document.write_text("Scores [10, 0].\n\ne^10 = 22,026 and e^0 = 1.0000, so the weights "
                        "are [0.99995, 0.00005].\n", encoding="utf-8")
    spec.write_text('[inputs]\nscaled = [[10, 0]]\n[options]\nscale = "none"\n',
                    encoding="utf-8")
    weight = 1 / (1 + math.exp(-10))
    assert (round(weight, 5), round(1 - weight, 5)) == (0.99995, 0.00005)
    status, report = _json(capsys, str(document), "--spec", str(spec))
    assert status == 0
    assert report["not_placed"] == [{"line": 3, "column": 8, "printed": "22,026"}]
    assert {(c["position"], c["printed"], c["verdict"]) for c in report["claims"]
            if c["line"] == 3 and c["step"] != "scaled"} == {
        ("exp[1,2]", "1.0000", "ok"), ("weights[1,1]", "0.99995", "ok"),
        ("weights[1,2]", "0.00005", "ok")}


def test_summary_gives_the_counts_only(capsys: pytest.CaptureFixture[str],
                                       tmp_path: Path) -> None:
    document, spec = _files(tmp_path, BY_VALUE)
    status, out, _ = run(capsys, "check", document, "--spec", spec, "--summary",
                         "--language", "en")
    assert status == 0 and len(out.splitlines()) == 1
    assert out.rstrip().endswith("In the document: 4 numbers placed, 2 suspicious, "
                                 "5 not placed, 0 unreadable.")
    status, report = _json(capsys, document, "--spec", spec, "--summary")
    assert "claims" not in report and report["document"]["suspicious"] == 2
    assert [s["position"] for s in report["suspicious"]] == ["weights[1,2]", None]


def test_a_number_not_placed_is_suspicious_only_when_close_to_a_quantity(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # softmax([0, 0, 0]) = 1/3 each. 0.3335 is 1.7 units in its last place from 1/3 (too
    # far to be placed, close enough to be a slip); 0.3340 is 6.7 units away; 0.9998 is
    # near only the row sum (1, which a sum of rounded weights is near) and 1.0000002
    # only e^0 = 1, a value its places would write as 1.0000000
    document, spec = tmp_path / "page.md", tmp_path / "inputs.toml"
    document.write_text("Scores [0, 0, 0].\n\nSoftmax gives [0.333, 0.333, 0.333].\n\n"
                        "Momentum 0.9998, a ratio of 1.0000002, a rate of 0.3340 and a "
                        "weight of 0.3335.\n", encoding="utf-8")
    spec.write_text('[inputs]\nscaled = [[0, 0, 0]]\n[options]\nscale = "none"\n',
                    encoding="utf-8")
    assert abs(0.3335 - 1 / 3) / 1e-4 < 3 < abs(0.3340 - 1 / 3) / 1e-4
    _, report = _json(capsys, str(document), "--spec", str(spec))
    assert {"0.9998", "1.0000002", "0.3340", "0.3335"} <= \
        {n["printed"] for n in report["not_placed"]}
    unplaced = [s for s in report["suspicious"] if s["position"] is None]
    assert [s["printed"] for s in unplaced] == ["0.3335"]
    assert [(n["position"], n["exact_decimal"]) for n in unplaced[0]["nearest"]][0] == \
        ("weights[1,1]", _cut(1 / 3, 6) + "...")


# Scores 1 and 0 of one query: softmax gives e/(e+1) = 0.731 and 1/(e+1) = 0.269.
ROW_INPUTS = '[inputs]\nscores = [[1, 0]]\n[options]\nscale = "none"\n'


def _verdicts(capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str,
              inputs: str = ROW_INPUTS) -> dict[str, str]:
    document, spec = tmp_path / "page.md", tmp_path / "inputs.toml"
    document.write_text(text, encoding="utf-8")
    spec.write_text(inputs, encoding="utf-8")
    _, report = _json(capsys, str(document), "--spec", str(spec))
    return {c["position"]: c["verdict"] for c in report["claims"]}


def test_a_matrix_under_its_steps_name_is_wrong_whatever_its_values(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # 0.9 and 0.1 are far from 0.731 and 0.269, but "Attention Weights =" fixes the place
    verdicts = _verdicts(capsys, tmp_path, "Attention Weights = [[0.9, 0.1]]\n")
    assert verdicts == {"weights[1,1]": "wrong", "weights[1,2]": "wrong"}


def test_words_before_a_matrix_name_it_together(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    # scaled by 1/2: the scaled scores are 0.5 and 0; "Scaled Scores" are not the raw ones
    inputs = '[inputs]\nscores = [[1, 0]]\n[options]\nscale = "0.5"\n'
    verdicts = _verdicts(capsys, tmp_path, "Scaled Scores = [[0.5, 0]]\n", inputs)
    assert verdicts == {"scaled[1,1]": "ok", "scaled[1,2]": "ok"}


def test_a_name_the_values_contradict_is_not_a_certain_place(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # the raw scores [1, 0] with the mask added before the scale, printed as "Masked
    # Scores": symattn's masked step is the scaled scores plus the mask (0.5, -inf), so
    # the name says masked but the values are the raw scores: suspicious, never wrong
    inputs = '[inputs]\nscores = [[1, 0], [2, 1]]\n[options]\nscale = "0.5"\nmask = "causal"\n'
    text = "Masked Scores = [[1, -inf], [2, 1]]\n"
    verdicts = _verdicts(capsys, tmp_path, text, inputs)
    assert "wrong" not in verdicts.values()


def test_a_number_that_may_be_the_first_group_of_a_thousand_is_not_called_wrong(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # e^10 = 22026.47; a PDF sets "22,026" as "22, 026": the 22 must not be judged as e^10
    inputs = '[inputs]\nscores = [[10, 0]]\n[options]\nscale = "none"\n'
    verdicts = _verdicts(capsys, tmp_path, "e^{10} = 22, 026 is large\n", inputs)
    assert "wrong" not in verdicts.values()


def test_a_czech_document_checked_in_english_names_its_lines_in_english(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    document, spec = tmp_path / "strana.md", tmp_path / "inputs.toml"
    document.write_text("Skóre [0, 0], váhy:\n\nweights = [0.5, 0.5]\n\n"
                        "Znovu: weights = [0.5, 0.5]\n", encoding="utf-8")
    spec.write_text('language = "cs"\n' + INPUTS, encoding="utf-8")
    status, out, _ = run(capsys, "check", str(document), "--spec", str(spec), "-l", "en")
    header = next(line for line in out.splitlines() if line.startswith("line "))
    assert status == 0 and "number" in header and "řádek" not in out
    assert any(line.startswith("3, 5 ") for line in out.splitlines())   # both printings
