"""The exercise kinds of a worksheet, each built from seeded nice numbers.

Each kind has a builder ``kind(rng, setup) -> Exercise`` (``catalog.KINDS``). Every
answer is read from ``pipeline.derive`` of the exercise's own spec (never
recomputed here), so the key holds the engine's exact values; the blanks
say where ``symattn check`` finds each one (``claim``).

| kind | the student |
|---|---|
| ``softmax_table`` | fills e^z, the sum and the weights of a row of scores |
| ``scores_row`` | computes one row of raw and scaled scores from Q and K |
| ``weights_row`` | computes one row of scaled scores and attention weights |
| ``output_row`` | computes one row of weights and the output row |
| ``fill_matrix`` | fills the missing cells of QK^T |
| ``causal_mask`` | applies a causal mask and softmaxes the first rows |
| ``find_error`` | finds the planted mistake in a derivation (``worksheets.mistakes``) |
| ``temperature``, ``no_scaling`` | what-if questions (``worksheets.whatif``) |
| ``entropy``, ``sizes`` | entropy and size questions (``worksheets.whatif``) |

>>> exercise = softmax_table(variant_random(3, 1, 1, "softmax_table"), Setup())
>>> [blank.id for blank in exercise.blanks][:3]
['e1', 'a1', 'e2']
>>> [blank.expected("cs") for blank in exercise.blanks if blank.id == "sum"]
['7,737']
"""

from __future__ import annotations

__all__ = ["Setup", "Builder", "derive_spec", "attention_spec",
           "softmax_carried", "number_blank", "variant_random"]

import random
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from flint import fmpq

from symattn.derivation.steps import Derivation
from symattn.values.exact import NEG_INF
from symattn.worksheets.model import (Blank, Blanks, Exercise, Given, Grid, KeyStep, Math, Msg,
                                    Num, Table, Text, User, decimal_value, unit_of, spec_matrix,
                                    spec_number, tolerance_for)
from symattn.worksheets.numbers import (Attention, clear_of_midpoints, draw_attention, draw_row,
                                         draw_tokens, variant_random)

Builder = Callable[[random.Random, "Setup"], Exercise]


@dataclass(frozen=True)
class Setup:
    """What every exercise of a sheet shares."""

    places: int = 3                      # decimal places of rounded answers
    d_k: int = 4                         # key dimension of generated problems
    sentences: tuple[str, ...] = ("the cat sat on the warm mat",)   # token names to draw
    base: Attention | None = None        # the spec's own Q, K, V (a worksheet from a spec)
    mistakes: tuple[str, ...] = ()       # find_error: which mistakes may be planted (all)
    shape: Mapping[str, Any] | None = None   # sizes: d_model, heads, seq_len, layers, dtype
    # Lesson presets (worksheets.presets): shorter exercises, calculator-free numbers.
    compact: bool = False                # softmax over 3 scores, 3 x 3 score matrices
    numbers: str = "standard"            # or "calculator-free" (worksheets.calcfree)


# -------------------------------------------------------------------- helpers
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


def _attention(rng: random.Random, setup: Setup, n: int, d_v: int = 2) -> Attention:
    if setup.base is not None:
        return setup.base
    return draw_attention(rng, n, n, setup.d_k, d_v)


def _tokens(rng: random.Random, setup: Setup, attention: Attention) -> tuple[str, ...]:
    n, m = len(attention.Q), len(attention.K)
    if attention.tokens:
        return attention.tokens if len(attention.tokens) == n == m else ()
    return draw_tokens(rng, setup.sentences, n) if n == m else ()


def _given(attention: Attention, values: bool = True) -> Given:
    items = [("Q", _rows(attention.Q)), ("K", _rows(attention.K))]
    if values:
        items.append(("V", _rows(attention.V)))
    return Given(tuple(items))


def _rows(matrix: Sequence[Sequence[Any]]) -> tuple[tuple[Num, ...], ...]:
    return tuple(tuple(Num(x) for x in row) for row in matrix)


def _clear(values: Sequence[Any], places: int) -> bool:
    return all(clear_of_midpoints(v, places) for v in values)


def _value(derivation: Derivation, step: str, i: int, j: int) -> Any:
    return derivation[step].value.exact(i, j)


def _rational(value: object) -> fmpq:
    """An entry of a drawn matrix: the generator draws rationals only."""
    if not isinstance(value, fmpq):
        raise TypeError(f"a worksheet input is not rational: {value!r}")
    return value


def _token_text(tokens: Sequence[str], i: int) -> Any:
    return Msg.of("sheet.token", token=User(tokens[i])) if tokens else ""


def softmax_carried(exps: Sequence[Any], places: int) -> tuple[fmpq, list[fmpq]]:
    """The sum and the weights a student gets from exponentials rounded to ``places``
    (the sum itself rounded before dividing).

    >>> total, weights = softmax_carried([fmpq(1), fmpq(3)], 2)
    >>> total, weights
    (4, [1/4, 3/4])
    """
    rounded = [decimal_value(e, places) if e != 0 else fmpq(0) for e in exps]
    total = sum(rounded, fmpq(0))
    shown = decimal_value(total, places)
    return total, [e / shown for e in rounded]


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


def _softmax_blanks(derivation: Derivation, row: int, places: int, ids: str = "a",
                    label: str | None = None) -> tuple[list[Blank], Blank, list[Blank]]:
    """Blanks for the exponentials, their sum and the weights of a row."""
    m = derivation["weights"].shape[1]
    exps = [_value(derivation, "exp", row, j) for j in range(m)]
    total, carried = softmax_carried(exps, places)
    exact_sum = _value(derivation, "exp_sum", row, 0)
    r = row + 1
    e_blanks = [number_blank(f"e{j + 1}", f"e^{{z_{{{j + 1}}}}}", exps[j], places,
                             (0, f"exp[{r},{j + 1}]")) for j in range(m)]
    sum_blank = number_blank("sum", r"\Sigma", exact_sum, places, (0, f"exp_sum[{r}]"),
                             tolerance_for(exact_sum, total, places))
    weights = []
    for j in range(m):
        exact = _value(derivation, "weights", row, j)
        name = f"{label}_{{{j + 1}}}" if label else f"a_{{{r},{j + 1}}}"
        weights.append(number_blank(f"{ids}{j + 1}", name, exact, places,
                                    (0, f"weights[{r},{j + 1}]"),
                                    tolerance_for(exact, carried[j], places)))
    return e_blanks, sum_blank, weights


# ---------------------------------------------------------------------- kinds
def softmax_table(rng: random.Random, setup: Setup) -> Exercise:
    """A row of scores z; the student fills e^z, the sum and each weight."""
    p = setup.places
    for _ in range(200):
        z = draw_row(rng, 3 if setup.compact else 4, distinct=True)
        spec = {"inputs": {"scaled": [[spec_number(x) for x in z]]}}
        derivation = derive_spec(spec)
        e_blanks, sum_blank, weights = _softmax_blanks(derivation, 0, p, label="a")
        if _clear([b.value for b in e_blanks + [sum_blank] + weights], p):
            break
    rows: list[tuple[object, ...]] = [(Num(j + 1), Num(z[j]), e_blanks[j], weights[j])
                                      for j in range(len(z))]
    rows.append((Msg.of("sheet.sum"), "", sum_blank, Num(1)))
    table = Table((Math("j"), Math("z_j"), Math("e^{z_j}"), Math(r"a_j = e^{z_j} / \Sigma")),
                  tuple(rows))
    text = Text(Msg.of("kind.softmax_table.prompt", unit=unit_of(p)))
    return Exercise("softmax_table", (text, table), (spec,),
                    (KeyStep(0, ("exp", "exp_sum", "weights"), (1,), p),))


def scores_row(rng: random.Random, setup: Setup) -> Exercise:
    """One row of raw scores q_i . k_j and of scaled scores."""
    attention = _attention(rng, setup, rng.choice((3, 4)))
    tokens = _tokens(rng, setup, attention)
    spec = attention_spec(attention, tokens, values=False)
    derivation = derive_spec(spec)
    row = rng.randrange(len(attention.Q))
    m, r = len(attention.K), row + 1
    raw = tuple(number_blank(f"s{j + 1}", f"s_{{{r},{j + 1}}}",
                             _value(derivation, "scores", row, j), setup.places,
                             (0, f"scores[{r},{j + 1}]")) for j in range(m))
    scaled = _scaled_blanks(derivation, row, setup.places)
    text = Text(Msg.of("kind.scores_row.prompt", row=Num(r), token=_token_text(tokens, row),
                       d_k=Num(attention.d_k)))
    return Exercise("scores_row", (text, _given(attention, False), Blanks(raw),
                                   Blanks(scaled)), (spec,),
                    (KeyStep(0, ("scores", "scaled"), (r,), setup.places),))


def _scaled_blanks(derivation: Derivation, row: int, places: int) -> tuple[Blank, ...]:
    r = row + 1
    return tuple(number_blank(f"t{j + 1}", rf"\tilde{{s}}_{{{r},{j + 1}}}",
                              _value(derivation, "scaled", row, j), places,
                              (0, f"scaled[{r},{j + 1}]"))
                 for j in range(derivation["scaled"].shape[1]))


def weights_row(rng: random.Random, setup: Setup) -> Exercise:
    """Scaled scores and attention weights of one row, from Q and K."""
    p = setup.places
    for _ in range(200):
        attention = _attention(rng, setup, 3)
        row = rng.randrange(len(attention.Q))
        tokens = _tokens(rng, setup, attention)
        spec = attention_spec(attention, tokens, values=False)
        derivation = derive_spec(spec)
        _, _, weights = _softmax_blanks(derivation, row, p)
        if setup.base is not None or _clear([b.value for b in weights], p):
            break
    r = row + 1
    text = Text(Msg.of("kind.weights_row.prompt", row=Num(r), token=_token_text(tokens, row),
                       d_k=Num(attention.d_k), unit=unit_of(p)))
    return Exercise("weights_row", (text, _given(attention, False),
                                    Blanks(_scaled_blanks(derivation, row, p)),
                                    Blanks(tuple(weights))), (spec,),
                    (KeyStep(0, ("scores", "scaled", "exp", "exp_sum", "weights"), (r,), p),))


def output_row(rng: random.Random, setup: Setup) -> Exercise:
    """Weights of one row (``places``) and its output row (one place fewer)."""
    p = setup.places
    q = max(p - 1, 1)
    for _ in range(200):
        attention = _attention(rng, setup, 3)
        row = rng.randrange(len(attention.Q))
        tokens = _tokens(rng, setup, attention)
        spec = attention_spec(attention, tokens)
        derivation = derive_spec(spec)
        _, _, weights = _softmax_blanks(derivation, row, p)
        outputs = _output_blanks(derivation, row, weights, q)
        if setup.base is not None or _clear([b.value for b in weights + outputs], p):
            break
    r = row + 1
    text = Text(Msg.of("kind.output_row.prompt", row=Num(r), token=_token_text(tokens, row),
                       d_k=Num(attention.d_k), unit=unit_of(p), out_unit=unit_of(q)))
    return Exercise("output_row", (text, _given(attention), Blanks(tuple(weights)),
                                   Blanks(tuple(outputs))), (spec,),
                    (KeyStep(0, ("scores", "scaled", "exp", "exp_sum", "weights", "output"),
                             (r,), p),))


def _output_blanks(derivation: Derivation, row: int, weights: Sequence[Blank], places: int
                   ) -> list[Blank]:
    """Output components; ``carried``: from the weights rounded as the student writes them."""
    r = row + 1
    values = derivation["V"].value
    m, d_v = values.shape
    rounded = [b.value if b.places is None else decimal_value(b.value, b.places)
               for b in weights]
    out = []
    for k in range(d_v):
        exact = _value(derivation, "output", row, k)
        carried = sum((rounded[j] * _rational(values.exact(j, k)) for j in range(m)), fmpq(0))
        out.append(number_blank(f"o{k + 1}", f"o_{{{r},{k + 1}}}", exact, places,
                                (0, f"output[{r},{k + 1}]"),
                                tolerance_for(exact, carried, places)))
    return out


def fill_matrix(rng: random.Random, setup: Setup) -> Exercise:
    """S = Q K^T with some cells missing."""
    size = rng.choice((3, 4))
    attention = _attention(rng, setup, 3 if setup.compact else size)
    spec = attention_spec(attention, values=False)
    derivation = derive_spec(spec)
    n, m = len(attention.Q), len(attention.K)
    cells = [(i, j) for i in range(n) for j in range(m)]
    missing = set(rng.sample(cells, min(len(cells) // 2, max(3, len(cells) // 3))))
    rows = []
    for i in range(n):
        row: list[Any] = []
        for j in range(m):
            value = _value(derivation, "scores", i, j)
            row.append(number_blank(f"s{i + 1}{j + 1}", f"s_{{{i + 1},{j + 1}}}", value,
                                    setup.places, (0, f"scores[{i + 1},{j + 1}]"))
                       if (i, j) in missing else Num(value))
        rows.append(tuple(row))
    expanded = tuple(sorted({i + 1 for i, _ in missing}))
    text = Text(Msg.of("kind.fill_matrix.prompt"))
    return Exercise("fill_matrix", (text, _given(attention, False),
                                    Grid(r"S = Q K^{\top}", tuple(rows))), (spec,),
                    (KeyStep(0, ("scores",), expanded, setup.places),))


def causal_mask(rng: random.Random, setup: Setup) -> Exercise:
    """Apply a causal mask to scaled scores; weights of the first two rows."""
    p = setup.places
    for _ in range(200):
        scaled = [draw_row(rng, 3) for _ in range(3)]
        spec = {"inputs": {"scaled": [[spec_number(x) for x in row] for row in scaled]},
                "options": {"mask": "causal"}}
        derivation = derive_spec(spec)
        _, _, second = _softmax_blanks(derivation, 1, p)
        if scaled[1][0] != scaled[1][1] and _clear([b.value for b in second], p):
            break
    _, _, second = _softmax_blanks(derivation, 1, p, ids="a2")
    z_rows = tuple(tuple(number_blank(f"z{i + 1}{j + 1}", f"z_{{{i + 1},{j + 1}}}",
                                      _value(derivation, "masked", i, j), p,
                                      (0, f"masked[{i + 1},{j + 1}]")) for j in range(3))
                   for i in range(3))
    first = tuple(number_blank(f"a1{j + 1}", f"a_{{1,{j + 1}}}",
                               _value(derivation, "weights", 0, j), p, (0, f"weights[1,{j + 1}]"))
                  for j in range(3))
    parts = (Text(Msg.of("kind.causal_mask.prompt", unit=unit_of(p))),
             Given(((r"\tilde{S}", _rows(scaled)),)),
             Grid(r"Z = \tilde{S} + M", z_rows),
             Blanks(first, Msg.of("kind.causal_mask.row", row=Num(1))),
             Blanks(tuple(second), Msg.of("kind.causal_mask.row", row=Num(2))))
    return Exercise("causal_mask", parts, (spec,),
                    (KeyStep(0, ("mask", "masked", "exp", "exp_sum", "weights"), (1, 2), p),))

