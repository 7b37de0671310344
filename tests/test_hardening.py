"""Hostile and extreme input, end to end through the command line.

Whatever comes in - a typo'd spec, a stranger's spec, scores of 800 or 1e308,
a 2000-character decimal - symattn gives the right answer (checked against
mpmath here) or one short line saying what is wrong and where, with the
documented exit status (docs/errors.md). Nothing half-written is left behind
and the same input always gives the same bytes.

The interrupt and progress-bar tests, which need real processes and terminals,
are in test_interrupt.py; hostile text in LaTeX is in test_latex.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from symattn.derivation import pipeline
from cli_support import assert_one_line_error, run
from reference import assert_close_to_digits, mp
from symattn.render import files
from symattn.cli.app import EPILOG

ROOT = Path(__file__).resolve().parent.parent


def spec_file(tmp_path: Path, text: str | bytes, name: str = "spec.toml") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def json_steps(capsys, path: Path, *options: str) -> dict:
    status, out, err = run(capsys, "derive", str(path), "--format", "json", *options)
    assert status == 0, err
    return {step["name"]: step for step in json.loads(out)["steps"]}


def subprocess_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


# ------------------------------------------------------- malformed specs
@pytest.mark.parametrize("text, parts", [
    # a shape mismatch names the product that fails and both shapes
    ('[inputs]\nX = [[1, 0], [0, 1]]\nW_Q = [[1, 0, 0]]\nW_K = "identity"\n',
     ["inputs.W_Q", "X @ W_Q", "X is 2x2", "W_Q is 1x3"]),
    ("[inputs]\nQ = [[1, 2]]\nK = [[1, 2, 3]]\n", ["inputs", "Q @ K^T", "Q is 1x2", "K is 1x3"]),
    ("[inputs]\nQ = [[1, 2]]\nK = [[1, 2]]\nV = [[1], [2]]\n",
     ["inputs", "weights @ V", "V is 2x1"]),
    ("[inputs]\nscaled = [[1, 2]]\nV = [[1], [2], [3]]\n", ["inputs.V", "weights @ V", "3x1"]),
    ("[inputs]\nscaled = [[1, 2], [3, 4]]\n[options]\nmask = [[0, 0]]\n",
     ["options.mask", "the mask is 1x2 but the scores are 2x2"]),
    # ragged rows, empty matrices, missing inputs
    ("[inputs]\nscaled = [[1, 2], [3]]\n", ["inputs.scaled", "row 2", "ragged", "row 1 has 2"]),
    ("[inputs]\nscaled = []\n", ["inputs.scaled", "the matrix is empty"]),
    ("[inputs]\nQ = [[]]\nK = [[1]]\n", ["inputs.Q", "row 1", "row is empty"]),
    ('[inputs]\nX = [[1, 0]]\nW_Q = "identity"\n', ["inputs", "missing input W_K"]),
    ("[inputs]\nK = [[1]]\n", ["missing input Q (or X with W_Q)"]),
    ("", ["missing [inputs]"]),
    # a key or table given twice
    ("[inputs]\nscaled = [[1]]\nscaled = [[2]]\n", ["not valid TOML", "line 3", "given twice"]),
    ("[inputs]\nscaled = [[1]]\n[inputs]\nV = [[1]]\n", ["not valid TOML", "given twice"]),
    # NaN and infinity where they make no sense
    ("[inputs]\nscaled = [[1, nan]]\n", ["inputs.scaled", "row 1", "column 2", "'nan'"]),
    ("[inputs]\nscaled = [[1, inf]]\n", ["inputs.scaled", "column 2", "only minus infinity"]),
    ("[inputs]\nQ = [[1, -inf]]\nK = [[1, 0]]\n",
     ["inputs.Q", "row 1", "column 2", "only allowed in scores or scaled"]),
    ("[inputs]\nscaled = [[1, 2]]\n[options]\ntemperature = nan\n",
     ["options.temperature", "'nan'"]),
    ("[inputs]\nscaled = [[1, 2]]\n[options]\ntemperature = inf\n",
     ["options.temperature", "only minus infinity"]),
    ("[inputs]\nscores = [[1, 2]]\n[options]\nd_k = inf\n", ["options.d_k", "'inf'"]),
    ("[inputs]\nQ = [[1, 0]]\nK = [[1, 0]]\n[options]\nscale = nan\n", ["options.scale"]),
    ("[inputs]\nscaled = [[1, 2], [3, 4]]\n[options]\nmask = [[1, nan], [1, 1]]\n",
     ["options.mask", "row 1", "column 2"]),
    # d_k and temperature out of range
    ("[inputs]\nscores = [[1, 2]]\n[options]\nd_k = 0\n",
     ["options.d_k", "positive whole number", "'0'"]),
    ("[inputs]\nscores = [[1, 2]]\n[options]\nd_k = -4\n", ["options.d_k", "'-4'"]),
    ("[inputs]\nscaled = [[1, 2]]\n[options]\ntemperature = 0\n",
     ["options.temperature", "must be positive", "'0'"]),
    ("[inputs]\nscaled = [[1, 2]]\n[options]\ntemperature = -0.5\n",
     ["options.temperature", "must be positive", "'-0.5'"]),
    # numbers too long or too large to read
    ("[inputs]\nscaled = [[" + "9" * 5000 + ", 0]]\n", ["not valid TOML", "4,300 digits"]),
    ('[inputs]\nscaled = [["1e10001", 0]]\n', ["row 1", "column 1", "exponent 10001"]),
    ('[inputs]\nscaled = [["0.' + "1" * 1999 + '", 0]]\n',
     ["row 1", "column 1", "2001 characters long", "the limit is 2000"]),
    # a spec cannot ask for more digits than --digits allows
    ("[inputs]\nscaled = [[1, 2]]\n[options]\ndigits = 1000000\n",
     ["options.digits", "between 1 and 10000"]),
])
def test_malformed_spec(capsys, tmp_path, text, parts):
    path = spec_file(tmp_path, text)
    status, out, err = run(capsys, "derive", str(path))
    assert status == 2 and out == ""
    assert_one_line_error(err, str(path), *parts)


@pytest.mark.parametrize("text, parts", [
    ('{"inputs": {"scaled": [[1, NaN]]}}', ["inputs.scaled", "row 1", "column 2", "'nan'"]),
    ('{"inputs": {"scaled": [[1, Infinity]]}}', ["inputs.scaled", "column 2", "only minus"]),
    ('{"inputs": {"scaled": [[1, ' + "9" * 5000 + ']]}}', ["not valid JSON", "4,300 digits"]),
    ('{"inputs": {"scaled": [[1]]}, "inputs": {"V": [[1]]}}', ["duplicate key `inputs`"]),
    (b'{"title": "\xff", "inputs": {"scaled": [[1]]}}', ["not UTF-8", "byte 12", "0xff"]),
])
def test_malformed_json_spec(capsys, tmp_path, text, parts):
    path = spec_file(tmp_path, text, "spec.json")
    status, out, err = run(capsys, "derive", str(path))
    assert status == 2 and out == ""
    assert_one_line_error(err, str(path), *parts)


CLAIMED = "[inputs]\nscaled = [[1, 2], [3, 4]]\nV = [[1], [2]]\n[claims]\n"


@pytest.mark.parametrize("claim, parts", [
    # a claim that points outside its matrix
    ('"weights[3,1]" = "0.5"', ['claims."weights[3,1]"', "row 3 is outside weights"]),
    ('"weights[1,3]" = "0.5"', ["column 3 is outside weights, which has 2 columns"]),
    ('"weights[:,3]" = ["0.5", "0.5"]', ["column 3 is outside weights"]),
    ('"exp_sum[3]" = "9"', ["row 3 is outside exp_sum"]),
    ('"weights[0,1]" = "0.5"', ["row '0'", "1-based"]),
    ('"weights[1]" = ["0.5", "0.5", "0.1"]', ["row 1 of weights has 2 entries but 3"]),
    ('"weights[1,1,1]" = "0.5"', ["a position is [i], [i,j], [:,j] or [i,:]"]),
    ('"wieghts[1,1]" = "0.5"', ["no step named `wieghts`; did you mean `weights`?"]),
    # a claim with no digits
    ('"weights[1,1]" = "abc"', ["'abc' is not a printed number"]),
    ('"weights[1,1]" = "."', ["cannot read '.'"]),
    ('"weights[1,1]" = "-"', ["cannot read '-'"]),
    ('"weights[1,1]" = "%"', ["empty entry"]),
    ('"weights[1,1]" = "~"', ["empty entry"]),
    ('"weights[1,1]" = nan', ["'nan'"]),
    ('"weights[1,1]" = true', ["a printed number must be a number or text"]),
    ('"weights[1,1]" = "1e99999"', ["exponent 99999"]),
])
def test_malformed_claim(capsys, tmp_path, claim, parts):
    path = spec_file(tmp_path, CLAIMED + claim + "\n")
    status, out, err = run(capsys, "check", str(path))
    assert status == 2 and out == ""
    assert_one_line_error(err, str(path), *parts)


# ------------------------------------------------------- extreme values
def _exact_softmax(row: list) -> tuple[list, object, list]:
    exps = [mpmath.exp(mp(x)) for x in row]
    total = mpmath.fsum(exps)
    return exps, total, [e / total for e in exps]


@pytest.mark.parametrize("row", [
    ["800", "-800", "0"],                # e^800 overflows a double; e^-800 underflows it
    ["-800", "-800", "-799.9"],          # every exponential below the smallest double
    ["1000", "999.5", "0"],
    ["100000", "0"],                      # e^100000 ~ 10^43429
])
def test_extreme_scores_are_exact(capsys, tmp_path, row):
    path = spec_file(tmp_path, f"[inputs]\nscaled = [{', '.join(row)}]\n")
    steps = json_steps(capsys, path, "--digits", "30")
    with mpmath.workdps(80):
        exps, total, weights = _exact_softmax([Fraction(x) for x in row])
        for text, reference in zip(steps["exp"]["value"][0], exps):
            assert_close_to_digits(text, reference, 30)
        assert_close_to_digits(steps["exp_sum"]["value"][0][0], total, 30)
        for text, reference in zip(steps["weights"]["value"][0], weights):
            assert_close_to_digits(text, reference, 30)


def test_extreme_scores_check_verdicts(capsys, tmp_path):
    path = spec_file(tmp_path, '[inputs]\nscaled = [[800, -800, 0]]\n[claims]\n'
                     'weights = [["1.000", "0.000", "0.000"]]\n'
                     '"weights[1,3] @ scientific" = "3.668e-348"\n'
                     '"weights[1,3] @ wrong" = "3.667e-348"\n')
    status, out, err = run(capsys, "check", str(path), "--format", "json")
    assert status == 1, err
    verdicts = [c["verdict"] for c in json.loads(out)["reports"][0]["claims"]]
    assert verdicts == ["ok", "ok", "ok", "ok", "wrong"]


@pytest.mark.parametrize("score, parts", [
    ("1e308", ["step exp", "is about 10^(a 308-digit number)", "beyond the 10^100,000"]),
    ("1e10 unshifted", ["step exp", "exp(10000000000) is about 10^4,342,944,819"]),
    ("-1e10", ["step exp", "too small to write with significant digits", "use --places"]),
    # Shifted by the row maximum (the default for scores this large), the page
    # reaches e^(0 - 10^10) instead: too small to write, the same short error.
    ("1e10", ["step exp_shifted", "exp(-10000000000) is below 10^-",
              "too small to write with significant digits", "use --places"]),
])
def test_scores_beyond_what_can_be_written_are_a_short_error(tmp_path, score, parts):
    # In a subprocess with a timeout: these once ran for hours.
    score, _, unshifted = score.partition(" ")
    options = "[options]\nmax_shift = false\n" if unshifted else ""
    path = spec_file(tmp_path, f"{options}[inputs]\nscaled = [[{score}, 0]]\n")
    result = subprocess.run([sys.executable, "-m", "symattn", "derive", str(path)],
                            capture_output=True, text=True, env=subprocess_env(), timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert_one_line_error(result.stderr, str(path), *parts)
    assert len(result.stderr) < 300


@pytest.mark.parametrize("argv", [["derive", "--format", "latex"],
                                  ["derive", "--format", "markdown"], ["whatif"], ["sweep"]],
                         ids=lambda argv: "-".join(argv))
def test_every_command_names_the_file_of_a_number_too_large(tmp_path, argv):
    path = spec_file(tmp_path, "[inputs]\nscaled = [[1e10, 0], [0, 1]]\n")
    result = subprocess.run([sys.executable, "-m", "symattn", argv[0], str(path), *argv[1:]],
                            capture_output=True, text=True, env=subprocess_env(), timeout=60)
    assert result.returncode == 2 and result.stdout == ""
    assert_one_line_error(result.stderr, f"{path}: ", "10^")


def test_tiny_values_in_fixed_places(capsys, tmp_path):
    path = spec_file(tmp_path, "[inputs]\nscaled = [[-1e10, 0]]\n")
    steps = json_steps(capsys, path, "--places", "3")
    assert steps["exp"]["value"] == [["0.000", "1.000"]]
    assert steps["weights"]["value"] == [["0.000", "1.000"]]


def test_checking_scores_of_1e308_and_1e10(tmp_path):
    """Claims stay decidable where they can be; the rest are undecided, not a hang."""
    path = spec_file(tmp_path, '[inputs]\nscaled = [[1e308, 0], [1e10, 0]]\n[claims]\n'
                     'weights = [["1.00", "0.00"], ["1.00", "0.00"]]\n'
                     '"exp[2,1]" = "1.0"\n"weights[2,2] @ b" = "0.01"\n')
    result = subprocess.run([sys.executable, "-m", "symattn", "check", str(path), "--format",
                             "json"], capture_output=True, text=True, env=subprocess_env(),
                            timeout=60)
    assert result.returncode == 1, result.stderr
    claims = json.loads(result.stdout)["reports"][0]["claims"]
    verdicts = {c["position"] + (" @ " + c["label"] if c["label"] else ""): c for c in claims}
    assert [verdicts[f"weights[{i},{j}]"]["verdict"] for i in (1, 2) for j in (1, 2)] == \
        ["ok"] * 4
    assert verdicts["exp[2,1]"]["verdict"] == "undecided"
    assert "beyond the 10^100,000" in verdicts["exp[2,1]"]["reason"]
    assert verdicts["weights[2,2] @ b"]["verdict"] == "wrong"


def test_very_long_decimals_are_exact(capsys, tmp_path):
    # Two scores that differ only in the 1,997th decimal: a double sees them as
    # equal; the weights differ from 1/2 by 2.5e-1998, and 2000 places show it.
    a = "0." + "3" * 1998
    b = a[:-1] + "4"
    path = spec_file(tmp_path, f'[inputs]\nscaled = [["{a}", "{b}"]]\n[claims]\n'
                     f'"scaled[1,1]" = "{a}"\n')
    steps = json_steps(capsys, path, "--places", "2000")
    with mpmath.workdps(2100), localcontext() as context:
        context.prec = 2100
        _, _, weights = _exact_softmax([Fraction(a), Fraction(b)])
        for text, reference in zip(steps["weights"]["value"][0], weights):
            expected = Decimal(mpmath.nstr(reference, 2050, min_fixed=-mpmath.inf,
                                           max_fixed=mpmath.inf))
            assert text == str(expected.quantize(Decimal(1).scaleb(-2000), ROUND_HALF_UP))
    assert steps["weights"]["value"][0][0].startswith("0.4999999")
    assert steps["weights"]["value"][0][1].startswith("0.5000000")
    assert steps["scaled"]["exact"][0][0] == str(Fraction(a))
    status, out, err = run(capsys, "check", str(path), "--format", "json")
    assert status == 0, err
    assert json.loads(out)["reports"][0]["claims"][0]["verdict"] == "ok"


def test_latex_with_printed_closed_forms_and_tiny_entries(capsys, tmp_path):
    # Both were internal errors: a printed root in the LaTeX verdicts, and the
    # exact form of 1e-10000 (an integer beyond Python's 4300-digit str limit).
    path = spec_file(tmp_path, '[inputs]\nscaled = [["1e-10000", 0], [1, 1]]\n[claims]\n'
                     '"weights[1,1]" = "sqrt(2)/2"\n"weights[2,1]" = "1/3"\n'
                     '"weights[2,2]" = "1/2"\n')
    status, out, err = run(capsys, "derive", str(path), "--format", "latex")
    assert status == 0, err
    assert "\\symattnwrong{\\frac{\\sqrt{2}}{2}}" in out
    assert "\\symattnwrong{\\frac{1}{3}}" in out and "\\symattnok{0.5}" in out
    assert "1.00000 \\cdot 10^{-10000}" in out


def test_equal_scores_give_exactly_uniform_weights(capsys, tmp_path):
    path = spec_file(tmp_path, "[inputs]\nscaled = [[5, 5, 5], [-800, -800, -800], "
                     "[7e4, 7e4, 7e4]]\nV = [[3], [6], [9]]\n[claims]\n"
                     '"weights[1]" = ["0.333", "0.333", "0.333"]\n'
                     '"weights[2,1]" = "1/3"\n"weights[3,1]" = "0.334"\n'
                     '"output[3,1]" = "6.0"\n')
    steps = json_steps(capsys, path)
    assert steps["weights"]["exact"] == [["1/3"] * 3] * 3
    assert steps["weights"]["value"] == [["0.333333"] * 3] * 3
    assert steps["output"]["exact"] == [["6"]] * 3
    status, out, _ = run(capsys, "check", str(path), "--format", "json")
    assert status == 1
    verdicts = [c["verdict"] for c in json.loads(out)["reports"][0]["claims"]]
    assert verdicts == ["ok", "ok", "ok", "ok", "wrong", "ok"]


FULLY_MASKED = ('[inputs]\nscaled = [["-inf", "-inf"], [1, 1]]\nV = [[1], [3]]\n'
                "[options]\nfully_masked = \"{policy}\"\n[claims]\n"
                '"weights[1,1]" = "{printed}"\n"output[2,1]" = "2.0"\n')


@pytest.mark.parametrize("policy, weights, output, verdict", [
    ("nan", ["nan", "nan"], ["nan"], "undecided"),      # as PyTorch returns
    ("zeros", ["0", "0"], ["0"], "ok"),                 # as some kernels return
])
def test_fully_masked_row_policies(capsys, tmp_path, policy, weights, output, verdict):
    path = spec_file(tmp_path, FULLY_MASKED.format(policy=policy, printed="0.0"))
    steps = json_steps(capsys, path)
    assert steps["weights"]["exact"] == [weights, ["1/2", "1/2"]]
    assert steps["output"]["exact"] == [output, ["2"]]
    status, out, err = run(capsys, "check", str(path), "--format", "json")
    assert status == 0, err
    claims = json.loads(out)["reports"][0]["claims"]
    assert [c["verdict"] for c in claims] == [verdict, "ok"]


def test_fully_masked_row_is_an_error_by_default(capsys, tmp_path):
    path = spec_file(tmp_path, FULLY_MASKED.format(policy="error", printed="0.0"))
    for command in ("derive", "check"):
        status, out, err = run(capsys, command, str(path))
        assert status == 2 and out == ""
        assert_one_line_error(err, str(path), "row 1", "fully_masked")


# --------------------------------------------------------------- limits
def test_max_size(capsys, tmp_path):
    path = spec_file(tmp_path, "[inputs]\nscaled = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]\n")
    for command in ("derive", "check"):
        status, _, err = run(capsys, command, str(path), "--max-size", "8")
        assert status == 2
        assert_one_line_error(err, str(path), "inputs.scaled", "3x3 = 9 entries",
                              "the limit is 8", "--max-size")
    status, _, err = run(capsys, "derive", str(path), "--max-size", "9")
    assert status == 0, err


def test_the_symbolic_path_has_its_own_limit(capsys, tmp_path):
    # --max-size 2048 keeps 1/2048 of the default 2048 x 2048 entries: two symbolic ones
    path = spec_file(tmp_path, '[inputs]\nQ = [["sqrt(2)"], [1]]\nK = [[1], [2]]\n')
    status, _, err = run(capsys, "derive", str(path), "--max-size", "2048")
    assert status == 2
    assert_one_line_error(err, str(path), "SymPy path", "--max-size")


@pytest.mark.parametrize("argv, parts", [
    (["--digits", "10001"], ["--digits must be between 1 and 10000"]),
    (["--places", "10001"], ["--places must be between -100 and 10000"]),
    (["--places", "-101"], ["--places must be between -100 and 10000"]),
    (["--max-size", "0"], ["--max-size must be at least 1"]),
])
def test_option_bounds(capsys, argv, parts):
    status, _, err = run(capsys, "derive", "--example", "000", *argv)
    assert status == 2
    assert_one_line_error(err, *parts)


# --------------------------------------------------------- output files
def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_output_is_replaced_only_when_complete(capsys, tmp_path):
    out = tmp_path / "out.json"
    out.write_text("old", encoding="utf-8")
    bad = spec_file(tmp_path, FULLY_MASKED.format(policy="error", printed="0.0"))
    status, _, _ = run(capsys, "derive", str(bad), "--format", "json", "-o", str(out))
    assert status == 2 and out.read_text(encoding="utf-8") == "old"
    status, _, _ = run(capsys, "derive", "--example", "000", "--digits", "0", "-o", str(out))
    assert status == 2 and out.read_text(encoding="utf-8") == "old"
    status, _, err = run(capsys, "derive", "--example", "000", "--format", "json",
                         "-o", str(out))
    assert status == 0, err
    assert json.loads(out.read_text(encoding="utf-8"))["title"] == "cat chases mouse"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("failure, status, message", [
    (OSError(28, "No space left on device"), 2, "cannot write: No space left on device"),
    (KeyboardInterrupt(), 130, "symattn: interrupted"),
])
def test_a_failed_write_leaves_the_old_file_and_no_temporary(capsys, tmp_path, monkeypatch,
                                                             failure, status, message):
    out = tmp_path / "out.txt"
    out.write_text("old", encoding="utf-8")

    def fail(*args: object) -> None:
        raise failure

    monkeypatch.setattr(files.os, "replace", fail)
    code, _, err = run(capsys, "derive", "--example", "000", "-o", str(out))
    assert code == status
    assert message in err and "Traceback" not in err and len(err.splitlines()) == 1
    assert out.read_text(encoding="utf-8") == "old"
    assert _leftovers(tmp_path) == []


def test_output_has_the_usual_permissions(capsys, tmp_path):
    out = tmp_path / "out.txt"
    assert run(capsys, "derive", "--example", "000", "-o", str(out))[0] == 0
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


DETERMINISM = [
    ["derive", "--example", "000-cat-chases-mouse"],
    ["derive", "--example", "000-cat-chases-mouse", "--format", "json"],
    ["derive", "--example", "000-cat-chases-mouse", "--format", "latex"],
    ["derive", "--example", "000-cat-chases-mouse", "--format", "markdown"],
    ["check", "--example", "001-kocka-spi-venku", "--format", "json"],
]


@pytest.mark.parametrize("argv", DETERMINISM, ids=lambda argv: "-".join(argv[::3]))
def test_same_input_same_bytes(tmp_path, argv):
    """Two processes (different hash seeds, so no set or dict order leaks through)."""
    outputs = []
    for seed in ("1", "2"):
        target = tmp_path / f"out-{seed}"
        result = subprocess.run([sys.executable, "-m", "symattn", *argv, "-o", str(target)],
                                capture_output=True, env=subprocess_env(PYTHONHASHSEED=seed),
                                cwd=tmp_path, timeout=120)
        assert result.returncode in (0, 1), result.stderr
        outputs.append(target.read_bytes())
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) > 100


# ----------------------------------------------------------- exit codes
def test_help_documents_every_exit_status(capsys):
    status, out, _ = run(capsys, "derive", "--help")
    assert status == 0
    flat = " ".join(out.split())
    for text in ("0 ok", "1 a printed number is wrong (check)", "2 unusable input or environment",
                 "3 internal error", "130 interrupted", "docs/errors.md"):
        assert text in flat, text
        assert text in " ".join(EPILOG.split())


def test_exit_status_0_and_1(capsys):
    assert run(capsys, "check", "--example", "000-cat-chases-mouse")[0] == 0
    assert run(capsys, "check", "--example", "001-softmax-10-2-1")[0] == 1


def test_internal_error_is_one_line_with_status_3(capsys, monkeypatch):
    def boom(problem: object) -> None:
        raise RuntimeError("something impossible")

    monkeypatch.setattr(pipeline, "derive", boom)
    monkeypatch.delenv("SYMATTN_DEBUG", raising=False)
    status, out, err = run(capsys, "derive", "--example", "000")
    assert status == 3 and out == ""
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("symattn: internal error: RuntimeError: something impossible")
    assert "SYMATTN_DEBUG=1" in err


def test_missing_tex_is_status_2_and_writes_nothing(tmp_path):
    empty = tmp_path / "bin"             # a PATH with neither pdflatex nor latexmk
    empty.mkdir()
    for output in ("out.pdf", "out.tex"):
        result = subprocess.run([sys.executable, "-m", "symattn", "derive", "--example", "000",
                                 "--pdf", "-o", output], capture_output=True, text=True,
                                env=subprocess_env(PATH=str(empty)), cwd=tmp_path, timeout=120)
        assert result.returncode == 2
        assert_one_line_error(result.stderr, "pdflatex is not installed", "texlive-latex-base")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["bin"]


def test_a_closed_form_printed_as_a_percentage_is_judged(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # softmax([0, 1])[1] = 1/(1 + e) = 0.2689...; "sqrt(2)/2 %" is 0.00707...: wrong, not a crash
    spec = tmp_path / "percent.toml"
    spec.write_text('[inputs]\nscaled = [["0", "1"]]\n[claims]\n"weights[1,1]" = "sqrt(2)/2 %"\n',
                    encoding="utf-8")
    status, out, err = run(capsys, "check", str(spec), "--format", "json")
    assert status == 1 and err == ""
    claim = json.loads(out)["reports"][0]["claims"][0]
    assert claim["verdict"] == "wrong"
    assert abs(float(claim["exact_decimal"].rstrip(".…")) - 1 / (1 + mpmath.e)) < 1e-9


def test_whatif_with_symbolic_values_prints_symbolic_outputs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The weights of [0, 1] are numbers (0.2689, 0.7311); the outputs mix the symbols a, b.
    spec = tmp_path / "symbolic.toml"
    spec.write_text('[inputs]\nscaled = [["0", "1"]]\nV = [["a"], ["b"]]\n', encoding="utf-8")
    status, out, err = run(capsys, "whatif", str(spec), "--language", "en")
    assert status == 0 and err == ""
    assert "0.2689" in out and "(symbolic)" in out
