"""The SymPy path's softmax rows (derivation.sympy_rows) write correct closed forms.

Every closed form the derivation writes for a spec with one symbol (a temperature
T; a weight a in V; a weight a in Q) is read back by symattn's own parser (never
sympify), the symbol is given a number, and the result is evaluated with mpmath at
40 digits. It is compared with attention computed here with mpmath from the spec's
matrices, and with the numeric derivation of the same spec with the number in
place of the symbol (certified balls). Exact results are checked against
fractions: equal scores give weights 1/m, equal values give their value.
"""

from __future__ import annotations

import json
import random
import time
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy
from flint import fmpq

import symattn
from symattn.derivation.pipeline import derive
from symattn.explore.kvcache import decode
from symattn.problem.problem import Problem
from symattn.values.closed_forms import closed_form_to_sympy

DIGITS = 40


def _matrix(rng: random.Random, rows: int, columns: int) -> list[list[str]]:
    return [[f"{rng.randint(-99, 99) / 100:.2f}" for _ in range(columns)] for _ in range(rows)]


def _spec(n: int = 5, d: int = 8, seed: int = 7) -> dict:  # type: ignore[type-arg]
    """Random two-digit matrices (d = 8: the scale 1/sqrt(8) is irrational), with key 2
    a copy of key 1 (equal scores in every row) and a V column of equal values."""
    rng = random.Random(seed)
    q, k, v = _matrix(rng, n, d), _matrix(rng, n, d), _matrix(rng, n, d)
    k[1] = list(k[0])
    for row in v:
        row[2] = "0.46"
    return {"inputs": {"Q": q, "K": k, "V": v}, "options": {"mask": "causal"}}


def _mp(text: str) -> mpmath.mpf:
    return mpmath.mpf(Fraction(text).numerator) / Fraction(text).denominator


def _mp_attention(spec: dict, t: mpmath.mpf, a: mpmath.mpf | None = None  # type: ignore[type-arg]
                  ) -> tuple[list[list[mpmath.mpf]], list[list[mpmath.mpf]]]:
    """Causal softmax(Q K^T / (sqrt(d) T)) and its product with V, in mpmath."""
    def entry(x: str) -> mpmath.mpf:
        return a if x == "a" else _mp(x)

    q, k, v = ([[entry(x) for x in row] for row in spec["inputs"][name]] for name in "QKV")
    d = len(q[0])
    weights, outputs = [], []
    for i, query in enumerate(q):
        scores = [mpmath.fsum(x * y for x, y in zip(query, key)) / (mpmath.sqrt(d) * t)
                  for key in k[: i + 1]]
        exps = [mpmath.exp(s) for s in scores]
        row = [e / mpmath.fsum(exps) for e in exps] + [mpmath.mpf(0)] * (len(k) - i - 1)
        weights.append(row)
        outputs.append([mpmath.fsum(w * v[j][c] for j, w in enumerate(row))
                        for c in range(len(v[0]))])
    return weights, outputs


def _at(text: str, name: str, value: mpmath.mpf) -> mpmath.mpf:
    """A closed form's text read back, ``name`` set to ``value``, evaluated with mpmath."""
    expr = closed_form_to_sympy(text)
    symbols = [s for s in expr.free_symbols if s.name == name]
    assert len(expr.free_symbols) == len(symbols) <= 1, text
    function = sympy.lambdify(symbols, expr, "mpmath")
    return mpmath.mpf(function(*([value] if symbols else [])))


def _close(x: mpmath.mpf, y: mpmath.mpf) -> bool:
    return bool(abs(x - y) <= mpmath.mpf(10) ** -(DIGITS - 5) * max(1, abs(y)))


def _ball_holds(grid, i: int, j: int, x: mpmath.mpf) -> bool:  # type: ignore[no-untyped-def]
    ball = grid.ball(i, j, 200)
    mid = mpmath.mpf(ball.mid().str(60, radius=False))
    rad = mpmath.mpf(ball.rad().str(5, radius=False))
    return bool(abs(mid - x) <= rad + mpmath.mpf(10) ** -(DIGITS - 5))


def _numeric(spec: dict, **replaced: str) -> symattn.Derivation:  # type: ignore[type-arg,name-defined]
    """The spec with the symbol replaced by a number (the rational path)."""
    numeric = json.loads(json.dumps(spec))
    for name in "QKV":
        numeric["inputs"][name] = [[replaced.get(x, x) for x in row]
                                   for row in numeric["inputs"][name]]
    if "temperature" in replaced:
        numeric["options"]["temperature"] = replaced["temperature"]
    return derive(Problem.from_mapping(numeric))


def _check(symbolic, numeric, name: str, value: mpmath.mpf,  # type: ignore[no-untyped-def]
           weights: list[list[mpmath.mpf]], outputs: list[list[mpmath.mpf]]) -> None:
    for step, expected in (("weights", weights), ("output", outputs)):
        grid = symbolic[step].value
        for i in range(grid.shape[0]):
            for j in range(grid.shape[1]):
                ours = _at(grid.text(i, j), name, value)
                assert _close(ours, expected[i][j]), (step, i, j, grid.text(i, j))
                assert _ball_holds(numeric[step].value, i, j, ours), (step, i, j)
                expr = symattn.to_sympy(grid.exact(i, j))    # the expression, not the text
                held = sympy.N(expr.subs({s: sympy.Rational(str(value)) for s in
                                          expr.free_symbols}), DIGITS)
                assert _close(mpmath.mpf(str(held)), expected[i][j]), (step, i, j)


@pytest.mark.parametrize("t", ["0.5", "2"])
def test_temperature_closed_forms_at_numbers(t: str) -> None:
    mpmath.mp.dps = DIGITS + 10
    spec = _spec()
    spec["options"]["temperature"] = "T"
    symbolic = derive(Problem.from_mapping(spec))
    weights, outputs = _mp_attention(spec, _mp(t))
    _check(symbolic, _numeric(spec, temperature=t), "T", _mp(t), weights, outputs)
    for i in range(5):   # the row sums too: the exponentials of the open keys
        total = _at(symbolic["exp_sum"].value.text(i, 0), "T", _mp(t))
        assert _close(total, mpmath.fsum(mpmath.exp(_at(symbolic["masked"].value.text(i, j),
                                                        "T", _mp(t))) for j in range(i + 1)))


@pytest.mark.parametrize("where, a", [("V", "0.25"), ("V", "-2"), ("Q", "0.25"), ("Q", "-2")])
def test_weight_symbol_closed_forms_at_numbers(where: str, a: str) -> None:
    mpmath.mp.dps = DIGITS + 10
    spec = _spec(seed=11)
    spec["inputs"][where][3][1] = "a"
    spec["inputs"][where][4][0] = "a"
    symbolic = derive(Problem.from_mapping(spec))
    assert any("a" in symbolic["output"].value.text(i, c) for i in range(5) for c in range(8))
    weights, outputs = _mp_attention(spec, mpmath.mpf(1), _mp(a))
    _check(symbolic, _numeric(spec, a=a), "a", _mp(a), weights, outputs)


def test_equal_scores_and_equal_values_stay_exact() -> None:
    spec = _spec()
    spec["options"]["temperature"] = "T"
    d = derive(Problem.from_mapping(spec))
    weights, output = d["weights"].value, d["output"].value
    # row 2 sees keys 1 and 2 only, with equal scores: 1/2 each, and the output is
    # the mean of V's rows 1 and 2, exactly
    assert weights.exact(1, 0) == weights.exact(1, 1) == fmpq(1, 2)
    for c in range(8):
        mean = (Fraction(spec["inputs"]["V"][0][c]) + Fraction(spec["inputs"]["V"][1][c])) / 2
        assert output.exact(1, c) == fmpq(mean.numerator, mean.denominator)
    # column 3 of V is 0.46 throughout: every output entry of it is 23/50, not a quotient
    assert all(output.exact(i, 2) == fmpq(23, 50) for i in range(5))
    assert "T" in output.text(4, 0)


def test_a_row_sum_is_written_key_by_key() -> None:
    spec = _spec()
    spec["options"]["temperature"] = "T"
    d = derive(Problem.from_mapping(spec))
    for i in range(2, 5):    # rows with keys of different scores
        exps = [d["exp"].value.text(i, j) for j in range(i + 1)]
        assert d["exp_sum"].value.text(i, 0) == " + ".join(exps)
        assert d["weights"].value.text(i, 2) == f"{exps[2]}/({' + '.join(exps)})"


def test_kvcache_rows_match_the_full_derivation_with_symbols() -> None:
    spec = _spec(n=4, d=4)
    spec["options"]["temperature"] = "T"
    spec["inputs"]["V"][2][1] = "a"
    steps = decode(Problem.from_mapping(spec))
    assert all(step.equal for step in steps)
    assert any("a" in text for step in steps for text in step.texts)


def _benchmark_spec(folder: Path, n: int, d: int) -> Path:
    """The benchmark's spec (benchmarks.table.attention_spec) with temperature T."""
    rng = random.Random(n * 1000 + d)
    spec = {"title": f"bench {n}x{d}",
            "inputs": {"Q": _matrix(rng, n, d), "K": _matrix(rng, n, d), "V": _matrix(rng, n, d)},
            "options": {"mask": "causal", "temperature": "T"}}
    path = folder / "symbolic.json"
    path.write_text(json.dumps(spec), encoding="utf-8")
    return path


@pytest.mark.slow
def test_sixteen_tokens_with_a_symbol_derive_in_time(tmp_path: Path) -> None:
    """16 tokens x d 16 with a symbolic temperature: seconds (it took a minute), bounded
    generously for a loaded machine."""
    problem = symattn.load(_benchmark_spec(tmp_path, 16, 16))
    start = time.process_time()
    derivation = derive(problem)
    text = symattn.render_text(derivation)
    assert time.process_time() - start < 30
    assert "T" in derivation["output"].value.text(15, 15) and text


@pytest.mark.parametrize("a", [Fraction(1, 4), Fraction(-2)])
def test_division_by_the_row_sum_with_a_symbol(a: Fraction) -> None:
    """normalisation = "sum": weights z_j / sum_k z_k; at a number, exact fractions."""
    scaled = [["a", 1, 2], [1, "a", "-a"], [3, -1, "2*a"]]
    values = [[1, "-1/2"], [0, 2], ["a", 3]]
    spec = {"inputs": {"scaled": scaled, "V": values}, "options": {"normalisation": "sum"}}
    d = derive(Problem.from_mapping(spec))

    def number(x: object) -> Fraction:
        return a if x == "a" else -a if x == "-a" else 2 * a if x == "2*a" else Fraction(str(x))

    for i, row in enumerate(scaled):
        z = [number(x) for x in row]
        weights = [x / sum(z) for x in z]
        outputs = [sum(w * number(v[c]) for w, v in zip(weights, values)) for c in range(2)]
        for step, expected in (("weights", weights), ("output", outputs)):
            for j, want in enumerate(expected):
                text = d[step].value.text(i, j)
                got = closed_form_to_sympy(text).subs(sympy.Symbol("a", real=True),
                                                      sympy.Rational(a.numerator, a.denominator))
                assert got == sympy.Rational(want.numerator, want.denominator), (step, i, j, text)


@pytest.mark.parametrize("to_zero", [True, False])
def test_limits_of_softmax_rows_agree_with_sympy_limit(to_zero: bool) -> None:
    """The weights' limits read from their form (symbols.softmax_limit) are SymPy's."""
    from symattn.derivation.symbols import softmax_limit

    spec = _spec(n=4)
    spec["options"]["temperature"] = "T"
    spec["inputs"]["K"][3] = list(spec["inputs"]["K"][2])     # a tie in row 4 as well
    weights = derive(Problem.from_mapping(spec))["weights"].value
    found = 0
    for i in range(4):
        for j in range(4):
            expr = symattn.to_sympy(weights.exact(i, j))
            (symbol,) = expr.free_symbols or {sympy.Symbol("T", real=True)}
            ours = softmax_limit(expr, symbol, to_zero)
            assert ours is not None
            found += ours != 0
            assert ours == sympy.limit(expr, symbol, 0 if to_zero else sympy.oo,
                                       "+" if to_zero else "-"), (i, j)
    assert found >= 4


def test_derivatives_of_softmax_rows_agree_with_sympy_diff() -> None:
    """The weights' derivatives written from their form (symbols.softmax_derivative) are
    SymPy's derivatives: equal at T = 7/10 and T = 3 to 30 digits."""
    from symattn.derivation.symbols import softmax_derivative

    spec = _spec(n=4)
    spec["options"]["temperature"] = "T"
    weights = derive(Problem.from_mapping(spec))["weights"].value
    for i in range(4):
        for j in range(i + 1):
            expr = symattn.to_sympy(weights.exact(i, j))
            (symbol,) = expr.free_symbols or {sympy.Symbol("T", real=True)}
            ours, theirs = softmax_derivative(expr, symbol), sympy.diff(expr, symbol)
            for t in (sympy.Rational(7, 10), sympy.Integer(3)):
                assert abs(sympy.N((ours - theirs).subs(symbol, t), 40)) < 1e-30, (i, j)
            assert i < 2 or ours != 0      # rows 1 and 2 have equal scores only
