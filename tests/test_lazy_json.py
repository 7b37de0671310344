"""JSON, check reports and decimals of large grids: the batch paths against
independent arithmetic (fractions, mpmath), and the JSON layout.

Blocks of 4,096 entries or more take the numpy enclosures (scaled, masked,
exponentials, row sums, rational matrices); every decimal here is recomputed
with Python's ``fractions`` or mpmath at 60 digits and rounded by the test.
"""

from __future__ import annotations

import json
import random
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal
from fractions import Fraction

import mpmath
import pytest
from flint import fmpq, fmpq_mat

from cli_support import run
import symattn
from symattn.cli.check import check_one
from symattn.problem import examples
from symattn.verify.verdicts import Failed
from symattn.render.report import compact_json, report_document, report_json
from symattn.values.exact import RationalTexts

N, D = 72, 4     # 72 x 72 = 5,184 scores: past the 4,096-entry batch threshold


def _spec(tmp_path, rng: random.Random, tenths: bool = False, mask: str = "causal"):
    """Q, K, V of one-decimal (or two-decimal) entries; d = 4 so the scale is 1/2."""
    def entry() -> str:
        return f"{rng.randint(-9, 9) / 10:.1f}" if tenths else f"{rng.randint(-99, 99) / 100:.2f}"
    inputs = {name: [[entry() for _ in range(D)] for _ in range(N)] for name in "QKV"}
    path = tmp_path / "spec.json"
    path.write_text(json.dumps({"title": "t", "inputs": inputs, "options": {"mask": mask}}),
                    encoding="utf-8")
    return path, {name: [[Fraction(x) for x in row] for row in m] for name, m in inputs.items()}


def _steps(capsys, path, *options):
    status, out, err = run(capsys, "derive", *([str(path)] if path else []), "--format", "json",
                           *options)
    assert status == 0, err
    return out, {step["name"]: step for step in json.loads(out)["steps"]}


def _significant(value: Fraction | mpmath.mpf, digits: int, rule: str) -> str:
    """``digits`` significant digits of a value, by Python's decimal module (60 digits)."""
    if value == 0:
        return "0"
    exact = Decimal(value.numerator) / Decimal(value.denominator) \
        if isinstance(value, Fraction) else Decimal(mpmath.nstr(value, 60, strip_zeros=False))
    exponent = exact.adjusted()
    quantum = Decimal(1).scaleb(exponent - digits + 1)
    rounded = exact.quantize(quantum, rounding=ROUND_HALF_UP if rule == "half-up"
                             else ROUND_HALF_EVEN)
    if rounded.copy_abs() >= Decimal(10) ** (exponent + 1):   # 9.96 -> 10.0
        rounded = rounded.quantize(quantum * 10)
    text = f"{rounded:f}"
    return text


def _scores(m):
    q, k = m["Q"], m["K"]
    return [[sum((a * b for a, b in zip(q[i], k[j])), Fraction(0)) for j in range(N)]
            for i in range(N)]


@pytest.mark.parametrize("rule", ["half-up", "half-even"])
def test_rational_grids_with_many_exact_ties_match_fractions(capsys, tmp_path, rule):
    # One-decimal inputs and the scale 1/2: scaled scores are multiples of 1/200,
    # so at 2 significant digits a large share are exact halfway cases.
    path, m = _spec(tmp_path, random.Random(1), tenths=True)
    _, steps = _steps(capsys, path, "--digits", "2", "--rounding", rule)
    scores = _scores(m)
    for i in range(N):
        for j in range(N):
            assert steps["scores"]["exact"][i][j] == str(scores[i][j])
            assert steps["scores"]["value"][i][j] == _significant(scores[i][j], 2, rule)
            scaled = scores[i][j] / 2
            assert steps["scaled"]["exact"][i][j] == str(scaled)
            assert steps["scaled"]["value"][i][j] == _significant(scaled, 2, rule)
            if j <= i:
                assert steps["masked"]["value"][i][j] == _significant(scaled, 2, rule)
            else:
                assert steps["masked"]["value"][i][j] == "-inf"
                assert steps["masked"]["exact"][i][j] == "-oo"
                assert steps["mask"]["value"][i][j] == "-inf"
    ties = sum((s / 2 * 10) % 1 == Fraction(1, 2) for row in scores for s in row)
    assert ties > 100          # the case the enclosure cannot decide was exercised
    for name in "QKV":
        assert steps[name]["exact"] == [[str(x) for x in row] for row in m[name]]


def test_exponentials_and_row_sums_match_mpmath(capsys, tmp_path):
    path, m = _spec(tmp_path, random.Random(2))
    _, steps = _steps(capsys, path, "--max-shift", "off")
    scores = _scores(m)
    mpmath.mp.dps = 60
    rng = random.Random(3)
    for i in [0, 1, N - 1] + rng.sample(range(N), 10):
        exps = [mpmath.exp(mpmath.mpf(scores[i][j].numerator) / scores[i][j].denominator / 2)
                for j in range(i + 1)]
        for j in range(N):
            expected = _significant(exps[j], 6, "half-up") if j <= i else "0"
            assert steps["exp"]["value"][i][j] == expected, (i, j)
            assert steps["exp"]["exact"][i][j] == ("0" if j > i else "1" if scores[i][j] == 0
                                                   else f"exp({scores[i][j] / 2})")
        assert steps["exp_sum"]["value"][i][0] == _significant(mpmath.fsum(exps), 6, "half-up")


def test_closed_forms_share_the_row_sum_and_stop_at_max_terms(capsys, tmp_path):
    path, m = _spec(tmp_path, random.Random(4))
    _, steps = _steps(capsys, path, "--max-shift", "off", "--max-terms", "10")
    scores = _scores(m)
    for i in range(N):
        open_keys = i + 1
        row_sum = " + ".join("1" if scores[i][c] == 0 else f"exp({scores[i][c] / 2})"
                             for c in range(open_keys))
        expected_sum = row_sum if open_keys <= 10 else None
        if len(set(scores[i][:open_keys])) == 1:   # equal scores: a rational row
            continue
        assert steps["exp_sum"]["exact"][i][0] == expected_sum
        for j in range(N):
            text = steps["weights"]["exact"][i][j]
            if j > i:
                assert text == "0"
            elif open_keys + 1 > 10:
                assert text is None
            else:
                numerator = "1" if scores[i][j] == 0 else f"exp({scores[i][j] / 2})"
                assert text == f"{numerator}/({row_sum})"


def test_json_is_written_one_matrix_row_a_line(capsys, tmp_path):
    path, _ = _spec(tmp_path, random.Random(5))
    out, steps = _steps(capsys, path)
    lines = out.splitlines()
    # every row of every matrix, exact and value, is a line of its own
    rows = sum(2 * step["shape"][0] for step in steps.values())
    assert sum(line.lstrip().startswith("[") and line.rstrip(",").endswith("]")
               for line in lines) == rows
    assert len(lines) < rows + 20 * len(steps)
    document = json.loads(out)
    assert list(document) == ["symattn", "schema_version", "title", "description", "tokens",
                              "format", "steps"]
    assert document["format"] == {"digits": 6, "places": None, "rounding": "half-up"}


def test_max_shift_auto_from_the_enclosure(capsys, tmp_path):
    # Scores up to about 4 * 9.9^2 / 2 = 196: the row sums pass 10^6, so auto shifts;
    # with entries below 1 they stay far below, so it does not.
    rng = random.Random(6)
    big = {name: [[f"{rng.randint(-99, 99) / 10:.1f}" for _ in range(D)] for _ in range(N)]
           for name in "QKV"}
    path = tmp_path / "big.json"
    path.write_text(json.dumps({"inputs": big, "options": {"mask": "causal"}}), encoding="utf-8")
    _, steps = _steps(capsys, path)
    assert "row_max" in steps and "exp_shifted" in steps
    small, _ = _spec(tmp_path, rng)
    _, steps = _steps(capsys, small)
    assert "row_max" not in steps


def test_check_json_one_claim_a_line_and_the_same_values(capsys, tmp_path):
    path, m = _spec(tmp_path, random.Random(7))
    _, steps = _steps(capsys, path)
    spec = json.loads(path.read_text(encoding="utf-8"))
    spec["claims"] = {f"output[{i + 1},{k + 1}]": steps["output"]["value"][i][k]
                      for i in range(N) for k in range(D)}
    spec["claims"]["output[3,1]"] = "9.99"          # one wrong
    path.write_text(json.dumps(spec), encoding="utf-8")
    status, out, err = run(capsys, "check", str(path), "--format", "json")
    assert status == 1, err
    claims = json.loads(out)["reports"][0]["claims"]
    assert len(claims) == N * D
    assert [c["position"] for c in claims if c["verdict"] == "wrong"] == ["output[3,1]"]
    claim_lines = [line for line in out.splitlines() if line.lstrip().startswith('{"step"')]
    assert len(claim_lines) == N * D


def test_compact_json_keeps_values():
    document = {"a": [1, {"b": [[1, 2], ["x", None]]}], "c": {}, "d": "ż\n"}
    for depth in range(0, 5):
        assert json.loads(compact_json(document, depth)) == document


def test_compact_json_writes_deep_values_as_json_dumps_does():
    """Below ``depth``, each value on one line exactly as ``json.dumps(value,
    ensure_ascii=False)`` writes it (the C encoder is made once, not per claim)."""
    values = [{"a": 1, "b": [1.5, None, True, "x\"y\n\u00e9\u2212\x00"],
               "c": {"d": -0.0, "e": 1e300, "f": 10 ** 30}},
              "s\u0000\U0001F600", 3, None, [], {}, [float("inf"), float("nan")], False]
    for value in values:
        line = compact_json({"deep": [value]}, 1).splitlines()[1]
        assert line == ' "deep": ' + json.dumps([value], ensure_ascii=False)


def test_rational_texts_of_a_block():
    rng = random.Random(9)
    values = [[Fraction(rng.randint(-50, 50), rng.randint(1, 12)) for _ in range(9)]
              for _ in range(7)]
    matrix = fmpq_mat([[fmpq(x.numerator, x.denominator) for x in row] for row in values])
    texts = RationalTexts(matrix)
    assert texts.block(range(7), range(9)) == [tuple(str(x) for x in row) for row in values]
    assert texts.block([6, 0], [8, 1]) == [(str(values[6][8]), str(values[6][1])),
                                           (str(values[0][8]), str(values[0][1]))]


def test_max_terms_reaches_the_next_token_probabilities(capsys):
    # Seed 000's logits and probabilities are built from the output rows: their
    # closed forms repeat every row's exponentials, past 64 for the probabilities.
    _, steps = _steps(capsys, None, "--example", "000-cat-chases-mouse")
    probs = steps["probs"]
    nulls = sum(text is None for row in probs["exact"] for text in row)
    assert nulls and probs["exact_omitted"] == nulls and probs["max_terms"] == 64
    assert all(text.count("exp(") <= 64 for row in probs["exact"] for text in row if text)
    _, steps = _steps(capsys, None, "--example", "000-cat-chases-mouse", "--max-terms", "0")
    texts = [text for row in steps["probs"]["exact"] for text in row]
    assert all(texts) and max(text.count("exp(") for text in texts) > 64
    assert "exact_omitted" not in steps["probs"]


def _tricky_report(tmp_path):
    """A report with labels json must escape, flags, carried and wrong numbers, a line
    number per claim and query positions (rows named by position)."""
    spec = {"title": "t \"q\" \u00fc", "inputs": {"Q": [["1", "0"], ["0", "1"]],
                                                  "K": [["1", "0"], ["0", "1"], ["1", "1"]],
                                                  "V": [["1", "2"], ["3", "4"], ["5", "6"]]},
            "options": {"query_positions": [2, 3], "mask": "causal"},
            "claims": {"weights[2,1] @ tab\there \"quoted\" \\ \u00e9\u2212": "0.670",
                       "weights[2,1]": "0.67", "weights[2,2]": "~0.33",
                       "weights[3]": ["0.25", "0.25", "0.5"], "output[2,1]": "1.66",
                       "scaled[2,1]": "0.707", "divisor": "1.41"}}
    path = tmp_path / "tricky.json"
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    return symattn.check(symattn.load(str(path)))


def test_report_json_writes_each_claim_as_json_dumps_writes_its_record(tmp_path):
    """``report_json`` writes each claim on a line of its own: each line is
    ``json.dumps`` of the claim's record (``Report.to_records``), for every bundled
    example and for a report with every kind of field, with and without ``max_terms``."""
    reports = [_tricky_report(tmp_path)]
    for name in examples.names():     # a spec with [[variants]] gives a report for each
        checked = check_one(str(examples.path(name)), None)
        reports += checked if isinstance(checked, list) else [checked]
    assert not any(isinstance(report, Failed) for report in reports)
    verdicts = {v.verdict for r in reports for v in r.verdicts}
    assert {"ok", "propagated", "wrong"} <= verdicts
    assert any(v.flags for v in reports[0].verdicts) and any(v.label for v in reports[0].verdicts)
    for report in reports:
        for max_terms in (None, 2):
            text = report_json([report], max_terms)
            lines = [line.strip() for line in text.splitlines()
                     if line.strip().startswith('{"step"')]
            records = report.to_records(max_terms)
            assert lines == [json.dumps(r, ensure_ascii=False) + ("," if k < len(records) - 1
                                                                 else "")
                             for k, r in enumerate(records)]
            assert json.loads(text) == json.loads(json.dumps(report_document([report],
                                                                             max_terms)))
