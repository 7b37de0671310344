"""symattn in CI: every JSON output against its shipped schema, --fail-on, --summary,
the number options, the pre-commit hook on a temporary repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from cli_support import run

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "symattn" / "schemas"
EXAMPLES = ["000-cat-chases-mouse", "001-kocka-spi-venku", "003-multi-head",
            "003-positions-sinusoidal", "004-softmax-180-210-95"]


def _schema(name: str) -> dict[str, object]:
    return json.loads((SCHEMAS / f"{name}.json").read_text(encoding="utf-8"))


def _valid(name: str, document: object) -> None:
    jsonschema.Draft202012Validator(_schema(name)).validate(document)


@pytest.mark.parametrize("name", ["derive", "check", "sizes", "answers", "report"])
def test_every_schema_is_a_valid_draft_2020_12_schema_and_printed_as_shipped(name: str,
                                                                              capsys) -> None:
    jsonschema.Draft202012Validator.check_schema(_schema(name))
    status, out, _ = run(capsys, "schema", name)
    assert status == 0 and json.loads(out) == _schema(name)


@pytest.mark.parametrize("example", EXAMPLES)
@pytest.mark.parametrize("options", [[], ["--places", "2"], ["--digits", "12", "--max-terms", "1"]])
def test_derive_json_validates(example: str, options: list[str], capsys) -> None:
    status, out, _ = run(capsys, "derive", "--example", example, "--format", "json", *options)
    assert status == 0
    document = json.loads(out)
    _valid("derive", document)
    assert document["schema_version"] == "1"


def test_check_json_validates_with_rows_columns_and_lines(capsys) -> None:
    status, out, _ = run(capsys, "check", *sum((["--example", e] for e in EXAMPLES), []),
                         "--format", "json")
    assert status == 1                        # 001 prints wrong numbers
    document = json.loads(out)
    _valid("check", document)
    claims = [c for r in document["reports"] for c in r["claims"]]
    assert claims and all(c["line"] is not None for c in claims)
    assert all(isinstance(c["row"], int) for c in claims if c["position"] != "divisor")


def test_the_check_schema_takes_a_failed_file_and_refuses_half_of_one() -> None:
    failed = {"source": "bad.toml", "error": "bad.toml: not valid TOML", "status": 2}
    _valid("check", {"symattn": "0.1.0", "schema_version": "1", "reports": [failed]})
    with pytest.raises(jsonschema.ValidationError):
        _valid("check", {"symattn": "0.1.0", "schema_version": "1",
                         "reports": [{**failed, "summary": {}}]})
    with pytest.raises(jsonschema.ValidationError):
        _valid("check", {"symattn": "0.1.0", "reports": [failed]})     # no schema_version


def test_summary_json_validates_and_has_no_claims(capsys) -> None:
    status, out, _ = run(capsys, "check", "--example", "000-cat-chases-mouse", "--format",
                         "json", "--summary")
    document = json.loads(out)
    _valid("check", document)
    assert status == 0 and "claims" not in document["reports"][0]
    assert document["reports"][0]["summary"] == {"ok": 138, "propagated": 16, "wrong": 0,
                                                 "undecided": 0}


def test_sizes_json_validates(capsys) -> None:
    status, out, _ = run(capsys, "sizes", "--d-model", "4096", "--heads", "32", "--kv-heads",
                         "8", "--seq-len", "1024", "--format", "json")
    assert status == 0
    _valid("sizes", json.loads(out))


@pytest.mark.parametrize("options", [["--variants", "2"], ["--preset", "lesson45"]])
def test_worksheet_answers_validate(options: list[str], tmp_path: Path, capsys) -> None:
    status, _, _ = run(capsys, "worksheet", "--seed", "3", *options, "-o", str(tmp_path / "c"))
    assert status == 0
    _valid("answers", json.loads((tmp_path / "c" / "worksheet-answers.json").read_text()))


@pytest.mark.parametrize("argv", [
    ["sweep", "--example", "003-entropy-temperature", "--temperatures", "0.5,1"],
    ["whatif", "--example", "000-cat-chases-mouse"],
    ["permute", "--example", "003-positions-sinusoidal", "--order", "3,1,2"],
    ["kvcache", "--example", "000-cat-chases-mouse"],
])
def test_the_exploring_reports_validate(argv: list[str], capsys) -> None:
    status, out, _ = run(capsys, *argv, "--format", "json")
    assert status == 0
    _valid("report", json.loads(out))


# ------------------------------------------------------------------ gates
@pytest.mark.parametrize("example, fail_on, status", [
    ("000-cat-chases-mouse", None, 0),            # 16 propagated, none wrong
    ("000-cat-chases-mouse", "propagated", 1),
    ("000-cat-chases-mouse", "wrong,undecided", 0),
    ("001-kocka-spi-venku", None, 1),             # three wrong
    ("001-kocka-spi-venku", "undecided", 0),
])
def test_fail_on_picks_the_verdicts_that_fail(example: str, fail_on: str | None, status: int,
                                              capsys) -> None:
    options = ["--fail-on", fail_on] if fail_on else []
    got, _, _ = run(capsys, "check", "--example", example, *options, "--summary")
    assert got == status


def test_fail_on_inconsistent_follows_the_flag(capsys) -> None:
    from symattn.cli.gates import fails
    import symattn

    for example in EXAMPLES:
        report = symattn.check(symattn.load_example(example))
        flagged = any("inconsistent" in v.flags for v in report.verdicts)
        status, _, _ = run(capsys, "check", "--example", example, "--fail-on", "inconsistent")
        assert status == (1 if flagged else 0) == (1 if fails(report, ("inconsistent",)) else 0)


def test_summary_text_is_one_line_per_spec(capsys) -> None:
    status, out, _ = run(capsys, "check", "--example", "000-cat-chases-mouse", "--example",
                         "001-kocka-spi-venku", "--summary", "--language", "en")
    assert status == 1
    lines = out.strip().splitlines()
    assert len(lines) == 2 and "154" in lines[0] and "wrong: 3" in lines[1]


@pytest.mark.parametrize("argv, option", [
    (["derive", "--example", "000-cat-chases-mouse", "--max-rows", "-1"], "--max-rows"),
    (["derive", "--example", "000-cat-chases-mouse", "--max-terms", "-2"], "--max-terms"),
    (["derive", "--example", "000-cat-chases-mouse", "--digits", "0"], "--digits"),
    (["derive", "--example", "000-cat-chases-mouse", "--digits", "²"], "--digits"),
    (["derive", "--example", "000-cat-chases-mouse", "--places", "١"], "--places"),
    (["derive", "--example", "000-cat-chases-mouse", "--max-size", "0"], "--max-size"),
    (["check", "--example", "000-cat-chases-mouse", "--jobs", "0"], "--jobs"),
    (["check", "--example", "000-cat-chases-mouse", "--jobs", "-3"], "--jobs"),
    (["check", "--example", "000-cat-chases-mouse", "--fail-on", "ok"], "--fail-on"),
    (["kvcache", "--example", "000-cat-chases-mouse", "--max-rows", "-1"], "--max-rows"),
    (["whatif", "--example", "000-cat-chases-mouse", "--digits", "0"], "--digits"),
])
def test_number_options_out_of_range_are_a_clear_error(argv: list[str], option: str,
                                                       capsys) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and not out and "Traceback" not in err
    assert option in err.strip().splitlines()[-1]


# ------------------------------------------------------------------ pre-commit
WRONG = """title = "two keys"
[inputs]
scaled = [[0, 0]]
V = [[1], [3]]
[options]
scale = "none"
[claims]
weights = [["0.4", "0.5"]]
"""


def _git(repo: Path, *argv: str) -> None:
    subprocess.run(["git", *argv], cwd=repo, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_pre_commit_hook_fails_a_wrong_number_then_passes_the_fix(tmp_path: Path) -> None:
    """The hook of .pre-commit-hooks.yaml, run by pre-commit itself on a temporary
    repository. Offline: the hook is used as a local one (``repo: local``) whose
    entry is this interpreter's symattn; its name, files and arguments are the
    shipped hook's."""
    import yaml

    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())[0]
    entry = hook["entry"].split()
    assert entry[0] == "symattn"
    local = {**hook, "language": "system",
             "entry": " ".join([sys.executable, "-m", "symattn", *entry[1:]])}
    repo = tmp_path / "book"
    (repo / "specs").mkdir(parents=True)
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(
        {"repos": [{"repo": "local", "hooks": [local]}]}))
    (repo / "pyproject.toml").write_text("[project]\nname = 'book'\n")   # not a spec: skipped
    spec = repo / "specs" / "softmax.toml"
    spec.write_text(WRONG)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "GIT_AUTHOR_NAME": "a",
           "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a", "GIT_COMMITTER_EMAIL": "a@b",
           "PYTHONPATH": str(ROOT)}
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    command = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    failed = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "wrong: 1" in failed.stdout                # softmax of (0, 0) is 0.5, 0.5
    spec.write_text(WRONG.replace('"0.4"', '"0.5"'))
    _git(repo, "add", ".")
    passed = subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True)
    assert passed.returncode == 0, passed.stdout + passed.stderr
