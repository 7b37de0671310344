"""The steps after attention: feed-forward, residuals, LayerNorm, readout.

Each step is a ``formula_step``: its entries follow from earlier steps by an
entry rule written once, which gives the exact value (operands exact) and the
document's own path for the checker (operands as printed). Values stay
rational where the arithmetic allows (``arith``), so an output row that is
exactly rational stays rational all the way to the logits.

Steps, when configured (see ``layer_config``)::

    W_vocab                          (before X, when X comes from a vocabulary)
    residual_1 = X + output          norm_1 = LayerNorm(...)
    W_FFN | W_1, b_1, W_2, b_2       (the FFN's matrices)
    ffn_hidden = x W_1 + b_1         ffn_activated = ReLU/GELU(...)
    ffn = x W_FFN | a W_2 + b_2
    residual_2 = x + ffn             norm_2 = LayerNorm(...)
    h = row p                        logits = h W_vocab (tied) | h U
    logits_exp = e^{z/T}             logits_exp_sum = their sum    (hidden: the table of probs)
    probs = softmax(logits / T)
"""

from __future__ import annotations

__all__ = ["input_steps", "STAGES", "LAYER_STEP_INFO", "most_likely_tokens"]

import dataclasses
from typing import Callable, Sequence

from flint import fmpq

from symattn.derivation import grids
from symattn.derivation.steps import (Derivation, EntryRule, Operand, Step, StepInfo, formula_step,
                                     step_shape)
from symattn.errors import InputError
from symattn.problem.problem import Problem
from symattn.problem.tables import EntryMatrix
from symattn.values import arith
from symattn.values.entries import Symbolic
from symattn.values.exact import Exact, exact_text, to_ball

LAYER_STEP_INFO: dict[str, StepInfo] = {
    "W_vocab": StepInfo("W_{vocab}", "W_{vocab}", (), "vocabulary embedding matrix"),
    "residual_1": StepInfo("R_1", "X + O", ("X", "output"), "residual: input plus attention"),
    "norm_1": StepInfo("N_1", "\\mathrm{LayerNorm}(R_1)", ("residual_1",),
                       "each row centred and divided by its standard deviation"),
    "W_FFN": StepInfo("W_{FFN}", "W_{FFN}", (), "feed-forward matrix"),
    "W_1": StepInfo("W_1", "W_1", (), "first feed-forward layer"),
    "b_1": StepInfo("b_1", "b_1", (), "first feed-forward bias"),
    "W_2": StepInfo("W_2", "W_2", (), "second feed-forward layer"),
    "b_2": StepInfo("b_2", "b_2", (), "second feed-forward bias"),
    "ffn_hidden": StepInfo("H", "x W_1 + b_1", ("W_1", "b_1"), "hidden layer before activation"),
    "ffn_activated": StepInfo("\\phi(H)", "\\phi(H)", ("ffn_hidden",), "hidden layer activated"),
    "ffn": StepInfo("F", "x W_{FFN}", ("W_FFN",), "feed-forward output"),
    "residual_2": StepInfo("R_2", "x + F", ("ffn",), "residual: FFN input plus FFN output"),
    "norm_2": StepInfo("N_2", "\\mathrm{LayerNorm}(R_2)", ("residual_2",),
                       "each row centred and divided by its standard deviation"),
    "h": StepInfo("h", "\\text{row } p", (), "the representation read out for prediction"),
    "logits": StepInfo("z", "h\\,W_{vocab}", ("h", "W_vocab"), "a score per vocabulary token"),
    "logits_exp": StepInfo("e^{z}", "e^{z_j / T}", ("logits",),
                           "exponentials of the logits (the probabilities' table)"),
    "logits_exp_sum": StepInfo("\\Sigma", "\\sum_j e^{z_j / T}", ("logits_exp",),
                               "sum of the exponentials of the logits"),
    "probs": StepInfo("P", "\\operatorname{softmax}(z / T)", ("logits",),
                      "next-token probabilities"),
}


def _values(matrix: EntryMatrix, where: str) -> list[list[Exact]]:
    rows = []
    for i, row in enumerate(matrix, start=1):
        values = []
        for j, entry in enumerate(row, start=1):
            if isinstance(entry.value, Symbolic):
                raise InputError(f"{where}, row {i}, column {j}: symbolic entries are not "
                                 "supported after attention yet; use numbers")
            values.append(entry.value)
        rows.append(values)
    return rows


def _input_step(name: str, values: list[list[Exact]]) -> Step:
    info = LAYER_STEP_INFO[name]
    return Step(name, info.symbol, info.formula, (), info.description, grids.ValueGrid(values))


def input_steps(problem: Problem) -> list[Step]:
    """Steps shown before X: the vocabulary the embeddings come from."""
    if problem.vocabulary is None:
        return []
    return [_input_step("W_vocab", _values(problem.vocabulary.matrix, "vocabulary.W_vocab"))]


def _step(name: str, shape: tuple[int, int], rule: EntryRule,
          earlier: Sequence[Step], formula: str | None = None,
          operands: tuple[str, ...] | None = None) -> Step:
    info = LAYER_STEP_INFO[name]
    if formula is not None or operands is not None:
        info = StepInfo(info.symbol, formula or info.formula,
                        info.operands if operands is None else operands, info.description)
    return formula_step(info, name, shape, rule, earlier)


def _matrix_product(source: str, constants: list[list[Exact]], bias: list[Exact] | None = None
                    ) -> EntryRule:
    def rule(operand: Operand, i: int, j: int) -> Exact:
        value = arith.total(arith.multiply(operand(source, i, k), constants[k][j])
                            for k in range(len(constants)))
        return arith.add(value, bias[j]) if bias is not None else value
    return rule


def _sum_rule(left: str, right: str) -> EntryRule:
    return lambda operand, i, j: arith.add(operand(left, i, j), operand(right, i, j))


def _layernorm_rule(source: str, width: int, epsilon: Exact) -> EntryRule:
    # A row's centred entries and its deviation, made once for the row's entries (which
    # then share them as parts: one evaluation each, ``values.arith``); kept for the
    # last operand only, as the checker runs the rule on a document's own numbers too.
    rows: dict[int, tuple[list[Exact], Exact] | None] = {}
    reading: list[Operand] = []

    def statistics(operand: Operand, i: int) -> tuple[list[Exact], Exact] | None:
        """The centred entries and sqrt(variance + epsilon); None for a constant row."""
        row = [operand(source, i, k) for k in range(width)]
        # Entries with the same closed form are the same number: a constant row is
        # centred to exact zeros even when its entries are irrational.
        constant = _same_closed_form(row)
        if constant and epsilon == 0:
            raise InputError(f"LayerNorm of row {i + 1} of {source}: every entry is the same, "
                             "so the variance is 0 and the row is 0/0; set ffn.epsilon > 0")
        if constant:
            return None
        mean = arith.divide(arith.total(row), fmpq(width))
        centred = [arith.subtract(x, mean) for x in row]
        variance = arith.divide(arith.total(arith.multiply(c, c) for c in centred), fmpq(width))
        return centred, arith.sqrt(arith.add(variance, epsilon))

    def rule(operand: Operand, i: int, j: int) -> Exact:
        if not reading or reading[0] is not operand:
            reading[:] = [operand]
            rows.clear()
        if i not in rows:
            rows[i] = statistics(operand, i)
        found = rows[i]
        return fmpq(0) if found is None else arith.divide(found[0][j], found[1])
    return rule


def _same_closed_form(row: list[Exact]) -> bool:
    """Whether every entry has one closed form. Entries whose balls are apart are not
    (checked first: the closed forms of a deep layer's entries are long to write)."""
    if any(_apart(row[0], x) for x in row[1:]):
        return False
    return len({exact_text(x) for x in row}) == 1


class _Appender:
    """Steps appended after ``earlier``; each new step's rule reads every step before it."""

    def __init__(self, earlier: Sequence[Step]) -> None:
        self.earlier = list(earlier)
        self.steps: list[Step] = []

    def add(self, name: str, shape: tuple[int, int], rule: EntryRule,
            formula: str | None = None, operands: tuple[str, ...] | None = None) -> None:
        self.steps.append(_step(name, shape, rule, self.earlier + self.steps, formula, operands))

    def add_input(self, name: str, values: list[list[Exact]]) -> None:
        """A matrix of the spec, shown as a step of its own (W_FFN, W_1, ...)."""
        self.steps.append(_input_step(name, values))


def _identity(value: Exact) -> Exact:
    return value


# options.ffn.activation: the function and how the activated step is written
_ACTIVATIONS: dict[str, tuple[Callable[[Exact], Exact], str]] = {
    "relu": (arith.relu, "\\mathrm{ReLU}(H)"),
    "gelu": (arith.gelu, "\\mathrm{GELU}(H)"),
    "none": (_identity, "H"),
}


def _zeros(width: int) -> list[list[Exact]]:
    row: list[Exact] = [fmpq(0)] * width
    return [row]


def feed_forward(problem: Problem, earlier: Sequence[Step]) -> list[Step]:
    """The FFN after attention, with the residuals and LayerNorms the spec asks for."""
    config = problem.ffn
    if config is None:
        return []
    added = _Appender(earlier)
    n, width = step_shape(earlier, "output")
    source = "output"
    if config.residual:
        added.add("residual_1", (n, width), _sum_rule("X", "output"))
        source = "residual_1"
    if config.layernorm:
        added.add("norm_1", (n, width), _layernorm_rule(source, width, config.epsilon),
                  operands=(source,))
        source = "norm_1"
    ffn_input = source
    if config.W is not None:
        weights = _values(config.W, "ffn.W")
        added.add_input("W_FFN", weights)
        width_out = len(weights[0])
        symbol = {"output": "O", "residual_1": "R_1", "norm_1": "N_1"}[source]
        added.add("ffn", (n, width_out), _matrix_product(source, weights),
                  formula=f"{symbol}\\,W_{{FFN}}", operands=(source, "W_FFN"))
    else:
        width_out = _two_layers(added, problem, source, n)
    source = "ffn"
    if config.residual:
        added.add("residual_2", (n, width_out), _sum_rule(ffn_input, "ffn"),
                  operands=(ffn_input, "ffn"))
        source = "residual_2"
    if config.layernorm:
        added.add("norm_2", (n, width_out), _layernorm_rule(source, width_out, config.epsilon),
                  operands=(source,))
    return added.steps


def _two_layers(added: _Appender, problem: Problem, source: str, n: int) -> int:
    """W_1, b_1, W_2, b_2, then ffn_hidden, ffn_activated and ffn; the FFN's width."""
    config = problem.ffn
    if config is None or config.W_1 is None or config.W_2 is None:
        raise InputError("the feed-forward network needs W, or W_1 and W_2")
    first, second = _values(config.W_1, "ffn.W_1"), _values(config.W_2, "ffn.W_2")
    bias_1 = _values(config.b_1, "ffn.b_1") if config.b_1 else _zeros(len(first[0]))
    bias_2 = _values(config.b_2, "ffn.b_2") if config.b_2 else _zeros(len(second[0]))
    for name, values in (("W_1", first), ("b_1", bias_1), ("W_2", second), ("b_2", bias_2)):
        added.add_input(name, values)
    hidden = len(first[0])
    added.add("ffn_hidden", (n, hidden), _matrix_product(source, first, bias_1[0]),
              operands=(source, "W_1", "b_1"))
    activation, label = _ACTIVATIONS[config.activation]
    added.add("ffn_activated", (n, hidden),
              lambda operand, i, j: activation(operand("ffn_hidden", i, j)), formula=label)
    added.add("ffn", (n, len(second[0])), _matrix_product("ffn_activated", second, bias_2[0]),
              formula="\\phi(H)\\,W_2 + b_2", operands=("ffn_activated", "W_2", "b_2"))
    return len(second[0])


def _last_output(earlier: Sequence[Step]) -> str:
    for name in ("norm_2", "residual_2", "ffn", "norm_1", "residual_1", "output"):
        if any(step.name == name for step in earlier):
            return name
    raise InputError("the readout needs the attention output (give V or W_V)")


def readout(problem: Problem, earlier: Sequence[Step]) -> list[Step]:
    """h (a row of the last output), the logits over the vocabulary and their softmax."""
    config = problem.readout
    if config is None:
        return []
    source = _last_output(earlier)
    n, width = step_shape(earlier, source)
    positions = problem.query_positions or tuple(range(1, n + 1))
    row = positions.index(config.position) if config.position is not None else n - 1
    added = _Appender(earlier)
    added.add("h", (1, width), lambda operand, _, j: operand(source, row, j),
              formula=f"\\text{{row {positions[row]} of {source}}}", operands=(source,))
    if config.unembedding is None:
        unembedding, formula, operand_name = _tied_unembedding(problem)
    else:
        unembedding = _values(config.unembedding, "readout.unembedding")
        added.steps.append(_input_step_named("U", unembedding))
        formula, operand_name = "h\\,U", "U"
    size = len(unembedding[0])
    added.add("logits", (1, size), _matrix_product("h", unembedding), formula=formula,
              operands=("h", operand_name))
    temperature = config.temperature
    plain = temperature == 1
    # e^z and its sum: the table of the probabilities (hidden steps, claimable)
    added.add("logits_exp", (1, size), lambda operand, i, j: arith.exp(
        arith.divide(operand("logits", i, j), temperature)),
              formula="e^{z_j}" if plain else None)
    added.add("logits_exp_sum", (1, 1), lambda operand, i, _: arith.total(
        operand("logits_exp", i, k) for k in range(size)),
              formula="\\sum_j e^{z_j}" if plain else None)
    added.steps[-2:] = [dataclasses.replace(step, hidden=True) for step in added.steps[-2:]]
    added.add("probs", (1, size), _softmax_rule("logits", size, temperature),
              formula="\\operatorname{softmax}(z)" if plain else None)
    return added.steps


def _tied_unembedding(problem: Problem) -> tuple[list[list[Exact]], str | None, str]:
    """W_vocab as the unembedding (d_model x vocabulary), its formula and operand."""
    if problem.vocabulary is None:
        raise InputError("a tied unembedding needs a [vocabulary]")
    vocabulary = _values(problem.vocabulary.matrix, "vocabulary.W_vocab")
    if problem.vocabulary.layout == "rows":
        return [list(column) for column in zip(*vocabulary)], "h\\,W_{vocab}^{\\top}", "W_vocab"
    return vocabulary, None, "W_vocab"


def _input_step_named(name: str, values: list[list[Exact]]) -> Step:
    return Step(name, name, name, (), "unembedding matrix", grids.ValueGrid(values))


def _softmax_rule(source: str, size: int, temperature: Exact) -> EntryRule:
    def rule(operand: Operand, i: int, j: int) -> Exact:
        logits = [operand(source, i, k) for k in range(size)]
        if all(isinstance(z, fmpq) for z in logits) and len(set(logits)) == 1:
            return fmpq(1, size)        # all equal: exactly uniform
        scaled = [arith.divide(z, temperature) for z in logits]
        exps = [arith.exp(z) for z in scaled]
        return arith.divide(exps[j], arith.total(exps))
    return rule


def most_likely_tokens(derivation: Derivation) -> list[str]:
    """Names (or ids) of the token(s) with the highest probability, compared exactly.

    Softmax keeps the order of the logits, so the logits are compared. Tokens
    whose logits have the same closed form (identical unembedding columns, or
    equal rationals) tie exactly; others are told apart with certified balls.
    """
    logits = derivation["logits"].value
    size = logits.shape[1]
    values = [logits.exact(0, j) for j in range(size)]
    best = [0]
    for j in range(1, size):
        direction = _apart(values[j], values[best[0]])
        if direction == 0 and exact_text(values[j]) == exact_text(values[best[0]]):
            best.append(j)
            continue
        if direction == 0:
            direction = arith.sign(arith.subtract(values[j], values[best[0]]))
        if direction > 0:
            best = [j]
        elif direction == 0:
            best.append(j)
    vocabulary = derivation.problem.vocabulary
    names = vocabulary.tokens if vocabulary else None
    return [names[j] if names and j < len(names) else str(j) for j in best]


def _apart(left: Exact, right: Exact) -> int:
    """1 or -1 when balls tell ``left`` from ``right`` (left above or below), else 0: the
    closed forms of a deep layer's entries and logits are long to write and compare."""
    try:
        low, high = to_ball(left, 128), to_ball(right, 128)
    except (ValueError, ArithmeticError):    # no finite ball: the closed forms decide
        return 0
    if low is None or high is None or low.overlaps(high):
        return 0
    return 1 if low > high else -1


STAGES = (feed_forward, readout)
