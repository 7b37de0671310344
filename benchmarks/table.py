#!/usr/bin/env python
"""The performance targets and their measured figures, side by side, in one run.

    python -m benchmarks.table              # every row but the tests (a few minutes)
    python -m benchmarks.table --quick      # the large-matrix JSON and check rows only
    python -m benchmarks.table --tests      # also the full test profile (minutes more)
    python -m benchmarks.table --repeat 1   # each row once

Each row runs the command line a user would (``python -m symattn ...``) in a
child process and reports the child's CPU time (user + sys), its wall time and its
peak resident memory (``os.wait4``). CPU time is the steadier figure on a shared
machine, and a row whose target is at most 10 s is run five times (``--repeat``):
the fastest run is its figure, since other work on the machine only ever adds time,
and the median is printed beside it. The modules are compiled once beforehand, as
pip does for an installed package. Before and after the rows, the load average and
the machine's pace are printed: the CPU seconds of a fixed piece of pure Python
(``pace``), so that runs on a fast and a slow stretch of a shared machine can be
told apart. A row that passes ``--stop`` CPU seconds is stopped and shown as
"(stopped)". The printed table is the one in docs/performance.md.

Rows:

- the daily paths, each under 1 s: ``check`` of three bundled examples (the seed
  check ``001-softmax-10-2-1``, ``000-cat-chases-mouse``, ``001-kocka-spi-venku``),
  ``derive`` of ``000-cat-chases-mouse`` as text and ``--format latex``;
- a chapter of 300 printed numbers (``chapter_spec``) checked in under 0.5 s;
- ``extract`` of a 1 MB Markdown document (``extract_markdown``: named vectors,
  sums written out, LaTeX matrices in text and in image addresses, NumPy and
  PyTorch prints, tables, and unclosed groups of brackets) under 15 s;
- on specs written here with seeded random two-digit decimals in [-1, 1] and a
  causal mask: ``derive --format json`` of 128 x 64 within 2x of the text report
  of the same derivation (the two run by turns), ``derive --format json`` of
  1024 x 64 under 10 s and 500 MB, and ``check`` of 24,576 claims (every weight
  and output entry of 128 x 64) under 3 s;
- with ``--tests``, the full test profile (``python -m pytest --full -n auto
  --durations=15`` in the project folder) under 4 minutes of wall time; its 15
  slowest tests are printed after the table (standard error).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Iterator, Sequence

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Run:
    cpu: float          # user + sys seconds of the child (and of the children it waited for)
    wall: float
    rss_mb: float       # peak resident set of the child
    finished: bool      # False: stopped at the time limit (or it failed)
    status: int


def run(argv: Sequence[str], limit: float, cwd: Path, module: str = "symattn",
        by_wall: bool = False, log: Path | None = None) -> Run:
    """``python -m MODULE ARGV`` in a child, measured; stopped after ``limit`` CPU seconds
    (wall seconds with ``by_wall``). With ``log`` its output goes there, else nowhere
    (standard error is shown when it fails)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)   # compiled once, as an installed package is
    out = open(log, "wb") if log is not None else None
    start = time.perf_counter()
    # a session of its own, so that stopping it stops its children too (pytest's workers)
    child = subprocess.Popen([sys.executable, "-m", module, *argv], cwd=cwd, env=env,
                             stdout=out or subprocess.DEVNULL,
                             stderr=subprocess.STDOUT if out else subprocess.PIPE,
                             start_new_session=True)
    try:
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            wall = time.perf_counter() - start
            # CPU seconds, not wall: on a loaded machine the wall clock says little
            if (wall > limit if by_wall else _cpu_of(child.pid) > limit or wall > 10 * limit):
                _stop(child.pid)
                pid, status, usage = os.wait4(child.pid, 0)
                child.returncode = -9
                return Run(usage.ru_utime + usage.ru_stime, time.perf_counter() - start,
                           usage.ru_maxrss / 1024, False, -9)
            time.sleep(0.02)
    except BaseException:
        _stop(child.pid)
        child.wait()
        raise
    finally:
        if out is not None:
            out.close()
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    code = child.returncode
    if code not in (0, 1) and child.stderr is not None:
        sys.stderr.write(f"  {' '.join(argv)}: status {code}: "
                         f"{child.stderr.read().decode(errors='replace').strip()[:300]}\n")
    return Run(usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024, code in (0, 1),
               code)


def _stop(pid: int) -> None:
    """Kill the child's session (the child and whatever it started)."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + sys) a running process has used so far (Linux /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# ------------------------------------------------------------------ specs
def matrix(rng: random.Random, rows: int, columns: int) -> list[list[str]]:
    return [[f"{rng.randint(-99, 99) / 100:.2f}" for _ in range(columns)] for _ in range(rows)]


def attention_spec(folder: Path, n: int, d: int, **options: object) -> Path:
    rng = random.Random(n * 1000 + d)
    spec = {"title": f"bench {n}x{d}",
            "inputs": {"Q": matrix(rng, n, d), "K": matrix(rng, n, d), "V": matrix(rng, n, d)},
            "options": {"mask": "causal", **options}}
    path = folder / f"attention-{n}x{d}-{len(options)}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def derived(spec: Path, *options: str) -> dict[str, list[list[str]]]:
    """Every step's decimals as ``derive --format json`` prints them (not measured)."""
    out = spec.with_suffix(".derived.json")
    subprocess.run([sys.executable, "-m", "symattn", "derive", str(spec), *options,
                    "-f", "json", "-o", str(out)], check=True,
                   env=dict(os.environ, PYTHONPATH=str(ROOT)))
    steps = json.loads(out.read_text(encoding="utf-8"))["steps"]
    return {step["name"]: step["value"] for step in steps}


def claims_spec(folder: Path, n: int, d: int) -> Path:
    """The attention spec with every weight and output entry claimed as derive prints it."""
    spec_path = attention_spec(folder, n, d)
    steps = derived(spec_path)
    claims = {f"{name}[{i + 1},{j + 1}]": value
              for name in ("weights", "output")
              for i, row in enumerate(steps[name]) for j, value in enumerate(row)}
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    spec["claims"] = claims
    path = folder / f"claims-{n}x{d}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


# The chapter's settings besides its own: each variant prints its weights and outputs.
CHAPTER_VARIANTS: tuple[tuple[str, dict[str, object]], ...] = (
    ("T = 2", {"temperature": 2}), ("causal", {"mask": "causal"}))
# The numbers the chapter prints wrong, one unit off in the last place: (variant or "",
# step, row, column), 1-based.
CHAPTER_WRONG: tuple[tuple[str, str, int, int], ...] = (
    ("", "exp", 2, 3), ("", "weights", 4, 1), ("", "output", 5, 2), ("T = 2", "weights", 3, 2))


def off_by_one(printed: str) -> str:
    """``printed`` one unit up in its last place, to as many places."""
    value = Decimal(printed)
    unit = Decimal(1).scaleb(int(value.as_tuple().exponent))
    return format((value + unit).quantize(unit), "f")


def chapter_spec(folder: Path, tokens: int = 6, width: int = 4) -> Path:
    """A chapter's worth of printed numbers, 300 at 6 tokens of width 4: one head (Q, K
    and V seeded two-digit decimals, no mask) worked step by step - the scores and the
    scaled scores to 2 places, the exponentials, their row sums, the weights, each row's
    sum of weights and the outputs to 4 - and the same inputs at two other settings
    (``CHAPTER_VARIANTS``: T = 2 and a causal mask), each with its weights and outputs
    to 4 places. The numbers are derive's own (``--places``), so every one is right but
    the four of ``CHAPTER_WRONG``."""
    rng = random.Random(tokens * 100 + width)
    spec: dict[str, object] = {
        "title": f"chapter {tokens}x{width}",
        "inputs": {name: matrix(rng, tokens, width) for name in ("Q", "K", "V")},
        "variants": [{"name": name, "options": options} for name, options in CHAPTER_VARIANTS]}
    path = folder / f"chapter-{tokens}x{width}.json"
    path.write_text(json.dumps(spec), encoding="utf-8")

    def printed(steps: dict[str, list[list[str]]], names: Sequence[str],
                variant: str) -> dict[str, object]:
        claims: dict[str, object] = {}
        for name in names:
            rows = [list(row) for row in steps[name]]
            for where, step, i, j in CHAPTER_WRONG:
                if where == variant and step == name:
                    rows[i - 1][j - 1] = off_by_one(rows[i - 1][j - 1])
            claims[name] = [row[0] for row in rows] if name == "exp_sum" else rows
        return claims

    two, four = derived(path, "--places", "2"), derived(path, "--places", "4")
    claims = printed(two, ("scores", "scaled"), "")
    claims.update(printed(four, ("exp", "exp_sum", "weights"), ""))
    claims.update({f"weights[{i + 1}].sum": "1.0000" for i in range(tokens)})
    claims.update(printed(four, ("output",), ""))
    spec["claims"] = claims
    spec["variants"] = [
        {"name": name, "options": options,
         "claims": printed(derived(path, "--places", "4", "--variant", name),
                           ("weights", "output"), name)}
        for name, options in CHAPTER_VARIANTS]
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


def chapter_numbers(path: Path) -> int:
    """How many numbers the chapter spec prints (its claims and its variants')."""
    def count(claim: object) -> int:
        return sum(count(part) for part in claim) if isinstance(claim, list) else 1

    spec = json.loads(path.read_text(encoding="utf-8"))
    blocks = [spec["claims"], *(variant["claims"] for variant in spec["variants"])]
    return sum(count(claim) for block in blocks for claim in block.values())


EXTRACT_BYTES = 1_000_000
EXTRACT_TARGET = 15.0


def extract_markdown(folder: Path, size: int = EXTRACT_BYTES) -> Path:
    """A Markdown document of ``size`` bytes: the same worked block again and again,
    each with every structure ``extract`` reads, and a line of unclosed brackets."""
    block = ("## Step {i}\n\nq₁ = [1.0, 0.0, 0.5, 0.0]\nk₁ = [0.9, 0.1, 0.4, 0.0]\n"
             "k₂ = [0.0, 1.0, 0.0, 0.9]\nv₁ = [0.2, 0.8, 0.0, 0.1]\nv₂ = [0.7, 0.1, 0.3, 0.0]\n"
             "q₁ · k₁ = 1.0×0.9 + 0.0×0.1 + 0.5×0.4 + 0.0×0.0 = 0.9 + 0 + 0.2 + 0 = 1.1\n"
             "$\\sqrt{{d_k}} = 2$, $\\frac{{1.1}}{{2}} = 0.55$, e^0.55 = 1.733 ({i} %)\n"
             "\\[A = \\begin{{bmatrix}} 0.1 & 0.2 \\\\ 0.3 & 0.4 \\end{{bmatrix}}\\]\n"
             "![](https://latex.codecogs.com/svg.latex?%5Cbegin%7Bbmatrix%7D%200.6%20%26%200.4"
             "%20%5Cend%7Bbmatrix%7D)\n"
             "array([[ 0.6 -0.4]\n       [ 1.2e-03  0.5]], dtype=float32)\n"
             "tensor([[0.5000, 0.5000]], grad_fn=<SoftmaxBackward0>)\n"
             "| token | weight |\n|---|---|\n| cat | 0.{i} |\n"
             "[[[1, 2] [1, 2] [1, 2] [1, 2] [1, 2] [1, 2]\n\n")
    parts, length, i = [], 0, 0
    while length < size:
        parts.append(block.format(i=i % 100))
        length += len(parts[-1].encode("utf-8"))
        i += 1
    path = folder / "extract.md"
    path.write_text("".join(parts), encoding="utf-8")
    return path


def extract_row(folder: Path, stop: float, repeat: int) -> Row:
    path = extract_markdown(folder)
    return timed_row(f"extract of a {path.stat().st_size / 1e6:.1f} MB Markdown document",
                     EXTRACT_TARGET, ["extract", str(path), "-o", "draft.toml"], folder, stop,
                     repeat)


# ------------------------------------------------------------------ rows
@dataclass
class Row:
    what: str
    target: str
    measured: str
    met: str


def seconds(r: Run, limit: float) -> str:
    if not r.finished:
        return f"> {limit:.0f} s CPU (stopped)" if r.status == -9 else \
            f"failed (status {r.status})"
    return f"{r.cpu:.2f} s CPU ({r.wall:.2f} s wall)"


def verdict(r: Run, limit_s: float, memory_mb: float | None = None,
            by_wall: bool = False) -> str:
    if not r.finished:
        return "not met"
    ok = (r.wall if by_wall else r.cpu) <= limit_s and (memory_mb is None or
                                                         r.rss_mb <= memory_mb)
    return "met" if ok else "not met"


# Runs of each row whose target is at most REPEATED_UNDER seconds: the fastest is the
# row's figure. Other work on a shared machine only ever adds time, so the fastest run
# is the command's own cost; the median is printed beside it.
REPEAT = 5
REPEATED_UNDER = 10.0


def best_of(argv: Sequence[str], stop: float, folder: Path, repeat: int,
            by_wall: bool = False) -> tuple[Run, float]:
    """The fastest of ``repeat`` runs (any that did not finish, at once) and the median
    time (CPU, or wall with ``by_wall``)."""
    runs: list[Run] = []
    for _ in range(repeat):
        runs.append(run(argv, stop, folder))
        if not runs[-1].finished:
            return runs[-1], math.inf

    def key(r: Run) -> float:
        return r.wall if by_wall else r.cpu

    ordered = sorted(runs, key=key)
    return ordered[0], key(ordered[len(ordered) // 2])


def alternately(first: Sequence[str], second: Sequence[str], stop: float, folder: Path,
                repeat: int) -> tuple[Run, Run]:
    """The fastest of ``repeat`` runs of each of two commands, run by turns: a ratio of
    the two compares runs made on the same stretch of a shared machine."""
    runs: tuple[list[Run], list[Run]] = ([], [])
    for _ in range(repeat):
        for argv, made in zip((first, second), runs):
            made.append(run(argv, stop, folder))
            if not made[-1].finished:
                return runs[0][-1], made[-1]
    return min(runs[0], key=lambda r: r.cpu), min(runs[1], key=lambda r: r.cpu)


def timed_row(what: str, target_s: float, argv: Sequence[str], folder: Path,
              stop: float, repeat: int, memory_mb: float | None = None) -> Row:
    """A row judged by CPU time (and peak memory), run ``repeat`` times when its target
    is at most ``REPEATED_UNDER`` seconds, else once."""
    repeat = repeat if target_s <= REPEATED_UNDER else 1
    r, median = best_of(argv, stop, folder, repeat)
    target = f"< {target_s:g} s" + (f", < {memory_mb:,.0f} MB" if memory_mb else "")
    measured = seconds(r, stop) + (f", {r.rss_mb:,.0f} MB" if r.finished else "")
    if repeat > 1 and r.finished:
        measured += f"; fastest of {repeat}, median {median:.2f} s"
    return Row(what, target, measured, verdict(r, target_s, memory_mb))


# The bundled examples a user checks and derives every day, and their target (CPU s).
SEED_CHECKS = ("001-softmax-10-2-1", "000-cat-chases-mouse", "001-kocka-spi-venku")
DAILY_EXAMPLE = "000-cat-chases-mouse"
DAILY_TARGET = 1.0


def daily_rows(folder: Path, stop: float, repeat: int) -> Iterator[Row]:
    for example in SEED_CHECKS:
        yield timed_row(f"check --example {example}", DAILY_TARGET,
                        ["check", "--example", example], folder, stop, repeat)
    yield timed_row(f"derive -e {DAILY_EXAMPLE} (text)", DAILY_TARGET,
                    ["derive", "-e", DAILY_EXAMPLE], folder, stop, repeat)
    yield timed_row(f"derive -e {DAILY_EXAMPLE} --format latex", DAILY_TARGET,
                    ["derive", "-e", DAILY_EXAMPLE, "--format", "latex"], folder, stop,
                    repeat)


def chapter_row(folder: Path, stop: float, repeat: int) -> Row:
    spec = chapter_spec(folder)
    return timed_row(f"check of a chapter: {chapter_numbers(spec)} printed numbers "
                     f"(6 x 4 and 2 variants)", 0.5, ["check", str(spec), "-o", "chapter.txt"],
                     folder, stop, repeat)


def large_rows(folder: Path, stop: float, repeat: int) -> Iterator[Row]:
    spec = attention_spec(folder, 128, 64)
    text, as_json = alternately(["derive", str(spec), "-o", "t.txt"],
                                ["derive", str(spec), "-f", "json", "-o", "t.json"],
                                stop, folder, repeat)
    ratio = as_json.cpu / text.cpu if text.finished and as_json.finished else math.inf
    yield Row("derive --format json 128 x 64, against the text report",
              "within 2x", f"{ratio:.2f}x ({as_json.cpu:.2f} s against {text.cpu:.2f} s CPU"
              + (f"; fastest of {repeat} each)" if repeat > 1 else ")"),
              "met" if ratio <= 2 else "not met")
    yield timed_row("derive --format json 1024 x 64", 10, ["derive", str(
        attention_spec(folder, 1024, 64)), "-f", "json", "-o", "big.json"], folder, stop,
        repeat, memory_mb=500)
    yield timed_row("check, 24,576 claims (128 x 64)", 3,
                    ["check", str(claims_spec(folder, 128, 64)), "-o", "c.txt"], folder,
                    stop, repeat)


# The full test profile: judged by wall time on the machine's cores, stopped only when
# it hangs.
TESTS_TARGET = 240.0
TESTS_STOP = 1800.0


def minutes(wall: float) -> str:
    return f"{int(wall // 60)} min {wall % 60:02.0f} s"


def tests_row(folder: Path) -> Row:
    """``pytest --full -n auto --durations=15`` in the project folder, its wall time; the
    slowest tests and the summary line from its output go to standard error."""
    log = folder / "tests.log"
    r = run(["--full", "-n", "auto", "--durations=15"], TESTS_STOP, ROOT, module="pytest",
            by_wall=True, log=log)
    lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    slowest = next((k for k, line in enumerate(lines) if "slowest" in line), len(lines) - 1)
    sys.stderr.write("\n".join(lines[slowest:]) + "\n")
    what = f"full test profile, pytest --full -n auto ({os.cpu_count()} cores)"
    target = f"< {minutes(TESTS_TARGET)} wall"
    if r.status == -9:
        return Row(what, target, f"> {minutes(TESTS_STOP)} wall (stopped)", "not met")
    measured = f"{minutes(r.wall)} wall ({r.cpu:.0f} s CPU, every worker)"
    if r.status != 0:
        return Row(what, target, measured + f"; failed (status {r.status})", "not met")
    return Row(what, target, measured, "met" if r.wall <= TESTS_TARGET else "not met")


def all_rows(args: argparse.Namespace, folder: Path) -> Iterator[Row]:
    """The rows, each yielded as soon as it is measured."""
    stop, repeat = args.stop, args.repeat
    if not args.quick:
        yield from daily_rows(folder, stop, repeat)
        yield chapter_row(folder, stop, repeat)
        yield extract_row(folder, stop, repeat)
    yield from large_rows(folder, stop, repeat)
    if args.tests:
        yield tests_row(folder)


HEADER = "| what | target | measured | |\n|---|---|---|---|"


def markdown(row: Row) -> str:
    return f"| {row.what} | {row.target} | {row.measured} | {row.met} |"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="the large-matrix rows only (JSON and check)")
    parser.add_argument("--tests", action="store_true",
                        help="also the full test profile, pytest --full -n auto (minutes)")
    parser.add_argument("--repeat", type=int, default=REPEAT,
                        help=f"runs of each row whose target is at most {REPEATED_UNDER:g} s, "
                             f"the fastest counted (default {REPEAT}; the median is shown "
                             f"beside it)")
    parser.add_argument("--stop", type=float, default=120.0,
                        help="CPU seconds after which a row is stopped (default 120)")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores); "
          f"pace {pace():.2f} s", file=sys.stderr)
    print(HEADER, flush=True)
    with tempfile.TemporaryDirectory(prefix="symattn-bench-") as temporary:
        # pip compiles an installed package's modules; so does this, unmeasured
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "symattn")],
                       check=True, stdout=subprocess.DEVNULL)
        for row in all_rows(args, Path(temporary)):
            print(markdown(row), flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}; pace {pace():.2f} s", file=sys.stderr)
    return 0


def pace() -> float:
    """CPU seconds of a fixed piece of pure Python (the fastest of three): the machine's
    speed at the moment, beside the rows (0.31 s in the run of docs/performance.md, more
    on a busy stretch)."""
    def once() -> float:
        start = time.process_time()
        total = 0
        for k in range(10_000_000):
            total += k % 7
        return time.process_time() - start

    return min(once() for _ in range(3))


if __name__ == "__main__":
    raise SystemExit(main())
