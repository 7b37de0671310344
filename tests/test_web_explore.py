"""``--format html`` of the explore reports: real tables, each number with its tip.

The pages are made from a spec of two tokens written here (d_k = 1, so the
scores are the products q_i k_j themselves); every value a tip is checked
against is computed here with mpmath or fractions, never taken from symattn.
"""

from __future__ import annotations

import re
from fractions import Fraction
from html import unescape
from pathlib import Path

import mpmath
import pytest

from tests.cli_support import run
from tests.html_support import strict_errors

pytest.importorskip("html5lib")

SPEC = """title = "two <tokens>"
language = "en"
tokens = ["a", "b"]

[inputs]
Q = [[1], [2]]
K = [[1], [0]]
V = [[1], [3]]
"""
CAUSAL = SPEC + '\n[options]\nmask = "causal"\n'
_TIP = re.compile(r'aria-describedby="([^"]+)">(.*?)<span class="tip" id="\1" '
                  r'aria-hidden="true">([^<]*)</span>', re.S)


def _page(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str,
          spec: str = SPEC, *options: str) -> str:
    path = tmp_path / "two.toml"
    path.write_text(spec, encoding="utf-8")
    status, out, err = run(capsys, command, str(path), *options, "-f", "html")
    assert status == 0, err
    assert strict_errors(out) == [], command
    assert "&lt;tokens&gt;" in out and "<tokens>" not in out
    return out


def _tips(out: str) -> list[tuple[str, str]]:
    """(number as shown, its tip) for every focusable number of a page."""
    found = [(re.sub(r"<[^>]*>", "", shown), unescape(tip)) for _, shown, tip in
             _TIP.findall(out)]
    # every description names a tip of the page
    assert len(found) == out.count("aria-describedby=") and found
    return found


def _certain(tips: list[tuple[str, str]], value: mpmath.mpf) -> list[str]:
    """The tips whose certified digits are ``value``'s 15 significant digits."""
    digits = mpmath.nstr(value, 15, strip_zeros=False)
    return [tip for _, tip in tips if f"all certain: {digits}" in tip]


def _softmax(scores: list[mpmath.mpf]) -> list[mpmath.mpf]:
    exps = [mpmath.e ** s for s in scores]
    return [e / sum(exps) for e in exps]


def _bits(weights: list[mpmath.mpf]) -> mpmath.mpf:
    return -sum(w * mpmath.log(w, 2) for w in weights)


def test_sweep_is_a_table_whose_entropies_show_their_digits(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    mpmath.mp.dps = 40
    out = _page(tmp_path, capsys, "sweep", SPEC, "--temperatures", "1,2")
    assert '<table class="report">' in out and "<pre>" not in out
    tips = _tips(out)
    # H_max = log2 2 = 1 exactly; row 1 at T = 2: softmax of (1/2, 0)
    assert ("1", "exact: 1") in [(shown, tip.split("\n")[0]) for shown, tip in tips]
    row_one = _bits(_softmax([mpmath.mpf(1) / 2, mpmath.mpf(0)]))
    assert _certain(tips, row_one)
    # the largest weight at T = 1: row 2, e^2 / (e^2 + 1)
    largest = mpmath.e ** 2 / (mpmath.e ** 2 + 1)
    assert [shown for shown, tip in tips if tip in _certain(tips, largest)] == ["0.8808"]
    # the numbers line up on the decimal mark: whole part and the rest in two cells
    assert re.search(r'<td class="i num" tabindex="0"[^>]*>0<span class="tip"[^<]*'
                     r'[^<]*</span></td><td class="f num">\.', out)


def test_whatif_weights_show_their_exact_form(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    mpmath.mp.dps = 40
    out = _page(tmp_path, capsys, "whatif")
    # five variants' weights and outputs, each a bracketed table of its own
    assert out.count('<table class="matrix">') == 10 and "<pre>" not in out
    tips = _tips(out)
    weight = _softmax([mpmath.mpf(2), mpmath.mpf(0)])[0]       # row 2, key 1
    # the focusable cell is the whole part, the rest its neighbour: 0 | .8808
    shown = [s for s, tip in tips if tip in _certain(tips, weight)]
    assert shown and set(shown) == {"0"}
    digits = mpmath.nstr(weight, 15, strip_zeros=False)
    cells = re.findall(r'>0<span class="tip"[^>]*>([^<]*)</span></td><td class="f num">'
                       r'(\.\d+)</td>', out)
    assert {rest for tip, rest in cells if digits in unescape(tip)} == {".8808"}
    assert any(tip.startswith("exact: ") and "exp" in tip for tip in _certain(tips, weight))


def test_permute_rows_show_the_output_digits(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    mpmath.mp.dps = 40
    out = _page(tmp_path, capsys, "permute")
    assert '<table class="report">' in out
    tips = _tips(out)
    # O_1 = (e + 3) / (e + 1): row 1 of the original, row 2 of the permuted problem
    output = (mpmath.e + 3) / (mpmath.e + 1)
    assert len(_certain(tips, output)) == 2


def test_kvcache_scores_are_exact_and_weights_certified(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    mpmath.mp.dps = 40
    tips = _tips(_page(tmp_path, capsys, "kvcache", CAUSAL))
    exact = {tip.split("\n")[0] for _, tip in tips}
    assert f"exact: {Fraction(2) * Fraction(1)}" in exact         # q_2 . k_1
    weight = _softmax([mpmath.mpf(2), mpmath.mpf(0)])[0]
    assert _certain(tips, weight)


def test_sizes_counts_show_their_exact_value(capsys) -> None:  # type: ignore[no-untyped-def]
    status, out, err = run(capsys, "sizes", "--d-model", "64", "--heads", "4", "--seq-len", "8",
                           "-f", "html")
    assert status == 0, err
    assert strict_errors(out) == [] and out.count('<table class="report">') == 2
    tips = {tip for _, tip in _tips(out)}
    # W_Q holds 64 x 64 numbers; one head's score matrix 8 x 8, four heads 4 x 64
    assert {f"exact: {64 * 64}", f"exact: {4 * 8 * 8}"} <= tips


def test_derives_framework_steps_stay_preformatted(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    # float16 of e^12 overflows 65,504: the naive row's sum is inf (side by side with
    # the max-shifted one, which only a preformatted block keeps lined up)
    path = tmp_path / "f16.toml"
    path.write_text('language = "en"\n[inputs]\nscaled = [[12, 11.5, 10.25]]\n', encoding="utf-8")
    status, out, err = run(capsys, "derive", str(path), "-f", "html", "--precision", "float16")
    assert status == 0, err
    section = re.search(r'<section class="text">(.*?)</section>', out, re.S)
    assert section is not None and "<p>" not in section.group(1)
    lines = unescape(re.sub(r"<[^>]*>", "", section.group(1))).split("\n")
    bars = {line.index("|") for line in lines if "|" in line}
    assert len(bars) == 1 and any("inf" in line for line in lines)
