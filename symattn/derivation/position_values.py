"""Positions on the fast path: exact sums of sines and cosines, and certified balls.

With rational inputs, sinusoidal encodings and RoPE keep every entry up to the
scores a ``values.trig.TrigSum`` (a rational plus sines and cosines of exact
angles), decided rational or not exactly; the whole matrices are evaluated as
python-flint ball matrices (``arb_mat``), once per precision. SymPy is not
involved: it is used only when a symbol or a root appears (``sympy_path``).

The entries, for query position p and key position q (0-based), frequencies
w_i = base^(-2i/width) and e_p = (sin p w_0, cos p w_0, sin p w_1, ...):

* sinusoidal: X_pos[p] = x_p + e_p, Q = X_pos W_Q (K, V alike), and the score
  S[p, q] = (x_p + e_p) M (x_q + e_q)^T with M = W_Q W_K^T, its products of
  sines and cosines written as sums over the angles p w_i +- q w_j;
* RoPE: Q_rot[p, 2i] = Q[p, 2i] cos(p w_i) - Q[p, 2i+1] sin(p w_i), and
  S[p, q] = sum_i (q_2i k_2i + q_2i+1 k_2i+1) cos((q - p) w_i)
  + (q_2i+1 k_2i - q_2i k_2i+1) sin((q - p) w_i), a function of q - p.
"""

from __future__ import annotations

__all__ = ["PositionValues", "INPUTS"]

from functools import cached_property
from typing import Any, Callable

from flint import arb, arb_mat, fmpq, fmpq_mat

from symattn.derivation.attention import rational_matrix, source_of
from symattn.problem.problem import Problem
from symattn.values.exact import working_precision
from symattn.values.trig import Angle, RootBasis, TrigSum

_GUARD = 24        # extra working bits for the ball matrices
_PROOF_SIZE = 16 * 16 * 16   # scores x width from which irrationality is proved in doubles
INPUTS = ("X", "X_kv", "W_Q", "W_K", "W_V", "Q", "K", "V")   # rational on this path


class PositionValues:
    """Exact entries and ball matrices of the position-dependent steps of one problem."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        self.sinusoidal = problem.positions == "sinusoidal"
        inputs = problem.inputs
        self.rational = {name: rational_matrix(inputs[name]) for name in INPUTS
                         if name in inputs}
        self.kv = "X_kv" if "X_kv" in inputs else "X"
        widths = [self.width("X"), self.width(self.kv)] if self.sinusoidal \
            else [self.rotated_width()]
        self.basis = RootBasis(problem.position_base, *widths)
        self._balls: dict[tuple[str, int], arb_mat] = {}
        self._trig: dict[tuple[str, int, int], TrigSum] = {}

    # ------------------------------------------------------------ shapes
    def width(self, source: str) -> int:
        return int(self.rational[source].ncols())

    def rotated_width(self) -> int:
        return self.problem.projected_shape("Q")[1]

    def projection(self, name: str) -> fmpq_mat:
        """Q, K or V without positions (given, or X W; RoPE rotates these)."""
        if name in self.rational:
            return self.rational[name]
        return self._products[name]

    @cached_property
    def _products(self) -> dict[str, fmpq_mat]:
        inputs = self.problem.inputs
        return {name: self.rational[source_of(name, inputs)] * self.rational[f"W_{name}"]
                for name in ("Q", "K", "V") if f"W_{name}" in inputs}

    def encoded(self, name: str) -> bool:
        """Whether Q, K or V comes from X + PE (sinusoidal, projected)."""
        return self.sinusoidal and name not in self.rational

    # ------------------------------------------------------- exact values
    def trig(self, step: str, i: int, j: int) -> TrigSum:
        """The exact entry (i, j) of a position-dependent step, computed once."""
        key = (step, i, j)
        value = self._trig.get(key)
        if value is None:
            value = self._trig[key] = self._exact(step, i, j)
        return value

    def _exact(self, step: str, i: int, j: int) -> TrigSum:
        if step in ("PE", "PE_kv"):
            return self.encoding(i, j, "X" if step == "PE" else "X_kv")
        if step in ("X_pos", "X_kv_pos"):
            source = "X" if step == "X_pos" else "X_kv"
            result = self.encoding(i, j, source)
            result.constant += self.rational[source][i, j]
            return result
        if step in ("Q_rot", "K_rot"):
            return self._rotated(step[0], i, j)
        if step == "scores":
            return self._rope_score(i, j) if not self.sinusoidal else self._score(i, j)
        return self._projected(step, i, j)

    def frequency(self, pair: int, width: int) -> Angle:
        return self.basis.frequency(pair, width)

    def encoding(self, p: int, c: int, source: str) -> TrigSum:
        """PE[p, c] = sin(p w_i) for c = 2i, cos(p w_i) for c = 2i + 1."""
        angle, sign = self.basis.scaled(self.frequency(c // 2, self.width(source)), p)
        result = TrigSum(self.basis)
        result.add_trig(angle, sign, c % 2 == 0, fmpq(1))
        return result

    def _projected(self, name: str, p: int, k: int) -> TrigSum:
        """Q, K or V: rational, or (x_p + e_p) W for sinusoidal positions."""
        result = TrigSum(self.basis, self.projection(name)[p, k])
        if not self.encoded(name):
            return result
        source = "X" if source_of(name, self.problem.inputs) == "X" else "X_kv"
        weights = self.rational[f"W_{name}"]
        for c in range(weights.nrows()):
            if weights[c, k] != 0:
                result.add_scaled(self.encoding(p, c, source), weights[c, k])
        return result

    def _rotated(self, name: str, p: int, c: int) -> TrigSum:
        """RoPE: pair (2i, 2i+1) of row p rotated by p w_i."""
        matrix = self.projection(name)
        x, y = matrix[p, c - c % 2], matrix[p, c - c % 2 + 1]
        angle, sign = self.basis.scaled(self.frequency(c // 2, self.rotated_width()), p)
        result = TrigSum(self.basis)
        if c % 2 == 0:      # x cos a - y sin a
            result.add_trig(angle, sign, False, x)
            result.add_trig(angle, sign, True, -y)
        else:               # x sin a + y cos a
            result.add_trig(angle, sign, True, x)
            result.add_trig(angle, sign, False, y)
        return result

    def _rope_score(self, p: int, q: int) -> TrigSum:
        """q_p R(q - p) k_q, summed over the column pairs."""
        queries, keys = self.projection("Q"), self.projection("K")
        width = self.rotated_width()
        result = TrigSum(self.basis)
        for pair in range(width // 2):
            a, b = queries[p, 2 * pair], queries[p, 2 * pair + 1]
            c, d = keys[q, 2 * pair], keys[q, 2 * pair + 1]
            angle, sign = self.basis.scaled(self.frequency(pair, width), q - p)
            result.add_trig(angle, sign, False, a * c + b * d)
            result.add_trig(angle, sign, True, b * c - a * d)
        return result

    @cached_property
    def _bilinear(self) -> tuple[fmpq_mat, fmpq_mat, fmpq_mat]:
        """M = W_Q W_K^T, X M and M X_kv^T: the rational parts of a sinusoidal score."""
        m = self.rational["W_Q"] * self.rational["W_K"].transpose()
        return m, self.rational["X"] * m, m * self.rational[self.kv].transpose()

    def _score(self, p: int, q: int) -> TrigSum:
        """(x_p + e_p) M (x_q + e_q)^T as a sum of sines and cosines."""
        m, xm, mx = self._bilinear
        result = TrigSum(self.basis, _row_dot(xm, p, self.rational[self.kv], q))
        rows, columns = m.nrows(), m.ncols()
        for c in range(columns):                       # x_p M e_q^T
            result.add_scaled(self.encoding(q, c, self.kv), xm[p, c])
        for c in range(rows):                          # e_p M x_q^T
            result.add_scaled(self.encoding(p, c, "X"), mx[c, q])
        for i in range((rows + 1) // 2):               # e_p M e_q^T, pair by pair
            a = self.basis.scaled(self.frequency(i, rows), p)[0]   # p w_i >= 0
            for j in range((columns + 1) // 2):
                block = [[_at(m, 2 * i + u, 2 * j + v) for v in (0, 1)] for u in (0, 1)]
                if any(x != 0 for row in block for x in row):
                    b = self.basis.scaled(self.frequency(j, columns), q)[0]
                    _add_bilinear(result, a, b, block)
        return result

    # ----------------------------------------- irrational, without the form
    def proved_irrational(self, p: int, q: int) -> bool:
        """Whether score (p, q) is proved irrational without writing its form.

        RoPE: the angles (q - p) w_i are distinct and non-zero for p != q (base
        > 1), so one non-zero coefficient settles it. Sinusoidal: an angle met
        once, with a non-zero coefficient, cannot cancel; angles are told apart
        in doubles with a margin far above their rounding errors. False means
        only "not settled here": the exact form decides.
        """
        if self.problem.position_base < 2 or p == q and not self.sinusoidal:
            return False
        if not self.sinusoidal:
            queries, keys = self.projection("Q"), self.projection("K")
            for pair in range(self.rotated_width() // 2):
                a, b = queries[p, 2 * pair], queries[p, 2 * pair + 1]
                c, d = keys[q, 2 * pair], keys[q, 2 * pair + 1]
                if a * c + b * d != 0 or b * c - a * d != 0:
                    return True
            return False
        return self._lonely_angle(p, q)

    def _lonely_angle(self, p: int, q: int) -> bool:
        if self._small:
            return False        # a small problem's exact forms cost less than importing numpy
        import numpy as np

        tables = self._float_tables
        if tables is None:
            return False
        rows, columns, minus, plus, left, right = tables
        a, b = p * rows, q * columns
        angles = np.concatenate((np.abs(np.subtract.outer(a, b))[minus],
                                 np.add.outer(a, b)[plus], b[left[p]], a[right[:, q]]))
        if angles.size == 0:
            return False
        angles.sort()
        tolerance = 1e-9 * (p + q + 1)
        gaps = np.diff(angles)
        apart = np.ones(angles.size, dtype=bool)
        apart[1:] &= gaps > tolerance
        apart[:-1] &= gaps > tolerance
        return bool((apart & (angles > tolerance)).any())

    @cached_property
    def _small(self) -> bool:
        n, m = self.problem.score_shape()
        return n * m * self._bilinear[0].nrows() < _PROOF_SIZE

    @cached_property
    def _float_tables(self) -> tuple[Any, ...] | None:
        """Frequencies as doubles and where the coefficients of a score are non-zero."""
        import numpy as np

        base = self.problem.position_base
        if base.bit_length() > 1000:
            return None
        m, xm, mx = self._bilinear
        d_row, d_column = m.nrows(), m.ncols()
        pairs_row, pairs_column = (d_row + 1) // 2, (d_column + 1) // 2
        rows = np.array([float(base) ** (-2 * i / d_row) for i in range(pairs_row)])
        columns = np.array([float(base) ** (-2 * j / d_column) for j in range(pairs_column)])
        minus = np.zeros((pairs_row, pairs_column), dtype=bool)
        plus = np.zeros_like(minus)
        for i in range(pairs_row):
            for j in range(pairs_column):
                (ss, sc), (cs, cc) = [[_at(m, 2 * i + u, 2 * j + v) for v in (0, 1)]
                                      for u in (0, 1)]
                minus[i, j] = ss + cc != 0 or sc - cs != 0
                plus[i, j] = cc - ss != 0 or sc + cs != 0
        left = np.array([[_at(xm, p, 2 * j) != 0 or _at(xm, p, 2 * j + 1) != 0
                          for j in range(pairs_column)] for p in range(xm.nrows())],
                        dtype=bool).reshape(xm.nrows(), pairs_column)
        right = np.array([[_at(mx, 2 * i, q) != 0 or _at(mx, 2 * i + 1, q) != 0
                           for q in range(mx.ncols())] for i in range(pairs_row)],
                         dtype=bool).reshape(pairs_row, mx.ncols())
        return rows, columns, minus, plus, left, right

    # ------------------------------------------------ sizes of closed forms
    def bound(self, step: str, i: int, j: int) -> int:
        """At least the number of sines and cosines entry (i, j) writes out, cheaply
        (counted before like terms are collected)."""
        if step in ("Q_rot", "K_rot"):
            return 2
        if step == "scores":
            if not self.sinusoidal:
                return self.rotated_width() + 1
            rows, columns, blocks = self._counts
            return rows[i] + columns[j] + blocks
        if step in ("Q", "K", "V") and self.encoded(step):
            return self._column_counts[step][j]
        return 1

    @cached_property
    def _column_counts(self) -> dict[str, list[int]]:
        counts = {}
        for name in ("Q", "K", "V"):
            if self.encoded(name) and f"W_{name}" in self.rational:
                weights = self.rational[f"W_{name}"]
                counts[name] = [sum(weights[c, k] != 0 for c in range(weights.nrows()))
                                for k in range(weights.ncols())]
        return counts

    @cached_property
    def _counts(self) -> tuple[list[int], list[int], int]:
        """Non-zero terms of x_p M (per row p), M x_q^T (per column q), e_p M e_q^T."""
        m, xm, mx = self._bilinear
        rows = [sum(xm[p, c] != 0 for c in range(xm.ncols())) for p in range(xm.nrows())]
        columns = [sum(mx[c, q] != 0 for c in range(mx.nrows())) for q in range(mx.ncols())]
        blocks = 0
        for i in range((m.nrows() + 1) // 2):
            for j in range((m.ncols() + 1) // 2):
                (ss, sc), (cs, cc) = [[_at(m, 2 * i + u, 2 * j + v) for v in (0, 1)]
                                      for u in (0, 1)]
                blocks += (ss + cc != 0) + (cc - ss != 0) + (sc + cs != 0) + (sc - cs != 0)
        return rows, columns, blocks

    # ------------------------------------------------------------- balls
    def matrix(self, step: str, prec: int) -> arb_mat:
        """The step as a ball matrix at ``prec`` bits or a little more (computed once
        per multiple of 64 bits: nearby precisions share one matrix)."""
        prec = -(-prec // 64) * 64
        key = (step, prec)
        found = self._balls.get(key)
        if found is None:
            with working_precision(prec + _GUARD):
                found = self._balls[key] = self._make(step, prec)
        return found

    def _make(self, step: str, prec: int) -> arb_mat:
        work = prec + _GUARD
        if step in ("PE", "PE_kv"):
            source = "X" if step == "PE" else "X_kv"
            rows, width = self.rational[source].nrows(), self.width(source)
            table = self._sin_cos(rows, width, work)
            return arb_mat(rows, width, [table[p][c // 2][0 if c % 2 == 0 else 1]
                                         for p in range(rows) for c in range(width)])
        if step in ("X_pos", "X_kv_pos"):
            source = "X" if step == "X_pos" else "X_kv"
            return arb_mat(self.rational[source]) + self.matrix("PE" if source == "X"
                                                                else "PE_kv", prec)
        if step in ("Q_rot", "K_rot"):
            return self._rotation(step[0], work)
        if step == "scores":
            left, right = ("Q_rot", "K_rot") if not self.sinusoidal else ("Q", "K")
            return self.matrix(left, prec) * self.matrix(right, prec).transpose()
        if self.encoded(step):
            source = "X_pos" if source_of(step, self.problem.inputs) == "X" else "X_kv_pos"
            return self.matrix(source, prec) * arb_mat(self.rational[f"W_{step}"])
        return arb_mat(self.projection(step))

    def _sin_cos(self, rows: int, width: int, work: int) -> list[list[tuple[arb, arb]]]:
        """(sin, cos) of p w_i for every position p and pair i; exactly (0, 1) at p = 0."""
        zero, one = arb(0), arb(1)
        frequencies = [self.basis.angle_ball(self.frequency(i, width), work)
                       for i in range((width + 1) // 2)]
        table = [[(zero, one)] * len(frequencies)]
        for p in range(1, rows):
            table.append([(p * w).sin_cos() for w in frequencies])
        return table

    def _rotation(self, name: str, work: int) -> arb_mat:
        matrix = self.projection(name)
        rows, width = matrix.nrows(), matrix.ncols()
        table = self._sin_cos(rows, width, work)
        entries = []
        for p in range(rows):
            for c in range(width):
                sine, cosine = table[p][c // 2]
                x, y = arb(matrix[p, c - c % 2]), arb(matrix[p, c - c % 2 + 1])
                entries.append(x * cosine - y * sine if c % 2 == 0 else x * sine + y * cosine)
        return arb_mat(rows, width, entries)

    def entry_ball(self, step: str) -> Callable[[int, int, int], arb]:
        """A function (i, j, prec) -> the ball of one entry."""
        return lambda i, j, prec: self.matrix(step, prec)[i, j]


def _at(matrix: fmpq_mat, i: int, j: int) -> fmpq:
    """An entry, 0 outside the matrix (an odd width has a lone last sine)."""
    return matrix[i, j] if i < matrix.nrows() and j < matrix.ncols() else fmpq(0)


def _row_dot(xm: fmpq_mat, p: int, keys: fmpq_mat, q: int) -> fmpq:
    """(x_p M) . x_q, the rational part of a sinusoidal score."""
    return sum((xm[p, c] * keys[q, c] for c in range(xm.ncols())), fmpq(0))


def _add_bilinear(result: TrigSum, a: Angle, b: Angle, block: list[list[fmpq]]) -> None:
    """result += sum over u, v of block[u][v] f_u(a) f_v(b), f = (sin, cos); a, b >= 0."""
    basis = result.basis
    (ss, sc), (cs, cc) = block
    plus, plus_sign = basis.combine(a, b, 1)
    minus, minus_sign = basis.combine(a, b, -1)
    half = fmpq(1, 2)
    result.add_trig(minus, minus_sign, False, half * (ss + cc))
    result.add_trig(plus, plus_sign, False, half * (cc - ss))
    result.add_trig(plus, plus_sign, True, half * (sc + cs))
    result.add_trig(minus, minus_sign, True, half * (sc - cs))
