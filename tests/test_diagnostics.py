"""Diagnostics (entropy, softmax Jacobian), the temperature sweep and the what-if variants.

Expected values are computed here, independently of symattn: mpmath at 50
digits (compared to 30 significant digits) or numpy float64 (relative 1e-12),
and exact values with ``fractions.Fraction``. Nothing expected is copied from
symattn's output.
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

import symattn
from symattn.values import arith, probabilities
from symattn.explore import sweep, whatif
from symattn.errors import InputError
from symattn.values.exact import Irrational, Surd
from cli_support import run

THIRTY = symattn.NumberFormat(digits=30)
DPS = 50




def decimal30(value) -> str:
    return THIRTY.format(value)


def assert_30(value, reference):
    """symattn's 30 proved significant digits equal the 50-digit reference rounded to 30."""
    with mpmath.workdps(DPS):
        expected = Decimal(mpmath.nstr(reference, 30, strip_zeros=False))
    assert Decimal(decimal30(value)) == expected, (decimal30(value), expected)


def mp_softmax(row):
    """mpmath softmax of a row of Fractions / None (None masks)."""
    with mpmath.workdps(DPS):
        exps = [mpmath.mpf(0) if x is None else mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)
                for x in row]
        total = mpmath.fsum(exps)
        return [e / total for e in exps]


def mp_entropy(weights):
    with mpmath.workdps(DPS):
        return -mpmath.fsum(w * mpmath.log(w, 2) for w in weights if w != 0)


def np_jacobian(w):
    w = np.asarray(w, dtype=np.float64)
    return np.linalg.norm(np.diag(w) - np.outer(w, w), "fro")


def derive(mapping):
    return symattn.derive(symattn.Problem.from_mapping(mapping))


def column(derivation, name):
    grid = derivation[name].value
    return [grid.exact(i, 0) for i in grid.rows()]


# Four queries, four keys, d_k = 2 (scale 1/sqrt(2)), causal mask:
# row 1 has one key, row 4 (a zero query) is exactly uniform over 4 keys.
Q4 = [["1", "0.5"], ["0.2", "1"], ["-1", "2"], ["0", "0"]]
K4 = [["1", "0"], ["0", "1"], ["0.5", "0.5"], ["2", "-1"]]
V4 = [["1", "0"], ["0", "1"], ["1", "1"], ["0.5", "-2"]]
SPEC4 = {"inputs": {"Q": Q4, "K": K4, "V": V4}, "options": {"mask": "causal"},
         "diagnostics": {"entropy": True, "jacobian": True}}


def scores4():
    """Q K^T of SPEC4 as Fractions."""
    q = [[Fraction(x) for x in row] for row in Q4]
    k = [[Fraction(x) for x in row] for row in K4]
    return [[sum(a * b for a, b in zip(qi, kj)) for kj in k] for qi in q]


# ------------------------------------------------------------------ entropy
def test_entropy_rows_against_mpmath_with_mask_one_key_and_uniform_rows():
    derivation = derive(SPEC4)
    expected = []
    with mpmath.workdps(DPS):
        factor = 1 / mpmath.sqrt(2)
        for i, row in enumerate(scores4()):
            exps = [mpmath.exp(factor * mpmath.mpf(s.numerator) / s.denominator)
                    if j <= i else mpmath.mpf(0) for j, s in enumerate(row)]
            total = mpmath.fsum(exps)
            expected.append(mp_entropy([e / total for e in exps]))
    entropy = column(derivation, "entropy")
    assert entropy[0] == 0 and isinstance(entropy[0], type(fmpq(0)))    # one key: exactly 0
    assert entropy[3] == 2 and isinstance(entropy[3], type(fmpq(0)))    # uniform over 4 keys
    for value, reference in zip(entropy[1:3], expected[1:3]):           # masked rows
        assert isinstance(value, Irrational)
        assert_30(value, reference)
    maximum = column(derivation, "entropy_max")
    assert maximum[0] == 0 and maximum[1] == 1 and maximum[3] == 2
    assert maximum[2].text == "log(3)/log(2)"
    with mpmath.workdps(DPS):
        assert_30(maximum[2], mpmath.log(3, 2))


def test_uniform_row_over_three_keys_is_exactly_log2_3():
    derivation = derive({"inputs": {"scaled": [[1, 1, 1], [0, 5, "-inf"]]},
                         "diagnostics": {"entropy": True}})
    assert derivation["entropy"].value.text(0, 0) == "log(3)/log(2)"
    weights = mp_softmax([Fraction(0), Fraction(5), None])
    assert_30(derivation["entropy"].value.exact(1, 0), mp_entropy(weights))


@pytest.mark.parametrize("weights", [
    ["1/2", "1/4", "1/4"], ["1/8", "7/8"], ["3/10", "7/10"], ["1/6", "1/6", "2/3"],
    ["1/3", "1/3", "1/3"], ["2/9", "1/9", "2/3", "0"], ["1"]])
def test_entropy_of_rational_rows_is_exact(weights):
    values = [fmpq(Fraction(w).numerator, Fraction(w).denominator) for w in weights]
    h = probabilities.entropy_bits(values)
    fractions = [Fraction(w) for w in weights if Fraction(w)]
    with mpmath.workdps(DPS):
        expected = -mpmath.fsum(mpmath.mpf(f.numerator) / f.denominator *
                                mpmath.log(mpmath.mpf(f.numerator) / f.denominator, 2)
                                for f in fractions)
    # Rational exactly when every weight is a power of two (the dyadic rows here).
    dyadic = all(f.numerator == 1 and f.denominator & (f.denominator - 1) == 0
                 for f in fractions)
    assert isinstance(h, type(fmpq(0))) == dyadic
    if dyadic:
        assert Fraction(int(h.p), int(h.q)) == -sum(f * Fraction(int(math.log2(f)))
                                                    for f in fractions)
    else:
        assert_30(h, expected)


def test_entropy_of_an_irrational_row_is_certified():
    derivation = derive({"inputs": {"scaled": [["0.1", "2", "-1.5", "0"]]},
                         "diagnostics": {"entropy": True}})
    weights = mp_softmax([Fraction(x) for x in ("0.1", "2", "-1.5", "0")])
    assert_30(derivation["entropy"].value.exact(0, 0), mp_entropy(weights))


# ----------------------------------------------------------------- jacobian
def test_jacobian_norms_against_numpy():
    derivation = derive(SPEC4)
    scores = np.array([[float(x) for x in row] for row in scores4()])
    keep = np.tril(np.ones((4, 4), dtype=bool))
    for factor, name in ((1 / math.sqrt(2), "jacobian_norm"), (1.0, "jacobian_norm_unscaled")):
        z = np.where(keep, scores * factor, -np.inf)
        w = np.exp(z - z.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        for i, value in enumerate(column(derivation, name)):
            expected = np_jacobian(w[i])
            assert float(symattn.NumberFormat(digits=17).format(value)) == \
                pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_jacobian_norm_is_exact_for_uniform_rows_and_one_key():
    derivation = derive(SPEC4)
    norms = column(derivation, "jacobian_norm")
    assert norms[0] == 0                                   # one key: J = 1 - 1 = 0
    assert norms[3] == Surd(fmpq(1, 4), 3)                 # sqrt(k - 1)/k for k = 4
    assert probabilities.softmax_jacobian_norm([fmpq(1, 2)] * 2) == fmpq(1, 2)
    # For any vector (not only probabilities) the norm is the Frobenius norm of J.
    w = [Fraction(3, 10), Fraction(1, 5), Fraction(1, 2)]
    squares = sum(((w[j] if j == k else 0) - w[j] * w[k]) ** 2
                  for j in range(3) for k in range(3))
    value = probabilities.softmax_jacobian_norm([fmpq(x.numerator, x.denominator) for x in w])
    with mpmath.workdps(DPS):
        assert_30(value, mpmath.sqrt(mpmath.mpf(squares.numerator) / squares.denominator))


def test_unscaled_jacobian_is_smaller_for_saturating_scores():
    """Seed 001's exercise: the scores of token 3 times ten (q3.k_j = 0.97, 0.89, 1.46)."""
    derivation = derive({"inputs": {"scores": [["9.7", "8.9", "14.6"]]},
                         "options": {"d_k": 4},
                         "diagnostics": {"jacobian": True}})
    scaled = derivation["jacobian_norm"].value.exact(0, 0)
    unscaled = derivation["jacobian_norm_unscaled"].value.exact(0, 0)
    assert arith.sign(arith.subtract(scaled, unscaled)) == 1
    for value, factor in ((scaled, 0.5), (unscaled, 1.0)):
        z = np.array([9.7, 8.9, 14.6]) * factor
        w = np.exp(z - z.max())
        w /= w.sum()
        assert float(symattn.NumberFormat(digits=17).format(value)) == \
            pytest.approx(np_jacobian(w), rel=1e-12)
    # about ten times smaller: the gradient through this softmax almost vanishes
    assert float(decimal30(unscaled)) < float(decimal30(scaled)) / 10


def test_several_heads_get_prefixed_steps():
    derivation = derive({"inputs": {"X": [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]],
                                    "W_Q": "identity", "W_K": "identity", "W_V": "identity"},
                         "options": {"heads": 2, "mask": "causal"},
                         "diagnostics": {"entropy": True, "jacobian": True}})
    x = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]], dtype=float)
    keep = np.tril(np.ones((3, 3), dtype=bool))
    for h in (1, 2):
        block = x[:, 2 * (h - 1): 2 * h]
        z = np.where(keep, block @ block.T / math.sqrt(2), -np.inf)
        w = np.exp(z - z.max(axis=1, keepdims=True))
        w /= w.sum(axis=1, keepdims=True)
        for i, value in enumerate(column(derivation, f"head{h}.entropy")):
            expected = -sum(p * math.log2(p) for p in w[i] if p > 0)
            assert float(decimal30(value)) == pytest.approx(expected, rel=1e-12, abs=1e-15)
        assert f"head{h}.jacobian_norm_unscaled" in derivation


def test_checker_recomputes_entropy_from_the_printed_weights():
    spec = dict(SPEC4, claims={"weights[2]": ["0.61", "0.39", "0", "0"],
                               "entropy[2]": "0.965", "entropy_max[3]": "1.58",
                               "entropy[1]": "0", "entropy[4]": "2.000"})
    report = symattn.check(derive(spec))
    verdicts = {v.position: v for v in report.verdicts}
    # -0.61 log2 0.61 - 0.39 log2 0.39 = 0.96480..., from the printed weights ...
    assert round(-(0.61 * math.log2(0.61) + 0.39 * math.log2(0.39)), 3) == 0.965
    # ... while the exact row 2 (scores 0.2 and 1, times 1/sqrt(2)) gives another value
    with mpmath.workdps(DPS):
        w1 = 1 / (1 + mpmath.exp((1 - mpmath.mpf(1) / 5) / mpmath.sqrt(2)))
        exact = -(w1 * mpmath.log(w1, 2) + (1 - w1) * mpmath.log(1 - w1, 2))
    assert f"{float(exact):.3f}" != "0.965"
    assert_30(derive(SPEC4)["entropy"].value.exact(1, 0), exact)
    assert verdicts["entropy[2]"].verdict == "propagated"
    assert verdicts["entropy_max[3]"].verdict == "ok"
    assert verdicts["entropy[1]"].verdict == "ok"
    assert verdicts["entropy[4]"].verdict == "ok"


def test_bundled_example_checks_ok(capsys):
    status, out, err = run(capsys, "check", "--example", "003-entropy-temperature",
                           "--format", "json")
    assert status == 0, err
    [report] = json.loads(out)["reports"]
    summary = report["summary"]
    assert summary["wrong"] == 0 and summary["propagated"] == 0 and summary["ok"] >= 7


def test_bundled_example_claims_against_mpmath():
    """The example's printed entropies (T = 0.3) and log2 6, recomputed here."""
    q = [[3, 0.2, 0, 0], [0, 2.8, 0, 0.3], [0.2, 0, 3, 0], [0, 0.3, 0, 2.9], [-3, 0, 1.2, 0],
         [0, -2.8, 0, 1.2]]
    k = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 0.5, 0],
         [0, -1, 0, 0.5]]
    q = [[Fraction(str(x)) for x in row] for row in q]
    k = [[Fraction(str(x)) for x in row] for row in k]
    entropies = []
    for qi in q:
        row = [sum(a * b for a, b in zip(qi, kj)) / 2 / Fraction(3, 10) for kj in k]
        entropies.append(mp_entropy(mp_softmax(row)))
    printed = ["0.23", "0.33", "0.54", "0.56", "0.20", "0.26"]
    assert [f"{float(h):.2f}" for h in entropies] == printed
    assert float(mpmath.fsum(entropies) / 6) < 0.5
    assert f"{math.log2(6):.2f}" == "2.58"
    derivation = symattn.derive(symattn.load_example("003-entropy-temperature"))
    for i, h in enumerate(entropies):
        assert_30(derivation["entropy"].value.exact(i, 0), h)


# -------------------------------------------------------------------- sweep
def test_sweep_is_monotonic_for_the_six_token_example():
    problem = symattn.load_example("003-entropy-temperature")
    temperatures = sweep.parse_temperatures("0.3,0.5,1,2,5")
    [result] = sweep.sweep(problem, temperatures)
    means = [float(THIRTY.format(row.mean_entropy)) for row in result.rows]
    assert means == sorted(means) and len(set(means)) == len(means)
    for i in range(6):
        row = [float(THIRTY.format(r.entropy[i])) for r in result.rows]
        assert row == sorted(row)
    largest = [float(THIRTY.format(r.largest[0])) for r in result.rows]
    assert largest == sorted(largest, reverse=True)
    assert means[0] < 0.5 and 2.4 < means[3] < math.log2(6)
    # against numpy at T = 2
    q = np.array([[3, 0.2, 0, 0], [0, 2.8, 0, 0.3], [0.2, 0, 3, 0], [0, 0.3, 0, 2.9],
                  [-3, 0, 1.2, 0], [0, -2.8, 0, 1.2]])
    k = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 0.5, 0],
                  [0, -1, 0, 0.5]])
    z = q @ k.T / 2 / 2
    w = np.exp(z - z.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    h = -(w * np.log2(w)).sum(axis=1)
    assert means[3] == pytest.approx(h.mean(), rel=1e-12)
    assert largest[3] == pytest.approx(w.max(), rel=1e-12)
    assert [float(THIRTY.format(x)) for x in result.entropy_max] == \
        pytest.approx([math.log2(6)] * 6, rel=1e-15)


def test_sweep_of_a_spec_with_a_symbolic_temperature_and_symbol_questions():
    """The spec's T is a symbol with [symbols] questions: the sweep replaces T by each
    number and leaves the questions aside (they were once a crash)."""
    problem = symattn.load_example("003-entropy-temperature-symbolic")
    [result] = sweep.sweep(problem, sweep.parse_temperatures("1"))
    q = np.array([[3, 0.2, 0, 0], [0, 2.8, 0, 0.3], [0.2, 0, 3, 0], [0, 0.3, 0, 2.9],
                  [-3, 0, 1.2, 0], [0, -2.8, 0, 1.2]])
    k = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [-1, 0, 0.5, 0],
                  [0, -1, 0, 0.5]])
    z = q @ k.T / 2
    w = np.exp(z - z.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    h = -(w * np.log2(w)).sum(axis=1)
    got = [float(THIRTY.format(x)) for x in result.rows[0].entropy]
    assert got == pytest.approx(list(h), rel=1e-12)


def test_sweep_of_scaled_scores_divides_them_by_t():
    problem = symattn.load_example("001-scores-times-10")     # scaled = [4.85, 4.45, 7.30]
    [result] = sweep.sweep(problem, sweep.parse_temperatures("1,2"))
    for row, t in zip(result.rows, (1, 2)):
        z = np.array([4.85, 4.45, 7.30]) / t
        w = np.exp(z - z.max())
        w /= w.sum()
        assert float(THIRTY.format(row.entropy[0])) == \
            pytest.approx(-(w * np.log2(w)).sum(), rel=1e-12)
    assert any("scaled" in note for note in result.notes)


def test_sweep_cli_text_and_json(capsys):
    status, out, err = run(capsys, "sweep", "--example", "003-entropy-temperature",
                           "--temperatures", "0.3,1,2", "--language", "en")
    assert status == 0, err
    lines = out.splitlines()
    assert any(line.startswith("H_max") and "2.585" in line for line in lines)
    assert any(line.startswith("0.3 ") for line in lines)
    # the spec's language (Russian): its words and its decimal comma
    status, out, err = run(capsys, "sweep", "--example", "003-entropy-temperature",
                           "--temperatures", "0.3,1,2")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Изменение температуры")
    assert any(line.startswith("H_max") and "2,585" in line for line in lines)
    assert any(line.startswith("0,3 ") and "(строка 5, ключ 5)" in line for line in lines)
    assert "round" not in out and "largest" not in out
    status, out, err = run(capsys, "sweep", "--example", "003-entropy-temperature", "-T",
                           "0.3;2", "--format", "json", "--digits", "3")
    assert status == 0, err
    document = json.loads(out)
    rows = document["sweeps"][0]["temperatures"]
    assert [r["temperature"] for r in rows] == ["0.3", "2"]
    assert float(rows[0]["mean_entropy"]) < 0.5 < float(rows[1]["mean_entropy"])


@pytest.mark.parametrize("bad", ["0.3,abc", "1,-2", "0", "1,,2", "", "-inf", "1/0"])
def test_bad_temperature_is_a_one_line_error(capsys, bad):
    status, out, err = run(capsys, "sweep", "--example", "003-entropy-temperature",
                           f"--temperatures={bad}")
    assert status == 2
    assert out == ""
    lines = err.strip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("symattn: error: --temperatures"), err


def test_sweep_needs_exactly_one_spec(capsys):
    status, _, err = run(capsys, "sweep")
    assert status == 2 and "exactly one spec" in err


# ------------------------------------------------------------------- whatif
KOCKA_Q = [[1.0, 0.0, 0.5, 0.0], [0.9, 0.8, 0.2, 0.1]]
KOCKA_K = [[0.9, 0.1, 0.4, 0.0], [0.0, 1.0, 0.0, 0.9], [0.8, 0.9, 0.1, 0.0]]
KOCKA_V = [[0.2, 0.8, 0.0, 0.1], [0.7, 0.1, 0.3, 0.0], [0.1, 0.2, 0.9, 0.4]]


def _np_rows(z):
    w = np.exp(z - z.max(axis=1, keepdims=True))
    return w / w.sum(axis=1, keepdims=True)


def _grid(grid):
    return np.array([[float(THIRTY.format(grid.exact(i, j))) for j in grid.columns()]
                     for i in grid.rows()])


def test_whatif_variants_against_numpy():
    """Seed 001's q1, q3 (positions 1 and 3), causal mask, d_k = d_v = 4."""
    variants = {v.key: v for v in whatif.whatif(symattn.load_example("001-kocka-spi-venku"))}
    q, k, v = (np.array(m) for m in (KOCKA_Q, KOCKA_K, KOCKA_V))
    keep = np.array([[True, False, False], [True, True, True]])    # positions 1 and 3

    def attention(q, k, v, factor, keep):
        z = np.where(keep, q @ k.T * factor, -np.inf)
        w = _np_rows(z)
        return w, w @ v

    expected = {
        "original": attention(q, k, v, 0.5, keep),
        "no_scaling": attention(q, k, v, 1.0, keep),
        "no_mask": attention(q, k, v, 0.5, np.ones_like(keep)),
        "kv_swapped": attention(q, v, k, 0.5, keep),
    }
    z = np.where(keep, q @ k.T * 0.5, -np.inf)
    e = np.exp(z)
    columns = e / e.sum(axis=0, keepdims=True)
    expected["column_softmax"] = (columns, columns @ v)
    for key, (weights, output) in expected.items():
        variant = variants[key]
        assert variant.available, key
        np.testing.assert_allclose(_grid(variant.weights), weights, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(_grid(variant.output), output, rtol=1e-12, atol=1e-15)
    # each column of the column variant sums to 1; its rows do not
    assert _grid(variants["column_softmax"].weights).sum(axis=0) == pytest.approx([1, 1, 1])
    lowest = float(THIRTY.format(variants["column_softmax"].stats["row_sum_min"]))
    assert lowest == pytest.approx(columns.sum(axis=1).min(), rel=1e-12)


def test_whatif_explains_what_is_not_possible(capsys):
    status, out, err = run(capsys, "whatif", "--example", "003-entropy-temperature",
                           "--language", "en")
    assert status == 0, err
    swap = next(line for line in out.splitlines() if "K and V swapped" in line)
    assert "not possible: K is 6 × 4 and V is 6 × 2" in swap and "d_k = d_v" in swap
    assert "nothing is masked" in out
    # the spec's language (Russian) with its decimal comma, the same facts
    status, out, err = run(capsys, "whatif", "--example", "003-entropy-temperature")
    assert status == 0, err
    out = out.replace("\xa0", " ")            # the catalogs' ties are no-break spaces
    swap = next(line for line in out.splitlines() if "K и V переставлены" in line)
    assert "невозможно: K имеет размер 6 × 4, а V — 6 × 2" in swap
    assert "ничего не замаскировано" in out and "0,9749 (строка 5, ключ 5)" in out
    assert "not possible" not in out and "largest" not in out
    status, out, err = run(capsys, "whatif", "--example", "001-softmax-10-2-1", "--format",
                           "json")
    assert status == 0, err
    variants = {v["name"]: v for v in json.loads(out)["variants"]}
    assert not variants["no_scaling"]["available"]
    assert "inputs.scaled" in variants["no_scaling"]["note"]
    assert not variants["kv_swapped"]["available"]
    assert variants["column_softmax"]["weights"]["value"] == [["1.000", "1.000", "1.000"]]


def test_whatif_refuses_several_heads(capsys, tmp_path):
    spec = tmp_path / "heads.toml"
    spec.write_text('[inputs]\nX = [[1, 0, 1, 0], [0, 1, 0, 1]]\nW_Q = "identity"\n'
                    'W_K = "identity"\nW_V = "identity"\n[options]\nheads = 2\n')
    status, out, err = run(capsys, "whatif", str(spec))
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "single-head" in err


def test_whatif_swaps_the_projections_when_k_and_v_come_from_x():
    problem = symattn.Problem.from_mapping({"inputs": {
        "X": [[1, 0], [0, 1], [1, 1]], "W_Q": [[1, 2], [0, 1]], "W_K": [[1, 0], [1, 1]],
        "W_V": [[0, 1], [2, 0]]}})
    swapped = next(v for v in whatif.whatif(problem) if v.key == "kv_swapped")
    x = np.array([[1, 0], [0, 1], [1, 1]], dtype=float)
    q, k, v = x @ [[1, 2], [0, 1]], x @ [[1, 0], [1, 1]], x @ [[0, 1], [2, 0]]
    w = _np_rows(q @ v.T / math.sqrt(2))
    np.testing.assert_allclose(_grid(swapped.weights), w, rtol=1e-12)
    np.testing.assert_allclose(_grid(swapped.output), w @ k, rtol=1e-12)


# ------------------------------------------------------------------- errors
def test_jacobian_needs_softmax_and_entropy_needs_non_negative_weights():
    with pytest.raises(InputError, match="softmax"):
        derive({"inputs": {"scaled": [[1, 2]]}, "options": {"normalisation": "sum"},
                "diagnostics": {"jacobian": True}})
    with pytest.raises(InputError, match="row 1"):
        derive({"inputs": {"scaled": [[-1, 3]]}, "options": {"normalisation": "sum"},
                "diagnostics": {"entropy": True}})


def test_symbolic_weights_are_refused_clearly():
    with pytest.raises(InputError, match="needs numbers"):
        derive({"inputs": {"Q": [["a", 1]], "K": [[1, 0], [0, 1]]},
                "diagnostics": {"entropy": True}})
