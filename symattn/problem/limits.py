"""Bounds on the size of a problem, so no spec can stall the machine unawares.

The defaults cover realistic small layers (a 2048 x 2048 score matrix, eight
heads of 512 tokens) and every worked example; ``--max-size`` raises them.
A spec past a bound gets a clear error before any arithmetic starts.
"""

from __future__ import annotations

__all__ = ["Limits", "DEFAULT", "check_raw_matrix", "check_problem"]

from dataclasses import dataclass
from typing import Any

from symattn.defaults import MAX_ENTRIES
from symattn.errors import InputError, Location


@dataclass(frozen=True)
class Limits:
    max_entries: int = MAX_ENTRIES        # entries of any one matrix, input or scores
    max_symbolic_entries: int = 64 * 64   # scores on the SymPy path (roots, symbols)

    @classmethod
    def scaled(cls, max_entries: int) -> Limits:
        """Limits with ``max_entries`` raised (or lowered); the SymPy bound in proportion."""
        ratio = max_entries / cls.max_entries
        return cls(max_entries, max(1, int(cls.max_symbolic_entries * ratio)))


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
                  location: Location) -> None:
    """Refuse a score matrix (per head) beyond the limits."""
    entries = n * m
    if entries * heads > limits.max_entries:
        raise InputError(f"the scores would be {heads} x {n}x{m} = {entries * heads:,} "
                         f"entries; the limit is {limits.max_entries:,}{_HINT}", location)
    if symbolic and entries * heads > limits.max_symbolic_entries:
        raise InputError(f"inputs with roots or symbols take the SymPy path, which is slow: "
                         f"{heads} x {n}x{m} scores is beyond its limit of "
                         f"{limits.max_symbolic_entries:,} entries{_HINT}", location)
