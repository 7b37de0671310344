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
from typing import Iterator, Sequence

from flint import fmpq_mat

from symattn.values import arith
from symattn.derivation import grids
from symattn.derivation.steps import Operand, Step, StepInfo, make_step
from symattn.derivation.attention import _embedding_lookup, _to_fmpq_mat, attention_core, source_of
from symattn.values.exact import Exact
from symattn.problem.problem import Problem

def _columns(matrix: fmpq_mat, start: int, stop: int) -> fmpq_mat:
    return fmpq_mat([[matrix[i, j] for j in range(start, stop)] for i in range(matrix.nrows())])


def _prefixed(step: Step, prefix: str, local: set[str]) -> Step:
    return dataclasses.replace(step, name=prefix + step.name, operands=tuple(
        prefix + o if o in local else o for o in step.operands))


class ConcatGrid(grids.Grid):
    """Head outputs side by side."""

    def __init__(self, parts: Sequence[grids.Grid]) -> None:
        self.parts = list(parts)
        self.width = parts[0].shape[1]
        self.shape = (parts[0].shape[0], self.width * len(parts))

    def exact(self, i: int, j: int) -> Exact:
        return self.parts[j // self.width].exact(i, j % self.width)

    def balls(self, prec, rows, columns):  # type: ignore[no-untyped-def]
        blocks = [part.balls(prec, rows, range(self.width)) for part in self.parts]
        return [[blocks[j // self.width][r][j % self.width] for j in columns]
                for r in range(len(rows))]


class ProductGrid(grids.Grid):
    """``source @ matrix`` for an exact source grid and a rational matrix."""

    def __init__(self, source: grids.Grid, matrix: fmpq_mat) -> None:
        self.source = source
        self.matrix = matrix
        self.shape = (source.shape[0], matrix.ncols())

    def exact(self, i: int, j: int) -> Exact:
        return arith.total(arith.multiply(self.source.exact(i, k), self.matrix[k, j])
                           for k in range(self.matrix.nrows()) if self.matrix[k, j] != 0)

    def balls(self, prec, rows, columns):  # type: ignore[no-untyped-def]
        from flint import arb_mat

        from symattn.values.exact import working_precision

        inner = self.matrix.nrows()
        block = self.source.balls(prec, rows, range(inner))
        if any(b is None for row in block for b in row):
            return super().balls(prec, rows, columns)
        with working_precision(prec):
            product = arb_mat(len(rows), inner, [b for row in block for b in row]) * \
                arb_mat(self.matrix)
            return [[product[r, c] for c in columns] for r in range(len(rows))]


def build_steps(problem: Problem) -> Iterator[Step]:
    inputs = problem.inputs
    matrices: dict[str, fmpq_mat] = {}
    for name in ("X", "X_kv", "W_Q", "W_K", "W_V", "W_O"):
        if name in inputs:
            matrices[name] = _to_fmpq_mat(inputs[name])
            info = StepInfo(name, name, (), "output projection" if name == "W_O" else "")
            if name == "W_O":
                yield Step(name, "W_O", "W_O", (), info.description,
                           grids.RationalGrid(matrices[name]))
            else:
                yield make_step(name, grids.RationalGrid(matrices[name]),
                                **_embedding_lookup(problem, name))
    full = {}
    for name in ("Q", "K", "V"):
        if name in inputs:
            full[name] = _to_fmpq_mat(inputs[name])
        else:
            full[name] = matrices[source_of(name, inputs)] * matrices[f"W_{name}"]
    heads = problem.heads
    kv_heads = problem.kv_heads or heads
    d_k = full["Q"].ncols() // heads
    d_v = full["V"].ncols() // kv_heads
    group = heads // kv_heads
    head_problem = dataclasses.replace(problem, d_k=problem.d_k or d_k)
    outputs = []
    for h in range(heads):
        prefix, g = f"head{h + 1}.", h // group
        blocks = {"Q": _columns(full["Q"], h * d_k, (h + 1) * d_k),
                  "K": _columns(full["K"], g * d_k, (g + 1) * d_k),
                  "V": _columns(full["V"], g * d_v, (g + 1) * d_v)}
        for name, block in blocks.items():
            index = h + 1 if name == "Q" else g + 1
            if name in inputs:
                formula = f"{name}^{{({index})}}"
                operands: tuple[str, ...] = (name,)
            else:
                source = "X_{kv}" if source_of(name, inputs) == "X_kv" else "X"
                formula = f"{source} W_{name}^{{({index})}}"
                operands = (source_of(name, inputs), f"W_{name}")
            yield Step(prefix + name, name, formula, operands,
                       f"head {h + 1}'s {'queries' if name == 'Q' else 'keys' if name == 'K' else 'values'}"
                       + (f" (shared by key/value group {g + 1})" if group > 1 and name != "Q" else ""),
                       grids.RationalGrid(block))
        local = {"Q", "K", "V", "scores", "scaled", "mask", "masked", "exp", "exp_sum",
                 "weights", "output"}
        for step in attention_core(head_problem, blocks, None):
            step = _prefixed(step, prefix, local)
            if step.name.endswith(".output"):
                outputs.append(step.value)
            yield step
    concat = ConcatGrid(outputs)
    yield Step("concat", "C", "[\\mathrm{head}_1 \\mid \\cdots \\mid \\mathrm{head}_h]",
               tuple(f"head{h + 1}.output" for h in range(heads)),
               "the heads' outputs side by side", concat,
               entry=lambda operand, i, j: operand(f"head{j // d_v + 1}.output", i, j % d_v))
    if "W_O" in matrices:
        w_o = matrices["W_O"]

        def project(operand: Operand, i: int, j: int) -> Exact:
            return arith.total(arith.multiply(operand("concat", i, k), w_o[k, j])
                               for k in range(w_o.nrows()))

        yield Step("output", "O", "C\\,W_O", ("concat", "W_O"),
                   "multi-head output: the heads mixed by W_O", ProductGrid(concat, w_o),
                   entry=project)
    else:
        yield Step("output", "O", "C", ("concat",), "multi-head output (no W_O)",
                   concat, entry=lambda operand, i, j: operand("concat", i, j))
