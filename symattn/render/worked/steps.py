"""What each kind of step shows besides its result: operands, scale, mask, setup.

The records a step template receives (``model.StepModel``) are assembled by
``builder``; here are the parts that depend on the kind of step: the
matrices substituted into its formula, the strings of its ``info`` (the
scale of the scores, the mask, the normalisation), whether it shows masked
entries, and the problem's setup at the top of the document.

>>> import symattn
>>> from symattn.values.number_format import NumberFormat
>>> derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
>>> cells = Cells(derivation, NumberFormat())
>>> scale_info(derivation.problem, cells)["divisor_value"]
'\\\\approx 1.41421'
>>> from symattn import messages
>>> [pair.value for pair in setup_pairs(derivation, cells, messages.load("en"))]
['n = 3', 'm = 3', 'd_k = 2', '\\\\text{causal}']
"""

from __future__ import annotations

__all__ = ["step_operands", "step_info", "scale_info", "mask_info", "has_masked", "setup_pairs",
           "numbers_text", "divisor_shown"]

from typing import Callable

from flint import fmpq

from symattn.derivation.attention import scale_divisor
from symattn.derivation.names import base_name, split_name
from symattn.derivation.steps import Derivation, Step
from symattn.messages import Catalog
from symattn.problem.problem import MaskSpec, Problem
from symattn.render import latex
from symattn.render.number_words import numbers_text
from symattn.render.worked.shift import KINDS as SHIFT_KINDS, operands as shift_operands
from symattn.render.worked.products import factors
from symattn.render.worked.cells import Cells
from symattn.render.worked.labels import score_step
from symattn.render.worked.layout import Layout
from symattn.render.worked.model import Matrix, Pair, Shown
from symattn.values.exact import NEG_INF, Surd, exact_text, surd_sqrt

# The matrices each kind substitutes into its formula: (name in the template,
# step of the same family, transposed). Projections and exponentials: step_operands().
_OPERANDS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "scores": (("Q", "Q", False), ("K_T", "K", True)),
    "scaled": (("S", "scores", False),),
    "masked": (("S", "scaled", False), ("M", "mask", False)),
    "output": (("A", "weights", False), ("V", "V", False)),
}
# Steps computed from the scores: they show a masked entry when the scores had one.
_AFTER_MASK = ("mask", "masked", "exp", "exp_sum", "weights", "output")


def step_operands(layout: Layout, kind: str, step: Step) -> dict[str, Matrix]:
    """The matrices substituted into the step's formula, by their template names."""
    if kind == "projection":      # the problem's own Q, K or V: X times its weights
        source = step.operands[0] if step.operands else "X"    # X, X_kv, X_q, X_k, X_v
        return {"X": layout.operand(source), "W": layout.operand(f"W_{step.name}")}
    if kind == "exp":
        return {"Z": layout.exp_of(step.operands[0])}
    if kind in SHIFT_KINDS:
        return shift_operands(layout, kind, step)
    if kind == "product":         # x W (+ b): the FFN, W_O, the logits (products.py)
        left, right, bias = factors(step.operands)
        transposed = layout.d[right].shape[0] != layout.d[left].shape[1]
        matrices = {"A": layout.operand(left), "B": layout.operand(right, transpose=transposed)}
        return {**matrices, "b": layout.operand(bias)} if bias else matrices
    if kind == "concat":
        return {name: layout.operand(name) for name in step.operands}
    prefix = split_name(step.name)[0]
    if kind == "scores" and len(step.operands) == 2:   # Q K^T, or Q_rot K_rot^T (RoPE)
        left, right = (prefix + split_name(o)[1] for o in step.operands)
        return {"Q": layout.operand(left), "K_T": layout.operand(right, transpose=True)}
    return {label: layout.operand(prefix + base, transpose=transposed)
            for label, base, transposed in _OPERANDS.get(kind, ())}


def step_info(kind: str, step: Step, problem: Problem, cells: Cells) -> dict[str, str]:
    """The kind's own strings for its template (docs/templates.md)."""
    if kind == "scaled" or kind == "input" and base_name(step.name) == "scaled":
        return scale_info(problem, cells)
    if kind == "mask":
        return mask_info(problem.mask)
    if kind == "product":
        left, right, bias = factors(step.operands)
        d = cells.d
        turned = d[right].shape[0] != d[left].shape[1]
        return {"left": d[left].symbol, "right": d[right].symbol + ("^{\\top}" if turned else ""),
                "bias": d[bias].symbol if bias else "", "single": "yes" if step.shape[0] == 1
                else ""}
    if kind == "variance":
        d_k = problem.d_k_value or 0
        root = surd_sqrt(fmpq(d_k))
        value = cells.make_value(root, latex.exact_latex(root, cells.locale))
        return {"d_k": str(d_k), "root": value.exact if value.is_exact else
                f"{value.exact} \\approx {value.decimal}"}
    if kind == "probs":
        temperature = problem.readout.temperature if problem.readout else fmpq(1)
        return {"temperature": "" if temperature == 1 else cells.any_latex(temperature)}
    if kind == "weights":
        return {"normalisation": problem.normalisation,
                "shifted": "yes" if split_name(step.operands[0] if step.operands else "")[1]
                == "exp_shifted" else ""}
    return {}


def scale_info(problem: Problem, cells: Cells) -> dict[str, str]:
    """How the scores are scaled: the factor, the divisor and per-entry form."""
    temperature = problem.temperature
    t = "" if temperature == 1 else cells.any_latex(temperature)
    fields = {"d_k": str(problem.d_k_value or ""), "temperature": t, "scale": "",
              "divisor": "", "divisor_value": "", "factor": "", "entry": "{s}"}
    if problem.scale is None and problem.d_k_value is not None:
        root = f"\\sqrt{{{problem.d_k_value}}}"
        fields.update(_divided(root if not t else f"{root} \\cdot {latex.factor_latex(t)}"))
    elif problem.scale == 1:
        fields.update(_divided(t) if t else {})
    elif problem.scale is not None:
        scale = cells.any_latex(problem.scale)
        product = latex.product_latex(scale, "{s}")
        fields.update(scale=scale, factor=scale if not t else latex.frac_latex(scale, t),
                      entry=product if not t else latex.frac_latex(product, t))
    if fields["divisor"]:
        fields["divisor_value"] = _untautological(_divisor_value(problem, cells),
                                                  fields["divisor"])
    return fields


def _untautological(chain: str, divisor: str) -> str:
    """The divisor's value without repeating the divisor itself: ``\\approx 1.73``,
    not ``\\sqrt{3} = \\sqrt{3} \\approx 1.73``.

    >>> _untautological(r"= \\sqrt{3} \\approx 1.73205", r"\\sqrt{3}")
    '\\\\approx 1.73205'
    >>> _untautological(r"= 2", r"\\sqrt{4}"), _untautological(r"= \\sqrt{3}", r"\\sqrt{3}")
    ('= 2', '')
    """
    same = f"= {divisor}"
    if chain == same:
        return ""
    return chain[len(same) + 1:] if chain.startswith(same + " ") else chain


def _divided(divisor: str) -> dict[str, str]:
    """The scale strings when every score is divided by ``divisor``."""
    return {"divisor": divisor, "factor": latex.frac_latex("1", divisor),
            "entry": latex.frac_latex("{s}", divisor)}


def _divisor_value(problem: Problem, cells: Cells) -> str:
    """The divisor's value as a chain, "" when the scale or temperature is symbolic."""
    if not (isinstance(problem.scale_value, (fmpq, Surd))
            and isinstance(problem.temperature, (fmpq, Surd))):
        return ""
    divisor = scale_divisor(problem)
    return cells.make_value(divisor, latex.exact_latex(divisor, cells.locale)).chain


def divisor_shown(problem: Problem, cells: Cells) -> tuple[Shown, ...]:
    """The divisor as the scaling step prints it: exactly (the scores are divided
    by that) and as a decimal, for the page's own check."""
    divisor = scale_divisor(problem)
    decimal = cells.fmt.format(divisor)
    shown = [Shown("divisor", 0, 0, exact_text(divisor))]
    if decimal is not None and cells.make_value(divisor, None).decimal:
        shown.append(Shown("divisor", 0, 0, decimal.replace(",", "."), label="divisor value"))
    return tuple(shown)


def mask_info(mask: MaskSpec) -> dict[str, str]:
    """The mask's kind ("given" for a mask matrix of the spec) and its padded keys."""
    padded = ", ".join(str(k + 1) for k in mask.padded_keys)
    return {"mask": mask.kind if mask.kind != "none" else "given", "padded": padded}


def has_masked(derivation: Derivation, name: str, allowed: Callable[[int, int], bool]) -> bool:
    """True when step ``name`` shows -inf, or is computed from scores that had -inf.

    ``allowed(i, j)``: whether query i may attend to key j in the step's family.
    """
    prefix, base = split_name(name)
    if prefix + "scaled" not in derivation:
        return False
    if base in _AFTER_MASK:
        n, m = derivation[prefix + "scaled"].shape
        return any(not allowed(i, j) for i in range(n) for j in range(m))
    if base in ("scores", "scaled"):
        grid = derivation[name].value
        return any(grid.exact(i, j) is NEG_INF for i in grid.rows() for j in grid.columns())
    return False


def setup_pairs(derivation: Derivation, cells: Cells, catalog: Catalog) -> tuple[Pair, ...]:
    """The problem at a glance: n, m, d_k, scale, temperature and mask (labels in the
    catalog's language, LaTeX)."""
    problem = derivation.problem
    n, m = score_step(derivation).shape
    label = catalog["setup"]
    pairs = [Pair(label["queries"], f"n = {n}"), Pair(label["keys"], f"m = {m}")]
    if problem.d_k_value is not None:
        pairs.append(Pair(label["d_k"], f"d_k = {problem.d_k_value}"))
    if problem.scale is not None and "scaled" not in problem.inputs:
        pairs.append(Pair(label["scale"], f"s = {cells.any_latex(problem.scale)}"))
    if problem.temperature != 1:
        pairs.append(Pair(label["temperature"], f"T = {cells.any_latex(problem.temperature)}"))
    mask = problem.mask.kind
    if mask != "none" or any(base_name(s.name) == "mask" for s in derivation):
        kind = mask if mask in ("causal", "padding") else "given"
        pairs.append(Pair(label["mask"], f"\\text{{{label[kind]}}}"))
    return tuple(pairs)


