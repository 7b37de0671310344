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

__all__ = ["Attention", "variant_random", "draw_attention", "draw_row", "draw_matrix",
           "clear_of_midpoints", "is_square", "scores_of", "NICE_ROW", "SMALL", "from_problem"]

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
_ROW_TRIES = 40                                          # per query row


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


def draw_attention(rng: random.Random, n: int, m: int, d_k: int, d_v: int,
                   low: fmpq = fmpq(-3, 2), high: fmpq = fmpq(5, 2)) -> Attention:
    """Q, K, V whose scaled scores QK^T / sqrt(d_k) lie in [low, high], rows not flat.

    No two keys are equal, and a query row is redrawn (from the same generator, so
    the seed still decides) when it repeats an earlier query row, when its row of
    scores repeats an earlier one, or when two of its scores tie: no row asked
    about is a copy of another or has a tie. When the shape leaves no such problem
    (d_k = 1 has few), the second half of the tries takes rows that are only not
    flat, and equal keys. For a d_k that is not a perfect square the bounds apply
    to QK^T / floor(sqrt(d_k)).
    """
    root = max(isqrt(d_k), 1)
    # sqrt(d_k) = 3: queries in steps of 3, so that QK^T / 3 is still whole.
    step = root if is_square(d_k) and not _terminates(root) else 1
    pool = _QK if d_k <= 4 else _QK_SPARSE
    # Bounds on the raw scores, which are whole numbers (the draw is in integers: fast).
    bounds = (low * root, high * root, 3 * root)
    for attempt in range(MAX_TRIES):
        strict = attempt < MAX_TRIES // 2
        K = [tuple(rng.choice(pool) for _ in range(d_k)) for _ in range(m)]
        if strict and len(set(K)) < m:
            continue
        Q = _queries(rng, K, n, pool, step, bounds, strict)
        if Q is None:
            continue
        V = draw_matrix(rng, m, d_v, _V)
        columns = set(zip(*V))
        if (len(set(V)) == m or not strict) and len(columns) == d_v and \
                (0,) * m not in columns:
            return Attention(_exact(Q), _exact(K), V, d_k)
    raise AssertionError("no nice attention problem found")    # pragma: no cover


def _queries(rng: random.Random, K: Sequence[Sequence[int]], n: int, pool: Sequence[int],
             step: int, bounds: tuple[fmpq, fmpq, int], strict: bool
             ) -> list[tuple[int, ...]] | None:
    """n query rows against the keys K, each drawn until its scores fit ``bounds``
    (lowest, highest, spread) and are not flat; ``strict``: and until neither the row
    nor its scores repeat an earlier one, and no two of its scores tie. None when a
    row does not come within ``_ROW_TRIES`` draws (the keys are then redrawn)."""
    lowest, highest, spread = bounds
    queries: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    for _ in range(n):
        for _ in range(_ROW_TRIES):
            query = tuple(rng.choice(pool) * step for _ in range(len(K[0])))
            scores = tuple(sum(q * k for q, k in zip(query, key)) for key in K)
            fits = len(set(scores)) >= 2 and lowest <= min(scores) and \
                max(scores) <= highest and max(scores) - min(scores) <= spread
            if fits and (not strict or len(set(scores)) == len(scores) and
                         query not in queries and scores not in seen):
                queries.append(query)
                seen.add(scores)
                break
        else:
            return None
    return queries


def _exact(rows: Sequence[Sequence[int]]) -> Matrix:
    return tuple(tuple(fmpq(x) for x in row) for row in rows)


def draw_row(rng: random.Random, m: int, pool: Sequence[fmpq] = NICE_ROW,
             distinct: bool = False) -> list[fmpq]:
    """m scores from ``pool``: all different, or at least three different values."""
    for _ in range(MAX_TRIES):
        row = [rng.choice(pool) for _ in range(m)]
        if len(set(row)) >= (m if distinct else min(3, m)):
            return row
    raise AssertionError("no nice row found")    # pragma: no cover


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
