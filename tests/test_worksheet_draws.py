"""Generated problems never repeat a query row or tie two scores of a row.

Checked with plain ``fractions``: no two query rows (or rows of given scores, or
of embeddings) equal, no two rows of scores equal, no two scores of a row equal.
The raw problem of every kind (its numbers as drawn, before any answer is
computed) is checked over 1,000 seeds; the exercises themselves, built by every
kind of every preset (never rendered), over 1,000 seeds in the full profile and
100 in the quick one (building derives every answer, and find-the-error proves
its planting with the checker: about 20 ms an exercise).
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any, Iterator, Mapping

import pytest
from flint import fmpq

import symattn.worksheets.reasoning as reasoning
from symattn.worksheets import presets
from symattn.worksheets.catalog import KINDS
from symattn.worksheets.model import Setup
from symattn.worksheets.attention_steps import draw_embeddings, draw_score_rows
from symattn.worksheets.numbers import draw_attention, draw_row, variant_random
from symattn.worksheets.transformer import draw_heads, draw_readout
from suite_profile import examples

# entropy gives rows of weights (1/2, 1/4, 1/4: ties are the point); design's query is
# the reference answer (two equal scores are the point of its "average" pattern), and
# its keys come from draw_attention, whose shape (1, 3, 2, 2) the last test covers.
_NOT_SCORES = ("entropy", "design", "sizes")


def _matrix(rows: Any) -> list[list[Fraction]]:
    return [[Fraction(str(x)) for x in row] for row in rows]


def _product(A: list[list[Fraction]], B: list[list[Fraction]]) -> list[list[Fraction]]:
    return [[sum((a * b for a, b in zip(row, column)), Fraction(0)) for column in zip(*B)]
            for row in A]


def _transposed(A: list[list[Fraction]]) -> list[list[Fraction]]:
    return [list(column) for column in zip(*A)]


def _rows_of_scores(spec: Mapping[str, Any]) -> Iterator[tuple[str, list[list[Fraction]]]]:
    """(what, rows) whose rows must differ: queries, embeddings, and rows of scores
    (per head when there are two heads, the logits of a read-out)."""
    inputs = spec["inputs"]
    if "unembedding" in spec.get("readout", {}):
        yield "logits", _product(_matrix(inputs["V"]), _matrix(spec["readout"]["unembedding"]))
        return
    if "X" in inputs:
        yield "embeddings", _matrix(inputs["X"])
    for name in ("scores", "scaled"):
        if name in inputs:
            yield name, _matrix(inputs[name])
    if "Q" in inputs and "K" in inputs:
        Q, K = _matrix(inputs["Q"]), _matrix(inputs["K"])
        yield "queries", Q
        heads = spec.get("options", {}).get("heads", 1)
        width = len(Q[0]) // heads
        for h in range(heads):
            columns = slice(h * width, (h + 1) * width)
            yield f"scores of head {h + 1}", _product([q[columns] for q in Q],
                                                      _transposed([k[columns] for k in K]))


def _check(kind: str, exercise: Any, seed: int) -> None:
    for spec in exercise.problems:
        if kind in _NOT_SCORES or "inputs" not in spec:
            continue
        for what, rows in _rows_of_scores(spec):
            assert len({tuple(row) for row in rows}) == len(rows), (kind, seed, what, rows)
            if what not in ("queries", "embeddings"):
                for row in rows:
                    assert len(set(row)) == len(row), (kind, seed, what, "tie", row)


def _plans() -> list[tuple[str, str, str, Setup]]:
    """(preset, numbers, kind, setup) for every kind of every preset (no preset: every
    kind), once per distinct setup (two presets with the same setup draw alike)."""
    out, seen = [], set()
    for preset in (None, "lesson45", "homework", "exam"):
        for numbers in presets.NUMBERS:
            free = numbers == "calculator-free"
            kinds = None if preset is not None else \
                presets.CALCULATOR_FREE_KINDS if free else tuple(KINDS)
            plan = presets.resolve(preset, kinds, (), numbers)
            setup = Setup(mistakes=plan.mistakes, compact=plan.compact, numbers=numbers)
            for kind in plan.kinds:
                if kind != "design" and (kind, setup) not in seen:
                    seen.add((kind, setup))
                    out.append((preset or "-", numbers, kind, setup))
    return out


@pytest.mark.parametrize("preset,numbers,kind,setup", _plans(),
                         ids=lambda x: x if isinstance(x, str) else "")
def test_no_kind_draws_equal_query_rows_or_tied_scores(
        preset: str, numbers: str, kind: str, setup: Setup,
        monkeypatch: pytest.MonkeyPatch) -> None:
    # The permutation proof with positions (a second each) is not part of the draw.
    monkeypatch.setattr(reasoning, "_permutation_facts", lambda spec, order: (True, False))
    build = presets.builder(kind, numbers)
    for seed in range(examples(1000)):
        _check(kind, build(variant_random(seed, 1, 1, kind), setup), seed)


# What each kind draws before any answer is computed: the raw problem, from a seeded
# generator, as groups of rows (rows of a group differ; rows of scores do not tie).
# The kinds on Q, K and V draw with draw_attention, in the shapes they ask for with
# the default d_k = 4 (compact presets: 3 tokens; find_error: d_k = 2, or 4 and
# d_v = 4 without a calculator). stable_softmax and the calculator-free rows sample
# without replacement; entropy, sizes and design have no scores to draw (above).
Rows = list[list[Fraction]]
Groups = list[tuple[Rows, bool]]          # (rows that differ, whether they are scores)


def _attention(n: int, m: int, d_k: int, d_v: int) -> Any:
    def draw(rng: Any) -> Groups:
        attention = draw_attention(rng, n, m, d_k, d_v)
        Q, K = _matrix(attention.Q), _matrix(attention.K)
        return [(Q, False), (_product(Q, _transposed(K)), True)]
    return draw


def _rows(draw: Any) -> Any:
    return lambda rng: [(_matrix(draw(rng)), True)]


def _heads(rng: Any) -> Groups:
    Q, K, _, _ = (_matrix(x) for x in draw_heads(rng))
    # Per head (width 1): the two queries' rows of scores, and the two queries.
    return [([[q[h] * k[h] for k in K] for q in Q], True) for h in range(2)] + \
        [([[q[h] for q in Q]], True) for h in range(2)]


def _readout(rng: Any) -> Groups:
    h, U = (_matrix(x) for x in draw_readout(rng))
    return [(_product(h, U), True)]


RAW_DRAWS: dict[str, list[Any]] = {
    "softmax_table": [_rows(lambda rng, m=m: [draw_row(rng, m, distinct=True)]) for m in (3, 4)],
    "scores_row": [_attention(n, n, 4, 2) for n in (3, 4)],
    "weights_row": [_attention(3, 3, 4, 2)],
    "output_row": [_attention(3, 3, 4, 2)],
    "fill_matrix": [_attention(n, n, 4, 2) for n in (3, 4)],
    "causal_mask": [_rows(lambda rng: draw_score_rows(rng, 3, 3))],
    "find_error": [_attention(3, 3, 2, 2), _attention(3, 3, 4, 2), _attention(3, 3, 4, 4)],
    "temperature": [_rows(lambda rng: [draw_row(rng, 3, distinct=True)])],
    "no_scaling": [_rows(lambda rng: [draw_row(rng, 3, tuple(fmpq(k) for k in (-2, 0, 2, 4, 6)),
                                               distinct=True)])],
    "projection": [lambda rng: [(_matrix(draw_embeddings(rng)), False)]],
    "multi_head": [_heads],
    "kv_cache": [_attention(3, 3, 4, 2)],
    "next_token": [_readout],
    "permutation": [_attention(3, 3, 4, 2)],
    "design": [_attention(1, 3, 2, 2)],
}
BY_CONSTRUCTION = ("stable_softmax", "entropy", "sizes")


def test_every_kind_has_its_raw_draw_checked() -> None:
    assert set(RAW_DRAWS) | set(BY_CONSTRUCTION) == set(KINDS)


def test_raw_draws_of_every_kind_never_repeat_a_row_or_tie_over_1000_seeds() -> None:
    start = time.perf_counter()
    for kind, draws in RAW_DRAWS.items():
        for number, draw in enumerate(draws):
            for seed in range(1000):
                for rows, scores in draw(variant_random(seed, 1, 1, kind)):
                    where = (kind, number, seed)
                    assert len({tuple(row) for row in rows}) == len(rows), (where, rows)
                    for row in rows if scores else ():
                        assert len(set(row)) == len(row), (where, "tied scores", row)
    assert time.perf_counter() - start < 60      # about 6 s: the draw alone is quick


# The other perfect squares of --d-k (for 9, four different scores in steps of 3 are rare:
# a draw takes about 10 ms, so these run 1,000 seeds in the full profile only).
_OTHER_D_K = [(3, 3, 9, 2), (4, 4, 9, 2), (3, 3, 16, 2), (4, 4, 16, 2)]


def test_attention_draws_for_other_d_k_never_repeat_a_row_or_tie() -> None:
    for n, m, d_k, d_v in _OTHER_D_K:
        for seed in range(examples(1000)):
            attention = draw_attention(variant_random(seed, 1, 1, "x"), n, m, d_k, d_v)
            Q, K = _matrix(attention.Q), _matrix(attention.K)
            scores = _product(Q, _transposed(K))
            where = (n, m, d_k, seed)
            assert len({tuple(q) for q in Q}) == n, (where, "equal query rows", Q)
            assert len({tuple(k) for k in K}) == m, (where, "equal keys", K)
            assert len({tuple(row) for row in scores}) == n, (where, "equal rows", scores)
            for row in scores:
                assert len(set(row)) == m, (where, "tied scores", row)


def test_find_error_class_set_of_seed_7_has_no_equal_query_rows() -> None:
    from symattn import worksheets

    for sheet in worksheets.build(seed=7, variants=30, kinds=("find_error",)):
        Q = sheet.exercises[0].problems[0]["inputs"]["Q"]
        assert len({tuple(row) for row in Q}) == len(Q), (sheet.variant, Q)


def test_lesson45_output_row_of_seed_7_has_no_tied_scores() -> None:
    from symattn import worksheets

    exercise = next(e for e in worksheets.build(seed=7, preset="lesson45")[0].exercises
                    if e.kind == "output_row")
    inputs = exercise.problems[0]["inputs"]
    row = exercise.key_steps[0].rows[0] - 1
    scores = _product(_matrix(inputs["Q"]), _transposed(_matrix(inputs["K"])))[row]
    assert len(set(scores)) == len(scores), scores
