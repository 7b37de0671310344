#!/usr/bin/env python
"""symattn against numpy float64 and naive SymPy, side by side in one process.

    python benchmarks/bench.py                 # full grid (takes a while)
    python benchmarks/bench.py --quick         # a few seconds' smoke run
    python benchmarks/bench.py --sizes 16 64 --dims 16 --markdown
    python benchmarks/bench.py --profile 128,64 --profile 1024,64:16
    python benchmarks/bench.py --startup       # only the start-up times

Every case draws its own seeded inputs: entries are random two-digit decimals
in [-1, 1], given as strings ("-0.37"), with a causal mask. The same numbers
go to all three contenders:

* numpy: float64 ``Q K^T / sqrt(d)``, causal mask of -inf, max-shifted softmax,
  ``@ V``. Inputs are converted to float64 and the boolean mask is built before
  the clock starts (as a model keeps a mask buffer); the median of repeats.
  BLAS runs on one thread (``--numpy-threads``), as symattn does; "np+parse"
  also times ``np.array(strings, float64)``; "np+print" is the forward pass
  followed by writing every weight and output entry with 6 significant digits
  (``"%.6g" % x``): the same deliverable as symattn's, without the proof.
* naive SymPy: ``sympy.Matrix`` of ``Rational``, the same computation done
  symbolically (unshifted ``exp``), then ``evalf(6)`` of every weight and
  output entry. Matrices are built before the clock starts. It runs only
  where it is predicted (cost ~ n^3 d, scaled from the largest run so far) to
  fit the remaining naive budget (60 s per invocation, one alarm-enforced
  limit); otherwise "-".
* symattn: ``Problem.from_mapping`` from the strings ("build", reported on its
  own), then ``derive`` and 6 significant certified digits of EVERY entry of
  the weights and the output ("symattn" = derive + certified decimals), by
  ``NumberFormat(digits=6).format_block`` over each grid (the batch path the
  renderers use; ``--certify entry`` times ``NumberFormat.format(grid.exact(i,
  j))`` entry by entry instead). Eight
  heads (n x d_model input X, per-head blocks of W_Q, W_K, W_V) are eight
  single-head problems, projections included, since symattn has no multi-head
  API yet; each is built, derived and certified, then released, in turn. A case predicted
  to exceed ``--budget`` seconds certifies every k-th
  row only and is extrapolated; such times are marked "~".

Every certified decimal computed is compared with numpy (within half a unit of
its last digit, plus float64's error), so a fast wrong answer is noticed.

Times are wall-clock (perf_counter) unless ``--clock cpu``: on a shared machine
the CPU seconds of this process are the steadier figure (every contender runs
on one thread here), though CPU time still grows somewhat under heavy load.

Memory: "peak RSS" is the growth of the process's resident set during the
symattn run (Linux VmHWM after resetting it through /proc/self/clear_refs,
minus VmRSS at the start, after gc and malloc_trim), so it does count flint's
C allocations; "py heap" is the tracemalloc peak of a second, traced run of
the same case (Python allocations only: flint's limbs and matrices are not
seen), done only when the untraced run took at most ``--trace-limit`` s.
"""

from __future__ import annotations

import argparse
import cProfile
import ctypes
import gc
import io
import json
import math
import os
import platform
import pstats
import random
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import time
import tracemalloc
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _numpy_threads_from_argv(argv: Sequence[str]) -> str:
    """The --numpy-threads value, read before numpy is imported (default 1)."""
    for k, arg in enumerate(argv):
        if arg == "--numpy-threads" and k + 1 < len(argv):
            return argv[k + 1]
        if arg.startswith("--numpy-threads="):
            return arg.split("=", 1)[1]
    return "1"


NUMPY_THREADS = _numpy_threads_from_argv(sys.argv[1:])
if NUMPY_THREADS != "0":
    # symattn uses one core; so does numpy here unless told otherwise. It also keeps
    # OpenBLAS's thread hand-offs from stalling when the machine is busy.
    for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[_name] = NUMPY_THREADS

import numpy as np  # noqa: E402
import sympy  # noqa: E402

import symattn  # noqa: E402
from symattn import NumberFormat, Problem, derive  # noqa: E402

DIGITS = 6
FORMAT = NumberFormat(digits=DIGITS)

# Wall time by default. On a shared machine "--clock cpu" times CPU seconds of
# this process instead: every contender is single-threaded here (numpy on one
# BLAS thread), so on an idle machine the two agree.
CLOCK_NAME = "wall"
clock: Callable[[], float] = time.perf_counter


def set_clock(name: str) -> None:
    global CLOCK_NAME, clock
    CLOCK_NAME = name
    clock = time.process_time if name == "cpu" else time.perf_counter


# --------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class Case:
    n: int
    d: int            # head dimension d_k
    heads: int = 1

    @property
    def d_model(self) -> int:
        return self.d * self.heads

    @property
    def label(self) -> str:
        return f"n={self.n} d={self.d} heads={self.heads}"


@dataclass
class Inputs:
    """The strings every contender starts from."""

    case: Case
    q: list[list[str]] | None = None            # single head: Q, K, V given directly
    k: list[list[str]] | None = None
    v: list[list[str]] | None = None
    x: list[list[str]] | None = None            # multi-head: X and the W blocks
    w: dict[str, list[list[str]]] = field(default_factory=dict)   # n_model x (heads*d)


def _decimals(rng: random.Random, rows: int, cols: int) -> list[list[str]]:
    return [[f"{rng.randint(-100, 100) / 100:.2f}" for _ in range(cols)] for _ in range(rows)]


def make_inputs(case: Case, seed: int) -> Inputs:
    rng = random.Random(f"symattn-bench-{seed}-{case.n}-{case.d}-{case.heads}")
    if case.heads == 1:
        return Inputs(case, q=_decimals(rng, case.n, case.d), k=_decimals(rng, case.n, case.d),
                      v=_decimals(rng, case.n, case.d))
    x = _decimals(rng, case.n, case.d_model)
    w = {name: _decimals(rng, case.d_model, case.d_model) for name in ("W_Q", "W_K", "W_V")}
    return Inputs(case, x=x, w=w)


def _block(matrix: list[list[str]], head: int, d: int) -> list[list[str]]:
    return [row[head * d:(head + 1) * d] for row in matrix]


def problem_mappings(inputs: Inputs) -> list[dict[str, Any]]:
    case = inputs.case
    options = {"mask": "causal"}
    if case.heads == 1:
        return [{"inputs": {"Q": inputs.q, "K": inputs.k, "V": inputs.v}, "options": options}]
    # One multi-head problem: X is read once, the projections split into head blocks.
    return [{"inputs": {"X": inputs.x, **{name: inputs.w[name]
                                          for name in ("W_Q", "W_K", "W_V")}},
             "options": {**options, "heads": case.heads}}]


# ---------------------------------------------------------------------- numpy
def numpy_prepare(inputs: Inputs) -> tuple[Callable[[], tuple[np.ndarray, np.ndarray]],
                                           Callable[[], tuple[np.ndarray, np.ndarray]]]:
    """(forward on prepared float64 arrays, the same from the input strings)."""
    case = inputs.case
    n, d, h = case.n, case.d, case.heads
    mask = np.tril(np.ones((n, n), dtype=bool))
    scale = 1.0 / math.sqrt(d)

    def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        scores = (q @ np.swapaxes(k, -1, -2)) * scale
        scores = np.where(mask, scores, -np.inf)
        scores = scores - scores.max(axis=-1, keepdims=True)
        exp = np.exp(scores)
        weights = exp / exp.sum(axis=-1, keepdims=True)
        return weights, weights @ v

    def floats(matrix: list[list[str]] | None) -> np.ndarray:
        return np.array(matrix, dtype=np.float64)

    if h == 1:
        q, k, v = floats(inputs.q), floats(inputs.k), floats(inputs.v)
        return (lambda: attention(q, k, v)), \
            (lambda: attention(floats(inputs.q), floats(inputs.k), floats(inputs.v)))

    def split(m: np.ndarray) -> np.ndarray:      # (n, h*d) -> (h, n, d)
        return m.reshape(n, h, d).transpose(1, 0, 2)

    def multi_head(x: np.ndarray, wq: np.ndarray, wk: np.ndarray, wv: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
        return attention(split(x @ wq), split(x @ wk), split(x @ wv))

    x = floats(inputs.x)
    wq, wk, wv = (floats(inputs.w[name]) for name in ("W_Q", "W_K", "W_V"))
    return (lambda: multi_head(x, wq, wk, wv)), \
        (lambda: multi_head(floats(inputs.x), *(floats(inputs.w[name])
                                                for name in ("W_Q", "W_K", "W_V"))))


def numpy_printed(forward: Callable[[], tuple[np.ndarray, np.ndarray]]
                  ) -> Callable[[], tuple[list[str], list[str]]]:
    """The forward pass, then every weight and output entry written with DIGITS
    significant digits: what symattn delivers, done the plain float way."""
    pattern = f"%.{DIGITS}g"

    def run() -> tuple[list[str], list[str]]:
        weights, output = forward()
        return ([pattern % x for x in weights.ravel().tolist()],
                [pattern % x for x in output.ravel().tolist()])

    return run


def time_numpy(fn: Callable[[], Any], min_total: float = 0.3, min_repeats: int = 5,
               max_repeats: int = 2000) -> float:
    """Median seconds of one call, repeating until ``min_total`` seconds pass."""
    fn()  # warm
    times: list[float] = []
    spent = 0.0
    while len(times) < min_repeats or (spent < min_total and len(times) < max_repeats):
        start = clock()
        fn()
        elapsed = clock() - start
        times.append(elapsed)
        spent += elapsed
    return statistics.median(times)


# ----------------------------------------------------------------- agreement
def _last_unit(text: str) -> float:
    """The value of one unit in the last printed digit: '0.0123' -> 1e-4, '1.50e-7' -> 1e-9."""
    mantissa, _, exponent = text.lower().partition("e")
    places = len(mantissa.partition(".")[2])
    return 10.0 ** ((int(exponent) if exponent else 0) - places)


def _agrees(text: str | None, reference: float) -> bool:
    """A certified decimal against a float64 value: within half a unit of its last
    digit, plus float64's own error (1e-10 relative, 1e-13 absolute, generously)."""
    if text is None:
        return False
    value = float(text)
    allowed = 0.5 * _last_unit(text) * (1 + 1e-9) + 1e-10 * abs(reference) + 1e-13
    return abs(value - reference) <= allowed


def check_against(decimals: Sequence[tuple[int, list[str | None], list[str | None]]],
                  weights: np.ndarray, output: np.ndarray) -> tuple[int, int]:
    """(entries compared, entries that disagree)."""
    compared = bad = 0
    for i, w_row, o_row in decimals:
        for j, text in enumerate(w_row):
            compared += 1
            bad += not _agrees(text, float(weights[i, j]))
        for j, text in enumerate(o_row):
            compared += 1
            bad += not _agrees(text, float(output[i, j]))
    return compared, bad


# ----------------------------------------------------------------- naive SymPy
class NaiveTimeout(BaseException):
    """Raised by the alarm; a BaseException so SymPy's ``except Exception`` lets it by."""


def naive_prepare(inputs: Inputs) -> Callable[[], tuple[list[list[Any]], list[list[Any]]]]:
    case = inputs.case
    n, d, h = case.n, case.d, case.heads

    def rat(matrix: list[list[str]]) -> sympy.Matrix:
        return sympy.Matrix([[sympy.Rational(s) for s in row] for row in matrix])

    if h == 1:
        heads = [(rat(inputs.q), rat(inputs.k), rat(inputs.v), None)]
    else:
        x = rat(inputs.x)
        heads = [(x, None, None, {name: rat(_block(inputs.w[name], i, d))
                                  for name in ("W_Q", "W_K", "W_V")}) for i in range(h)]

    def run() -> tuple[list[list[Any]], list[list[Any]]]:
        all_w: list[list[Any]] = []
        all_o: list[list[Any]] = []
        for first, k, v, w in heads:
            if w is not None:
                q, k, v = first * w["W_Q"], first * w["W_K"], first * w["W_V"]
            else:
                q = first
            scores = q * k.T / sympy.sqrt(d)
            weights = sympy.zeros(n, n)
            for i in range(n):
                exps = [sympy.exp(scores[i, j]) for j in range(i + 1)]   # causal
                total = sympy.Add(*exps)
                for j in range(i + 1):
                    weights[i, j] = exps[j] / total
            output = weights * v
            all_w += [[weights[i, j].evalf(DIGITS) for j in range(n)] for i in range(n)]
            all_o += [[output[i, j].evalf(DIGITS) for j in range(d)] for i in range(n)]
        return all_w, all_o

    return run


def run_naive(inputs: Inputs, limit: float) -> tuple[float | None, bool]:
    """(seconds, timed_out). The alarm stops the run after ``limit`` seconds."""
    from sympy.core.cache import clear_cache

    clear_cache()
    run = naive_prepare(inputs)

    def on_alarm(signum: int, frame: Any) -> None:
        raise NaiveTimeout

    which, signum = ((signal.ITIMER_PROF, signal.SIGPROF) if CLOCK_NAME == "cpu"
                     else (signal.ITIMER_REAL, signal.SIGALRM))
    previous = signal.signal(signum, on_alarm)
    start = clock()
    try:
        signal.setitimer(which, max(limit, 0.01))
        run()
        elapsed = clock() - start
        signal.setitimer(which, 0)
        return elapsed, False
    except NaiveTimeout:
        return clock() - start, True
    finally:
        signal.setitimer(which, 0)
        signal.signal(signum, previous)
        clear_cache()
        gc.collect()


# ------------------------------------------------------------------- memory
_LIBC: Any = None


def _malloc_trim() -> None:
    global _LIBC
    try:
        if _LIBC is None:
            _LIBC = ctypes.CDLL("libc.so.6")
        _LIBC.malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _status_kib(key: str) -> int | None:
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class PeakRSS:
    """Growth of the resident set during a block, in MiB (see module docstring)."""

    def __init__(self) -> None:
        self.mib: float | None = None
        self.method = "none"

    def __enter__(self) -> PeakRSS:
        gc.collect()
        _malloc_trim()
        try:
            with open("/proc/self/clear_refs", "w") as handle:
                handle.write("5")          # resets VmHWM to the current RSS
            self.method = "VmHWM"
            self.base = _status_kib("VmRSS") or 0
        except OSError:
            self.method = "ru_maxrss"      # lower bound: only growth past the old maximum
            self.base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return self

    def __exit__(self, *exc: object) -> None:
        if self.method == "VmHWM":
            peak = _status_kib("VmHWM")
            self.mib = None if peak is None else (peak - self.base) / 1024
        else:
            self.mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - self.base) / 1024


# ------------------------------------------------------------------- symattn
@dataclass
class SymattnRun:
    build: float
    derive: float
    certify: float                      # extrapolated when rows were sampled
    rows: int                           # rows certified per head
    stride: int                         # 1 = every row
    decimals: list[tuple[int, list[str | None], list[str | None]]]   # per head, stacked

    @property
    def total(self) -> float:           # derive + certified decimals
        return self.derive + self.certify


CERTIFY = "block"     # set by --certify


def certify_rows(derivation: Any, rows: Sequence[int], prefix: str = ""
                 ) -> list[tuple[int, list[str | None], list[str | None]]]:
    """Certified decimals of every weight and output entry of ``rows``.

    ``block``: ``NumberFormat.format_block`` (one batch of balls per grid, what
    symattn's renderers use); ``entry``: ``NumberFormat.format(grid.exact(i, j))``
    entry by entry.
    """
    weights = derivation[prefix + "weights"].value
    output = derivation[prefix + "output"].value
    if CERTIFY == "block":
        w_block = FORMAT.format_block(weights, rows, range(weights.shape[1]))
        o_block = FORMAT.format_block(output, rows, range(output.shape[1]))
        return [(i, list(w), list(o)) for i, w, o in zip(rows, w_block, o_block)]
    fmt = FORMAT.format
    result = []
    for i in rows:
        result.append((i, [fmt(weights.exact(i, j)) for j in range(weights.shape[1])],
                       [fmt(output.exact(i, k)) for k in range(output.shape[1])]))
    return result


def sampled_rows(n: int, stride: int) -> list[int]:
    """Every ``stride``-th row, centred, so causal row lengths average out."""
    return list(range(min(stride // 2, n - 1), n, stride)) if stride > 1 else list(range(n))


def run_symattn(inputs: Inputs, stride: int = 1) -> SymattnRun:
    """Head by head: build the Problem, derive, certify, then let both go."""
    mappings = problem_mappings(inputs)
    n = inputs.case.n
    rows = sampled_rows(n, stride)
    build = derive_time = certify_time = 0.0
    decimals: list[tuple[int, list[str | None], list[str | None]]] = []
    for mapping in mappings:
        start = clock()
        problem = Problem.from_mapping(mapping)
        built = clock()
        derivation = derive(problem)
        middle = clock()
        heads = inputs.case.heads
        for head in range(heads):
            prefix = f"head{head + 1}." if heads > 1 else ""
            part = certify_rows(derivation, rows, prefix)
            decimals += [(head * n + i, w, o) for i, w, o in part]
        end = clock()
        build += built - start
        derive_time += middle - built
        certify_time += end - middle
        del derivation, problem
    certify_time *= n / len(rows)
    return SymattnRun(build, derive_time, certify_time, len(rows), stride, decimals)


def traced_heap_mib(inputs: Inputs) -> float:
    gc.collect()
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        run_symattn(inputs)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


# -------------------------------------------------------------------- results
@dataclass
class Row:
    n: int
    d: int
    heads: int
    numpy_ms: float
    numpy_parse_ms: float
    numpy_print_ms: float
    symattn_ms: float
    build_ms: float
    symattn_estimated: bool
    stride: int
    naive_s: float | None
    naive_note: str                     # "", "timeout", "skipped"
    peak_rss_mib: float | None
    py_heap_mib: float | None
    compared: int
    disagree: int

    @property
    def symattn_over_numpy(self) -> float:
        return self.symattn_ms / self.numpy_ms

    @property
    def symattn_over_printed(self) -> float:
        return self.symattn_ms / self.numpy_print_ms

    @property
    def naive_over_symattn(self) -> float | None:
        if self.naive_s is None or self.naive_note:
            return None
        return self.naive_s * 1000 / self.symattn_ms


def _fmt_ms(value: float) -> str:
    if value >= 1000:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def _fmt_ratio(value: float | None) -> str:
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:,.0f}x"
    return f"{value:.2f}x" if value < 10 else f"{value:.1f}x"


def table_cells(rows: list[Row]) -> tuple[list[str], list[list[str]]]:
    header = ["n", "d", "heads", "numpy ms", "np+parse ms", "np+print ms", "symattn ms",
              "build ms", "naive s", "symattn/numpy", "symattn/np+print", "naive/symattn",
              "peak RSS MB", "py heap MB", "agree"]
    body = []
    for r in rows:
        mark = "~" if r.symattn_estimated else ""
        if r.naive_note == "timeout":
            naive = f">{r.naive_s:.0f}"
        elif r.naive_s is None:
            naive = "-"
        else:
            naive = f"{r.naive_s:.2f}" if r.naive_s < 10 else f"{r.naive_s:.1f}"
        agree = "yes" if r.disagree == 0 else f"NO ({r.disagree}/{r.compared})"
        if r.stride > 1:
            agree += f" (rows 1/{r.stride})"
        body.append([str(r.n), str(r.d), str(r.heads), _fmt_ms(r.numpy_ms),
                     _fmt_ms(r.numpy_parse_ms), _fmt_ms(r.numpy_print_ms),
                     mark + _fmt_ms(r.symattn_ms), _fmt_ms(r.build_ms), naive,
                     mark + _fmt_ratio(r.symattn_over_numpy),
                     mark + _fmt_ratio(r.symattn_over_printed),
                     (mark if r.naive_over_symattn is not None else "")
                     + _fmt_ratio(r.naive_over_symattn),
                     "-" if r.peak_rss_mib is None else f"{mark}{r.peak_rss_mib:.1f}",
                     "-" if r.py_heap_mib is None else f"{r.py_heap_mib:.1f}", agree])
    return header, body


def render_text(header: list[str], body: list[list[str]]) -> str:
    widths = [max(len(header[c]), *(len(row[c]) for row in body)) for c in range(len(header))]
    lines = ["  ".join(h.rjust(w) for h, w in zip(header, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(cell.rjust(w) for cell, w in zip(row, widths)) for row in body]
    return "\n".join(lines)


def render_markdown(header: list[str], body: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" for _ in header) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in body]
    return "\n".join(lines)


def targets(rows: list[Row]) -> list[str]:
    def find(n: int, d: int, heads: int) -> Row | None:
        return next((r for r in rows if (r.n, r.d, r.heads) == (n, d, heads)), None)

    out = []

    def verdict(ok: bool, estimated: bool) -> str:
        return ("PASS" if ok else "FAIL") + (" (estimated)" if estimated else "")

    r = find(128, 64, 1)
    if r:
        both = (r.build_ms + r.symattn_ms) / r.numpy_parse_ms
        out.append(f"n=128 d=64 1 head, target <= 8x numpy: against numpy's arithmetic alone "
                   f"{r.symattn_over_numpy:,.0f}x: "
                   f"{verdict(r.symattn_over_numpy <= 8, r.symattn_estimated)}; against numpy "
                   f"that also writes the decimals (np+print) {r.symattn_over_printed:,.1f}x: "
                   f"{verdict(r.symattn_over_printed <= 8, r.symattn_estimated)}; "
                   f"both from the strings (build + symattn vs np+parse) {both:,.0f}x")
    r = find(1024, 64, 1)
    if r:
        whole = r.symattn_ms + r.build_ms
        out.append(f"n=1024 d=64 1 head, target < 1.5 s: derive + certify "
                   f"{r.symattn_ms / 1000:,.2f} s: "
                   f"{verdict(r.symattn_ms < 1500, r.symattn_estimated)}; with building the "
                   f"Problem {whole / 1000:,.2f} s: {verdict(whole < 1500, r.symattn_estimated)}")
    r = find(64, 16, 1)
    if r:
        ratio = r.naive_over_symattn
        if ratio is None:
            out.append("n=64 d=16 1 head: naive SymPy not measured (over its budget), "
                       "target >= 1000x faster: UNKNOWN")
        else:
            out.append(f"n=64 d=16 1 head: naive/symattn = {ratio:,.0f}x (target >= 1000x): "
                       f"{verdict(ratio >= 1000, r.symattn_estimated)}")
    r = find(512, 64, 8)
    if r:
        whole = r.symattn_ms + r.build_ms
        out.append(f"8 heads n=512 d_model=512 (projections included), target < 10 s: derive + "
                   f"check {r.symattn_ms / 1000:,.2f} s: "
                   f"{verdict(r.symattn_ms < 10_000, r.symattn_estimated)}; with building the "
                   f"8 Problems from the strings ({r.build_ms / 1000:.2f} s) "
                   f"{whole / 1000:,.2f} s: "
                   f"{verdict(whole < 10_000, r.symattn_estimated)}")
    return out


# -------------------------------------------------------------------- driver
def header_lines(args: argparse.Namespace) -> list[str]:
    blas = {k: os.environ.get(k, "<unset>") for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE",
                                                      "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    import flint

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return [
        f"symattn {symattn.__version__} ({Path(symattn.__file__).parent}), python-flint "
        f"{flint.__version__}, numpy {np.__version__}, sympy {sympy.__version__}, "
        f"Python {platform.python_version()}",
        f"CPU: {cpu}, {os.cpu_count()} logical CPUs, load average {os.getloadavg()[0]:.2f} "
        "at start; " + ", ".join(f"{k}={v}" for k, v in blas.items())
        + ("" if NUMPY_THREADS == "0" else f" (thread counts set by --numpy-threads "
           f"{NUMPY_THREADS})"),
        f"symattn source: {_provenance()}",
        f"inputs: seeded (seed {args.seed}) random 2-digit decimals in [-1, 1] as strings, "
        "causal mask; symattn certifies every weight and output entry to "
        f"{DIGITS} significant digits with "
        + ("NumberFormat.format_block (batch)" if args.certify == "block"
           else "NumberFormat.format(grid.exact(i, j)) per entry"),
        "numpy ms: median float64 forward (inputs and mask prepared beforehand); np+parse ms: "
        "the same including np.array(strings, float64); symattn ms: "
        "derive + certified decimals; build ms: symattn Problem.from_mapping from the strings "
        "(not in the ratios); naive s: SymPy Matrix of Rationals + evalf (matrices built "
        f"beforehand; '-' = predicted over the {args.naive_budget:.0f} s naive budget, "
        "'>N' = stopped at N s)",
        f"~ = symattn over the {args.budget:.0f} s budget: every k-th row certified "
        "(derive in full), certification time extrapolated to all rows; its peak RSS is "
        "that of the sampled run (a lower bound)",
        "peak RSS MB: growth of process VmHWM during the symattn run (reset via "
        "/proc/self/clear_refs; counts flint's C memory); py heap MB: tracemalloc peak of a "
        f"second traced run (Python objects only), only when the run took <= "
        f"{args.trace_limit:.0f} s",
        "agree: every certified decimal matches numpy float64 to its 6 significant digits",
        f"clock: {args.clock}" + (" (CPU seconds of this process, not wall time)"
                                  if args.clock == "cpu" else " (perf_counter)"),
    ]


def _provenance() -> str:
    """The git commit of the symattn being timed, and whether it has local changes."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                              capture_output=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "symattn"], cwd=ROOT,
                               text=True, capture_output=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"
    return f"git {head}" + (f" + uncommitted changes in {len(dirty)} symattn/ files"
                            if dirty else " (clean)")


def predict_symattn(case: Case, done: list[tuple[Case, float]]) -> float | None:
    """Seconds for derive + certify, scaled ~n^3 from the nearest smaller run."""
    same = sorted((c.n, t) for c, t in done if c.d == case.d and c.heads == 1 and c.n <= case.n)
    if not same:
        return None
    n0, seconds = same[-1]
    exponent = 3.0
    if len(same) >= 2 and same[-2][0] < n0 and same[-2][1] > 0:
        n1, t1 = same[-2]
        exponent = min(3.0, max(2.0, math.log(seconds / t1) / math.log(n0 / n1)))
    return seconds * (case.n / n0) ** exponent * case.heads


def predict_naive(case: Case, done: list[tuple[Case, float]]) -> float | None:
    """Seconds, scaled ~n^3 d (times heads) from the costliest naive run so far."""
    if not done:
        return None
    base, seconds = max(done, key=lambda item: item[0].n ** 3 * item[0].d_model)
    return seconds * (case.n / base.n) ** 3 * (case.d * case.heads) / (base.d * base.heads)


def run_case(case: Case, args: argparse.Namespace, symattn_done: list[tuple[Case, float]],
             naive_done: list[tuple[Case, float]], naive_left: list[float]) -> Row:
    inputs = make_inputs(case, args.seed)
    fn, from_strings = numpy_prepare(inputs)
    numpy_seconds = time_numpy(fn)
    numpy_parse_seconds = time_numpy(from_strings)
    numpy_print_seconds = time_numpy(numpy_printed(fn), min_total=0.2, max_repeats=50)
    np_weights, np_output = fn()
    if case.heads > 1:   # (h, n, *) -> stacked (h*n, *) to match the decimals' row numbers
        np_weights = np_weights.reshape(case.heads * case.n, case.n)
        np_output = np_output.reshape(case.heads * case.n, case.d)

    predicted = predict_symattn(case, symattn_done)
    stride = 1
    if args.budget > 0 and predicted is not None and predicted > args.budget:
        stride = max(2, math.ceil(predicted / (0.5 * args.budget)))
        stride = min(stride, case.n)
    with PeakRSS() as memory:
        run = run_symattn(inputs, stride)
    compared, bad = check_against(run.decimals, np_weights, np_output)
    del run.decimals[:]
    if stride == 1 and case.heads == 1:
        symattn_done.append((case, run.total))
    heap = None
    if stride == 1 and run.build + run.total <= args.trace_limit:
        heap = traced_heap_mib(inputs)

    naive_seconds: float | None = None
    note = "skipped"
    allowed = case.heads == 1 or args.naive_multihead
    if allowed and (not args.quick or (case.n, case.d, case.heads) == (16, 16, 1)):
        guess = predict_naive(case, naive_done)
        left = naive_left[0]
        if left > 1 and (guess is None or guess <= 1.5 * left):
            naive_seconds, timed_out = run_naive(inputs, left)
            naive_left[0] -= naive_seconds
            note = "timeout" if timed_out else ""
            if not timed_out:
                naive_done.append((case, naive_seconds))
    if note == "skipped":
        naive_seconds = None
    return Row(case.n, case.d, case.heads, numpy_seconds * 1000, numpy_parse_seconds * 1000,
               numpy_print_seconds * 1000, run.total * 1000,
               run.build * 1000, stride > 1, stride, naive_seconds, note, memory.mib, heap,
               compared, bad)


def profile(spec: str, args: argparse.Namespace, out: Callable[[str], None]) -> None:
    """``N,D`` or ``N,D:STRIDE``: cProfile of one symattn single-head run."""
    shape, _, stride_text = spec.partition(":")
    n, d = (int(part) for part in shape.split(","))
    stride = int(stride_text) if stride_text else 1
    inputs = make_inputs(Case(n, d), args.seed)
    run_symattn(make_inputs(Case(4, 2), args.seed))          # warm imports
    profiler = cProfile.Profile(clock)
    start = clock()
    profiler.enable()
    run = run_symattn(inputs, stride)
    profiler.disable()
    wall = clock() - start
    rows = "every row" if stride == 1 else f"every {stride}th row ({run.rows} rows), " \
        "certification extrapolated x" + f"{n / run.rows:.0f} in the unprofiled figure"
    out(f"\n## cProfile: symattn n={n} d={d}, 1 head, {rows}")
    out(f"profiled {CLOCK_NAME} time {wall:.2f} s (build {run.build:.2f} s, "
        f"derive {run.derive:.2f} s, "
        f"certify {run.certify * run.rows / n:.2f} s as profiled)")
    buffer = io.StringIO()
    stats = pstats.Stats(profiler, stream=buffer)
    stats.strip_dirs().sort_stats("cumulative").print_stats(args.profile_top)
    text = buffer.getvalue()
    body = text[text.find("ncalls") - 3:] if "ncalls" in text else text
    out("```\n" + body.rstrip() + "\n```")
    buffer = io.StringIO()
    stats = pstats.Stats(profiler, stream=buffer)
    stats.strip_dirs().sort_stats("tottime").print_stats(args.profile_top)
    text = buffer.getvalue()
    body = text[text.find("ncalls") - 3:] if "ncalls" in text else text
    out(f"top {args.profile_top} by own (tottime) time:")
    out("```\n" + body.rstrip() + "\n```")
    out(phase_breakdown(inputs, stride))


def phase_breakdown(inputs: Inputs, stride: int = 1) -> str:
    """Unprofiled phases, since cProfile inflates many small calls: building, deriving,
    the ball evaluation (``grid.balls``) and the whole ``format_block``."""
    n = inputs.case.n
    rows = sampled_rows(n, stride)
    mapping = problem_mappings(inputs)[0]
    start = clock()
    problem = Problem.from_mapping(mapping)
    built = clock()
    derivation = derive(problem)
    derived = clock()
    parts = [f"build {built - start:.3f}", f"derive {derived - built:.3f}"]
    weights, output = derivation["weights"].value, derivation["output"].value
    if CERTIFY == "block" and hasattr(weights, "balls"):
        from symattn.values.decimals import start_precision

        prec = start_precision(DIGITS, 0)          # as format_block asks for digits
        begin = clock()
        weights.balls(prec, rows, range(n))
        middle = clock()
        output.balls(prec, rows, range(output.shape[1]))
        end = clock()
        parts += [f"weights.balls {middle - begin:.3f}",
                  f"output.balls (weight rows cached) {end - middle:.3f}"]
        derivation = derive(problem)             # fresh caches for the full certification
        weights, output = derivation["weights"].value, derivation["output"].value
    begin = clock()
    certify_rows(derivation, rows)
    end = clock()
    parts.append(f"certify ({CERTIFY}) {end - begin:.3f}")
    return f"unprofiled {CLOCK_NAME} seconds: " + ", ".join(parts)


def startup(out: Callable[[str], None]) -> None:
    python = sys.executable
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    commands = [
        ("import sympy", [python, "-c", "import sympy"]),
        ("symattn --version", [python, "-m", "symattn", "--version"]),
        ("symattn derive --example 000-cat-chases-mouse",
         [python, "-m", "symattn", "derive", "--example", "000-cat-chases-mouse"]),
        ("python -c pass (baseline)", [python, "-c", "pass"]),
    ]
    out("\n## Start-up")
    hyperfine = shutil.which("hyperfine")
    if hyperfine:
        export = Path("/tmp") / f"symattn-bench-hyperfine-{os.getpid()}.json"
        argv = [hyperfine, "--warmup", "2", "--runs", "10", "-N", "--export-json", str(export)]
        for name, command in commands:
            argv += ["-n", name, " ".join(_quote(c) for c in command)]
        subprocess.run(argv, env=env, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
        results = json.loads(export.read_text())["results"]
        export.unlink()
        out("hyperfine (10 runs after 2 warm-ups, no shell), cwd = repo root:")
        for (name, _), result in zip(commands, results):
            out(f"  {name:48s} {result['mean'] * 1000:8.1f} ms +- "
                f"{result['stddev'] * 1000:5.1f} (min {result['min'] * 1000:.1f})")
    else:
        out("hyperfine not found: 10 runs each after 1 warm-up, perf_counter around "
            "subprocess.run, cwd = repo root:")
        for name, command in commands:
            subprocess.run(command, env=env, cwd=ROOT, check=True, capture_output=True)
            times = []
            for _ in range(10):
                start = time.perf_counter()
                subprocess.run(command, env=env, cwd=ROOT, check=True, capture_output=True)
                times.append(time.perf_counter() - start)
            out(f"  {name:48s} {statistics.mean(times) * 1000:8.1f} ms +- "
                f"{statistics.stdev(times) * 1000:5.1f} (min {min(times) * 1000:.1f})")
    out("CPU time (user + sys of the child, getrusage RUSAGE_CHILDREN; insensitive to other "
        "load), 10 runs after 1 warm-up:")
    for name, command in commands:
        subprocess.run(command, env=env, cwd=ROOT, check=True, capture_output=True)
        cpu = []
        for _ in range(10):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run(command, env=env, cwd=ROOT, check=True, capture_output=True)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        out(f"  {name:48s} {statistics.mean(cpu) * 1000:8.1f} ms +- "
            f"{statistics.stdev(cpu) * 1000:5.1f} (min {min(cpu) * 1000:.1f})")


def _quote(text: str) -> str:
    import shlex

    return shlex.quote(text)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true",
                        help="n in {16, 64, 128}, eight heads only at n=64 d=16, naive only "
                             "at 16x16")
    parser.add_argument("--sizes", type=int, nargs="+", metavar="N",
                        help="sequence lengths (default 16 64 128 512 1024)")
    parser.add_argument("--dims", type=int, nargs="+", metavar="D",
                        help="head dimensions (default 16 64)")
    parser.add_argument("--heads8", type=int, nargs="*", metavar="N",
                        help="sequence lengths of the eight-head runs (default 512, with "
                             "d=64 so d_model=512); give no value for none")
    parser.add_argument("--heads8-dim", type=int, default=None, metavar="D",
                        help="head dimension of the eight-head runs (default 64)")
    parser.add_argument("--numpy-threads", default="1", metavar="N",
                        help="BLAS threads for numpy, set before numpy is imported (default 1, "
                             "like symattn; 0 leaves the library default)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall (default) or this process's CPU time, for busy machines")
    parser.add_argument("--certify", choices=("block", "entry"), default="block",
                        help="block (default): NumberFormat.format_block per grid; entry: "
                             "NumberFormat.format(grid.exact(i, j)) for each entry")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget", type=float, default=120.0, metavar="S",
                        help="symattn seconds per case before rows are sampled (0: never)")
    parser.add_argument("--naive-budget", type=float, default=60.0, metavar="S",
                        help="total seconds for naive SymPy in this invocation")
    parser.add_argument("--naive-multihead", action="store_true",
                        help="also try naive SymPy on eight-head cases")
    parser.add_argument("--trace-limit", type=float, default=5.0, metavar="S",
                        help="run the tracemalloc pass only for cases this fast")
    parser.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    parser.add_argument("--json", metavar="PATH", help="also write the rows as JSON")
    parser.add_argument("--profile", action="append", default=[], metavar="N,D[:STRIDE]",
                        help="cProfile a single-head symattn run (every STRIDE-th row) "
                             "instead of the table; repeatable")
    parser.add_argument("--profile-top", type=int, default=15)
    parser.add_argument("--startup", action="store_true",
                        help="time process start-up (sympy import, symattn --version, "
                             "symattn derive) instead of the table")
    parser.add_argument("--with-startup", action="store_true",
                        help="the table, then the start-up times")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes = args.sizes or [16, 64, 128]
        args.heads8 = [64] if args.heads8 is None else args.heads8
        args.heads8_dim = args.heads8_dim or 16
        args.trace_limit = min(args.trace_limit, 1.0)
    args.sizes = args.sizes or [16, 64, 128, 512, 1024]
    args.dims = args.dims or [16, 64]
    args.heads8 = [512] if args.heads8 is None else args.heads8
    args.heads8_dim = args.heads8_dim or 64
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    set_clock(args.clock)
    global CERTIFY
    CERTIFY = args.certify
    if CERTIFY == "block" and not hasattr(NumberFormat, "format_block"):
        CERTIFY = args.certify = "entry"     # an older symattn without the batch path

    def out(text: str = "") -> None:
        print(text, flush=True)

    if args.profile or args.startup:
        for line in header_lines(args)[:3]:
            out(line)
        out(f"certify: {args.certify}; clock: {args.clock}")
        for spec in args.profile:
            profile(spec, args, out)
        if args.startup:
            startup(out)
        return 0

    cases = [Case(n, d) for n in sorted(args.sizes) for d in sorted(args.dims)]
    cases += [Case(n, args.heads8_dim, 8) for n in sorted(args.heads8)]
    heading = "# symattn benchmark" + (" (--quick)" if args.quick else "")
    out(heading)
    for line in header_lines(args):
        out(("- " if args.markdown else "  ") + line)
    out()

    run_symattn(make_inputs(Case(4, 2), args.seed))   # warm: imports, caches
    numpy_prepare(make_inputs(Case(4, 2), args.seed))[1]()

    symattn_done: list[tuple[Case, float]] = []
    naive_done: list[tuple[Case, float]] = []
    naive_left = [args.naive_budget]
    rows: list[Row] = []
    wall = time.perf_counter()
    for case in cases:
        start = time.perf_counter()
        row = run_case(case, args, symattn_done, naive_done, naive_left)
        rows.append(row)
        print(f"[{time.perf_counter() - start:7.1f} s] {case.label}: numpy {row.numpy_ms:.3f} ms, "
              f"symattn {'~' if row.symattn_estimated else ''}{row.symattn_ms:.1f} ms, "
              "naive " + ("-" if row.naive_s is None else f"{row.naive_s:.2f} s") +
              f" {row.naive_note}", file=sys.stderr, flush=True)
    header, body = table_cells(rows)
    out(render_markdown(header, body) if args.markdown else render_text(header, body))
    out()
    out(("## Targets" if args.markdown else "Targets:"))
    for line in targets(rows):
        out(("- " if args.markdown else "  ") + line)
    out(f"\n(total wall time {time.perf_counter() - wall:.0f} s; load average "
        f"{os.getloadavg()[0]:.2f} at the end)")
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=2))
    if args.with_startup:
        startup(out)
    return 1 if any(r.disagree for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
