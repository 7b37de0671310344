"""The kinds projection, multi_head, kv_cache, next_token, stable_softmax, permutation, design.

Every expected value is recomputed here from the numbers the sheet gives,
with fractions and mpmath (and numpy for positions), not read from the engine.
That every key is confirmed by the checker in all five languages is tested
with the other kinds in test_worksheet.py (its fixture builds every kind).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import mpmath
import numpy as np
import pytest

from symattn.render.worksheet import key_latex, sheet_latex
from symattn.worksheets import sheet as worksheet
from symattn.worksheets.attention_steps import projection, stable_softmax
from symattn.worksheets.model import Blank, Setup, decimal_value
from symattn.worksheets.numbers import variant_random
from symattn.worksheets.reasoning import check_design, design, permutation
from symattn.worksheets.transformer import kv_cache, multi_head, next_token

mpmath.mp.dps = 40
NEW = ("projection", "multi_head", "kv_cache", "next_token", "stable_softmax", "permutation",
       "design")


def _matrix(text: Sequence[Sequence[str]]) -> list[list[Fraction]]:
    return [[Fraction(x) for x in row] for row in text]


def _f(value: Any) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def _blanks(exercise: Any) -> dict[str, Blank]:
    return {b.id: b for b in exercise.blanks}


def _near(blank: Blank, value: Any) -> None:
    """The blank's exact value is ``value`` (to 30 digits), and its printed answer rounds it."""
    exact = mpmath.mpf(str(decimal_value(blank.value, 30)))
    assert abs(exact - _mp(value)) < mpmath.mpf(10) ** -25, (blank.id, exact, value)
    if blank.places is not None:
        printed = mpmath.mpf(blank.expected("en"))
        assert abs(printed - _mp(value)) <= mpmath.mpf(5) / 10 ** (blank.places + 1)


def _mp(x: Any) -> Any:
    return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)


def _softmax(z: Sequence[Any]) -> list[Any]:
    exps = [mpmath.e ** _mp(x) for x in z]
    return [e / sum(exps) for e in exps]


@pytest.mark.parametrize("seed", range(12))
def test_projection_is_one_row_of_x_times_w(seed: int) -> None:
    exercise = projection(variant_random(seed, 1, 1, "projection"), Setup())
    inputs = exercise.problems[0]["inputs"]
    X, W_Q, W_K = (_matrix(inputs[n]) for n in ("X", "W_Q", "W_K"))
    blanks = _blanks(exercise)
    r = int(blanks["q1"].claim[1][2]) - 1
    q = [sum(X[r][k] * W_Q[k][j] for k in range(3)) for j in range(2)]
    k = [sum(X[r][m] * W_K[m][j] for m in range(3)) for j in range(2)]
    assert [_f(blanks["q1"].value), _f(blanks["q2"].value)] == q
    assert [_f(blanks["k1"].value), _f(blanks["k2"].value)] == k
    assert _f(blanks["s"].value) == q[0] * k[0] + q[1] * k[1]


@pytest.mark.parametrize("seed", range(12))
def test_multi_head_weights_outputs_and_w_o(seed: int) -> None:
    exercise = multi_head(variant_random(seed, 1, 1, "multi_head"), Setup())
    inputs = exercise.problems[0]["inputs"]
    Q, K, V, W_O = (_matrix(inputs[n]) for n in ("Q", "K", "V", "W_O"))
    blanks = _blanks(exercise)
    r = int(blanks["o1"].claim[1][7]) - 1
    heads = []
    for h in range(2):
        weights = _softmax([Q[r][h] * K[j][h] for j in range(2)])      # d_k = 1: no scaling
        for j in range(2):
            _near(blanks[f"a{h + 1}{j + 1}"], weights[j])
        heads.append(sum(weights[j] * V[j][h] for j in range(2)))
        _near(blanks[f"h{h + 1}"], heads[h])
    for k in range(2):
        _near(blanks[f"o{k + 1}"], heads[0] * W_O[0][k] + heads[1] * W_O[1][k])
    # a student starting from the rounded head outputs is within the tolerance
    rounded = [_f(decimal_value(blanks[f"h{h + 1}"].value, 2)) for h in range(2)]
    for k in range(2):
        carried = rounded[0] * W_O[0][k] + rounded[1] * W_O[1][k]
        exact = _f(decimal_value(blanks[f"o{k + 1}"].value, 9))
        assert abs(carried - exact) <= _f(blanks[f"o{k + 1}"].tolerance()) + Fraction(1, 1000)


@pytest.mark.parametrize("seed", range(12))
def test_kv_cache_step_is_row_3_of_causal_attention(seed: int) -> None:
    exercise = kv_cache(variant_random(seed, 1, 1, "kv_cache"), Setup())
    spec = exercise.problems[0]
    Q, K, V = (_matrix(spec["inputs"][n]) for n in ("Q", "K", "V"))
    assert len(Q) == 1 and len(K) == len(V) == 3 and spec["options"]["mask"] == "causal"
    blanks = _blanks(exercise)
    scaled = [sum(q * k for q, k in zip(Q[0], key)) / 2 for key in K]     # sqrt(4) = 2
    assert [_f(blanks[f"t{j}"].value) for j in (1, 2, 3)] == scaled
    weights = _softmax(scaled)
    for j in range(3):
        _near(blanks[f"a{j + 1}"], weights[j])
    for k in range(2):
        _near(blanks[f"o{k + 1}"], sum(weights[j] * V[j][k] for j in range(3)))
    assert blanks["computed"].value == "new"


@pytest.mark.parametrize("seed", range(12))
def test_next_token_logits_probabilities_and_the_word(seed: int) -> None:
    exercise = next_token(variant_random(seed, 1, 1, "next_token"), Setup())
    inputs, readout = exercise.problems[0]["inputs"], exercise.problems[0]["readout"]
    h, U = _matrix(inputs["V"])[0], _matrix(readout["unembedding"])
    blanks = _blanks(exercise)
    logits = [h[0] * U[0][j] + h[1] * U[1][j] for j in range(4)]
    assert [_f(blanks[f"z{j}"].value) for j in range(1, 5)] == logits
    probs = _softmax(logits)
    for j in range(4):
        _near(blanks[f"p{j + 1}"], probs[j])
    best = max(range(4), key=lambda j: logits[j])
    assert blanks["word"].value == f"w{best + 1}" and logits.count(logits[best]) == 1
    assert len(set(exercise.facts["words"])) == 4


@pytest.mark.parametrize("seed", range(12))
def test_stable_softmax_gives_the_weights_of_the_large_scores(seed: int) -> None:
    exercise = stable_softmax(variant_random(seed, 1, 1, "stable_softmax"), Setup())
    z = [Fraction(x) for x in exercise.problems[0]["inputs"]["scaled"][0]]
    blanks = _blanks(exercise)
    m = max(z)
    assert [_f(blanks[f"d{j}"].value) for j in (1, 2, 3)] == [x - m for x in z]
    exps = [mpmath.e ** _mp(x - m) for x in z]
    for j in range(3):
        _near(blanks[f"e{j + 1}"], exps[j])
    _near(blanks["sum"], sum(exps))
    for j, weight in enumerate(_softmax(z)):              # the large scores themselves
        _near(blanks[f"a{j + 1}"], weight)
    with pytest.raises(OverflowError):                    # why a program shifts
        math.exp(float(m))
    assert blanks["why"].value == "overflow"


def _attention(X: np.ndarray, W_V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    scores = X @ X.T / math.sqrt(X.shape[1])
    weights = np.exp(scores) / np.exp(scores).sum(axis=1, keepdims=True)
    return weights, weights @ (X @ W_V)


def _sinusoidal(n: int, d: int) -> np.ndarray:
    pe = np.zeros((n, d))
    for pos in range(n):
        for i in range(0, d, 2):
            pe[pos, i] = math.sin(pos / 10000 ** (i / d))
            pe[pos, i + 1] = math.cos(pos / 10000 ** (i / d))
    return pe


@pytest.mark.parametrize("seed", range(8))
def test_permutation_rows_and_the_answer_with_positions(seed: int) -> None:
    exercise = permutation(variant_random(seed, 1, 1, "permutation"), Setup())
    spec = exercise.problems[0]
    order = [k - 1 for k in exercise.facts["order"]]
    X = np.array(_matrix(spec["inputs"]["X"]), dtype=float)      # the swapped sequence
    W_V = np.array(_matrix(spec["inputs"]["W_V"]), dtype=float)
    original = X[order]                  # a swap is its own inverse
    A, out = _attention(original, W_V)
    blanks = _blanks(exercise)
    a = next(i for i in range(3) if order[i] != i)
    for j in range(3):
        assert abs(float(blanks[f"a{j + 1}"].expected()) - A[order[a], order[j]]) <= 0.0005
    for i in (a, order[a]):
        for k in range(2):
            printed = float(blanks[f"o{i + 1}{k + 1}"].expected())
            assert abs(printed - out[order[i], k]) <= 0.005
    pe = _sinusoidal(3, X.shape[1])
    _, placed = _attention(original + pe, W_V)
    _, placed_swapped = _attention(X + pe, W_V)
    changed = np.abs(placed_swapped - placed[order]).max() > 1e-6
    assert blanks["positions"].value == ("changed" if changed else "swapped")


def _float_weights(K: Sequence[Sequence[Any]], q: Sequence[int]) -> list[float]:
    scores = [sum(float(a) * b for a, b in zip(key, q)) / math.sqrt(2) for key in K]
    exps = [math.exp(s) for s in scores]
    return [e / sum(exps) for e in exps]


def _meets(facts: dict[str, Any], q: Sequence[int]) -> bool | None:
    """The pattern decided in floating point; None when too close to call."""
    K = _matrix(facts["K"])
    weights = _float_weights(K, q)
    threshold = float(Fraction(facts["threshold"]))
    chosen = [facts["a"] - 1] + ([facts["b"] - 1] if facts["pattern"] == "average" else [])
    if facts["pattern"] == "average":
        s = [sum(a * b for a, b in zip(key, q)) for key in K]
        if s[chosen[0]] != s[chosen[1]]:
            return False
    gaps = [weights[j] - threshold for j in chosen]
    if any(abs(g) < 1e-9 for g in gaps):
        return None
    return all(g > 0 for g in gaps)


@pytest.mark.parametrize("seed", range(10))
def test_design_reference_passes_and_the_check_agrees_with_floats(seed: int) -> None:
    exercise = design(variant_random(seed, 1, 1, "design"), Setup())
    facts, reference = exercise.facts["check"], exercise.facts["reference"]
    assert check_design(facts, reference).meets and _meets(facts, reference)
    agree = 0
    for q in [(x, y) for x in range(-5, 6) for y in range(-5, 6)]:
        expected = _meets(facts, q)
        if expected is not None:
            assert check_design(facts, q).meets == expected, q
            agree += 1
    assert agree > 100
    assert check_design(facts, (6, 0)).reason == "range"
    assert check_design(facts, ("1.5", 0)).reason == "range"
    assert check_design(facts, ("2", "-1")).meets == check_design(facts, (2, -1)).meets


@pytest.mark.parametrize("language", ["en", "pl", "cs", "ru", "uk"])
def test_new_kinds_render_in_every_language(language: str) -> None:
    sheet = worksheet.build(seed=4, language=language, kinds=NEW)[0]
    tex, key = sheet_latex(sheet), key_latex(sheet)
    assert tex.count(r"\section*") == len(NEW) and r"\symattnanswer{" not in tex
    answers = sum(1 for e in sheet.exercises for b in e.blanks if b.kind != "choice")
    assert key.count(r"\symattnanswer{") == answers
    assert "kind." not in tex and "kind." not in key        # every message id filled
    assert worksheet.check_answers(sheet) > 40


@pytest.mark.parametrize("language, head, concat", [
    ("en", "Raw scores (head 1)", "The heads’ outputs side by side"),
    ("pl", "Surowe wyniki (głowica 2)", "Wyjścia głowic zestawione obok siebie"),
    ("cs", "Surová skóre (hlava 1)", "Výstupy hlav položené vedle sebe"),
    ("ru", "Сырые оценки (голова 1)", "Выходы голов, записанные рядом"),
    ("uk", "(голова 2)", "Виходи голів, записані поруч"),
])
def test_keys_name_heads_and_concat_in_the_sheets_language(language: str, head: str,
                                                          concat: str) -> None:
    """A head's step says which head in words; the concatenation is headed by what is
    put side by side (the heads' outputs), the same heading derivations use."""
    import re

    sheet = worksheet.build(seed=2, language=language, kinds=("multi_head", "next_token"))[0]
    headings = " | ".join(re.findall(r"subsection\*\{(.*?)\}\n", key_latex(sheet)))
    plain = re.sub(r"\\symattncyr\{([^}]*)\}", r"\1", headings)
    assert head in plain and concat in plain, plain
    assert plain.count(concat) == 1
    assert "head1" not in plain and "vocabulary" not in plain or language == "en"


@pytest.mark.parametrize("language, expected", [
    ("en", "Row maximum (head 2)"), ("pl", "Maksimum wiersza (głowica 2)"),
])
def test_a_heads_own_step_heading_names_the_head_in_words(language: str,
                                                         expected: str) -> None:
    from dataclasses import dataclass

    from symattn import messages
    from symattn.render.worked.names import heading

    @dataclass(frozen=True)
    class Step:
        name: str
        operands: tuple[str, ...]
        description: str = ""

    assert heading(Step("head2.row_max", ("head2.scaled",)), messages.load(language)) == expected


def test_sheet_kinds_messages_are_plain_text() -> None:
    import re

    from symattn import messages

    for language in messages.LANGUAGES:
        catalog = messages.load(language)
        for key in catalog.keys():
            if key.startswith("sheet_kinds."):
                text = re.sub(r"\{\{[a-z_]+\}\}", "", catalog.text(key))
                assert not re.search(r"[~$\\{}]", text), (language, key)


@pytest.mark.parametrize("seed", range(6))
def test_the_design_keys_reference_weights_pass_the_checker(seed: int) -> None:
    """The key prints the reference query's weights: as claims they are ok."""
    from symattn.values.number_format import NumberFormat
    from symattn.verify import checker
    from symattn.worksheets.answers import derive_spec

    exercise = design(variant_random(seed, 1, 1, "design"), Setup())
    weights = check_design(exercise.facts["check"], exercise.facts["reference"]).weights
    claims = {f"weights[1,{j + 1}]": NumberFormat(digits=None, places=3).format(w)
              for j, w in enumerate(weights)}
    report = checker.check(derive_spec({**exercise.problems[0], "claims": claims}))
    assert [v.verdict for v in report.verdicts] == ["ok"] * 3
    q = [Fraction(x) for x in exercise.problems[0]["inputs"]["Q"][0]]
    assert tuple(int(x) for x in q) == tuple(exercise.facts["reference"])


@pytest.mark.parametrize("language", ["en", "ru"])
def test_no_key_step_repeats_its_heading_as_its_first_sentence(language: str) -> None:
    """A step heading says what the step is; the sentence under it explains it. A step
    without a heading of its own (entropy) used to print its description twice."""
    import re

    sheet = worksheet.build(seed=3, language=language, kinds="all")[0]
    key = key_latex(sheet)
    for heading, first in re.findall(r"subsection\*\{[^:]*: (.*?)\}\n\n(.*)\n", key):
        assert not first.lower().startswith(heading.lower()), (heading, first)


def test_catalog_math_has_no_typographic_quotes() -> None:
    """A ’ inside $...$ is a text quote in math (pdflatex: "\\textquoteright invalid in
    math mode", the prime is lost); a prime is written ^{\\prime}."""
    import re

    from symattn import messages

    for language in messages.LANGUAGES:
        catalog = messages.load(language)
        for key in catalog.keys():
            text = catalog.get(key)
            if isinstance(text, str):
                math = text.split("$")[1::2]
                assert not any(re.search("[’‘“”„«»]", m) for m in math), (language, key)
