"""check on thousands of claims: the roundings decided a grid at a time
(``verify.batch``) against the claim-by-claim path and against mpmath + fractions.

The spec prints every weight at 3 places (some spoiled by one in the last
digit: wrong), the output entries of some rows as a document computes them
from its own printed weights (some of them therefore propagated), the others
rounded from the exact value, some as percentages. The report must be byte for byte the one the
claim-by-claim path writes.
"""

from __future__ import annotations

import json
import random
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from fractions import Fraction

import mpmath
import pytest

import symattn
from symattn.render.report import report_json, report_text
from symattn.values.rounding import Rounding
from symattn.verify import batch, checker

N, D = 40, 16    # 1,600 weights and 640 outputs claimed: past the batch threshold


def _inputs(rng: random.Random) -> dict[str, list[list[str]]]:
    return {name: [[f"{rng.randint(-99, 99) / 100:.2f}" for _ in range(D)] for _ in range(N)]
            for name in "QKV"}


def _exact_weights(inputs: dict[str, list[list[str]]]) -> list[list[mpmath.mpf]]:
    """Causal softmax of Q K^T / sqrt(16) at 60 digits, independently of symattn."""
    mpmath.mp.dps = 60
    q, k = ([[Fraction(x) for x in row] for row in inputs[n]] for n in "QK")
    rows = []
    for i in range(N):
        scores = [sum(a * b for a, b in zip(q[i], k[j])) / 4 for j in range(i + 1)]
        exps = [mpmath.exp(mpmath.mpf(s.numerator) / s.denominator) for s in scores]
        total = mpmath.fsum(exps)
        rows.append([e / total for e in exps] + [mpmath.mpf(0)] * (N - i - 1))
    return rows


def _round(value: mpmath.mpf, places: int, rounding: str = ROUND_HALF_UP) -> Decimal:
    """Rounded with Python's decimal from the 60-digit value (far from any midpoint)."""
    return Decimal(mpmath.nstr(value, 55, strip_zeros=False)).quantize(
        Decimal(1).scaleb(-places), rounding=rounding)


def _claims(rng: random.Random, inputs: dict[str, list[list[str]]]) -> dict[str, str]:
    weights = _exact_weights(inputs)
    printed = [[_round(w, 3) for w in row] for row in weights]
    values = [[Decimal(x) for x in row] for row in inputs["V"]]
    claims: dict[str, str] = {}
    for i in range(N):
        for j in range(N):
            text = str(printed[i][j])
            if rng.random() < 0.03:     # spoiled in the last digit: wrong
                text = str(printed[i][j] + Decimal("0.001"))
            claims[f"weights[{i + 1},{j + 1}]"] = text
        own_row = rng.random() < 0.15    # a row the document computed from its weights
        for k in range(D):
            exact = mpmath.fsum(w * mpmath.mpf(str(row[k]))
                                for w, row in zip(weights[i], values))
            if own_row:
                own = sum(printed[i][j] * values[j][k] for j in range(N))
                text = str(own.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
            elif rng.random() < 0.2:
                text = f"{_round(exact * 100, 1)}%"
            else:
                text = str(_round(exact, 4))
            claims[f"output[{i + 1},{k + 1}]"] = text
    return claims


@pytest.fixture(scope="module")
def spec() -> tuple[symattn.Problem, dict[str, list[list[str]]]]:
    rng = random.Random(4817)
    inputs = _inputs(rng)
    document = {"title": "many claims", "inputs": inputs, "options": {"mask": "causal"},
                "claims": _claims(rng, inputs)}
    return symattn.loads(json.dumps(document), kind="json"), inputs


def _reports(problem: symattn.Problem) -> tuple[str, str]:
    report = checker.check(symattn.derive(problem))
    return report_json([report]), report_text([report])


def test_batch_report_is_the_claim_by_claim_report(spec, monkeypatch) -> None:
    problem, _ = spec
    fast = _reports(problem)
    monkeypatch.setattr(batch.GridRoundings, "rounded", lambda *args: None)
    slow = _reports(problem)
    assert fast[0] == slow[0]
    assert fast[1] == slow[1]
    verdicts = {v["verdict"] for v in _verdicts(fast[0])}
    assert {"ok", "wrong", "propagated"} <= verdicts, verdicts


def _verdicts(text: str) -> list[dict[str, object]]:
    return list(json.loads(text)["reports"][0]["claims"])


def test_batch_is_used_and_agrees_with_mpmath(spec) -> None:
    problem, inputs = spec
    derivation = symattn.derive(problem)
    roundings = batch.GridRoundings(derivation, {"weights": N * N})
    weights = _exact_weights(inputs)
    decided = 0
    for places, rule, mode in ((3, Rounding.HALF_UP, ROUND_HALF_UP),
                               (6, Rounding.TRUNCATE, ROUND_DOWN),
                               (7, Rounding.HALF_EVEN, ROUND_HALF_UP)):
        for i in range(1, N):
            for j in range(i + 1):
                got = roundings.rounded("weights", i, j, places, rule)
                if got is None:
                    continue
                decided += 1
                expected = _round(weights[i][j], places, mode).scaleb(places)
                assert got == int(expected), (i, j, places, rule)
    # nearly every entry is settled by the enclosure (the rest go the exact way)
    assert decided > 0.99 * 3 * (N * (N + 1) // 2 - 1)


def test_few_claims_take_the_exact_path(spec) -> None:
    problem, _ = spec
    roundings = batch.GridRoundings(symattn.derive(problem), {"weights": 3})
    assert roundings.rounded("weights", 5, 2, 3, Rounding.HALF_UP) is None


def _interval(text: str) -> tuple[Fraction, Fraction]:
    """The values that print as ``text`` under half-up: [p - u/2, p + u/2)."""
    unit = Fraction(1, 10 ** len(text.partition(".")[2]))
    return Fraction(text) - unit / 2, Fraction(text) + unit / 2


def test_many_printings_of_one_entry_are_compared_once_per_distinct_pair(monkeypatch) -> None:
    from symattn.verify import consistency

    rng = random.Random(7)
    texts = [rng.choice(["0.5", "0.50", "0.49", "0.6", "0.500"]) for _ in range(1500)]
    claims = {f"weights[2,1] @ p{k}": text for k, text in enumerate(texts)}
    document = {"title": "t", "inputs": {"Q": [["1"], ["0"]], "K": [["1"], ["0"]],
                                         "V": [["1"], ["2"]]}, "claims": claims}
    calls = []
    compatible = consistency.compatible
    monkeypatch.setattr(consistency, "compatible",
                        lambda *args: calls.append(1) or compatible(*args))
    report = checker.check(symattn.derive(symattn.loads(json.dumps(document), kind="json")))
    assert len(calls) <= 5 * 5
    intervals = {text: _interval(text) for text in set(texts)}
    # a printing clashes with another when their intervals do not meet (by distinct text:
    # 1,500 x 1,500 comparisons of Fractions cost the test minutes)
    clashes = {text: any(max(low, other[0]) >= min(high, other[1])
                         for other in intervals.values())
               for text, (low, high) in intervals.items()}
    for verdict, text in zip(report.verdicts, texts):
        assert ("inconsistent" in verdict.flags) == clashes[text], text


# ------------------------------------- given scores: a masked row, labels, percentages
M = 36   # 1,296 weights: a softmax of given scores, row 1 fully masked (nan: undecided)


def _scores(rng: random.Random) -> list[list[str]]:
    return [["-inf" if i == 0 or j > i else f"{rng.randint(-250, 250) / 100:.2f}"
             for j in range(M)] for i in range(M)]


def _softmax(scores: list[list[str]]) -> list[list[mpmath.mpf | None]]:
    """Row softmax of the given scores at 60 digits (None: the fully masked row's nan)."""
    mpmath.mp.dps = 60
    rows: list[list[mpmath.mpf | None]] = []
    for row in scores:
        open_ = [mpmath.mpf(Fraction(s).numerator) / Fraction(s).denominator
                 for s in row if s != "-inf"]
        if not open_:
            rows.append([None] * M)
            continue
        total = mpmath.fsum(mpmath.exp(s) for s in open_)
        rows.append([mpmath.exp(open_[j]) / total if j < len(open_) else mpmath.mpf(0)
                     for j in range(M)])
    return rows


def _quick_spec() -> tuple[symattn.Problem, list[list[mpmath.mpf | None]], dict[str, str]]:
    """Every weight printed at 4 places (some wrong in the last digit, masked ones as
    0, approximate or percent printings under labels), the outputs of four rows from
    the document's own weights printed at 2 places (propagated where they differ)."""
    rng = random.Random(1812)
    scores = _scores(rng)
    values = [[f"{rng.randint(-99, 99) / 100:.2f}" for _ in range(3)] for _ in range(M)]
    weights = _softmax(scores)
    claims: dict[str, str] = {}
    for i, row in enumerate(weights):
        places = 2 if i >= M - 4 else 4
        for j, w in enumerate(row):
            text = "0.0" if w is None else str(_round(w, places))
            if w is not None and j <= i and rng.random() < 0.04:
                text = str(Decimal(text) + Decimal(1).scaleb(-places))   # wrong
            claims[f"weights[{i + 1},{j + 1}]"] = text
            if w is not None and j <= i and rng.random() < 0.03:
                claims[f"weights[{i + 1},{j + 1}] @ table"] = f"~{_round(w, 3)}"
                claims[f"weights[{i + 1},{j + 1}] @ percent"] = f"{_round(w * 100, 1)}%"
        if i >= M - 4:     # outputs from the printed weights, as the document did
            for k in range(3):
                own = sum(Decimal(claims[f"weights[{i + 1},{j + 1}]"]) * Decimal(values[j][k])
                          for j in range(M))
                claims[f"output[{i + 1},{k + 1}]"] = str(own.quantize(Decimal("0.001"),
                                                                      ROUND_HALF_UP))
    document = {"title": "quick", "inputs": {"scaled": scores, "V": values},
                "options": {"fully_masked": "nan"}, "claims": claims}
    return symattn.loads(json.dumps(document), kind="json"), weights, claims


@pytest.fixture(scope="module")
def quick_spec() -> tuple[symattn.Problem, list[list[mpmath.mpf | None]], dict[str, str]]:
    return _quick_spec()


def test_verdicts_with_and_without_the_grid_tables_are_the_same(quick_spec, monkeypatch
                                                                 ) -> None:
    """Every field of every verdict (closed form and English reason too), and the text
    and JSON reports, with the grid tables (``verify.batch``) and without them."""
    problem, _, _ = quick_spec
    settled = []
    real = batch.settled
    monkeypatch.setattr(batch, "settled",
                        lambda *args: (lambda got: settled.append(got) or got)(real(*args)))
    fast = checker.check(symattn.derive(problem))
    assert sum(got is not None for got in settled) > 1000     # the tables decided
    monkeypatch.setattr(batch.GridRoundings, "rounded", lambda *args: None)
    slow = checker.check(symattn.derive(problem))
    assert len(fast.verdicts) == len(slow.verdicts)
    for one, other in zip(fast.verdicts, slow.verdicts):
        assert (one.exact, one.reason) == (other.exact, other.reason)
        assert one == other
    assert report_json([fast]) == report_json([slow])
    assert report_text([fast]) == report_text([slow])
    counts = fast.counts
    assert min(counts.values()) > 0, counts     # ok, propagated, wrong and undecided


def test_plain_weight_verdicts_agree_with_mpmath(quick_spec) -> None:
    """Each plain weight: ok exactly when the printed text is the exact value rounded
    half up (60 digits, Python's decimal), and then its rounded text is that text."""
    problem, weights, claims = quick_spec
    report = checker.check(symattn.derive(problem))
    seen = 0
    for verdict in report.verdicts:
        if verdict.label or verdict.step != "weights":
            continue
        row, column = verdict.row_column
        assert row is not None and column is not None
        exact = weights[row - 1][column - 1]
        printed = claims[verdict.claim.key]
        if exact is None:
            assert verdict.verdict == "undecided"
            continue
        places = len(printed.partition(".")[2])
        right = str(_round(exact, places)) if exact else "0"
        if printed == right or (exact == 0 and Decimal(printed) == 0):
            assert verdict.verdict == "ok", verdict
            assert Decimal(verdict.exact_rounded) == Decimal(right)
            if exact != 0:     # four more places, rounded half up, and "..."
                assert verdict.exact_decimal == f"{_round(exact, places + 4)}...", verdict
            seen += 1
        else:
            assert verdict.verdict in ("wrong", "propagated"), verdict
    assert seen > 1000


def test_a_pickled_report_keeps_its_closed_forms() -> None:
    """A report comes back from a ``check --jobs`` worker pickled: its verdicts keep their
    closed forms (an irrational value's parts keep functions, which do not pickle)."""
    import pickle

    document = {"title": "t", "inputs": {"scaled": [["0", "1/2"]], "V": [["1"], ["2"]]},
                "claims": {"weights[1,1]": "0.38", "weights[1,2]": "0.63",
                           "output[1,1]": "1.62"}}
    report = checker.check(symattn.derive(symattn.loads(json.dumps(document), kind="json")))
    again = pickle.loads(pickle.dumps(report))
    # softmax of (0, 1/2) by hand: e^0 = 1; the output is (1 * 1 + e^(1/2) * 2) / the sum
    assert [v.exact for v in again.verdicts] == \
        ["1/(1 + exp(1/2))", "exp(1/2)/(1 + exp(1/2))", "(1 + 2*exp(1/2))/(1 + exp(1/2))"]
    assert [v.verdict for v in again.verdicts] == ["ok", "wrong", "ok"]
    assert [(v.reason, v.flags, v.exact_decimal) for v in again.verdicts] == \
        [(v.reason, v.flags, v.exact_decimal) for v in report.verdicts]
    assert report_json([again]) == report_json([report])
    assert report_text([again]) == report_text([report])


# ------------------------------------------------- exact ties among many claims
T = 24     # 576 scaled scores and 576 weights claimed: past batch._MIN_CLAIMS a step
# Rows of Q that are zero: row i has i + 1 equal scores, so each weight is 1/(i + 1),
# exactly halfway at these places (1/2 = 0.5, 1/4 = 0.25, 1/8 = 0.125, ...).
TIE_ROWS = {1: 0, 3: 1, 7: 2, 15: 3, 19: 1}
MODES = {"half-up": ROUND_HALF_UP, "half-even": ROUND_HALF_EVEN}
OTHER = {"half-up": "half-even", "half-even": "half-up"}


def _text(value: Fraction | Decimal, places: int, rule: str) -> str:
    """``value`` rounded at ``places`` under ``rule`` by Python's decimal (no minus on 0)."""
    exact = Decimal(value.numerator) / Decimal(value.denominator) \
        if isinstance(value, Fraction) else value
    rounded = exact.quantize(Decimal(1).scaleb(-places), rounding=MODES[rule])
    return f"{abs(rounded) if rounded == 0 else rounded:f}"


def _tie_spec() -> tuple[dict, dict[str, tuple[Fraction | None, int]]]:
    """A causal head, d = 4 (scale 1/2) of one-decimal Q and K: every scaled score is a
    multiple of 1/200, so at 2 places about half are exactly halfway. Each scaled score
    printed at 2 places, each tie as either rule rounds it (a few one off in the last
    digit, outside the TIE_ROWS); each weight of the TIE_ROWS likewise, the others
    (irrational) at 3 places from mpmath. Also the exact value of each rational claim
    (None: irrational) and its places."""
    rng = random.Random(2811)
    q = [[Fraction(0)] * 4 if i in TIE_ROWS else
         [Fraction(rng.randint(-9, 9), 10) for _ in range(4)] for i in range(T)]
    k = [[Fraction(rng.randint(-9, 9), 10) for _ in range(4)] for _ in range(T)]
    v = [[str(rng.randint(-9, 9)) for _ in range(2)] for _ in range(T)]
    scaled = [[sum(a * b for a, b in zip(q[i], k[j])) / 2 for j in range(T)] for i in range(T)]
    claims, exact = {}, {}
    mpmath.mp.dps = 60
    for i in range(T):
        for j in range(T):
            key = f"scaled[{i + 1},{j + 1}]"
            exact[key] = (scaled[i][j], 2)
            text = _text(scaled[i][j], 2, rng.choice(list(MODES)))
            if rng.random() < 0.03 and i not in TIE_ROWS:    # (their weights follow)
                text = str(Decimal(text) + Decimal("0.01"))
            claims[key] = text
        open_ = [mpmath.mpf(s.numerator) / s.denominator for s in scaled[i][:i + 1]]
        total = mpmath.fsum(mpmath.exp(s) for s in open_)
        for j in range(T):
            key = f"weights[{i + 1},{j + 1}]"
            if j > i:
                exact[key], claims[key] = (Fraction(0), 3), "0.000"
            elif i in TIE_ROWS or i == 0:
                places = TIE_ROWS.get(i, 3)
                exact[key] = (Fraction(1, i + 1), places)
                claims[key] = _text(Fraction(1, i + 1), places, rng.choice(list(MODES)))
            else:
                weight = Decimal(mpmath.nstr(mpmath.exp(open_[j]) / total, 50,
                                             strip_zeros=False))
                assert abs((weight * 1000) % 1 - Decimal("0.5")) > Decimal("1e-30")
                exact[key], claims[key] = (None, 3), _text(weight, 3, "half-up")
    document = {"title": "ties", "inputs": {"Q": [[str(x) for x in row] for row in q],
                                            "K": [[str(x) for x in row] for row in k],
                                            "V": v},
                "options": {"mask": "causal"}, "claims": claims}
    return document, exact


@pytest.mark.parametrize("rule", ["half-up", "half-even"])
def test_exact_ties_among_many_claims_are_flagged_and_judged_by_the_rule(rule, monkeypatch
                                                                          ) -> None:
    """With more than ``batch._MIN_CLAIMS`` claims on a step (its grid tables in use),
    every claim exactly halfway at its printed places has the "tie" flag and the reason
    that says so and what the other rule gives, and its verdict is the rule's: ok
    exactly when the printed text is the value rounded under the rule (the decimal
    module), else wrong. No other claim has the flag."""
    document, exact = _tie_spec()
    assert sum(key.startswith("weights") for key in document["claims"]) >= batch._MIN_CLAIMS
    tables = []
    real_table = batch._table
    monkeypatch.setattr(batch, "_table", lambda *args: tables.append(args) or
                        real_table(*args))
    problem = symattn.loads(json.dumps(document), kind="json")
    report = checker.check(symattn.derive(problem), rule)
    assert tables, "the grid tables were used"
    ties = {"scaled": 0, "weights": 0}
    outcomes = {"ok": 0, "wrong": 0}
    for verdict in report.verdicts:
        key, printed = verdict.claim.key, document["claims"][verdict.claim.key]
        value, places = exact[key]
        if value is None:        # an irrational weight, printed right
            assert verdict.verdict == "ok" and "tie" not in verdict.flags, verdict
            continue
        rounded = _text(value, places, rule)
        assert verdict.exact_rounded == rounded, verdict
        assert verdict.verdict == ("ok" if Decimal(printed) == Decimal(rounded) else "wrong"), \
            (verdict, verdict.reason)
        halfway = (value * 10 ** places).denominator == 2
        assert ("tie" in verdict.flags) == halfway, verdict
        sentence = (f"exactly halfway, so the rule decides ({OTHER[rule]} gives "
                    f"{_text(value, places, OTHER[rule])})")
        assert (sentence in verdict.reason) == halfway, verdict.reason
        ties[verdict.step] += halfway
        outcomes[verdict.verdict] += halfway
    assert ties["scaled"] > 200 and ties["weights"] == sum(i + 1 for i in TIE_ROWS), ties
    assert min(outcomes.values()) > 50, outcomes    # ties printed by the rule and not
