"""Experiments on a spec for teaching: a temperature sweep and "what if" variants.

``sweep(problem, temperatures)`` derives the problem once per temperature and
collects the entropy of every row of weights (the ``entropy`` diagnostic), its
mean and the largest weight. ``whatif(problem)`` derives the problem as given
next to the mistakes seed 003 lists: no 1/sqrt(d_k) scaling, no mask, K and V
swapped, softmax over columns instead of rows. Everything is exact; the
command line (``cli.explore``) only formats.

The column variant normalises each *column* of exp(masked scores) to sum 1
(``w_ij = exp(z_ij) / sum_l exp(z_lj)``, masked entries 0, a column with every
entry masked stays 0) and keeps ``output = weights @ V``: its rows no longer
sum to 1, so an output row is no longer a weighted average of the value rows.

>>> import symattn
>>> rows = sweep(symattn.load_example("003-entropy-temperature"),
...              parse_temperatures("0.3,2"))[0].rows
>>> [row.temperature.text for row in rows]
['0.3', '2']
>>> from symattn.values.number_format import NumberFormat
>>> [NumberFormat(digits=3).format(row.mean_entropy) for row in rows]
['0.355', '2.47']
"""

from __future__ import annotations

__all__ = ["parse_temperatures", "SweepRow", "Sweep", "sweep", "Variant", "whatif",
           "column_softmax", "largest_weight", "mean_entropy"]

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

from flint import arb, fmpq

from symattn.values import arith, probabilities
from symattn.derivation import grids
from symattn.derivation.diagnostics import weights_prefixes
from symattn.derivation.softmax_grids import WeightsGrid
from symattn.derivation.steps import Derivation
from symattn.derivation.pipeline import derive
from symattn.values.entries import Entry, parse_entry
from symattn.errors import InputError
from symattn.values.exact import NAN, NEG_INF, Exact, Surd, exact_text, rational_text, to_ball
from symattn.problem.problem import EntryMatrix, MaskSpec, Problem

_PICK_BITS = 128        # precision of the balls that pick the largest weight


# ------------------------------------------------------------------- shared
def parse_temperatures(text: str) -> list[Entry]:
    """Temperatures as written: ``0.3,1,2`` (or ``0,3;1;2`` with decimal commas).

    Each goes through symattn's entry grammar (never ``float``): fractions and
    roots are fine, and each must be positive.

    >>> [t.value for t in parse_temperatures("0.3, 1/2, sqrt(2)")]
    [3/10, 1/2, Surd(coefficient=1, radicand=2)]
    >>> parse_temperatures("1,-2")
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: --temperatures: '-2' is not a positive number (T must be > 0)
    """
    separator = ";" if ";" in text else ","
    parts = [part.strip() for part in text.split(separator)]
    if not text.strip() or not all(parts):
        raise InputError(f"--temperatures: write positive numbers separated by commas, e.g. "
                         f"0.3,1,2 (got {text!r})")
    result = []
    for part in parts:
        try:
            entry = parse_entry(part)
        except InputError as error:
            raise InputError(f"--temperatures: {error.message}") from None
        value = entry.value
        if not (isinstance(value, fmpq) and value > 0
                or isinstance(value, Surd) and value.coefficient > 0):
            raise InputError(f"--temperatures: {part!r} is not a positive number (T must be > 0)")
        result.append(entry)
    return result


def _base(problem: Problem) -> Problem:
    """The attention part only: no claims, no layer after it, no diagnostics."""
    return dataclasses.replace(problem, claims={}, ffn=None, readout=None, diagnostics=())


def _check_numeric(derivation: Derivation, name: str, command: str) -> None:
    grid = derivation[name].value
    if isinstance(grid, WeightsGrid):         # the rational core: always numbers
        return
    for i in grid.rows():
        for j in grid.columns():
            if not getattr(grid.exact(i, j), "is_numeric", True):
                raise InputError(f"{command} needs numbers: the weights of this spec are "
                                 "symbolic (they have free symbols)")


def _midpoint(ball: arb) -> tuple[int, int, int]:
    """A key that orders balls by midpoint: sign, binary exponent, mantissa.

    Not the midpoint as a rational: e^-(10^10) would need a 10^10-bit denominator.
    """
    mantissa, exponent = (int(x) for x in ball.mid().man_exp())
    if mantissa == 0:
        return (0, 0, 0)
    size = abs(mantissa).bit_length()
    top = abs(mantissa) << max(_PICK_BITS - size, 0) >> max(size - _PICK_BITS, 0)
    sign = 1 if mantissa > 0 else -1
    return (sign, sign * (exponent + size), sign * top)


def _pick(balls: Sequence[arb | None]) -> tuple[int, int] | None:
    """Indices of the smallest and the largest finite ball (by midpoint)."""
    mids = [(_midpoint(b), k) for k, b in enumerate(balls) if b is not None and b.is_finite()]
    if not mids:
        return None
    return min(mids)[1], max(mids, key=lambda pair: (pair[0], -pair[1]))[1]


def largest_weight(grid: grids.Grid, allowed: Sequence[Sequence[bool]]
                   ) -> tuple[Exact, int, int] | None:
    """The largest weight and its 0-based (row, column).

    Rows with a single unmasked key are left out when others exist: their
    weight is 1 at any temperature. The entry is picked with 128-bit balls
    (entries closer than that print alike); its value is exact.
    """
    rows = [i for i in grid.rows() if sum(allowed[i]) >= 2] or list(grid.rows())
    m = grid.shape[1]
    block = grid.balls(_PICK_BITS, rows, range(m))
    flat = [ball if allowed[i][j] else None for i, row in zip(rows, block)
            for j, ball in enumerate(row)]
    picked = _pick(flat)
    if picked is None:
        return None
    i, j = rows[picked[1] // m], picked[1] % m
    return grid.exact(i, j), i, j


def mean_entropy(entropies: Sequence[Exact],
                 allowed: Sequence[Sequence[bool]] | None = None) -> Exact:
    """The mean over the rows that have keys (a fully masked row is left out)."""
    values = [h for i, h in enumerate(entropies)
              if h is not NAN and (allowed is None or any(allowed[i]))]
    return probabilities.mean(values) if values else NAN


# -------------------------------------------------------------------- sweep
@dataclass(frozen=True)
class SweepRow:
    temperature: Entry
    entropy: tuple[Exact, ...]          # one per query row, in bits
    mean_entropy: Exact
    largest: tuple[Exact, int, int] | None


@dataclass(frozen=True)
class Sweep:
    """One head's entropies at every temperature (head is "" for one head)."""

    head: str
    entropy_max: tuple[Exact, ...]
    rows: tuple[SweepRow, ...]
    notes: tuple[str, ...]


def _shown(value: Any) -> str:
    """A rational as a terminating decimal when it is one (3/10 -> 0.3), else exact text.

    >>> _shown(fmpq(3, 10)), _shown(fmpq(1, 3)), _shown(fmpq(2))
    ('0.3', '1/3', '2')
    """
    if isinstance(value, fmpq):
        for places in range(13):
            scaled = value * fmpq(10) ** places
            if scaled.q == 1:
                from symattn.values.decimals import fixed_decimal

                return fixed_decimal(value, places)
    return exact_text(value)


def _sweep_base(problem: Problem) -> tuple[Problem, list[str]]:
    base = _base(problem)
    notes = []
    if "scaled" in base.inputs:
        # A temperature does not apply to scores given already scaled; read them
        # as scores with scale 1 so that T divides them.
        inputs = {("scores" if k == "scaled" else k): v for k, v in base.inputs.items()}
        base = dataclasses.replace(base, inputs=inputs, scale=fmpq(1))
        notes.append("the spec gives the scaled scores (inputs.scaled): each T divides them")
    if base.temperature != 1:
        notes.append(f"the spec's own T = {_shown(base.temperature)} is replaced by each T")
    return base, notes


def sweep(problem: Problem, temperatures: Sequence[Entry]) -> list[Sweep]:
    """Entropies of the weights at each temperature, per head."""
    base, notes = _sweep_base(problem)
    allowed = base.allowed()
    derivations = [derive(dataclasses.replace(base, temperature=t.value,
                                              diagnostics=("entropy",)))
                   for t in temperatures]
    prefixes = weights_prefixes(derivations[0].steps)
    for prefix in prefixes:
        _check_numeric(derivations[0], prefix + "weights", "sweep")
    result = []
    for prefix in prefixes:
        maximum = derivations[0][prefix + "entropy_max"].value
        rows = []
        for t, derivation in zip(temperatures, derivations):
            entropy = derivation[prefix + "entropy"].value
            values = tuple(entropy.exact(i, 0) for i in entropy.rows())
            rows.append(SweepRow(t, values, mean_entropy(values, allowed),
                                 largest_weight(derivation[prefix + "weights"].value, allowed)))
        result.append(Sweep(prefix.rstrip("."), tuple(maximum.exact(i, 0)
                                                      for i in maximum.rows()),
                            tuple(rows), tuple(notes)))
    return result


# ------------------------------------------------------------------ what if
@dataclass(frozen=True)
class Variant:
    """One column of the comparison: a changed problem and its weights and outputs.

    ``change`` says what was changed; ``remark`` anything the numbers do not
    show; ``stats`` the exact numbers the one-line note compares (largest
    weight, mean entropy; for the column variant the smallest and largest row
    sums). An unavailable variant has ``weights`` None and says why in ``remark``.
    """

    key: str
    label: str
    change: str
    weights: grids.Grid | None = None
    output: grids.Grid | None = None
    stats: dict[str, Any] = dataclasses.field(default_factory=dict)
    remark: str = ""
    same_as_original: bool = False

    @property
    def available(self) -> bool:
        return self.weights is not None


def _row_stats(weights: grids.Grid, allowed: Sequence[Sequence[bool]]) -> dict[str, Any]:
    entropies = [probabilities.entropy_bits(weights.exact(i, j) for j in weights.columns())
                 for i in weights.rows()]
    return {"largest": largest_weight(weights, allowed),
            "mean_entropy": mean_entropy(entropies, allowed)}


def _variant(key: str, label: str, change: str, problem: Problem, remark: str = "",
             same: bool = False) -> Variant:
    derivation = derive(problem)
    weights = derivation["weights"].value
    output = derivation["output"].value if "output" in derivation else None
    return Variant(key, label, change, weights, output, _row_stats(weights, problem.allowed()),
                   remark, same)


def _scale_text(problem: Problem) -> str:
    if problem.scale is None:
        return f"1/sqrt(d_k) = 1/sqrt({problem.d_k_value})"
    return _shown(problem.scale)


def _no_scaling(base: Problem) -> Variant:
    label, key = "no scaling", "no_scaling"
    if "scaled" in base.inputs:
        return Variant(key, label, "scale 1", remark="not possible: the spec gives the scaled "
                       "scores directly (inputs.scaled), so there is no 1/sqrt(d_k) to remove")
    if base.scale == 1:
        return _variant(key, label, "scale 1", base,
                        "the spec already uses scale 1: same as the original", True)
    change = f"scale 1 instead of {_scale_text(base)}"
    if base.temperature != 1:
        change += f" (T = {_shown(base.temperature)} kept)"
    return _variant(key, label, change, dataclasses.replace(base, scale=fmpq(1)))


def _holes(base: Problem) -> bool:
    return any(entry.value is NEG_INF for name in ("scores", "scaled")
               for row in base.inputs.get(name, ()) for entry in row)


def _no_mask(base: Problem) -> Variant:
    label, key = "no mask", "no_mask"
    masked = not all(all(row) for row in base.allowed())
    if not masked:
        return _variant(key, label, "no mask", base, "nothing is masked: same as the original",
                        True)
    if base.mask.kind == "none":
        return Variant(key, label, "no mask", remark="not possible: the masked entries are "
                       "-inf in the input scores, so their values are unknown")
    remark = "the -inf entries given in the input stay masked" if _holes(base) else ""
    return _variant(key, label, f"no mask instead of the {base.mask.kind} mask",
                    dataclasses.replace(base, mask=MaskSpec()), remark)


def _projected(base: Problem, name: str) -> EntryMatrix | None:
    """K or V as a matrix of entries: given, or X @ W computed exactly (None if symbolic)."""
    if name in base.inputs:
        return base.inputs[name]
    source = "X_kv" if "X_kv" in base.inputs else "X"
    x, w = base.inputs[source], base.inputs[f"W_{name}"]
    if any(not isinstance(e.value, fmpq) for m in (x, w) for row in m for e in row):
        return None
    rows = []
    for xi in x:
        row = []
        for j in range(len(w[0])):
            value = sum((xi[k].value * w[k][j].value for k in range(len(w))), fmpq(0))
            row.append(Entry(value, None, rational_text(value)))
        rows.append(tuple(row))
    return tuple(rows)


def _kv_swapped(base: Problem) -> Variant:
    label, key, change = "K and V swapped", "kv_swapped", "K and V swapped: weights from Q V^T, output = weights K"
    if "scores" in base.inputs or "scaled" in base.inputs:
        return Variant(key, label, change, remark="not possible: the scores are given "
                       "directly, so there are no K and V to swap")
    if "V" not in base.inputs and "W_V" not in base.inputs:
        return Variant(key, label, change, remark="not possible: the spec has no V (it stops "
                       "at the weights)")
    k_shape, v_shape = base.projected_shape("K"), base.projected_shape("V")
    if k_shape != v_shape:
        return Variant(key, label, change, remark=(
            f"not possible: K is {k_shape[0]}x{k_shape[1]} and V is {v_shape[0]}x{v_shape[1]}; "
            f"swapping them needs d_k = d_v, because V then takes K's place in Q K^T "
            f"(with Q's {k_shape[1]} columns)"))
    inputs = dict(base.inputs)
    keys, values = _projected(base, "K"), _projected(base, "V")
    same = keys is not None and values is not None and all(
        a.value == b.value for row_k, row_v in zip(keys, values) for a, b in zip(row_k, row_v))
    remark = "K and V are equal here: same as the original" if same else ""
    if "W_K" in inputs and "W_V" in inputs:
        inputs["W_K"], inputs["W_V"] = inputs["W_V"], inputs["W_K"]
    elif "K" in inputs and "V" in inputs:
        inputs["K"], inputs["V"] = inputs["V"], inputs["K"]
    else:
        if keys is None or values is None:
            return Variant(key, label, change, remark="not possible: K and V come from "
                           "different sources and are symbolic")
        for name in ("W_K", "W_V"):
            inputs.pop(name, None)
        inputs["K"], inputs["V"] = values, keys
    return _variant(key, label, change, dataclasses.replace(base, inputs=inputs), remark, same)


def column_softmax(masked: grids.Grid) -> grids.ValueGrid:
    """Softmax down each column of the masked scores (-oo entries get 0).

    >>> grid = column_softmax(grids.ValueGrid([[fmpq(1), NEG_INF], [fmpq(1), fmpq(0)]]))
    >>> [[grid.exact(i, j) for j in range(2)] for i in range(2)]
    [[1/2, 0], [1/2, 1]]
    """
    n, m = masked.shape
    columns = []
    for j in range(m):
        column = [masked.exact(i, j) for i in range(n)]
        columns.append(probabilities.softmax(column) if any(z is not NEG_INF for z in column)
                       else [fmpq(0)] * n)
    return grids.ValueGrid([[columns[j][i] for j in range(m)] for i in range(n)])


def _product(weights: grids.Grid, values: grids.Grid) -> grids.ValueGrid:
    inner = values.shape[0]
    return grids.ValueGrid([[arith.total(arith.multiply(weights.exact(i, c), values.exact(c, k))
                                         for c in range(inner))
                             for k in range(values.shape[1])] for i in range(weights.shape[0])])


def _columns(original: Derivation) -> Variant:
    label, key = "softmax over columns", "column_softmax"
    change = "each column of exp(scores) normalised to 1 instead of each row; output = weights V"
    problem = original.problem
    if problem.normalisation != "softmax":
        return Variant(key, label, change, remark="not shown: the spec divides each row by "
                       "its sum (normalisation = sum), not a softmax")
    masked = original["masked" if "masked" in original else "scaled"].value
    weights = column_softmax(masked)
    output = _product(weights, original["V"].value) if "output" in original else None
    sums = [arith.total(weights.exact(i, j) for j in weights.columns()) for i in weights.rows()]
    picked = _pick([to_ball(value, _PICK_BITS) for value in sums])
    stats = {"row_sum_min": sums[picked[0]], "row_sum_max": sums[picked[1]]} if picked else {}
    empty = [j for j in range(masked.shape[1])
             if all(masked.exact(i, j) is NEG_INF for i in range(masked.shape[0]))]
    remark = f"key {', '.join(str(j + 1) for j in empty)} is masked for every query: its " \
        "column stays 0" if empty else ""
    return Variant(key, label, change, weights, output, stats, remark)


def whatif(problem: Problem) -> list[Variant]:
    """The problem as given, then each variant (unavailable ones say why)."""
    base = _base(problem)
    if base.heads > 1 or "W_O" in base.inputs:
        raise InputError("whatif compares single-head attention; this spec has "
                         f"{base.heads} heads" + (" and W_O" if "W_O" in base.inputs else ""))
    original = derive(base)
    _check_numeric(original, "weights", "whatif")
    weights = original["weights"].value
    first = Variant("original", "original", "as given", weights,
                    original["output"].value if "output" in original else None,
                    _row_stats(weights, base.allowed()))
    return [first, _no_scaling(base), _no_mask(base), _kv_swapped(base), _columns(original)]
