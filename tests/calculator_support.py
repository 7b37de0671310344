"""Shared by the calculator tests: an independent mpmath reference and page reading."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parent.parent
SIX_TOKENS = ROOT / "symattn" / "examples" / "003-calculator-six-tokens.toml"

mpmath.mp.dps = 40


def mp_weights(q: list[list[str]], k: list[list[str]], t: str, d_k: int | None,
               causal: bool = False) -> list[list[mpmath.mpf]]:
    """softmax(q k^T / (sqrt(d_k) T)) row by row in mpmath (d_k None: no scaling)."""
    scale = 1 / mpmath.sqrt(d_k) if d_k else mpmath.mpf(1)
    rows = []
    for i, qi in enumerate(q):
        scores = [sum(mpmath.mpf(a) * mpmath.mpf(b) for a, b in zip(qi, kj)) * scale
                  / mpmath.mpf(t) for kj in k]
        seen = scores[:i + 1] if causal else scores
        top = max(seen)
        exps = [mpmath.exp(s - top) for s in seen]
        total = sum(exps)
        rows.append([e / total for e in exps] + [mpmath.mpf(0)] * (len(scores) - len(seen)))
    return rows


def mp_entropy(row: list[mpmath.mpf]) -> mpmath.mpf:
    """-sum w log2 w over the positive weights, in bits."""
    return -sum(w * mpmath.log(w, 2) for w in row if w > 0)


def mp_mean_entropy(rows: list[list[mpmath.mpf]]) -> mpmath.mpf:
    return sum(mp_entropy(row) for row in rows) / len(rows)


def spec_matrices(path: Path = SIX_TOKENS) -> tuple[list[list[str]], list[list[str]]]:
    """Q and K of a spec, each number as its text (read with tomllib, not with symattn)."""
    with path.open("rb") as handle:
        data = tomllib.load(handle)
    def text(matrix: list[list[object]]) -> list[list[str]]:
        return [[str(x) for x in row] for row in matrix]
    return text(data["inputs"]["Q"]), text(data["inputs"]["K"])


def four_digits(value: mpmath.mpf) -> str:
    """4 significant digits, the way the page prints them (half up is safe: no ties here)."""
    return mpmath.nstr(value, 4, strip_zeros=False, min_fixed=-5, max_fixed=5)


def page_data(html: str) -> dict[str, object]:
    """The states embedded in a calculator page."""
    found = re.search(r'<script type="application/json" class="symattn-calculator-data">'
                      r'(.*?)</script>', html, re.S)
    assert found, "the page has no data block"
    data: dict[str, object] = json.loads(found.group(1))
    return data
