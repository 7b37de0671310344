"""An exercise's answers: its spec, the engine's derivation of it, and the blanks.

Every answer of every kind is read from ``pipeline.derive`` of the exercise's
own spec (never recomputed here), so a key holds the engine's exact values; a
blank names the claim ``symattn check`` judges it by. What a student carries
forward from correctly rounded earlier answers (the exponentials before their
sum, the weights before the output) widens the tolerance of the later blanks.

>>> derivation = derive_spec({"inputs": {"scaled": [["0", "1"]]}})
>>> _, total, weights = softmax_blanks(derivation, 0, 3)
>>> total.expected(), [blank.expected() for blank in weights], all_clear([total.value], 3)
('3.718', ['0.269', '0.731'], True)
"""

from __future__ import annotations

__all__ = ["derive_spec", "attention_spec", "entry", "all_clear", "number_blank",
           "softmax_carried", "softmax_blanks", "shown", "carried_sum"]

from typing import Any, Mapping, Sequence

from flint import fmpq

from symattn.derivation.steps import Derivation
from symattn.values.exact import NEG_INF
from symattn.worksheets.model import Blank, decimal_value, spec_matrix, tolerance_for
from symattn.worksheets.numbers import Attention, clear_of_midpoints


# ------------------------------------------------------------ spec and derivation
def derive_spec(spec: Mapping[str, Any]) -> Derivation:
    """The exact derivation of an exercise's spec (never max-shifted: the exercises
    ask for e^z itself, and the key shows the steps they name)."""
    import dataclasses

    from symattn.derivation.pipeline import derive
    from symattn.problem.problem import Problem

    return derive(dataclasses.replace(Problem.from_mapping(spec, source="worksheet"),
                                      max_shift=False))


def attention_spec(attention: Attention, tokens: Sequence[str] = (), *, mask: Any = None,
                   values: bool = True) -> dict[str, Any]:
    """The spec of an attention problem: Q, K (and V) given directly."""
    inputs: dict[str, Any] = {"Q": spec_matrix(attention.Q), "K": spec_matrix(attention.K)}
    if values:
        inputs["V"] = spec_matrix(attention.V)
    spec: dict[str, Any] = {"inputs": inputs, "options": {"d_k": attention.d_k}}
    if tokens:
        spec["tokens"] = list(tokens)
    if mask is not None:
        spec["options"]["mask"] = mask
    return spec


def entry(derivation: Derivation, step: str, i: int, j: int) -> Any:
    """Entry (i, j) of a step, exactly (0-based)."""
    return derivation[step].value.exact(i, j)


def all_clear(values: Sequence[Any], places: int) -> bool:
    """Whether no value lies near a rounding midpoint at ``places`` (a draw that fails
    is redrawn: a calculator might round such an answer either way)."""
    return all(clear_of_midpoints(v, places) for v in values)


# ---------------------------------------------------------------------- blanks
def number_blank(id: str, label: str, value: Any, places: int, claim: tuple[int, str],
                 carried: fmpq = fmpq(0)) -> Blank:
    """A numeric blank; a value with a short exact decimal (or -inf) is printed exactly."""
    from symattn.values.exact import terminating_places

    if not isinstance(value, fmpq) and isinstance(value, int):
        value = fmpq(value)
    exact_places = terminating_places(value) if isinstance(value, fmpq) else None
    if value is NEG_INF or exact_places is not None and exact_places <= places:
        return Blank(id, label, value, None, claim)
    return Blank(id, label, value, places, claim, carried=carried)


def softmax_carried(exps: Sequence[Any], places: int) -> tuple[fmpq, list[fmpq]]:
    """The sum and the weights a student gets from exponentials rounded to ``places``
    (the sum itself rounded before dividing).

    >>> total, weights = softmax_carried([fmpq(1), fmpq(3)], 2)
    >>> total, weights
    (4, [1/4, 3/4])
    """
    rounded = [decimal_value(e, places) if e != 0 else fmpq(0) for e in exps]
    total = sum(rounded, fmpq(0))
    written = decimal_value(total, places)
    return total, [e / written for e in rounded]


def softmax_blanks(derivation: Derivation, row: int, places: int, ids: str = "a",
                   label: str | None = None) -> tuple[list[Blank], Blank, list[Blank]]:
    """Blanks for the exponentials, their sum and the weights of a row."""
    m = derivation["weights"].shape[1]
    exps = [entry(derivation, "exp", row, j) for j in range(m)]
    total, carried = softmax_carried(exps, places)
    exact_sum = entry(derivation, "exp_sum", row, 0)
    r = row + 1
    e_blanks = [number_blank(f"e{j + 1}", f"e^{{z_{{{j + 1}}}}}", exps[j], places,
                             (0, f"exp[{r},{j + 1}]")) for j in range(m)]
    sum_blank = number_blank("sum", r"\Sigma", exact_sum, places, (0, f"exp_sum[{r}]"),
                             tolerance_for(exact_sum, total, places))
    weights = []
    for j in range(m):
        exact = entry(derivation, "weights", row, j)
        name = f"{label}_{{{j + 1}}}" if label else f"a_{{{r},{j + 1}}}"
        weights.append(number_blank(f"{ids}{j + 1}", name, exact, places,
                                    (0, f"weights[{r},{j + 1}]"),
                                    tolerance_for(exact, carried[j], places)))
    return e_blanks, sum_blank, weights


def shown(blank: Blank) -> fmpq:
    """What a student who rounds as asked writes for ``blank``."""
    return blank.value if blank.places is None else decimal_value(blank.value, blank.places)


def carried_sum(weights: Sequence[Blank], values: Sequence[fmpq]) -> fmpq:
    """sum_j w_j v_j from the weights as a student rounds them.

    >>> carried_sum([Blank("a", "a", fmpq(1, 3), 2), Blank("b", "b", fmpq(2, 3), 2)], [3, 0])
    99/100
    """
    return sum((shown(w) * fmpq(v) for w, v in zip(weights, values)), fmpq(0))
