"""symattn extract: reading documents, finding numbers, placing them, the commands.

Expected values are worked out by hand in the comments (or printed by NumPy
when the notebook was written: tests/data/extract/attention-pytorch.ipynb).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from cli_support import assert_one_line_error, run
from extract_support import DATA, claim_pairs, seed
from symattn.extract.document import from_text, read_document
from symattn.extract.inputs import propose
from symattn.extract.pipeline import extract, spec_head
from symattn.extract.scanner import scan

NOTEBOOK = DATA / "attention-pytorch.ipynb"


def _numbers(text: str) -> list[tuple[str, Fraction | None, int]]:
    found = scan(from_text(text))
    return [(n.text, n.value, n.places) for n in
            sorted(found.singles + [n for g in found.groups for n in g.numbers],
                   key=lambda n: n.start)]


def test_minus_signs_decimal_commas_thousands_and_percent() -> None:
    assert _numbers("a = −0.5, b = 0,297 and 2,980.96 or 83,83% or 31 %") == [
        ("-0.5", Fraction(-1, 2), 1), ("0,297", Fraction(297, 1000), 3),
        ("2,980.96", Fraction(298096, 100), 2), ("83,83%", Fraction(8383, 100), 2),
        ("31 %", Fraction(31), 0)]


def test_a_minus_between_two_numbers_is_not_a_sign() -> None:
    assert [v for _, v, _ in _numbers("0.9 - 0.4 = 0.5")] == [Fraction(9, 10), Fraction(2, 5),
                                                              Fraction(1, 2)]


def test_vectors_in_every_notation_are_groups() -> None:
    text = ("q₃ = [ 0,9; 0,8 ]\n"                       # decimal commas, ; between
            "k_1 = [0.9  0.1]\n"                        # spaces between
            "X = np.array([[1, 2], [3, 1]])\n"          # NumPy
            "\\[W_Q = \\begin{bmatrix} 1 & 0 \\\\ 0 & 1 \\end{bmatrix}\\]\n"
            "m = [ 0.485, −∞, -inf ]\n"
            "| 0.5 | 0.25 |\n")
    groups = scan(from_text(text)).groups
    assert [(g.names, g.shape) for g in groups] == [
        (("q_3",), (1, 2)), (("k_1",), (1, 2)), (("X",), (2, 2)), (("W_Q",), (2, 2)),
        (("m",), (1, 3)), ((), (1, 2))]
    assert [n.value for n in groups[0].numbers] == [Fraction(9, 10), Fraction(4, 5)]
    assert [n.printed for n in groups[4].numbers] == ["0.485", "-inf", "-inf"]


def test_an_index_is_not_a_vector() -> None:
    groups = scan(from_text("E[0] = [1.0, 0.0] and scores[3,1] = 0.97")).groups
    assert [(g.names, [n.text for n in g.numbers]) for g in groups] == [
        (("E",), ["1.0", "0.0"])]


def test_lines_and_columns_are_the_original_ones() -> None:
    # \begin{bmatrix} is rewritten, yet 0.25 is reported where the file has it
    document = from_text("first line\n\\begin{bmatrix} 0.5 & 0.25 \\end{bmatrix}")
    number = scan(document).groups[0].numbers[1]
    assert (number.line, number.column) == (2, 23)
    assert document.original_line(2)[22:26] == "0.25"


def test_a_notebook_gives_markdown_and_printed_outputs_never_its_code() -> None:
    document = read_document(NOTEBOOK)
    values = {n.value for n in scan(document).singles} | \
        {n.value for g in scan(document).groups for n in g.numbers}
    assert Fraction("999.5") not in values          # in a code cell's source only
    assert Fraction("0.4011") in values             # printed by a code cell
    assert "import torch" not in document.text


def test_the_notebook_is_extracted_from_its_outputs() -> None:
    draft = extract(read_document(NOTEBOOK)).drafts[0]
    assert "Q = [[1, 0], [0, 1], [1, 1]]" in draft.head
    keys = {p.key: p.confidence for p in draft.placements}
    # scores = Q K^T = [[1,0,1],[0,1,1],[1,1,2]]; weights row 1 = softmax([.7071, 0, .7071])
    # = e^.7071 / (2 e^.7071 + 1) = 2.0281 / 5.0562 = 0.4011; output row 1 = 0.4011*(1,2)
    # + 0.1978*(3,4) + 0.4011*(5,6) = (3.0000, 4.0000)
    assert {k: keys[k] for k in ("scores", "scaled", "weights", "output")} == {
        "scores": "certain", "scaled": "certain", "weights": "certain", "output": "certain"}
    status_pairs = claim_pairs(draft.text(read_document(NOTEBOOK)))
    assert ("output", 2, 1, "entry", 0, str(Fraction("4.5105")), 4, False) in status_pairs


def test_inputs_are_proposed_from_named_vectors_with_their_positions() -> None:
    text = "q₃ = [1, 0]\nk₁ = [1, 1]\nk₂ = [0, 2]\nk₃ = [1, 0]\nv₁ = [1]\nv₂ = [0]\nv₃ = [2]\n"
    proposal = propose(scan(from_text(text + "[0.5, −∞, −∞]")))
    assert proposal.inputs == {"Q": [["1", "0"]], "K": [["1", "1"], ["0", "2"], ["1", "0"]],
                               "V": [["1"], ["0"], ["2"]]}
    assert proposal.options == {"query_positions": [3], "mask": "causal"}


def test_a_wrong_number_is_placed_by_the_equation_it_stands_in() -> None:
    # scores 0 and 0: e^0 = 1 is right; the document prints e^0 = 1.3 the second time
    spec = '[inputs]\nscaled = [[0, 0]]\n[options]\nscale = "none"\n'
    draft = extract(from_text("scores [0, 0]\ne^0 = 1\ne^0 = 1.3\n"), spec).drafts[0]
    placed = {(p.key, str(p.layout), p.confidence) for p in draft.placements}
    assert placed & {("exp[1,1]", "1.3", "guess"), ("exp[1,2]", "1.3", "guess")}
    assert placed & {("exp[1,1]", "1", "certain"), ("exp[1,2]", "1", "certain")}


def test_the_spec_head_drops_only_the_claims_table() -> None:
    text = "title = 't'\n[inputs]\nscaled = [[1, 2]]\n[claims]\nweights = ['0.3', '0.7']\n" \
           "[options]\nscale = 'none'\n"
    assert spec_head(text) == "title = 't'\n[inputs]\nscaled = [[1, 2]]\n[options]\n" \
                              "scale = 'none'\n"


def test_extract_writes_drafts_that_check_accepts(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    output = tmp_path / "draft.toml"
    status, _, err = run(capsys, "extract", str(NOTEBOOK), "-o", str(output))
    assert status == 0 and "draft 1:" in err
    status, out, _ = run(capsys, "check", str(output), "--format", "json")
    report = json.loads(out)["reports"][0]
    # every number the notebook prints rounds its exact value; the printed row sums
    # (1, 1, 1: ones alone settle no place) are listed as not placed
    assert status == 0 and report["summary"]["wrong"] == 0 and report["summary"]["ok"] > 40
    assert "#   line 25 (cell 4, line 4), column 20: 1.0000" in output.read_text(
        encoding="utf-8")
    # check the notebook itself with the draft's inputs: each verdict names its cell
    status, out, _ = run(capsys, "check", str(NOTEBOOK), "--spec", str(output), "-f", "json")
    claims = json.loads(out)["reports"][0]["claims"]
    assert status == 0
    assert {c["cell"] for c in claims if c["step"] == "output"} == {5}   # weights @ V
    assert {c["cell"] for c in claims if c["step"] == "weights"} == {4}


def test_check_a_document_reports_lines_and_columns(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    document = tmp_path / "page.md"
    # softmax(0, ln 3)? No roots here: scores 0 and 0 give 0.5 each; 0.6 is wrong, on a
    # row placed by its values alone: suspicious (docs/checking.md, the fail-safe rule)
    document.write_text("Scores [0, 0].\n\nSoftmax gives [0.5, 0.6].\n", encoding="utf-8")
    spec = tmp_path / "inputs.toml"
    spec.write_text('[inputs]\nscaled = [[0, 0]]\n[options]\nscale = "none"\n',
                    encoding="utf-8")
    status, out, _ = run(capsys, "check", str(document), "--spec", str(spec), "-f", "json")
    claims = json.loads(out)["reports"][0]["claims"]
    doubtful = [(c["position"], c["line"], c["column"]) for c in claims
                if c["verdict"] == "suspicious"]
    assert status == 0 and doubtful == [("weights[1,2]", 3, 21)]
    status, out, _ = run(capsys, "check", str(document), "--spec", str(spec), "--keys",
                         "--width", "0")
    row = next(line for line in out.splitlines() if line.startswith("3:21 "))
    assert status == 0 and "the weight of key 2 in row 1" in row
    assert "weights[1,2] @ line 3" in row
    status, out, _ = run(capsys, "check", str(document), "--spec", str(spec), "-f", "markdown",
                         "--keys")
    # Markdown: the key in <code>, its brackets escaped as check --format markdown does
    assert status == 0 and "<code>weights&#91;1,2&#93; @ line 3</code>" in out
    status, _, err = run(capsys, "check", str(spec), "--spec", str(spec))
    assert status == 2
    assert_one_line_error(err, "inputs.toml", "each FILE is a document")


def test_check_seed_001_reports_its_wrong_numbers_at_their_lines(
        capsys: pytest.CaptureFixture[str]) -> None:
    path = seed("001")
    if path is None:
        pytest.skip("the seed documents are not beside the project (../shared/seeds)")
    spec = Path(__file__).parent.parent / "symattn" / "examples" / "001-kocka-spi-venku.toml"
    status, out, _ = run(capsys, "check", str(path), "--spec", str(spec), "-f", "json")
    claims = json.loads(out)["reports"][0]["claims"]
    # wrong where the place is certain, suspicious where it is not (the fail-safe rule)
    flagged = sorted((c["position"], c["printed"], c["line"]) for c in claims
                     if c["verdict"] in ("wrong", "suspicious"))
    # e^0.445 = 1.5604902... printed 1.561 (lines 71 and 75); token 1's masked score is
    # q1.k1 / 2 = 1.1 / 2 = 0.55, printed 0.485 (line 86)
    assert flagged == [("exp[3,2]", "1.561", 71), ("exp[3,2]", "1.561", 75),
                       ("masked[1,1]", "0.485", 86)]
    assert status == (1 if any(c["verdict"] == "wrong" for c in claims) else 0)


@pytest.mark.parametrize("content, parts", [
    (None, ["no such file"]),
    (bytes(range(256)) * 8, ["not text in an encoding"]),
    (b"just words, no numbers", ["found no inputs", "--spec"]),
])
def test_unusable_documents_are_one_line_errors(capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path, content: bytes | None,
                                                parts: list[str]) -> None:
    path = tmp_path / "doc.txt"
    if content is not None:
        path.write_bytes(content)
    status, _, err = run(capsys, "extract", str(path))
    assert status == 2
    assert_one_line_error(err, str(path), *parts)


def test_a_broken_notebook_is_a_one_line_error(capsys: pytest.CaptureFixture[str],
                                               tmp_path: Path) -> None:
    path = tmp_path / "broken.ipynb"
    path.write_text('{"cells": 3}', encoding="utf-8")
    status, _, err = run(capsys, "extract", str(path))
    assert status == 2
    assert_one_line_error(err, "broken.ipynb", "no list of cells")


def test_scores_given_directly_are_the_inputs_with_the_printed_d_k() -> None:
    # d_k = 4: scaled = [[1, 0], [0, 1]]; softmax([1, 0]) = e/(e+1) = 0.7311, 0.2689
    page = "Here d_k = 4.\nscores = [[2, 0], [0, 2]]\nV = [[1, 0], [0, 1]]\n" \
           "weights = [[0.73, 0.27], [0.27, 0.73]]\n"
    draft = extract(from_text(page)).drafts[0]
    assert "scores = [[2, 0], [0, 2]]" in draft.head and "d_k = 4" in draft.head
    assert ("weights", [["0.73", "0.27"], ["0.27", "0.73"]], "certain") in \
        [(p.key, p.layout, p.confidence) for p in draft.placements]


def test_a_latex_document_with_matrices_over_several_lines() -> None:
    # Q = I, K = [[1, 1], [0, 1]]: scores = Q K^T = [[1, 0], [1, 1]]; scaled row 1 =
    # [1, 0] / sqrt(2) = [0.7071, 0]; e^0.7071 = 2.0281; weights row 1 = 2.0281 / 3.0281
    # = 0.670 and 0.330
    tex = ("\\[\nQ = \\begin{pmatrix}\n  1 & 0 \\\\\n  0 & 1\n\\end{pmatrix},\n"
           "K = \\begin{pmatrix} 1 & 1 \\\\ 0 & 1 \\end{pmatrix},\n"
           "V = \\begin{pmatrix} 2 & 0 \\\\ 0 & 2 \\end{pmatrix}\n\\]\n"
           "$QK^\\top = \\begin{pmatrix} 1 & 0 \\\\ 1 & 1 \\end{pmatrix}$, "
           "$\\sqrt{2} \\approx 1.414$, $e^{0.707} \\approx 2.028$,\n"
           "weights $\\begin{pmatrix} 0.670 & 0.330 \\end{pmatrix}$\n")
    draft = extract(from_text(tex, "page.tex")).drafts[0]
    placed = {p.key: (p.layout, p.confidence) for p in draft.placements}
    assert placed["Q"] == ([["1", "0"], ["0", "1"]], "certain")
    assert placed["scores"][0] == [["1", "0"], ["1", "1"]]
    assert placed["divisor"] == ("~1.414", "certain")
    assert placed["exp[1,1]"] == ("~2.028", "certain")
    assert placed["weights[1]"] == (["0.670", "0.330"], "certain")
