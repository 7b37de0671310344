"""Positions (derivation.positions, sympy_positions): sinusoidal encodings, RoPE, permutation
equivariance.

Every number is compared with a computation written here without symattn:
mpmath at 50 digits for the encodings, numpy float64 for RoPE (written with
complex numbers, not with rotation matrices) and for attention end to end.
"""

from __future__ import annotations

import dataclasses
import json
import math

import mpmath
import numpy as np
import pytest
import sympy
from flint import arb, fmpq

import symattn.problem.examples
from reference import assert_close_to_digits, sinusoidal_encoding
from symattn import NumberFormat, derive
from symattn.errors import InputError, ShapeError
from symattn.explore.permute import parse_order, permutation_check, permute_problem
from symattn.derivation.sympy_positions import rotate, sinusoidal_entry
from symattn.problem.problem import Problem
from symattn.values.symbolic import to_ball
from cli_support import run, assert_one_line_error

SIX = NumberFormat(digits=6)


def problem_of(inputs, **options):
    return Problem.from_mapping({"inputs": inputs, "options": options})


def decimals(grid, fmt=NumberFormat(digits=17)):
    return np.array([[float(fmt.format(grid.exact(i, j))) for j in grid.columns()]
                     for i in grid.rows()])






# ----------------------------------------------------- numpy references, by hand
def numpy_sinusoidal(rows, d_model, base=10000.0):
    """The encoding as commonly coded: div_term = exp(-2i log(base) / d_model)."""
    pe = np.zeros((rows, d_model))
    position = np.arange(rows, dtype=np.float64)[:, None]
    div_term = np.exp(np.arange(0, d_model, 2) * (-math.log(base) / d_model))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term[: d_model // 2])
    return pe


def numpy_rope(x, base=10000.0):
    """RoPE as complex multiplication: pair (x_2i, x_2i+1) is x_2i + i x_2i+1."""
    n, d = x.shape
    pairs = x[:, 0::2] + 1j * x[:, 1::2]
    theta = base ** (-np.arange(0, d, 2) / d)
    rotated = pairs * np.exp(1j * np.arange(n)[:, None] * theta[None, :])
    out = np.empty_like(x)
    out[:, 0::2], out[:, 1::2] = rotated.real, rotated.imag
    return out


def numpy_softmax_attention(q, k, v, causal=False):
    scaled = q @ k.T / math.sqrt(k.shape[1])
    if causal:
        scaled = np.where(np.tril(np.ones(scaled.shape, dtype=bool)), scaled, -np.inf)
    e = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    weights = e / e.sum(axis=1, keepdims=True)
    return scaled, weights, weights @ v


X3 = [[1, 0, "1/2", 0], [0, 1, 0, "1/2"], ["1/2", "1/2", 1, 1]]
W_K = [[1, 0, 0, 0], [0, 0, 1, 0], [0, 1, 0, 0], [0, 0, 0, 1]]
W_V = [[1, 0], [0, 1], [1, 0], [0, "-1"]]


def floats(rows):
    return np.array([[float(sympy.Rational(str(x))) for x in row] for row in rows])


# ----------------------------------------------------------- sinusoidal encodings
@pytest.mark.parametrize("rows, d_model, base", [(4, 6, 10000), (3, 5, 100), (3, 4, 7)])
def test_pe_entries_agree_with_mpmath_to_50_digits(rows, d_model, base):
    x = [[0] * d_model for _ in range(rows)]
    derivation = derive(problem_of({"X": x, "W_Q": "identity", "W_K": "identity"},
                                   positions="sinusoidal", position_base=base))
    grid = derivation["PE"].value
    assert grid.shape == (rows, d_model)
    reference = sinusoidal_encoding(rows, d_model, base)
    fmt = NumberFormat(digits=50)
    for p in range(rows):
        for c in range(d_model):
            assert_close_to_digits(fmt.format(grid.exact(p, c)), reference[p][c], 50)


def test_pe_agrees_with_numpy_float64():
    derivation = derive(problem_of({"X": [[0] * 8] * 6, "W_Q": "identity", "W_K": "identity"},
                                   positions="sinusoidal"))
    assert np.allclose(decimals(derivation["PE"].value), numpy_sinusoidal(6, 8),
                       rtol=1e-14, atol=1e-15)


def test_pe_exact_forms():
    # position 0 is exactly (0, 1, 0, 1): sin(0) = 0, cos(0) = 1, as rationals
    assert sinusoidal_entry(0, 0, 4, 10000) == 0 and sinusoidal_entry(0, 1, 4, 10000) == 1
    derivation = derive(problem_of({"X": [[0, 0, 0, 0]] * 3, "W_Q": "identity",
                                    "W_K": "identity"}, positions="sinusoidal"))
    pe = derivation["PE"].value
    assert [pe.exact(0, c) for c in range(4)] == [fmpq(0), fmpq(1), fmpq(0), fmpq(1)]
    assert pe.text(1, 2) == "sin(1/100)" and pe.text(2, 3) == "cos(1/50)"
    assert pe.text(1, 0) == "sin(1)"
    # an irrational frequency stays exact: 10000^(-2/3) for d_model = 3
    assert sympy.simplify(sinusoidal_entry(1, 2, 3, 10000).args[0]
                          - sympy.Integer(10000) ** sympy.Rational(-2, 3)) == 0


def test_sinusoidal_steps_and_order():
    derivation = derive(problem_of({"X": X3, "W_Q": "identity", "W_K": W_K, "W_V": W_V},
                                   positions="sinusoidal"))
    assert derivation.names == ("X", "W_Q", "W_K", "W_V", "PE", "X_pos", "Q", "K", "V",
                                "scores", "scaled", "exp", "exp_sum", "weights", "output")
    assert derivation["Q"].operands == ("X_pos", "W_Q")
    assert derivation["X_pos"].operands == ("X", "PE")


def test_sinusoidal_attention_matches_numpy_end_to_end():
    derivation = derive(problem_of({"X": X3, "W_Q": "identity", "W_K": W_K, "W_V": W_V},
                                   positions="sinusoidal"))
    x = floats(X3) + numpy_sinusoidal(3, 4)
    q, k, v = x, x @ floats(W_K), x @ floats(W_V)
    scaled, weights, output = numpy_softmax_attention(q, k, v)
    for name, expected in (("X_pos", x), ("K", k), ("V", v), ("scores", q @ k.T),
                           ("scaled", scaled), ("weights", weights), ("output", output)):
        assert np.allclose(decimals(derivation[name].value), expected, rtol=1e-12,
                           atol=1e-14), name


def test_sinusoidal_scores_are_linear_in_sines_and_cosines():
    # |x_pos|^2 contains sin^2 + cos^2 of one angle: exactly 1, so the diagonal is exact
    derivation = derive(problem_of({"X": [[0, 0], [0, 0]], "W_Q": "identity",
                                    "W_K": "identity"}, positions="sinusoidal"))
    scores = derivation["scores"].value
    assert scores.exact(0, 0) == 1 and scores.exact(1, 1) == 1
    assert scores.text(0, 1) == "cos(1)"          # sin(0)sin(1) + cos(0)cos(1)


def test_cross_attention_encodes_each_sequence_from_position_0():
    X, X_kv = [[1, 0], [0, 2]], [[1, 2], [3, 4], [0, -1]]
    derivation = derive(problem_of({"X": X, "X_kv": X_kv, "W_Q": "identity",
                                    "W_K": "identity", "W_V": "identity"},
                                   positions="sinusoidal"))
    assert derivation.names[5:11] == ("PE", "X_pos", "PE_kv", "X_kv_pos", "Q", "K")
    assert derivation["K"].operands == ("X_kv_pos", "W_K")
    q = floats(X) + numpy_sinusoidal(2, 2)
    kv = floats(X_kv) + numpy_sinusoidal(3, 2)
    _, _, output = numpy_softmax_attention(q, kv, kv)
    assert np.allclose(decimals(derivation["output"].value), output, rtol=1e-12, atol=1e-14)


# -------------------------------------------------------------------------- RoPE
def test_rope_agrees_with_complex_numpy_rotation():
    Q = [[1, 2, "1/2", -1], [0, 1, 1, 0], [3, "-1/4", 0, 2], [1, 1, 1, 1]]
    K = [[0, 1, 2, 0], [1, 0, "1/3", 1], [-1, 2, 0, 1], [2, 0, 0, "1/5"]]
    V = [[1, 0], [0, 1], [1, 1], [2, -1]]
    derivation = derive(problem_of({"Q": Q, "K": K, "V": V}, positions="rope",
                                   position_base=100))
    assert derivation.names[:5] == ("Q", "K", "V", "Q_rot", "K_rot")
    q, k = numpy_rope(floats(Q), 100.0), numpy_rope(floats(K), 100.0)
    assert np.allclose(decimals(derivation["Q_rot"].value), q, rtol=1e-13, atol=1e-15)
    assert np.allclose(decimals(derivation["K_rot"].value), k, rtol=1e-13, atol=1e-15)
    scaled, weights, output = numpy_softmax_attention(q, k, floats(V))
    assert np.allclose(decimals(derivation["scores"].value), q @ k.T, rtol=1e-12, atol=1e-14)
    assert np.allclose(decimals(derivation["weights"].value), weights, rtol=1e-12)
    assert np.allclose(decimals(derivation["output"].value), output, rtol=1e-12, atol=1e-14)


def test_rope_with_projections_and_causal_mask_matches_numpy():
    derivation = derive(problem_of({"X": X3, "W_Q": "identity", "W_K": W_K, "W_V": W_V},
                                   positions="rope", mask="causal"))
    x = floats(X3)
    q, k = numpy_rope(x), numpy_rope(x @ floats(W_K))
    _, weights, output = numpy_softmax_attention(q, k, x @ floats(W_V), causal=True)
    assert np.allclose(decimals(derivation["output"].value), output, rtol=1e-12, atol=1e-14)
    assert derivation["weights"].value.exact(0, 1) == 0
    assert derivation["output"].value.exact(0, 0) == fmpq(3, 2)   # row 1 is v_1 exactly


def test_rope_keeps_exact_what_is_exact():
    # position 0 is not rotated; a query and key at the same position keep q . k exactly
    derivation = derive(problem_of({"Q": [[1, 2], [1, "1/2"]], "K": [[3, 0], [1, 1]]},
                                   positions="rope"))
    q_rot, scores = derivation["Q_rot"].value, derivation["scores"].value
    assert q_rot.exact(0, 0) == 1 and q_rot.exact(0, 1) == 2
    assert scores.exact(0, 0) == 3 and scores.exact(1, 1) == fmpq(3, 2)
    assert "sin(1)" in scores.text(0, 1) or "cos(1)" in scores.text(0, 1)
    rotated = rotate(sympy.Matrix([[1, 0], [1, 0], [0, 1]]), 10000)
    assert rotated[1, :] == sympy.Matrix([[sympy.cos(1), sympy.sin(1)]])
    assert rotated[2, :] == sympy.Matrix([[-sympy.sin(2), sympy.cos(2)]])


def test_rope_scores_depend_on_relative_position_only():
    # the same q and k at positions (1, 0) and (2, 1): equal scores, equal exact forms
    derivation = derive(problem_of({"Q": [[1, 2]] * 3, "K": [[3, -1]] * 3}, positions="rope"))
    scores = derivation["scores"].value
    assert scores.text(1, 0) == scores.text(2, 1)
    assert scores.exact(0, 0) == scores.exact(2, 2) == 1


# --------------------------------------------------------------- certified balls
def test_to_ball_translates_sin_cos_pi_and_rational_powers():
    x = sympy.Rational(1, 3)
    expr = (sympy.sin(x) * sympy.cos(sympy.pi / 7) + sympy.Integer(10) ** sympy.Rational(2, 3)
            - sympy.Integer(10000) ** sympy.Rational(-1, 3) + sympy.cos(sympy.sqrt(2)))
    with mpmath.workdps(120):
        expected = (mpmath.sin(mpmath.mpf(1) / 3) * mpmath.cos(mpmath.pi / 7)
                    + mpmath.cbrt(100) - 1 / mpmath.cbrt(10000) + mpmath.cos(mpmath.sqrt(2)))
        ball = to_ball(expr, 400)
        assert ball.rad() < arb("1e-100")
        midpoint = mpmath.mpf(ball.mid().str(115, radius=False))
        assert abs(midpoint - expected) < mpmath.mpf("1e-100"), (ball, expected)


# ------------------------------------------------------------------------ errors
@pytest.mark.parametrize("inputs, options, error, words", [
    ({"scores": [[1, 2]]}, {"d_k": 2, "positions": "rope"}, InputError, "not scores"),
    ({"Q": [[1, 0]], "K": [[1, 0]]}, {"positions": "sinusoidal"}, InputError, "Q is given"),
    ({"Q": [[1, 0, 1]], "K": [[1, 0, 0]]}, {"positions": "rope"}, ShapeError, "even"),
    ({"X": [[1, 0], [0, 1]], "W_Q": "identity", "W_K": "identity", "W_V": "identity"},
     {"positions": "rope", "heads": 2}, InputError, "several heads"),
    ({"X_q": [[1, 0], [0, 1]], "X_k": [[1, 1], [0, 1]], "X_v": [[1, 0], [0, 1]],
      "W_Q": "identity", "W_K": "identity", "W_V": "identity"},
     {"positions": "sinusoidal"}, InputError, "separate sources"),
    ({"X": [[1, 0], [0, 1]], "X_v": [[1, 0], [0, 1]], "W_Q": "identity",
      "W_K": "identity", "W_V": "identity"}, {"positions": "rope"}, InputError,
     "separate sources"),
])
def test_unsupported_combinations_are_clear_errors(inputs, options, error, words):
    with pytest.raises(error, match=words):
        derive(problem_of(inputs, **options))


# ------------------------------------------------------- permutation equivariance
SELF = {"X": X3, "W_Q": "identity", "W_K": W_K, "W_V": W_V}


def test_permutation_without_positions_is_exactly_equivariant():
    result = permutation_check(problem_of(SELF), [3, 1, 2])
    assert result.equivariant and result.differing == ()
    assert result.scores == (9, 0, 0) and result.values == (3, 0, 0) and result.rational
    assert all(row.structural and row.text_equal for row in result.rows)
    assert [row.source for row in result.rows] == [3, 1, 2]
    original, permuted = result.original, result.permuted
    for i, src in enumerate([2, 0, 1]):
        for c in range(2):
            assert SIX.format(permuted["output"].value.exact(i, c)) == \
                SIX.format(original["output"].value.exact(src, c))
    # and it is the permuted numpy output too
    x = floats(X3)
    _, _, output = numpy_softmax_attention(x, x @ floats(W_K), x @ floats(W_V))
    assert np.allclose(decimals(permuted["output"].value), output[[2, 0, 1]], rtol=1e-12)


@pytest.mark.parametrize("kind", ["sinusoidal", "rope"])
def test_permutation_with_positions_changes_the_outputs(kind):
    result = permutation_check(problem_of(SELF, positions=kind), [3, 1, 2])
    assert not result.equivariant
    assert result.differing == (1, 2, 3)
    assert result.scores[1] > 0                   # some scores proved different
    for row in result.rows:
        assert not row.structural
        mine = [SIX.format(v) for v in row.permuted]
        theirs = [SIX.format(v) for v in row.original]
        assert mine != theirs                     # certified decimals that differ
    assert any(kind in note for note in result.notes)


def test_permutation_with_positions_agrees_with_numpy():
    result = permutation_check(problem_of(SELF, positions="sinusoidal"), [2, 3, 1])
    x = floats(X3)[[1, 2, 0]] + numpy_sinusoidal(3, 4)
    _, _, output = numpy_softmax_attention(x, x @ floats(W_K), x @ floats(W_V))
    assert np.allclose(decimals(result.permuted["output"].value), output, rtol=1e-12)


def test_identity_order_is_equal_even_with_positions():
    assert permutation_check(problem_of(SELF, positions="rope"), [1, 2, 3]).equivariant


def test_permutation_of_given_q_k_v_and_of_symbolic_inputs():
    problem = problem_of({"Q": [["sqrt(2)", 1], [0, "a"]], "K": [[1, 0], [1, 1]],
                          "V": [[1], [2]]})
    result = permutation_check(problem, [2, 1])
    assert result.equivariant and not result.rational and result.scores == (4, 0, 0)


def test_permutation_of_given_scores_moves_rows_and_columns():
    problem = problem_of({"scaled": [[1, 2, "-inf"], [0, 1, 3], [2, "-inf", 1]],
                          "V": [[1], [2], [3]]})
    permuted = permute_problem(problem, [3, 1, 2])
    assert [[e.text for e in row] for row in permuted.inputs["scaled"]] == \
        [["1", "2", "-inf"], ["-inf", "1", "2"], ["3", "0", "1"]]
    assert permutation_check(problem, [3, 1, 2]).equivariant


def test_a_causal_mask_breaks_equivariance_and_says_so():
    result = permutation_check(problem_of(SELF, mask="causal"), [3, 1, 2])
    assert not result.equivariant and result.mask == "causal"
    assert result.scores == (9, 0, 0)             # the scores still permute exactly ...
    assert not result.rows[0].structural          # ... but the mask stays with positions
    assert any("masks break permutation equivariance" in note for note in result.notes)


@pytest.mark.parametrize("order, words", [([1, 2], "not a permutation"),
                                          ([1, 1, 2], "exactly once"),
                                          ([0, 1, 2], "exactly once")])
def test_bad_orders(order, words):
    with pytest.raises(InputError, match=words):
        permutation_check(problem_of(SELF), order)


def test_parse_order():
    assert parse_order("3,1,2") == (3, 1, 2)
    with pytest.raises(InputError, match="'x' is not a token number"):
        parse_order("3,x,1")


def test_cross_attention_cannot_be_permuted():
    problem = problem_of({"Q": [[1, 0]], "K": [[1, 0], [0, 1]], "V": [[1], [2]]})
    with pytest.raises(InputError, match="self-attention"):
        permutation_check(problem, [1])


# --------------------------------------------------------------------- the example
def test_bundled_example_is_sinusoidal_and_says_the_numbers_are_ours():
    problem = symattn.load_example("003-positions-sinusoidal")
    assert problem.positions == "sinusoidal"
    # in the seed's language (Russian): the order does not matter without positions, and
    # the numbers are made up for the example, not the seed's
    assert "не замечает порядка токенов" in problem.description
    assert "в исходном тексте их нет" in problem.description
    result = permutation_check(problem, [3, 1, 2])
    assert result.differing == (1, 2, 3)
    plain = permutation_check(dataclasses.replace(problem, positions="none"), [3, 1, 2])
    assert plain.equivariant


# ------------------------------------------------------------------------- CLI
def test_cli_permute_without_positions(capsys):
    status, out, err = run(capsys, "permute", "--example", "003-positions-sinusoidal",
                           "--order", "3,1,2", "--positions", "none", "--language", "en")
    assert status == 0, err
    assert "Result: equivariant" in out
    assert "entries equal exactly: 9 of 9" in out and "compared as fractions" in out
    status, out, err = run(capsys, "permute", "--example", "003-positions-sinusoidal",
                           "--order", "3,1,2", "--positions", "none")      # the spec's Russian
    assert status == 0, err
    out = out.replace("\xa0", " ")
    assert "Итог: эквивариантно" in out and "точно равных элементов: 9 из 9" in out


def test_cli_permute_with_positions_shows_different_decimals(capsys):
    status, out, err = run(capsys, "permute", "--example", "003-positions-sinusoidal",
                           "--order", "3,1,2", "--language", "en")
    assert status == 0, err
    assert "Result: not equivariant: 3 of 3 rows proved different" in out
    assert out.count("differs (proved)") == 3


def test_cli_permute_json(capsys, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('[inputs]\nQ = [[1, 0], [0, 1], [1, 1]]\nK = [[1, 1], [0, 1], [1, 0]]\n'
                    'V = [[1], [2], [3]]\n[options]\nmask = "causal"\n', encoding="utf-8")
    status, out, err = run(capsys, "permute", str(spec), "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    assert document["order"] == [3, 2, 1] and document["mask"] == "causal"
    assert document["equivariant"] is False
    assert any("masks break" in note for note in document["notes"])
    assert {"row", "source", "verdict", "permuted", "original"} <= set(document["rows"][0])


@pytest.mark.parametrize("order, words", [("3,1", "not a permutation"),
                                          ("1,1,2", "exactly once"),
                                          ("a,b,c", "'a' is not a token number"),
                                          ("3,,1", "is not a token number")])
def test_cli_bad_order_is_exit_2_with_one_line(capsys, order, words):
    status, out, err = run(capsys, "permute", "--example", "003-positions-sinusoidal",
                           "--order", order)
    assert status == 2
    assert out == ""
    assert_one_line_error(err, words)


def test_cli_permute_help_lists_the_command(capsys):
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "permute" in out and "kvcache" in out
