"""How a check report reads: problems an author acts on, in the reader's words, fitted to
the terminal, each reason written once."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

import symattn.problem.examples
from cli_support import run
from extract_support import seed
from symattn.render.text_table import aligned, fitted

SEED_SPEC = str(symattn.problem.examples.path("001-kocka-spi-venku"))


def _seed_001(tmp_path: Path) -> str:
    found = seed("001")
    if found is None:
        pytest.skip("the seed documents are not beside the project")
    copy = tmp_path / "chapter.md"
    shutil.copyfile(found, copy)
    return str(copy)


def _reasons(out: str) -> list[str]:
    """The reason cells of an unwrapped text table (``--width 0``): the last column."""
    lines = out.splitlines()
    reasons = []
    for k, line in enumerate(lines):
        if k and lines[k - 1].startswith(("line ", "řádek ")) or reasons and line.strip():
            reasons.append(re.split(r"\s{2,}", line)[-1])
        elif reasons and not line.strip():
            break
    return reasons


def test_seed_001_problems_fit_30_lines_of_120_characters(capsys: pytest.CaptureFixture[str],
                                                          tmp_path: Path) -> None:
    document = _seed_001(tmp_path)
    for argv in (["check", document, "--spec", SEED_SPEC, "--show", "problems"],
                 ["check", document, "--spec", SEED_SPEC, "--show", "problems", "-l", "en"],
                 ["check", "--example", "001-kocka-spi-venku", "--show", "problems"]):
        status, out, _ = run(capsys, *argv)
        lines = out.rstrip("\n").splitlines()
        assert status == 1 and len(lines) <= 30, (argv, len(lines))
        assert max(map(len, lines)) <= 120, argv
    # the wrong 1.561 (e^0.445 = 1.56049...) at its line and column, in words
    out = run(capsys, "check", document, "--spec", SEED_SPEC, "--show", "problems",
              "--width", "0")[1].replace("\u00a0", " ")
    assert re.search(r"^71:\d+ +exponenciála skóre dotazu 3 a klíče 2 ", out, re.M)


def test_a_full_report_writes_no_reason_twice(capsys: pytest.CaptureFixture[str],
                                              tmp_path: Path) -> None:
    for argv in (["check", "--example", "001-kocka-spi-venku", "-l", "en"],
                 ["check", "--example", "000-cat-chases-mouse", "-l", "en"]):
        _, out, _ = run(capsys, *argv, "--width", "0")
        reasons = [r for r in _reasons(out) if len(r) >= 40]
        assert len(reasons) > 3 and len(reasons) == len(set(reasons)), argv
    _, out, _ = run(capsys, "check", "--example", "001-kocka-spi-venku", "-l", "en",
                    "--width", "0")
    # both printings of the wrong 1.561 (spec lines 46 and 48) are one row
    assert re.search(r"^46, 48 +the exponential of the score of query 3 and key 2 ", out, re.M)
    # a right number is its rounding: the sum of row 3's exponentials
    assert re.search(r"5\.2597458… → 5\.260", out)
    # in the document the second 1.561 is suspicious, not wrong: its reason is referred to
    _, out, _ = run(capsys, "check", _seed_001(tmp_path), "--spec", SEED_SPEC, "-l", "en",
                    "--width", "0")
    assert re.search(r"^75:\d+ .* suspicious +as for line 71$", out, re.M)


def test_a_document_lists_a_suspicious_number_once(capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    """Without a spec, seed 001 has three examples; a number placed in one example is not
    listed as suspicious in another, and one in the table is not listed again below it."""
    import json

    document = _seed_001(tmp_path)
    _, out, _ = run(capsys, "check", document, "-f", "json")
    reports = json.loads(out)["reports"]
    placed = {(c["line"], c["column"]) for r in reports for c in r["claims"]}
    assert len(reports) >= 2 and (71, 11) in placed     # the wrong 1.561, in example 1
    for report in reports:
        own = {(c["line"], c["column"]) for c in report["claims"]}
        for found in report["suspicious"]:
            spot = (found["line"], found["column"])
            assert spot in own if found["position"] else spot not in placed
    _, out, _ = run(capsys, "check", document, "--width", "0", "-l", "en")
    listed = set(re.findall(r"^  line (\d+), column (\d+): ", out, re.M))
    assert not listed & set(re.findall(r"^(\d+):(\d+) ", out, re.M))


def test_the_width_wraps_every_cell_and_keeps_every_word() -> None:
    reason = "exact 0.3945211 rounds to 0.395, but from the numbers the document printed " * 3
    rows = [["76, 96, 100, 102–105", "the weight of key 3 in row 3", "0.394", reason],
            ["12", "the sum", "1", "right"]]
    for width in (60, 80, 120):
        lines = aligned(["line", "number", "printed", "reason"], rows, wrap={0: 12, 1: 20, 3: 0},
                        width=width)
        assert max(map(len, lines)) <= width
        assert sorted(" ".join(lines).split()) == sorted(
            " ".join(["line number printed reason"] + [" ".join(r) for r in rows]).split())
    one = aligned(["a", "b"], [["x", reason]], wrap=(1,), width=None)
    assert len(one) == 2 and one[1].endswith("printed")
    assert fitted(["  " + "word " * 30], 40)[1].startswith("    word")


def test_keys_and_words_name_the_same_entries(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check", "--example", "001-softmax-10-2-1", "-l", "en",
                         "--keys", "--width", "0")
    rows = [re.split(r"\s{2,}", line) for line in out.splitlines() if " weights[" in line]
    # the weight of key j in row 1 is weights[1,j], for each of the three
    assert sorted((r[1], r[2]) for r in rows) == [
        (f"the weight of key {j} in row 1", f"weights[1,{j}]") for j in (1, 2, 3)]
    _, out, _ = run(capsys, "check", "--example", "001-softmax-10-2-1", "-l", "en",
                    "-f", "markdown", "--keys")
    assert "| line | number | key | printed | exact | verdict | reason |" in out
