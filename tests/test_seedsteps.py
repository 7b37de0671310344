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
        options = symattn.render.worked.Options(language=language)
        page = symattn.render_latex(derivation, options)
        assert heading in page
        assert "after scaling" not in page
    unscaled = derive({"inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1]]},
                       "options": {"scale": "none"}})
    assert unscaled["scaled"].variant == "raw"
    assert "Scores without scaling" in symattn.render_markdown(unscaled)
    scaled = derive({"inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1]]}})
    assert scaled["scaled"].variant == ""
