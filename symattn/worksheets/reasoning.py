"""Exercise kinds about what attention does, reasoned more than computed: token order,
and designing a query.

* ``permutation``: the weights A and output O of three tokens are given; two
  tokens are swapped. Without positions the student writes the new rows
  (A' is A with rows and columns swapped, O' is O with rows swapped), and says
  whether that still holds with positional encodings. Both answers are proved
  for the sheet's own numbers by ``explore.permute.permutation_check``, and
  the new rows are claimed on the swapped problem's spec.
* ``design``: keys and values are given; the student chooses a query q so that
  a stated weight pattern results (``copy``: one token gets at least 0.9 of the
  weight; ``average``: two tokens get equal weights of at least 0.45 each).
  Any q that meets the pattern is right: ``check_design`` decides it exactly,
  and the key gives a reference answer that passes the same check.

>>> from symattn.worksheets.model import Setup
>>> from symattn.worksheets.numbers import variant_random
>>> exercise = design(variant_random(4, 1, 1, "design"), Setup())
>>> facts = exercise.facts["check"]
>>> check_design(facts, exercise.facts["reference"]).meets
True
>>> check_design(facts, (0, 0)).meets
False
"""

from __future__ import annotations

__all__ = ["permutation", "design", "check_design", "DesignCheck", "PATTERNS"]

import random
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any, Mapping, Sequence

from flint import fmpq

from symattn.values import arith
from symattn.values.exact import Exact
from symattn.values.number_format import NumberFormat
from symattn.values.whole import ascii_whole
from symattn.worksheets.answers import all_clear, derive_spec, entry, number_blank
from symattn.worksheets.model import (Blank, Blanks, Choice, Exercise, Given, KeyStep, Msg, Note,
                                      Num, Setup, Text, User, num_rows, spec_matrix, spec_number,
                                      unit_of)
from symattn.worksheets.numbers import draw_attention
from symattn.worksheets.words import draw_sentence

PATTERNS = ("copy", "average")
BOUND = 5                                   # |q_k| <= BOUND
_W_V = ((1, 0), (0, 1), (1, 0), (0, 1))
THRESHOLD = {"copy": fmpq(9, 10), "average": fmpq(45, 100)}


# ---------------------------------------------------------------- permutation
def _permutation_facts(spec: Mapping[str, Any], order: Sequence[int]) -> tuple[bool, bool]:
    """(equivariant without positions, equivariant with sinusoidal positions), proved."""
    import json

    numbers = {key: value for key, value in spec.items() if key != "tokens"}
    return _proved(json.dumps(numbers, sort_keys=True), tuple(order))


@lru_cache(maxsize=256)
def _proved(spec_text: str, order: tuple[int, ...]) -> tuple[bool, bool]:
    """The proof with positions takes about a second: once per problem, whatever the
    language of the sheet."""
    import dataclasses
    import json

    from symattn.explore.permute import permutation_check
    from symattn.problem.modes import Positions
    from symattn.problem.problem import Problem

    problem = Problem.from_mapping(json.loads(spec_text), source="worksheet")
    plain = permutation_check(problem, order).equivariant
    placed = permutation_check(dataclasses.replace(problem, positions=Positions.SINUSOIDAL),
                               order).equivariant
    return plain, placed


def permutation(rng: random.Random, setup: Setup) -> Exercise:
    """Swap two tokens: write the new rows of A and O; and with positions?"""
    p, q = setup.places, max(setup.places - 1, 1)
    for _ in range(200):
        attention = draw_attention(rng, 3, 3, 4, 2)
        if any(all(x == 0 for x in row) for row in attention.Q):
            continue                # a zero embedding attends uniformly and gives no key
        spec: dict[str, Any] = {"inputs": {"X": spec_matrix(attention.Q), "W_Q": "identity",
                                           "W_K": "identity", "W_V": spec_matrix(_W_V)}}
        a, b = sorted(rng.sample(range(3), 2))
        original = derive_spec(spec)
        A = [[entry(original, "weights", i, j) for j in range(3)] for i in range(3)]
        out = [[entry(original, "output", i, k) for k in range(2)] for i in range(3)]
        shown = [NumberFormat(digits=None, places=p).format(w) for w in A[a]]
        if len(set(shown)) == 3 and all_clear(A[a] + out[a] + out[b], p):
            break
    tokens = draw_sentence(rng, setup.words, 3)
    order = [1, 2, 3]
    order[a], order[b] = b + 1, a + 1
    swapped = {**spec, "inputs": {**spec["inputs"],
                                  "X": [spec["inputs"]["X"][k - 1] for k in order]},
               "tokens": [tokens[k - 1] for k in order]}
    spec["tokens"] = list(tokens)
    plain, placed = _permutation_facts(spec, order)
    assert plain, "attention without positions must be permutation-equivariant"
    derivation = derive_spec(swapped)
    r = a + 1
    row = tuple(number_blank(f"a{j + 1}", f"a'_{{{r},{j + 1}}}",
                             entry(derivation, "weights", a, j), p, (0, f"weights[{r},{j + 1}]"))
                for j in range(3))
    outputs = tuple(number_blank(f"o{i + 1}{k + 1}", f"o'_{{{i + 1},{k + 1}}}",
                                 entry(derivation, "output", i, k), q, (0, f"output[{i + 1},"
                                                                          f"{k + 1}]"))
                    for i in (a, b) for k in range(2))
    answer = "swapped" if placed else "changed"
    choice = Blank("positions", r"\text{positions}", answer, kind="choice",
                   options=("swapped", "changed"))
    parts = (Text(Msg.of("kind.permutation.prompt", a=Num(a + 1), b=Num(b + 1),
                         before=User(" ".join(tokens)),
                         after=User(" ".join(swapped["tokens"])))),
             Given((("A", tuple(tuple(Num(w, p) for w in row_) for row_ in A)),
                    ("O", tuple(tuple(Num(o, q) for o in row_) for row_ in out)))),
             Blanks(row, Msg.of("kind.permutation.weights", row=Num(r))),
             Blanks(outputs, Msg.of("kind.permutation.outputs")),
             Choice(choice, (Msg.of("kind.permutation.swapped"),
                             Msg.of("kind.permutation.changed")),
                    Msg.of("kind.permutation.question")))
    return Exercise("permutation", parts, (swapped,),
                    (KeyStep(0, ("weights", "output"), (), p),),
                    (Note(Msg.of("kind.permutation.why")),),
                    facts={"order": tuple(order), "equivariant": plain,
                           "with_positions": placed})


# --------------------------------------------------------------------- design
@dataclass(frozen=True)
class DesignCheck:
    """Whether a proposed query meets the pattern, and the exact weights it gives."""

    meets: bool
    weights: tuple[Exact, ...]
    reason: str                   # "ok", "range", "equal", "threshold"


def _whole(value: Any) -> fmpq | None:
    """A whole number given as an int, an fmpq or digits ("-2"); None otherwise."""
    if isinstance(value, fmpq):
        return value if value.q == 1 else None
    if isinstance(value, int) and not isinstance(value, bool):
        return fmpq(value)
    text = str(value).strip().replace("\u2212", "-")
    number = ascii_whole(text[1:] if text.startswith("-") else text, 60)
    if number is None:
        return None
    return fmpq(-number if text.startswith("-") else number)


def check_design(facts: Mapping[str, Any], answer: Sequence[Any]) -> DesignCheck:
    """Grade a proposed query ``answer`` against the pattern in ``facts`` exactly.

    ``facts`` (``exercise.facts["check"]``, also in the answers JSON) holds the
    keys ``K``, the ``pattern``, the 1-based tokens ``a`` (and ``b``), the
    ``threshold`` and the ``bound`` on |q_k|.
    """
    entries = [_whole(x) for x in answer]
    width = len(facts["K"][0])
    if len(entries) != width or any(x is None or abs(x) > facts["bound"] for x in entries):
        return DesignCheck(False, (), "range")
    query = [x for x in entries if x is not None]
    spec = {"inputs": {"Q": [[str(x) for x in query]], "K": facts["K"]},
            "options": {"d_k": width}}
    derivation = derive_spec(spec)
    weights = tuple(entry(derivation, "weights", 0, j) for j in range(len(facts["K"])))
    fraction = Fraction(str(facts["threshold"]))
    threshold = fmpq(fraction.numerator, fraction.denominator)
    a = facts["a"] - 1
    if facts["pattern"] == "average":
        b = facts["b"] - 1
        scores = [entry(derivation, "scores", 0, j) for j in range(len(weights))]
        if scores[a] != scores[b]:
            return DesignCheck(False, weights, "equal")
        chosen: tuple[int, ...] = (a, b)
    else:
        chosen = (a,)
    if any(arith.sign(arith.subtract(weights[j], threshold)) < 0 for j in chosen):
        return DesignCheck(False, weights, "threshold")
    return DesignCheck(True, weights, "ok")


def _reference(facts: Mapping[str, Any]) -> tuple[int, ...] | None:
    """The passing query with the smallest entries (then the first in order)."""
    width = len(facts["K"][0])
    candidates = sorted(product(range(-4, 5), repeat=width),
                        key=lambda q: (sum(abs(x) for x in q), q))
    for query in candidates:
        if any(query) and check_design(facts, query).meets:
            return query
    return None


def design(rng: random.Random, setup: Setup) -> Exercise:
    """Choose q so that the weights follow a stated pattern; any passing q is right."""
    pattern = rng.choice(PATTERNS)
    for _ in range(200):
        attention = draw_attention(rng, 1, 3, 2, 2)
        K = spec_matrix(attention.K)
        a, b = sorted(rng.sample(range(1, 4), 2))
        facts = {"K": K, "pattern": pattern, "a": a, "b": b if pattern == "average" else None,
                 "threshold": spec_number(THRESHOLD[pattern]), "bound": BOUND}
        if any(all(x == 0 for x in key) for key in attention.K):
            continue                # a zero key scores 0 against every query
        reference = _reference(facts)
        if reference is not None and sum(abs(x) for x in reference) >= 2:
            break
    assert reference is not None
    spec = {"inputs": {"Q": [[str(x) for x in reference]], "K": K, "V": spec_matrix(attention.V)},
            "options": {"d_k": 2}}
    blank = Blank("q", "q", tuple(fmpq(x) for x in reference), kind="design")
    choice = Blank("copies", r"\text{copies}", "score", kind="choice",
                   options=("score", "value", "equal"))
    threshold = Num(THRESHOLD[pattern])
    target = Msg.of("kind.design.average", a=Num(a), b=Num(b), threshold=threshold) \
        if pattern == "average" else Msg.of("kind.design.copy", a=Num(a), threshold=threshold)
    parts = (Text(Msg.of("kind.design.prompt", bound=Num(BOUND), target=target,
                         unit=unit_of(setup.places))),
             Given((("K", num_rows(attention.K)), ("V", num_rows(attention.V)))),
             Blanks((blank,)),
             Choice(choice, tuple(Msg.of(f"kind.design.{o}") for o in choice.options),
                    Msg.of("kind.design.question")))
    weights = check_design(facts, reference).weights
    note = Note(Msg.of("kind.design.reference", q1=Num(reference[0]), q2=Num(reference[1]),
                       w1=Num(weights[0], setup.places), w2=Num(weights[1], setup.places),
                       w3=Num(weights[2], setup.places)))
    return Exercise("design", parts, (spec,),
                    (KeyStep(0, ("scores", "scaled", "exp", "exp_sum", "weights"), (1,),
                             setup.places),),
                    (note, Note(Msg.of("kind.design.why"))),
                    facts={"check": facts, "reference": reference})
