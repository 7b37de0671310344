"""Positions on the fast path (derivation.position_values, position_grids, values.trig).

Every number is checked against a computation written here: mpmath at 60
digits for sines, cosines, softmax and the output, rounded with Python's
decimal module; exact forms against what trigonometry says by hand.
"""

from __future__ import annotations

import random
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal, localcontext

import mpmath
import pytest
from flint import fmpq

from symattn import NumberFormat
from symattn.derivation import pipeline
from symattn.derivation.position_values import PositionValues
from symattn.errors import InputError
from symattn.problem.problem import Problem
from symattn.values.trig import RootBasis, TrigSum

DIGITS = 30
FORMAT = NumberFormat(digits=DIGITS)


def problem_of(inputs, **options):
    return Problem.from_mapping({"inputs": inputs, "options": options})


def derive(problem):
    return pipeline.derive(problem)


def rounded(value: mpmath.mpf, digits: int = DIGITS) -> Decimal:
    """``value`` to ``digits`` significant digits, half up (from 20 digits more)."""
    with localcontext() as context:
        context.prec = digits
        context.rounding = ROUND_HALF_UP
        return +Decimal(mpmath.nstr(value, digits + 20, strip_zeros=False))


def assert_digits(text: str, value: mpmath.mpf) -> None:
    assert Decimal(text) == rounded(value), (text, value)


# ------------------------------------------------ the reference, with mpmath
def frequencies(width, base):
    return [mpmath.mpf(base) ** (mpmath.mpf(-2 * (c // 2)) / width) for c in range(width)]


def encoding(rows, width, base=10000):
    w = frequencies(width, base)
    return [[mpmath.sin(p * w[c]) if c % 2 == 0 else mpmath.cos(p * w[c])
             for c in range(width)] for p in range(rows)]


def matmul(a, b):
    return [[mpmath.fsum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))]
            for i in range(len(a))]


def transpose(a):
    return [list(column) for column in zip(*a)]


def numbers(rows):
    return [[mpmath.mpf(fmpq_text(x)) if isinstance(x, str) else mpmath.mpf(x) for x in row]
            for row in rows]


def fmpq_text(text):
    p, _, q = text.partition("/")
    return mpmath.mpf(int(p)) / int(q or 1)


def rope(matrix, base=10000):
    width = len(matrix[0])
    w = frequencies(width, base)
    out = []
    for p, row in enumerate(matrix):
        new = list(row)
        for c in range(0, width - 1, 2):
            angle = p * w[c]
            x, y = row[c], row[c + 1]
            new[c] = x * mpmath.cos(angle) - y * mpmath.sin(angle)
            new[c + 1] = x * mpmath.sin(angle) + y * mpmath.cos(angle)
        out.append(new)
    return out


def attention(q, k, v, causal):
    d = len(k[0])
    scores = matmul(q, transpose(k))
    weights, output = [], []
    for i, row in enumerate(scores):
        keys = range(i + 1) if causal else range(len(row))
        z = [row[j] / mpmath.sqrt(d) for j in keys]
        top = max(z)
        e = [mpmath.exp(x - top) for x in z]
        total = mpmath.fsum(e)
        w = [x / total for x in e] + [mpmath.mpf(0)] * (len(row) - len(e))
        weights.append(w)
    output = matmul(weights, v)
    return scores, weights, output


X = [[1, "-1/2", 0, 2], ["3/4", 0, -1, 1], [0, 1, "1/3", 0], [2, "-3/2", 1, "1/5"],
     ["-1/4", "1/2", "2/3", -1]]
W_Q = [[1, 0, "1/2", 0], [0, 1, 0, -1], ["1/3", 0, 1, 0], [0, "1/4", 0, 1]]
W_K = [[0, 1, 0, 0], [1, 0, 0, "1/2"], [0, 0, 1, 0], ["-1/2", 0, 0, 1]]
W_V = [[1, 0], [0, 1], [1, 1], [0, "-1/2"]]


@pytest.fixture(scope="module", autouse=True)
def precision():
    with mpmath.workdps(60):
        yield


# ----------------------------------------------------- values against mpmath
def test_sinusoidal_attention_agrees_with_mpmath_to_30_digits():
    derivation = derive(problem_of({"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
                                   positions="sinusoidal", mask="causal"))
    x = [[a + b for a, b in zip(row, pe)] for row, pe in zip(numbers(X), encoding(5, 4))]
    q, k, v = matmul(x, numbers(W_Q)), matmul(x, numbers(W_K)), matmul(x, numbers(W_V))
    scores, weights, output = attention(q, k, v, causal=True)
    for name, expected in (("PE", encoding(5, 4)), ("X_pos", x), ("Q", q), ("K", k),
                           ("V", v), ("scores", scores), ("weights", weights),
                           ("output", output)):
        grid = derivation[name].value
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                assert_digits(FORMAT.format(grid.exact(i, j)), expected[i][j])


def test_rope_attention_agrees_with_mpmath_to_30_digits():
    derivation = derive(problem_of({"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
                                   positions="rope", position_base=100))
    x = numbers(X)
    q = rope(matmul(x, numbers(W_Q)), 100)
    k = rope(matmul(x, numbers(W_K)), 100)
    scores, weights, output = attention(q, k, matmul(x, numbers(W_V)), causal=False)
    for name, expected in (("Q_rot", q), ("K_rot", k), ("scores", scores),
                           ("weights", weights), ("output", output)):
        grid = derivation[name].value
        block = FORMAT.format_block(grid, grid.rows(), grid.columns())   # the batch path
        for i in grid.rows():
            for j in grid.columns():
                assert_digits(block[i][j], expected[i][j])


def test_many_digits_refine_the_precision():
    # 200 significant digits: far beyond the first working precision of the balls
    derivation = derive(problem_of({"X": X[:3], "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
                                   positions="sinusoidal"))
    fmt = NumberFormat(digits=200)
    with mpmath.workdps(260):
        x = [[a + b for a, b in zip(row, pe)] for row, pe in zip(numbers(X[:3]),
                                                                  encoding(3, 4))]
        _, weights, _ = attention(matmul(x, numbers(W_Q)), matmul(x, numbers(W_K)),
                                  matmul(x, numbers(W_V)), causal=False)
        expected = rounded(weights[2][1], 200)
    assert Decimal(fmt.format(derivation["weights"].value.exact(2, 1))) == expected


def test_an_irrational_frequency_is_exact_and_certified():
    derivation = derive(problem_of({"X": [[0] * 6] * 3, "W_Q": "identity",
                                    "W_K": "identity"}, positions="sinusoidal"))
    pe = derivation["PE"].value
    assert pe.text(1, 2) == "sin(10**(2/3)/100)"     # 10000^(-2/6)
    assert pe.text(2, 5) == "cos(10**(1/3)/500)"     # 2 * 10000^(-4/6) = 2 * 10^(-3 + 1/3)
    assert_digits(FORMAT.format(pe.exact(2, 5)), encoding(3, 6)[2][5])


def test_same_digits_as_the_sympy_path():
    problem = problem_of({"X": X[:4], "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
                         positions="sinusoidal", normalisation="sum", scale="1/2")
    fast, slow = derive(problem), pipeline.derive(problem, sympy_positions=True)
    for name in ("scores", "scaled", "weights", "output"):
        a, b = fast[name].value, slow[name].value
        assert [[FORMAT.format(a.exact(i, j)) for j in a.columns()] for i in a.rows()] == \
            [[FORMAT.format(b.exact(i, j)) for j in b.columns()] for i in b.rows()], name


# ------------------------------------------------------------- exact decisions
def test_position_zero_is_exact():
    derivation = derive(problem_of({"X": X, "W_Q": W_Q, "W_K": W_K, "W_V": W_V},
                                   positions="sinusoidal", mask="causal"))
    pe = derivation["PE"].value
    assert [pe.exact(0, c) for c in range(4)] == [0, 1, 0, 1]    # sin 0, cos 0
    assert all(isinstance(pe.exact(0, c), type(fmpq(0))) for c in range(4))
    assert FORMAT.format(pe.exact(0, 0)) == "0"
    # row 0 of X_pos, Q and V is rational; the first query sees only itself: O[0] = V[0]
    assert derivation["X_pos"].value.exact(0, 1) == fmpq(1, 2)       # -1/2 + cos 0
    assert derivation["weights"].value.exact(0, 0) == 1
    assert derivation["output"].value.exact(0, 0) == derivation["V"].value.exact(0, 0)
    assert isinstance(derivation["output"].value.exact(0, 1), type(fmpq(0)))


def test_sin_squared_plus_cos_squared_is_one_exactly():
    derivation = derive(problem_of({"X": [[0] * 4] * 3, "W_Q": "identity",
                                    "W_K": "identity"}, positions="sinusoidal"))
    scores = derivation["scores"].value
    assert [scores.exact(p, p) for p in range(3)] == [2, 2, 2]      # two pairs, each 1
    assert scores.text(2, 1) == "cos(1/100) + cos(1)"               # cos(a - b) per pair


def test_rope_scores_depend_on_the_distance_and_equal_rows_are_uniform():
    derivation = derive(problem_of({"Q": [[1, 2, 0, 1]] * 4, "K": [[3, -1, 1, 1]] * 4,
                                    "V": [[1], [2], [3], [4]]}, positions="rope"))
    scores = derivation["scores"].value
    assert scores.exact(1, 1) == 1 + 1 and scores.text(3, 1) == scores.text(2, 0)
    assert scores.text(1, 0) == "cos(1/100) - sin(1/100) + cos(1) - 7*sin(1)"
    zero = derive(problem_of({"Q": [[0, 0]] * 3, "K": [[1, 2]] * 3, "V": [[1], [2], [6]]},
                             positions="rope"))
    assert [zero["weights"].value.exact(1, j) for j in range(3)] == [fmpq(1, 3)] * 3
    assert zero["output"].value.exact(2, 0) == 3                    # the mean of V


def test_equal_angles_are_collected_exactly():
    # K takes the pairs of X_pos in swapped order: S[p, q] = cos(p - q/100) + cos(p/100 - q)
    swap = [[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]]
    derivation = derive(problem_of({"X": [[0] * 4] * 101, "W_Q": "identity", "W_K": swap},
                                   positions="sinusoidal"))
    scores = derivation["scores"].value
    assert scores.text(1, 100) == "1 + cos(9999/100)"     # cos(1 - 100/100) = cos 0 = 1
    assert scores.text(100, 1) == "1 + cos(9999/100)"
    assert_digits(FORMAT.format(scores.exact(1, 100)), 1 + mpmath.cos(mpmath.mpf(9999) / 100))


@pytest.mark.parametrize("seed", range(6))
def test_cheap_irrationality_proofs_agree_with_the_exact_forms(seed):
    rng = random.Random(seed)
    width = rng.choice([2, 4, 6, 8])
    base = rng.choice([1, 100, 10000, 7])
    small = lambda: str(fmpq(rng.randint(-2, 2), rng.randint(1, 2)))   # noqa: E731
    x = [[small() for _ in range(width)] for _ in range(12)]
    w = [[small() if rng.random() < 0.5 else "0" for _ in range(width)] for _ in range(width)]
    for kind in ("sinusoidal", "rope"):
        problem = problem_of({"X": x, "W_Q": w, "W_K": w}, positions=kind, position_base=base)
        values = PositionValues(problem)
        for p in range(12):
            for q in range(12):
                if values.proved_irrational(p, q):
                    assert not values.trig("scores", p, q).is_rational, (kind, p, q)


def test_trig_sums_by_hand():
    basis = RootBasis(10000, 4)
    a, b = basis.frequency(0, 4), basis.frequency(1, 4)           # 1 and 1/100
    sa, ca = TrigSum.trig(basis, a, True), TrigSum.trig(basis, a, False)
    sb = TrigSum.trig(basis, b, True)
    assert (sa * sa + ca * ca) == TrigSum(basis, 1)
    assert (sa * sb).text() == "cos(99/100)/2 - cos(101/100)/2"
    assert TrigSum.trig(basis, (), True).is_rational                 # sin 0 = 0
    assert TrigSum.trig(basis, (), False).constant == 1              # cos 0 = 1


# ------------------------------------------------------------------ no SymPy
def test_rational_positions_do_not_import_sympy():
    code = ("import sys\nfrom symattn import derive, Problem\n"
            "p = Problem.from_mapping({'inputs': {'X': [[1, 0], [0, 1], [1, 1]], "
            "'W_Q': 'identity', 'W_K': 'identity', 'W_V': 'identity'}, "
            "'options': {'positions': 'rope', 'mask': 'causal'}})\n"
            "d = derive(p)\nprint(d['output'].value.text(2, 0)[:20])\n"
            "print('sympy' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip().endswith("False"), result.stdout


def test_symbols_still_take_the_sympy_path():
    derivation = derive(problem_of({"X": [["a", 0], [0, 1]], "W_Q": "identity",
                                    "W_K": "identity"}, positions="sinusoidal"))
    assert type(derivation["scores"].value).__name__ == "SympyGrid"


# --------------------------------------------------------------------- limits
def test_positions_have_their_own_limit():
    from symattn.problem.limits import DEFAULT

    n = DEFAULT.max_position_tokens
    x = [[0, 0]] * (n + 1)
    with pytest.raises(InputError, match="positions.*--max-size"):
        problem_of({"X": x, "W_Q": "identity", "W_K": "identity"}, positions="rope")
    problem = problem_of({"X": [[0, 0]] * n, "W_Q": "identity", "W_K": "identity"},
                         positions="rope")
    assert problem.score_shape() == (n, n)


@pytest.mark.parametrize("inputs, options", [
    # an odd width (a lone last sine), base 1 (every frequency 1), cross-attention
    ({"X": [[1, 0, "1/3", 0, 2], [0, 1, 0, 1, 0], [1, 1, 0, 0, "-1/2"]],
      "X_kv": [[1, 0, 1, 0, 0], [0, 2, 0, 1, 1]], "W_Q": "identity", "W_K": "identity",
      "W_V": [[1, 0], [0, 1], [0, 0], [0, 0], [1, 1]]},
     {"positions": "sinusoidal", "position_base": 1}),
    # RoPE with a causal mask over query positions, a fully masked row, a temperature
    ({"Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [1, 1]], "V": [[1], [2], [3]]},
     {"positions": "rope", "mask": "causal", "query_positions": [1, 1, 2],
      "fully_masked": "nan", "temperature": "1/2"}),
])
def test_edge_cases_give_the_sympy_paths_digits(inputs, options):
    problem = problem_of(inputs, **options)
    fast, slow = derive(problem), pipeline.derive(problem, sympy_positions=True)
    assert fast.names == slow.names
    fmt = NumberFormat(digits=25)
    for name in fast.names:
        a, b = fast[name].value, slow[name].value
        for i in a.rows():
            for j in a.columns():
                assert fmt.format(a.exact(i, j)) == fmt.format(b.exact(i, j)), (name, i, j)


def test_cli_positions_over_the_limit_is_one_line_and_max_size_moves_it(capsys, tmp_path):
    from cli_support import assert_one_line_error, run

    spec = tmp_path / "long.toml"
    rows = ", ".join(["[1, 0]"] * 40)
    spec.write_text(f'[inputs]\nQ = [{rows}]\nK = [{rows}]\n[options]\npositions = "rope"\n',
                    encoding="utf-8")
    status, out, err = run(capsys, "derive", str(spec), "--digits", "3")
    assert status == 0, err
    # --max-size 4096 is 1/1024 of the default: the position bounds shrink by 1/32 (32 tokens)
    status, out, err = run(capsys, "derive", str(spec), "--max-size", "4096")
    assert status == 2 and out == ""
    assert_one_line_error(err, "positions over 40 tokens", "limit for positions is 32 tokens")
