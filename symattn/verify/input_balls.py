"""Attention in ball arithmetic over boxes of inputs: every step's entries enclosed.

``evaluate(problem, radii, shift)`` computes the steps Q, K, V, scores,
scaled, masked, exp, exp_sum, weights and output of a one-head problem with
python-flint ``arb`` balls, each input entry a ball: its printed value moved
by ``shift`` (a rational per entry), with the radius ``radii`` gives it (0:
that point exactly). Every result encloses the step's value for *every*
choice of inputs in the balls (interval arithmetic is sound, not sharp). A
weight is computed as 1 / sum_k e^(z_k - z_j), which keeps the enclosure
narrow.

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"Q": [["0.5"]], "K": [["1"], ["0"]],
...     "V": [["1"], ["0"]]}, "options": {"scale": "none"}})
>>> balls = evaluate(problem, {}, {})
>>> balls["weights"][0][0].str(10, radius=False)     # 1 / (1 + e^-0.5)
'0.6224593312'
>>> wide = evaluate(problem, {("Q", 0, 0): fmpq(1, 20)}, {})
>>> wide["scores"][0][0]
[0.5 +/- 0.0501]
"""

from __future__ import annotations

__all__ = ["Balls", "Box", "ENCLOSED_STEPS", "evaluate", "dependencies"]

from typing import Mapping, Sequence

from flint import arb, fmpq

from symattn.problem.problem import Problem
from symattn.values.exact import NEG_INF, to_ball, working_precision

BITS = 256
# (matrix, row, column), 0-based: a rounded input entry
Box = tuple[str, int, int]
Balls = dict[str, list[list[arb | None]]]
ENCLOSED_STEPS = ("Q", "K", "V", "scores", "scaled", "masked", "exp", "exp_sum", "weights",
                  "output")


def dependencies(step: str, inputs: Sequence[str]) -> tuple[str, ...]:
    """The inputs (of ``inputs``) a step's value depends on, in input order.

    >>> dependencies("scores", ("X", "W_Q", "W_K", "W_V"))
    ('X', 'W_Q', 'W_K')
    >>> dependencies("W_V", ("X", "W_Q", "W_K", "W_V")), dependencies("ffn", ("Q", "K", "V"))
    (('W_V',), ('Q', 'K', 'V'))
    """
    kv = "X_kv" in inputs
    names = {"Q": {"X", "W_Q", "Q"}, "K": {"X_kv" if kv else "X", "W_K", "K"},
             "V": {"X_kv" if kv else "X", "W_V", "V"}}
    scores = names["Q"] | names["K"] | {"scores", "scaled"}
    names.update({step: scores for step in ("scores", "scaled", "masked", "exp", "exp_sum",
                                            "weights")})
    names["output"] = scores | names["V"]
    # an input itself; any later step (the rest of the layer): every input
    wanted = names.get(step, {step} if step in inputs else set(inputs))
    return tuple(name for name in inputs if name in wanted)


def evaluate(problem: Problem, radii: Mapping[Box, fmpq], shift: Mapping[Box, fmpq]) -> Balls:
    """The steps as balls, inputs = printed + shift, each within its radius."""
    with working_precision(BITS):
        steps: Balls = {}
        for name, matrix in problem.inputs.items():
            steps[name] = [[_entry(entry.value, (name, i, j), radii, shift)
                            for j, entry in enumerate(row)] for i, row in enumerate(matrix)]
        if "scores" not in steps and "scaled" not in steps:
            source = "X_kv" if "X_kv" in steps else "X"
            for name, weight, origin in (("Q", "W_Q", "X"), ("K", "W_K", source),
                                         ("V", "W_V", source)):
                if name not in steps:
                    steps[name] = _product(steps[origin], steps[weight])
            steps["scores"] = _product(steps["Q"], _transpose(steps["K"]))
        if "scaled" not in steps:
            steps["scaled"] = _scaled(problem, steps["scores"])
        allowed = problem.allowed()
        steps["masked"] = [[z if keep else None for z, keep in zip(row, keeps)]
                           for row, keeps in zip(steps["scaled"], allowed)]
        _softmax(steps)
        return steps


def _entry(value: object, box: Box, radii: Mapping[Box, fmpq], shift: Mapping[Box, fmpq]
           ) -> arb | None:
    if value is NEG_INF:
        return None
    assert isinstance(value, fmpq)
    point = value + shift.get(box, fmpq(0))
    radius = radii.get(box)
    return arb(point) if radius is None else arb(point, radius)


def _transpose(matrix: list[list[arb | None]]) -> list[list[arb | None]]:
    return [list(column) for column in zip(*matrix)]


def _product(left: list[list[arb | None]], right: list[list[arb | None]]
             ) -> list[list[arb | None]]:
    columns = _transpose(right)
    return [[_dot(row, column) for column in columns] for row in left]


def _dot(row: Sequence[arb | None], column: Sequence[arb | None]) -> arb:
    total = arb(0)
    for a, b in zip(row, column):
        assert a is not None and b is not None
        total += a * b
    return total


def _scaled(problem: Problem, scores: list[list[arb | None]]) -> list[list[arb | None]]:
    factor = to_ball(problem.scale_value, BITS)    # type: ignore[arg-type]
    temperature = to_ball(problem.temperature, BITS)    # type: ignore[arg-type]
    return [[None if s is None else s * factor / temperature for s in row] for row in scores]


def _softmax(steps: Balls) -> None:
    """exp, exp_sum, weights (as 1 / sum e^(z_k - z_j)) and output."""
    exp = [[None if z is None else z.exp() for z in row] for row in steps["masked"]]
    steps["exp"] = [[arb(0) if e is None else e for e in row] for row in exp]
    steps["exp_sum"] = [[sum((e for e in row if e is not None), arb(0))] for row in exp]
    weights: list[list[arb | None]] = []
    for row in steps["masked"]:
        seen = [(k, z) for k, z in enumerate(row) if z is not None]
        # e^(z_j - z_j) is exactly 1: a ball minus itself would not be 0
        weights.append([arb(0) if z is None else 1 / sum(
            (arb(1) if k == j else (other - z).exp() for k, other in seen), arb(0))
            for j, z in enumerate(row)])
    steps["weights"] = weights
    if "V" in steps:
        steps["output"] = _product(weights, steps["V"])
