"""What documents do their own way (docs/checking.md, "What documents do their own way"):
norms and cosines, the printed scale, the order of operations, three input matrices,
[[variants]], number formats, e-notation and ties.

Expected values are computed here by hand with fractions and mpmath, never
read back from symattn's own output.
"""

from __future__ import annotations

import json
from pathlib import Path
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction as F
from typing import Any

import mpmath
import pytest

import symattn
from symattn.errors import InputError
from symattn.problem.problem import Problem
from symattn.verify.checker import check
from tests.cli_support import assert_one_line_error, run

mpmath.mp.dps = 40


def _half_up(value: Any, places: int) -> str:
    """``value`` (a Fraction or an mpmath number) rounded half up to ``places``."""
    if isinstance(value, F):
        decimal = Decimal(value.numerator) / Decimal(value.denominator)
    else:
        decimal = Decimal(mpmath.nstr(value, 35, min_fixed=-50, max_fixed=50))
    return str(decimal.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _verdicts(spec: dict[str, Any]) -> dict[tuple[str, str], str]:
    report = check(symattn.derive(Problem.from_mapping(spec)))
    return {(v.position, v.label): v.verdict for v in report.verdicts}


def _example_verdicts(name: str) -> list[tuple[str, str, str]]:
    report = check(symattn.derive(symattn.load_example(name)))
    return [(v.position, v.printed, v.verdict) for v in report.verdicts]


# ------------------------------------------------------------- norms and cosines
Q = [[F(-1, 10), F(1)], [F(4, 5), F(2, 5)]]
K = [[F(1), F(1, 5)], [F(3, 5), F(9, 10)]]


def _dot(a: list[F], b: list[F]) -> F:
    return sum((x * y for x, y in zip(a, b)), F(0))


def _fraction(value: Any) -> F:
    """An exact rational of symattn (flint's fmpq) as a Fraction."""
    return F(int(value.p), int(value.q))


def _mp(value: Any) -> Any:
    """An exact value of symattn as an mpmath number (from its certified ball)."""
    from symattn.values.exact import to_ball

    return mpmath.mpf(to_ball(value, 300).mid().str(60, radius=False))


def test_norms_and_cosines_are_the_lengths_and_angles() -> None:
    derivation = symattn.derive(symattn.load_example("015-cosine-norms"))
    tolerance = mpmath.mpf(10) ** -30
    for i, q in enumerate(Q):
        q_norm = mpmath.sqrt(mpmath.mpf(_dot(q, q).numerator) / _dot(q, q).denominator)
        assert abs(_mp(derivation["q_norm"].value.exact(i, 0)) - q_norm) < tolerance
        for j, k in enumerate(K):
            k_norm = mpmath.sqrt(mpmath.mpf(_dot(k, k).numerator) / _dot(k, k).denominator)
            dot = _dot(q, k)
            cosine = mpmath.mpf(dot.numerator) / dot.denominator / (q_norm * k_norm)
            assert abs(_mp(derivation["cosine"].value.exact(i, j)) - cosine) < tolerance
    for j, k in enumerate(K):
        k_norm = mpmath.sqrt(mpmath.mpf(_dot(k, k).numerator) / _dot(k, k).denominator)
        assert abs(_mp(derivation["k_norm"].value.exact(j, 0)) - k_norm) < tolerance


def test_a_zero_vector_has_no_cosine() -> None:
    derivation = symattn.derive(Problem.from_mapping({"inputs": {"Q": [[0, 0]], "K": [[1, 0]]},
                                                      "diagnostics": {"cosine": True}}))
    from symattn.values.exact import NAN

    assert derivation["cosine"].value.exact(0, 0) is NAN


def test_a_score_printed_as_the_product_of_its_printed_factors_is_propagated() -> None:
    verdicts = _example_verdicts("015-cosine-norms")
    # the exact q1 . k2 = -0.06 + 0.9 = 0.84; the printed factors give 0.77 * 1.00 * 1.08
    assert _dot(Q[0], K[1]) == F(84, 100)
    product = F(77, 100) * F(100, 100) * F(108, 100)
    assert product == F(8316, 10000) and _half_up(product, 2) == "0.83"
    assert ("scores[1,2]", "0.83", "propagated") in verdicts
    # every printed factor is right: |q1| = sqrt(1.01), |k2| = sqrt(1.17), cos = 0.84/(..)
    assert _half_up(mpmath.sqrt(mpmath.mpf("1.01")), 2) == "1.00"
    assert _half_up(mpmath.sqrt(mpmath.mpf("1.17")), 2) == "1.08"
    assert _half_up(mpmath.mpf("0.84") / mpmath.sqrt(mpmath.mpf("1.01") * mpmath.mpf("1.17")),
                    2) == "0.77"
    assert all(verdict == "ok" for position, _, verdict in verdicts
               if position.startswith(("cosine", "q_norm", "k_norm")))
    assert [v for v in verdicts if v[2] == "wrong"] == []


def test_a_wrong_factor_makes_the_product_wrong_too() -> None:
    spec = {"inputs": {"Q": [["-0.1", "1.0"]], "K": [["0.6", "0.9"]]},
            "claims": {"scores[1,1].factors": ["0.70", "1.00", "1.08"], "scores[1,1]": "0.76"}}
    verdicts = _verdicts(spec)
    assert verdicts[("cosine[1,1]", "")] == "wrong"           # 0.7727... is 0.77
    # 0.70 * 1.00 * 1.08 = 0.756 -> 0.76: followed from the document, but a factor is wrong
    assert verdicts[("scores[1,1]", "")] == "propagated"


def test_factors_are_only_followed_when_all_three_are_printed() -> None:
    spec = {"inputs": {"Q": [["-0.1", "1.0"]], "K": [["0.6", "0.9"]]},
            "claims": {"cosine[1,1]": "0.77", "scores[1,1]": "0.83"}}
    assert _verdicts(spec)[("scores[1,1]", "")] == "wrong"


def test_the_scale_is_a_claim_and_the_scaled_scores_follow_the_printed_one() -> None:
    spec = {"inputs": {"Q": [["-0.1", "1.0"]], "K": [["0.6", "0.9"]]},
            "claims": {"scale": "0.71", "scores[1,1]": "0.84", "scaled[1,1]": "0.60"}}
    # exact: 0.84 / sqrt(2) = 0.5939... -> 0.59; the document's 0.84 * 0.71 = 0.5964 -> 0.60
    assert _half_up(mpmath.mpf("0.84") / mpmath.sqrt(2), 2) == "0.59"
    assert _half_up(F(84, 100) * F(71, 100), 2) == "0.60"
    verdicts = _verdicts(spec)
    assert verdicts[("scale", "")] == "ok"
    assert verdicts[("scaled[1,1]", "")] == "propagated"
    assert _verdicts({**spec, "claims": {"scale": "0.70"}})[("scale", "")] == "wrong"


def test_the_scale_as_given_with_a_temperature() -> None:
    spec = {"inputs": {"scores": [[3, 1]]}, "options": {"scale": "0.25", "temperature": 2},
            "claims": {"scale": "0.25", "scaled[1]": ["0.38", "0.13"]}}
    # scaled = 3 * 0.25 / 2 = 0.375 -> 0.38, 1 * 0.25 / 2 = 0.125 -> 0.13 (half up)
    assert set(_verdicts(spec).values()) == {"ok"}


def test_factors_of_another_step_are_refused(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Any) -> None:
    spec = tmp_path / "f.toml"
    spec.write_text('[inputs]\nQ = [[1, 0]]\nK = [[1, 1]]\n[claims]\n'
                    '"weights[1,1].factors" = ["1", "1", "1"]\n', encoding="utf-8")
    status, _, err = run(capsys, "check", str(spec))
    assert status == 2
    assert_one_line_error(err, "scores[i,j].factors")


def test_the_new_steps_are_rendered_in_every_language(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    from symattn import messages

    for language in ("en", "pl", "cs", "ru", "uk"):
        catalog = messages.load(language)
        status, out, _ = run(capsys, "derive", "--example", "015-cosine-norms", "--format",
                             "markdown", "--language", language)
        assert status == 0
        for name in ("q_norm", "k_norm", "cosine"):
            heading = catalog.text(f"docops.heading.{name}").replace("~", "\u00a0")
            assert heading in out, (language, name)


# --------------------------------------------------------- order of operations
S = [[F(22, 10), F(36, 10), F(24, 10)], [F(125, 100), F(14, 10), F(15, 10)],
     [F(13, 10), F(16, 10), F(168, 100)]]


def test_mask_then_scale_lands_on_the_printed_steps() -> None:
    derivation = symattn.derive(symattn.load_example("015-mask-then-scale"))
    names = derivation.names
    assert names.index("masked") < names.index("scaled")
    for i in range(3):
        for j in range(i + 1):                       # causal: j <= i
            assert _fraction(derivation["masked"].value.exact(i, j)) == S[i][j]
            assert _fraction(derivation["scaled"].value.exact(i, j)) == S[i][j] / 2   # sqrt(4) = 2
    verdicts = _example_verdicts("015-mask-then-scale")
    assert {v for _, _, v in verdicts} == {"ok"}


def test_the_default_order_would_call_the_masked_scores_wrong(tmp_path: Any) -> None:
    source = symattn.load_example("015-mask-then-scale").source
    assert source is not None
    text = Path(source).read_text(encoding="utf-8").replace('order = ["mask", "scale"]', "")
    spec = tmp_path / "default.toml"
    spec.write_text(text, encoding="utf-8")
    from symattn.problem import spec as spec_module

    report = check(symattn.derive(spec_module.load(str(spec))))
    wrong = [v.position for v in report.verdicts if v.verdict == "wrong"]
    assert len([p for p in wrong if p.startswith("masked")]) == 6      # the six finite ones


def test_temperature_before_the_scale() -> None:
    derivation = symattn.derive(symattn.load_example("015-temperature-order"))
    raw = [F(3, 2), F(5, 4), F(1)]
    temperature = F(4, 5)
    names = derivation.names
    assert names.index("tempered") < names.index("scaled")
    for j, score in enumerate(raw):
        assert _fraction(derivation["tempered"].value.exact(0, j)) == score / temperature
        assert _fraction(derivation["scaled"].value.exact(0, j)) == score / temperature / 2
    report = check(derivation)
    assert {v.verdict for v in report.verdicts} == {"ok"}
    tie = next(v for v in report.verdicts if v.position == "scaled[1,3]")
    assert "tie" in tie.flags and "0.62" in tie.reason        # 0.625: half to even gives 0.62


def test_scale_then_temperature_and_a_printed_step_before() -> None:
    spec = {"inputs": {"scores": [[3, 1]]}, "options": {"d_k": 4, "temperature": "0.5",
                                                         "order": "scale, temperature"},
            "claims": {"scaled[1]": ["1.6", "0.5"], "tempered[1]": ["3.2", "1"]}}
    # scaled = 3/2 = 1.5 (printed 1.6: wrong); tempered = 1.5/0.5 = 3, but from the printed
    # 1.6 it is 3.2: propagated
    verdicts = _verdicts(spec)
    assert verdicts[("scaled[1,1]", "")] == "wrong"
    assert verdicts[("tempered[1,1]", "")] == "propagated"
    assert verdicts[("tempered[1,2]", "")] == "ok"


def test_softmax_over_the_masked_raw_scores() -> None:
    spec = {"inputs": {"scores": [[1, 2], ["0.5", 3]]}, "options": {"d_k": 4, "mask": "causal",
                                                                  "order": ["mask"]}}
    derivation = symattn.derive(Problem.from_mapping(spec))
    assert "scaled" not in derivation
    e05, e3 = mpmath.e ** mpmath.mpf("0.5"), mpmath.e ** 3
    weight = derivation["weights"].value.exact(1, 0)
    assert abs(_mp(weight) - e05 / (e05 + e3)) < mpmath.mpf(10) ** -30
    with pytest.raises(InputError, match="temperature"):
        symattn.derive(Problem.from_mapping({**spec, "options": {
            **spec["options"], "temperature": 2}}))


def test_bad_orders_are_refused() -> None:
    for order in (["mask", "mask"], ["scale", "softmax"], [], 3):
        with pytest.raises(InputError, match="order"):
            Problem.from_mapping({"inputs": {"scores": [[1, 2]]},
                                  "options": {"d_k": 1, "order": order}})


# ------------------------------------------------------ three input matrices
def test_queries_keys_and_values_from_three_matrices() -> None:
    problem = symattn.load_example("015-three-sources")
    derivation = symattn.derive(problem)
    x_q, w_q = [[1, 0, 1], [0, 2, 1]], [[1, 0], [0, 1], [1, 1]]
    x_k, w_k = [[1, 1], [0, 1], [2, 0]], [[F(1, 2), 0], [0, 1]]
    expected_q = [[sum(F(x_q[i][t]) * w_q[t][j] for t in range(3)) for j in range(2)]
                  for i in range(2)]
    expected_k = [[sum(F(x_k[i][t]) * w_k[t][j] for t in range(2)) for j in range(2)]
                  for i in range(3)]
    assert [[_fraction(derivation["Q"].value.exact(i, j)) for j in range(2)]
            for i in range(2)] == expected_q
    assert [[_fraction(derivation["K"].value.exact(i, j)) for j in range(2)]
            for i in range(3)] == expected_k
    assert derivation["Q"].operands == ("X_q", "W_Q")
    verdicts = _example_verdicts("015-three-sources")
    assert [(p, v) for p, _, v in verdicts if v != "ok"] == [("weights[1,3]", "wrong")]


def test_a_source_without_its_weights_is_refused() -> None:
    with pytest.raises(InputError, match="X_q needs W_Q"):
        Problem.from_mapping({"inputs": {"X_q": [[1, 0]], "X": [[1, 0]], "W_K": [[1], [0]],
                                         "W_V": [[1], [0]]}})
    with pytest.raises(InputError, match="X_k @ W_K"):
        Problem.from_mapping({"inputs": {"X": [[1, 0]], "X_k": [[1, 0, 1]], "W_Q": [[1], [0]],
                                         "W_K": [[1], [0]], "W_V": [[1], [0]]}})


def test_three_sources_with_two_heads() -> None:
    problem = Problem.from_mapping({"inputs": {
        "X_q": [[1, 0]], "X_k": [[0, 1], [1, 1]], "X_v": [[1, 2], [3, 4]],
        "W_Q": [[[1], [0]], [[0], [1]]], "W_K": [[[1], [1]], [[1], [0]]],
        "W_V": [[[1], [0]], [[0], [1]]]}, "options": {"heads": 2}})
    derivation = symattn.derive(problem)
    # head 2: q = [0], k = [0, 1] . [1, 0]^T -> [0, 1]; v = X_v column 2 = [2, 4]
    assert derivation["head2.V"].value.exact(1, 0) == 4
    assert derivation["head1.K"].value.exact(1, 0) == 2


# ---------------------------------------------------------------- variants
def test_variants_are_checked_in_one_run_one_report_each(capsys: pytest.CaptureFixture[str]
                                                         ) -> None:
    status, out, _ = run(capsys, "check", "--example", "015-temperatures", "--format", "json")
    assert status == 1
    reports = json.loads(out)["reports"]
    assert [r["variant"] for r in reports] == ["T = 0.5", "T = 1", "T = 2", "unscaled"]
    scores = [mpmath.mpf(2), mpmath.mpf(1), mpmath.mpf("0.5")]    # q.k / sqrt(4)
    for report, temperature in zip(reports[:3], ("0.5", "1", "2")):
        exps = [mpmath.e ** (s / mpmath.mpf(temperature)) for s in scores]
        expected = [_half_up(e / sum(exps), 2) for e in exps]
        printed = [c["printed"] for c in report["claims"] if c["step"] == "weights"]
        right = [c["verdict"] == "ok" for c in report["claims"] if c["step"] == "weights"]
        assert right == [p == e for p, e in zip(printed, expected)]
    assert [c["position"] for c in reports[2]["claims"] if c["verdict"] == "wrong"] == \
        ["weights[1,2]"]
    assert reports[3]["summary"]["wrong"] == 0


def test_variants_in_text_and_markdown(capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in ("text", "markdown"):
        _, out, _ = run(capsys, "check", "--example", "015-temperatures", "--format", fmt)
        for name in ("(T = 0.5)", "(T = 1)", "(T = 2)", "(unscaled)"):
            assert name in out


def test_derive_lays_out_one_variant(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "derive", "--example", "015-temperatures", "--variant", "T = 2",
                         "--format", "json")
    assert status == 0
    steps = {step["name"]: step for step in json.loads(out)["steps"]}
    # scaled = (q . k) / (sqrt(4) * 2): 4/4, 2/4, 1/4
    assert [str(x) for x in steps["scaled"]["exact"][0]] == ["1", "1/2", "1/4"]
    status, _, err = run(capsys, "derive", "--example", "015-temperatures", "--variant", "T=3")
    assert status == 2
    assert_one_line_error(err, "T=3", "'T = 0.5'")


def test_bad_variants_are_refused() -> None:
    base = {"inputs": {"scores": [[1, 0]]}, "options": {"d_k": 1}}
    for variants, message in (([{"options": {}}], "needs a name"),
                              ([{"name": "a"}, {"name": "a"}], "two variants"),
                              ([{"name": "a", "options": {"temp": 2}}], "temp"),
                              ([{"name": "a", "options": {"temperature": -1}}], "positive"),
                              ([{"name": "a", "colour": 1}], "colour")):
        with pytest.raises(InputError, match=message):
            Problem.from_mapping({**base, "variants": variants})


# ------------------------------------------------------------ reading numbers
def test_an_ambiguous_thousands_comma_is_refused(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Any) -> None:
    spec = tmp_path / "comma.toml"
    spec.write_text('[inputs]\nscaled = [[10, 0.5]]\n[options]\nscale = "none"\n[claims]\n'
                    '"exp[1,1]" = "22,026"\n"exp[1,2]" = "1.65"\n', encoding="utf-8")
    status, _, err = run(capsys, "check", str(spec))
    assert status == 2
    assert_one_line_error(err, "22026", "22.026", "number_format", "exp[1,1]")
    spec.write_text(spec.read_text(encoding="utf-8").replace(
        'scale = "none"', 'scale = "none"\nnumber_format = "1,234.5"'), encoding="utf-8")
    status, out, _ = run(capsys, "check", str(spec))
    assert status == 0                # e^10 = 22026.46... -> 22026
    assert _half_up(mpmath.e ** 10, 0) == "22026"


@pytest.mark.parametrize("number_format, printed, value", [
    ("1,234.5", "22,026.47", F(2202647, 100)), ("1 234,5", "22 026,47", F(2202647, 100)),
    ("1 234,5", "22\u202f026,47", F(2202647, 100)), ("1.234,5", "22.026,47", F(2202647, 100)),
    ("1.234,5", "0,5", F(1, 2)), ("1,234.5", "1,234,567", F(1234567))])
def test_number_formats(number_format: str, printed: str, value: F) -> None:
    from symattn.verify.printed import read_printed

    result = read_printed(printed, number_format=number_format)
    assert result is not None and _fraction(result.value) == value


@pytest.mark.parametrize("number_format, printed", [
    ("1.234,5", "0.394"), ("1,234.5", "0,5"), ("1,234.5", "22,02"), ("1.234,5", "1.23")])
def test_a_number_that_does_not_fit_the_format_is_refused(number_format: str,
                                                          printed: str) -> None:
    from symattn.verify.printed import read_printed

    with pytest.raises(InputError, match="is not written as options.number_format"):
        read_printed(printed, number_format=number_format)


def test_a_decimal_comma_document_is_not_ambiguous() -> None:
    spec = {"inputs": {"scaled": [[10, "0.5"]]}, "options": {"scale": "none"},
            "claims": {"exp[1,1]": "22026,466", "exp[1,2]": "1,649"}}
    assert set(_verdicts(spec).values()) == {"ok"}
    with pytest.raises(InputError, match="number_format must be one of"):
        Problem.from_mapping({**spec, "options": {"number_format": "1'234.5"}})


def test_e_notation_is_reported_in_e_notation(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check", "--example", "015-number-format", "--format", "json")
    claims = json.loads(out)["reports"][0]["claims"]
    tiny = next(c for c in claims if c["position"] == "weights[1,3]")
    # e^-20 / (e^10.125 + e^2 + e^-20)
    exact = mpmath.e ** -20 / (mpmath.e ** mpmath.mpf("10.125") + mpmath.e ** 2 +
                               mpmath.e ** -20)
    mantissa = mpmath.nstr(exact, 3, min_fixed=0, max_fixed=0)
    assert tiny["exact_rounded"] == "8.26e-14" and mantissa.startswith("8.26e-14")
    assert tiny["exact_decimal"] == f"{str(int(exact * 10 ** 20))[:1]}." \
        f"{str(int(exact * 10 ** 20))[1:7]}e-14..."          # 3 printed digits and 4 more
    assert "0.0000" not in tiny["reason"] and len(tiny["reason"]) < 80
    _, text, _ = run(capsys, "check", "--example", "015-number-format")
    assert "2.06e-9" in text and "0.000000" not in text


def test_a_tie_names_the_other_rule_also_when_wrong() -> None:
    verdicts = check(symattn.derive(symattn.load_example("015-number-format"))).verdicts
    tie = next(v for v in verdicts if v.position == "scaled[1,1]")
    # 20.25 * 0.5 = 10.125 exactly: half up 10.13, half to even 10.12 (printed)
    assert F(2025, 100) * F(1, 2) == F(10125, 1000)
    assert tie.verdict == "wrong" and "tie" in tie.flags
    assert "half-even gives 10.12" in tie.reason
    report = check(symattn.derive(symattn.load_example("015-number-format")), "half-even")
    assert {v.verdict for v in report.verdicts} == {"ok"}
