"""The SymPy path (derivation.sympy_path): roots and identifiers, against SymPy done here."""

from __future__ import annotations

import mpmath
import pytest
import sympy
from flint import fmpq

from reference import assert_close_to_digits
from symattn import NumberFormat, derive
from symattn.errors import InputError
from symattn.values.exact import NAN, NEG_INF
from symattn.problem.problem import Problem

a, b = sympy.symbols("a b", real=True)


def problem_of(inputs, **options):
    return Problem.from_mapping({"inputs": inputs, "options": options})


def as_sympy(value):
    """An engine value (fmpq, SymPy wrapper, -oo, nan) as a SymPy expression."""
    if isinstance(value, fmpq):
        return sympy.Rational(int(value.p), int(value.q))
    if value is NEG_INF:
        return sympy.S.NegativeInfinity
    if value is NAN:
        return sympy.S.NaN
    return value.expr


def same(x, y) -> bool:
    if x in (sympy.S.NegativeInfinity, sympy.S.NaN) or y in (sympy.S.NegativeInfinity,
                                                             sympy.S.NaN):
        return x == y
    return sympy.simplify(x - y) == 0


def my_attention(Q, K, V, factor, allowed=None):
    """Attention written with SymPy matrices, step by step."""
    Q, K = sympy.Matrix(Q), sympy.Matrix(K)
    scores = Q * K.T
    scaled = scores * factor
    n, m = scaled.shape
    allowed = allowed or [[True] * m for _ in range(n)]
    masked = sympy.Matrix(n, m, lambda i, j: scaled[i, j] if allowed[i][j] else -sympy.oo)
    exp = masked.applyfunc(sympy.exp)
    sums = sympy.Matrix(n, 1, lambda i, _: sum(exp.row(i)))
    weights = sympy.Matrix(n, m, lambda i, j: exp[i, j] / sums[i, 0])
    steps = {"Q": Q, "K": K, "scores": scores, "scaled": scaled, "exp": exp,
             "exp_sum": sums, "weights": weights}
    if not all(all(row) for row in allowed):
        steps["masked"] = masked
    if V is not None:
        steps["V"] = sympy.Matrix(V)
        steps["output"] = weights * sympy.Matrix(V)
    return steps


def check_steps(derivation, mine):
    for name, matrix in mine.items():
        grid = derivation[name].value
        assert grid.shape == matrix.shape, name
        for i in range(matrix.rows):
            for j in range(matrix.cols):
                assert same(as_sympy(grid.exact(i, j)), matrix[i, j]), (name, i, j)


def check_decimals(derivation, mine, digits=30):
    """Closed-form entries: decimals against mpmath evaluation of my expressions."""
    number_format = NumberFormat(digits=digits)
    for name, matrix in mine.items():
        grid = derivation[name].value
        for i in range(matrix.rows):
            for j in range(matrix.cols):
                expected = matrix[i, j]
                text = number_format.format(grid.exact(i, j))
                if expected == -sympy.oo:
                    assert text == "-inf"
                    continue
                with mpmath.workdps(60):
                    value = mpmath.mpf(sympy.N(expected, 60))
                assert_close_to_digits(text, value, digits)


# ------------------------------------------------------------------- roots
def test_sqrt_entries_match_sympy():
    Q = [["sqrt(2)", 1], [0, "sqrt(3)"]]
    K = [[1, 0], ["1/2", "sqrt(2)"], [1, 1]]
    V = [[1, 0], [0, 1], ["sqrt(5)", 2]]
    derivation = derive(problem_of({"Q": Q, "K": K, "V": V}))
    s2, s3, s5 = sympy.sqrt(2), sympy.sqrt(3), sympy.sqrt(5)
    mine = my_attention([[s2, 1], [0, s3]], [[1, 0], [sympy.Rational(1, 2), s2], [1, 1]],
                        [[1, 0], [0, 1], [s5, 2]], 1 / sympy.sqrt(2))
    assert derivation.names == ("Q", "K", "V", "scores", "scaled", "exp", "exp_sum",
                                "weights", "output")
    check_steps(derivation, mine)
    check_decimals(derivation, mine)


def test_sqrt_entries_with_causal_mask():
    Q = [["sqrt(2)", 0], [1, "sqrt(3)"]]
    K = [[1, 1], ["2*sqrt(2)", 0]]
    V = [[1], [2]]
    derivation = derive(problem_of({"Q": Q, "K": K, "V": V}, mask="causal"))
    s2, s3 = sympy.sqrt(2), sympy.sqrt(3)
    mine = my_attention([[s2, 0], [1, s3]], [[1, 1], [2 * s2, 0]], [[1], [2]],
                        1 / sympy.sqrt(2), allowed=[[True, False], [True, True]])
    check_steps(derivation, mine)
    check_decimals(derivation, mine)
    # masked weight exactly 0, the single open weight exactly 1, output row 1 = v_1
    weights = derivation["weights"].value
    assert weights.exact(0, 1) == fmpq(0) and weights.exact(0, 0) == fmpq(1)
    assert derivation["output"].value.exact(0, 0) == fmpq(1)


def test_sum_of_roots_in_scaled_scores():
    derivation = derive(problem_of({"scaled": [["sqrt(2) + sqrt(3)", "1 - sqrt(2)", 0]]}))
    x, y = sympy.sqrt(2) + sympy.sqrt(3), 1 - sympy.sqrt(2)
    total = sympy.exp(x) + sympy.exp(y) + 1
    for j, expected in enumerate([sympy.exp(x) / total, sympy.exp(y) / total, 1 / total]):
        assert same(as_sympy(derivation["weights"].value.exact(0, j)), expected)
    mine = {"weights": sympy.Matrix([[sympy.exp(x) / total, sympy.exp(y) / total, 1 / total]])}
    check_decimals(derivation, mine, digits=40)


def test_symbolic_temperature_with_roots():
    derivation = derive(problem_of({"Q": [[1, 2]], "K": [[1, 0], [0, 1]], "V": [[3], [4]]},
                                   temperature="1 + sqrt(2)"))
    factor = 1 / sympy.sqrt(2) / (1 + sympy.sqrt(2))
    mine = my_attention([[1, 2]], [[1, 0], [0, 1]], [[3], [4]], factor)
    check_steps(derivation, mine)
    check_decimals(derivation, mine)


# -------------------------------------------------------------- identifiers
def test_identifiers_stay_symbolic():
    derivation = derive(problem_of({"Q": [["a", 1]], "K": [[1, 0], [0, "b"]],
                                    "V": [[1], [2]]}, scale="none"))
    mine = my_attention([[a, 1]], [[1, 0], [0, b]], [[1], [2]], 1)
    check_steps(derivation, mine)
    # weights: e^a / (e^a + e^b), e^b / (e^a + e^b)
    w = as_sympy(derivation["weights"].value.exact(0, 0))
    assert same(w, sympy.exp(a) / (sympy.exp(a) + sympy.exp(b)))
    # no decimals for expressions with free symbols; numbers still have them
    number_format = NumberFormat(digits=6)
    assert number_format.format(derivation["weights"].value.exact(0, 0)) is None
    assert number_format.format(derivation["K"].value.exact(0, 0)) == "1.00000"


def test_identifier_values_substitute_to_the_numeric_answer():
    derivation = derive(problem_of({"Q": [["w_11", "w_12"]], "K": [[1, 0], [0, 1], [1, 1]],
                                    "V": [[1, 0], [0, 1], [1, 1]]}))
    w11, w12 = sympy.symbols("w_11 w_12", real=True)
    values = {w11: sympy.Rational(3, 10), w12: -2}
    scores = [values[w11], values[w12], values[w11] + values[w12]]
    exps = [sympy.exp(s / sympy.sqrt(2)) for s in scores]
    for j in range(3):
        got = as_sympy(derivation["weights"].value.exact(0, j)).subs(values)
        assert sympy.simplify(got - exps[j] / sum(exps)) == 0
    out = as_sympy(derivation["output"].value.exact(0, 1)).subs(values)
    assert sympy.simplify(out - (exps[1] + exps[2]) / sum(exps)) == 0


def test_equal_symbolic_scores_give_exactly_one_over_count():
    derivation = derive(problem_of({"Q": [["a", "a", "a"]], "K": [[1, 0, 0], [0, 1, 0],
                                                                  [0, 0, 1]],
                                    "V": [[1], [2], [6]]}))
    weights = derivation["weights"].value
    assert [weights.exact(0, j) for j in range(3)] == [fmpq(1, 3)] * 3
    assert derivation["output"].value.exact(0, 0) == fmpq(3)


def test_symbolic_sum_normalisation():
    derivation = derive(problem_of({"scaled": [["a", "2*a", "-inf"]]}, normalisation="sum"))
    weights = derivation["weights"].value
    assert same(as_sympy(weights.exact(0, 0)), sympy.Rational(1, 3))
    assert same(as_sympy(weights.exact(0, 1)), sympy.Rational(2, 3))
    assert weights.exact(0, 2) == fmpq(0)


def test_symbolic_fully_masked_policies():
    inputs = {"scaled": [["a", 1], ["-inf", "-inf"]]}
    with pytest.raises(InputError, match="row 2"):
        derive(problem_of(inputs))
    nan = derive(problem_of(inputs, fully_masked="nan"))["weights"].value
    assert nan.exact(1, 0) is NAN and nan.exact(1, 1) is NAN
    zeros = derive(problem_of(inputs, fully_masked="zeros"))["weights"].value
    assert zeros.exact(1, 0) == fmpq(0) and zeros.exact(1, 1) == fmpq(0)
    assert same(as_sympy(zeros.exact(0, 0)), sympy.exp(a) / (sympy.exp(a) + sympy.E))
