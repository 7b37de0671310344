"""One line of working per exercise, for the short answer key.

The short key prints every answer and, under it, one line that shows how the
exercise's last answer comes about, written with exact values (``e^{0,5}``,
``1 \\cdot 2 + 0 \\cdot (-1)``) and ending in that answer as the key prints
it, so every number on the line follows from the ones before it:

| last answer | line |
|---|---|
| a weight | ``a_{2,1} = e^{z_1} / (e^{z_1} + e^{z_2} + ...) ≈ 0,412`` |
| an output | ``o_{2,1} = a_{2,1} \\cdot 2 + a_{2,2} \\cdot (-1) + ... ≈ 0,90`` |
| two heads mixed | ``o_{1,2} = o^{(1)}_{1} \\cdot (-1) + o^{(2)}_{1} \\cdot 1 ≈ -0,20`` |
| a next-token probability | ``p_{2} = e^{1} / (e^{-1} + e^{1} + e^{0} + e^{-2}) ≈ 0,644`` |
| a (scaled) score | ``\\tilde{s}_{2,1} = (1 \\cdot 2 + ...)/\\sqrt{4} = 1,5`` |

Find the error, entropy and design take the key's first note (the mistake
explained, the first entropy worked out, a reference answer); calculator-free
exercises their own working. A step the key works in another problem than the
answer's claim (stable softmax: the shifted scores) is written out there.

>>> from symattn.worksheets.attention_steps import softmax_table
>>> from symattn.worksheets.model import Setup
>>> from symattn.worksheets.numbers import variant_random
>>> line = working(softmax_table(variant_random(3, 1, 1, "softmax_table"), Setup()))
>>> [type(part).__name__ for part in line][:3]
['Math', 'Math', 'Num']
"""

from __future__ import annotations

__all__ = ["working", "Line"]

import re
from fractions import Fraction
from typing import Any, Iterable, Sequence

from flint import fmpq

from symattn.values.exact import NEG_INF
from symattn.worksheets.answers import derive_spec
from symattn.worksheets.model import Blank, Exercise, Fragment, Math, Num

Line = tuple[Fragment, ...]
_ORDER = ("scores", "scaled", "masked", "exp", "exp_sum", "weights", "output", "logits",
          "probs")
_CLAIM = re.compile(r"(\w+)\[(\d+)(?:,(\d+))?\]")


def working(exercise: Exercise) -> Line:
    """The line of working of ``exercise`` (math fragments, or one message); () if none."""
    if "working" in exercise.facts:
        return (exercise.facts["working"],)
    if exercise.kind in ("find_error", "entropy", "design") and exercise.notes:
        return (exercise.notes[0].message,)
    blank = _final_blank(exercise)
    if blank is None or blank.claim is None:
        return ()
    match = _CLAIM.fullmatch(blank.claim[1])
    assert match is not None
    step, row, j = match.group(1), int(match.group(2)), int(match.group(3) or 1) - 1
    # The problem the key works the step in (stable softmax: the shifted scores).
    problem = next((key.problem for key in exercise.key_steps if step in key.steps),
                   blank.claim[0])
    spec = exercise.problems[problem]
    derivation = derive_spec(spec)
    positions = derivation.problem.query_positions      # a decode step: row 3 is query 1
    i = positions.index(row) if positions and row in positions else row - 1
    result = (Math(r" \approx " if blank.places is not None else " = "),
              Num(blank.value, blank.places))
    if step in ("weights", "probs"):
        return (Math(blank.label + " = "),) + _softmax(derivation, i, j) + result
    if step == "output" and "concat" in derivation:
        return (Math(blank.label + " = "),) + _mixed(derivation, row, j) + result
    if step == "output":
        return (Math(blank.label + " = "),) + _output(derivation, blank, i, j) + result
    if step in ("scores", "scaled"):
        return (Math(blank.label + " = "),) + _score(derivation, spec, step, i, j) + result
    return ()


def _final_blank(exercise: Exercise) -> Blank | None:
    """The first answer of the exercise's latest step (weights after scores, ...)."""
    best: tuple[int, Blank] | None = None
    for blank in exercise.blanks:
        if blank.claim is None or blank.kind not in ("number", "fraction"):
            continue
        match = _CLAIM.fullmatch(blank.claim[1])
        if match is None or match.group(1) not in _ORDER:
            continue
        # Latest step first; in a step, a rounded answer (real working) first.
        rank = 2 * _ORDER.index(match.group(1)) + (blank.places is not None)
        if best is None or rank > best[0]:
            best = (rank, blank)
    return best[1] if best is not None else None


def _exp(value: Any) -> Line:
    return (Math("e^{"), Num(value), Math("}"))


def _softmax(derivation: Any, i: int, j: int) -> Line:
    """``e^{z_j} / (e^{z_1} + ...)`` over the open keys of row i (or over the logits)."""
    step = next(s for s in ("logits", "masked", "scaled") if s in derivation)
    grid = derivation[step].value
    row = [grid.exact(i, c) for c in range(grid.shape[1])]
    terms: list[Fragment] = []
    for value in row:
        if value is NEG_INF:
            continue
        if terms:
            terms.append(Math(" + "))
        terms.extend(_exp(value))
    return _exp(row[j]) + (Math(r" / \left("),) + tuple(terms) + (Math(r"\right)"),)


def _product(factors: Sequence[tuple[Any, Line]]) -> Line:
    """``x \\cdot y + ...`` with negative numbers in parentheses."""
    out: list[Fragment] = []
    for number, other in factors:
        if out:
            out.append(Math(" + "))
        out.extend(_signed(number))
        out.append(Math(r" \cdot "))
        out.extend(other)
    return tuple(out)


def _signed(value: Any) -> Line:
    if isinstance(value, fmpq) and value < 0:
        return (Math("("), Num(value), Math(")"))
    return (Num(value),)


def _output(derivation: Any, blank: Blank, i: int, k: int) -> Line:
    """``a_{i,1} \\cdot 2 + ...``: the weights by name, the values as numbers."""
    values = derivation["V"].value
    weights = derivation["weights"].value
    row = blank.label.split("_", 1)[1].strip("{}").split(",")[0]
    return _named_sum((f"a_{{{row},{j + 1}}}", values.exact(j, k))
                      for j in range(values.shape[0]) if weights.exact(i, j) != 0)


def _mixed(derivation: Any, row: int, k: int) -> Line:
    """``o^{(1)}_{r} \\cdot 2 + o^{(2)}_{r} \\cdot (-1)``: the heads' outputs (width 1) by
    the names the sheet gives them, times column k of W_O as numbers."""
    W_O = derivation["W_O"].value
    return _named_sum((f"o^{{({h + 1})}}_{{{row}}}", W_O.exact(h, k))
                      for h in range(W_O.shape[0]) if W_O.exact(h, k) != 0)


def _named_sum(terms: Iterable[tuple[str, Any]]) -> Line:
    """``name \\cdot number + ...``: each name times its number, signed numbers bracketed."""
    out: list[Fragment] = []
    for name, number in terms:
        if out:
            out.append(Math(" + "))
        out.append(Math(f"{name} \\cdot "))
        out.extend(_signed(number))
    return tuple(out)


def _score(derivation: Any, spec: Any, step: str, i: int, j: int) -> Line:
    """``1 \\cdot 2 + ...`` (a raw score), over ``\\sqrt{d_k}`` or ``T`` when scaled."""
    options = spec.get("options", {})
    if "Q" not in derivation:          # scores given: s / sqrt(d_k) or z / T
        line = _signed(derivation["scores"].value.exact(i, j))
        if step == "scaled" and options.get("temperature"):
            ratio = Fraction(options["temperature"])
            return line + (Math("/"), Num(fmpq(ratio.numerator, ratio.denominator)))
        if step == "scaled" and options.get("d_k"):
            return line + (Math(rf"/\sqrt{{{options['d_k']}}}"),)
        return line
    Q, K = derivation["Q"].value, derivation["K"].value
    dot = _product([(Q.exact(i, c), _signed(K.exact(j, c))) for c in range(Q.shape[1])])
    if step == "scores":
        return dot
    d_k = options.get("d_k", Q.shape[1])
    return (Math(r"\left("),) + dot + (Math(rf"\right)/\sqrt{{{d_k}}}"),)
