"""Exercise kinds on the steps of one attention head, a step or two at a time.

| kind | the student |
|---|---|
| ``projection`` | computes one row of Q = X W_Q and of K = X W_K, and their score |
| ``scores_row`` | computes one row of raw and scaled scores from Q and K |
| ``fill_matrix`` | fills the missing cells of QK^T |
| ``softmax_table`` | fills e^z, the sum and the weights of a row of scores |
| ``stable_softmax`` | softmax of large scores after subtracting the largest, and why |
| ``weights_row`` | computes one row of scaled scores and attention weights |
| ``causal_mask`` | applies a causal mask and softmaxes the first rows |
| ``output_row`` | computes one row of weights and the output row |

Every answer is the engine's exact value of the exercise's own spec
(``answers``). The other kinds: ``transformer`` (heads, a KV cache, the next
token), ``reasoning`` (token order, designing a query), ``whatif``
(temperature, scaling, entropy, sizes), ``mistakes`` (find the error).

>>> from symattn.worksheets.numbers import variant_random
>>> exercise = softmax_table(variant_random(3, 1, 1, "softmax_table"), Setup())
>>> [blank.id for blank in exercise.blanks][:3]
['e1', 'a1', 'e2']
>>> [blank.expected("cs") for blank in exercise.blanks if blank.id == "sum"]
['7,737']
>>> exercise = projection(variant_random(3, 1, 1, "projection"), Setup())
>>> [blank.claim[1][:2] for blank in exercise.blanks]
['Q[', 'Q[', 'K[', 'K[', 'sc']
"""

from __future__ import annotations

__all__ = ["projection", "scores_row", "fill_matrix", "softmax_table", "stable_softmax",
           "weights_row", "causal_mask", "output_row", "draw_embeddings", "draw_score_rows"]

import random
from typing import Any, Sequence

from flint import fmpq

from symattn.derivation.steps import Derivation
from symattn.worksheets.answers import (all_clear, attention_spec, derive_spec, entry,
                                        number_blank, shown, softmax_blanks)
from symattn.worksheets.model import (Blank, Blanks, Choice, Exercise, Given, Grid,
                                      KeyStep, Math, Msg, Note, Num, Part, Setup, Table, Text,
                                      num_rows, sentence_parts, spec_matrix, spec_number,
                                      token_text, tolerance_for, unit_of)
from symattn.worksheets.numbers import (SMALL, Attention, Matrix, draw_attention, draw_matrix,
                                        draw_row)
from symattn.worksheets.words import draw_sentence

_WEIGHT = (-1, 0, 0, 1, 1)        # entries of W_Q and W_K (projection)
_TRIES = 400                      # draws before the last one is taken as it is


# ------------------------------------------------------------------ drawing
def _attention(rng: random.Random, setup: Setup, n: int, d_v: int = 2) -> Attention:
    if setup.base is not None:
        return setup.base
    return draw_attention(rng, n, n, setup.d_k, d_v)


def _tokens(rng: random.Random, setup: Setup, attention: Attention) -> tuple[str, ...]:
    n, m = len(attention.Q), len(attention.K)
    if attention.tokens:
        return attention.tokens if len(attention.tokens) == n == m else ()
    return draw_sentence(rng, setup.words, n) if n == m else ()


def draw_embeddings(rng: random.Random) -> Matrix:
    """X (3 x 3) of ``SMALL`` entries, no two rows (tokens) equal."""
    for _ in range(_TRIES):
        X = draw_matrix(rng, 3, 3, SMALL)
        if len(set(X)) == 3:
            return X
    raise AssertionError("no three different embeddings found")    # pragma: no cover


def draw_score_rows(rng: random.Random, rows: int, m: int) -> list[list[fmpq]]:
    """``rows`` rows of m different scores (``draw_row``), no two rows equal."""
    out: list[list[fmpq]] = []
    while len(out) < rows:
        row = draw_row(rng, m, distinct=True)
        if row not in out:
            out.append(row)
    return out


def _given(attention: Attention, values: bool = True) -> Given:
    items = [("Q", num_rows(attention.Q)), ("K", num_rows(attention.K))]
    if values:
        items.append(("V", num_rows(attention.V)))
    return Given(tuple(items))


def _rational(value: object) -> fmpq:
    """An entry of a drawn matrix: the generator draws rationals only."""
    if not isinstance(value, fmpq):
        raise TypeError(f"a worksheet input is not rational: {value!r}")
    return value


# --------------------------------------------------------- Q, K and the scores
def projection(rng: random.Random, setup: Setup) -> Exercise:
    """One row of Q = X W_Q and K = X W_K, and the raw score of the token with itself."""
    for _ in range(_TRIES):
        X = draw_embeddings(rng)
        W_Q, W_K = draw_matrix(rng, 3, 2, _WEIGHT), draw_matrix(rng, 3, 2, _WEIGHT)
        row = rng.randrange(3)
        spec: dict[str, Any] = {"inputs": {"X": spec_matrix(X), "W_Q": spec_matrix(W_Q),
                                           "W_K": spec_matrix(W_K)}}
        derivation = derive_spec(spec)
        q = [entry(derivation, "Q", row, j) for j in range(2)]
        k = [entry(derivation, "K", row, j) for j in range(2)]
        if len(set(q)) == 2 and len(set(k)) == 2 and all(x != 0 for x in X[row]) and \
                entry(derivation, "scores", row, row) != 0:
            break
    tokens = draw_sentence(rng, setup.words, 3)
    spec["tokens"] = list(tokens)
    r = row + 1
    blanks = tuple(number_blank(f"q{j + 1}", f"q_{{{r},{j + 1}}}", q[j], setup.places,
                                (0, f"Q[{r},{j + 1}]")) for j in range(2)) + \
        tuple(number_blank(f"k{j + 1}", f"k_{{{r},{j + 1}}}", k[j], setup.places,
                           (0, f"K[{r},{j + 1}]")) for j in range(2))
    score = number_blank("s", f"s_{{{r},{r}}}", entry(derivation, "scores", row, row),
                         setup.places, (0, f"scores[{r},{r}]"))
    parts: tuple[Part, ...] = sentence_parts(tokens) + (
        Text(Msg.of("kind.projection.prompt", row=Num(r), token=token_text(tokens, row))),
        Given((("X", num_rows(X)), ("W_Q", num_rows(W_Q)), ("W_K", num_rows(W_K)))),
        Blanks(blanks[:2], Msg.of("kind.projection.query", row=Num(r))),
        Blanks(blanks[2:], Msg.of("kind.projection.key", row=Num(r))),
        Blanks((score,), Msg.of("kind.projection.score")))
    return Exercise("projection", parts, (spec,),
                    (KeyStep(0, ("Q", "K", "scores"), (r,), setup.places),))


def scores_row(rng: random.Random, setup: Setup) -> Exercise:
    """One row of raw scores q_i . k_j and of scaled scores."""
    attention = _attention(rng, setup, rng.choice((3, 4)))
    tokens = _tokens(rng, setup, attention)
    spec = attention_spec(attention, tokens, values=False)
    derivation = derive_spec(spec)
    row = rng.randrange(len(attention.Q))
    m, r = len(attention.K), row + 1
    raw = tuple(number_blank(f"s{j + 1}", f"s_{{{r},{j + 1}}}",
                             entry(derivation, "scores", row, j), setup.places,
                             (0, f"scores[{r},{j + 1}]")) for j in range(m))
    scaled = _scaled_blanks(derivation, row, setup.places)
    text = Text(Msg.of("kind.scores_row.prompt", row=Num(r), token=token_text(tokens, row),
                       d_k=Num(attention.d_k)))
    return Exercise("scores_row", sentence_parts(tokens) + (
        text, _given(attention, False), Blanks(raw), Blanks(scaled)), (spec,),
                    (KeyStep(0, ("scores", "scaled"), (r,), setup.places),))


def _scaled_blanks(derivation: Derivation, row: int, places: int) -> tuple[Blank, ...]:
    r = row + 1
    return tuple(number_blank(f"t{j + 1}", rf"\tilde{{s}}_{{{r},{j + 1}}}",
                              entry(derivation, "scaled", row, j), places,
                              (0, f"scaled[{r},{j + 1}]"))
                 for j in range(derivation["scaled"].shape[1]))


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
            value = entry(derivation, "scores", i, j)
            row.append(number_blank(f"s{i + 1}{j + 1}", f"s_{{{i + 1},{j + 1}}}", value,
                                    setup.places, (0, f"scores[{i + 1},{j + 1}]"))
                       if (i, j) in missing else Num(value))
        rows.append(tuple(row))
    expanded = tuple(sorted({i + 1 for i, _ in missing}))
    text = Text(Msg.of("kind.fill_matrix.prompt"))
    return Exercise("fill_matrix", (text, _given(attention, False),
                                    Grid(r"S = Q K^{\top}", tuple(rows))), (spec,),
                    (KeyStep(0, ("scores",), expanded, setup.places),))


# ------------------------------------------------------------------ softmax
def softmax_table(rng: random.Random, setup: Setup) -> Exercise:
    """A row of scores z; the student fills e^z, the sum and each weight."""
    p = setup.places
    for _ in range(200):
        z = draw_row(rng, 3 if setup.compact else 4, distinct=True)
        spec = {"inputs": {"scaled": [[spec_number(x) for x in z]]}}
        derivation = derive_spec(spec)
        e_blanks, sum_blank, weights = softmax_blanks(derivation, 0, p, label="a")
        if all_clear([b.value for b in e_blanks + [sum_blank] + weights], p):
            break
    rows: list[tuple[object, ...]] = [(Num(j + 1), Num(z[j]), e_blanks[j], weights[j])
                                      for j in range(len(z))]
    rows.append((Msg.of("sheet.sum"), "", sum_blank, Num(1)))
    table = Table((Math("j"), Math("z_j"), Math("e^{z_j}"), Math(r"a_j = e^{z_j} / \Sigma")),
                  tuple(rows))
    text = Text(Msg.of("kind.softmax_table.prompt", unit=unit_of(p)))
    return Exercise("softmax_table", (text, table), (spec,),
                    (KeyStep(0, ("exp", "exp_sum", "weights"), (1,), p),))


def stable_softmax(rng: random.Random, setup: Setup) -> Exercise:
    """Scores near 1000: subtract the largest, softmax the small numbers, and say why."""
    p = setup.places
    for _ in range(_TRIES):
        base = fmpq(rng.choice((800, 900, 1000, 1200)))
        shifts = [fmpq(x) for x in rng.sample((-3, -2, -1, 0), 3)]
        if 0 not in shifts:
            continue
        z = [base + s for s in shifts]
        shifted_spec = {"inputs": {"scaled": [[spec_number(x) for x in shifts]]}}
        derivation = derive_spec(shifted_spec)
        e_blanks, sum_blank, weights = softmax_blanks(derivation, 0, p, label="a")
        if all_clear([b.value for b in e_blanks + [sum_blank] + weights], p):
            break
    original = {"inputs": {"scaled": [[spec_number(x) for x in z]]}}
    from dataclasses import replace

    shifted = tuple(number_blank(f"d{j + 1}", f"z_{{{j + 1}}} - m", shifts[j], p,
                                 (1, f"scaled[1,{j + 1}]")) for j in range(3))
    e_blanks = [replace(b, label=f"e^{{z_{{{j + 1}}} - m}}", claim=(1, b.claim[1]))
                for j, b in enumerate(e_blanks) if b.claim]
    sum_blank = replace(sum_blank, claim=(1, "exp_sum[1]")) if sum_blank.claim else sum_blank
    # The weights are claimed on the original scores: softmax(z - m) = softmax(z).
    weights = [replace(b, claim=(0, b.claim[1])) for b in weights if b.claim]
    reason = Blank("why", r"\text{why}", "overflow", kind="choice",
                   options=("overflow", "normalise", "sharper"))
    parts = (Text(Msg.of("kind.stable_softmax.prompt", unit=unit_of(p))),
             Given((("z", (tuple(Num(x) for x in z),)),)),
             Blanks(shifted, Msg.of("kind.stable_softmax.shifted")),
             Blanks(tuple(e_blanks) + (sum_blank,)),
             Blanks(tuple(weights)),
             Choice(reason, tuple(Msg.of(f"kind.stable_softmax.{o}", largest=Num(max(z)))
                                  if o == "overflow" else Msg.of(f"kind.stable_softmax.{o}")
                                  for o in reason.options),
                    Msg.of("kind.stable_softmax.question", largest=Num(max(z)))))
    return Exercise("stable_softmax", parts, (original, shifted_spec),
                    (KeyStep(1, ("exp", "exp_sum", "weights"), (1,), p),),
                    (Note(Msg.of("kind.stable_softmax.why", largest=Num(max(z)))),))


def weights_row(rng: random.Random, setup: Setup) -> Exercise:
    """Scaled scores and attention weights of one row, from Q and K."""
    p = setup.places
    for _ in range(200):
        attention = _attention(rng, setup, 3)
        row = rng.randrange(len(attention.Q))
        tokens = _tokens(rng, setup, attention)
        spec = attention_spec(attention, tokens, values=False)
        derivation = derive_spec(spec)
        _, _, weights = softmax_blanks(derivation, row, p)
        if setup.base is not None or all_clear([b.value for b in weights], p):
            break
    r = row + 1
    text = Text(Msg.of("kind.weights_row.prompt", row=Num(r), token=token_text(tokens, row),
                       d_k=Num(attention.d_k), unit=unit_of(p)))
    return Exercise("weights_row", sentence_parts(tokens) + (
        text, _given(attention, False), Blanks(_scaled_blanks(derivation, row, p)),
        Blanks(tuple(weights))), (spec,),
                    (KeyStep(0, ("scores", "scaled", "exp", "exp_sum", "weights"), (r,), p),))


def causal_mask(rng: random.Random, setup: Setup) -> Exercise:
    """Apply a causal mask to scaled scores; weights of the first two rows."""
    p = setup.places
    for _ in range(200):
        scaled = draw_score_rows(rng, 3, 3)
        spec = {"inputs": {"scaled": [[spec_number(x) for x in row] for row in scaled]},
                "options": {"mask": "causal"}}
        derivation = derive_spec(spec)
        _, _, second = softmax_blanks(derivation, 1, p)
        if all_clear([b.value for b in second], p):
            break
    _, _, second = softmax_blanks(derivation, 1, p, ids="a2")
    z_rows = tuple(tuple(number_blank(f"z{i + 1}{j + 1}", f"z_{{{i + 1},{j + 1}}}",
                                      entry(derivation, "masked", i, j), p,
                                      (0, f"masked[{i + 1},{j + 1}]")) for j in range(3))
                   for i in range(3))
    first = tuple(number_blank(f"a1{j + 1}", f"a_{{1,{j + 1}}}",
                               entry(derivation, "weights", 0, j), p, (0, f"weights[1,{j + 1}]"))
                  for j in range(3))
    parts = (Text(Msg.of("kind.causal_mask.prompt", unit=unit_of(p))),
             Given(((r"\tilde{S}", num_rows(scaled)),)),
             Grid(r"Z = \tilde{S} + M", z_rows),
             Blanks(first, Msg.of("kind.causal_mask.row", row=Num(1))),
             Blanks(tuple(second), Msg.of("kind.causal_mask.row", row=Num(2))))
    return Exercise("causal_mask", parts, (spec,),
                    (KeyStep(0, ("mask", "masked", "exp", "exp_sum", "weights"), (1, 2), p),))


# ------------------------------------------------------------------- output
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
        _, _, weights = softmax_blanks(derivation, row, p)
        outputs = _output_blanks(derivation, row, weights, q)
        if setup.base is not None or all_clear([b.value for b in weights + outputs], p):
            break
    r = row + 1
    text = Text(Msg.of("kind.output_row.prompt", row=Num(r), token=token_text(tokens, row),
                       d_k=Num(attention.d_k), unit=unit_of(p), out_unit=unit_of(q)))
    return Exercise("output_row", sentence_parts(tokens) + (
        text, _given(attention), Blanks(tuple(weights)), Blanks(tuple(outputs))), (spec,),
                    (KeyStep(0, ("scores", "scaled", "exp", "exp_sum", "weights", "output"),
                             (r,), p),))


def _output_blanks(derivation: Derivation, row: int, weights: Sequence[Blank], places: int
                   ) -> list[Blank]:
    """Output components; ``carried``: from the weights rounded as the student writes them."""
    r = row + 1
    values = derivation["V"].value
    m, d_v = values.shape
    rounded = [shown(b) for b in weights]
    out = []
    for k in range(d_v):
        exact = entry(derivation, "output", row, k)
        carried = sum((rounded[j] * _rational(values.exact(j, k)) for j in range(m)), fmpq(0))
        out.append(number_blank(f"o{k + 1}", f"o_{{{r},{k + 1}}}", exact, places,
                                (0, f"output[{r},{k + 1}]"),
                                tolerance_for(exact, carried, places)))
    return out
