"""Issue 19 items 10 and 18: options that do not apply are errors, answers not crashes.

``whatif`` on ``normalisation = "sum"`` with a negative weight used to end in an
internal ValueError; ``temperature`` and ``scale`` were silently ignored when
``scaled`` is given; ``temperature = "a-a"`` was accepted; ``-x all,all`` said
"unknown kind 'all'"; ``--name`` accepted line breaks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_support import assert_one_line_error, run


def _write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_whatif_on_sum_normalisation_with_a_negative_weight(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Row 1: 1, -3, 1 sums to -1, so the weights are -1, 3, -1: no distribution, no entropy.
    # Row 2: 2, 1, 1 sums to 4: weights 1/2, 1/4, 1/4, entropy 1/2 + 1/2 + 1/2 = 1.5 bits.
    spec = _write(tmp_path, '[inputs]\nscores = [[1, -3, 1], [2, 1, 1]]\n[options]\n'
                            'normalisation = "sum"\nscale = "none"\n')
    status, out, err = run(capsys, "whatif", spec)
    assert status == 0, err
    assert "mean entropy 1.500 bits" in out
    assert "-1.000" in out and "3.000" in out


@pytest.mark.parametrize("option", ['temperature = 2', 'scale = 3', 'scale = "0.5"',
                                    'd_k = 4'])
def test_options_that_do_not_apply_to_scaled(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             option: str) -> None:
    spec = _write(tmp_path, f"[inputs]\nscaled = [[1, 2]]\n[options]\n{option}\n")
    status, _, err = run(capsys, "derive", spec)
    assert status == 2
    key = option.split(" ")[0]
    assert_one_line_error(err, spec, f"options.{key}", "does not apply")


@pytest.mark.parametrize("option", ['scale = "none"', 'temperature = 1', 'scale = 1'])
def test_neutral_options_with_scaled_still_work(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str],
                                                option: str) -> None:
    spec = _write(tmp_path, f"[inputs]\nscaled = [[1, 2]]\n[options]\n{option}\n")
    status, _, err = run(capsys, "derive", spec)
    assert status == 0, err


@pytest.mark.parametrize("value", ['"a-a"', '"0*a"', '"1/(a-a)"', '"b - b"'])
def test_symbolic_zero_temperature_refused_at_load(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str],
                                                   value: str) -> None:
    spec = _write(tmp_path, "[inputs]\nQ = [[1]]\nK = [[1]]\nV = [[1]]\n[options]\n"
                            f"temperature = {value}\n")
    status, _, err = run(capsys, "derive", spec)
    assert status == 2
    assert_one_line_error(err, spec, "options.temperature", "must be positive")


def test_symbolic_temperature_still_allowed(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    spec = _write(tmp_path, '[inputs]\nQ = [[1]]\nK = [[1]]\nV = [[1]]\n[options]\n'
                            'temperature = "T"\n')
    status, _, err = run(capsys, "derive", spec)
    assert status == 0, err


def test_all_twice(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "worksheet", "-x", "all,all", "--output-dir",
                         str(tmp_path / "out"))
    assert status == 2
    assert_one_line_error(err, "'all' stands alone")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["a\nb", "a\rb", "x\x1b[2J"])
def test_name_with_line_breaks(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                               name: str) -> None:
    status, _, err = run(capsys, "worksheet", "--name", name, "--output-dir",
                         str(tmp_path / "out"))
    assert status == 2
    assert_one_line_error(err, "--name")
    assert not (tmp_path / "out").exists()


def test_positions_written_whole_are_bounded(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    # 256 tokens x width 4 with sinusoidal positions in JSON took 65 s, 128 x 16 53 s (a
    # millisecond a score's closed form); a few rows of the same spec take a second
    rows = [[f"{(i * 7 + k) % 19 / 10}" for k in range(4)] for i in range(256)]
    spec = tmp_path / "positions.json"
    spec.write_text(json.dumps({"inputs": {"X": rows, "W_Q": "identity", "W_K": "identity",
                                           "W_V": "identity"},
                                "options": {"positions": "sinusoidal"}}), encoding="utf-8")
    for extra in (["-f", "json"], ["--max-rows", "0"], ["--max-rows", "200"]):
        status, out, err = run(capsys, "derive", str(spec), *extra)
        assert (status, out) == (2, "")
        assert_one_line_error(err, str(spec), "options.positions", "9,216", "--max-size")
    status, out, err = run(capsys, "derive", str(spec), "--max-rows", "4")
    assert (status, err) == (0, "") and "sin(" in out


def test_surd_scores_are_bounded_by_their_terms(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # 64 x 64 surd scores of 64 terms each (sqrt(k)/j) ran for minutes within the limits
    def surds(size: int) -> Path:
        spec = tmp_path / f"surds-{size}.json"
        spec.write_text(json.dumps({"inputs": {
            "Q": [[f"sqrt({k})/{j}" for k in range(1, size + 1)] for j in range(1, size + 1)],
            "K": [[f"sqrt({j})/{k}" for k in range(1, size + 1)] for j in range(1, size + 1)],
            "V": [["1"] for _ in range(size)]}}), encoding="utf-8")
        return spec

    for size in (32, 64):
        status, out, err = run(capsys, "derive", str(surds(size)))
        assert (status, out) == (2, "")
        assert_one_line_error(err, str(surds(size)), "inputs", f"{size ** 3:,} terms",
                              "8,192", "--max-size")
    status, out, err = run(capsys, "derive", str(surds(4)))
    assert (status, err) == (0, "") and "sqrt" in out.replace("√", "sqrt")


def test_many_digits_of_every_entry_are_bounded(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    # digits = 10000 on 64 x 64 in JSON took 61 s (within the old limits)
    rows = [[f"{(i * 7 + k) % 19 / 10}" for k in range(2)] for i in range(64)]
    spec = tmp_path / "digits.json"
    spec.write_text(json.dumps({"inputs": {"Q": rows, "K": rows, "V": rows},
                                "options": {"digits": 10000}}), encoding="utf-8")
    status, out, err = run(capsys, "derive", str(spec), "-f", "json")
    assert (status, out) == (2, "")
    assert_one_line_error(err, str(spec), "options.digits", "25,165,824", "--max-size")
    status, out, err = run(capsys, "derive", str(spec), "-f", "json", "--digits", "7000")
    assert (status, out) == (2, "") and f"{spec}, options.digits" not in err  # not the spec's
    status, out, err = run(capsys, "derive", str(spec))       # 8 rows on show
    assert (status, err) == (0, "")
