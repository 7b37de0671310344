"""Red team: documents built to make reading slow are read in linear time.

Unclosed groups of brackets (``[[[1, 2] [1, 2] ...``) once made a regular
expression backtrack exponentially: 1.7 KB kept ``symattn extract`` busy past
two minutes. Brackets are now paired in one pass; each file here, and
random bracket soup, must be read in a few seconds.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_support import run
from suite_profile import examples
from symattn.extract.document import from_text
from symattn.extract.pipeline import extract
from symattn.extract.scanner import scan

INPUTS = "q₁ = [1, 0]\nk₁ = [1, 0]\nk₂ = [0, 1]\nv₁ = [1, 2]\nv₂ = [3, 4]\n"


def _unclosed(groups: int) -> str:
    return "[[[1, 2] " + "[1, 2] " * groups


@pytest.mark.parametrize("groups", [250, 500, 1000, 2000])    # 1.7, 3.5, 7 and 14 KB
def test_unclosed_groups_are_read_in_seconds(capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                            groups: int) -> None:
    path = tmp_path / "hostile.md"
    path.write_text(INPUTS + _unclosed(groups), encoding="utf-8")
    start = time.monotonic()
    status, _, err = run(capsys, "extract", str(path), "-o", str(tmp_path / "draft.toml"))
    elapsed = time.monotonic() - start
    assert status == 0, err
    assert elapsed < 10, f"{elapsed:.1f} s for {groups} unclosed groups"
    # every "[1, 2]" is still a row of two numbers: the 5 input vectors and the groups
    found = scan(from_text(INPUTS + _unclosed(groups)))
    assert len(found.groups) == 5 + groups + 1


HOSTILE = {
    "deep nesting": "[" * 100_000 + "1, 2" + "]" * 100_000,
    "only openings": "[" * 200_000,
    "only closings": "]" * 200_000,
    "unclosed rows across lines": "[[1 2]\n" * 30_000,
    "row breaks outside a matrix": "\\\\ " * 100_000 + "]]",
    "an open matrix environment": "\\begin{bmatrix} 1 & 2 \\\\ " * 20_000,
    "table bars": "|\n" * 100_000 + "| 1 | 2 |\n",
    "blank lines before a bar": "\n" * 100_000 + " x |",
    "one long line of groups": "q = [1, 2] = " * 20_000,
    "digits": "1" * 200_000 + "a",
    "address": "https://latex.codecogs.com/svg.latex?" + "%5B" * 50_000,
    "fractions": "\\frac{" * 20_000 + "1}{2}" * 20_000,
    "spaces between rows": "[[1] " + " " * 100_000 + "x [2]]",
    "thousands groups": "1" + ",234" * 50_000 + "a",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_text_is_scanned_in_seconds(name: str) -> None:
    start = time.monotonic()
    scan(from_text(INPUTS + HOSTILE[name]))
    elapsed = time.monotonic() - start
    assert elapsed < 5, f"{name}: {elapsed:.1f} s"


_PIECES = st.sampled_from(["[", "]", "[[", "]]", "1", "0.5", "-", "−", ",", ";", " ", "\n",
                           "...", "|", "e-3", "%", "&", "\\\\", "=", "q = ",
                           "https://latex.codecogs.com/svg.latex?", "%5C", "%20", "%26", "(",
                           ")", "\\frac{", "}{", "}", "|---|---|\n", "   q1  q2\n", "0  "])


@settings(max_examples=examples(150), deadline=2000, suppress_health_check=list(HealthCheck))
@given(st.lists(_PIECES, max_size=400).map("".join))
def test_any_brackets_digits_and_signs_are_scanned_quickly(text: str) -> None:
    document = from_text(text)
    found = scan(document)
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for number in found.singles + [n for g in found.groups for n in g.numbers]:
        # every number is reported at a line and column of the original text
        assert 1 <= number.line <= len(lines) and 1 <= number.column <= len(lines[number.line - 1])
    for group in found.groups:
        # a matrix is rectangular and lies inside the text it was read from
        assert len({len(row) for row in group.rows}) == 1
        assert 0 <= group.start < group.end <= len(found_text(text))
    starts = [n.start for g in found.groups for n in g.numbers] + \
        [n.start for n in found.singles]
    assert len(starts) == len(set(starts))        # no number read twice


def found_text(text: str) -> str:
    return from_text(text).text


@settings(max_examples=examples(40), deadline=5000, suppress_health_check=list(HealthCheck))
@given(st.lists(_PIECES, min_size=1, max_size=200).map("".join))
def test_drafts_of_bracket_soup_are_made_quickly(noise: str) -> None:
    extract(from_text(INPUTS + noise + "\n" + noise, "soup.md"))


def test_a_long_run_of_digits_is_no_number(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    # 5,000 digits were an internal error (Fraction refuses more than 4,300 digits)
    path = tmp_path / "digits.md"
    path.write_text(INPUTS + "1" * 5000 + " and 0." + "2" * 5000 + " then 0.5\n",
                    encoding="utf-8")
    status, _, err = run(capsys, "extract", str(path), "-o", str(tmp_path / "draft.toml"))
    assert status == 0, err
    singles = scan(from_text(path.read_text(encoding="utf-8"))).singles
    assert [n.text for n in singles] == ["0.5"]       # not "1", not "0.2"
    # a hundred digits are still a number
    assert [n.text for n in scan(from_text("x = " + "9" * 100)).singles] == ["9" * 100]
