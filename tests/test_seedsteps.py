"""The seeds' own steps: the max-shift of seed 004, raw scores, compare blocks,
the variance of q.k, the FFN and readout written out, the bundled examples.

Expected values are computed here independently (mpmath, fractions, numpy),
never read back from symattn's output.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import symattn
from symattn.cli.app import main
from symattn.errors import InputError
from symattn.problem.problem import Problem
from symattn.values.number_format import NumberFormat

FORTY = NumberFormat(digits=40)


def derive(spec: dict) -> symattn.Derivation:
    return symattn.derive(Problem.from_mapping(spec))


def frac(value: object) -> Fraction:
    """An exact rational entry (fmpq) as a Fraction."""
    return Fraction(int(value.p), int(value.q))  # type: ignore[attr-defined]


def assert_close(text: str, value: mpmath.mpf, digits: int = 35) -> None:
    with mpmath.workdps(60):
        got = mpmath.mpf(text.replace(",", "."))
        assert abs(got - value) <= abs(value) * mpmath.mpf(10) ** -digits + \
            mpmath.mpf(10) ** -55, (text, value)


# ------------------------------------------------------------------ max-shift
def test_004_softmax_shows_the_max_shift_and_no_number_above_a_million() -> None:
    derivation = symattn.derive(symattn.load_example("004-softmax-180-210-95"))
    shown = [step.name for step in derivation if not step.hidden]
    assert shown == ["scaled", "row_max", "shifted", "exp_shifted", "exp_shifted_sum", "weights"]
    for render in (symattn.render_markdown, symattn.render_latex):
        page = render(derivation)
        assert "np.exp(z - z.max())" in page
        # every decimal on the page, with its power of ten when it has one
        for mantissa, power in re.findall(r"(\d+(?:[.,]\d+)?)(?: \\cdot 10\^\{(-?\d+)\})?",
                                          page):
            value = Fraction(mantissa.replace(",", ".")) * Fraction(10) ** int(power or 0)
            assert value <= 10 ** 6, (mantissa, power)
        # the unshifted exponentials e^180, e^210, e^95 are not on the page
        assert not re.search(r"e\^\{(180|210|95)\}", page)
        assert "e^{-30}" in page and "e^{-115}" in page
        # the identity softmax(z) = softmax(z - max z) is stated
        assert r"\frac{e^{z_j - m}}{\sum_k e^{z_k - m}}" in page


def test_shifted_steps_agree_with_mpmath_and_the_identity_holds() -> None:
    z = [Fraction(180), Fraction(210), Fraction(95)]
    derivation = derive({"inputs": {"scaled": [[str(x) for x in z]]}})
    with mpmath.workdps(60):
        top = max(z)
        assert frac(derivation["row_max"].value.exact(0, 0)) == top
        shifted = [mpmath.mpf(int(x - top)) for x in z]
        exps = [mpmath.exp(x) for x in shifted]
        total = mpmath.fsum(exps)
        unshifted = [mpmath.exp(mpmath.mpf(int(x))) for x in z]
        for j in range(3):
            assert frac(derivation["shifted"].value.exact(0, j)) == z[j] - top
            assert_close(FORTY.format(derivation["exp_shifted"].value.exact(0, j)), exps[j])
            # softmax(z) = softmax(z - max z): both ways give the page's weight
            weight = FORTY.format(derivation["weights"].value.exact(0, j))
            assert_close(weight, exps[j] / total)
            assert_close(weight, unshifted[j] / mpmath.fsum(unshifted))
            # "exp" keeps meaning e^z
            assert_close(FORTY.format(derivation["exp"].value.exact(0, j)), unshifted[j])
        assert_close(FORTY.format(derivation["exp_shifted_sum"].value.exact(0, 0)), total)


def test_max_shift_is_off_for_small_exponentials_and_can_be_forced() -> None:
    small = {"inputs": {"scaled": [["3.2", "4.0", "1.0", "6.2", "8.0"]]}}
    assert "row_max" not in derive(small)                   # e^8 ~ 2981: nothing to shift
    forced = derive({**small, "options": {"max_shift": True}})
    assert frac(forced["shifted"].value.exact(0, 0)) == Fraction("-4.8")
    big = {"inputs": {"scaled": [[20, 10]]}}
    assert "row_max" in derive(big)                         # e^20 ~ 4.9e8
    assert "row_max" not in derive({**big, "options": {"max_shift": "off"}})
    # claims on the unshifted exponentials keep them on the page (auto)
    assert "row_max" not in derive({**big, "claims": {"exp[1]": ["485165195", "22026"]}})


def test_masked_entries_stay_masked_after_the_shift() -> None:
    derivation = derive({"inputs": {"scaled": [[30, "-inf", 10], [5, 40, 12]]},
                         "options": {"max_shift": True}})
    assert frac(derivation["row_max"].value.exact(0, 0)) == 30
    assert frac(derivation["row_max"].value.exact(1, 0)) == 40
    assert frac(derivation["exp_shifted"].value.exact(0, 1)) == 0
    assert [frac(derivation["shifted"].value.exact(1, j)) for j in range(3)] == [-35, 0, -28]


def test_the_checker_reads_unshifted_and_shifted_exponentials() -> None:
    # e^20 = 485165195.40979..., e^10 = 22026.4657948...; shifted: 1 and e^-10 = 4.53999...e-5
    spec = {"inputs": {"scaled": [[20, 10]]}, "options": {"max_shift": True},
            "claims": {"exp[1]": ["485165195.4", "22026.47"],
                       "exp_shifted[1]": ["1", "0.0000454"],
                       "exp_shifted_sum[1]": "1.0000454",
                       "row_max[1]": "20", "shifted[1]": ["0", "-10"],
                       "weights[1,2]": "0.0000454"}}
    derivation = derive(spec)
    report = symattn.check(derivation)
    verdicts = {verdict.claim.key: verdict.verdict for verdict in report.verdicts}
    assert set(verdicts.values()) <= {"ok", "propagated"}, verdicts
    assert verdicts["exp[1]"] == "ok" and verdicts["row_max[1]"] == "ok"
    wrong = derive({**spec, "claims": {"exp_shifted[1]": ["1", "0.0000460"]}})
    assert {v.verdict for v in symattn.check(wrong).verdicts} == {"ok", "wrong"}


def test_max_shift_option_errors_name_the_key() -> None:
    with pytest.raises(InputError, match=r"options\.max_shift.*auto"):
        derive({"inputs": {"scaled": [[1, 2]]}, "options": {"max_shift": "maybe"}})


def test_cli_max_shift_forces_the_steps(capsys: pytest.CaptureFixture[str]) -> None:
    for flag, expected in (("on", True), ("off", False)):
        assert main(["derive", "--example", "004-softmax-row", "--max-shift", flag,
                     "--format", "json"]) == 0
        names = [step["name"] for step in json.loads(capsys.readouterr().out)["steps"]]
        assert ("exp_shifted" in names) is expected


def test_seed_004_cat_eats_fish_is_shifted_like_its_numpy_code() -> None:
    # the seed's code: scores = Q K^T / sqrt(2); e = exp(scores - scores.max(-1))
    x = np.array([[1, 2], [3, 1], [2, 4]], dtype=float)
    scores = x @ x.T / np.sqrt(2)
    e = np.exp(scores - scores.max(-1, keepdims=True))
    derivation = symattn.derive(symattn.load_example("004-cat-eats-fish"))
    assert "exp_shifted" in derivation
    for i in range(3):
        for j in range(3):
            got = float(NumberFormat(digits=15).format(derivation["exp_shifted"].value.exact(i, j)))
            assert got == pytest.approx(e[i, j], rel=1e-12)


# ------------------------------------------------------------------ raw scores
def test_raw_scores_are_headed_raw_in_every_language() -> None:
    derivation = symattn.derive(symattn.load_example("004-softmax-180-210-95"))
    words = {"en": "Raw scores", "pl": "Surowe wyniki", "cs": "Surová skóre",
             "ru": "Сырые оценки", "uk": "Сирі оцінки"}
    for language, heading in words.items():
        page = symattn.render_latex(derivation, language=language)
        assert heading in page
        assert "after scaling" not in page
    unscaled = derive({"inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1]]},
                       "options": {"scale": "none"}})
    assert unscaled["scaled"].variant == "raw"
    assert "Scores without scaling" in symattn.render_markdown(unscaled)
    scaled = derive({"inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1]]}})
    assert scaled["scaled"].variant == ""


# ------------------------------------------------------------- compare blocks
def _softmax(row: list[mpmath.mpf]) -> list[mpmath.mpf]:
    exps = [mpmath.exp(x) for x in row]
    total = mpmath.fsum(exps)
    return [e / total for e in exps]


def _entropy(row: list[mpmath.mpf]) -> mpmath.mpf:
    return -mpmath.fsum(w * mpmath.log(w, 2) for w in row if w != 0)


def test_compare_times_ten_gives_seed_001_exercise_2() -> None:
    # seed 001: q3 . k_j / 2 = 0.485, 0.445, 0.730; ten times larger: 4.85, 4.45, 7.30,
    # weights [0.075, 0.051, 0.874] (the weakest falls from 0.297 to 0.051)
    derivation = symattn.derive(symattn.load_example("001-kocka-spi-venku"))
    (block,) = derivation.comparisons
    assert block.kind == "times" and block.row == 1           # query position 3
    left, right = block.sides
    assert [frac(x) for x in right.scores] == [Fraction("4.85"), Fraction("4.45"),
                                               Fraction("7.3")]
    three = NumberFormat(digits=None, places=3)
    assert [three.format(w) for w in left.weights] == ["0.309", "0.297", "0.395"]
    assert [three.format(w) for w in right.weights] == ["0.075", "0.051", "0.874"]
    with mpmath.workdps(50):
        expected = _softmax([mpmath.mpf(x) / 1000 for x in (485, 445, 730)])
        assert_close(FORTY.format(left.entropy), _entropy(expected))
        assert_close(FORTY.format(block.entropy_max), mpmath.log(3, 2))
    assert (left.largest, left.smallest) == (2, 1)
    page = symattn.render_markdown(derivation, language="en")
    assert "Side by side" in page and "0.0505571" in page and "0.296685" in page
    czech = symattn.render_markdown(derivation)            # the spec's language
    assert "Vedle sebe" in czech and "0{,}0505571" in czech


def test_compare_temperature_in_003_changes_the_weights_visibly() -> None:
    derivation = symattn.derive(symattn.load_example("003-cross-attention-temperature"))
    (block,) = derivation.comparisons
    left, right = block.sides
    assert (frac(left.number), frac(right.number)) == (Fraction(1, 2), Fraction(1))
    q = np.array([[2, 1, 0, 0], [0, 1, 2, 1]], dtype=float)
    k = np.array([[1, 1, 0, 0], [0, 1, 1, 0], [1, 0, 0, 1]], dtype=float)
    for row in range(2):
        scores = q[row] @ k.T / 2
        at = {t: np.exp(scores / t) / np.exp(scores / t).sum() for t in (0.5, 1.0)}
        assert np.abs(at[0.5] - at[1.0]).max() > 0.15        # visibly different
        got = [float(NumberFormat(digits=15).format(derivation["weights"].value.exact(row, j)))
               for j in range(3)]
        assert got == pytest.approx(at[0.5], rel=1e-12)
    side = [float(NumberFormat(digits=15).format(w)) for w in right.weights]
    scores = q[1] @ k.T / 2
    assert side == pytest.approx(np.exp(scores) / np.exp(scores).sum(), rel=1e-12)


def test_compare_scaling_and_errors() -> None:
    spec = {"inputs": {"Q": [[1, 2]], "K": [[1, 0], [0, 1], [1, 1]]},
            "compare": {"kind": "scaling"}}
    (block,) = derive(spec).comparisons
    left, right = block.sides
    assert right.kind == "unscaled"
    assert [frac(x) for x in right.scores] == [1, 2, 3]
    with mpmath.workdps(50):
        for j, w in enumerate(_softmax([mpmath.mpf(x) for x in (1, 2, 3)])):
            assert_close(FORTY.format(right.weights[j]), w)
        for j, w in enumerate(_softmax([mpmath.mpf(x) / mpmath.sqrt(2) for x in (1, 2, 3)])):
            assert_close(FORTY.format(left.weights[j]), w)
    with pytest.raises(InputError, match=r"compare.*scaling"):
        derive({"inputs": {"scaled": [[1, 2]]}, "compare": {"kind": "scaling"}})
    with pytest.raises(InputError, match=r"compare.*no query row 5"):
        derive({**spec, "compare": {"kind": "times", "row": 5}})
    with pytest.raises(InputError, match=r"compare\[2\]\.kind.*one of"):
        derive({**spec, "compare": [{"kind": "times"}, {"kind": "sideways"}]})


# ------------------------------------------------------------------- variance
def test_variance_of_q_dot_k_is_d_k_by_exact_enumeration() -> None:
    # entries +-1 with probability 1/2: mean 0, variance 1, independent; every case exactly
    from itertools import product

    for d_k in (1, 2, 3):
        cases = list(product((-1, 1), repeat=2 * d_k))
        dots = [sum(c[t] * c[d_k + t] for t in range(d_k)) for c in cases]
        mean = Fraction(sum(dots), len(cases))
        variance = Fraction(sum(x * x for x in dots), len(cases)) - mean ** 2
        assert mean == 0 and variance == d_k
        scaled = Fraction(sum(x * x for x in dots), len(cases) * d_k)
        assert scaled == 1
        derivation = derive({"inputs": {"Q": [[1] * d_k], "K": [[1] * d_k]},
                             "diagnostics": {"variance": True}})
        step = derivation["variance"]
        assert [frac(step.value.exact(0, j)) for j in range(2)] == [variance, scaled]
        names = derivation.names
        assert names[names.index("scaled") + 1] == "variance"
    page = symattn.render_latex(symattn.derive(symattn.load_example(
        "003-cross-attention-temperature")))
    assert r"\operatorname{Var}(q \cdot k)" in page and "= d_k = 4" in page
    with pytest.raises(InputError, match="variance.*d_k"):
        derive({"inputs": {"scaled": [[1, 2]]}, "diagnostics": {"variance": True}})


def test_a_printed_variance_is_checked() -> None:
    spec = {"inputs": {"Q": [[1, 0, 0, 0]], "K": [[1, 0, 0, 0]]},
            "diagnostics": {"variance": True}, "claims": {"variance[1,1]": "4",
                                                          "variance[1,2]": "2"}}
    verdicts = [v.verdict for v in symattn.check(derive(spec)).verdicts]
    assert verdicts == ["ok", "wrong"]


# ------------------------------------------- the layer after attention written out
def _decimal(text: str) -> Fraction:
    return Fraction(text.replace("{,}", ".").replace(",", "."))


def test_ffn_and_logits_rows_follow_from_the_printed_factors() -> None:
    # seed 000: FFN(x) = x W_FFN, logits = h W_vocab; every written-out term must be the
    # product of the factors printed before it, rounded to 6 significant digits, and
    # every total the sum of the printed terms (checked with fractions)
    from symattn.render.worked import build

    document = build(symattn.derive(symattn.load_example("000-cat-chases-mouse")))
    steps = {step.name: step for step in document.steps}
    six = NumberFormat(digits=6)
    checked = 0
    for name in ("ffn", "logits"):
        assert steps[name].kind == "product"
        for row in steps[name].expansions:
            for entry in row.entries:
                products = [part.split(r" \cdot ") for part in entry.substituted.split(" + ")]
                terms = entry.terms.split(" + ")
                assert len(products) == len(terms)
                total = Fraction(0)
                for (x, w), term in zip(products, terms):
                    exact = _decimal(x) * _decimal(w)
                    assert _decimal(term) == Fraction(six.format(
                        symattn.values.exact.fmpq(exact.numerator, exact.denominator)))
                    total += _decimal(term)
                assert _decimal(entry.total) == total
                checked += 1
    assert checked == 3 * 2 + 5
    # the probabilities' table: e^z of the printed logits' exact values, P = e^z / sum
    probs = steps["probs"].expansions[0]
    with mpmath.workdps(50):
        logits = [mpmath.mpf(row.score.decimal) for row in probs.entries]
        for row in probs.entries:
            assert float(row.exp.decimal) == pytest.approx(float(mpmath.exp(
                mpmath.mpf(row.score.decimal))), rel=1e-5)
        assert [e.token for e in probs.entries] == ["cat", "chases", "mouse", "quickly",
                                                    "sleeping"]
        expected = _softmax(logits)
        for row, p in zip(probs.entries, expected):
            assert float(row.weight.decimal) == pytest.approx(float(p), rel=1e-5)


def test_multi_head_w_o_mixes_the_heads_and_is_written_out() -> None:
    derivation = symattn.derive(symattn.load_example("003-multi-head"))
    concat, output = derivation["concat"].value, derivation["output"].value
    w_o = np.array([[0.5, 0, 0.5, 0], [0, 0.5, 0, 0.5], [0.5, 0, -0.5, 0], [0, 0.5, 0, -0.5]])
    c = np.array([[float(NumberFormat(digits=17).format(concat.exact(i, j)))
                   for j in range(4)] for i in range(3)])
    o = np.array([[float(NumberFormat(digits=17).format(output.exact(i, j)))
                   for j in range(4)] for i in range(3)])
    assert o == pytest.approx(c @ w_o, abs=1e-14)
    assert abs(o[1, 2]) > 0.04        # the heads differ in row 2: W_O mixes them
    page = symattn.render_latex(derivation)
    assert r"\;\middle|\;" in page                              # the concat substituted
    assert "c_{2,1} w_{1,1} + c_{2,2} w_{2,1}" in page          # W_O written out


def test_text_output_of_004_shows_the_shift_and_no_huge_number(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["derive", "--example", "004-softmax-180-210-95", "--language", "en"]) == 0
    text = capsys.readouterr().out
    assert "Step 1: Raw scores: S" in text and "Row maximum" in text
    assert "Exponentials of the shifted scores" in text and "Step 6: Attention weights" in text
    for number in re.findall(r"-?\d+(?:\.\d+)?(?:e[+-]\d+)?", text):
        assert abs(Fraction(number)) <= 10 ** 6 if "e" not in number else \
            int(number.split("e")[1]) < 6, number


def test_two_layer_ffn_with_biases_and_a_row_vocabulary_are_written_out() -> None:
    from symattn.render.worked import build

    spec = {"vocabulary": {"tokens": ["a", "b", "c"], "W_vocab": [[1, 0], [0, 1], [1, 1]],
                           "layout": "rows"},
            "inputs": {"sequence": ["a", "b"], "W_Q": "identity", "W_K": "identity",
                       "W_V": "identity"},
            "ffn": {"W_1": [["1", "-1", "0.5"], ["0.5", "1", "-1"]], "b_1": [["0.1", "0", "-0.2"]],
                    "activation": "relu", "W_2": [[1, 0], [0, 1], ["0.5", "0.5"]],
                    "b_2": [["0", "0.1"]]},
            "readout": {"unembedding": "tied"}}
    document = build(derive(spec))
    steps = {step.name.replace("\\_", "_"): step for step in document.steps}
    bias = [Fraction("0.1"), Fraction(0), Fraction("-0.2")]
    w_1 = [[Fraction(1), Fraction(-1), Fraction("0.5")], [Fraction("0.5"), Fraction(1),
                                                            Fraction(-1)]]
    six = NumberFormat(digits=6)
    for row in steps["ffn_hidden"].expansions:
        for j, entry in enumerate(row.entries):
            assert entry.symbolic.endswith(f"b_{{{j + 1}}}")
            factors = [part.split(r" \cdot ")[0] for part in
                       entry.substituted.replace(r"\left(", "").replace(r"\right)", "")
                       .replace(" - ", " + -").split(" + ")[:2]]
            total = Fraction(0)
            for k, x in enumerate(factors):
                product = _decimal(x) * w_1[k][j]
                total += Fraction(six.format(symattn.values.exact.fmpq(
                    product.numerator, product.denominator)))
            assert _decimal(entry.total) == total + bias[j]
    # logits = h W_vocab^T: the vocabulary's rows are the token embeddings
    assert steps["logits"].info["right"] == r"W_{vocab}^{\top}"
    (logits,) = steps["logits"].expansions
    assert [e.symbolic for e in logits.entries][2] == "h_{1} w_{1,3} + h_{2} w_{2,3}"
    h = [_decimal(x.split(r" \cdot ")[0]) for x in logits.entries[2].substituted.split(" + ")]
    assert _decimal(logits.entries[2].total) == h[0] + h[1]      # token c = (1, 1)


def test_compare_blocks_agree_with_whatif_and_sweep() -> None:
    # the same variants as `symattn whatif` (no scaling) and `symattn sweep` (another T)
    from symattn.explore.sweep import parse_temperatures, sweep
    from symattn.explore.whatif import whatif

    spec = {"inputs": {"Q": [[1, 2], [0, 1]], "K": [[1, 0], [0, 1], [1, 1]]},
            "compare": [{"kind": "scaling", "row": 1}, {"kind": "temperature",
                                                        "temperature": "0.5"}]}
    problem = Problem.from_mapping(spec)
    scaling, temperature = symattn.derive(problem).comparisons
    no_scaling = next(v for v in whatif(problem) if v.key == "no_scaling")
    assert no_scaling.weights is not None
    six = NumberFormat(digits=12)
    assert [six.format(w) for w in scaling.sides[1].weights] == \
        [six.format(no_scaling.weights.exact(0, j)) for j in range(3)]
    (swept,) = sweep(problem, parse_temperatures("0.5"))
    assert six.format(temperature.sides[1].entropy) == six.format(swept.rows[0].entropy[1])


def test_004_compares_its_raw_scores_with_the_scaled_ones() -> None:
    # the seed's remark: with d_k = 512 the scores [180, 210, 95] collapse the softmax;
    # divided by sqrt(512) they do not
    derivation = symattn.derive(symattn.load_example("004-softmax-180-210-95"))
    (block,) = derivation.comparisons
    raw, scaled = block.sides
    assert (raw.kind, scaled.kind) == ("given", "scaled")
    z = np.array([180.0, 210.0, 95.0]) / np.sqrt(512)
    expected = np.exp(z - z.max()) / np.exp(z - z.max()).sum()
    got = [float(NumberFormat(digits=15).format(w)) for w in scaled.weights]
    assert got == pytest.approx(expected, rel=1e-12)
    assert float(NumberFormat(digits=6).format(raw.weights[1])) == pytest.approx(1.0)
    page = symattn.render_markdown(derivation, language="en")
    assert "with and without scaling" in page
    assert "з масштабуванням і без нього" in symattn.render_markdown(derivation)
