"""The slip catalogue: the usual mistakes of attention worked by hand, each computed exactly.

A slip is one way a person gets the numbers wrong: forgetting the 1/sqrt(d_k)
scaling, normalising the columns instead of the rows, swapping K and V. Each
entry of ``CATALOGUE`` says how the slip is computed, the first step it
changes, and (in the catalogs, ``slip.<id>.name`` and ``slip.<id>.explain``)
its name and a one-sentence explanation in the reader's language. Nothing here
is a second attention: a slip of the computation derives the problem with a
changed option or changed inputs (``pipeline.derive``), or puts the engine's
own steps together another way (``derivation.softmax_variants``); a slip of
the writing rounds the right value another way.

Three kinds:

- ``outcomes(derivation)``: the whole derivation as the slip computes it
  (``Outcome``, one per way the slip can happen: a leaked key per masked cell,
  a rounding per number of places). Any claim's slipped value is then known
  (``Outcome.value``); a slip that does not apply to the problem (no mask, no
  temperature, shapes that do not fit) gives no outcome.
- ``written(value, places, rule, scale)``: the right value written wrong (cut
  off instead of rounded, a percentage as a fraction), as the digits printed at
  ``places`` on the printed scale.
- ``elsewhere``: the number of another entry of the same step (found by
  ``verify.hints``, which matches a printed number against every slip).

>>> import symattn
>>> derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
>>> [outcome.detail for outcome in SLIPS["leaked_future"].outcomes(derivation)]
['1,2', '1,3', '2,3']
>>> [slip.id for slip in CATALOGUE if slip.outcomes and not slip.outcomes(derivation)]
['dmodel_scaling', 'temperature_multiplied', 'v_at', 'natural_log']
>>> SLIPS["column_softmax"].first_step
'weights'
"""

from __future__ import annotations

__all__ = ["Slip", "Outcome", "CATALOGUE", "SLIPS", "SIZE_LIMIT"]

import dataclasses
from dataclasses import dataclass
from typing import Callable, Mapping

from flint import fmpq

from symattn.derivation import softmax_variants
from symattn.derivation.grids import Grid, ValueGrid
from symattn.derivation.names import split_name
from symattn.derivation.pipeline import derive
from symattn.derivation.steps import Derivation, Step
from symattn.errors import InputError
from symattn.problem.modes import FullyMasked, MaskKind, MaskSpec, Normalisation
from symattn.problem.problem import Problem
from symattn.values import arith, probabilities
from symattn.values.decimals import UndecidedError, decide_scaled
from symattn.values.exact import NAN, NEG_INF, Exact, Surd, rational_text, surd_sqrt
from symattn.values.rounding import Rounding, format_scaled
from symattn.verify.claims import Target
from symattn.verify.targets import exact_value

SIZE_LIMIT = 1024          # score entries beyond which no slip is derived (32 x 32: 0.4 s)
_CELLS_LIMIT = 16          # masked cells tried, one at a time, for a leaked key
_CARRIED_PLACES = (1, 2, 3)   # places a carried rounding of the scaled scores is tried at


@dataclass(frozen=True)
class Outcome:
    """One way a slip of the computation happens, and the whole derivation it gives.

    ``detail`` tells the ways apart ("2,3": the leaked cell; "1": the places of a carried
    rounding; "" when there is one way). ``changed`` lists the steps whose values the
    slip recomputed by hand (a softmax over columns); every other step is the derived one."""

    slip: str
    derivation: Derivation
    detail: str = ""
    changed: frozenset[str] = frozenset()

    def value(self, target: Target) -> Exact | None:
        """The slipped exact value of what a claim is about; None where the slipped
        derivation has no such step or entry."""
        derivation = self.derivation
        if target.part == "divisor" or target.step not in derivation:
            return None
        rows, columns = derivation[target.step].shape
        if target.row >= rows or target.column >= columns:
            return None
        if target.part == "sum" and target.step in self.changed:
            grid = derivation[target.step].value
            return arith.total(grid.exact(target.row, c) for c in range(columns))
        try:
            value = exact_value(derivation, target)
        except (IndexError, KeyError, ValueError):
            return None
        return None if value is NEG_INF or value is NAN else value

    def masks(self, target: Target) -> bool:
        """Whether the slipped derivation has -inf (a masked score) where ``target`` is."""
        derivation = self.derivation
        if target.part != "entry" or target.step not in derivation:
            return False
        rows, columns = derivation[target.step].shape
        return target.row < rows and target.column < columns and \
            derivation[target.step].value.exact(target.row, target.column) is NEG_INF


# The right value on the printed scale, its places, the rule, the scale (100 for a
# percentage) -> the digits the slip prints (as an integer at ``places``), or None.
Written = Callable[[Exact, int, Rounding, fmpq], "int | None"]


@dataclass(frozen=True)
class Slip:
    """A catalogue entry: ``id`` (the JSON ``slip`` and the catalogs' ``slip.<id>``), the
    first step it changes (``written`` for a slip of the writing alone), how it is
    computed (in English, for the docs) and the one function that computes it."""

    id: str
    first_step: str
    computed_as: str
    outcomes: Callable[[Derivation], tuple[Outcome, ...]] | None = None
    written: Written | None = None
    elsewhere: bool = False


# ---------------------------------------------------------------- computing the slips

def _derived(slip: str, problem: Problem, detail: str = "") -> tuple[Outcome, ...]:
    """The problem as the slip changed it, derived (without the side-by-side comparisons,
    which no claim reads); no outcome where it cannot be."""
    try:
        return (Outcome(slip, derive(dataclasses.replace(problem, compare=())), detail),)
    except (InputError, ValueError, ZeroDivisionError):
        return ()


def _small(derivation: Derivation) -> bool:
    n, m = derivation.problem.score_shape()
    return n * m <= SIZE_LIMIT


def _scaled_by_default(derivation: Derivation) -> bool:
    """The scores are divided by sqrt(d_k) as the default scale (not given, not symbolic)."""
    problem = derivation.problem
    step = "scaled" if "scaled" in derivation else "head1.scaled"
    return _small(derivation) and step in derivation and bool(derivation[step].operands) \
        and problem.scale is None and problem.d_k_value is not None


def _no_scaling(derivation: Derivation) -> tuple[Outcome, ...]:
    problem = derivation.problem
    step = "scaled" if "scaled" in derivation else "head1.scaled"
    if not _small(derivation) or step not in derivation or not derivation[step].operands or \
            not isinstance(problem.scale_value, (fmpq, Surd)) or problem.scale_value == 1:
        return ()
    return _derived("no_scaling", dataclasses.replace(problem, scale=fmpq(1)))


def _dk_scaling(derivation: Derivation) -> tuple[Outcome, ...]:
    problem = derivation.problem
    d_k = problem.d_k_value
    if not _scaled_by_default(derivation) or d_k is None or d_k < 2:
        return ()
    return _derived("dk_scaling", dataclasses.replace(problem, scale=fmpq(1, d_k)))


def _dmodel_scaling(derivation: Derivation) -> tuple[Outcome, ...]:
    problem = derivation.problem
    if not _scaled_by_default(derivation) or "X" not in problem.inputs:
        return ()
    d_model = problem.shape("X")[1]
    if d_model == problem.d_k_value:
        return ()
    return _derived("dmodel_scaling",
                    dataclasses.replace(problem, scale=surd_sqrt(fmpq(1, d_model))))


def _temperature_multiplied(derivation: Derivation) -> tuple[Outcome, ...]:
    problem = derivation.problem
    temperature = problem.temperature
    if not _small(derivation) or not isinstance(temperature, fmpq) or \
            temperature in (0, 1, -1) or "scaled" in problem.inputs:
        return ()
    return _derived("temperature_multiplied",
                    dataclasses.replace(problem, temperature=1 / temperature))


def _swapped(slip: str, derivation: Derivation, first: str, second: str
             ) -> tuple[Outcome, ...]:
    """The problem with two inputs of the same shape exchanged (given directly, or the
    weights that project them from the same X)."""
    problem = derivation.problem
    inputs = dict(problem.inputs)
    if not _small(derivation) or any(name in inputs for name in
                                     ("scores", "scaled", "X_kv", "X_q", "X_k", "X_v")):
        return ()
    for a, b in ((first, second), (f"W_{first}", f"W_{second}")):
        if a in inputs and b in inputs:
            if problem.projected_shape(first) != problem.projected_shape(second):
                return ()    # the slipped problem must have the same shapes
            inputs[a], inputs[b] = inputs[b], inputs[a]
            return _derived(slip, dataclasses.replace(problem, inputs=inputs))
    return ()


def _qk_swapped(derivation: Derivation) -> tuple[Outcome, ...]:
    return _swapped("qk_swapped", derivation, "Q", "K")


def _kv_swapped(derivation: Derivation) -> tuple[Outcome, ...]:
    return _swapped("kv_swapped", derivation, "K", "V")


def _causal(derivation: Derivation) -> Problem | None:
    problem = derivation.problem
    if not _small(derivation) or problem.mask.kind != MaskKind.CAUSAL:
        return None
    return problem


def _with_mask(problem: Problem, allowed: list[list[bool]]) -> Problem:
    return dataclasses.replace(problem, mask=MaskSpec(MaskKind.MATRIX, allowed=tuple(
        tuple(row) for row in allowed)))


def _leaked_future(derivation: Derivation) -> tuple[Outcome, ...]:
    """One future key left open: an outcome per masked cell (the first few)."""
    problem = _causal(derivation)
    if problem is None:
        return ()
    allowed = problem.allowed()
    cells = [(i, j) for i, row in enumerate(allowed) for j, open_ in enumerate(row)
             if not open_][:_CELLS_LIMIT]
    found: list[Outcome] = []
    for i, j in cells:
        leaked = [list(row) for row in allowed]
        leaked[i][j] = True
        found += _derived("leaked_future", _with_mask(problem, leaked), f"{i + 1},{j + 1}")
    return tuple(found)


def _diagonal_hidden(derivation: Derivation) -> tuple[Outcome, ...]:
    """The causal mask one key too far: each query's own key closed as well (a first
    query then sees nothing: its weights are zeros)."""
    problem = _causal(derivation)
    if problem is None:
        return ()
    n, m = problem.score_shape()
    positions = problem.query_positions or tuple(range(1, n + 1))
    hidden = [[j < positions[i] - 1 for j in range(m)] for i in range(n)]
    return _derived("diagonal_hidden", dataclasses.replace(
        _with_mask(problem, hidden), fully_masked=FullyMasked.ZEROS))


def _overridden(slip: str, base: Derivation, grids: Mapping[str, Grid], detail: str = ""
                ) -> Outcome:
    """The base derivation with some steps' values replaced; the steps after the last
    replaced one are left out (they would still be the right ones)."""
    last = max(k for k, step in enumerate(base.steps) if step.name in grids)
    steps: list[Step] = [dataclasses.replace(step, value=grids[step.name])
                         if step.name in grids else step for step in base.steps[:last + 1]]
    return Outcome(slip, Derivation(base.problem, tuple(steps)), detail, frozenset(grids))


def _heads(derivation: Derivation) -> tuple[str, ...]:
    """The step prefixes of the softmax heads a slip recomputes by hand ("" for one head,
    "head1." ... for several); () where there are none."""
    problem = derivation.problem
    if not _small(derivation) or problem.normalisation != Normalisation.SOFTMAX:
        return ()
    prefixes = ("",) if problem.heads == 1 else \
        tuple(f"head{h}." for h in range(1, problem.heads + 1))
    return prefixes if all(f"{p}weights" in derivation for p in prefixes) else ()


def _with_output(derivation: Derivation, prefix: str, weights: Grid) -> dict[str, Grid]:
    """A head's slipped weights, and the output they give (weights times V)."""
    grids: dict[str, Grid] = {f"{prefix}weights": weights}
    if f"{prefix}output" in derivation and f"{prefix}V" in derivation:
        grids[f"{prefix}output"] = softmax_variants.grid_product(
            weights, derivation[f"{prefix}V"].value)
    return grids


def _normalised_otherwise(slip: str, derivation: Derivation,
                          normalise: Callable[[Grid], ValueGrid]) -> tuple[Outcome, ...]:
    heads = _heads(derivation)
    grids: dict[str, Grid] = {}
    for prefix in heads:
        name = f"{prefix}masked" if f"{prefix}masked" in derivation else f"{prefix}scaled"
        try:
            grids.update(_with_output(derivation, prefix, normalise(derivation[name].value)))
        except ValueError:
            return ()
    return (_overridden(slip, derivation, grids),) if grids else ()


def _column_softmax(derivation: Derivation) -> tuple[Outcome, ...]:
    return _normalised_otherwise("column_softmax", derivation, softmax_variants.column_softmax)


def _matrix_softmax(derivation: Derivation) -> tuple[Outcome, ...]:
    return _normalised_otherwise("matrix_softmax", derivation, softmax_variants.matrix_softmax)


def _mask_after_softmax(derivation: Derivation) -> tuple[Outcome, ...]:
    """The softmax of the unmasked scores, then the masked weights set to 0 (rows not
    renormalised)."""
    problem = derivation.problem
    heads = _heads(derivation)
    if not heads or problem.mask.kind == MaskKind.NONE or \
            f"{heads[0]}masked" not in derivation:
        return ()
    allowed = problem.allowed()
    if all(all(row) for row in allowed) or any(
            entry.value is NEG_INF for name in ("scores", "scaled")
            for row in problem.inputs.get(name, ()) for entry in row):
        return ()
    unmasked = _derived("mask_after_softmax", dataclasses.replace(problem, mask=MaskSpec()))
    if not unmasked:
        return ()
    free = unmasked[0].derivation
    grids: dict[str, Grid] = {}
    for prefix in heads:
        weights = free[f"{prefix}weights"].value
        zeroed = ValueGrid([[weights.exact(i, j) if open_ else fmpq(0)
                             for j, open_ in enumerate(row)] for i, row in enumerate(allowed)])
        grids.update({f"{prefix}masked": free[f"{prefix}scaled"].value,
                      f"{prefix}exp": free[f"{prefix}exp"].value,
                      f"{prefix}exp_sum": free[f"{prefix}exp_sum"].value,
                      **_with_output(derivation, prefix, zeroed)})
    return (_overridden("mask_after_softmax", derivation, grids),)


def _output_order(slip: str, derivation: Derivation,
                  product: Callable[[Grid, Grid], ValueGrid]) -> tuple[Outcome, ...]:
    grids: dict[str, Grid] = {}
    for prefix in _heads(derivation):
        if f"{prefix}output" not in derivation or f"{prefix}V" not in derivation:
            return ()
        try:
            slipped = product(derivation[f"{prefix}weights"].value,
                              derivation[f"{prefix}V"].value)
        except ValueError:
            return ()
        if slipped.shape != derivation[f"{prefix}output"].shape:
            return ()
        grids[f"{prefix}output"] = slipped
    return (_overridden(slip, derivation, grids),) if grids else ()


def _fits(left: Grid, right: Grid) -> bool:
    return left.shape[1] == right.shape[0]


def _at_v(derivation: Derivation) -> tuple[Outcome, ...]:
    def product(weights: Grid, values: Grid) -> ValueGrid:
        turned = softmax_variants.transposed(weights)
        if not _fits(turned, values):
            raise ValueError("A^T V: the sizes do not fit")
        return softmax_variants.grid_product(turned, values)
    return _output_order("at_v", derivation, product)


def _v_at(derivation: Derivation) -> tuple[Outcome, ...]:
    def product(weights: Grid, values: Grid) -> ValueGrid:
        turned = softmax_variants.transposed(weights)
        if not _fits(values, turned):
            raise ValueError("V A^T: the sizes do not fit")
        return softmax_variants.grid_product(values, turned)
    return _output_order("v_at", derivation, product)


def _rounded_carried(derivation: Derivation) -> tuple[Outcome, ...]:
    """The scaled scores rounded (to 1, 2 or 3 places) and everything after them computed
    from the rounded numbers: an outcome per number of places."""
    problem = derivation.problem
    if _heads(derivation) != ("",) or "scaled" not in derivation:
        return ()
    values = _rational_rows(derivation["V"].value) if "V" in derivation else []
    if values is None:
        return ()
    scaled = derivation["scaled"].value
    allowed = problem.allowed()
    found: list[Outcome] = []
    for places in _CARRIED_PLACES:
        try:
            rounded = [[_rounded_text(scaled.exact(i, j), places, problem.rounding)
                        for j in range(scaled.shape[1])] for i in range(scaled.shape[0])]
        except (UndecidedError, ValueError):
            break
        inputs: dict[str, object] = {"scaled": rounded}
        if values:
            inputs["V"] = [[rational_text(x) for x in row] for row in values]
        options = {} if all(all(row) for row in allowed) else \
            {"mask": [[1 if x else 0 for x in row] for row in allowed]}
        try:
            carried = derive(Problem.from_mapping({"inputs": inputs, "options": options}))
        except (InputError, ValueError, ZeroDivisionError):
            continue
        names = [s.name for s in carried.steps if s.name in derivation and s.name != "V"]
        found.append(_overridden("rounded_carried", derivation,
                                 {name: carried[name].value for name in names}, str(places)))
    return tuple(found)


def _rational_rows(grid: Grid) -> list[list[fmpq]] | None:
    """The grid's rows when every entry is rational, else None."""
    rows = [[grid.exact(i, j) for j in range(grid.shape[1])] for i in range(grid.shape[0])]
    if not all(isinstance(x, fmpq) for row in rows for x in row):
        return None
    return [[x for x in row if isinstance(x, fmpq)] for row in rows]


def _rounded_text(value: Exact, places: int, rule: Rounding) -> str:
    if value is NEG_INF:
        return "-inf"
    return format_scaled(decide_scaled(value, places, rule), places)


def _natural_log(derivation: Derivation) -> tuple[Outcome, ...]:
    """The entropy (and its largest value) in nats: each times ln 2."""
    names = [step.name for step in derivation.steps
             if split_name(step.name)[1] in ("entropy", "entropy_max")]
    if not names:
        return ()
    ln2 = arith.divide(fmpq(1), probabilities.log2(arith.exp(fmpq(1))))
    grids: dict[str, Grid] = {}
    for name in names:
        grid = derivation[name].value
        grids[name] = ValueGrid([[_times(grid.exact(i, j), ln2) for j in range(grid.shape[1])]
                                 for i in range(grid.shape[0])])
    return (_overridden("natural_log", derivation, grids),)


def _times(value: Exact, factor: Exact) -> Exact:
    return value if value is NAN or value is NEG_INF else arith.multiply(value, factor)


# ---------------------------------------------------------------- writing the right value

def _truncation(value: Exact, places: int, rule: Rounding, scale: fmpq) -> int | None:
    if rule is Rounding.TRUNCATE:
        return None
    return decide_scaled(value, places, Rounding.TRUNCATE)


def _percent_fraction(value: Exact, places: int, rule: Rounding, scale: fmpq) -> int | None:
    """A fraction printed where a percentage is (39.4 % as 0.394 %), or the reverse."""
    other = fmpq(1, 100) if scale == 100 else fmpq(100)
    return decide_scaled(arith.multiply(value, other), places, rule)


def _sign(value: Exact, places: int, rule: Rounding, scale: fmpq) -> int | None:
    return decide_scaled(arith.multiply(value, fmpq(-1)), places, rule)


CATALOGUE: tuple[Slip, ...] = (
    Slip("no_scaling", "scaled", "scale 1 instead of 1/sqrt(d_k) (the temperature kept)",
         outcomes=_no_scaling),
    Slip("dk_scaling", "scaled", "scale 1/d_k instead of 1/sqrt(d_k)", outcomes=_dk_scaling),
    Slip("dmodel_scaling", "scaled", "scale 1/sqrt(d_model) (the columns of X) instead of "
         "1/sqrt(d_k) of a head", outcomes=_dmodel_scaling),
    Slip("temperature_multiplied", "scaled", "temperature 1/T instead of T",
         outcomes=_temperature_multiplied),
    Slip("column_softmax", "weights", "each column of exp(masked scores) normalised "
         "instead of each row; output = those weights times V", outcomes=_column_softmax),
    Slip("matrix_softmax", "weights", "one softmax over every entry of the masked scores; "
         "output = those weights times V", outcomes=_matrix_softmax),
    Slip("qk_swapped", "scores", "Q and K (or W_Q and W_K) exchanged: the scores K Q^T",
         outcomes=_qk_swapped),
    Slip("kv_swapped", "scores", "K and V (or W_K and W_V) exchanged", outcomes=_kv_swapped),
    Slip("mask_after_softmax", "masked", "the softmax of the unmasked scores, then the "
         "masked weights set to 0 without renormalising; output = those weights times V",
         outcomes=_mask_after_softmax),
    Slip("leaked_future", "masked", "one masked cell of the causal mask left open (each "
         "cell tried)", outcomes=_leaked_future),
    Slip("diagonal_hidden", "masked", "the causal mask closing each query's own key too "
         "(a row that sees nothing gets zeros)", outcomes=_diagonal_hidden),
    Slip("rounded_carried", "exp", "the scaled scores rounded to 1, 2 or 3 places, the "
         "rest computed from them", outcomes=_rounded_carried),
    Slip("at_v", "output", "output = A^T V instead of A V", outcomes=_at_v),
    Slip("v_at", "output", "output = V A^T instead of A V", outcomes=_v_at),
    Slip("natural_log", "entropy", "entropy (and its largest value) with ln instead of "
         "log2: times ln 2", outcomes=_natural_log),
    Slip("truncation", "written", "the value (or the value from the document's own "
         "numbers) truncated instead of rounded", written=_truncation),
    Slip("percent_fraction", "written", "a weight printed as a percentage without "
         "the factor 100, or a fraction with it", written=_percent_fraction),
    Slip("sign", "written", "the value with the opposite sign", written=_sign),
    Slip("other_entry", "written", "the value of a different entry of the same step "
         "(its own row first)", elsewhere=True),
)
SLIPS: dict[str, Slip] = {slip.id: slip for slip in CATALOGUE}
