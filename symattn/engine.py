"""Build the attention computation as an ordered list of named steps.

``derive(problem)`` returns a ``Derivation``: a tuple of frozen ``Step``
records (name, LaTeX symbol and formula, operands, exact value grid). The
step names are canonical and shared by the checker and every renderer::

    X, W_Q, W_K, W_V, Q, K, V, scores, scaled, mask, masked, exp, exp_sum,
    weights, output

(and with ``options.positions``: PE, X_pos before Q, or Q_rot, K_rot after V).

Rational inputs take the fast exact core (``grids``); inputs with roots or
identifiers take the SymPy path (``symbolic``). Nothing here formats numbers.

>>> from symattn.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1]],
...                                            "V": [[1], [2]]}, "options": {"scale": "none"}})
>>> derivation = derive(problem)
>>> [step.name for step in derivation.steps]
['Q', 'K', 'V', 'scores', 'scaled', 'exp', 'exp_sum', 'weights', 'output']
>>> derivation["scores"].value.exact(0, 0)
1
"""

from __future__ import annotations

__all__ = ["Step", "Derivation", "derive", "STEP_INFO", "STEP_NAMES", "StepInfo", "formula_step",
           "Operand", "EntryRule"]

from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from flint import fmpq, fmpq_mat

from symattn import grids
from symattn.errors import InputError, Location
from symattn.exact import NEG_INF, Exact, Surd
from symattn.problem import EntryMatrix, Problem


@dataclass(frozen=True)
class StepInfo:
    symbol: str            # LaTeX symbol of the result
    formula: str           # LaTeX right-hand side in terms of operands
    operands: tuple[str, ...]
    description: str


STEP_INFO: dict[str, StepInfo] = {
    "X": StepInfo("X", "X", (), "input embeddings, one row per token"),
    "X_kv": StepInfo("X_{kv}", "X_{kv}", (), "the sequence keys and values come from"),
    "W_Q": StepInfo("W_Q", "W_Q", (), "query projection"),
    "W_K": StepInfo("W_K", "W_K", (), "key projection"),
    "W_V": StepInfo("W_V", "W_V", (), "value projection"),
    # options.positions = "sinusoidal" (symattn.positions): encodings added to X
    "PE": StepInfo("\\mathrm{PE}", "\\mathrm{PE}", (), "sinusoidal positional encodings"),
    "X_pos": StepInfo("X_{pos}", "X + \\mathrm{PE}", ("X", "PE"),
                      "each token's vector plus the encoding of its position"),
    "PE_kv": StepInfo("\\mathrm{PE}_{kv}", "\\mathrm{PE}_{kv}", (),
                      "sinusoidal positional encodings of the key/value sequence"),
    "X_kv_pos": StepInfo("X_{kv,pos}", "X_{kv} + \\mathrm{PE}_{kv}", ("X_kv", "PE_kv"),
                         "each key/value token's vector plus the encoding of its position"),
    "Q": StepInfo("Q", "X W_Q", ("X", "W_Q"), "queries"),
    "K": StepInfo("K", "X W_K", ("X", "W_K"), "keys"),
    "V": StepInfo("V", "X W_V", ("X", "W_V"), "values"),
    # options.positions = "rope": queries and keys rotated by their positions
    "Q_rot": StepInfo("Q_{rot}", "R_p q_p", ("Q",), "queries rotated by their positions"),
    "K_rot": StepInfo("K_{rot}", "R_p k_p", ("K",), "keys rotated by their positions"),
    "scores": StepInfo("S", "Q K^{\\top}", ("Q", "K"), "raw scores q_i . k_j"),
    "scaled": StepInfo("\\tilde{S}", "\\frac{Q K^{\\top}}{\\sqrt{d_k}}", ("scores",),
                       "scores after scaling (and temperature)"),
    "mask": StepInfo("M", "M", (), "additive mask: 0 keeps, -oo masks"),
    "masked": StepInfo("Z", "\\tilde{S} + M", ("scaled", "mask"), "scaled scores plus mask"),
    "exp": StepInfo("E", "e^{Z_{ij}}", ("masked",), "exponentials, not max-shifted"),
    "exp_sum": StepInfo("\\Sigma", "\\sum_j e^{Z_{ij}}", ("exp",), "row sums of the exponentials"),
    "weights": StepInfo("A", "\\frac{E_{ij}}{\\Sigma_i}", ("exp", "exp_sum"),
                        "attention weights, each row sums to 1"),
    "output": StepInfo("O", "A V", ("weights", "V"), "weighted sums of the value rows"),
}
STEP_NAMES = tuple(STEP_INFO)


# How one entry of a step follows from entries of its operands: the checker
# calls it with the document's printed numbers in place of exact ones.
Operand = Callable[[str, int, int], Exact]
EntryRule = Callable[[Operand, int, int], Exact]


@dataclass(frozen=True)
class Step:
    """One named quantity of the derivation, with its exact value."""

    name: str
    symbol: str
    formula: str
    operands: tuple[str, ...]
    description: str
    value: grids.Grid
    entry: EntryRule | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return self.value.shape


@dataclass(frozen=True)
class Derivation:
    """The steps of one problem, in order; index by step name."""

    problem: Problem
    steps: tuple[Step, ...]

    def __getitem__(self, name: str) -> Step:
        for step in self.steps:
            if step.name == name:
                return step
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return any(step.name == name for step in self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(step.name for step in self.steps)

    def _repr_latex_(self) -> str:
        """Jupyter / nbconvert: the worked example as a LaTeX fragment."""
        from symattn.render_latex import render_latex

        return render_latex(self, fragment=True)

    def _repr_markdown_(self) -> str:
        """Jupyter: the worked example as Markdown with $...$ math."""
        from symattn.render_markdown import render_markdown

        return render_markdown(self)


def formula_step(info: StepInfo, name: str, shape: tuple[int, int], entry: EntryRule,
                 earlier: Sequence[Step]) -> Step:
    """A step whose every entry follows from earlier steps by ``entry``."""
    by_name = {step.name: step for step in earlier}

    def exact(step: str, i: int, j: int) -> Exact:
        return by_name[step].value.exact(i, j)

    values = [[entry(exact, i, j) for j in range(shape[1])] for i in range(shape[0])]
    return Step(name, info.symbol, info.formula, info.operands, info.description,
                grids.ValueGrid(values), entry)


def make_step(name: str, value: grids.Grid, *, formula: str | None = None,
              operands: tuple[str, ...] | None = None) -> Step:
    info = STEP_INFO[name]
    return Step(name, info.symbol, formula or info.formula,
                info.operands if operands is None else operands, info.description, value)


def scaled_formula(problem: Problem) -> str:
    """LaTeX for the scaled step that says what was actually done."""
    numerator = "S"
    if problem.scale is None:
        body = f"\\frac{{{numerator}}}{{\\sqrt{{d_k}}}}"
    elif problem.scale == 1:
        body = numerator
    else:
        body = f"s \\cdot {numerator}"
    if problem.temperature != 1:
        body = f"\\frac{{1}}{{T}} \\cdot {body}" if problem.scale is not None else \
            f"\\frac{{{numerator}}}{{\\sqrt{{d_k}}\\, T}}"
    return body


def derive(problem: Problem) -> Derivation:
    """All steps of the attention computation for ``problem``, exactly."""
    try:
        return _derive(problem)
    except InputError as error:
        if error.location is not None:
            raise
        # Problems found while computing (a fully masked row) still name the spec.
        raise type(error)(error.message, Location(file=problem.source)) from None


def _derive(problem: Problem) -> Derivation:
    from symattn import layer

    steps = layer.input_steps(problem)
    multi_head = problem.heads > 1 or "W_O" in problem.inputs
    if problem.positions != "none":   # sines and cosines: the SymPy path (symattn.positions)
        from symattn import positions

        positions.check(problem)
    if problem.is_symbolic:   # roots, identifiers or positions
        if multi_head:
            raise InputError("several heads and W_O need numeric inputs (no symbols or roots)")
        from symattn import symbolic

        steps += symbolic.build_steps(problem)
    elif multi_head:
        from symattn import multihead

        steps += multihead.build_steps(problem)
    else:
        steps += _rational_steps(problem)
    from symattn import diagnostics

    for stage in layer.STAGES + diagnostics.STAGES:
        steps += stage(problem, steps)
    return Derivation(problem, tuple(steps))


def _to_fmpq_mat(matrix: EntryMatrix, holes_to_zero: bool = False) -> fmpq_mat:
    try:   # the common case: every entry a rational
        return fmpq_mat(len(matrix), len(matrix[0]),
                        [entry.value for row in matrix for entry in row])
    except TypeError:
        pass
    values = []
    for row in matrix:
        for entry in row:
            value = entry.value
            if not isinstance(value, fmpq):
                if holes_to_zero:
                    value = fmpq(0)
                else:  # pragma: no cover - symbolic problems take the SymPy path
                    raise InputError(f"entry {entry.text!r} is not rational")
            values.append(value)
    return fmpq_mat(len(matrix), len(matrix[0]), values)


def _embedding_lookup(problem: Problem, name: str) -> dict[str, object]:
    """X picked from the vocabulary is a step with W_vocab as its operand."""
    if name != "X" or not problem.sequence:
        return {}
    return {"formula": "W_{vocab}[\\text{tokens}]", "operands": ("W_vocab",)}


def scale_factor(problem: Problem) -> fmpq | Surd:
    """The number every score is multiplied by: scale / temperature."""
    scale = problem.scale_value
    temperature = problem.temperature
    assert isinstance(scale, (fmpq, Surd)) and isinstance(temperature, (fmpq, Surd))
    inverse = 1 / temperature if isinstance(temperature, fmpq) else temperature.reciprocal()
    factor = scale * inverse
    assert isinstance(factor, (fmpq, Surd))
    return factor


def source_of(name: str, inputs: object) -> str:
    """The sequence a projection reads: keys and values may come from X_kv."""
    return "X_kv" if name in ("K", "V") and "X_kv" in inputs else "X"  # type: ignore[operator]


def _rational_steps(problem: Problem) -> Iterator[Step]:
    inputs = problem.inputs
    matrices: dict[str, fmpq_mat] = {}
    for name in ("X", "X_kv", "W_Q", "W_K", "W_V"):
        if name in inputs:
            matrices[name] = _to_fmpq_mat(inputs[name])
            yield make_step(name, grids.RationalGrid(matrices[name]),
                            **_embedding_lookup(problem, name))
    start = "scaled" if "scaled" in inputs else "scores" if "scores" in inputs else None
    for name in ("Q", "K", "V"):
        if name in inputs:
            matrices[name] = _to_fmpq_mat(inputs[name])
            yield make_step(name, grids.RationalGrid(matrices[name]), formula=name, operands=())
        elif f"W_{name}" in inputs and (start is None or name == "V"):
            source = source_of(name, inputs)
            matrices[name] = matrices[source] * matrices[f"W_{name}"]
            yield make_step(name, grids.RationalGrid(matrices[name]),
                            formula=f"{'X_{kv}' if source == 'X_kv' else 'X'} W_{name}",
                            operands=(source, f"W_{name}"))
    yield from attention_core(problem, matrices, start)


def attention_core(problem: Problem, matrices: dict[str, fmpq_mat], start: str | None
                   ) -> Iterator[Step]:
    """scores ... output from exact Q, K (or given scores) and V."""
    inputs = problem.inputs
    if start is None:
        base = matrices["Q"] * matrices["K"].transpose()
        yield make_step("scores", grids.RationalGrid(base))
    else:
        base = _to_fmpq_mat(inputs[start], holes_to_zero=True)
        if start == "scores":
            yield make_step("scores", grids.RationalGrid(base), formula="S", operands=())
    allowed = problem.allowed()
    factor = fmpq(1) if start == "scaled" else scale_factor(problem)
    holes = frozenset((i, j) for i, row in enumerate(inputs[start]) for j, entry in
                      enumerate(row) if entry.value is NEG_INF) if start else frozenset()
    scaled = grids.ScaledGrid(base, factor, holes,
                              (matrices["Q"], matrices["K"]) if start is None else None)
    yield make_step("scaled", scaled, formula="\\tilde{S}" if start == "scaled"
                    else scaled_formula(problem), operands=() if start == "scaled" else None)
    any_masked = not all(all(row) for row in allowed)
    if any_masked:
        yield make_step("mask", grids.MaskGrid(allowed))
        masked = grids.MaskedGrid(scaled, allowed)
        yield make_step("masked", masked)
    else:
        masked = grids.MaskedGrid(scaled, allowed)
    operand = "masked" if any_masked else "scaled"
    if problem.normalisation == "softmax":
        exp = grids.ExpGrid(masked)
        yield make_step("exp", exp, operands=(operand,))
        yield make_step("exp_sum", grids.ExpSumGrid(exp))
        weights = grids.WeightsGrid(masked, "softmax", problem.fully_masked)
        yield make_step("weights", weights)
    else:
        weights = grids.WeightsGrid(masked, "sum", problem.fully_masked)
        yield make_step("weights", weights, formula="\\frac{Z_{ij}}{\\sum_j Z_{ij}}",
                        operands=(operand,))
    if "V" in matrices:
        yield make_step("output", grids.OutputGrid(weights, matrices["V"]))
