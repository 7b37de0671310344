"""The derive page as a full worked example: scores term by term, the softmax table,
the weighted sum of the value rows (render/web/worked_html.py).

The spec is written here (d_k = 1, so a score is q_i k_j itself); every number
is checked against mpmath, rounded to the places the page prints.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import mpmath
import pytest

from tests.cli_support import run
from tests.html_support import strict_errors

pytest.importorskip("html5lib")

SPEC = """title = "two tokens"
language = "en"
tokens = ["<b>", "b"]

[inputs]
Q = [[1], [2]]
K = [[1], [0]]
V = [[1], [3]]
"""


def _text(html: str) -> str:
    """What a reader sees of some HTML: the tips left out, cells split by " | "."""
    html = re.sub(r'<span class="tip".*?</span>', "", html, flags=re.S)
    html = re.sub(r"</td>", " | ", re.sub(r"</tr>", "\n", html))
    return unescape(re.sub(r"<[^>]+>", "", html))


def _agrees(printed: str, value: mpmath.mpf) -> bool:
    """``printed`` is ``value`` rounded to its places."""
    places = len(printed.split(".")[1]) if "." in printed else 0
    return bool(abs(mpmath.mpf(printed) - value) <= mpmath.mpf(10) ** -places / 2)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> str:
    from symattn.cli.app import main

    folder = tmp_path_factory.mktemp("worked")
    spec = folder / "two.toml"
    spec.write_text(SPEC, encoding="utf-8")
    out = folder / "two.html"
    assert main(["derive", str(spec), "-f", "html", "-o", str(out)]) == 0
    return out.read_text(encoding="utf-8")


def _section(page: str, step: str) -> str:
    found = re.search(rf'<section class="step" id="step-{step}">(.*?)</section>', page, re.S)
    assert found is not None, step
    return found.group(1)


def test_the_page_parses_and_escapes_the_tokens_in_row_titles(page: str) -> None:
    assert strict_errors(page) == []
    assert "Row 1 (&lt;b&gt;), term by term." in page and "<b>" not in page


def test_scores_are_written_out_term_by_term(page: str) -> None:
    worked = _text(_section(page, "scores"))
    # s_{2,1} = q_{2,1} k_{1,1} = 2 · 1 = 2
    assert "=2·1=2" in worked.replace(" ", "")
    # each line's left side, focused, shows the exact score it works out (1, 0, 2, 0)
    chains = re.findall(r'<table class="chain">.*?</table>', _section(page, "scores"), re.S)
    tips = [unescape(t) for chain in chains
            for t in re.findall(r'<span class="tip"[^>]*>([^<]*)</span>', chain)]
    assert [tip.split("\n")[0] for tip in tips] == ["exact: 1", "exact: 0", "exact: 2",
                                                     "exact: 0"]


def test_the_softmax_table_has_the_exponentials_their_sum_and_the_weights(page: str) -> None:
    mpmath.mp.dps = 30
    table = re.search(r'<table class="softmax">.*?</table>', _section(page, "weights"), re.S)
    assert table is not None
    rows = [[cell.strip() for cell in line.split("|")][:-1]
            for line in _text(table.group(0)).split("\n") if "|" in line]
    # row 1: scores (1, 0); e^1, e^0, the sum e + 1, the weights e/(e+1) and 1/(e+1)
    assert [row[:3] for row in rows[:2]] == [["1", "<b>", "1"], ["2", "b", "0"]]
    e = mpmath.e
    for row, exp in zip(rows, (e, mpmath.mpf(1))):
        assert _agrees(row[3], exp) and _agrees(row[4], exp / (e + 1))
        assert _agrees(row[5].rstrip("%"), 100 * exp / (e + 1))
    total = rows[2][3]
    assert total.startswith("Σ1=") and _agrees(total[3:], e + 1)
    assert rows[2][4:] == ["1", "100%"]


def test_the_softmax_tables_numbers_show_their_exact_form_and_certain_digits(page: str) -> None:
    mpmath.mp.dps = 30
    table = re.search(r'<table class="softmax">.*?</table>', _section(page, "weights"), re.S)
    assert table is not None
    tips = [unescape(t) for t in re.findall(r'<span class="tip"[^>]*>([^<]*)</span>',
                                            table.group(0))]
    focusable = re.findall(r'<span class="num" tabindex="0" aria-describedby="([^"]+)"',
                           table.group(0))
    assert len(tips) == len(focusable) == 6     # score, e^score, weight of each key
    # row 1, key 1: the score 1, e^1, the weight e/(e+1), each with 15 certain digits
    e = mpmath.e
    digits = [tip.split(": ")[-1] for tip in tips[:3]]
    for shown, value in zip(digits, (mpmath.mpf(1), e, e / (e + 1))):
        assert len(shown.replace(".", "").lstrip("0")) == 15
        assert abs(mpmath.mpf(shown) - value) <= mpmath.mpf(10) ** -14 * value / 2
    assert tips[0].startswith("exact: 1\n") and "exp(1)" in tips[1]


def test_the_output_is_the_weighted_sum_of_the_value_rows(page: str) -> None:
    mpmath.mp.dps = 30
    worked = _text(_section(page, "output")).replace(" ", "")
    # o_{2,1} = a_{2,1} v_{1,1} + a_{2,2} v_{2,1} = e²/(e²+1) · 1 + 1/(e²+1) · 3
    line = re.search(r"≈([0-9.]+)·1\+([0-9.]+)·3≈([0-9.]+)\+([0-9.]+)≈([0-9.]+)", worked)
    assert line is not None
    e2 = mpmath.e ** 2
    weights = (e2 / (e2 + 1), 1 / (e2 + 1))
    assert _agrees(line.group(1), weights[0]) and _agrees(line.group(2), weights[1])
    assert _agrees(line.group(3), weights[0]) and _agrees(line.group(4), 3 * weights[1])
    assert _agrees(line.group(5), (e2 + 3) / (e2 + 1))


def test_a_handout_keeps_the_worked_rows(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = tmp_path / "two.toml"
    spec.write_text(SPEC, encoding="utf-8")
    status, out, err = run(capsys, "derive", str(spec), "-f", "html", "--handout")
    assert status == 0, err
    assert out.count('<table class="softmax">') == 2 and 'class="report"' not in out
