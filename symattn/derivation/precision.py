"""Attention as a framework computes it in one floating-point format, step by step.

``compute(problem, "float16")`` runs the steps of the derivation in that
format, in the order NumPy and PyTorch use on the CPU (docs/checking.md,
"Framework precision"), with every overflow, underflow and nan exactly as the
format produces it:

- the inputs are rounded to the format (nearest, ties to even);
- a matrix product (Q = X W_Q, the scores Q K^T, the output A V) adds the
  products k = 1, 2, ... one fused multiply-add at a time, in the format the
  framework accumulates in (float32 for float16 and bfloat16, whose products
  are exact there), and rounds the entry to the format once at the end;
- the scaled scores are the scores divided by sqrt(d_k) rounded to the format
  (``scores / math.sqrt(d_k)``), or times the given scale, then divided by the
  temperature; a masked entry is -inf (``masked_fill``);
- naive softmax: e^z of each entry (NumPy's ``exp`` in that dtype; bfloat16:
  float32's, rounded), their row sum added left to right in the accumulating
  format, each exponential divided by the sum;
- max-shifted softmax (``torch.softmax``, seed 004's ``np.exp(x - x.max())``):
  the row maximum subtracted first, then the same.

The weights and output a framework reports are the max-shifted ones
(``weights``, ``output``); the naive ones are ``weights_naive`` and
``output_naive``.

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"scaled": [["12", "11.5", "3"]]},
...                                 "options": {"scale": "none"}})
>>> run = compute(problem, "float16")
>>> run.row("exp", 0), run.row("weights_naive", 0)
((inf, inf, 20.078125), (nan, nan, 0.0))
>>> [round(w, 4) for w in run.row("weights", 0)]
[0.6226, 0.3774, 0.0001]
"""

from __future__ import annotations

__all__ = ["FrameworkStep", "Framework", "STEPS", "compute"]

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from flint import fmpq

from symattn.errors import InputError, Location
from symattn.problem.modes import Normalisation
from symattn.problem.problem import EntryMatrix, Problem
from symattn.problem.shapes import projection_source
from symattn.values.exact import NEG_INF
from symattn.values.floats import (FORMATS, FloatFormat, bfloat16_bits, fused_multiply_add,
                                   round_float, round_to)

Matrix = tuple[tuple[float, ...], ...]
# The steps computed, in order (those of the spec's inputs among them).
STEPS = ("X", "X_kv", "W_Q", "W_K", "W_V", "Q", "K", "V", "scores", "scaled", "masked", "exp",
         "exp_sum", "weights_naive", "output_naive", "row_max", "shifted", "exp_shifted",
         "exp_shifted_sum", "weights", "output")


@dataclass(frozen=True)
class FrameworkStep:
    """One step's values in the format (floats: inf and nan as they came)."""

    name: str
    values: Matrix


@dataclass(frozen=True)
class Framework:
    """The steps of one problem computed in one format."""

    format: str
    steps: tuple[FrameworkStep, ...]

    def __contains__(self, name: object) -> bool:
        return any(step.name == name for step in self.steps)

    def __getitem__(self, name: str) -> FrameworkStep:
        for step in self.steps:
            if step.name == name:
                return step
        raise KeyError(name)

    def row(self, name: str, i: int) -> tuple[float, ...]:
        return self[name].values[i]

    def value(self, name: str, i: int, j: int) -> float:
        return self[name].values[i][j]


def compute(problem: Problem, precision: str) -> Framework:
    """Every step of ``problem`` in the format ``precision`` (float64 ... bfloat16)."""
    fmt = FORMATS[precision]
    _check_supported(problem)
    steps: dict[str, Matrix] = {name: _input(matrix, fmt, name, problem.source)
                                for name, matrix in problem.inputs.items()}
    if "scaled" not in steps and "scores" not in steps:
        for name, weight in (("Q", "W_Q"), ("K", "W_K"), ("V", "W_V")):
            if name not in steps and weight in steps:   # from X, X_kv or its own X_q ...
                origin = projection_source(name, steps)
                steps[name] = _product(steps[origin], steps[weight], fmt)
        steps["scores"] = _product(steps["Q"], _transpose(steps["K"]), fmt)
    if "scaled" not in steps:
        steps["scaled"] = _scale(problem, steps["scores"], fmt)
    allowed = problem.allowed()
    steps["masked"] = tuple(tuple(z if keep else -math.inf for z, keep in zip(row, keeps))
                            for row, keeps in zip(steps["scaled"], allowed))
    _softmax(steps, "masked", "", fmt)
    steps["row_max"] = tuple((max(row),) for row in steps["masked"])
    steps["shifted"] = _map2(steps["masked"], steps["row_max"], lambda a, b: a - b, fmt)
    _softmax(steps, "shifted", "shifted", fmt)
    return Framework(precision, tuple(FrameworkStep(name, steps[name]) for name in STEPS
                                      if name in steps))


def _check_supported(problem: Problem) -> None:
    where = Location(file=problem.source, key="options.precision")
    if problem.heads > 1 or "W_O" in problem.inputs or problem.is_symbolic:
        raise InputError("a floating-point precision needs one head and numeric inputs "
                         "(no symbols, roots or positional encodings)", where)
    if problem.normalisation is not Normalisation.SOFTMAX:
        raise InputError("a floating-point precision needs softmax normalisation", where)


def _input(matrix: EntryMatrix, fmt: FloatFormat, name: str, source: str | None) -> Matrix:
    rows = []
    for i, row in enumerate(matrix, start=1):
        values = []
        for j, entry in enumerate(row, start=1):
            if entry.value is NEG_INF:
                values.append(-math.inf)
            elif isinstance(entry.value, fmpq):
                values.append(round_to(entry.value, fmt))
            else:
                raise InputError("a floating-point precision needs numbers, not "
                                 f"{entry.text!r}", Location(file=source, key=f"inputs.{name}",
                                                             row=i, column=j))
        rows.append(tuple(values))
    return tuple(rows)


def _transpose(matrix: Matrix) -> Matrix:
    return tuple(zip(*matrix))


def _product(left: Matrix, right: Matrix, fmt: FloatFormat) -> Matrix:
    """left @ right: per entry a chain of fused multiply-adds in the accumulating format."""
    wide = FORMATS[fmt.accumulate]
    columns = _transpose(right)

    def entry(row: Sequence[float], column: Sequence[float]) -> float:
        total = 0.0
        for a, b in zip(row, column):
            total = fused_multiply_add(a, b, total, wide)
        return round_float(total, fmt)

    return tuple(tuple(entry(row, column) for column in columns) for row in left)


def _scale(problem: Problem, scores: Matrix, fmt: FloatFormat) -> Matrix:
    """scores / sqrt(d_k) (or times the given scale), then / temperature, in the format."""
    scaled = scores
    if problem.scale is None:
        divisor = round_float(math.sqrt(problem.d_k_value or 1), fmt)
        scaled = _map2(scaled, ((divisor,),), lambda a, b: a / b, fmt)
    elif problem.scale != 1:
        factor = round_to(_rational(problem.scale, problem, "scale"), fmt)
        scaled = _map2(scaled, ((factor,),), lambda a, b: a * b, fmt)
    if problem.temperature != 1:
        temperature = round_to(_rational(problem.temperature, problem, "temperature"), fmt)
        scaled = _map2(scaled, ((temperature,),), lambda a, b: a / b, fmt)
    return scaled


def _rational(value: object, problem: Problem, key: str) -> fmpq:
    if not isinstance(value, fmpq):
        raise InputError(f"a floating-point precision needs a number for {key}",
                         Location(file=problem.source, key=f"options.{key}"))
    return value


def _softmax(steps: dict[str, Matrix], source: str, shifted: str, fmt: FloatFormat) -> None:
    """exp, row sums, weights and output of one family (naive: ``shifted`` empty)."""
    suffix = "_" + shifted if shifted else ""
    exp, exp_sum = "exp" + suffix, "exp" + suffix + "_sum"
    steps[exp] = tuple(tuple(_exp(z, fmt) for z in row) for row in steps[source])
    steps[exp_sum] = tuple((_row_sum(row, fmt),) for row in steps[exp])
    weights, output = ("weights", "output") if shifted else ("weights_naive", "output_naive")
    steps[weights] = _map2(steps[exp], steps[exp_sum], _divide, fmt)
    if "V" in steps:
        steps[output] = _product(steps[weights], steps["V"], fmt)


def _exp(value: float, fmt: FloatFormat) -> float:
    """NumPy's exp in the format (bfloat16: float32's, rounded on its bits)."""
    dtype = "float32" if fmt.name == "bfloat16" else fmt.name
    with np.errstate(all="ignore"):
        result = float(np.exp(np.dtype(dtype).type(value)))
    return bfloat16_bits(result) if fmt.name == "bfloat16" else result


def _row_sum(row: Sequence[float], fmt: FloatFormat) -> float:
    """Left to right in the accumulating format, rounded to the format at the end."""
    wide = FORMATS[fmt.accumulate]
    total = 0.0
    for value in row:
        total = round_float(total + value, wide)
    return round_float(total, fmt)


def _divide(a: float, b: float) -> float:
    """IEEE division: x / 0 is +-inf, 0 / 0 and inf / inf are nan."""
    if b == 0:
        return math.nan if a == 0 or math.isnan(a) else math.copysign(math.inf, a) * \
            math.copysign(1.0, b)
    return a / b


def _map2(left: Matrix, right: Matrix, op: Callable[[float, float], float],
          fmt: FloatFormat) -> Matrix:
    """op entry by entry, ``right`` broadcast over a row (one column) or everywhere (1x1);
    the double result rounded to the format (one rounding: exact for + - * /)."""
    def other(i: int, j: int) -> float:
        row = right[i] if len(right) > 1 else right[0]
        return row[j] if len(row) > 1 else row[0]

    with np.errstate(all="ignore"):
        return tuple(tuple(round_float(_ieee(op, a, other(i, j)), fmt)
                           for j, a in enumerate(row)) for i, row in enumerate(left))


def _ieee(op: Callable[[float, float], float], a: float, b: float) -> float:
    """op on two floats, with the nan IEEE gives where Python would raise (inf - inf is nan
    in Python already; only a division by zero raises)."""
    try:
        return op(a, b)
    except ZeroDivisionError:
        return _divide(a, b)
