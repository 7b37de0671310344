"""The records of a derivation: step information, ``Step`` and ``Derivation``.

A step is a small frozen record (name, LaTeX symbol and formula, operands,
exact value grid); a ``Derivation`` is the problem with its steps in order.
The step names are canonical and shared by the checker and every renderer::

    X, W_Q, W_K, W_V, Q, K, V, scores, scaled, mask, masked, exp, exp_sum,
    weights, output

(and with ``options.positions``: PE, X_pos before Q, or Q_rot, K_rot after V).
"""

from __future__ import annotations

__all__ = ['StepInfo', 'STEP_INFO', 'STEP_NAMES', 'Operand', 'EntryRule', 'Step', 'Side',
           'Compared', 'Derivation',
           'formula_step', 'make_step', 'step_shape']

from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

from symattn.derivation import grids
from symattn.errors import Location, StepNotFoundError
from symattn.problem.problem import Problem
from symattn.values.exact import Exact


@dataclass(frozen=True)
class StepInfo:
    symbol: str            # LaTeX symbol of the result
    formula: str           # LaTeX right-hand side in terms of operands
    operands: tuple[str, ...]
    description: str


STEP_INFO: dict[str, StepInfo] = {
    "X": StepInfo("X", "X", (), "input embeddings, one row per token"),
    "X_kv": StepInfo("X_{kv}", "X_{kv}", (), "the sequence keys and values come from"),
    "X_q": StepInfo("X_Q", "X_Q", (), "the sequence the queries are projected from"),
    "X_k": StepInfo("X_K", "X_K", (), "the sequence the keys are projected from"),
    "X_v": StepInfo("X_V", "X_V", (), "the sequence the values are projected from"),
    "W_Q": StepInfo("W_Q", "W_Q", (), "query projection"),
    "W_K": StepInfo("W_K", "W_K", (), "key projection"),
    "W_V": StepInfo("W_V", "W_V", (), "value projection"),
    # options.positions = "sinusoidal" (symattn.derivation.positions): encodings added to X
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
    hidden: bool = False     # computed (and claimable) but not laid out on the page
    variant: str = ""        # how the page words it: "raw" for scores used unscaled


    @property
    def shape(self) -> tuple[int, int]:
        return self.value.shape

    def at(self, row: int, column: int = 1) -> Exact:
        """The exact value at ``row``, ``column``, 1-based as in specs, claims and pages
        (``step.value.exact(i, j)`` is the 0-based one)."""
        return self.value.at(row, column)

    def __repr__(self) -> str:
        rows, columns = self.shape
        return f"<Step {self.name} {rows}x{columns}: {self.description}>"


@dataclass(frozen=True)
class Side:
    """One side of a comparison (``derivation.compare``): one query row's scores fed
    to softmax, its weights and their entropy in bits."""

    kind: str                       # given | times | temperature | unscaled | scaled
    number: Exact | None            # the side's factor or temperature
    scores: tuple[Exact, ...]
    weights: tuple[Exact, ...]
    entropy: Exact
    largest: int = 0                # the key with the largest weight (0-based)
    smallest: int = 0               # the key with the smallest weight of those not masked


@dataclass(frozen=True)
class Compared:
    """A comparison block of the spec: its row (0-based), its two sides, and the
    largest entropy the row could have (log2 of the keys it may see)."""

    kind: str                       # times | temperature | scaling
    row: int
    sides: tuple[Side, Side]
    entropy_max: Exact


@dataclass(frozen=True)
class Derivation:
    """The steps of one problem, in order; index by step name. ``comparisons``:
    the spec's side-by-side blocks (``derivation.compare``)."""

    problem: Problem
    steps: tuple[Step, ...]
    comparisons: tuple[Compared, ...] = ()

    def __getitem__(self, name: str) -> Step:
        for step in self.steps:
            if step.name == name:
                return step
        raise StepNotFoundError(f"no step {name!r}; this derivation has "
                                f"{', '.join(self.names)}", Location(key=str(name)))

    def __repr__(self) -> str:
        title = f" {self.problem.title!r}" if self.problem.title else ""
        return f"<{type(self).__name__}{title}: {len(self.steps)} steps, {', '.join(self.names)}>"

    def __contains__(self, name: object) -> bool:
        return any(step.name == name for step in self.steps)

    def __iter__(self) -> Iterator[Step]:
        return iter(self.steps)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(step.name for step in self.steps)


def formula_step(info: StepInfo, name: str, shape: tuple[int, int], entry: EntryRule,
                 earlier: Sequence[Step], lazy: Callable[[int, int], int] | None = None
                 ) -> Step:
    """A step whose every entry follows from earlier steps by ``entry``; with
    ``lazy`` (a bound on the terms of entry (i, j)'s closed form), each entry
    is computed when first read."""
    by_name = {step.name: step for step in earlier}

    def exact(step: str, i: int, j: int) -> Exact:
        return by_name[step].value.exact(i, j)

    value: grids.Grid
    if lazy is not None:
        value = grids.LazyValueGrid(shape, lambda i, j: entry(exact, i, j), lazy)
    else:
        value = grids.ValueGrid([[entry(exact, i, j) for j in range(shape[1])]
                                 for i in range(shape[0])])
    return Step(name, info.symbol, info.formula, info.operands, info.description, value, entry)


def make_step(name: str, value: grids.Grid, *, formula: str | None = None,
              operands: tuple[str, ...] | None = None, description: str | None = None) -> Step:
    """The step ``name`` of ``STEP_INFO`` with this value; formula, operands and
    description replace the table's where given."""
    info = STEP_INFO[name]
    return Step(name, info.symbol, formula or info.formula,
                info.operands if operands is None else operands,
                info.description if description is None else description, value)


def step_shape(steps: Sequence[Step], name: str) -> tuple[int, int]:
    """The shape of the step called ``name`` among ``steps``."""
    return next(step.shape for step in steps if step.name == name)
