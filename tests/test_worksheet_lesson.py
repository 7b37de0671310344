"""Worksheets for a lesson: find-the-error asks a row worth asking, no leaks, presets.

The find-the-error property test draws 1,000 exercises (the generator only, no
rendering) and checks each with plain ``fractions``: the problem has no zero
key, value or column of K and no tied scores in a row; the row asked for is one
the mistake changes as printed, and its correct values are not trivial.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from symattn.values.exact import NEG_INF
from symattn.worksheets.kinds import Setup, variant_random
from symattn.worksheets.mistakes import find_error


def _matrix(rows: list[list[str]]) -> list[list[Fraction]]:
    return [[Fraction(x) for x in row] for row in rows]


def _check_find_error(seed: int) -> str:
    exercise = find_error(variant_random(seed, 1, 1, "find_error"), Setup())
    inputs = exercise.problems[0]["inputs"]
    Q, K, V = (_matrix(inputs[name]) for name in ("Q", "K", "V"))
    assert all(any(x != 0 for x in row) for row in K), (seed, "a zero key")
    assert all(any(x != 0 for x in row) for row in V), (seed, "a zero value")
    assert all(any(row[c] != 0 for row in K) for c in range(len(K[0]))), (seed, "zero column")
    for q in Q:
        scores = [sum((a * b for a, b in zip(q, k)), Fraction(0)) for k in K]
        assert len(set(scores)) == len(scores), (seed, "tied scores", scores)
    facts = exercise.facts
    step, row = facts["step"], facts["row"]
    fixed = [b for b in exercise.blanks if b.id.startswith("r")]
    # The blanks are the correct row: two or more finite non-zero entries.
    finite = [b for b in fixed if b.value is not NEG_INF and b.value != 0]
    assert len(finite) >= 2, (seed, facts["mistake"], [b.expected() for b in fixed])
    # ... and the student's printed row differs from it, as printed.
    assert facts["claims"][step][row] != [b.expected() for b in fixed], (seed, facts)
    label = fixed[0].label
    assert label.endswith(f"_{{{row + 1},1}}")
    return str(facts["mistake"])


def test_find_error_asks_a_changed_non_trivial_row_over_1000_seeds() -> None:
    seen = {_check_find_error(seed) for seed in range(1000)}
    assert seen == {"no_scaling", "column_softmax", "kv_swapped", "leaked_future",
                    "rounded_carried"}


@pytest.mark.parametrize("mistake", ["column_softmax", "rounded_carried", "leaked_future"])
def test_causal_mistakes_never_ask_row_one(mistake: str) -> None:
    # Under a causal mask row 1 of Z, E and A has one open key: always trivial.
    for seed in range(40):
        exercise = find_error(variant_random(seed, 1, 1, "find_error"),
                              Setup(mistakes=(mistake,)))
        assert exercise.facts["row"] >= 1
