"""The named steps (symattn.derivation + symattn.derivation.grids) against independent computations.

Exact values are compared with fractions.Fraction arithmetic done here; decimals
with a float64 numpy attention and a 50-digit mpmath attention written in
tests/reference.py. Nothing expected is copied from symattn's output.
"""

from __future__ import annotations

import json
import math
from decimal import Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symattn
import symattn.problem.examples
from reference import (NEG_INF as REF_NEG_INF, assert_close_to_digits, causal, fractions,
                       identity, is_attention_spec, matmul, mp, mp_attention,
                       mp_reference_from_spec,
                       numpy_attention, shows_digits, transpose)
from symattn import NumberFormat, derive
from symattn.cli.app import main
from symattn.errors import InputError
from symattn.values.exact import NAN, NEG_INF, Surd
from symattn.problem.problem import Problem
from suite_profile import examples

# When a property fails, Hypothesis's pytest plugin imports libcst (to offer a patch),
# which warns through mypy_extensions; under filterwarnings = error that would turn
# the failure report into an INTERNALERROR. Ignore just that warning.
pytestmark = pytest.mark.filterwarnings(
    "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning")

TWELVE = NumberFormat(digits=12)


def frac(value) -> Fraction:
    assert isinstance(value, fmpq), f"not rational: {value!r}"
    return Fraction(int(value.p), int(value.q))


def grid_fractions(step):
    return [[frac(step.value.exact(i, j)) for j in step.value.columns()]
            for i in step.value.rows()]


def text_rows(matrix):
    return [[str(x) for x in row] for row in matrix]


def problem_of(inputs, **options):
    return Problem.from_mapping({"inputs": inputs, "options": options})


# ------------------------------------------------------------------ seed 000
SEED_X = fractions([["1.0", "0.0"], ["0.2", "1.0"], ["0.8", "0.0"]])


def test_seed_000_exact_scores():
    derivation = derive(symattn.load_example("000-cat-chases-mouse"))
    scores = derivation["scores"]
    assert scores.shape == (3, 3)
    for i in range(3):
        for j in range(3):
            assert isinstance(scores.value.exact(i, j), fmpq)
    expected = [[Fraction(1), Fraction(1, 5), Fraction(4, 5)],
                [Fraction(1, 5), Fraction(26, 25), Fraction(4, 25)],
                [Fraction(4, 5), Fraction(4, 25), Fraction(16, 25)]]
    assert grid_fractions(scores) == expected
    # and the same by Fraction arithmetic from X (identity projections)
    assert matmul(SEED_X, transpose(SEED_X)) == expected


def test_seed_000_every_step():
    derivation = derive(symattn.load_example("000"))
    attention = ("X", "W_Q", "W_K", "W_V", "Q", "K", "V", "scores", "scaled",
                 "mask", "masked", "exp", "exp_sum", "weights", "output")
    # the attention steps, in this order (the example may go on past attention)
    assert tuple(name for name in derivation.names if name in attention) == attention
    for name in ("X", "Q", "K", "V"):
        assert grid_fractions(derivation[name]) == SEED_X
    for name in ("W_Q", "W_K", "W_V"):
        assert grid_fractions(derivation[name]) == identity(2)
    scores = matmul(SEED_X, transpose(SEED_X))
    scaled = derivation["scaled"].value
    for i in range(3):
        for j in range(3):
            value = scaled.exact(i, j)  # S_ij / sqrt(2) = (S_ij / 2) * sqrt(2)
            assert isinstance(value, Surd) and value.radicand == 2
            assert frac(value.coefficient) == scores[i][j] / 2
    mask = derivation["mask"].value
    masked = derivation["masked"].value
    weights = derivation["weights"].value
    for i in range(3):
        for j in range(3):
            if j > i:
                assert mask.exact(i, j) is NEG_INF
                assert masked.exact(i, j) is NEG_INF
                assert weights.exact(i, j) == fmpq(0) and isinstance(weights.exact(i, j), fmpq)
            else:
                assert mask.exact(i, j) == fmpq(0)
    assert weights.exact(0, 0) == fmpq(1)
    output = derivation["output"]
    assert [frac(output.value.exact(0, k)) for k in range(2)] == SEED_X[0]
    assert derivation["exp_sum"].shape == (3, 1)
    # the printed claims of the document, at 2 places, from numpy
    ref = numpy_attention(SEED_X, SEED_X, SEED_X, allowed=causal(3, 3))
    two = NumberFormat(places=2)
    for i in range(3):
        for j in range(3):
            text = two.format(weights.exact(i, j))
            assert abs(float(text) - ref["weights"][i, j]) <= 0.005 + 1e-12


# ------------------------------------------------------- numpy property test
small = st.builds(Fraction, st.integers(-5, 5), st.sampled_from([1, 2, 4, 5, 10]))


@st.composite
def attention_cases(draw):
    n = draw(st.integers(1, 4))
    m = draw(st.integers(1, 4))
    d = draw(st.integers(1, 3))
    dv = draw(st.integers(1, 3))
    matrix = lambda r, c: draw(st.lists(st.lists(small, min_size=c, max_size=c),
                                        min_size=r, max_size=r))
    Q, K, V = matrix(n, d), matrix(m, d), matrix(m, dv)
    kind = draw(st.sampled_from(["none", "causal", "padding", "matrix"]))
    options = {}
    allowed = [[True] * m for _ in range(n)]
    if kind == "causal":
        options["mask"] = "causal"
        if n != m:
            positions = draw(st.lists(st.integers(1, m), min_size=n, max_size=n))
            options["query_positions"] = positions
        else:
            positions = list(range(1, n + 1))
        allowed = causal(n, m, positions)
    elif kind == "padding":
        padded = draw(st.sets(st.integers(1, m), max_size=m - 1))
        options["mask"] = sorted(padded)
        allowed = [[j + 1 not in padded for j in range(m)] for _ in range(n)]
    elif kind == "matrix":
        allowed = []
        for _ in range(n):
            row = draw(st.lists(st.booleans(), min_size=m, max_size=m))
            row[draw(st.integers(0, m - 1))] = True     # no fully masked row here
            allowed.append(row)
        options["mask"] = [["0" if keep else "-inf" for keep in row] for row in allowed]
    return Q, K, V, options, allowed


def check_against_numpy(grid, expected):
    """Each 12-digit decimal of the grid agrees with the float64 value."""
    for i in grid.rows():
        for j in grid.columns():
            text = TWELVE.format(grid.exact(i, j))
            x = float(expected[i, j])
            if x == -math.inf:
                assert text == "-inf"
                continue
            assert abs(float(text) - x) <= 1e-9 * abs(x) + 1e-12, (i, j, text, x)


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(attention_cases())
def test_random_attention_agrees_with_numpy(case):
    Q, K, V, options, allowed = case
    n, m = len(Q), len(K)
    problem = problem_of({"Q": text_rows(Q), "K": text_rows(K), "V": text_rows(V)}, **options)
    derivation = derive(problem)
    any_masked = not all(all(row) for row in allowed)
    ref = numpy_attention(Q, K, V, allowed=allowed)
    # The max-shift (seed 004's np.exp(z - z.max())) comes in where e^z passes 10^6.
    shifted = bool((ref["exp_sum"] > 1e6).any())
    assert derivation.names == ("Q", "K", "V", "scores", "scaled") + \
        (("mask", "masked") if any_masked else ()) + ("exp", "exp_sum") + \
        (("row_max", "shifted", "exp_shifted", "exp_shifted_sum") if shifted else ()) + \
        ("weights", "output")
    if shifted:
        z = ref["masked"] if any_masked else ref["scaled"]
        top = np.max(z, axis=1, keepdims=True)
        check_against_numpy(derivation["row_max"].value, top)
        check_against_numpy(derivation["shifted"].value, z - top)
        check_against_numpy(derivation["exp_shifted"].value, np.exp(z - top))
        check_against_numpy(derivation["exp_shifted_sum"].value,
                            np.exp(z - top).sum(axis=1, keepdims=True))
        assert [s.name for s in derivation if s.hidden] == ["exp", "exp_sum"]

    # exact: scores by Fraction arithmetic
    scores = matmul(Q, transpose(K))
    assert grid_fractions(derivation["scores"]) == scores

    for name in ("scores", "scaled", "exp", "exp_sum", "weights", "output"):
        check_against_numpy(derivation[name].value, ref[name])
    if any_masked:
        check_against_numpy(derivation["masked"].value, ref["masked"])

    weights = derivation["weights"].value
    output = derivation["output"].value
    for i in range(n):
        row = [weights.exact(i, j) for j in range(m)]
        open_columns = [j for j in range(m) if allowed[i][j]]
        # masked weights are exactly zero
        for j in range(m):
            if not allowed[i][j]:
                assert isinstance(row[j], fmpq) and row[j] == fmpq(0)
        # a row is rational exactly when its unmasked scores are all equal,
        # and then every unmasked weight is 1/count
        equal = len({scores[i][j] for j in open_columns}) == 1
        if equal:
            for j in open_columns:
                assert frac(row[j]) == Fraction(1, len(open_columns))
        else:
            assert not all(isinstance(row[j], fmpq) for j in open_columns)
        if all(isinstance(w, fmpq) for w in row):
            assert sum(frac(w) for w in row) == 1
            # and the output row is the exact weighted sum
            for k in range(len(V[0])):
                assert frac(output.exact(i, k)) == sum(frac(row[j]) * V[j][k] for j in range(m))
        # the 12-digit decimals sum to 1 within rounding (each is within half a
        # unit of its 12th significant digit, so within 5e-12 of its value)
        total = sum(Decimal(TWELVE.format(w)) for w in row)
        assert abs(total - 1) <= Decimal("5e-12") * len(open_columns)

    if options.get("mask") == "causal" and allowed[0] == [True] + [False] * (m - 1):
        # the first query sees only the first key: its output is exactly v_1
        assert [frac(output.exact(0, k)) for k in range(len(V[0]))] == V[0]


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), st.lists(small, min_size=1, max_size=3))
def test_equal_scores_give_exactly_one_over_count(n, m, key):
    # every key row the same: each query's scores are all equal
    Q = [[Fraction(i + 1)] * len(key) for i in range(n)]
    K = [list(key) for _ in range(m)]
    V = [[Fraction(j), Fraction(j * j)] for j in range(m)]
    derivation = derive(problem_of({"Q": text_rows(Q), "K": text_rows(K), "V": text_rows(V)}))
    weights = derivation["weights"].value
    for i in range(n):
        for j in range(m):
            assert frac(weights.exact(i, j)) == Fraction(1, m)
    output = derivation["output"].value
    mean = [sum(Fraction(j) for j in range(m)) / m, sum(Fraction(j * j) for j in range(m)) / m]
    for i in range(n):
        assert [frac(output.exact(i, k)) for k in range(2)] == mean


def test_equal_scores_with_a_mask_give_one_over_open_count():
    derivation = derive(problem_of({"scaled": [[2, 2, 2, 7]]}, mask=[4]))
    weights = derivation["weights"].value
    assert [weights.exact(0, j) for j in range(4)] == [fmpq(1, 3)] * 3 + [fmpq(0)]


def test_causal_first_output_row_is_v1():
    Q = fractions([[1, 2], [3, -1], ["0.5", 2]])
    K = fractions([[2, 1], [0, 1], [1, 1]])
    V = fractions([["0.3", "-1.7", 4], [1, 2, 3], [5, 6, 7]])
    derivation = derive(problem_of({"Q": text_rows(Q), "K": text_rows(K),
                                    "V": text_rows(V)}, mask="causal"))
    output = derivation["output"].value
    assert [frac(output.exact(0, k)) for k in range(3)] == V[0]
    assert [output.exact(0, k) for k in range(3)] == [fmpq(3, 10), fmpq(-17, 10), fmpq(4)]


# ------------------------------------------------------------- fully masked
FULLY_MASKED = {"scaled": [[1, 2], ["-inf", "-inf"], [3, 3]], "V": [[1, 0], [0, 1]]}


def test_fully_masked_row_is_an_error_naming_the_row():
    with pytest.raises(InputError) as info:
        derive(problem_of(FULLY_MASKED))
    assert "row 2" in str(info.value)
    assert "fully_masked" in str(info.value)


def test_fully_masked_row_by_mask_matrix():
    with pytest.raises(InputError, match="row 1"):
        derive(problem_of({"scaled": [[1, 2], [3, 4]]}, mask=[["-inf", "-inf"], [0, 0]]))


def test_fully_masked_nan():
    derivation = derive(problem_of(FULLY_MASKED, fully_masked="nan"))
    weights, output = derivation["weights"].value, derivation["output"].value
    assert all(weights.exact(1, j) is NAN for j in range(2))
    assert all(output.exact(1, k) is NAN for k in range(2))
    assert TWELVE.format(weights.exact(1, 0)) == "nan"
    # the other rows are unaffected: row 3 has equal scores, so exactly 1/2
    assert [frac(weights.exact(2, j)) for j in range(2)] == [Fraction(1, 2)] * 2
    assert [frac(output.exact(2, k)) for k in range(2)] == [Fraction(1, 2)] * 2
    assert frac(derivation["exp_sum"].value.exact(1, 0)) == 0


def test_fully_masked_zeros():
    derivation = derive(problem_of(FULLY_MASKED, fully_masked="zeros"))
    weights, output = derivation["weights"].value, derivation["output"].value
    for j in range(2):
        assert isinstance(weights.exact(1, j), fmpq) and weights.exact(1, j) == 0
        assert isinstance(output.exact(1, j), fmpq) and output.exact(1, j) == 0
    ref = numpy_attention([[1], [3]], [[1], [2]], [[1, 0], [0, 1]], factor=1.0)
    check_against_numpy(weights, np.vstack([ref["weights"][0], [0, 0], [0.5, 0.5]]))


# ------------------------------------------------------------ normalisation sum
def test_sum_normalisation_is_exact():
    Q = fractions([[1, 2], [3, 1], ["0.5", "0.5"]])
    K = fractions([[1, 1], [2, 1], [1, 3]])
    V = fractions([[1, 0], [0, 1], [2, 2]])
    allowed = [[True, False, True], [True, True, True], [True, True, True]]
    derivation = derive(problem_of({"Q": text_rows(Q), "K": text_rows(K), "V": text_rows(V)},
                                   normalisation="sum",
                                   mask=[[0, "-inf", 0], [0, 0, 0], [0, 0, 0]]))
    assert "exp" not in derivation and "exp_sum" not in derivation
    scores = matmul(Q, transpose(K))
    expected = []
    for i in range(3):
        total = sum(scores[i][j] for j in range(3) if allowed[i][j])
        expected.append([scores[i][j] / total if allowed[i][j] else Fraction(0)
                         for j in range(3)])
    assert grid_fractions(derivation["weights"]) == expected
    assert all(sum(row) == 1 for row in expected)
    assert grid_fractions(derivation["output"]) == matmul(expected, V)


def test_sum_normalisation_zero_row_sum_is_an_error():
    with pytest.raises(InputError, match="row 2"):
        derive(problem_of({"scaled": [[1, 2], [1, -1]]}, normalization="sum"))


# ---------------------------------------------------- temperature and scale
QK = {"Q": [[1, 0, 1, 0], [0, 2, 0, 1]], "K": [[1, 1, 0, 0], [0, 1, 1, 0], [1, 0, 0, 1]]}
QK_SCORES = matmul(fractions(QK["Q"]), transpose(fractions(QK["K"])))


@pytest.mark.parametrize("options, factor", [
    ({}, Fraction(1, 2)),                                   # 1/sqrt(4)
    ({"temperature": "0.5"}, Fraction(1)),                  # (1/2) / (1/2)
    ({"temperature": 4}, Fraction(1, 8)),
    ({"scale": "none"}, Fraction(1)),
    ({"scale": "0.5"}, Fraction(1, 2)),
    ({"scale": "0.25", "temperature": "0.5"}, Fraction(1, 2)),
    ({"scale": "3/2", "temperature": 3}, Fraction(1, 2)),
    ({"d_k": 16}, Fraction(1, 4)),                           # explicit d_k wins
])
def test_rational_scale_and_temperature(options, factor):
    derivation = derive(problem_of(QK, **options))
    scaled = grid_fractions(derivation["scaled"])
    assert scaled == [[factor * s for s in row] for row in QK_SCORES]
    ref = numpy_attention(fractions(QK["Q"]), fractions(QK["K"]), factor=float(factor))
    check_against_numpy(derivation["weights"].value, ref["weights"])


@pytest.mark.parametrize("options, factor_squared", [
    ({"scale": "1/sqrt(3)"}, Fraction(1, 3)),
    ({"d_k": 2}, Fraction(1, 2)),
    ({"temperature": "sqrt(2)"}, Fraction(1, 8)),           # 1/(2 sqrt(2))
    ({"d_k": 2, "temperature": 2}, Fraction(1, 8)),         # 1/(sqrt(2) 2)
    ({"scale": "sqrt(2)", "temperature": "sqrt(8)"}, Fraction(1, 4)),  # rational 1/2
])
def test_root_scale_and_temperature(options, factor_squared):
    derivation = derive(problem_of(QK, **options))
    scaled = derivation["scaled"].value
    for i in range(2):
        for j in range(3):
            value = scaled.exact(i, j)
            s = QK_SCORES[i][j]
            if isinstance(value, Surd):
                # (a sqrt(r))^2 = s^2 * factor^2, with the sign of s
                assert frac(value.coefficient) ** 2 * value.radicand == s * s * factor_squared
                assert (value.coefficient > 0) == (s > 0)
            else:
                assert frac(value) ** 2 == s * s * factor_squared
    ref = numpy_attention(fractions(QK["Q"]), fractions(QK["K"]),
                          factor=math.sqrt(float(factor_squared)))
    for name in ("scaled", "exp", "exp_sum", "weights"):
        check_against_numpy(derivation[name].value, ref[name])


def test_scores_given_directly():
    derivation = derive(problem_of({"scores": [[1, 2, "-inf"], [0, 4, 1]], "V": [[1], [2], [3]]},
                                   d_k=4))
    assert grid_fractions(derivation["scores"])[1] == [0, 4, 1]
    scaled = derivation["scaled"].value
    assert scaled.exact(0, 2) is NEG_INF
    assert frac(scaled.exact(1, 1)) == 2
    assert "mask" in derivation
    ref = numpy_attention([[1, 0], [0, 1]], [[1, 0], [2, 4], [0, 1]], [[1], [2], [3]],
                          factor=0.5, allowed=[[True, True, False], [True, True, True]])
    check_against_numpy(derivation["weights"].value, ref["weights"])
    check_against_numpy(derivation["output"].value, ref["output"])


def test_x_without_w_v_stops_at_the_weights():
    derivation = derive(problem_of({"X": [[1, 2], [3, 4]], "W_Q": "identity", "W_K": "identity"}))
    assert derivation.names[-1] == "weights"
    assert "V" not in derivation and "output" not in derivation


def test_derivation_indexing():
    derivation = derive(problem_of({"scaled": [[1, 2]]}))
    assert "weights" in derivation and "output" not in derivation
    assert [step.name for step in derivation] == list(derivation.names)
    with pytest.raises(KeyError):
        derivation["output"]


# --------------------------------------------- seed examples at 40 digits
SQRT2_INV = lambda: 1 / mpmath.sqrt(2)


def _seed_references():
    eye = identity(2)
    return {
        "000-cat-chases-mouse": dict(X=SEED_X, W_Q=eye, W_K=eye, W_V=eye,
                                     factor=SQRT2_INV, allowed=causal(3, 3)),
        "001-kocka-spi-venku": dict(
            Q=fractions([["1.0", "0.0", "0.5", "0.0"], ["0.9", "0.8", "0.2", "0.1"]]),
            K=fractions([["0.9", "0.1", "0.4", "0.0"], ["0.0", "1.0", "0.0", "0.9"],
                         ["0.8", "0.9", "0.1", "0.0"]]),
            V=fractions([["0.2", "0.8", "0.0", "0.1"], ["0.7", "0.1", "0.3", "0.0"],
                         ["0.1", "0.2", "0.9", "0.4"]]),
            factor=lambda: mpmath.mpf(1) / 2, allowed=causal(2, 3, [1, 3])),
        "001-scores-times-10": dict(scaled=fractions([["4.85", "4.45", "7.30"]])),
        "001-softmax-10-2-1": dict(scaled=fractions([[10, 2, 1]])),
        "003-cross-attention-temperature": dict(
            Q=fractions([[2, 1, 0, 0], [0, 1, 2, 1]]),
            K=fractions([[1, 1, 0, 0], [0, 1, 1, 0], [1, 0, 0, 1]]),
            V=fractions([[1, 0], [0, 1], [1, 1]]),
            factor=lambda: (1 / mpmath.sqrt(4)) / mpmath.mpf("0.5")),
        "004-cat-eats-fish": dict(X=fractions([[1, 2], [3, 1], [2, 4]]), W_Q=eye, W_K=eye,
                                  W_V=fractions([[0, 1], [1, 0]]), factor=SQRT2_INV),
        "004-softmax-row": dict(scaled=fractions([["3.2", "4.0", "1.0", "6.2", "8.0"]])),
    }


SEEDS = _seed_references()


def _hand_reference(name):
    arguments = dict(SEEDS[name])
    with mpmath.workdps(60):
        if "factor" in arguments:
            arguments["factor"] = arguments["factor"]()
        return mp_attention(**arguments)


@pytest.mark.parametrize("name", sorted(SEEDS))
def test_spec_reader_of_the_reference_matches_the_hand_written_inputs(name):
    # guards tests/reference.py's own TOML reading against the inputs typed above
    by_hand = _hand_reference(name)
    from_spec = mp_reference_from_spec(symattn.problem.examples.path(name))
    # the attention steps typed here, in order (the spec may add layer steps around them)
    assert [step for step in from_spec if step in by_hand] == list(by_hand)
    for step in by_hand:
        for row_a, row_b in zip(by_hand[step], from_spec[step]):
            for a, b in zip(row_a, row_b):
                assert a == b or abs(a - b) <= mpmath.mpf(10) ** -45 * max(1, abs(a))


# Examples of what documents do their own way: the reference here does not model their
# options (order, cosine, X_q/X_k/X_v, [[variants]], number_format); tests/test_docops.py
# checks each of them against its own computation with fractions and mpmath.
OWN_WAY = {"015-cosine-norms", "015-mask-then-scale", "015-number-format",
           "015-temperature-order", "015-temperatures", "015-three-sources"}
ATTENTION_EXAMPLES = [name for name in symattn.problem.examples.names()
                      if is_attention_spec(symattn.problem.examples.path(name))
                      and name not in OWN_WAY]


# A symbol (temperature = "T") has no 40-digit reference; tests/test_symbols.py checks
# that example's limits, derivative and substitution against mpmath instead.
SYMBOLIC_EXAMPLES = ("003-entropy-temperature-symbolic",)


@pytest.mark.parametrize("name", [
    pytest.param(name, marks=pytest.mark.skip(reason="symbolic T: see tests/test_symbols.py"))
    if name in SYMBOLIC_EXAMPLES else name for name in ATTENTION_EXAMPLES])
def test_seed_examples_at_40_digits_agree_with_mpmath(name, capsys):
    reference = mp_reference_from_spec(symattn.problem.examples.path(name))
    assert main(["derive", "--example", name, "--digits", "40", "--format", "json"]) == 0
    document = json.loads(capsys.readouterr().out)
    steps = {step["name"]: step for step in document["steps"]}
    assert list(steps) == list(reference)
    for step_name, matrix in reference.items():
        step = steps[step_name]
        assert step["shape"] == [len(matrix), len(matrix[0])], step_name
        for i, row in enumerate(matrix):
            for j, value in enumerate(row):
                assert_close_to_digits(step["value"][i][j], value, 40)


def test_reference_helper_catches_a_wrong_digit():
    # guard for the comparison itself: one unit off in the 40th digit must fail
    with mpmath.workdps(60):
        x = mpmath.sqrt(2)
    text = "1.414213562373095048801688724209698078570"   # correct: ...078570
    assert_close_to_digits(text, x, 40)
    with pytest.raises(AssertionError):
        assert_close_to_digits(text[:-1] + "1", x, 40)
    assert_close_to_digits("-inf", REF_NEG_INF, 40)
    assert mp(Fraction(1, 4)) == mpmath.mpf("0.25")


# ----------------------------------- decimals of whole matrices (the view)
RULES = {symattn.Rounding.HALF_UP: "ROUND_HALF_UP", symattn.Rounding.HALF_EVEN: "ROUND_HALF_EVEN",
         symattn.Rounding.TRUNCATE: "ROUND_DOWN"}


def _reference_text(value, number_format):
    """The reference value rounded as number_format says, by decimal.Decimal."""
    import decimal

    from reference import mp_to_decimal, round_significant

    if value == REF_NEG_INF:
        return "-inf"
    rule = getattr(decimal, RULES[number_format.rounding])
    if value == 0:
        return "0" if number_format.places is None else \
            format(Decimal(0).quantize(Decimal(1).scaleb(-number_format.places)), "f")
    d = mp_to_decimal(value)
    if number_format.places is None:
        return round_significant(d, number_format.digits, rule)
    return format(d.quantize(Decimal(1).scaleb(-number_format.places), rounding=rule,
                             context=decimal.Context(prec=200)), "f")


@settings(max_examples=examples(25), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(4, 6), st.integers(4, 6), st.integers(1, 3), st.data(),
       st.sampled_from(list(RULES)), st.sampled_from([{"digits": 12}, {"places": 8},
                                                      {"digits": 3}, {"places": 2}]))
def test_view_decimals_of_larger_matrices_agree_with_mpmath(n, m, d, data, rule, shape):
    from symattn.render.view import build_view

    Q = data.draw(st.lists(st.lists(small, min_size=d, max_size=d), min_size=n, max_size=n))
    K = data.draw(st.lists(st.lists(small, min_size=d, max_size=d), min_size=m, max_size=m))
    V = data.draw(st.lists(st.lists(small, min_size=2, max_size=2), min_size=m, max_size=m))
    allowed = causal(n, m, list(range(1, n + 1))) if n <= m else None
    options = {"mask": "causal", "query_positions": list(range(1, n + 1))} if allowed else {}
    derivation = derive(problem_of({"Q": text_rows(Q), "K": text_rows(K), "V": text_rows(V)},
                                   **options))
    number_format = NumberFormat(rounding=rule, **({"digits": None} | shape)
                                 if "places" in shape else shape)
    view = build_view(derivation, number_format, limit=None)
    with mpmath.workdps(60):
        reference = mp_attention(Q=Q, K=K, V=V, factor=1 / mpmath.sqrt(d), allowed=allowed)
    shown = {step.name: step for step in view.steps}
    assert list(shown) == list(reference)
    for name, matrix in reference.items():
        for i, row in enumerate(matrix):
            for j, value in enumerate(row):
                expected = _reference_text(value, number_format)
                got = shown[name].decimal[i][j]
                where = (name, i, j, got, expected, number_format)
                if expected == "-inf":
                    assert got == "-inf", where
                    continue
                if got == "0" and abs(value) < mpmath.mpf(10) ** -40:
                    continue   # exactly zero; the 60-digit reference only gets near it
                # the same number (positional or 1.23e-07 notation), same digits shown
                assert Decimal(got) == Decimal(expected), where
                if number_format.places is not None:
                    assert got.lstrip("-") == expected.lstrip("-"), where
                elif expected != "0":
                    assert shows_digits(got, number_format.digits), where
