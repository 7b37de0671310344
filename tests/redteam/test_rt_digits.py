"""Issue 19 item 3: numbers typed as text are ASCII digits, of a sane length.

``str.isdigit`` accepts superscripts and circled digits that ``int`` refuses,
and ``int`` refuses more than 4,300 digits: each used to end in an internal
error (status 3). Every such place now answers with one line, status 2.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_support import assert_one_line_error, run

SPEC = """title = "digits"
[inputs]
Q = [[1, 0], [0, 1]]
K = [[1, 0], [0, 1]]
V = [[1, 2], [3, 4]]
[claims]
{claims}
"""
HOSTILE = ["\u00b2", "\u2460", "1" * 5000, "\u0661"]   # superscript 2, circled 1, long, Arabic 1


def _spec(tmp_path: Path, claims: str = "") -> str:
    path = tmp_path / "s.toml"
    path.write_text(SPEC.format(claims=claims), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("bad", HOSTILE)
def test_claim_positions(tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str) -> None:
    spec = _spec(tmp_path, f'"weights[{bad},1]" = "0.5"')
    status, _, err = run(capsys, "check", spec)
    assert status == 2
    assert_one_line_error(err, spec)
    assert len(err) < 600


@pytest.mark.parametrize("bad", HOSTILE)
@pytest.mark.parametrize("argv", [["permute", "--order", "{}"], ["derive", "--expand-rows", "{}"],
                                  ["worksheet", "--seed", "{}"], ["worksheet", "--variants", "{}"]])
def test_options(tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: str,
                 argv: list[str]) -> None:
    spec = _spec(tmp_path)
    status, _, err = run(capsys, *[a.format(bad) for a in argv], spec,
                         *(["--output-dir", str(tmp_path / "out")] if argv[0] == "worksheet"
                           else []))
    assert status == 2, err
    assert_one_line_error(err, argv[1])
    assert len(err) < 600


@pytest.mark.parametrize("bad", HOSTILE)
@pytest.mark.parametrize("option", ["--d-model", "--seq-len"])
def test_size_options(capsys: pytest.CaptureFixture[str], bad: str, option: str) -> None:
    argv = {"--d-model": "4096", "--heads": "32", "--seq-len": "1024"}
    argv[option] = bad
    status, _, err = run(capsys, "sizes", *[x for pair in argv.items() for x in pair])
    assert status == 2, err
    assert_one_line_error(err, option)


@pytest.mark.parametrize("bad", HOSTILE)
def test_exponents(capsys: pytest.CaptureFixture[str], tmp_path: Path, bad: str) -> None:
    path = tmp_path / "e.toml"
    path.write_text(SPEC.format(claims="").replace("[1, 2]", f'["2^{bad}", 2]'),
                    encoding="utf-8")
    status, _, err = run(capsys, "derive", str(path))
    assert status == 2, err
    assert_one_line_error(err, "inputs.V", "row 1", "column 1")


def test_size_claims(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "sizes.toml"
    path.write_text('[sizes]\nd_model = 64\nheads = 4\nseq_len = 16\n[claims]\n'
                    'scores_shape = "\u00b2 x 16"\n', encoding="utf-8")
    status, _, err = run(capsys, "check", str(path))
    assert status == 2, err
    assert_one_line_error(err, str(path))
