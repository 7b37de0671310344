"""Long runs: Ctrl-C stops them cleanly, and a terminal shows their progress.

These start ``python -m symattn`` in real processes (POSIX signals, a
pseudo-terminal) on a spec large enough to run for many seconds; each run is
interrupted after a second or two, so the tests stay quick.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_support import large_spec, subprocess_env

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and ptys")

ROOT = Path(__file__).resolve().parent.parent
INTERRUPTED = "symattn: interrupted\n"


env = subprocess_env


def start(argv: list[str], cwd: Path, **streams: object) -> subprocess.Popen:
    # A session of its own, so SIGINT can go to the whole process group, as Ctrl-C does.
    return subprocess.Popen([sys.executable, "-m", "symattn", *argv], cwd=cwd, env=env(),
                            start_new_session=True, **streams)  # type: ignore[call-overload]

def wait_until_working(process: subprocess.Popen, cpu_seconds: float = 1.5) -> None:
    """Wait until the run (with its worker processes) has spent cpu_seconds of CPU
    time, so that it is past Python's start-up and the imports, which a loaded machine
    can stretch to seconds of wall time, and inside the work a Ctrl-C must stop."""
    if not Path(f"/proc/{process.pid}/stat").exists():     # no /proc: wall time
        time.sleep(2 * cpu_seconds)
        return
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if _group_cpu_seconds(process.pid) >= cpu_seconds:
            return
        time.sleep(0.05)


def _group_cpu_seconds(group: int) -> float:
    """User and system CPU seconds of the live processes in a process group."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:              # the process ended while we looked
            continue
        if int(fields[2]) == group:
            ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")



def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.mark.parametrize("existing", [False, True], ids=["new-file", "existing-file"])
def test_ctrl_c_stops_cleanly_and_leaves_no_output(tmp_path: Path, existing: bool) -> None:
    spec = large_spec(tmp_path)
    out = tmp_path / "out.json"
    if existing:
        out.write_text("old", encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    process = start(["derive", spec.name, "--format", "json", "--max-terms", "0",
                     "-o", out.name], tmp_path,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until_working(process)
        assert process.poll() is None, "the run finished before it could be interrupted"
        os.killpg(process.pid, signal.SIGINT)
        signalled = time.monotonic()
        stdout, stderr = process.communicate(timeout=60)
        # at once, not when the document is done (about 5 s more of writing here)
        assert time.monotonic() - signalled < 4
    finally:
        stop(process)
    assert process.returncode == 130
    assert stderr.decode() == INTERRUPTED        # one line, no traceback, no progress bar
    assert stdout == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == before   # nothing new, no temporaries
    if existing:
        assert out.read_text(encoding="utf-8") == "old"


def test_ctrl_c_during_check_with_jobs(tmp_path: Path) -> None:
    spec = large_spec(tmp_path, 150)
    # About 6 s of checking in all (8 files, 2 workers): long enough to interrupt.
    claims = "\n".join(f'"weights[{i},{j}]" = "0.01"' for i in range(1, 151) for j in (1, 2, 3))
    spec.write_text(spec.read_text(encoding="utf-8") + f"[claims]\n{claims}\n", encoding="utf-8")
    copies = []
    for k in range(8):
        copy = tmp_path / f"large{k}.toml"
        copy.write_bytes(spec.read_bytes())
        copies.append(copy.name)
    before = sorted(p.name for p in tmp_path.iterdir())
    process = start(["check", *copies, "--jobs", "2", "-o", "report.txt"], tmp_path,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        wait_until_working(process)
        assert process.poll() is None, "the run finished before it could be interrupted"
        os.killpg(process.pid, signal.SIGINT)          # the workers get it too
        _, stderr = process.communicate(timeout=60)
    finally:
        stop(process)
    assert process.returncode == 130
    assert "Traceback" not in stderr.decode() and stderr.decode().endswith(INTERRUPTED)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def _read_terminal(master: int, process: subprocess.Popen, until: bytes,
                   timeout: float) -> bytes:
    """What the program wrote to the terminal, until ``until`` appears (or it ends)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while until not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 4096)
            except OSError:      # the program closed the terminal
                break
            if not chunk:
                break
            seen += chunk
        elif process.poll() is not None:
            break
    return seen


def test_progress_bar_on_a_terminal_and_not_on_a_pipe(tmp_path: Path) -> None:
    import pty

    spec = large_spec(tmp_path)
    master, slave = pty.openpty()
    process = start(["derive", spec.name, "--format", "json", "--max-terms", "0",
                     "-o", "out.json"], tmp_path,
                    stdin=slave, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    try:
        shown = _read_terminal(master, process, b"writing [", timeout=60)
        assert b"writing [" in shown, shown          # the bar, after about a second
        assert b"%" in _read_terminal(master, process, b"s", timeout=10)
        os.killpg(process.pid, signal.SIGINT)
        rest = _read_terminal(master, process, INTERRUPTED.strip().encode(), timeout=60)
        process.wait(timeout=60)
    finally:
        stop(process)
        os.close(master)
    assert process.returncode == 130
    # The last bar drawn is erased (carriage return, spaces, carriage return) before the
    # message, whether Ctrl-C came while it showed or after its task ended.
    whole = (shown + rest).replace(b"\r\n", b"\n")
    message = INTERRUPTED.strip().encode()
    last_bar = whole.rfind(b"writing [")
    erased = whole.find(b"\r" + b" " * 80 + b"\r", last_bar)
    assert whole.rstrip().endswith(message)
    assert last_bar < erased < whole.rindex(message), whole[last_bar:]
    assert b"Traceback" not in shown + rest

    # The same run with stderr on a pipe: after two seconds, not a character.
    process = start(["derive", spec.name, "--format", "json", "--max-terms", "0",
                     "-o", "out.json"], tmp_path,
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        time.sleep(2.0)
        assert process.poll() is None
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=60)
    finally:
        stop(process)
    assert stderr.decode() == INTERRUPTED
