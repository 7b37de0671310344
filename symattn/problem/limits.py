"""Bounds on the size of a problem, so no spec can stall the machine unawares.

The defaults cover realistic small layers (a 2048 x 2048 score matrix, eight
heads of 512 tokens) and every worked example; ``--max-size`` raises them.
A spec past a bound gets a clear error before any arithmetic starts.
"""

from __future__ import annotations

__all__ = ["Limits", "DEFAULT", "check_raw_matrix", "check_problem", "check_positions",
           "check_sweep", "check_positions_written", "POSITION_TOKENS", "POSITION_WIDTH",
           "POSITION_WRITTEN", "SWEEP_ENTRIES", "SYMBOLIC_TERMS", "WRITTEN_DIGITS",
           "check_digits_written"]

from dataclasses import dataclass
from typing import Any

from symattn.defaults import DIGITS, MAX_ENTRIES
from symattn.errors import InputError, Location


# Positions (sinusoidal, RoPE) with rational inputs take the fast position path
# (derivation.position_values): its cost grows with the tokens squared times
# the width and with the width squared times the tokens. Within these bounds a
# spec is derived and written in well under 60 s on a 2-core machine (measured
# in benchmarks/positions.py: 1024 tokens x width 64 and 128, 128 x 256).
POSITION_TOKENS = 1024   # queries and keys with options.positions
POSITION_WIDTH = 128     # d_model (sinusoidal) or d_k (RoPE) with options.positions
# Writing every entry (JSON, --max-rows 0) makes each position-dependent score's closed
# form, a sum of sines and cosines: about a millisecond a score, whatever the width
# (256 tokens x width 4 in JSON took 65 s). Scores written whole stay within 96 x 96.
POSITION_WRITTEN = 96 * 96      # 128 x 128 at width 16 in JSON took 53 s
# Every entry written out with many digits: 64 x 64 scores at 10,000 digits in JSON
# took 61 s. Scores written whole times their digits stay within what the largest
# matrix has at the default 6 digits (64 x 64 at 6,144 digits).
WRITTEN_DIGITS = MAX_ENTRIES * DIGITS
# On the SymPy path (roots, symbols) a score is a sum of d_k terms, each exponential
# evaluated and simplified by SymPy: 16 x 16 surd scores of 16 terms took 10 s, 32 x 32
# of 32 terms 64 s (24 x 24 x 24 in JSON: 44 s). Scores x d_k stay within 8,192 (20 x 20 x 20).
SYMBOLIC_TERMS = 8_192
# ``sweep`` derives the spec once per temperature: about 40 microseconds of CPU per
# weight and temperature on a 2-core machine (128 x 128 at 40 temperatures: 25 s).
# This bound on temperatures x weights (64 temperatures at 128 x 128) keeps a sweep
# under a minute even on a loaded machine; 400 temperatures at 128 x 128 took 259 s.
SWEEP_ENTRIES = 1024 * 1024
_SWEEP_FLOOR = 1024   # a few temperatures over a small spec stay allowed at any --max-size
_WIDTH_FLOOR = 32     # a score with positions costs about the same whatever the width


@dataclass(frozen=True)
class Limits:
    max_entries: int = MAX_ENTRIES        # entries of any one matrix, input or scores
    max_symbolic_entries: int = 64 * 64   # scores on the SymPy path (roots, symbols)
    max_symbolic_terms: int = SYMBOLIC_TERMS   # and scores x d_k there
    max_position_tokens: int = POSITION_TOKENS
    max_position_width: int = POSITION_WIDTH
    max_position_written: int = POSITION_WRITTEN   # scores shown, with positions
    max_written_digits: int = WRITTEN_DIGITS        # scores shown x digits of each
    max_sweep_entries: int = SWEEP_ENTRIES   # temperatures x weights (all heads) in a sweep

    @classmethod
    def scaled(cls, max_entries: int) -> Limits:
        """Limits with ``max_entries`` raised (or lowered); the SymPy and sweep bounds in
        proportion, the position bounds by its square root (tokens and width both grow)."""
        ratio = max_entries / cls.max_entries
        root = ratio ** 0.5
        return cls(max_entries, max(1, int(cls.max_symbolic_entries * ratio)),
                   max(1, int(cls.max_symbolic_terms * ratio)),
                   max(1, int(cls.max_position_tokens * root)),
                   max(_WIDTH_FLOOR, int(cls.max_position_width * root)),
                   max(1, int(cls.max_position_written * ratio)),
                   max(1, int(cls.max_written_digits * ratio)),
                   max(_SWEEP_FLOOR, int(cls.max_sweep_entries * ratio)))


DEFAULT = Limits()

_HINT = "; raise the limit with --max-size (or symattn.problem.limits.Limits) if you mean it"


def check_raw_matrix(raw: Any, limits: Limits, location: Location) -> None:
    """Refuse an oversized matrix from its list lengths alone, before parsing it."""
    if not isinstance(raw, list) or not raw:
        return
    rows = len(raw)
    first = raw[0]
    columns = len(first) if isinstance(first, list) else 1
    if isinstance(first, list) and any(isinstance(r, list) for r in first):
        columns = sum(len(block) if isinstance(block, list) else 1 for block in first)
    if rows * columns > limits.max_entries:
        raise InputError(f"the matrix is {rows}x{columns} = {rows * columns:,} entries; the "
                         f"limit is {limits.max_entries:,}{_HINT}", location)


def check_problem(n: int, m: int, heads: int, symbolic: bool, limits: Limits,
                  location: Location, width: int = 1) -> None:
    """Refuse a score matrix (per head, ``width`` terms a score) beyond the limits."""
    entries = n * m
    if entries * heads > limits.max_entries:
        raise InputError(f"the scores would be {heads} x {n}x{m} = {entries * heads:,} "
                         f"entries; the limit is {limits.max_entries:,}{_HINT}", location)
    if symbolic and entries * heads > limits.max_symbolic_entries:
        raise InputError(f"inputs with roots or symbols take the SymPy path, which is slow: "
                         f"{heads} x {n}x{m} scores is beyond its limit of "
                         f"{limits.max_symbolic_entries:,} entries{_HINT}", location)
    if symbolic and entries * heads * width > limits.max_symbolic_terms:
        raise InputError(f"inputs with roots or symbols take the SymPy path, which is slow: "
                         f"{heads} x {n}x{m} scores of {width} terms each is "
                         f"{entries * heads * width:,} terms, beyond its limit of "
                         f"{limits.max_symbolic_terms:,}{_HINT}", location)


def check_positions(tokens: int, width: int, limits: Limits, location: Location) -> None:
    """Refuse positions (sinusoidal, RoPE) over more tokens or a wider vector than the limits."""
    if tokens > limits.max_position_tokens:
        raise InputError(f"positions over {tokens:,} tokens: the limit for positions is "
                         f"{limits.max_position_tokens:,} tokens{_HINT}", location)
    if width > limits.max_position_width:
        raise InputError(f"positions over vectors of {width:,} columns: the limit for "
                         f"positions is {limits.max_position_width:,} columns{_HINT}", location)


def check_positions_written(rows: int, columns: int, limits: Limits,
                            location: Location) -> None:
    """Refuse writing more position-dependent scores than the limit (every entry of a
    large spec in JSON or with --max-rows 0; a report of a few rows is cheap)."""
    if rows * columns > limits.max_position_written:
        raise InputError(f"writing {rows:,} x {columns:,} position-dependent scores with "
                         f"their closed forms: the limit is {limits.max_position_written:,} "
                         f"scores written; show fewer rows (--max-rows N, text or LaTeX)"
                         f"{_HINT}", location)


def check_digits_written(rows: int, columns: int, digits: int, limits: Limits,
                         location: Location) -> None:
    """Refuse writing more scores x digits than the limit (every entry in JSON or with
    --max-rows 0, each to thousands of digits)."""
    if rows * columns * digits > limits.max_written_digits:
        raise InputError(f"writing {rows:,} x {columns:,} scores to {digits:,} digits each: "
                         f"the limit is {limits.max_written_digits:,} digits written; ask "
                         f"for fewer digits (--digits, options.digits) or show fewer rows "
                         f"(--max-rows N){_HINT}",
                         location)


def check_sweep(temperatures: int, weights: int, limits: Limits) -> None:
    """Refuse a sweep whose temperatures times weights (all heads) exceed the limits."""
    if temperatures * weights > limits.max_sweep_entries:
        raise InputError(f"--temperatures: a sweep of {temperatures:,} temperatures over "
                         f"{weights:,} weights is {temperatures * weights:,} weights to "
                         f"derive; the limit is "
                         f"{limits.max_sweep_entries:,}{_HINT}")
