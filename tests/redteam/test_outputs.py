"""Where output goes: ``-o`` on special files, modes, links, inputs; closed pipes; SIGTERM.

Each case ran wrongly on the code before these tests: ``-o`` on a device node or
a FIFO replaced it with a regular file, a 0600 file became 0644, a symbolic link
was replaced instead of its target written, ``check spec.toml -o spec.toml``
overwrote the spec, a 250-character name failed, ``check`` with a wrong number
exited 0 when stdout was a closed pipe, and SIGTERM left a temporary file.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cli_support import large_spec, subprocess_env

from symattn.cli.app import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX files and signals")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ["--example", "001-softmax-10-2-1"]
# softmax of (1, 2): e/(e + e^2) = 1/(1 + e) = 0.268941..., so 0.5 is wrong
WRONG_SPEC = '[inputs]\nscaled = [[1, 2]]\n[claims]\n"weights[1,1]" = "0.5"\n'


env = subprocess_env


def symattn(*argv: str, cwd: Path, stdout: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "symattn", *argv], cwd=cwd, env=env(),
                          stdout=stdout, stderr=subprocess.PIPE,  # type: ignore[call-overload]
                          timeout=120)


def derive_to(target: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    status = main(["derive", *EXAMPLE, "-o", target])
    return status, capsys.readouterr().err


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".symattn-"))


def test_existing_file_keeps_its_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "private.txt"
    out.write_text("old", encoding="utf-8")
    out.chmod(0o600)
    assert derive_to(str(out), capsys)[0] == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert "softmax" in out.read_text(encoding="utf-8")
    assert leftovers(tmp_path) == []


def test_symbolic_link_is_followed_to_its_target(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "real.txt"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.txt"
    link.symlink_to(target.name)
    assert derive_to(str(link), capsys)[0] == 0
    assert link.is_symlink() and os.readlink(link) == target.name     # the link stays
    assert "softmax" in target.read_text(encoding="utf-8")


def test_dangling_link_creates_its_target(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    link = tmp_path / "link.txt"
    link.symlink_to("made.txt")
    assert derive_to(str(link), capsys)[0] == 0
    assert link.is_symlink() and (tmp_path / "made.txt").is_file()


def test_fifo_is_written_through_not_replaced(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as stream:
            received.append(stream.read())

    reader = threading.Thread(target=read)
    reader.start()
    status, _ = derive_to(str(fifo), capsys)
    reader.join(timeout=30)
    assert status == 0
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert b"softmax" in received[0]
    assert leftovers(tmp_path) == []


def test_dev_null_stays_a_device() -> None:
    status = main(["derive", *EXAMPLE, "-o", os.devnull])
    assert status == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_device_replica_is_written_through(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    node = tmp_path / "null"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))   # the device of /dev/null
    except PermissionError:
        pytest.skip("making a device node needs root")
    assert derive_to(str(node), capsys)[0] == 0
    assert stat.S_ISCHR(os.stat(node).st_mode)


def test_dev_full_reports_the_failure(capsys: pytest.CaptureFixture[str]) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    status, err = derive_to("/dev/full", capsys)
    assert status == 2
    assert err.startswith("symattn: error: /dev/full: cannot write:") and err.count("\n") == 1
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_directory_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = derive_to(str(tmp_path), capsys)
    assert status == 2 and "is a directory" in err


def test_output_equal_to_an_input_is_refused(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(WRONG_SPEC, encoding="utf-8")
    alias = tmp_path / "alias.toml"
    alias.symlink_to(spec.name)
    for output in (str(spec), str(alias)):
        status = main(["check", str(spec), "-o", output])
        err = capsys.readouterr().err
        assert status == 2 and "is also an input" in err
        assert spec.read_text(encoding="utf-8") == WRONG_SPEC


def test_longest_legal_name_works(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    limit = os.pathconf(tmp_path, "PC_NAME_MAX")
    out = tmp_path / ("a" * (limit - 5) + ".json")
    assert len(out.name) == limit
    assert main(["derive", *EXAMPLE, "-f", "json", "-o", str(out)]) == 0
    assert out.is_file() and leftovers(tmp_path) == []


def test_wrong_number_keeps_status_1_on_a_closed_pipe(tmp_path: Path) -> None:
    spec = tmp_path / "wrong.toml"
    spec.write_text(WRONG_SPEC, encoding="utf-8")
    reader, writer = os.pipe()
    os.close(reader)        # nobody reads: the first write is a broken pipe
    try:
        process = symattn("check", spec.name, cwd=tmp_path, stdout=writer)
    finally:
        os.close(writer)
    assert process.returncode == 1, process.stderr
    assert process.stderr == b""
    # started with stdout closed altogether (`symattn check wrong.toml >&-`)
    closed = subprocess.run(["sh", "-c", f'exec "{sys.executable}" -m symattn check '
                             f'{spec.name} >&-'], cwd=tmp_path, env=env(),
                            stderr=subprocess.PIPE, timeout=120)
    assert closed.returncode == 1, closed.stderr
    assert b"internal error" not in closed.stderr


def test_sigterm_cleans_up_and_exits_143(tmp_path: Path) -> None:
    spec = large_spec(tmp_path)
    out = tmp_path / "out.json"
    out.write_text("old", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    process = subprocess.Popen([sys.executable, "-m", "symattn", "derive", spec.name,
                                "--format", "json", "--max-terms", "0", "-o", out.name],
                               cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        time.sleep(1.5)
        assert process.poll() is None, "the run finished before it could be stopped"
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 143
    assert stderr.decode() == "symattn: terminated\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert out.read_text(encoding="utf-8") == "old"


SIZES_SPEC = '[sizes]\nd_model = 768\nheads = 12\nseq_len = 1024\n[claims]\nhead_dim = "64"\n'


@pytest.mark.parametrize("command", [["check"], ["worksheet", "-x", "softmax_table"]])
@pytest.mark.parametrize("text", [WRONG_SPEC, SIZES_SPEC], ids=["attention", "sizes"])
def test_a_spec_on_a_pipe_is_read_once(tmp_path: Path, command: list[str], text: str) -> None:
    if command[0] == "worksheet":
        command = ["worksheet", "-x", "sizes" if text == SIZES_SPEC else "softmax_table"]
        if text == WRONG_SPEC:       # a worksheet needs Q, K and V
            text = (ROOT / "symattn/examples/000-cat-chases-mouse.toml").read_text("utf-8")
    process = subprocess.run([sys.executable, "-m", "symattn", command[0], "/dev/stdin",
                              *command[1:], *(["-o", str(tmp_path)] if command[0] ==
                                              "worksheet" else [])],
                             input=text.encode(), cwd=tmp_path, env=env(),
                             capture_output=True, timeout=120)
    expected = {("check", WRONG_SPEC): 1, ("check", SIZES_SPEC): 0}.get((command[0], text), 0)
    assert process.returncode == expected, process.stderr
    assert b"missing [inputs]" not in process.stderr
    if command[0] == "check":
        assert b"WRONG" in process.stdout if text == WRONG_SPEC else b"64" in process.stdout


def test_engine_line_keeps_its_newline() -> None:
    from symattn.render.engines import name_engine

    tex = "% !TEX program = pdflatex\n\\documentclass{article}"
    assert name_engine(tex, "pdflatex") == tex
    assert name_engine(tex, "xelatex") == "% !TEX program = xelatex\n\\documentclass{article}"


def test_dev_stdout_writes_to_what_the_shell_opened(tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    log.write_text("first line\n", encoding="utf-8")
    with open(log, "ab") as appended:      # as `symattn ... -o /dev/stdout >> log.txt`
        done = subprocess.run([sys.executable, "-m", "symattn", "derive", *EXAMPLE, "-o",
                               "/dev/stdout"], env=env(), stdout=appended,
                              stderr=subprocess.PIPE, timeout=120)
    assert done.returncode == 0, done.stderr
    text = log.read_text(encoding="utf-8")
    assert text.startswith("first line\n") and "softmax" in text      # appended, not replaced
    with open(log, "ab") as appended:      # `-o /dev/fd/3 3>>log.txt`
        done = subprocess.run([sys.executable, "-m", "symattn", "derive", *EXAMPLE, "-o",
                               f"/dev/fd/{appended.fileno()}"], env=env(),
                              pass_fds=(appended.fileno(),), capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert log.read_text(encoding="utf-8") == text + text.removeprefix("first line\n")
