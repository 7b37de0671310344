"""Issue 19 items 2, 4 and 18 (order): one file that fails never costs the others.

A spec that is unusable, one that hits a bug (an internal error) and one whose
worker process dies under ``--jobs`` are each reported in one line naming the
file; every other report is printed (text, Markdown, JSON), and the exit status
says the worst that happened (2 unusable or died, 3 a bug).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from cli_support import run

GOOD = """title = "good {k}"
[inputs]
Q = [[1, 0], [0, 1]]
K = [[1, 0], [0, 1]]
V = [[1, 2], [3, 4]]
[claims]
"weights[1,1]" = "0.6698"
"""
ROOT = Path(__file__).resolve().parents[2]


def _files(tmp_path: Path, count: int = 3) -> list[str]:
    paths = []
    for k in range(count):
        path = tmp_path / f"good{k}.toml"
        path.write_text(GOOD.format(k=k), encoding="utf-8")
        paths.append(str(path))
    return paths


def _buggy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Checking a file named bug.toml raises what a bug in symattn would."""
    from symattn.verify import checker

    real = checker.check

    def check(derivation, *args, **kwargs):  # type: ignore[no-untyped-def]
        if derivation.problem.source and derivation.problem.source.endswith("bug.toml"):
            raise RuntimeError("a bug")
        return real(derivation, *args, **kwargs)

    monkeypatch.setattr(checker, "check", check)


@pytest.mark.parametrize("form", ["text", "markdown", "json"])
def test_internal_error_is_per_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch, form: str) -> None:
    _buggy(monkeypatch)
    good = _files(tmp_path)
    bug = tmp_path / "bug.toml"
    bug.write_text(GOOD.format(k="bug"), encoding="utf-8")
    status, out, err = run(capsys, "check", good[0], str(bug), *good[1:], "--format", form)
    assert status == 3
    lines = err.strip().split("\n")
    assert len(lines) == 1 and "internal error" in lines[0] and str(bug) in lines[0], err
    if form == "json":
        reports = json.loads(out)["reports"]
        assert [r["source"] for r in reports] == [good[0], str(bug), *good[1:]]
        assert reports[1] == {"source": str(bug), "error": lines[0], "status": 3}
        assert all("claims" in r for k, r in enumerate(reports) if k != 1)
    else:
        for k in range(3):
            assert f"good {k}" in out


def test_unusable_file_is_a_json_entry(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    good = _files(tmp_path, 2)
    bad = tmp_path / "bad.toml"
    bad.write_text("[inputs]\nQ = [[1]]\n", encoding="utf-8")
    status, out, err = run(capsys, "check", good[0], str(bad), good[1], "--format", "json")
    assert status == 2
    reports = json.loads(out)["reports"]
    assert reports[1]["source"] == str(bad) and reports[1]["status"] == 2
    assert reports[1]["error"] == err.strip() and str(bad) in err
    assert "claims" not in reports[1] and "summary" not in reports[1]
    assert [r["title"] for r in (reports[0], reports[2])] == ["good 0", "good 1"]


KILLER = textwrap.dedent("""
    import os, signal, sys
    import symattn.cli.check as command
    real = command.check_one
    def check_one(source, *args, **kwargs):
        if source.endswith("dies.toml"):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(source, *args, **kwargs)
    check_one.__qualname__, check_one.__module__ = "check_one", "symattn.cli.check"
    command.check_one = check_one
    from symattn.cli.app import main
    sys.exit(main(sys.argv[1:]))
""")


@pytest.mark.parametrize("jobs", ["2", "64"])
def test_a_dying_worker_is_one_failed_file(tmp_path: Path, jobs: str) -> None:
    good = _files(tmp_path, 4)
    dies = tmp_path / "dies.toml"
    dies.write_text(GOOD.format(k="dies"), encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", KILLER, "check", good[0], str(dies), *good[1:],
                           "--jobs", jobs, "--format", "json"], capture_output=True, text=True,
                          timeout=120, env=env, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().split("\n")
    assert len(lines) == 1 and str(dies) in lines[0] and "Traceback" not in done.stderr
    reports = json.loads(done.stdout)["reports"]
    assert [r["source"] for r in reports] == [good[0], str(dies), *good[1:]]
    assert reports[1]["status"] == 2
    assert all(r["summary"]["ok"] == 1 for k, r in enumerate(reports) if k != 1)


def test_jobs_capped_at_the_cores() -> None:
    from symattn.cli.check import jobs_used

    assert jobs_used(10_000, 50) == min(50, os.cpu_count() or 1)
    assert jobs_used(3, 1) == 1


def test_examples_and_files_in_the_order_given(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    good = _files(tmp_path, 1)
    status, out, _ = run(capsys, "check", "--example", "004-softmax-row", good[0],
                         "--format", "json")
    sources = [r["source"] for r in json.loads(out)["reports"]]
    assert sources == ["example 004-softmax-row", good[0]]


@pytest.mark.parametrize("example", [["--example", "004-softmax-row"],
                                     ["--example=004-softmax-row"], ["-e004-softmax-row"]])
def test_files_on_both_sides_of_an_example(tmp_path: Path, example: list[str],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    # files split by an --example were refused: "unrecognized arguments: b.toml"
    first, second = _files(tmp_path, 2)
    status, out, err = run(capsys, "check", first, *example, "--format", "json", second,
                           "--summary")
    assert err == "" and status in (0, 1)      # 1: the example has wrong numbers
    sources = [r["source"] for r in json.loads(out)["reports"]]
    assert sources == [first, "example 004-softmax-row", second]


def test_an_unknown_option_among_files_is_still_refused(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    first, second = _files(tmp_path, 2)
    status, out, err = run(capsys, "check", first, "--no-such-option", second)
    assert (status, out) == (2, "") and "--no-such-option" in err


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_file_as_a_spec_is_one_error(capsys: pytest.CaptureFixture[str]) -> None:
    # /dev/zero never ends: it was read until memory ran out (MemoryError, status 3)
    status, out, err = run(capsys, "derive", "/dev/zero")
    assert (status, out) == (2, "")
    assert err.startswith("symattn: error: /dev/zero") and "MiB" in err and err.count("\n") == 1
