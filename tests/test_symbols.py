"""What a reader asks of a symbol ([symbols], derive --limit/--derivative/--subs).

Expected values are computed here, independently of the engine: the arg-max rows
and uniform rows from the scores with fractions, the derivative with mpmath's
numeric differentiation, the substituted weights from the numeric derivation
with T given as a number and from mpmath.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest
import sympy

import symattn
from symattn import messages
from symattn.derivation.pipeline import derive
from symattn.errors import InputError
from symattn.problem.problem import Problem
from cli_support import assert_one_line_error, run

EXAMPLE = "003-entropy-temperature-symbolic"
# Q and K of the example, d_k = 4 (scale 1/2 on top of 1/T)
Q = [[3, 0.2, 0, 0], [0, 2.8, 0, 0.3], [0.2, 0, 3, 0], [0, 0.3, 0, 2.9], [-3, 0, 1.2, 0],
     [0, -2.8, 0, 1.2]]
K = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 0.5, 0], [0, -1, 0, 0.5]]


def _scores() -> list[list[Fraction]]:
    """The example's scaled scores without T: q . k / 2, in fractions."""
    return [[sum(Fraction(str(q[t])) * Fraction(str(k[t])) for t in range(4)) / 2 for k in K]
            for q in Q]


@pytest.fixture(scope="module")
def example() -> symattn.Derivation:   # type: ignore[name-defined]
    return derive(symattn.load_example(EXAMPLE))


def _value(derivation, name: str, i: int, j: int) -> sympy.Expr:  # type: ignore[no-untyped-def]
    return sympy.sympify(derivation[name].value.exact(i, j).to_sympy()) \
        if hasattr(derivation[name].value.exact(i, j), "to_sympy") else \
        sympy.Rational(str(derivation[name].value.exact(i, j)))


def test_limit_to_zero_is_the_arg_max_row(example) -> None:  # type: ignore[no-untyped-def]
    scores = _scores()
    for i, row in enumerate(scores):
        top = max(row)
        winners = [j for j, s in enumerate(row) if s == top]
        assert len(winners) == 1           # each query has one clearly matching key
        for j in range(6):
            assert _value(example, "weights_to_zero_T", i, j) == (1 if j in winners else 0)


def test_limit_to_infinity_is_the_uniform_row(example) -> None:  # type: ignore[no-untyped-def]
    for i in range(6):
        for j in range(6):
            assert _value(example, "weights_to_infinity_T", i, j) == sympy.Rational(1, 6)


def test_limits_with_ties_and_a_causal_mask() -> None:
    # row 1 sees key 1 only; row 2 has a tie (3, 3): half and half; row 3: the largest 5
    scores = [[1, 7, 2], [3, 3, 0], [0, 5, -5]]
    problem = Problem.from_mapping({
        "inputs": {"scores": scores},
        "options": {"scale": "none", "temperature": "T", "mask": "causal"},
        "symbols": {"limits": ["T -> 0+", "T -> oo"]}})
    d = derive(problem)
    expected_zero = [[1, 0, 0], [Fraction(1, 2), Fraction(1, 2), 0], [0, 1, 0]]
    expected_oo = [[Fraction(1, i + 1) if j <= i else 0 for j in range(3)] for i in range(3)]
    for i in range(3):
        for j in range(3):
            assert _value(d, "weights_to_zero_T", i, j) == sympy.Rational(
                str(expected_zero[i][j]))
            assert _value(d, "weights_to_infinity_T", i, j) == sympy.Rational(
                str(expected_oo[i][j]))


def _mp_weight(scores: list[list[Fraction]], i: int, j: int, t: mpmath.mpf) -> mpmath.mpf:
    row = [mpmath.mpf(s.numerator) / s.denominator for s in scores[i]]
    exps = [mpmath.exp(s / t) for s in row]
    return exps[j] / mpmath.fsum(exps)


def test_derivative_matches_numeric_differentiation(example) -> None:  # type: ignore[no-untyped-def]
    scores = _scores()
    mpmath.mp.dps = 40
    at = sympy.Rational(7, 10)
    for i in range(6):
        for j in (0, i, 5):
            expr = _value(example, "weights_derivative_T", i, j)
            (symbol,) = expr.free_symbols
            ours = mpmath.mpf(str(sympy.N(expr.subs(symbol, at), 40)))
            numeric = mpmath.diff(lambda t, i=i, j=j: _mp_weight(scores, i, j, t),
                                  mpmath.mpf(7) / 10)
            assert abs(ours - numeric) < mpmath.mpf(10) ** -25, (i, j, ours, numeric)


def test_subs_matches_the_numeric_derivation(example) -> None:  # type: ignore[no-untyped-def]
    numeric = derive(Problem.from_mapping({
        "inputs": {"Q": [[str(x) for x in r] for r in Q], "K": [[str(x) for x in r] for r in K],
                   "V": [[1, 0]] * 6},
        "options": {"temperature": "0.5"}}))
    scores = _scores()
    mpmath.mp.dps = 40
    for i in range(6):
        for j in range(6):
            ours = example["weights_subs"].value.ball(i, j, 128)
            theirs = numeric["weights"].value.ball(i, j, 128)
            assert ours is not None and theirs is not None
            assert ours.overlaps(theirs)
            assert float(ours.rad()) < 1e-30
            mid = mpmath.mpf(ours.mid().str(35, radius=False))
            assert abs(mid - _mp_weight(scores, i, j, mpmath.mpf("0.5"))) < mpmath.mpf(10) ** -30


def test_cli_options_add_to_the_spec(capsys) -> None:  # type: ignore[no-untyped-def]
    status, out, err = run(capsys, "derive", "--example", "003-entropy-temperature",
                           "--format", "json")
    assert status == 0
    # the numeric example has no symbol: asking about T is a clear error
    status, out, err = run(capsys, "derive", "--example", "003-entropy-temperature",
                           "--limit", "T->0+")
    assert status == 2
    assert_one_line_error(err, "--limit", "'T' is not a symbol")
    status, out, err = run(capsys, "derive", "--example", EXAMPLE, "--subs", "T=2",
                           "--format", "json")
    assert status == 0, err
    steps = {step["name"]: step for step in json.loads(out)["steps"]}
    assert "weights_to_zero_T" in steps and "weights_derivative_T" in steps
    # at T = 2, row 1: exp(z/2) over the row, z the scaled scores
    scores = _scores()
    mpmath.mp.dps = 30
    expected = _mp_weight(scores, 0, 0, mpmath.mpf(2))
    assert steps["weights_subs"]["value"][0][0] == mpmath.nstr(expected, 6)


@pytest.mark.parametrize("argv, parts", [
    (["--limit", "T to 0"], ["--limit", "NAME -> 0+"]),
    (["--limit", "x->oo"], ["--limit", "'x' is not a symbol"]),
    (["--derivative", "S"], ["--derivative", "'S'"]),
    (["--subs", "T=a+1"], ["--subs", "must be a number"]),
    (["--subs", "T=__import__('os')"], ["--subs"]),
    (["--subs", "T"], ["--subs", "NAME=VALUE"]),
    (["--subs", "T=0"], ["symbols.subs", "no value"]),
])
def test_cli_bad_questions(capsys, argv, parts) -> None:  # type: ignore[no-untyped-def]
    status, out, err = run(capsys, "derive", "--example", EXAMPLE, *argv)
    assert status == 2
    assert_one_line_error(err, *parts)


@pytest.mark.parametrize("table, key", [
    ({"limits": ["T -> 1"]}, "symbols.limits"),
    ({"limits": "T -> 0+", "derivative": 3}, "symbols.derivative"),
    ({"subs": {"U": "1"}}, "symbols.subs.U"),
    ({"subs": "T=1"}, "symbols.subs"),
    ({"limit": []}, "symbols.limit"),
])
def test_spec_errors_name_the_key(table, key) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as caught:
        Problem.from_mapping({"inputs": {"scores": [[1, 2]]},
                              "options": {"scale": "none", "temperature": "T"},
                              "symbols": table}, source="s.toml")
    assert caught.value.location is not None
    assert caught.value.location.key == key
    assert caught.value.location.file == "s.toml"


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_every_language_names_the_steps(capsys, language: str) -> None:  # type: ignore[no-untyped-def]
    catalog = messages.load(language)
    status, out, err = run(capsys, "derive", "--example", EXAMPLE, "--format", "markdown",
                           "--language", language)
    assert status == 0, err
    out = out.replace("\u00a0", " ").replace("~", " ")    # a tie is a no-break space
    for kind in ("to_zero", "to_infinity", "derivative"):
        assert catalog.fill(f"symbols.heading.{kind}", symbol="T").replace("~", " ") in out
    assert catalog.fill("symbols.heading.subs", at="T = 1/2") in out
    assert "weights_" not in out and "->" not in out
