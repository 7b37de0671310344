"""What-if and size exercises: temperature, no scaling, entropy, memory.

* ``temperature``: the weights of a row of scores at T = 1 and at T = 2 (or
  1/2), and whether the row got flatter or sharper;
* ``no_scaling``: the weights with and without 1/sqrt(d_k) (d_k = 16), and
  what happens to the largest weight;
* ``entropy``: the entropy in bits of two rows of weights that are powers of
  1/2 (so every logarithm is a whole number), the largest possible entropy,
  and which row is more focused;
* ``sizes``: head dimension, score-matrix entries and bytes, KV-cache bytes
  per token and for a sequence, checked by ``symattn.sizes``.

>>> from symattn.worksheets.model import Setup
>>> from symattn.worksheets.numbers import variant_random
>>> exercise = entropy(variant_random(2, 1, 1, "entropy"), Setup())
>>> [(blank.id, blank.expected("pl")) for blank in exercise.blanks]
[('h1', '0'), ('h2', '1,75'), ('hmax', '2'), ('focused', 'A')]
"""

from __future__ import annotations

__all__ = ["temperature", "no_scaling", "entropy", "sizes", "DISTRIBUTIONS", "binary_unit"]

import random
from dataclasses import replace
from typing import Any, Sequence

from flint import fmpq

from symattn.worksheets.answers import (all_clear, derive_spec, entry, number_blank,
                                        softmax_blanks)
from symattn.worksheets.model import (Blank, Blanks, Choice, Exercise, Given, KeyStep, Math, Msg,
                                      Note, Num, Setup, Table, Text, spec_number, unit_of)
from symattn.worksheets.numbers import draw_row

# Rows of weights whose entropy is a short exact decimal: every weight is 0 or 1/2^k.
DISTRIBUTIONS = ((8, 4, 2, 2), (4, 4, 4, 4), (8, 8, 0, 0), (8, 4, 4, 0), (16, 0, 0, 0),
                 (4, 2, 1, 1))


def _row_spec(scores: Sequence[fmpq], **options: Any) -> dict[str, Any]:
    return {"inputs": {"scores": [[spec_number(x) for x in scores]]},
            "options": {"scale": "none", **options}}


def _weights(derivation: Any, problem: int, places: int, ids: str) -> tuple[Blank, ...]:
    _, _, weights = softmax_blanks(derivation, 0, places, ids, "a" if problem == 0 else "a'")
    return tuple(replace(b, claim=(problem, b.claim[1])) if b.claim else b for b in weights)


def temperature(rng: random.Random, setup: Setup) -> Exercise:
    """Weights at T = 1 and at T = 2 or 1/2: flatter or sharper?"""
    p = setup.places
    for _ in range(200):
        z = draw_row(rng, 3, distinct=True)
        t = rng.choice((fmpq(2), fmpq(1, 2)))
        cold, hot = derive_spec(_row_spec(z)), derive_spec(_row_spec(z, temperature=
                                                                      spec_number(t)))
        before, after = _weights(cold, 0, p, "a"), _weights(hot, 1, p, "b")
        if all_clear([b.value for b in before + after], p):
            break
    scaled = tuple(number_blank(f"t{j + 1}", f"z_{{{j + 1}}}/T", entry(hot, "scaled", 0, j), p,
                                (1, f"scaled[1,{j + 1}]")) for j in range(3))
    answer = "flatter" if t > 1 else "sharper"
    choice = Blank("effect", r"\text{effect}", answer, kind="choice",
                   options=("flatter", "sharper", "same"))
    parts = (Text(Msg.of("kind.temperature.prompt", t=Num(t), unit=unit_of(p))),
             Given((("z", ((tuple(Num(x) for x in z)),)),)),
             Blanks(before, Msg.of("kind.temperature.at_one")),
             Blanks(scaled, Msg.of("kind.temperature.at_t", t=Num(t))),
             Blanks(after),
             Choice(choice, tuple(Msg.of(f"kind.temperature.{o}") for o in choice.options),
                    Msg.of("kind.temperature.question", t=Num(t))))
    return Exercise("temperature", parts, (_row_spec(z), _row_spec(z, temperature=
                                                                   spec_number(t))),
                    (KeyStep(0, ("exp", "exp_sum", "weights"), (1,), p,
                             Msg.of("kind.temperature.at_one")),
                     KeyStep(1, ("scaled", "exp", "exp_sum", "weights"), (1,), p,
                             Msg.of("kind.temperature.at_t", t=Num(t)))),
                    (Note(Msg.of(f"kind.temperature.why_{answer}")),))


def no_scaling(rng: random.Random, setup: Setup) -> Exercise:
    """Raw scores with d_k = 16: weights with and without the scaling."""
    p = setup.places
    pool = tuple(fmpq(k) for k in (-2, 0, 2, 4, 6))
    for _ in range(200):
        s = draw_row(rng, 3, pool, distinct=True)
        scaled_spec = {"inputs": {"scores": [[spec_number(x) for x in s]]},
                       "options": {"d_k": 16}}
        raw_spec = _row_spec(s)
        with_scale, without = derive_spec(scaled_spec), derive_spec(raw_spec)
        before, after = _weights(with_scale, 0, p, "a"), _weights(without, 1, p, "b")
        if all_clear([b.value for b in before + after], p):
            break
    scaled = tuple(number_blank(f"t{j + 1}", rf"\tilde{{s}}_{{{j + 1}}}",
                                entry(with_scale, "scaled", 0, j), p, (0, f"scaled[1,{j + 1}]"))
                   for j in range(3))
    choice = Blank("largest", r"\text{largest}", "larger", kind="choice",
                   options=("larger", "smaller", "same"))
    parts = (Text(Msg.of("kind.no_scaling.prompt", d_k=Num(16), unit=unit_of(p))),
             Given((("s", ((tuple(Num(x) for x in s)),)),)),
             Blanks(scaled, Msg.of("kind.no_scaling.scaled")),
             Blanks(before, Msg.of("kind.no_scaling.with")),
             Blanks(after, Msg.of("kind.no_scaling.without")),
             Choice(choice, tuple(Msg.of(f"kind.no_scaling.{o}") for o in choice.options),
                    Msg.of("kind.no_scaling.question")))
    return Exercise("no_scaling", parts, (scaled_spec, raw_spec),
                    (KeyStep(0, ("scaled", "exp", "exp_sum", "weights"), (1,), p,
                             Msg.of("kind.no_scaling.with")),
                     KeyStep(1, ("exp", "exp_sum", "weights"), (1,), p,
                             Msg.of("kind.no_scaling.without"))),
                    (Note(Msg.of("kind.no_scaling.why")),))


def _fraction(q: fmpq, style: str = "dfrac") -> Math:
    if q == 0 or q == 1:
        return Math(str(int(q)))
    return Math(rf"\{style}{{{int(q.p)}}}{{{int(q.q)}}}")


def _hand_entropy(weights: Sequence[fmpq]) -> str:
    """-sum a log2 a written with whole logarithms: 1/2 * 1 + 1/4 * 2 + ..."""
    terms = []
    for a in weights:
        if a == 0:
            continue
        bits = int(a.q).bit_length() - 1          # a = 1/2^bits
        terms.append(f"{_fraction(a, 'tfrac').latex} \\cdot {bits}")
    return " + ".join(terms)


def entropy(rng: random.Random, setup: Setup) -> Exercise:
    """Two rows of weights (powers of 1/2): entropies, the maximum, the more focused row."""
    first, second = rng.sample(range(len(DISTRIBUTIONS)), 2)
    while _bits(DISTRIBUTIONS[first]) == _bits(DISTRIBUTIONS[second]):
        second = rng.randrange(len(DISTRIBUTIONS))
    rows = []
    for index in (first, second):
        row = list(DISTRIBUTIONS[index])
        rng.shuffle(row)
        rows.append(row)
    spec = {"inputs": {"scaled": [[str(x) for x in row] for row in rows]},
            "options": {"normalisation": "sum"}, "diagnostics": {"entropy": True}}
    derivation = derive_spec(spec)
    weights = [[entry(derivation, "weights", i, j) for j in range(4)] for i in range(2)]
    h = [number_blank(f"h{i + 1}", f"H_{{{i + 1}}}", entry(derivation, "entropy", i, 0),
                      setup.places, (0, f"entropy[{i + 1}]")) for i in range(2)]
    h_max = number_blank("hmax", r"H_{\max}", entry(derivation, "entropy_max", 0, 0),
                         setup.places, (0, "entropy_max[1]"))
    focused = "row1" if h[0].value < h[1].value else "row2"
    choice = Blank("focused", r"\text{row}", focused, kind="choice", options=("row1", "row2"))
    parts = (Text(Msg.of("kind.entropy.prompt")),
             Given((("A", tuple(tuple(_fraction(a) for a in row) for row in weights)),)),
             Blanks(tuple(h) + (h_max,)),
             Choice(choice, (Msg.of("kind.entropy.row", row=Num(1)),
                             Msg.of("kind.entropy.row", row=Num(2))),
                    Msg.of("kind.entropy.question")))
    notes = tuple(Note(Msg.of("kind.entropy.worked", row=Num(i + 1),
                              sum=Math(_hand_entropy(weights[i])), value=Num(h[i].value)))
                  for i in range(2))
    return Exercise("entropy", parts, (spec,),
                    (KeyStep(0, ("entropy", "entropy_max"), (), setup.places),), notes)


def _bits(distribution: Sequence[int]) -> fmpq:
    total = sum(distribution)
    out = fmpq(0)
    for x in distribution:
        if x:
            out += fmpq(x, total) * ((total // x).bit_length() - 1)
    return out


# ---------------------------------------------------------------------- sizes
def binary_unit(value: int) -> tuple[int, str]:
    """The largest binary unit in which ``value`` bytes is a whole number.

    >>> binary_unit(16777216), binary_unit(12288), binary_unit(1000)
    ((16, 'MiB'), (12, 'KiB'), (1000, 'B'))
    """
    for power, unit in ((40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")):
        if value % (1 << power) == 0:
            return value >> power, unit
    return value, "B"


SIZE_QUESTIONS = ("head_dim", "score_elements", "score_bytes", "kv_cache_bytes_per_token",
                  "kv_cache_bytes")


def sizes(rng: random.Random, setup: Setup) -> Exercise:
    """Shapes and memory of one model, every answer a whole number in its unit."""
    from symattn import sizes as size_module

    if setup.shape is not None:
        fields = dict(setup.shape)
    else:
        head_dim = rng.choice((32, 64, 128))
        d_model = rng.choice([d for d in (256, 512, 768, 1024, 2048) if d // head_dim >= 4])
        fields = {"d_model": d_model, "heads": d_model // head_dim,
                  "seq_len": rng.choice((512, 1024, 2048, 4096)),
                  "layers": rng.choice((4, 6, 12, 24)), "dtype": rng.choice(("fp16", "fp32"))}
    d_model = fields["d_model"]
    computed = size_module.compute(size_module.ModelShape(**fields))
    blanks = []
    claims = {}
    for name in SIZE_QUESTIONS:
        quantity = computed.quantity(name)
        value = int(quantity.value)
        if quantity.kind == "bytes":
            amount, unit = binary_unit(value)
        else:
            amount, unit = value, ""
        blanks.append(Blank(name, name, amount, kind="size", unit=unit, claim=(0, name)))
        claims[name] = f"{amount} {unit}".strip()
    spec = {"sizes": fields}
    rows = tuple((Msg.of(f"kind.sizes.{name}"), blank) for name, blank in zip(SIZE_QUESTIONS,
                                                                             blanks))
    bytes_per = computed.shape.bytes_per_element
    parts = (Text(Msg.of("kind.sizes.prompt", d_model=Num(d_model), heads=Num(fields["heads"]),
                         layers=Num(fields["layers"]), seq_len=Num(fields["seq_len"]),
                         dtype=Math(rf"\text{{{fields['dtype']}}}"), bytes=Num(bytes_per))),
             Text(Msg.of("kind.sizes.units")),      # KiB = 2^10 B on the sheet itself
             Table((Msg.of("kind.sizes.quantity"), Msg.of("kind.sizes.answer")), rows))
    return Exercise("sizes", parts, (spec,), sizes=SIZE_QUESTIONS, facts={"claims": claims})
