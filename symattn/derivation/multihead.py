"""Several heads, grouped-query attention, concat and W_O.

Each head runs the same exact attention core on its column block of the
projections, under step names prefixed with the head: ``head1.Q``,
``head1.scores``, ... ``head1.output``. With ``kv_heads`` < ``heads``
(grouped-query attention; 1 is multi-query) consecutive query heads share one
key/value block. Then::

    concat = [head1.output | head2.output | ...]     (n x heads*d_v)
    output = concat W_O                               (n x d_model)

so everything after attention (FFN, readout) reads ``output`` as usual.
"""

from __future__ import annotations

__all__ = ["build_steps", "ConcatGrid", "ProductGrid"]

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Generator, Iterator, Sequence

from flint import arb, arb_mat, fmpq_mat

from symattn.derivation import grids
from symattn.derivation.attention import (SOURCE_SYMBOLS, attention_core, input_step,
                                          rational_matrix, source_of)
from symattn.derivation.steps import Operand, Step
from symattn.problem.problem import Problem
from symattn.values import arith
from symattn.values.exact import Exact, Irrational, exact_text, working_precision
from symattn.values.written import closed_form_terms, exponentials, writes, written_texts

# The steps attention_core makes for each head, renamed head1.Q, head1.scores, ...
_HEAD_STEPS = {"Q", "K", "V", "scores", "scaled", "mask", "masked", "exp", "exp_sum", "weights",
               "output"}
_NOUNS = {"Q": "queries", "K": "keys", "V": "values"}


def _columns(matrix: fmpq_mat, start: int, stop: int) -> fmpq_mat:
    return fmpq_mat([[matrix[i, j] for j in range(start, stop)] for i in range(matrix.nrows())])


def _prefixed(step: Step, prefix: str) -> Step:
    return dataclasses.replace(step, name=prefix + step.name, operands=tuple(
        prefix + o if o in _HEAD_STEPS else o for o in step.operands))


class ConcatGrid(grids.Grid):
    """Head outputs side by side."""

    def __init__(self, parts: Sequence[grids.Grid]) -> None:
        self.parts = list(parts)
        self.width = parts[0].shape[1]
        self.shape = (parts[0].shape[0], self.width * len(parts))

    def exact(self, i: int, j: int) -> Exact:
        return self.parts[j // self.width].exact(i, j % self.width)

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        blocks = [part.balls(prec, rows, range(self.width)) for part in self.parts]
        return [[blocks[j // self.width][r][j % self.width] for j in columns]
                for r in range(len(rows))]


class ProductGrid(grids.Grid):
    """``source @ matrix`` for an exact source grid and a rational matrix."""

    def __init__(self, source: grids.Grid, matrix: fmpq_mat) -> None:
        self.source = source
        self.matrix = matrix
        self.shape = (source.shape[0], matrix.ncols())
        # The source's row, made once for the row's entries: each entry of the row then
        # shares its values as parts, written and evaluated once (values.arith).
        self._row: Callable[[int], list[Exact]] = lru_cache(maxsize=2)(
            lambda i: [source.exact(i, k) for k in range(matrix.nrows())])

        self._row_balls: dict[tuple[int, int], list[arb] | None] = {}
        self._entries: Callable[[int], list[Exact]] = lru_cache(maxsize=2)(
            lambda i: [self._entry(i, j) for j in range(self.shape[1])])

    def exact(self, i: int, j: int) -> Exact:
        """Entry (i, j); the row's entries are made once for the row (the closed forms,
        their counts and balls asked of one entry after another)."""
        return self._entries(i)[j]

    def _entry(self, i: int, j: int) -> Exact:
        row = self._row(i)
        value = arith.total(arith.multiply(row[k], self.matrix[k, j])
                            for k in range(self.matrix.nrows()) if self.matrix[k, j] != 0)
        if not isinstance(value, Irrational):      # rational, a surd, -oo: exact as it is
            return value
        # Its ball from the row's ball-matrix product, made once per row and precision,
        # rather than a Python sum of products per entry; its closed form as the sum's.
        return Irrational(lambda: value.text, lambda prec: self._ball(i, j, prec, value),
                          parts=(value,))

    def _ball(self, i: int, j: int, prec: int, value: Irrational) -> arb:
        key = (i, prec)
        if key not in self._row_balls:
            if len(self._row_balls) > 8:
                self._row_balls.clear()
            product = self._product(prec, [i])
            self._row_balls[key] = None if product is None else product[0]
        row = self._row_balls[key]
        # a row with an entry of no ball (-oo, nan): the sum's own ball
        return value.ball(prec) if row is None else row[j]

    def _product(self, prec: int, rows: Sequence[int]) -> list[list[arb]] | None:
        """The rows of ``source @ matrix`` as one ball-matrix product; None when a source
        entry has no ball."""
        inner = self.matrix.nrows()
        flat = grids.flatten_balls(self.source.balls(prec, rows, range(inner)))
        if flat is None:
            return None
        with working_precision(prec):
            product = arb_mat(len(rows), inner, flat) * arb_mat(self.matrix)
            return [[product[r, c] for c in range(self.shape[1])] for r in range(len(rows))]

    def terms(self, i: int, j: int) -> int:
        """Counted from its parts (``values.written``): ``--max-terms`` leaves out a long
        one before it is written."""
        return closed_form_terms(self.exact(i, j))

    def texts(self, rows: Sequence[int], columns: Sequence[int], max_terms: int | None = None
              ) -> list[tuple[str | None, ...]]:
        if max_terms is None:
            return written_texts(self.exact, rows, columns, max_terms)
        # An entry writes the exponentials of the source entries it sums (those of W_O's
        # nonzero column entries): one with too many is left out before it is made.
        inner = range(self.matrix.nrows())
        used = [[k for k in inner if self.matrix[k, j] != 0] for j in columns]
        block: list[tuple[str | None, ...]] = []
        for i in rows:
            counts = [exponentials(value) for value in self._row(i)]
            block.append(tuple(
                None if sum(counts[k] for k in keys) > max_terms or
                not writes(self.exact(i, j), max_terms) else exact_text(self.exact(i, j))
                for j, keys in zip(columns, used)))
        return block

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        product = self._product(prec, rows)
        if product is None:
            return super().balls(prec, rows, columns)
        return [[row[c] for c in columns] for row in product]


@dataclass(frozen=True)
class _Heads:
    """How the projections split into heads: query head h reads key/value head h // group."""

    count: int
    d_k: int
    d_v: int
    group: int          # query heads per key/value head (grouped-query attention)


def build_steps(problem: Problem) -> Iterator[Step]:
    """The inputs, each head's attention (head1.Q ... head1.output), concat and output."""
    matrices = yield from _input_steps(problem)
    full = {name: rational_matrix(problem.inputs[name]) if name in problem.inputs
            else matrices[source_of(name, problem.inputs)] * matrices[f"W_{name}"]
            for name in ("Q", "K", "V")}
    count = problem.heads
    kv_heads = problem.kv_heads or count
    heads = _Heads(count, full["Q"].ncols() // count, full["V"].ncols() // kv_heads,
                   count // kv_heads)
    head_problem = dataclasses.replace(problem, d_k=problem.d_k or heads.d_k)
    outputs = []
    for h in range(count):
        output = yield from _head_steps(head_problem, full, h, heads)
        outputs.append(output)
    yield from _combined_steps(outputs, matrices.get("W_O"), heads.d_v)


def _input_steps(problem: Problem) -> Generator[Step, None, dict[str, fmpq_mat]]:
    matrices: dict[str, fmpq_mat] = {}
    for name in ("X", "X_kv", "X_q", "X_k", "X_v", "W_Q", "W_K", "W_V", "W_O"):
        if name in problem.inputs:
            matrices[name] = rational_matrix(problem.inputs[name])
            grid = grids.RationalGrid(matrices[name])
            if name == "W_O":
                yield Step(name, "W_O", "W_O", (), "output projection", grid)
            else:
                yield input_step(problem, name, grid)
    return matrices


def _head_steps(problem: Problem, full: dict[str, fmpq_mat], h: int, heads: _Heads
                ) -> Generator[Step, None, grids.Grid]:
    """Head h's column blocks of Q, K, V and its attention; returns its output grid.

    ``problem`` is the head's problem: d_k is the head's width.
    """
    prefix, g = f"head{h + 1}.", h // heads.group
    blocks = {"Q": _columns(full["Q"], h * heads.d_k, (h + 1) * heads.d_k),
              "K": _columns(full["K"], g * heads.d_k, (g + 1) * heads.d_k),
              "V": _columns(full["V"], g * heads.d_v, (g + 1) * heads.d_v)}
    for name, block in blocks.items():
        index = h + 1 if name == "Q" else g + 1
        if name in problem.inputs:
            formula = f"{name}^{{({index})}}"
            operands: tuple[str, ...] = (name,)
        else:
            source = source_of(name, problem.inputs)
            formula = f"{SOURCE_SYMBOLS[source]} W_{name}^{{({index})}}"
            operands = (source, f"W_{name}")
        shared = f" (shared by key/value group {g + 1})" if heads.group > 1 and name != "Q" else ""
        yield Step(prefix + name, name, formula, operands,
                   f"head {h + 1}'s {_NOUNS[name]}{shared}", grids.RationalGrid(block))
    output: grids.Grid | None = None
    for step in attention_core(problem, blocks, None):
        step = _prefixed(step, prefix)
        if step.name.endswith(".output"):
            output = step.value
        yield step
    if output is None:
        raise ValueError(f"head {h + 1} has no output: several heads need V")
    return output


def _combined_steps(outputs: list[grids.Grid], w_o: fmpq_mat | None, d_v: int
                    ) -> Iterator[Step]:
    """concat = [head1.output | head2.output | ...], then output = concat W_O (or concat)."""
    concat = ConcatGrid(outputs)
    yield Step("concat", "C", "[\\mathrm{head}_1 \\mid \\cdots \\mid \\mathrm{head}_h]",
               tuple(f"head{h + 1}.output" for h in range(len(outputs))),
               "the heads' outputs side by side", concat,
               entry=lambda operand, i, j: operand(f"head{j // d_v + 1}.output", i, j % d_v))
    if w_o is None:
        yield Step("output", "O", "C", ("concat",), "multi-head output (no W_O)",
                   concat, entry=lambda operand, i, j: operand("concat", i, j))
        return

    def project(operand: Operand, i: int, j: int) -> Exact:
        return arith.total(arith.multiply(operand("concat", i, k), w_o[k, j])
                           for k in range(w_o.nrows()))

    yield Step("output", "O", "C\\,W_O", ("concat", "W_O"),
               "multi-head output: the heads mixed by W_O", ProductGrid(concat, w_o),
               entry=project)
