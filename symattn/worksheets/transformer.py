"""Exercise kinds on attention inside a Transformer: heads, a KV cache, the next token.

| kind | the student |
|---|---|
| ``multi_head`` | two heads of width 1: each head's weights and output, concat, W_O |
| ``kv_cache`` | one decode step: the new query against cached keys and values |
| ``next_token`` | logits z = hU, probabilities softmax(z), the most likely word |

As in ``attention_steps``, every answer is the engine's exact value of the
exercise's own spec (``answers``), and every number blank names the claim
``symattn check`` judges.

>>> from symattn.worksheets.model import Setup
>>> from symattn.worksheets.numbers import variant_random
>>> exercise = kv_cache(variant_random(3, 1, 1, "kv_cache"), Setup())
>>> exercise.problems[0]["options"]["query_positions"], exercise.blanks[-1].value
([3], 'new')
"""

from __future__ import annotations

__all__ = ["multi_head", "kv_cache", "next_token", "draw_heads", "draw_readout"]

import random
from typing import Any, Sequence

from flint import fmpq

from symattn.values import arith
from symattn.worksheets.answers import (all_clear, attention_spec, carried_sum, derive_spec,
                                        entry, number_blank, shown, softmax_blanks,
                                        softmax_carried)
from symattn.worksheets.model import (Blank, Blanks, Choice, Exercise, Given, KeyStep, Math, Msg,
                                      Note, Num, Setup, Table, Text, User, num_rows, spec_matrix,
                                      tolerance_for, unit_of)
from symattn.worksheets.numbers import SMALL, Matrix, draw_attention, draw_matrix
from symattn.worksheets.words import vocabulary

_TRIES = 400                      # draws before the last one is taken as it is
_HEAD_TRIES = 4000                # draws of the numbers alone (one in fifty has no tie)


def _column(grid: Sequence[Sequence[fmpq]], k: int) -> list[fmpq]:
    return [row[k] for row in grid]


# ----------------------------------------------------------------- multi_head
def draw_heads(rng: random.Random) -> tuple[Matrix, Matrix, Matrix, Matrix]:
    """Q, K, V and W_O (2 x 2 each) of two heads of width 1 over two tokens: per head
    the two queries differ, neither query's two scores tie and the two values differ;
    no key and no column of W_O is zero."""
    for _ in range(_HEAD_TRIES):
        Q, K = draw_matrix(rng, 2, 2, SMALL), draw_matrix(rng, 2, 2, SMALL)
        V, W_O = draw_matrix(rng, 2, 2, (-1, 0, 1, 2, 3)), draw_matrix(rng, 2, 2, (-1, 0, 1, 1, 2))
        if not any(Q[0][h] == Q[1][h] or V[0][h] == V[1][h] or
                   any(Q[i][h] * K[0][h] == Q[i][h] * K[1][h] for i in range(2))
                   for h in range(2)) and (0, 0) not in set(zip(*W_O)) and \
                not any(all(x == 0 for x in key) for key in K):
            return Q, K, V, W_O
    raise AssertionError("no two heads without ties found")    # pragma: no cover


def _head_blanks(derivation: Any, head: int, row: int, V: Sequence[Sequence[fmpq]],
                 p: int, q: int) -> tuple[list[Blank], Blank]:
    """Head ``head``'s weights of ``row`` and its output (one number: d_v = 1)."""
    prefix, r = f"head{head}.", row + 1
    exps = [entry(derivation, prefix + "exp", row, j) for j in range(len(V))]
    _, carried = softmax_carried(exps, p)
    weights = []
    for j in range(len(V)):
        exact = entry(derivation, prefix + "weights", row, j)
        weights.append(number_blank(f"a{head}{j + 1}", f"a^{{({head})}}_{{{r},{j + 1}}}", exact,
                                    p, (0, f"{prefix}weights[{r},{j + 1}]"),
                                    tolerance_for(exact, carried[j], p)))
    exact = entry(derivation, prefix + "output", row, 0)
    output = number_blank(f"h{head}", f"o^{{({head})}}_{{{r}}}", exact, q,
                          (0, f"{prefix}output[{r},1]"),
                          tolerance_for(exact, carried_sum(weights, _column(V, head - 1)), q))
    return weights, output


def multi_head(rng: random.Random, setup: Setup) -> Exercise:
    """Two heads of width 1 over two tokens: weights, head outputs, concat, output = C W_O."""
    p, q = setup.places, max(setup.places - 1, 1)
    for _ in range(_TRIES):
        Q, K, V, W_O = draw_heads(rng)
        row = rng.randrange(2)
        spec = {"inputs": {"Q": spec_matrix(Q), "K": spec_matrix(K), "V": spec_matrix(V),
                           "W_O": spec_matrix(W_O)}, "options": {"heads": 2}}
        derivation = derive_spec(spec)
        first, out1 = _head_blanks(derivation, 1, row, V, p, q)
        second, out2 = _head_blanks(derivation, 2, row, V, p, q)
        if all_clear([b.value for b in first + second + [out1, out2]], p) and \
                [b.expected() for b in first] != [b.expected() for b in second]:
            break
    r = row + 1
    concat = [shown(out1), shown(out2)]
    outputs = []
    for k in range(2):
        exact = entry(derivation, "output", row, k)
        carried = concat[0] * W_O[0][k] + concat[1] * W_O[1][k]
        outputs.append(number_blank(f"o{k + 1}", f"o_{{{r},{k + 1}}}", exact, q,
                                    (0, f"output[{r},{k + 1}]"), tolerance_for(exact, carried, q)))
    parts = (Text(Msg.of("kind.multi_head.prompt", row=Num(r), unit=unit_of(p),
                         out_unit=unit_of(q))),
             Given((("Q", num_rows(Q)), ("K", num_rows(K)), ("V", num_rows(V)),
                    ("W_O", num_rows(W_O)))),
             Blanks(tuple(first) + (out1,), Msg.of("kind.multi_head.head", head=Num(1))),
             Blanks(tuple(second) + (out2,), Msg.of("kind.multi_head.head", head=Num(2))),
             Blanks(tuple(outputs), Msg.of("kind.multi_head.output")))
    steps = tuple(f"head{h}.{s}" for h in (1, 2)
                  for s in ("scores", "exp", "exp_sum", "weights", "output")) + \
        ("concat", "output")
    return Exercise("multi_head", parts, (spec,), (KeyStep(0, steps, (r,), p),),
                    (Note(Msg.of("kind.multi_head.why")),))


# ------------------------------------------------------------------- kv_cache
def kv_cache(rng: random.Random, setup: Setup) -> Exercise:
    """Decode token 3: q_3 against the cached k_1, k_2 (and v_1, v_2) plus the new k_3, v_3."""
    p, q = setup.places, max(setup.places - 1, 1)
    for _ in range(_TRIES):
        attention = draw_attention(rng, 3, 3, setup.d_k, 2)
        if any(all(x == 0 for x in row) for row in attention.K + attention.V):
            continue                # a zero key scores 0 against every query
        spec: dict[str, Any] = attention_spec(attention, mask="causal")
        spec["inputs"]["Q"] = spec_matrix(attention.Q[2:])
        spec["options"]["query_positions"] = [3]
        derivation = derive_spec(spec)
        _, _, weights = softmax_blanks(derivation, 0, p, label="a_{3}")
        weights = [_relabel(b, 3) for b in weights]
        outputs = _outputs(derivation, weights, attention.V, q)
        if all_clear([b.value for b in weights + outputs], p):
            break
    scaled = tuple(number_blank(f"t{j + 1}", rf"\tilde{{s}}_{{3,{j + 1}}}",
                                entry(derivation, "scaled", 0, j), p, (0, f"scaled[3,{j + 1}]"))
                   for j in range(3))
    choice = Blank("computed", r"\text{computed}", "new", kind="choice",
                   options=("new", "all", "none"))
    parts = (Text(Msg.of("kind.kv_cache.prompt", d_k=Num(attention.d_k), unit=unit_of(p),
                         out_unit=unit_of(q))),
             Given(((r"K_{\text{cache}}", num_rows(attention.K[:2])),
                    (r"V_{\text{cache}}", num_rows(attention.V[:2]))),
                   Msg.of("kind.kv_cache.cache")),
             Given((("q_3", num_rows(attention.Q[2:])), ("k_3", num_rows(attention.K[2:])),
                    ("v_3", num_rows(attention.V[2:]))), Msg.of("kind.kv_cache.arrives")),
             Blanks(scaled), Blanks(tuple(weights)), Blanks(tuple(outputs)),
             Choice(choice, tuple(Msg.of(f"kind.kv_cache.{o}") for o in choice.options),
                    Msg.of("kind.kv_cache.question")))
    return Exercise("kv_cache", parts, (spec,),
                    (KeyStep(0, ("scores", "scaled", "exp", "exp_sum", "weights", "output"),
                             (3,), p),),
                    (Note(Msg.of("kind.kv_cache.why")),))


def _relabel(blank: Blank, row: int) -> Blank:
    """A weight blank of the single query row, named and claimed by its position."""
    from dataclasses import replace

    j = blank.id[1:]
    assert blank.claim is not None
    return replace(blank, label=f"a_{{{row},{j}}}", claim=(0, f"weights[{row},{j}]"))


def _outputs(derivation: Any, weights: Sequence[Blank], V: Sequence[Sequence[fmpq]],
             places: int) -> list[Blank]:
    out = []
    for k in range(len(V[0])):
        exact = entry(derivation, "output", 0, k)
        out.append(number_blank(f"o{k + 1}", f"o_{{3,{k + 1}}}", exact, places,
                                (0, f"output[3,{k + 1}]"),
                                tolerance_for(exact, carried_sum(weights, _column(V, k)),
                                              places)))
    return out


# ----------------------------------------------------------------- next_token
def next_token(rng: random.Random, setup: Setup) -> Exercise:
    """z = hU over four words, p = softmax(z), and the most likely next word."""
    p = setup.places
    for _ in range(_TRIES):
        h, U = draw_readout(rng)
        logits = [h[0][0] * U[0][j] + h[0][1] * U[1][j] for j in range(4)]
        best = max(logits)
        spec = {"inputs": {"Q": [["1"]], "K": [["1"]], "V": spec_matrix(h)},
                "readout": {"unembedding": spec_matrix(U)}}
        derivation = derive_spec(spec)
        probs = _probability_blanks(derivation, p)
        if all_clear([b.value for b in probs], p):
            break
    words = vocabulary(rng, setup.words, 4)
    z = tuple(number_blank(f"z{j + 1}", f"z_{{{j + 1}}}", logits[j], p, (0, f"logits[1,{j + 1}]"))
              for j in range(4))
    winner = f"w{logits.index(best) + 1}"
    choice = Blank("word", r"\text{word}", winner, kind="choice",
                   options=tuple(f"w{j + 1}" for j in range(4)))
    header = (Msg.of("kind.next_token.word"), Math("z_j"), Math("p_j"))
    rows = tuple((User(words[j]), z[j], probs[j]) for j in range(4))
    parts = (Text(Msg.of("kind.next_token.prompt", unit=unit_of(p))),
             Given((("h", num_rows(h)), ("U", num_rows(U)))),
             Table(header, rows, Msg.of("kind.next_token.columns")),
             Choice(choice, tuple(User(w) for w in words), Msg.of("kind.next_token.question")))
    return Exercise("next_token", parts, (spec,), (KeyStep(0, ("logits", "probs"), (), p),),
                    (Note(Msg.of("kind.next_token.why")),), facts={"words": words})


def draw_readout(rng: random.Random) -> tuple[Matrix, Matrix]:
    """h (1 x 2) and U (2 x 4) whose four logits hU are different (so one word is the
    most likely, and no two tie) and spread by at most 3; U's columns differ and none
    is zero."""
    for _ in range(_HEAD_TRIES):
        h = draw_matrix(rng, 1, 2, (-1, 1, 1, 2))
        U = draw_matrix(rng, 2, 4, (-1, 0, 0, 1, 1))
        logits = [h[0][0] * U[0][j] + h[0][1] * U[1][j] for j in range(4)]
        if len(set(logits)) == 4 and max(logits) - min(logits) <= 3 and \
                len(set(zip(*U))) == 4 and (0, 0) not in set(zip(*U)):
            return h, U
    raise AssertionError("no read-out without ties found")    # pragma: no cover


def _probability_blanks(derivation: Any, places: int) -> list[Blank]:
    logits = [entry(derivation, "logits", 0, j) for j in range(4)]
    _, carried = softmax_carried([arith.exp(z) for z in logits], places)
    out = []
    for j in range(4):
        exact = entry(derivation, "probs", 0, j)
        out.append(number_blank(f"p{j + 1}", f"p_{{{j + 1}}}", exact, places,
                                (0, f"probs[1,{j + 1}]"), tolerance_for(exact, carried[j],
                                                                        places)))
    return out
