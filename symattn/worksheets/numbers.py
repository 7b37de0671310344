"""Seeded inputs that are pleasant by hand: small numbers, short hand steps.

Every draw comes from ``random.Random`` seeded with a text built from the
seed, the variant, the exercise's place on the sheet and its kind, so the same
seed gives the same numbers on every platform, and adding an exercise to a
sheet does not change the others.

*Nice* means: Q and K have entries in {-1, 0, 1, 2} (mostly 0 when d_k > 4),
so raw scores are small integers; d_k is a perfect square (4 by default), so
the scaled scores have at most two decimal places (for d_k = 9 the queries
come in steps of 3, so the scaled scores stay whole); each row of scores has at
least two different values and a spread of at most 3 (so no weight is 0.000 or
1.000 and the exponentials stay small); values are small integers; and no
answer lies within two percent of a unit in the last place of a rounding
midpoint, so a student's calculator cannot round it the other way.

>>> rng = variant_random(7, 1, 1, "weights_row")
>>> attention = draw_attention(rng, n=3, m=3, d_k=4, d_v=2)
>>> attention.d_k, len(attention.Q), len(attention.K[0]), len(attention.V[0])
(4, 3, 4, 2)
>>> draw_attention(variant_random(7, 1, 1, "weights_row"), 3, 3, 4, 2) == attention
True
>>> [str(z) for z in draw_row(variant_random(1, 1, 1, "softmax_table"), 4)]
['-1', '1', '-1/2', '3/2']
"""

from __future__ import annotations

__all__ = ["Attention", "variant_random", "draw_attention", "draw_row", "draw_tokens",
           "draw_matrix", "clear_of_midpoints", "is_square", "scores_of", "NICE_ROW", "SMALL",
           "from_problem"]

import random
from dataclasses import dataclass
from math import isqrt
from typing import Any, Sequence

from flint import fmpq

from symattn.errors import InputError
from symattn.values.number_format import NumberFormat

Matrix = tuple[tuple[fmpq, ...], ...]
NICE_ROW = tuple(fmpq(k, 2) for k in range(-2, 5))       # -1, -0.5, ..., 2
_QK = (-1, 0, 0, 1, 1, 1, 2)                             # entries of Q and K (weighted)
_QK_SPARSE = (-1, 0, 0, 0, 0, 0, 0, 1, 1, 2)             # for d_k > 4: more zeros
_V = (-1, 0, 1, 1, 2, 2, 3)                              # entries of V
SMALL = (-1, 0, 0, 1, 1, 2)                              # X, Q, K of projection, multi_head
MAX_TRIES = 2000


@dataclass(frozen=True)
class Attention:
    """Q (n x d_k), K (m x d_k), V (m x d_v) as exact rationals, and d_k."""

    Q: Matrix
    K: Matrix
    V: Matrix
    d_k: int
    tokens: tuple[str, ...] = ()


def variant_random(seed: int, variant: int, slot: int, kind: str) -> random.Random:
    """The generator of one exercise: exercise ``slot`` (1-based) of ``variant``."""
    return random.Random(f"symattn-worksheet/{seed}/{variant}/{slot}/{kind}")


def is_square(n: int) -> bool:
    return n >= 0 and isqrt(n) ** 2 == n


def scores_of(Q: Matrix, K: Matrix) -> list[list[fmpq]]:
    return [[sum((q * k for q, k in zip(row, key)), fmpq(0)) for key in K] for row in Q]


def clear_of_midpoints(value: Any, places: int, margin: int = 20) -> bool:
    """False when ``value`` is within ``margin``/1000 of a unit in the last place of
    a rounding midpoint (a calculator might round it either way).

    >>> clear_of_midpoints(fmpq(1249, 10000), 3), clear_of_midpoints(fmpq(1, 8), 2)
    (True, False)
    """
    text = NumberFormat(digits=None, places=places + 3).format(value)
    if text is None or text in ("-inf", "nan"):
        return True
    tail = int(text[-3:])
    return not 500 - margin <= tail <= 500 + margin


def draw_matrix(rng: random.Random, rows: int, columns: int, pool: Sequence[int]) -> Matrix:
    """rows x columns entries drawn from ``pool`` (repeat an entry to make it likelier)."""
    return tuple(tuple(fmpq(rng.choice(pool)) for _ in range(columns)) for _ in range(rows))


def _terminates(n: int) -> bool:
    """Whether 1/n has a finite decimal expansion (n = 2^a 5^b)."""
    for p in (2, 5):
        while n % p == 0:
            n //= p
    return n == 1


def _spread_ok(row: Sequence[fmpq], low: fmpq, high: fmpq) -> bool:
    return len(set(row)) >= 2 and all(low <= x <= high for x in row) and \
        max(row) - min(row) <= 3


def draw_attention(rng: random.Random, n: int, m: int, d_k: int, d_v: int,
                   low: fmpq = fmpq(-3, 2), high: fmpq = fmpq(5, 2)) -> Attention:
    """Q, K, V whose scaled scores QK^T / sqrt(d_k) lie in [low, high], rows not flat.

    For a d_k that is not a perfect square the bounds apply to QK^T / floor(sqrt(d_k)).
    """
    root = max(isqrt(d_k), 1)
    # sqrt(d_k) = 3: queries in steps of 3, so that QK^T / 3 is still whole.
    step = root if is_square(d_k) and not _terminates(root) else 1
    for attempt in range(MAX_TRIES):
        strict = attempt < MAX_TRIES // 2     # then allow equal keys (d_k = 1 has few)
        pool = _QK if d_k <= 4 else _QK_SPARSE
        Q = tuple(tuple(x * step for x in row) for row in draw_matrix(rng, n, d_k, pool))
        K = draw_matrix(rng, m, d_k, pool)
        scaled = [[s / root for s in row] for row in scores_of(Q, K)]
        if all(_spread_ok(row, low, high) for row in scaled) and \
                (len(set(K)) == m or not strict):
            V = draw_matrix(rng, m, d_v, _V)
            columns = set(zip(*V))
            if (len(set(V)) == m or not strict) and len(columns) == d_v and \
                    (0,) * m not in columns:
                return Attention(Q, K, V, d_k)
    raise AssertionError("no nice attention problem found")    # pragma: no cover


def draw_row(rng: random.Random, m: int, pool: Sequence[fmpq] = NICE_ROW,
             distinct: bool = False) -> list[fmpq]:
    """m scores from ``pool``: all different, or at least three different values."""
    for _ in range(MAX_TRIES):
        row = [rng.choice(pool) for _ in range(m)]
        if len(set(row)) >= (m if distinct else min(3, m)):
            return row
    raise AssertionError("no nice row found")    # pragma: no cover


def draw_tokens(rng: random.Random, sentences: Sequence[str], n: int) -> tuple[str, ...]:
    """n consecutive words of one of ``sentences`` (a catalog's word lists)."""
    usable = [s.split() for s in sentences if len(s.split()) >= n]
    words = rng.choice(usable)
    start = rng.randrange(len(words) - n + 1)
    return tuple(words[start:start + n])


# ------------------------------------------------------------ from a spec
def from_problem(problem: Any) -> Attention:
    """Q, K, V of a spec's problem (derived exactly), for exercises on the user's numbers.

    The spec must be rational (no roots, symbols or positions), single-head, and
    give V; at most 6 queries and keys fit a sheet. The exercises say what they
    compute (softmax of QK^T / sqrt(d_k)), so the spec's scale, temperature,
    mask and claims are not used.
    """
    from symattn.derivation.pipeline import derive

    if problem.is_symbolic:
        raise InputError("a worksheet needs rational numbers: this spec has roots, "
                         "symbols or positional encodings")
    if problem.heads != 1:
        raise InputError("a worksheet needs a single attention head")
    derivation = derive(problem)
    for name in ("Q", "K", "V"):
        if name not in derivation:
            raise InputError(f"a worksheet needs Q, K and V (or X with W_Q, W_K, W_V); "
                             f"this spec has no {name}")
    grids = {name: derivation[name].value for name in ("Q", "K", "V")}
    n, m = grids["Q"].shape[0], grids["K"].shape[0]
    if n > 6 or m > 6 or grids["Q"].shape[1] > 6 or grids["V"].shape[1] > 6:
        raise InputError(f"a worksheet fits at most 6 tokens and 6 dimensions; this spec has "
                         f"{n} queries, {m} keys, d_k = {grids['Q'].shape[1]}, "
                         f"d_v = {grids['V'].shape[1]}")

    def rows(name: str) -> Matrix:
        grid = grids[name]
        out = []
        for i in range(grid.shape[0]):
            row = []
            for j in range(grid.shape[1]):
                value = grid.exact(i, j)
                if not isinstance(value, fmpq):
                    raise InputError(f"a worksheet needs rational numbers; {name}[{i + 1},"
                                     f"{j + 1}] is not")
                row.append(value)
            out.append(tuple(row))
        return tuple(out)

    d_k = problem.d_k_value or grids["Q"].shape[1]
    return Attention(rows("Q"), rows("K"), rows("V"), d_k, tuple(problem.tokens))
