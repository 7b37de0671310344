"""Worksheet class sets are replaced as a set; PDFs are the same bytes every run.

Before: Ctrl-C while a class set was written left new sheets next to old keys and
an old answers JSON; a folder in the way of one file stopped the run after others
were replaced; a plain file named ``worksheet-check`` gave status 3 after the rest
was written; derive PDFs differed run to run (dates, ID).
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_support import subprocess_env

from symattn.cli.app import main
from symattn.render import files

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX files and signals")

ROOT = Path(__file__).resolve().parents[2]


def env() -> dict[str, str]:
    variables = subprocess_env()
    variables.pop("SOURCE_DATE_EPOCH", None)    # the PDFs' dates: the default, 0
    return variables


def digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_signal_during_the_renames_waits_for_the_whole_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k in range(20):
        (tmp_path / f"f{k}.txt").write_text("old", encoding="utf-8")
    replace = os.replace
    done = []

    def replace_then_signal(source: str, target: str) -> None:
        replace(source, target)
        done.append(target)
        if len(done) == 5:               # Ctrl-C in the middle of the pass
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(os, "replace", replace_then_signal)
    with pytest.raises(KeyboardInterrupt):
        with files.OutputSet() as output:
            for k in range(20):
                output.add(tmp_path / f"f{k}.txt", "new")
            output.commit()
    assert len(done) == 20               # the interrupt came after the last rename
    assert {p.read_text(encoding="utf-8") for p in tmp_path.iterdir()} == {"new"}


def test_interrupted_staging_leaves_the_old_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("old", encoding="utf-8")
    with pytest.raises(KeyboardInterrupt):
        with files.OutputSet() as output:
            output.add(tmp_path / "a.txt", "new")
            output.add(tmp_path / "b.txt", "new")
            raise KeyboardInterrupt
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt"]
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "old"


@pytest.mark.parametrize("obstacle", ["folder-for-a-file", "file-for-a-folder"])
def test_something_in_the_way_stops_before_anything_is_replaced(
        tmp_path: Path, obstacle: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["worksheet", "--variants", "2", "-x", "softmax_table", "-o", str(tmp_path)]
    assert main(argv) == 0
    capsys.readouterr()
    before = digests(tmp_path)
    if obstacle == "folder-for-a-file":
        (tmp_path / "worksheet-02-key.tex").unlink()
        (tmp_path / "worksheet-02-key.tex").mkdir()
        del before["worksheet-02-key.tex"]
        extra = ["--seed", "5"]
    else:
        (tmp_path / "worksheet-01-check").write_text("mine", encoding="utf-8")
        before["worksheet-01-check"] = hashlib.sha256(b"mine").hexdigest()
        extra = ["--seed", "5", "--check-specs"]
    status = main(argv + extra)
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.startswith("symattn: error: ") and err.count("\n") == 1
    assert digests(tmp_path) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".symattn-")]


@pytest.mark.slow       # three 200-variant class sets and up to three stopped runs
def test_sigterm_during_a_200_variant_set_leaves_old_or_new(tmp_path: Path) -> None:
    common = ["worksheet", "--variants", "200", "-x", "softmax_table", "--check-specs"]
    old, new, target = tmp_path / "old", tmp_path / "new", tmp_path / "target"
    for folder, seed in ((old, "1"), (new, "2")):
        done = subprocess.run([sys.executable, "-m", "symattn", *common, "--seed", seed,
                               "-o", str(folder)], env=env(), capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr
    old_set, new_set = digests(old), digests(new)
    assert old_set.keys() == new_set.keys() and old_set != new_set
    statuses = []
    for _ in range(3):           # until one run is stopped in the middle of its writing
        subprocess.run(["rm", "-rf", str(target)], check=True)
        subprocess.run(["cp", "-a", str(old), str(target)], check=True)
        statuses.append(_stop_while_writing(common, target))
        assert digests(target) in (old_set, new_set), statuses
        assert not [p for p in target.iterdir() if p.name.startswith(".symattn-")]
        if statuses[-1] == 143:
            break
    assert 143 in statuses, statuses


def _stop_while_writing(common: list[str], target: Path) -> int:
    """Run into ``target``, SIGTERM as soon as the first staged file appears; the status
    (0 when the run ended before the signal could reach it)."""
    process = subprocess.Popen([sys.executable, "-m", "symattn", *common, "--seed", "2",
                                "-o", str(target)], env=env(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while process.poll() is None and time.monotonic() < deadline:
        if any(name.startswith(".symattn-") for name in os.listdir(target)):
            break
        time.sleep(0.001)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode in (0, 143), stderr
    return process.returncode


TINY = "\\documentclass{article}\n\\begin{document}\nsoftmax $0.268941$\n\\end{document}\n"


@pytest.mark.parametrize("engine", ["pdflatex", "lualatex", "xelatex"])
def test_pdfs_are_the_same_bytes_every_run(engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from symattn.render import pdf

    if pdf.compiler(engine) is None:
        pytest.skip(f"no {engine}")
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    first = pdf.compile_pdf(TINY, engine=engine)         # as derive --pdf and reports call it
    time.sleep(1.1)           # a second later: a clock in the PDF would show
    assert pdf.compile_pdf(TINY, engine=engine) == first
    other = pdf.compile_pdf(TINY.replace("0.268941", "0.731059"), engine=engine)
    assert other != first


def _processes_in(folder: Path) -> list[int]:
    """Processes whose working folder lies inside ``folder`` (TeX runs in its temp folder)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            continue
        if cwd.startswith(str(folder)):
            found.append(int(entry.name))
    return found


def test_sigterm_during_worksheet_pdf_leaves_no_tex_and_no_temporaries(tmp_path: Path) -> None:
    from symattn.render import pdf

    if pdf.compiler("pdflatex") is None or not Path("/proc/self/cwd").exists():
        pytest.skip("needs TeX and /proc")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    out = tmp_path / "out"
    variables = dict(env(), TMPDIR=str(temporary))
    process = subprocess.Popen([sys.executable, "-m", "symattn", "worksheet", "--variants", "6",
                                "-x", "softmax_table", "--pdf", "--jobs", "2", "-o", str(out)],
                               env=variables, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 240      # wait until TeX runs
        while not _processes_in(temporary) and time.monotonic() < deadline:
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.05)
        assert _processes_in(temporary), "TeX never started"
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 143, stderr
    assert stderr.decode() == "symattn: terminated\n"
    time.sleep(0.5)
    assert _processes_in(temporary) == []             # no orphaned latexmk or pdflatex
    assert list(temporary.iterdir()) == []            # no symattn-pdf-* folder
    assert not out.exists() or list(out.iterdir()) == []


def test_figure_pdf_is_the_same_bytes_every_run(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import symattn
    from symattn.render.figure import save_weights_figure

    derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
    first, second = tmp_path / "a.pdf", tmp_path / "b.pdf"
    save_weights_figure(derivation, first)
    time.sleep(1.1)
    save_weights_figure(derivation, second)
    assert first.read_bytes() == second.read_bytes()


def test_a_smaller_set_takes_away_the_rest_of_the_earlier_one(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "notes.tex"
    mine.write_text("mine", encoding="utf-8")
    base = ["worksheet", "-x", "softmax_table", "-o", str(tmp_path)]
    assert main(base + ["--variants", "3", "--check-specs", "--export", "gift",
                        "--short-key"]) == 0
    assert main(base + ["--variants", "2"]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "notes.tex", "worksheet-01-key.tex", "worksheet-01.tex", "worksheet-02-key.tex",
        "worksheet-02.tex", "worksheet-answers.json"]
    assert main(base) == 0                       # one variant: plain names
    capsys.readouterr()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "notes.tex", "worksheet-answers.json", "worksheet-key.tex", "worksheet.tex"]
    assert mine.read_text(encoding="utf-8") == "mine"
