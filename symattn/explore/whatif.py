"""What if: the problem as given next to the mistakes seed 003 lists.

``whatif(problem)`` derives the problem as given and each variant: no
1/sqrt(d_k) scaling, no mask, K and V swapped, softmax over columns instead
of rows. Everything is exact; the command line (``cli.explore``) only formats.

The column variant normalises each *column* of exp(masked scores) to sum 1
(``w_ij = exp(z_ij) / sum_l exp(z_lj)``, masked entries 0, a column with every
entry masked stays 0) and keeps ``output = weights @ V``: its rows no longer
sum to 1, so an output row is no longer a weighted average of the value rows.

>>> import symattn
>>> [v.key for v in whatif(symattn.load_example("001-kocka-spi-venku")) if v.available]
['original', 'no_scaling', 'no_mask', 'kv_swapped', 'column_softmax']
"""

from __future__ import annotations

__all__ = ["Variant", "Says", "whatif", "column_softmax"]

import dataclasses
from dataclasses import dataclass
from typing import Any, Sequence

from flint import fmpq

from symattn.derivation.attention import rational_matrix
from symattn.derivation.diagnostics import check_numeric_weights
from symattn.derivation.grids import Grid
from symattn.derivation.pipeline import derive
from symattn.derivation.softmax_variants import column_softmax, grid_product
from symattn.derivation.steps import Derivation
from symattn.errors import InputError
from symattn.explore.shared import (PICK_BITS, attention_only, largest_weight, mean_entropy, pick,
                                    shown)
from symattn.problem.problem import EntryMatrix, MaskSpec, Problem
from symattn.problem.shapes import projection_source
from symattn.values import arith, probabilities
from symattn.values.entries import Entry
from symattn.values.exact import NAN, NEG_INF, Exact, rational_text, to_ball


# A sentence as data: the message ``whatif.<key>`` of the catalogs and its arguments
# (numbers and shapes as LaTeX math), for the reports in the reader's language.
Says = tuple[str, tuple[tuple[str, str], ...]]
_SILENT: Says = ("", ())


def _says(key: str, **args: str) -> Says:
    return key, tuple(args.items())


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
    weights: Grid | None = None
    output: Grid | None = None
    # "largest": (value, row, column) or None; "mean_entropy", "row_sum_min",
    # "row_sum_max": exact values. Read by name with computed keys (cli.explore).
    stats: dict[str, Any] = dataclasses.field(default_factory=dict)
    remark: str = ""
    same_as_original: bool = False
    change_says: Says = _SILENT      # ``change`` and ``remark`` as message data
    remark_says: Says = _SILENT

    @property
    def available(self) -> bool:
        return self.weights is not None


def _entropy(row: list[Exact]) -> Exact:
    """The entropy of a row of weights; undefined (NAN) when a weight is negative, as
    ``normalisation = "sum"`` allows: such a row is no probability distribution."""
    try:
        return probabilities.entropy_bits(row)
    except ValueError:     # "the weight -1 is negative"
        return NAN


def _row_stats(weights: Grid, allowed: Sequence[Sequence[bool]]) -> dict[str, Any]:
    entropies = [_entropy([weights.exact(i, j) for j in weights.columns()])
                 for i in weights.rows()]
    return {"largest": largest_weight(weights, allowed),
            "mean_entropy": mean_entropy(entropies, allowed)}


def _variant(key: str, label: str, change: tuple[str, Says], problem: Problem,
             remark: tuple[str, Says] = ("", _SILENT), same: bool = False) -> Variant:
    """The variant ``key`` derived from ``problem``; ``change`` and ``remark`` in English
    and as message data."""
    derivation = derive(problem)
    weights = derivation["weights"].value
    output = derivation["output"].value if "output" in derivation else None
    return Variant(key, label, change[0], weights, output, _row_stats(weights, problem.allowed()),
                   remark[0], same, change[1], remark[1])


def _unavailable(key: str, label: str, change: tuple[str, Says], remark: tuple[str, Says]
                 ) -> Variant:
    return Variant(key, label, change[0], remark=remark[0], change_says=change[1],
                   remark_says=remark[1])


def _scale_text(problem: Problem) -> str:
    if problem.scale is None:
        return f"1/sqrt(d_k) = 1/sqrt({problem.d_k_value})"
    return shown(problem.scale)


def _scale_math(problem: Problem) -> str:
    if problem.scale is None:
        return f"1/\\sqrt{{d_k}} = 1/\\sqrt{{{problem.d_k_value}}}"
    return shown(problem.scale)


def _no_scaling(base: Problem) -> Variant:
    label, key = "no scaling", "no_scaling"
    scale_one = ("scale 1", _says("scale_one"))
    if "scaled" in base.inputs:
        return _unavailable(key, label, scale_one, (
            "not possible: the spec gives the scaled scores directly (inputs.scaled), so there "
            "is no 1/sqrt(d_k) to remove", _says("scaled_given")))
    if base.scale == 1:
        return _variant(key, label, scale_one, base, (
            "the spec already uses scale 1: same as the original", _says("scale_already_one")),
            True)
    change = f"scale 1 instead of {_scale_text(base)}"
    says = _says("scale_instead", scale=_scale_math(base))
    if base.temperature != 1:
        change += f" (T = {shown(base.temperature)} kept)"
        says = _says("scale_instead_t", scale=_scale_math(base), t=shown(base.temperature))
    return _variant(key, label, (change, says), dataclasses.replace(base, scale=fmpq(1)))


def _holes(base: Problem) -> bool:
    return any(entry.value is NEG_INF for name in ("scores", "scaled")
               for row in base.inputs.get(name, ()) for entry in row)


def _no_mask(base: Problem) -> Variant:
    label, key = "no mask", "no_mask"
    masked = not all(all(row) for row in base.allowed())
    no_mask = ("no mask", _says("no_mask"))
    if not masked:
        return _variant(key, label, no_mask, base, (
            "nothing is masked: same as the original", _says("nothing_masked")), True)
    if base.mask.kind == "none":
        return _unavailable(key, label, no_mask, (
            "not possible: the masked entries are -inf in the input scores, so their values "
            "are unknown", _says("mask_in_scores")))
    remark = ("the -inf entries given in the input stay masked", _says("holes_stay")) \
        if _holes(base) else ("", _SILENT)
    kind = base.mask.kind if base.mask.kind in ("causal", "padding") else "matrix"
    return _variant(key, label, (f"no mask instead of the {base.mask.kind} mask",
                                 _says(f"no_mask_{kind}")),
                    dataclasses.replace(base, mask=MaskSpec()), remark)


def _projected(base: Problem, name: str) -> EntryMatrix | None:
    """K or V as a matrix of entries: given, or X @ W computed exactly (None if symbolic)."""
    if name in base.inputs:
        return base.inputs[name]
    x, w = base.inputs[projection_source(name, base.inputs)], base.inputs[f"W_{name}"]
    if any(not isinstance(e.value, fmpq) for m in (x, w) for row in m for e in row):
        return None
    product = rational_matrix(x) * rational_matrix(w)
    return tuple(tuple(Entry(product[i, j], None, rational_text(product[i, j]))
                       for j in range(product.ncols())) for i in range(product.nrows()))


def _kv_unavailable(base: Problem) -> tuple[str, Says] | None:
    """Why K and V cannot be swapped, or None."""
    if "scores" in base.inputs or "scaled" in base.inputs:
        return ("not possible: the scores are given directly, so there are no K and V to swap",
                _says("kv_scores_given"))
    if "V" not in base.inputs and "W_V" not in base.inputs:
        return ("not possible: the spec has no V (it stops at the weights)", _says("kv_no_v"))
    k_shape, v_shape = base.projected_shape("K"), base.projected_shape("V")
    if k_shape != v_shape:
        return (f"not possible: K is {k_shape[0]}x{k_shape[1]} and V is "
                f"{v_shape[0]}x{v_shape[1]}; swapping them needs d_k = d_v, because V then "
                f"takes K's place in Q K^T (with Q's {k_shape[1]} columns)",
                _says("kv_shapes", k=f"{k_shape[0]} \\times {k_shape[1]}",
                      v=f"{v_shape[0]} \\times {v_shape[1]}", columns=str(k_shape[1])))
    return None


def _kv_swapped(base: Problem) -> Variant:
    label, key = "K and V swapped", "kv_swapped"
    change = ("K and V swapped: weights from Q V^T, output = weights K", _says("kv_swapped"))
    unavailable = _kv_unavailable(base)
    if unavailable is not None:
        return _unavailable(key, label, change, unavailable)
    inputs = dict(base.inputs)
    keys, values = _projected(base, "K"), _projected(base, "V")
    same = keys is not None and values is not None and all(
        a.value == b.value for row_k, row_v in zip(keys, values) for a, b in zip(row_k, row_v))
    remark = ("K and V are equal here: same as the original", _says("kv_equal")) if same \
        else ("", _SILENT)
    if "W_K" in inputs and "W_V" in inputs:
        inputs["W_K"], inputs["W_V"] = inputs["W_V"], inputs["W_K"]
    elif "K" in inputs and "V" in inputs:
        inputs["K"], inputs["V"] = inputs["V"], inputs["K"]
    else:
        if keys is None or values is None:
            return _unavailable(key, label, change, (
                "not possible: K and V come from different sources and are symbolic",
                _says("kv_symbolic")))
        for name in ("W_K", "W_V"):
            inputs.pop(name, None)
        inputs["K"], inputs["V"] = values, keys
    return _variant(key, label, change, dataclasses.replace(base, inputs=inputs), remark, same)


def _columns(original: Derivation) -> Variant:
    label, key = "softmax over columns", "column_softmax"
    change = ("each column of exp(scores) normalised to 1 instead of each row; output = "
              "weights V", _says("column_softmax"))
    problem = original.problem
    if problem.normalisation != "softmax":
        return _unavailable(key, label, change, (
            "not shown: the spec divides each row by its sum (normalisation = sum), not a "
            "softmax", _says("columns_sum")))
    masked = original["masked" if "masked" in original else "scaled"].value
    weights = column_softmax(masked)
    output = grid_product(weights, original["V"].value) if "output" in original else None
    sums = [arith.total(weights.exact(i, j) for j in weights.columns()) for i in weights.rows()]
    picked = pick([to_ball(value, PICK_BITS) for value in sums])
    stats = {"row_sum_min": sums[picked[0]], "row_sum_max": sums[picked[1]]} if picked else {}
    empty = [j for j in range(masked.shape[1])
             if all(masked.exact(i, j) is NEG_INF for i in range(masked.shape[0]))]
    keys = ", ".join(str(j + 1) for j in empty)
    remark = (f"key {keys} is masked for every query: its column stays 0",
              _says("columns_empty", keys=keys)) if empty else ("", _SILENT)
    return Variant(key, label, change[0], weights, output, stats, remark[0],
                   change_says=change[1], remark_says=remark[1])


def whatif(problem: Problem) -> list[Variant]:
    """The problem as given, then each variant (unavailable ones say why)."""
    base = attention_only(problem)
    if base.heads > 1 or "W_O" in base.inputs:
        raise InputError("whatif compares single-head attention; this spec has "
                         f"{base.heads} heads" + (" and W_O" if "W_O" in base.inputs else ""))
    original = derive(base)
    check_numeric_weights(original["weights"].value, "whatif")
    weights = original["weights"].value
    first = Variant("original", "original", "as given", weights,
                    original["output"].value if "output" in original else None,
                    _row_stats(weights, base.allowed()), change_says=_says("as_given"))
    return [first, _no_scaling(base), _no_mask(base), _kv_swapped(base), _columns(original)]
