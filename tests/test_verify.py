"""Verdicts and flags, each on a case whose answer was worked out independently.

Expected values come from fractions.Fraction, decimal.Decimal and mpmath at
50+ digits, computed here in the test, never from symattn's own output.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_HALF_UP, Decimal
from fractions import Fraction

import mpmath
import pytest

import symattn
from symattn.verify.checker import check

mpmath.mp.dps = 60


def verdicts(spec: str, rounding: str | None = None) -> dict[str, object]:
    report = check(symattn.derive(symattn.loads(spec, "case.toml")), rounding)
    return {v.position + (f"@{v.label}" if v.label else ""): v for v in report.verdicts}


def half_up(value: mpmath.mpf, places: int) -> str:
    return str(Decimal(mpmath.nstr(value, 55)).quantize(Decimal(1).scaleb(-places),
                                                         rounding=ROUND_HALF_UP))


def truncated(value: mpmath.mpf, places: int) -> str:
    return str(Decimal(mpmath.nstr(value, 55)).quantize(Decimal(1).scaleb(-places),
                                                         rounding=ROUND_DOWN))


# ------------------------------------------------------------------ ties
TIE = """
[inputs]
scaled = [[1, 1]]
V = [[0.25], [0]]
[claims]
"output[1,1]" = "0.13"
"""


def test_exact_tie_is_decided_by_the_rule_and_flagged() -> None:
    # Equal scores give weights exactly 1/2, so the output is exactly 1/8 = 0.125.
    assert Fraction(1, 2) * Fraction(1, 4) == Fraction(1, 8)
    up = verdicts(TIE)["output[1,1]"]
    assert up.verdict == "ok" and "tie" in up.flags
    even = verdicts(TIE, "half-even")["output[1,1]"]
    assert even.verdict == "wrong" and "tie" in even.flags
    assert even.exact_rounded == "0.12"


def test_tie_printed_down_is_wrong_under_half_up_and_matches_truncation() -> None:
    result = verdicts(TIE.replace('"0.13"', '"0.12"'))["output[1,1]"]
    assert result.verdict == "wrong"
    assert result.exact_rounded == "0.13"
    assert "truncation" in result.reason


def test_a_binary_float_would_decide_0855_wrongly() -> None:
    # float(0.855) is 0.85499999...: rounding the double gives 0.85, the rational 0.86.
    assert f"{0.855:.2f}" == "0.85"
    spec = """
[inputs]
scores = [[0.855, 0.855]]
V = [[1], [1]]
[options]
scale = "none"
[claims]
scores = [["0.86", "0.86"]]
"""
    result = verdicts(spec)
    assert result["scores[1,1]"].verdict == "ok"
    assert "tie" in result["scores[1,1]"].flags


# ------------------------------------------------------------- near-ties
X_NEAR = "-1.945910149055313305105352743443"   # -ln 7 to 30 decimals


def test_near_tie_needs_many_digits_and_is_decided_correctly() -> None:
    x = mpmath.mpf(X_NEAR)
    weight = mpmath.exp(x) / (1 + mpmath.exp(x))            # 1/8 + about 2e-32
    assert abs(weight - mpmath.mpf(1) / 8) < mpmath.mpf("1e-30")
    expected = half_up(weight, 2)                           # decided by mpmath at 60 digits
    assert expected == "0.13"
    # A float64 cannot tell this weight from 1/8 at all:
    assert float(weight) == 0.125
    spec = f"""
[inputs]
scaled = [[0, "{X_NEAR}"]]
[claims]
"weights[1,2]" = "{expected}"
"""
    result = verdicts(spec)["weights[1,2]"]
    assert result.verdict == "ok"
    assert "near-tie" in result.flags and "tie" not in result.flags
    other = verdicts(spec.replace(f'"{expected}"', '"0.12"'))["weights[1,2]"]
    assert other.verdict == "wrong"


# ------------------------------------------------------------ truncation
def test_truncated_percentage_is_wrong_and_says_truncation() -> None:
    scores = ["3.2", "4.0", "1.0", "6.2", "8.0"]
    exps = [mpmath.exp(mpmath.mpf(s)) for s in scores]
    share = 100 * exps[4] / sum(exps)
    assert half_up(share, 2) == "83.84" and truncated(share, 2) == "83.83"
    spec = f"""
[inputs]
scaled = [[{", ".join(scores)}]]
[claims]
"weights[1,5]" = "83.83%"
"""
    result = verdicts(spec)["weights[1,5]"]
    assert result.verdict == "wrong"
    assert result.exact_rounded == "83.84%"
    assert "truncation instead of rounding" in result.reason


# ------------------------------------------------------------ propagation
CHAIN = """
[inputs]
scaled = [[-0.8, -1.6, 2]]
V = [[-0.4], [0.9], [0.5]]
[claims]
"exp[1]" = ["0.45", "0.20", "7.39"]
"exp_sum[1]" = "8.04"
"weights[1]" = ["0.06", "0.02", "0.92"]
"output[1,1]" = "0.45"
"""


def test_propagated_chain_two_steps_long() -> None:
    scores = [mpmath.mpf(s) for s in ("-0.8", "-1.6", "2")]
    exps = [mpmath.exp(s) for s in scores]
    weights = [e / sum(exps) for e in exps]
    output = sum(w * v for w, v in zip(weights, (Fraction(-2, 5), Fraction(9, 10),
                                                    Fraction(1, 2))))
    # exact roundings
    assert [half_up(e, 2) for e in exps] == ["0.45", "0.20", "7.39"]
    assert half_up(sum(exps), 2) == "8.04"
    assert half_up(weights[1], 2) == "0.03"
    assert half_up(output, 2) == "0.46"
    # the document's path: weights from printed exps and sum, output from printed weights
    assert Fraction("0.20") / Fraction("8.04") < Fraction("0.025")       # -> 0.02
    from_printed = Fraction("0.06") * Fraction("-0.4") + Fraction("0.02") * Fraction("0.9") \
        + Fraction("0.92") * Fraction("0.5")
    assert from_printed == Fraction("0.454")                             # -> 0.45
    result = verdicts(CHAIN)
    assert all(result[f"exp[1,{k}]"].verdict == "ok" for k in (1, 2, 3))
    assert result["weights[1,2]"].verdict == "propagated"
    assert set(result["weights[1,2]"].carried_from) >= {"exp[1,2]"}
    assert result["output[1,1]"].verdict == "propagated"
    assert "weights[1,2]" in result["output[1,1]"].carried_from
    assert result["output[1,1]"].recomputed == "0.45"
    assert result["output[1,1]"].exact_rounded == "0.46"


def test_inconsistent_repeated_printing() -> None:
    spec = CHAIN.replace('"output[1,1]" = "0.45"',
                         '"output[1,1]" = "0.45"\n"output[1,1] @ summary" = "0.47"')
    result = verdicts(spec)
    assert "inconsistent" in result["output[1,1]"].flags
    assert "inconsistent" in result["output[1,1]@summary"].flags
    assert result["output[1,1]@summary"].verdict == "wrong"


def test_consistent_repeated_printing_at_coarser_precision_is_not_flagged() -> None:
    spec = CHAIN.replace('"output[1,1]" = "0.45"',
                         '"output[1,1]" = "0.45"\n"output[1,1] @ summary" = "0.5"')
    assert "inconsistent" not in verdicts(spec)["output[1,1]@summary"].flags


# ---------------------------------------------------------- wrong, explained
WRONG = """
[inputs]
Q = [[1, 0], [0, 1]]
K = [[1, 0], [0, 1]]
V = [[1, 0], [0, 1]]
[claims]
"scaled[1,1]" = "{printed}"
"""


def test_wrong_matches_the_value_without_scaling() -> None:
    # 1/sqrt(2) = 0.7071...; the unscaled score is 1.
    result = verdicts(WRONG.format(printed="1.00"))["scaled[1,1]"]
    assert result.verdict == "wrong" and result.exact_rounded == "0.71"
    assert "no scaling by 1/sqrt(d_k)" in result.reason
    assert result.slips == ("no_scaling",)


def test_wrong_matches_a_different_entry_and_off_by_one() -> None:
    result = verdicts(WRONG.format(printed="0.00"))["scaled[1,1]"]
    assert result.verdict == "wrong"
    assert "scaled[1,2], a different entry" in result.reason
    assert result.slips == ("other_entry",)
    off = verdicts(WRONG.format(printed="0.72"))["scaled[1,1]"]
    assert "off by one in the last digit" in off.reason


def test_masked_entries_must_be_printed_as_minus_infinity() -> None:
    spec = """
[inputs]
Q = [[1, 0], [0, 1]]
K = [[1, 0], [0, 1]]
[options]
mask = "causal"
[claims]
"masked[1]" = ["0.71", "-inf"]
"weights[1]" = ["1.000", "0.000"]
"weights[1].sum" = "1.000"
"""
    result = verdicts(spec)
    assert result["masked[1,2]"].verdict == "ok"
    assert result["weights[1,2]"].verdict == "ok" and result["weights[1,2]"].exact == "0"
    assert result["weights[1].sum"].verdict == "ok"


def test_dot_product_terms_are_claims() -> None:
    # q3.k1 = 0.9*0.9 + 0.8*0.1 + 0.2*0.4 + 0.1*0.0 = 0.81 + 0.08 + 0.08 + 0 = 0.97
    spec = """
[inputs]
Q = [[0.9, 0.8, 0.2, 0.1]]
K = [[0.9, 0.1, 0.4, 0.0]]
[claims]
"scores[1,1].terms" = ["0.81", "0.08", "0.08", "0"]
"scores[1,1]" = "0.97"
divisor = "2"
"scaled[1,1]" = "0.485"
"""
    result = verdicts(spec)
    assert [result[f"scores[1,1].terms[{t}]"].verdict for t in (1, 2, 3, 4)] == ["ok"] * 4
    assert result["scores[1,1]"].verdict == "ok"
    assert result["divisor"].verdict == "ok"
    assert result["scaled[1,1]"].verdict == "ok"
    assert Fraction("0.97") / 2 == Fraction("0.485")


def test_exit_status_of_check(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    from symattn.cli.app import main

    good = tmp_path / "good.toml"
    good.write_text(CHAIN, encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(TIE.replace('"0.13"', '"0.12"'), encoding="utf-8")
    assert main(["check", str(good)]) == 0
    assert main(["check", str(good), str(bad), "--jobs", "2"]) == 1
    out = capsys.readouterr().out
    assert out.index("good.toml") < out.index("bad.toml")
    assert main(["check", str(tmp_path / "missing.toml")]) == 2


@pytest.mark.parametrize("layout", ["text", "markdown", "json"])
def test_report_layouts(layout: str, capsys) -> None:  # type: ignore[no-untyped-def]
    from symattn.cli.app import main

    assert main(["check", "--example", "000-cat-chases-mouse", "--format", layout,
                 "--language", "en"]) == 0
    out = capsys.readouterr().out
    if layout == "json":
        import json

        document = json.loads(out)
        claim = document["reports"][0]["claims"][0]
        assert set(claim) >= {"step", "position", "printed", "exact", "exact_rounded",
                              "recomputed", "verdict", "flags", "reason"}
        assert set(document["reports"][0]["summary"]) >= {"ok", "propagated", "wrong"}
    else:
        assert "carried forward" in out and "0.355725" in out


@pytest.mark.parametrize("layout", ["text", "markdown"])
def test_report_in_the_spec_language(layout: str, capsys) -> None:  # type: ignore[no-untyped-def]
    """Seed 000 is Polish: its report is Polish, decimal commas, no English phrase."""
    from symattn.cli.app import main

    assert main(["check", "--example", "000-cat-chases-mouse", "--format", layout,
                 "--width", "0"]) == 0
    out = capsys.readouterr().out
    assert "Zaokrąglanie: połówka w" in out
    assert "zgodna z" in out and "wartość dokładna" in out
    assert "0,355725" in out or "0{,}355725" in out   # weights[2,1], carried from 0.14
    for english in ("carried forward", "exact ", "rounds", "should be", "half-up"):
        assert english not in out, english


# ------------------------------------------------- other ways numbers are printed
PRINTED_FORMS = """
[inputs]
scaled = [[1, 1, 1]]
V = [[1], [1], [0]]
[claims]
"weights[1,1]" = "1/3"
"weights[1,2]" = "0.666..."
"weights[1,3]" = "3.333 × 10⁻¹"
"output[1,1]" = "0.666..."
"output[1,1] @ rounded" = "0.667"
"output[1,1] @ fraction" = "2/3"
"output[1,1] @ wrong fraction" = "3/5"
"""


def test_closed_forms_ellipses_and_powers_of_ten() -> None:
    # Equal scores: weights exactly 1/3 each, output (1 + 1 + 0)/3 = 2/3.
    assert (Fraction(1, 3) + Fraction(1, 3)) == Fraction(2, 3)
    result = verdicts(PRINTED_FORMS)
    assert result["weights[1,1]"].verdict == "ok"                  # exactly 1/3
    assert result["weights[1,2]"].verdict == "wrong"               # 0.666... is not 1/3
    assert result["weights[1,3]"].verdict == "ok"                  # 0.3333 in 10^-1 notation
    assert result["output[1,1]"].verdict == "ok"                   # the digits 2/3 begins with
    assert result["output[1,1]@rounded"].verdict == "ok"
    assert result["output[1,1]@fraction"].verdict == "ok"
    assert result["output[1,1]@wrong fraction"].verdict == "wrong"
    assert "inconsistent" in result["output[1,1]@wrong fraction"].flags
    # 0.666... clashes with 3/5 only; it agrees with 0.667 and 2/3
    assert "printed differently elsewhere: 3/5" in result["output[1,1]"].reason
    assert result["output[1,1]@rounded"].reason.endswith(
        "printed differently elsewhere: 3/5 (wrong fraction)")


def test_printed_root_is_compared_exactly() -> None:
    spec = """
[inputs]
Q = [[1, 0]]
K = [[1, 0]]
[claims]
divisor = "sqrt(2)"
"scaled[1,1]" = "sqrt(2)/2"
"scaled[1,1] @ wrong" = "sqrt(3)/2"
"""
    result = verdicts(spec)
    assert result["divisor"].verdict == "ok"
    assert result["scaled[1,1]"].verdict == "ok"
    assert result["scaled[1,1]@wrong"].verdict == "wrong"


# ------------------------------------------------------------------ nan rows
def test_sums_over_a_nan_row_are_undecided_not_a_crash():
    # A fully masked row under fully_masked = "nan": its output is nan, and so
    # are sums and products built from it (as in IEEE arithmetic and PyTorch).
    result = verdicts("""
[inputs]
scores = [["-inf", "0"]]
V = [["0", "0"], ["0", "0"]]
[options]
d_k = 1
mask = [2]
fully_masked = "nan"
[claims]
"output[1].sum" = "1/3"
"output[1,1]" = "0.0"
""")
    assert result["output[1].sum"].verdict == "undecided"
    assert result["output[1,1]"].verdict == "undecided"


def test_arithmetic_on_nan_stays_nan():
    from flint import fmpq

    from symattn.values import arith
    from symattn.values.exact import NAN, NEG_INF

    for value in (fmpq(0), fmpq(3, 2), NEG_INF, arith.exp(fmpq(1, 3))):
        assert arith.add(NAN, value) is NAN and arith.add(value, NAN) is NAN
        if value is not NEG_INF:
            assert arith.multiply(value, NAN) is NAN and arith.divide(NAN, value) is NAN
    assert arith.multiply(NAN, fmpq(0)) is NAN          # nan * 0 is nan, not 0
    for unary in (arith.exp, arith.sqrt, arith.relu, arith.gelu):
        assert unary(NAN) is NAN


def test_the_common_claim_is_read_into_its_dataclasses():
    # STEP[i,j] = plain decimal: every field there and equal to one built by hand
    from flint import fmpq

    from symattn.verify.claims import Claim, Target, read_claims
    from symattn.verify.printed import Printed, read_printed

    read = read_claims({"weights[2,1]": "0.250"}, {"weights": (2, 2)}, None)[0]
    assert read == Claim("weights[2,1]", "", Target("weights", 1, 0),
                          Printed("0.250", fmpq(1, 4), 3), 0)
    assert read_printed("-12.5") == Printed("-12.5", fmpq(-25, 2), 1)
    assert hash(read.target) == hash(Target("weights", 1, 0))
