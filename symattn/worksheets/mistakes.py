"""'Find the error': a printed derivation with one planted mistake.

The sheet prints a causal-attention derivation (S, S~, Z, E, A, O) computed
with one mistake; the student names the first wrong step, the mistake, and
writes the correct row. The planted derivation is computed exactly, like the
right one:

| mistake | computed as | first wrong step |
|---|---|---|
| ``no_scaling`` | scale 1 instead of 1/sqrt(d_k) | S~ |
| ``column_softmax`` | each column of E normalised | A |
| ``kv_swapped`` | K and V exchanged | S |
| ``leaked_future`` | one future key left open in the causal mask | Z |
| ``rounded_carried`` | E, A, O from S~ rounded to one decimal place | E |

Each is the slip of that id in the catalogue (``verify.slips.SLIPS``), which computes
the whole planted derivation exactly; the sheet picks one of its outcomes (the leaked
cell, in row 2 on; the rounding to one place).

Every planting is proved by the checker before it is used: the printed
numbers, as claims on the right problem, are judged by ``checker.check``; the
first number that is not ok must be in the step the key names, it must be
``wrong`` (``propagated`` for the rounded number carried forward, which is
exactly what that verdict means), and everything printed before it ok.
A draw that fails is redrawn.

>>> from symattn.worksheets.model import Setup
>>> from symattn.worksheets.numbers import variant_random
>>> exercise = find_error(variant_random(5, 1, 1, "find_error"), Setup())
>>> exercise.facts["mistake"], exercise.facts["step"], exercise.facts["first"]
('column_softmax', 'weights', ('weights[1,1]', 'wrong'))
"""

from __future__ import annotations

__all__ = ["MISTAKES", "STEPS", "PLANTED_STEP", "find_error", "printed_claims", "well_posed",
           "asked_row"]

import random
from typing import Any, Mapping

from symattn.values.exact import NEG_INF
from symattn.verify.slips import SLIPS
from symattn.worksheets.answers import attention_spec, derive_spec, number_blank
from symattn.worksheets.model import (Blank, Blanks, Choice, Exercise, Given, KeyStep, Math, Msg,
                                      Note, Num, Setup, Text, User, num_rows)
from symattn.values.number_format import NumberFormat
from symattn.worksheets.numbers import Attention, draw_attention, scores_of

MISTAKES = ("no_scaling", "column_softmax", "kv_swapped", "leaked_future", "rounded_carried")
STEPS = ("scores", "scaled", "masked", "exp", "weights", "output")
SYMBOLS = {"scores": "S", "scaled": r"\tilde{S}", "masked": "Z", "exp": "E", "weights": "A",
           "output": "O"}
PLANTED_STEP = {"no_scaling": "scaled", "column_softmax": "weights", "kv_swapped": "scores",
                "leaked_future": "masked", "rounded_carried": "exp"}
_TRIES = 60
_DRAWS = 2000


def _grid(derivation: Any, step: str) -> list[list[Any]]:
    grid = derivation[step].value
    return [[grid.exact(i, j) for j in range(grid.shape[1])] for i in range(grid.shape[0])]


def _planted(attention: Attention, mistake: str, rng: random.Random, p: int = 3
             ) -> tuple[dict[str, list[list[Any]]], dict[str, int | None], str] | None:
    """The printed derivation (exact values per step), places per step, and a detail: the
    slip's outcome (``verify.slips``) on the right derivation; None if it has none."""
    right = derive_spec(attention_spec(attention, mask="causal"))
    places: dict[str, int | None] = {"scores": None, "scaled": p, "masked": p, "exp": p,
                                     "weights": p, "output": p}
    compute = SLIPS[mistake].outcomes
    assert compute is not None, f"{mistake} is no slip of the computation"
    outcomes = list(compute(right))
    if mistake == "leaked_future":
        # A leak in row 1 would ask for a row with one open key (trivial): rows 2 on.
        outcomes = [o for o in outcomes if not o.detail.startswith("1,")] or outcomes
    elif mistake == "rounded_carried":     # S~ printed, and carried, to one place
        places["scaled"] = places["masked"] = 1
        outcomes = [o for o in outcomes if o.detail == "1"]
    if not outcomes:
        return None
    outcome = rng.choice(outcomes) if len(outcomes) > 1 else outcomes[0]
    printed = {step: _grid(outcome.derivation, step) for step in STEPS}
    return printed, places, outcome.detail


def _text(value: Any, places: int | None, locale: str = "en") -> str:
    if value is NEG_INF:
        return "-inf"
    fmt = NumberFormat(digits=None, places=places if places is not None else 0, locale=locale)
    if places is None:
        from symattn.worksheets.model import exact_places

        fmt = NumberFormat(digits=None, places=exact_places(value), locale=locale)
    text = fmt.format(value)
    assert text is not None
    return text


def printed_claims(printed: Mapping[str, list[list[Any]]], places: Mapping[str, int | None]
                   ) -> dict[str, Any]:
    """The printed derivation as ``[claims]`` of a spec (what the sheet shows)."""
    return {step: [[_text(x, places[step]) for x in row] for row in printed[step]]
            for step in STEPS}


def _first_not_ok(spec: Mapping[str, Any], claims: Mapping[str, Any]) -> tuple[Any, list[Any]]:
    from symattn.verify import checker

    report = checker.check(derive_spec({**spec, "claims": claims}))
    order = {step: k for k, step in enumerate(STEPS)}
    verdicts = sorted(report.verdicts, key=lambda v: (order[v.step], v.claim.order))
    bad = [v for v in verdicts if v.verdict != "ok"]
    return (bad[0] if bad else None), verdicts


def _proved(spec: Mapping[str, Any], claims: Mapping[str, Any], mistake: str) -> Any:
    """The first not-ok verdict, when it proves the planting; else None."""
    first, _ = _first_not_ok(spec, claims)
    if first is None or first.step != PLANTED_STEP[mistake]:
        return None
    expected = "propagated" if mistake == "rounded_carried" else "wrong"
    return first if first.verdict == expected else None


def well_posed(attention: Attention) -> bool:
    """A problem worth asking about: every key, value and column of K non-zero, and
    no two scores of a query row equal (so no row of weights is flat or tied).

    >>> from flint import fmpq
    >>> one, zero = fmpq(1), fmpq(0)
    >>> rows = ((one, zero), (zero, one), (one, one))
    >>> well_posed(Attention(((one, fmpq(2)),) * 3, rows, rows, 2))
    True
    >>> well_posed(Attention(((one, fmpq(2)),) * 3, ((one, zero),) * 3, rows, 2))
    False
    """
    K, V = attention.K, attention.V
    if any(all(x == 0 for x in row) for row in K + V):
        return False
    if any(all(row[c] == 0 for row in K) for c in range(len(K[0]))):
        return False
    return all(len(set(row)) == len(row) for row in scores_of(attention.Q, K))


def _draw_well_posed(rng: random.Random, d_k: int, d_v: int) -> Attention:
    """A 3-token causal problem; d_k = 2 (a rounded sqrt(2) is what carries) or 4
    (calculator-free: the scaled scores are halves)."""
    for _ in range(_DRAWS):
        attention = draw_attention(rng, 3, 3, d_k, d_v)
        if well_posed(attention):
            return attention
    raise AssertionError("no well-posed problem found")    # pragma: no cover


def asked_row(right: Any, printed: Mapping[str, list[list[Any]]],
              places: Mapping[str, int | None], step: str) -> list[int]:
    """The rows (0-based) of ``step`` worth asking for: the mistake changes them as
    printed, and the correct row is not trivial (two or more finite non-zero entries:
    not one-hot, not all zeros, not a single open key)."""
    grid = _grid(right, step)
    out = []
    for i, row in enumerate(grid):
        shown = [_text(x, places[step]) for x in printed[step][i]]
        if shown == [_text(x, places[step]) for x in row]:
            continue
        if sum(1 for x in row if x is not NEG_INF and x != 0) >= 2:
            out.append(i)
    return out


def find_error(rng: random.Random, setup: Setup) -> Exercise:
    """Draw problems (and mistakes) until a planting is proved by the checker and has a
    row worth asking for (``asked_row``); generated problems are ``well_posed``."""
    allowed = tuple(setup.mistakes) or MISTAKES
    for _ in range(_TRIES):
        mistake = rng.choice(allowed)
        base = setup.base
        if base is not None and len(base.Q) == len(base.K) <= 4:
            attention = base
            if mistake == "kv_swapped" and len(attention.K[0]) != len(attention.V[0]):
                continue
        else:           # a causal derivation needs as many queries as keys: own numbers
            # Calculator-free: d_k = 4, so that the scaled scores are halves (and d_v = 4
            # when K and V are to be swapped).
            free = setup.numbers == "calculator-free"
            d_v = 4 if free and mistake == "kv_swapped" else 2
            attention = _draw_well_posed(rng, 4 if free else 2, d_v)
        planted = _planted(attention, mistake, rng, setup.places)
        if planted is None:
            continue
        printed, places, detail = planted
        spec = attention_spec(attention, mask="causal")
        rows = asked_row(derive_spec(spec), printed, places, PLANTED_STEP[mistake])
        if not rows:
            continue
        claims = printed_claims(printed, places)
        first = _proved(spec, claims, mistake)
        if first is not None:
            row = first.claim.target.row if first.claim.target.row in rows else rows[0]
            return _exercise(attention, spec, mistake, printed, places, first, detail,
                             setup, row)
    from symattn.errors import InputError

    raise InputError("find_error: none of the mistakes " + ", ".join(allowed) +
                     " shows in a derivation of these numbers; choose others with --mistakes")


def _exercise(attention: Attention, spec: Mapping[str, Any], mistake: str,
              printed: Mapping[str, list[list[Any]]], places: Mapping[str, int | None],
              first: Any, detail: str, setup: Setup, row: int) -> Exercise:
    step = PLANTED_STEP[mistake]
    right = derive_spec(spec)
    number = STEPS.index(step) + 1
    shown = [(f"({k + 1})\\; {SYMBOLS[name]}",
              tuple(tuple(Num(x, places[name]) for x in line) for line in printed[name]))
             for k, name in enumerate(STEPS)]
    step_blank = Blank("step", r"\text{step}", step, kind="choice", options=STEPS,
                       marks="123456")
    mistake_blank = Blank("mistake", r"\text{mistake}", mistake, kind="choice",
                          options=MISTAKES)
    width = right[step].shape[1]
    row_places = places[step] or setup.places
    fixed = tuple(number_blank(f"r{j + 1}", f"{_lower(step)}_{{{row + 1},{j + 1}}}",
                               right[step].value.exact(row, j), row_places,
                               (0, f"{step}[{row + 1},{j + 1}]")) for j in range(width))
    parts = (Text(Msg.of("kind.find_error.prompt", d_k=Num(attention.d_k))),
             Given((("Q", num_rows(attention.Q)), ("K", num_rows(attention.K)),
                    ("V", num_rows(attention.V))), Msg.of("kind.find_error.given")),
             Given(tuple(shown), Msg.of("kind.find_error.printed")),
             Choice(step_blank, tuple(Math(SYMBOLS[name]) for name in STEPS),
                    Msg.of("kind.find_error.which_step")),
             Choice(mistake_blank, tuple(Msg.of(f"mistake.{m}.name") for m in MISTAKES),
                    Msg.of("kind.find_error.which_mistake")),
             Blanks(fixed, Msg.of("kind.find_error.fix", row=Num(row + 1),
                                  symbol=Math(SYMBOLS[step]))))
    note_params: dict[str, Any] = {"number": Num(number), "symbol": Math(SYMBOLS[step])}
    if mistake == "leaked_future":
        note_params["cell"] = Math(f"z_{{{detail}}}")
    notes = (Note(Msg.of(f"mistake.{mistake}.explain", **note_params)),
             Note(Msg.of("kind.find_error.checked", where=User(first.position),
                         verdict=Msg.of(f"verdict.{first.verdict}"))))
    key_steps = (KeyStep(0, (step,) if step != "masked" else ("mask", "masked"),
                         (row + 1,), row_places),)
    return Exercise("find_error", parts, (spec,), key_steps, notes,
                    facts={"mistake": mistake, "step": step, "row": row,
                           "first": (first.position, first.verdict),
                           "claims": printed_claims(printed, places)})


def _lower(step: str) -> str:
    return {"scores": "s", "scaled": r"\tilde{s}", "masked": "z", "exp": "e", "weights": "a",
            "output": "o"}[step]
