"""Inputs printed rounded: each entry is the interval of numbers that print as it.

The witnesses are worked out here: the example's numbers were made from weights
with four places (``_TRUE_W_Q``, ``_TRUE_W_K`` below, which print to two places as
the example's inputs), computed with mpmath; a number they give is consistent
with the printed inputs, and the checker must not call it wrong.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

import mpmath
import pytest

import symattn
from symattn.errors import InputError
from symattn.verify.checker import check

mpmath.mp.dps = 50

_X = [[1, "0.5", 0], [0, 1, "0.5"], ["0.5", 0, 1]]
_TRUE_W_Q = [["0.8137", "-0.2412"], ["0.3264", "0.5518"], ["-0.4471", "0.9023"]]
_TRUE_W_K = [["0.6152", "0.4388"], ["-0.3027", "0.7719"], ["0.5541", "-0.1846"]]
_W_V = [[1, 0], [0, 1], [1, 1]]


def _matrix(rows: list[list[object]]) -> mpmath.matrix:
    return mpmath.matrix([[mpmath.mpf(str(v)) for v in row] for row in rows])


def _true_results() -> dict[str, mpmath.matrix]:
    X = _matrix(_X)
    Q, K, V = X * _matrix(_TRUE_W_Q), X * _matrix(_TRUE_W_K), X * _matrix(_W_V)
    S = Q * K.T
    Z = S / mpmath.sqrt(2)
    A = mpmath.matrix(3, 3)
    for i in range(3):
        total = sum(mpmath.exp(Z[i, k]) for k in range(3))
        for j in range(3):
            A[i, j] = mpmath.exp(Z[i, j]) / total
    return {"scores": S, "weights": A, "output": A * V}


def _half_up(value: mpmath.mpf, places: int) -> str:
    return str(Decimal(mpmath.nstr(value, 40)).quantize(Decimal(1).scaleb(-places),
                                                         rounding=ROUND_HALF_UP))


def _verdicts(problem: symattn.Problem) -> dict[str, object]:
    return {v.position: v for v in check(symattn.derive(problem)).verdicts}


def test_the_true_weights_print_as_the_example_inputs() -> None:
    problem = symattn.load_example("015-rounded-inputs")
    for name, true in (("W_Q", _TRUE_W_Q), ("W_K", _TRUE_W_K)):
        printed = [[entry.text for entry in row] for row in problem.inputs[name]]
        assert [[_half_up(mpmath.mpf(v), 2) for v in row] for row in true] == printed
    assert problem.rounded_inputs == ("W_Q", "W_K")


def test_numbers_right_only_through_unprinted_digits_are_ok() -> None:
    problem = symattn.load_example("015-rounded-inputs")
    true = _true_results()
    verdicts = _verdicts(problem)
    flagged = {position for position, v in verdicts.items()
               if "input_rounding" in v.flags}             # type: ignore[attr-defined]
    assert flagged == {"scores[1,1]", "scores[1,3]", "weights[3,2]"}
    for position in flagged:
        v = verdicts[position]
        step, rest = position.split("[")
        i, j = (int(k) - 1 for k in rest.rstrip("]").split(","))
        # the true weights give the printed number; the printed ones do not
        assert _half_up(true[step][i, j], 3) == v.printed          # type: ignore[attr-defined]
        assert v.exact_rounded != v.printed                          # type: ignore[attr-defined]
        assert v.verdict == "ok"                                     # type: ignore[attr-defined]
        assert "unprinted digits of W_Q" in v.reason                 # type: ignore[attr-defined]


def test_a_number_wrong_for_every_input_stays_wrong() -> None:
    verdict = _verdicts(symattn.load_example("015-rounded-inputs"))["weights[2,1]"]
    assert verdict.verdict == "wrong"                                # type: ignore[attr-defined]
    assert "wrong for every input" in verdict.reason                 # type: ignore[attr-defined]
    assert _half_up(_true_results()["weights"][1, 0], 3) != "0.470"


def test_without_inputs_printed_the_same_numbers_are_wrong() -> None:
    problem = symattn.load_example("015-rounded-inputs")
    import dataclasses

    exact = dataclasses.replace(problem, rounded_inputs=())
    verdicts = _verdicts(exact)
    for position in ("scores[1,1]", "scores[1,3]", "weights[3,2]"):
        assert verdicts[position].verdict == "wrong"                 # type: ignore[attr-defined]


SINGLE = """
[inputs]
Q = [["{q}"]]
K = [["1"], ["0"]]
V = [["1"], ["0"]]
[inputs_printed]
Q = "rounded"
[options]
scale = "none"
rounding = "{rule}"
[claims]
"weights[1,1]" = "{printed}"
"""


def _single(q: str, printed: str, rule: str = "half-up") -> object:
    problem = symattn.loads(SINGLE.format(q=q, printed=printed, rule=rule), "single.toml")
    return check(symattn.derive(problem)).verdicts[0]


def _weight(q: str) -> mpmath.mpf:
    return 1 / (1 + mpmath.exp(-mpmath.mpf(q)))


def test_one_weight_over_an_interval_worked_by_hand() -> None:
    # q prints as 0.5: q in [0.45, 0.55], the weight 1/(1 + e^-q) in [0.6106, 0.6341]
    low, high = _weight("0.45"), _weight("0.55")
    assert _half_up(low, 3) == "0.611" and _half_up(high, 3) == "0.634"
    assert _single("0.5", "0.622").verdict == "ok"                  # type: ignore[attr-defined]
    inside = _single("0.5", "0.615")                                 # from q ~ 0.47
    assert inside.verdict == "ok" and "input_rounding" in inside.flags   # type: ignore
    outside = _single("0.5", "0.640")                                # beyond 0.6341
    assert outside.verdict == "wrong"                                # type: ignore[attr-defined]
    assert "wrong for every input" in outside.reason                 # type: ignore[attr-defined]


def test_percent_and_truncation() -> None:
    assert _single("0.5", "61.5%").verdict == "ok"                   # type: ignore[attr-defined]
    # truncated: 0.633 needs a weight in [0.633, 0.634): q near 0.545, inside [0.45, 0.55]
    assert _single("0.5", "0.633", "truncate").verdict == "ok"       # type: ignore[attr-defined]
    assert _single("0.5", "0.635", "truncate").verdict == "wrong"    # type: ignore[attr-defined]


def test_the_ends_of_an_interval_count() -> None:
    # q = 1 printed to 0 places: q in [0.5, 1.5), the weight up to 1/(1 + e^-1.5) = 0.81757...
    assert _half_up(_weight("1.5"), 4) == "0.8176" and _half_up(_weight("1.4999"), 4) == "0.8176"
    assert _single("1", "0.8176").verdict == "ok"                    # type: ignore[attr-defined]
    assert _single("1", "0.8177").verdict == "wrong"                 # type: ignore[attr-defined]


TWO = """
[inputs]
Q = [["1", "2"]]
K = [["1", "0.5"], ["-0.5", "1"]]
V = [["1"], ["0"]]
inputs_printed = "rounded"
[options]
scale = "none"
[claims]
"weights[1,1]" = "{printed}"
"""


def _largest_weight() -> mpmath.mpf:
    """The largest weight over the box, by hand: e^(s2 - s1) is smallest at a corner."""
    corners = [(a, b, c, d, k12, k21) for a in (0.5, 1.5) for b in (1.5, 2.5)
               for c in (0.5, 1.5) for d in (0.5, 1.5) for k12 in (0.45, 0.55)
               for k21 in (-0.55, -0.45)]
    # s1 = q . k1 = a c + b k12, s2 = q . k2 = a k21 + b d; w = 1 / (1 + e^(s2 - s1))
    return max(1 / (1 + mpmath.exp(a * k21 + b * d - a * c - b * k12))
               for a, b, c, d, k12, k21 in corners)


def test_a_number_the_balls_cannot_settle_is_undecided_not_wrong() -> None:
    largest = _largest_weight()
    assert _half_up(largest, 2) == "0.96"          # 0.97 cannot be reached ...
    verdict = symattn.loads(TWO.format(printed="0.97"), "two.toml")
    judged = check(symattn.derive(verdict)).verdicts[0]
    # ... but the enclosure (interval arithmetic over-approximates) does not show it
    assert judged.verdict == "undecided"
    assert "not settled" in judged.reason
    reachable = check(symattn.derive(symattn.loads(TWO.format(printed="0.96"), "two.toml")))
    assert reachable.verdicts[0].verdict == "ok"


def test_a_corner_the_first_slopes_miss_is_found_from_the_corner() -> None:
    # the largest weight needs b = 1.5 although at the printed inputs raising b raises it
    largest = _largest_weight()
    assert _half_up(largest, 3) == "0.961"
    judged = check(symattn.derive(symattn.loads(TWO.format(printed="0.961"), "two.toml")))
    assert judged.verdicts[0].verdict == "ok"


def test_inputs_printed_errors_name_the_key() -> None:
    base = {"inputs": {"Q": [["1"]], "K": [["1"]], "V": [["1"]]}}
    with pytest.raises(InputError, match=r"inputs_printed.W_Q: there is no input W_Q"):
        symattn.Problem.from_mapping({**base, "inputs_printed": {"W_Q": "rounded"}})
    with pytest.raises(InputError, match=r"inputs_printed: inputs_printed must be"):
        symattn.Problem.from_mapping({**base, "inputs_printed": "approximate"})
    rounded = symattn.Problem.from_mapping({**base, "inputs_printed": "rounded"})
    assert rounded.rounded_inputs == ("Q", "K", "V")


def test_many_rounded_entries_skip_the_search_but_still_prove_wrong(monkeypatch) -> None:
    from symattn.verify import input_rounding

    monkeypatch.setattr(input_rounding, "MOST_ENTRIES", 0)
    assert _single("0.5", "0.615").verdict == "undecided"            # type: ignore[attr-defined]
    assert _single("0.5", "0.640").verdict == "wrong"                # type: ignore[attr-defined]


def test_several_heads_are_not_followed_so_undecided() -> None:
    spec = """
inputs_printed = "rounded"
[inputs]
X = [["1", "0.5"], ["0.5", "1"]]
W_Q = [["1", "0"], ["0", "1"]]
W_K = [["1", "0"], ["0", "1"]]
W_V = [["1", "0"], ["0", "1"]]
[options]
heads = 2
[claims]
"head1.weights[1,1]" = "0.99"
"""
    verdict = check(symattn.derive(symattn.loads(spec, "heads.toml"))).verdicts[0]
    assert verdict.verdict == "undecided"


def test_working_lines_that_do_not_add_up_stay_wrong() -> None:
    # 0.5 * 0.6 printed as 0.31 on one line: wrong in working mode whatever q was
    spec = """
[inputs]
Q = [["0.5"]]
K = [["1"], ["0"]]
V = [["0.6"], ["0"]]
inputs_printed = "rounded"
[options]
scale = "none"
[claims]
"output[1,1].terms @ line" = ["0.31", "0"]
"output[1,1] @ line" = "0.37"
"""
    derivation = symattn.derive(symattn.loads(spec, "line.toml"))
    verdicts = check(derivation, working=True).verdicts
    total = next(v for v in verdicts if v.claim.target.part == "entry")
    assert total.verdict == "wrong" and "does not follow" in total.reason
