"""The Python API as a pipeline author meets it: native inputs, results as data, errors.

Expected values are computed here independently: Fractions by hand for the
scores, SymPy and NumPy for the softmax, the spec text for the claim lines.
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy

import symattn
from symattn.problem.problem import Problem

ROOT = Path(__file__).resolve().parent.parent

SPEC = """
[inputs]
Q = [[0.1, 0.5], [1.0, -0.25]]
K = [[1, 0], [0.3, 2]]
V = [[1, 2], [3, 4]]
[options]
mask = "causal"
"""
Q_FRACTIONS = [[Fraction(1, 10), Fraction(1, 2)], [Fraction(1), Fraction(-1, 4)]]
K_FRACTIONS = [[Fraction(1), Fraction(0)], [Fraction(3, 10), Fraction(2)]]


def _texts(derivation: symattn.Derivation) -> dict[str, list[list[str]]]:
    return {step.name: [[step.value.text(i, j) for j in range(step.shape[1])]
                        for i in range(step.shape[0])] for step in derivation}


@pytest.mark.parametrize("q", [
    np.array([[0.1, 0.5], [1.0, -0.25]]),
    np.array([[0.1, 0.5], [1.0, -0.25]], dtype=np.float32),   # float32's own shortest repr
    [[0.1, 0.5], [1.0, -0.25]],
    Q_FRACTIONS,
    [[Decimal("0.1"), Decimal("0.50")], [Decimal("1"), Decimal("-0.25")]],
    sympy.Matrix([[sympy.Rational(1, 10), sympy.Rational(1, 2)], [1, sympy.Rational(-1, 4)]]),
    sympy.Matrix([[sympy.Float(0.1), sympy.Float(0.5)], [1, sympy.Float(-0.25)]]),
    ((np.float64(0.1), np.float16(0.5)), (np.int64(1), "-1/4")),
], ids=["numpy", "float32", "floats", "fractions", "decimals", "sympy-rational", "sympy-float",
        "numpy-scalars"])
def test_from_arrays_gives_the_same_exact_steps_as_the_spec(q: object) -> None:
    expected = _texts(symattn.derive(symattn.loads(SPEC)))
    problem = Problem.from_arrays(Q=q, K=np.array([[1, 0], [0.3, 2]]), V=[[1, 2], [3, 4]],
                                  mask="causal")
    assert _texts(symattn.derive(problem)) == expected


def test_the_scores_are_q_times_k_transposed_in_fractions() -> None:
    problem = Problem.from_arrays(Q=Q_FRACTIONS, K=K_FRACTIONS, V=[[1, 2], [3, 4]])
    scores = symattn.derive(problem)["scores"].value.tolist()
    by_hand = [[sum(q * k for q, k in zip(row, key)) for key in K_FRACTIONS]
               for row in Q_FRACTIONS]
    assert scores == by_hand
    assert by_hand[0][1] == Fraction(103, 100)     # 0.1*0.3 + 0.5*2


def test_float_inputs_are_read_by_their_shortest_repr() -> None:
    problem = Problem.from_arrays(scaled=[[0.1, 1e-05, float("-inf")]], V=[[1], [2], [3]],
                                  scale="none")
    row = problem.inputs["scaled"][0]
    assert [Fraction(int(e.value.p), int(e.value.q)) for e in row[:2]] == \
        [Fraction("0.1"), Fraction(1, 100000)]
    assert row[0].places == 1 and str(row[2].value) == "NEG_INF"


def test_sympy_symbols_and_roots_are_converted_structurally() -> None:
    a = sympy.Symbol("a")
    problem = Problem.from_arrays(Q=sympy.Matrix([[a, sympy.sqrt(2) / 2]]), K=[[1, 0], [0, 1]],
                                  V=[[1], [2]])
    scores = symattn.derive(problem)["scores"].value.to_sympy()
    assert sympy.simplify(scores[0, 0] - sympy.Symbol("a", real=True)) == 0
    assert sympy.simplify(scores[0, 1] - sympy.sqrt(2) / 2) == 0


def test_tokens_options_and_claims_from_python() -> None:
    problem = Problem.from_arrays(Q=[[1, 0], [0, 1]], K=[[1, 0], [0, 1]], V=[[1], [2]],
                                  tokens=("a", "b"), temperature=0.5, title="t",
                                  claims={"scores": [[1, 0], [0, 1]]})
    assert problem.tokens == ("a", "b") and str(problem.temperature) == "1/2"
    assert symattn.check(problem).counts["ok"] == 4


@pytest.mark.parametrize("bad, words", [
    (float("nan"), "nan"), (float("inf"), "minus infinity"), (True, "boolean"),
    (sympy.exp(1), "cannot use the SymPy value"), (sympy.pi, "cannot use the SymPy value"),
    (sympy.Symbol("x") ** sympy.Rational(1, 3), "exponents"), (object(), "expected a number"),
    (Decimal("NaN"), "finite"), (np.bool_(True), "boolean"),
])
def test_values_that_are_not_numbers_are_refused_with_their_place(bad: object,
                                                                  words: str) -> None:
    with pytest.raises(symattn.InputError, match=words) as caught:
        Problem.from_arrays(Q=[[1, bad]], K=[[1, 0]], V=[[1]])
    location = caught.value.location
    assert location is not None and (location.key, location.row, location.column) == \
        ("inputs.Q", 1, 2)


def test_an_unknown_keyword_is_named_with_the_likely_one() -> None:
    with pytest.raises(symattn.InputError, match="did you mean `mask`"):
        Problem.from_arrays(Q=[[1]], K=[[1]], V=[[1]], maks="causal")


# ------------------------------------------------------------------ results as data
@pytest.fixture(scope="module")
def cat() -> symattn.Derivation:
    return symattn.derive(symattn.load_example("000-cat-chases-mouse"))


def test_weights_as_sympy_numpy_and_one_based(cat: symattn.Derivation) -> None:
    scaled = cat["scaled"].value.to_sympy()
    weights = cat["weights"].value
    # softmax of row 3 by SymPy, independently of symattn's closed forms
    row = [sympy.exp(scaled[2, j]) for j in range(3)]
    expected = [x / sum(row) for x in row]
    got = weights.to_sympy()
    for j in range(3):
        assert abs(sympy.N(got[2, j] - expected[j], 40)) < sympy.Float("1e-35")
    numbers = np.array([[float(scaled[i, j]) for j in range(3)] for i in range(3)])
    masked = np.where(np.tril(np.ones((3, 3))) > 0, numbers, -np.inf)
    softmax = np.exp(masked) / np.exp(masked).sum(axis=1, keepdims=True)
    assert np.allclose(weights.to_numpy(), softmax, rtol=0, atol=1e-15)
    assert weights.to_numpy(np.float32).dtype == np.float32
    # 1-based at(3, 2) is 0-based [2, 1]: the second weight of the third row
    one_based = symattn.to_sympy(cat["weights"].at(3, 2))
    assert one_based == symattn.to_sympy(weights[2, 1])
    assert abs(sympy.N(one_based - expected[1], 40)) < sympy.Float("1e-35")


def test_short_reprs(cat: symattn.Derivation) -> None:
    report = symattn.check(cat)
    for shown in (repr(cat), repr(cat["weights"]), repr(cat["weights"].value), repr(report),
                  repr(report.verdicts[0]), repr(cat.problem)):
        assert len(shown) < 400, shown
    assert repr(report).startswith("<NotebookReport 'cat chases mouse': 154 claims")
    assert repr(cat["weights"].value) == "<WeightsGrid 3x3>"


def test_to_dict_equals_the_command_lines_json(cat: symattn.Derivation, capsys) -> None:
    from cli_support import run

    status, out, _ = run(capsys, "derive", "--example", "000-cat-chases-mouse", "--format",
                         "json", "--places", "2")
    assert status == 0
    assert cat.to_dict(places=2) == json.loads(out)
    assert json.loads(out)["format"] == {"digits": None, "places": 2, "rounding": "half-up"}


def test_records_and_frame_have_one_row_per_claim(cat: symattn.Derivation) -> None:
    report = symattn.check(cat)
    records = report.to_records()
    assert len(records) == len(report.verdicts) == 154
    for record in records:
        position = record["position"]
        if "[" not in position:                     # the divisor: no row, no column
            assert record["row"] is record["column"] is None
            continue
        numbers = position[position.index("[") + 1:position.index("]")].split(",")
        assert record["row"] == int(numbers[0])
        assert record["column"] == (int(numbers[1]) if len(numbers) == 2 else None)
    frame = report.to_frame()
    assert frame.shape[0] == 154 and list(frame["verdict"]) == [r["verdict"] for r in records]


def test_each_claim_names_its_spec_line() -> None:
    path = ROOT / "symattn" / "examples" / "001-kocka-spi-venku.toml"
    lines = path.read_text(encoding="utf-8").splitlines()
    report = symattn.check(symattn.load(path))
    for record in report.to_records()[:20]:
        key = next(v.claim.key for v in report.verdicts if v.position == record["position"]
                   and v.label == record["label"])
        line = lines[record["line"] - 1]
        assert line.startswith((f'"{key}" =', f"{key} =")), (key, line)


def test_report_displays_as_escaped_html_and_markdown() -> None:
    problem = Problem.from_arrays(Q=[[1, 0]], K=[[1, 0], [0, 1]], V=[[1], [2]],
                                  title="<script>alert(1)</script>",
                                  claims={"scores @ <b>x</b>": [["1", "0"]]})
    report = symattn.check(problem)
    page = report._repr_html_()
    assert "<script>" not in page and "&lt;script&gt;" in page and "<b>x" not in page
    assert page.count("<tr>") == 1 + 2           # the heading row and one per claim
    assert "| " in report._repr_markdown_()


def test_the_renderers_take_the_command_lines_options(cat: symattn.Derivation,
                                                      capsys) -> None:
    from cli_support import run

    status, out, _ = run(capsys, "derive", "--example", "000-cat-chases-mouse", "--places", "3",
                         "--language", "en", "--max-rows", "2")
    assert status == 0
    assert symattn.render_text(cat, places=3, language="en", max_rows=2) == out
    status, out, _ = run(capsys, "check", "--example", "000-cat-chases-mouse", "--format", "json")
    report = symattn.check(cat)
    assert json.loads(symattn.report_json(report))["reports"][0]["claims"] == \
        json.loads(out)["reports"][0]["claims"]


# ------------------------------------------------------------------ errors
def _raises(call, kind=symattn.ArgumentError):  # type: ignore[no-untyped-def]
    with pytest.raises(kind) as caught:
        call()
    assert isinstance(caught.value, symattn.Error)
    assert caught.value.location is not None and str(caught.value.location)
    return caught.value


def test_the_issues_argument_errors(cat: symattn.Derivation) -> None:
    error = _raises(lambda: symattn.derive("000-cat-chases-mouse"))
    assert "symattn.load_example" in str(error)
    assert symattn.check(cat.problem).counts == symattn.check(cat).counts   # a Problem works
    _raises(lambda: symattn.check("000-cat-chases-mouse"))
    for kwargs in ({"digits": -1}, {"digits": 0}, {"digits": None}, {"rounding": "bogus"},
                   {"digits": None, "places": None}, {"places": 1.5}, {"locale": "xx"}):
        _raises(lambda kwargs=kwargs: symattn.NumberFormat(**kwargs))
    _raises(lambda: symattn.loads("[inputs]\nQ = [[1]]", kind="yaml"))
    missing = _raises(lambda: cat["nosuch"], symattn.StepNotFoundError)
    assert isinstance(missing, KeyError) and "weights" in str(missing)
    outside = _raises(lambda: cat["weights"].value.exact(10, 10), symattn.PositionError)
    assert isinstance(outside, IndexError)
    _raises(lambda: cat["weights"].at(0, 1), symattn.PositionError)
    _raises(lambda: cat["weights"].value["a", 1], symattn.PositionError)


def test_number_format_reads_a_rule_by_name() -> None:
    from flint import fmpq

    fmt = symattn.NumberFormat(places=1, rounding="half-even")
    assert fmt.format(fmpq(1, 4)) == "0.2" and fmt.rounding is symattn.Rounding.HALF_EVEN
