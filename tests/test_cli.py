"""The command line (symattn.cli.app): exit codes, JSON schema, one-line errors."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import symattn.problem.examples
from symattn import messages
from reference import causal, fractions, is_attention_spec, numpy_attention
from cli_support import run, assert_one_line_error, subprocess_env

ROOT = Path(__file__).resolve().parent.parent
NAMES = symattn.problem.examples.names()
# size specs ([sizes] instead of [inputs]) are for `symattn sizes` / `check`, not derive
ATTENTION = [name for name in NAMES if is_attention_spec(symattn.problem.examples.path(name))]
SIZES = [name for name in NAMES if name not in ATTENTION]






# ------------------------------------------------------------- basics
def test_version(capsys):
    status, out, _ = run(capsys, "--version")
    assert status == 0
    assert re.fullmatch(r"symattn \d+\.\d+\.\d+\S*\n", out)


@pytest.mark.parametrize("argv", [["--help"], ["derive", "--help"], ["-h"]])
def test_help(capsys, argv):
    status, out, _ = run(capsys, *argv)
    assert status == 0
    assert "usage: symattn" in out
    assert "derive" in out


def test_no_command_prints_help_and_exits_2(capsys):
    status, out, _ = run(capsys)
    assert status == 2
    assert "usage: symattn" in out


def test_examples_lists_every_example(capsys):
    status, out, _ = run(capsys, "examples")
    assert status == 0
    for name in NAMES:
        assert name in out


@pytest.mark.parametrize("name", ATTENTION)
def test_derive_every_example(capsys, name):
    status, out, err = run(capsys, "derive", "--example", name)
    assert status == 0, err
    language = symattn.load_example(name).language or "en"
    assert messages.load(language).text("heading.weights") in out     # the spec's language
    title, _ = symattn.problem.examples.describe(name)
    assert title in out
    status, out, err = run(capsys, "derive", "--example", name, "--language", "en")
    assert status == 0, err
    assert "Attention weights" in out


@pytest.mark.parametrize("name", SIZES)
def test_derive_refuses_a_size_spec_in_one_line(capsys, name):
    status, out, err = run(capsys, "derive", "--example", name)
    assert status == 2 and out == ""
    assert_one_line_error(err, f"example {name}: this is a sizes spec")


GROWING = {"probs", "jacobian_norm", "jacobian_norm_unscaled"}


@pytest.mark.parametrize("name", ATTENTION)
def test_json_schema(capsys, name):
    status, out, err = run(capsys, "derive", "--example", name, "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    assert isinstance(document["steps"], list) and document["steps"]
    for step in document["steps"]:
        assert {"name", "shape", "exact", "value"} <= set(step)
        assert isinstance(step["name"], str)
        n, m = step["shape"]
        assert isinstance(n, int) and isinstance(m, int) and n > 0 and m > 0
        assert len(step["exact"]) == n and len(step["value"]) == n
        for exact_row, value_row in zip(step["exact"], step["value"]):
            assert len(exact_row) == m and len(value_row) == m
            # A closed form past --max-terms (64 exponentials by default) is null, on every
            # step that can grow: seed 000's next-token probabilities, the Jacobian norms.
            assert all(isinstance(x, str) or (x is None and step["name"] in GROWING)
                       for x in exact_row)
            assert all(x is None or isinstance(x, str) for x in value_row)
    names = [step["name"] for step in document["steps"]]
    weights = [k for k, name in enumerate(names) if name.split(".")[-1] == "weights"]
    sums = [k for k, name in enumerate(names) if name.split(".")[-1] == "exp_sum"]
    assert weights and all(s < w for s, w in zip(sums, weights))


def test_json_places_match_numpy_for_seed_000(capsys):
    status, out, _ = run(capsys, "derive", "--example", "000-cat-chases-mouse", "--places", "2",
                         "--format", "json")
    assert status == 0
    steps = {step["name"]: step for step in json.loads(out)["steps"]}
    X = fractions([["1.0", "0.0"], ["0.2", "1.0"], ["0.8", "0.0"]])
    ref = numpy_attention(X, X, X, allowed=causal(3, 3))
    for name in ("scores", "scaled", "weights", "output"):
        for i, row in enumerate(steps[name]["value"]):
            for j, text in enumerate(row):
                assert len(text.split(".")[1]) == 2            # trailing zeros kept
                assert abs(float(text) - ref[name][i, j]) <= 0.005 + 1e-12
    # the document's printed weights, which half-up rounding reproduces
    assert steps["weights"]["value"][2] == ["0.40", "0.25", "0.35"]
    assert steps["weights"]["value"][1] == ["0.36", "0.64", "0.00"]
    assert steps["scores"]["exact"][1] == ["1/5", "26/25", "4/25"]


def test_rounding_rules(capsys):
    # softmax([10, 2, 1]) at 3 places under each rule, against numpy
    spec = ["derive", "--example", "001-softmax-10-2-1", "--format", "json"]
    for rule in ("half-up", "half-even", "truncate"):
        status, out, _ = run(capsys, *spec, "--places", "3", "--rounding", rule)
        assert status == 0
        weights = {s["name"]: s for s in json.loads(out)["steps"]}["weights"]["value"][0]
        e = np.exp(np.array([10.0, 2.0, 1.0]))
        expected = e / e.sum()
        for text, x in zip(weights, expected):
            if rule == "truncate":
                assert float(text) <= x < float(text) + 0.001
            else:
                assert abs(float(text) - x) <= 0.0005


def test_output_file(capsys, tmp_path):
    target = tmp_path / "out.json"
    status, out, _ = run(capsys, "derive", "--example", "004-cat", "--format", "json",
                         "-o", str(target))
    assert status == 0 and out == ""
    _, stdout_version, _ = run(capsys, "derive", "--example", "004-cat", "--format", "json")
    assert json.loads(target.read_text(encoding="utf-8")) == json.loads(stdout_version)


def test_subprocess_python_m_symattn(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-m", "symattn", "derive", "--example",
                             "000-cat-chases-mouse", "--digits", "8"],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "cat chases mouse" in result.stdout
    assert "26/25" in result.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text("[inputs]\nscaled = [[1, \"x(\"]]\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "symattn", "derive", str(bad)],
                            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, "bad.toml", "row 1", "column 2")


def test_python_m_symattn_writes_what_main_writes(capsys, tmp_path):
    """What ``python -m symattn`` writes to a pipe (more than a pipe holds, so buffered
    and flushed at the end) is the whole of what ``main`` writes, and its status is
    main's (1: a wrong printed number)."""
    argv = ["check", "--example", "001-kocka-spi-venku", "--format", "json"]
    status, expected, _ = run(capsys, *argv)
    result = subprocess.run([sys.executable, "-m", "symattn", *argv], capture_output=True,
                            text=True, env=subprocess_env(), cwd=tmp_path, timeout=120)
    assert (result.returncode, status) == (1, 1), result.stderr
    assert result.stdout == expected
    big = subprocess.run([sys.executable, "-m", "symattn", "derive", "--example",
                          "000-cat-chases-mouse", "--format", "json", "--digits", "1000"],
                         capture_output=True, env=subprocess_env(), cwd=tmp_path, timeout=120)
    assert big.returncode == 0 and len(big.stdout) > 65536
    assert json.loads(big.stdout)["steps"]


def test_under_a_profiler_the_command_ends_normally(tmp_path):
    """A profiler (or a coverage tracer) writes what it measured at exit."""
    profile = tmp_path / "run.prof"
    result = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(profile), "-m",
                             "symattn", "derive", "--example", "000-cat-chases-mouse", "-o",
                             str(tmp_path / "out.txt")], capture_output=True, text=True,
                            env=subprocess_env(), cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    import pstats

    assert pstats.Stats(str(profile)).total_calls > 0


# ------------------------------------------------------- unusable input
def spec_file(tmp_path, text, name="spec.toml"):
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("text, parts", [
    # ragged rows
    ('[inputs]\nX = [[1, 0], [0.2]]\nW_Q = "identity"\nW_K = "identity"\n',
     ["inputs.X", "row 2", "ragged"]),
    # wrong shapes
    ('[inputs]\nX = [[1, 0], [0, 1]]\nW_Q = [[1, 0, 0]]\nW_K = "identity"\n',
     ["inputs.W_Q", "2 rows"]),
    ("[inputs]\nQ = [[1, 2]]\nK = [[1, 2, 3]]\n", ["inputs", "1x2", "1x3"]),
    ("[inputs]\nQ = [[1, 2]]\nK = [[1, 2]]\nV = [[1], [2]]\n", ["inputs", "2x1"]),
    # unknown key
    ('[inputs]\nX = [[1, 0]]\nW_q = "identity"\nW_K = "identity"\n',
     ["inputs.W_q", "unknown key `W_q`", "did you mean"]),
    # a bad entry
    ('[inputs]\nQ = [[1, 0], [0, "1..5"]]\nK = [[1, 0]]\n',
     ["inputs.Q", "row 2", "column 2", "'1..5'"]),
    ('[inputs]\nscaled = [[1, "+inf"]]\n', ["inputs.scaled", "row 1", "column 2"]),
    # bad options
    ("[inputs]\nscaled = [[1, 2]]\n[options]\nmask = [3]\n", ["options.mask"]),
    ("[inputs]\nscaled = [[1, 2]]\n[options]\ntemperature = -1\n", ["options.temperature"]),
    # invalid TOML
    ("[inputs\nscaled = [[1, 2]]\n", ["not valid TOML", "line 1"]),
])
def test_malformed_toml_specs(capsys, tmp_path, text, parts):
    path = spec_file(tmp_path, text)
    status, out, err = run(capsys, "derive", str(path))
    assert status == 2
    assert out == ""
    assert_one_line_error(err, str(path), *parts)


@pytest.mark.parametrize("text, parts", [
    ('{"inputs": {"scaled": [[1, 2]], "scaled": [[3, 4]]}}', ["duplicate key `scaled`"]),
    ('{"title": "a", "title": "b", "inputs": {"scaled": [[1]]}}', ["duplicate key `title`"]),
    ('{"inputs": {"scaled": [[1, 2]]', ["not valid JSON", "line 1"]),
    ('{"inputs": {"Q": [[1, 2], [3]], "K": [[1, 2]]}}', ["inputs.Q", "row 2"]),
    ('{"inputs": {"scaled": [[1, NaN]]}}', ["inputs.scaled", "row 1", "column 2"]),
])
def test_malformed_json_specs(capsys, tmp_path, text, parts):
    path = spec_file(tmp_path, text, "spec.json")
    status, _, err = run(capsys, "derive", str(path))
    assert status == 2
    assert_one_line_error(err, str(path), *parts)


def test_non_utf8_spec(capsys, tmp_path):
    path = spec_file(tmp_path, b'title = "\xff\xfe"\n[inputs]\nscaled = [[1]]\n')
    status, _, err = run(capsys, "derive", str(path))
    assert status == 2
    assert_one_line_error(err, str(path), "UTF-8", "byte 10", "0xff")


@pytest.mark.parametrize("argv, parts", [
    (["derive", "/nonexistent/spec.toml"], ["/nonexistent/spec.toml", "no such file"]),
    (["derive", "--example", "no-such-example"], ["no-such-example"]),
    (["derive", "--example", "001"], ["ambiguous"]),
    (["derive"], ["exactly one spec"]),
    (["derive", "--example", "000", "--example", "004-cat"], ["exactly one spec"]),
    (["derive", "--example", "000", "--digits", "0"], ["--digits"]),
    (["derive", "--example", "000", "--rounding", "sideways"], ["sideways"]),
])
def test_unusable_arguments(capsys, argv, parts):
    status, _, err = run(capsys, *argv)
    assert status == 2
    assert_one_line_error(err, *parts)


def test_directory_as_spec(capsys, tmp_path):
    status, _, err = run(capsys, "derive", str(tmp_path))
    assert status == 2
    assert_one_line_error(err, str(tmp_path), "directory")


def test_argparse_errors_exit_2(capsys):
    status, _, err = run(capsys, "derive", "--example", "000", "--digits", "many")
    assert status == 2
    assert "Traceback" not in err


def test_fully_masked_row_message(capsys, tmp_path):
    path = spec_file(tmp_path, '[inputs]\nscaled = [[1, 2], ["-inf", "-inf"]]\n')
    status, _, err = run(capsys, "derive", str(path))
    assert status == 2
    assert_one_line_error(err, "row 2", "fully_masked")


# ------------------------------------------------------------- known bugs
def test_fully_masked_row_message_names_the_file(capsys, tmp_path):
    path = spec_file(tmp_path, '[inputs]\nscaled = [[1, 2], ["-inf", "-inf"]]\n')
    status, _, err = run(capsys, "derive", str(path))
    assert status == 2
    assert_one_line_error(err, str(path), "row 2")


def test_unknown_key_suggests_w_q(capsys, tmp_path):
    path = spec_file(tmp_path, '[inputs]\nX = [[1, 0]]\nW_q = "identity"\nW_K = "identity"\n')
    status, _, err = run(capsys, "derive", str(path))
    assert status == 2
    assert_one_line_error(err, "unknown key `W_q`; did you mean `W_Q`?")


def test_error_with_newline_in_key_is_one_line(capsys, tmp_path):
    path = spec_file(tmp_path, '[inputs]\n"W_\\nq" = 1\nscaled = [[1, 2]]\n')
    status, _, err = run(capsys, "derive", str(path))
    assert status == 2
    assert_one_line_error(err, str(path))


# Regression tests: these failed with ValueError 'Exceeds the limit (4300 digits) for
# integer string conversion' until symattn handled numbers beyond Python's int/str limit.
def test_many_digits(capsys):
    status, out, err = run(capsys, "derive", "--example", "004-cat", "--digits", "5000")
    assert status == 0, err
    steps = {s["name"]: s for s in json.loads(run(
        capsys, "derive", "--example", "004-cat", "--digits", "5000", "--format", "json")[1]
    )["steps"]}
    text = steps["weights"]["value"][0][0]
    assert len(text.partition("e")[0].replace(".", "").lstrip("0")) == 5000


def test_many_places(capsys):
    status, out, err = run(capsys, "derive", "--example", "004-cat", "--places", "4400")
    assert status == 0, err


@pytest.mark.parametrize("entry", ['"1e-5000"', "10000"])
def test_extreme_entries(capsys, tmp_path, entry):
    # 1e-5000 itself, and exp(10000) ~ 1e4342: more than 4300 digits in positional form
    path = spec_file(tmp_path, f"[inputs]\nscaled = [[{entry}, 0]]\n")
    status, out, err = run(capsys, "derive", str(path))
    assert status in (0, 2), err
    if status == 2:
        assert_one_line_error(err, str(path))


def test_output_to_a_directory(capsys, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    status, _, err = run(capsys, "derive", "--example", "000", "-o", str(folder))
    assert status == 2
    assert_one_line_error(err, str(folder))


def test_low_digit_counts(capsys, tmp_path):
    path = spec_file(tmp_path, "[inputs]\nscaled = [[7, 7, 7, 7, 7]]\n")
    status, out, _ = run(capsys, "derive", str(path), "--digits", "1", "--format", "json")
    assert status == 0
    weights = {s["name"]: s for s in json.loads(out)["steps"]}["weights"]["value"][0]
    assert weights == ["0.2"] * 5
    path = spec_file(tmp_path, "[inputs]\nscaled = [[0.96, 0]]\n[options]\nnormalisation = "
                     "\"sum\"\n")
    status, out, _ = run(capsys, "derive", str(path), "--digits", "2", "--format", "json")
    scaled = {s["name"]: s for s in json.loads(out)["steps"]}["scaled"]["value"][0]
    assert scaled[0] == "0.96"


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["derive", "--help"],
                                  ["sweep", "--help"], ["kvcache", "--help"]])
def test_help_and_version_import_no_heavy_machinery(argv):
    # flint is left out: some Python installations import it from a .pth file at start-up.
    code = ("import sys\nfrom symattn import cli\ntry:\n    cli.main(%r)\nexcept SystemExit:\n"
            "    pass\nheavy = ('sympy', 'numpy', 'jinja2', 'mpmath', "
            "'symattn.derivation.pipeline', 'symattn.render.latex', 'symattn.derivation.grids')\n"
            "print(sorted(m for m in heavy if m in sys.modules), file=sys.stderr)" % (argv,))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, check=True)
    assert result.stderr.strip().splitlines()[-1] == "[]"


def _long_rows_spec(tmp_path: Path, n: int, d: int) -> Path:
    import random

    rng = random.Random(5)

    def matrix(rows: int) -> str:
        return "[" + ", ".join("[" + ", ".join(str(rng.randint(-99, 99) / 100) for _ in range(d))
                               + "]" for _ in range(rows)) + "]"

    path = tmp_path / "long.toml"
    path.write_text(f'[inputs]\nQ = {matrix(n)}\nK = {matrix(n)}\nV = {matrix(n)}\n'
                    '[options]\nmask = "causal"\n', encoding="utf-8")
    return path


def test_json_leaves_out_closed_forms_longer_than_max_terms(capsys, tmp_path):
    n, d = 70, 3
    spec_path = _long_rows_spec(tmp_path, n, d)
    status, out, err = run(capsys, "derive", str(spec_path), "--format", "json")
    assert status == 0, err
    steps = {step["name"]: step for step in json.loads(out)["steps"]}
    # Causal row i (1-based) has i open keys: a weight's closed form has i + 1
    # exponentials, the row sum i, an output entry 2 i (no two scores are equal here).
    weights = steps["weights"]
    nulls = [(i, j) for i, row in enumerate(weights["exact"]) for j, text in enumerate(row)
             if text is None]
    assert nulls == [(i, j) for i in range(n) for j in range(i + 1) if i + 2 > 64]
    assert weights["exact_omitted"] == sum(i for i in range(64, n + 1)) and \
        weights["max_terms"] == 64
    assert all(text == "0" for i, row in enumerate(weights["exact"]) for text in row[i + 1:])
    assert [row[0] is None for row in steps["exp_sum"]["exact"]] == \
        [i > 64 for i in range(1, n + 1)]
    assert [row[0] is None for row in steps["output"]["exact"]] == \
        [2 * i > 64 for i in range(1, n + 1)]
    assert "exact_omitted" not in steps["scores"]
    # Every decimal is still there.
    assert all(value is not None for row in weights["value"] for value in row)
    status, out, err = run(capsys, "derive", str(spec_path), "--format", "json",
                           "--max-terms", "0")
    assert status == 0, err
    steps = {step["name"]: step for step in json.loads(out)["steps"]}
    assert all(text is not None for row in steps["weights"]["exact"] for text in row)
    assert steps["weights"]["exact"][n - 1][0].count("exp(") == n + 1


def test_max_terms_must_not_be_negative(capsys, tmp_path):
    status, out, err = run(capsys, "derive", str(_long_rows_spec(tmp_path, 3, 2)),
                           "--max-terms", "-1")
    assert status == 2 and out == ""
    assert_one_line_error(err, "--max-terms")


@pytest.mark.parametrize("command", ["derive", "check", "permute", "kvcache", "sweep", "whatif"])
def test_every_spec_command_takes_max_size(capsys, command):
    # 000-cat-chases-mouse has 3 x 2 inputs: a limit of 2 entries refuses it, naming the matrix.
    status, out, err = run(capsys, command, "--example", "000-cat-chases-mouse",
                           "--max-size", "2")
    assert status == 2 and out == ""
    assert_one_line_error(err, "example 000-cat-chases-mouse", "3x2 = 6 entries", "the limit is 2",
                          "--max-size")
    status, out, err = run(capsys, command, "--example", "000-cat-chases-mouse",
                           "--max-size", "64")
    assert status in (0, 1) and out, err     # check exits 1 when a printed number is wrong


def test_examples_lists_each_kind_and_errors_name_an_example_by_its_name(capsys) -> None:
    from symattn.cli.app import main
    from symattn.problem import examples as bundled

    assert main(["examples"]) == 0
    listed = {line.split()[0]: line.split()[1] for line in capsys.readouterr().out.splitlines()}
    for name in bundled.names():
        text = bundled.path(name).read_text(encoding="utf-8")
        expected = "sizes" if "[sizes]" in text and "[inputs]" not in text else \
            "check" if "[claims]" in text else "derive"
        assert listed[name] == expected, name
    assert main(["derive", "--example", "001-score-matrix-memory"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("symattn: error: example 001-score-matrix-memory: this is a sizes "
                          "spec"), err
    assert "/" not in err.split(":")[2]


def test_check_show_problems_lists_only_what_an_author_must_look_at(capsys) -> None:
    # softmax([10, 2, 1]) printed to 4 places: 0.9997 is wrong (exactly 0.99954...), the
    # other two (0.0003, 0.0001) are right
    status, out, _ = run(capsys, "check", "--example", "001-softmax-10-2-1", "--language",
                         "en", "--show", "problems", "--keys")
    rows = [line for line in out.splitlines() if " weights[" in line]
    assert status == 1 and len(rows) == 1 and "0.9997" in rows[0] and "WRONG" in rows[0]
    assert "the weight of key 1 in row 1" in rows[0]      # the number in words, and its key
    assert "2 right numbers are not shown" in out
    status, out, _ = run(capsys, "check", "--example", "001-softmax-10-2-1", "--language",
                         "en", "--show", "problems", "-f", "markdown", "--keys")
    assert status == 1 and out.count("| <code>weights&#91;") == 1
    status, out, _ = run(capsys, "check", "--example", "001-softmax-10-2-1", "--language",
                         "en", "--keys")
    assert len([line for line in out.splitlines() if " weights[" in line]) == 3


def test_every_subcommand_describes_every_option_and_shows_its_own_examples() -> None:
    import argparse

    from symattn.cli.app import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, command in commands.choices.items():
        for action in command._actions:
            assert action.help or isinstance(action, argparse._HelpAction), (name, action)
        examples = [line.split()[1] for line in (command.epilog or "").splitlines()
                    if line.startswith("  symattn ")]
        assert examples and set(examples) == {name}, (name, examples)


def _spec_lines(place: str) -> set[int]:
    """The spec lines a report row names: "46, 48", "66–67", "12"."""
    lines: set[int] = set()
    for part in place.split(", "):
        first, _, last = part.partition("–")
        lines.update(range(int(first), int(last or first) + 1))
    return lines


def test_a_report_lists_the_problems_first_and_keeps_every_row(capsys) -> None:
    status, out, _ = run(capsys, "check", "--example", "001-kocka-spi-venku", "--language",
                         "en", "--width", "0")
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("line ")) + 1
    rows = [line for line in lines[start:] if line.strip()]
    right = [" right " in row for row in rows]
    assert status == 1 and not right[0] and right == sorted(right)  # problems, then right
    shown = set().union(*(_spec_lines(row.split("  ")[0]) for row in rows))
    _, out, _ = run(capsys, "check", "--example", "001-kocka-spi-venku", "-f", "json")
    claims = json.loads(out)["reports"][0]["claims"]
    assert len(claims) == 75 and shown == {claim["line"] for claim in claims}   # every one
