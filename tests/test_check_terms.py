"""check's JSON leaves out closed forms of more than ``--max-terms`` exponentials, as
derive's does: a causal softmax weight of query i is exp(s)/(a sum of i exponentials),
i + 1 exponentials in all, counted here by hand, not by the engine."""

from __future__ import annotations

import json
import random

import mpmath
import pytest

import symattn
from cli_support import run
from symattn.render.report import report_json

N = 16


def _weights(inputs: dict[str, list[list[str]]]) -> list[list[mpmath.mpf]]:
    """Causal softmax of Q K^T / sqrt(2) at 40 digits, independently of symattn."""
    mpmath.mp.dps = 40
    q, k = ([[mpmath.mpf(x) for x in row] for row in inputs[n]] for n in "QK")
    rows = []
    for i in range(N):
        exps = [mpmath.exp(mpmath.fsum(a * b for a, b in zip(q[i], k[j])) / mpmath.sqrt(2))
                for j in range(i + 1)]
        rows.append([e / mpmath.fsum(exps) for e in exps] + [mpmath.mpf(0)] * (N - i - 1))
    return rows


def _spec(tmp_path):
    rng = random.Random(3)
    inputs = {name: [[f"{rng.randint(-99, 99) / 100:.2f}" for _ in range(2)] for _ in range(N)]
              for name in "QKV"}
    # every weight printed right (to 3 places), so each claim is judged quickly
    claims = {f"weights[{i + 1},{j + 1}]": mpmath.nstr(w, 3, min_fixed=-10) if w else "0"
              for i, row in enumerate(_weights(inputs)) for j, w in enumerate(row)}
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"title": "t", "inputs": inputs,
                                "options": {"mask": "causal"}, "claims": claims}),
                    encoding="utf-8")
    return path


def _omitted_by_hand(max_terms: int) -> set[tuple[int, int]]:
    """Open weights (j <= i) whose closed form has i + 1 > max_terms exponentials."""
    return {(i, j) for i in range(1, N + 1) for j in range(1, i + 1) if i + 1 > max_terms}


@pytest.mark.parametrize("max_terms", [3, 10, 17])
def test_check_json_leaves_out_long_closed_forms(capsys, tmp_path, max_terms):
    path = _spec(tmp_path)
    status, out, err = run(capsys, "check", str(path), "-f", "json", "--max-terms",
                           str(max_terms))
    assert status == 0, err
    report = json.loads(out)["reports"][0]
    left_out = {(c["row"], c["column"]) for c in report["claims"] if c["exact"] is None}
    assert left_out == _omitted_by_hand(max_terms)
    if left_out:
        assert (report["exact_omitted"], report["max_terms"]) == (len(left_out), max_terms)
    else:
        assert "exact_omitted" not in report and "max_terms" not in report
    written = {(c["row"], c["column"]): c["exact"] for c in report["claims"]}
    assert written[(1, 1)] == "1" and written[(1, 2)] == "0"
    if (3, 2) not in left_out:
        assert written[(3, 2)].count("exp(") == 4


def test_check_json_writes_every_closed_form_with_max_terms_0(capsys, tmp_path):
    path = _spec(tmp_path)
    status, out, _ = run(capsys, "check", str(path), "-f", "json", "--max-terms", "0")
    report = json.loads(out)["reports"][0]
    assert all(c["exact"] is not None for c in report["claims"])
    assert "exact_omitted" not in report
    status, default, _ = run(capsys, "check", str(path), "-f", "json")
    assert json.loads(default)["reports"][0]["claims"] == report["claims"]   # 17 <= 64


def test_report_records_leave_out_only_when_asked(tmp_path):
    report = symattn.check(symattn.load(_spec(tmp_path)))
    assert all(r["exact"] is not None for r in report.to_records())
    short = report.to_records(max_terms=5)
    assert {(r["row"], r["column"]) for r in short if r["exact"] is None} == \
        _omitted_by_hand(5)
    document = json.loads(report_json([report], max_terms=5))["reports"][0]
    assert document["exact_omitted"] == len(_omitted_by_hand(5))
