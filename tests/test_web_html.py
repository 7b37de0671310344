"""``--format html``: one self-contained page per derive, check and explore report.

The weights are computed here with mpmath, the colours and the escaping by
hand; the pages must parse without a single HTML5 parse error.
"""

from __future__ import annotations

import re
from html import unescape
from pathlib import Path

import mpmath
import pytest

import symattn
from symattn.render.web.heatmap_svg import shade
from symattn.render.web.mathml import to_mathml
from symattn.render.web.page import numbered
from tests.cli_support import assert_one_line_error, run
from tests.html_support import HOSTILE_TITLE, HOSTILE_TOKENS, hostile_spec, strict_errors

pytest.importorskip("html5lib")


def _hostile_weights() -> list[mpmath.mpf]:
    """Row 1 of softmax(Q K^T / sqrt 2) for the hostile spec, by mpmath."""
    mpmath.mp.dps = 30
    scores = [mpmath.mpf(s) / mpmath.sqrt(2) for s in (1, 0, 1)]
    exps = [mpmath.e ** s for s in scores]
    return [e / sum(exps) for e in exps]


def test_derive_page_is_self_contained_and_parses(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "page.html"
    status, _, err = run(capsys, "derive", "--example", "000-cat-chases-mouse", "-f", "html",
                         "-o", str(out))
    assert status == 0, err
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>") and '<html lang="pl">' in text
    assert strict_errors(text) == []
    # nothing is fetched: no script, no external address in src/href, no MathJax
    assert "<script" not in text and "mathjax" not in text.lower()
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", text)
    assert text.count("<math") > 10 and '<svg class="heatmap"' in text
    assert "@media print" in text


def test_every_number_shows_its_exact_form_and_certified_digits(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = hostile_spec(tmp_path)
    status, out, err = run(capsys, "derive", str(spec), "-f", "html", "--language", "en")
    assert status == 0, err
    weights = _hostile_weights()
    cell = re.search(r'<section class="step" id="step-weights">.*?<span class="num" '
                     r'tabindex="0" aria-describedby="([^"]+)">(.*?)<span class="tip" '
                     r'id="([^"]+)" aria-hidden="true">([^<]*)</span></span></td>', out, re.S)
    assert cell is not None and cell.group(1) == cell.group(3)   # the tip describes it
    tip, shown = unescape(cell.group(4)), re.sub(r"<[^>]*>", "", cell.group(2))
    # 0.401112, marked wrong: the spec printed 0.42 for it
    assert shown == f"{mpmath.nstr(weights[0], 6)} ✗"
    assert "printed: 0.42 ✗ wrong" in tip
    assert "exact: " in tip and "exp(" in tip
    certified = re.search(r"all certain: (\S+)", tip)
    assert certified is not None
    assert abs(mpmath.mpf(certified.group(1)) - weights[0]) < mpmath.mpf(10) ** -15


def test_hostile_title_and_tokens_stay_text(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = hostile_spec(tmp_path)
    for command in (["derive", str(spec)], ["check", str(spec)],
                    ["sweep", str(spec)], ["whatif", str(spec)]):
        status, out, err = run(capsys, *command, "-f", "html")
        assert status in (0, 1), err                      # 1: check found a wrong number
        assert "<script" not in out and "<img" not in out and "<b>" not in out
        assert strict_errors(out) == []
        assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp;" in out
    status, out, _ = run(capsys, "derive", str(spec), "-f", "html")
    title = re.search(r"<title>(.*)</title>", out)
    assert title is not None and unescape(title.group(1)) == HOSTILE_TITLE
    for token in HOSTILE_TOKENS:                          # the heatmap's labels
        assert f">{token.replace('&', '&amp;').replace('<', '&lt;').replace('>', '&gt;')}" \
               .replace('"', "&quot;") in out


def test_check_page_lists_problems_first_with_symbol_and_word(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    spec = hostile_spec(tmp_path)
    status, out, err = run(capsys, "check", str(spec), "-f", "html", "--language", "en")
    # weights[1,1] is 0.401112 (mpmath above): 0.42 is wrong, 0.20 right
    assert status == 1, err
    assert f"{float(_hostile_weights()[1]):.2f}" == "0.20"
    rows = re.findall(r'<td class="(ok|propagated|wrong|undecided)"><span aria-hidden="true">'
                      r"(.)</span>\u00a0([^<]*)</td>", out)
    assert rows == [("wrong", "✗", "WRONG"), ("ok", "✓", "right")]
    assert strict_errors(out) == []
    # the exact column's numbers show the exact value and more places on focus
    tips = [unescape(t) for t in re.findall(
        r'<td class="i num" tabindex="0" aria-describedby="[^"]+">[^<]*<span class="tip" '
        r'id="[^"]+" aria-hidden="true">([^<]*)</span>', out)]
    assert len(tips) == 2 and tips[0].startswith("exact: exp(")
    more = re.search(r"more places, all certain: ([0-9.]+)", tips[0])
    assert more is not None
    digits = more.group(1)
    assert mpmath.nstr(_hostile_weights()[0], len(digits) - 1).startswith(digits[:-1])


def test_explore_reports_and_sizes_are_pages(capsys) -> None:  # type: ignore[no-untyped-def]
    commands = [["sweep", "--example", "003-entropy-temperature"],
                ["whatif", "--example", "000-cat-chases-mouse"],
                ["permute", "--example", "000-cat-chases-mouse"],
                ["kvcache", "--example", "000-cat-chases-mouse"],
                ["sizes", "--d-model", "64", "--heads", "2", "--seq-len", "8"]]
    for command in commands:
        status, out, err = run(capsys, *command, "-f", "html")
        assert status == 0, (command, err)
        assert out.startswith("<!DOCTYPE html>") and 'tabindex="0"' in out
        assert "<h1>" in out
        assert strict_errors(out) == [], command


def test_handout_has_no_verdicts(capsys) -> None:  # type: ignore[no-untyped-def]
    _, marked, _ = run(capsys, "derive", "--example", "001-softmax-10-2-1", "-f", "html")
    _, handout, _ = run(capsys, "derive", "--example", "001-softmax-10-2-1", "-f", "html",
                        "--handout")
    assert 'class="report"' in marked and 'class="report"' not in handout
    assert "001-softmax-10-2-1" in marked and "001-softmax-10-2-1.toml" not in handout


def test_latex_only_options_are_refused(capsys) -> None:  # type: ignore[no-untyped-def]
    status, _, err = run(capsys, "derive", "--example", "001-softmax-10-2-1", "-f", "html",
                         "--template-dir", ".")
    assert status == 2
    assert_one_line_error(err, "--format html")
    status, _, err = run(capsys, "check", "--example", "001-softmax-10-2-1", "-f", "html",
                         "--summary")
    assert status == 2
    assert_one_line_error(err, "--summary")


def test_mathml_keeps_words_as_text() -> None:
    math = to_mathml(r"W[\text{a<b & c}] = \frac{S}{\sqrt{d_k}}", block=True)
    assert "<mtext>a&lt;b &amp; c</mtext>" in math and "<mfrac>" in math
    assert strict_errors(f"<!DOCTYPE html><html lang=en><title>t</title><p>{math}") == []


def test_a_formula_the_converter_cannot_read_stays_as_latex() -> None:
    assert to_mathml(r"\begin{unknown} <x>") == "<code>\\begin{unknown} &lt;x&gt;</code>"


def test_decimals_line_up_on_the_mark() -> None:
    assert numbered("0,36") == '<td class="i num">0</td><td class="f num">,36</td>'
    assert numbered("12.5") == '<td class="i num">12</td><td class="f num">.5</td>'
    assert numbered("−∞") == '<td class="i num">−∞</td><td class="f num"></td>'


def test_heatmap_shade_runs_from_light_to_dark() -> None:
    # halfway between (247, 251, 255) and (8, 48, 107), rounded: (128, 150, 181)
    assert shade(0.5) == "#8096b5"
    assert shade(-1.0) == shade(0.0) and shade(2.0) == shade(1.0)


def test_api_render_html_and_notebook_reprs() -> None:
    derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"), language="en")
    page = symattn.api.render_html(derivation, places=2)
    assert '<html lang="en">' in page and "0.00" in page
    cell = derivation._repr_html_()
    assert cell.startswith('<div class="symattn" lang="en">') and "<html" not in cell
    step = derivation["weights"]._repr_html_()
    assert step.count('class="num"') == 3 and "<math" in step
    assert strict_errors(f"<!DOCTYPE html><html lang=en><title>t</title>{cell}{step}") == []


def test_a_document_report_is_a_page_too(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """``check DOC -f html``: each number at its line and column, in words; the document's
    counts; --show problems keeps the problems and says how many right ones it leaves out."""
    document = tmp_path / "page.md"
    # softmax([0, 0]) = [0.5, 0.5]: the printed 0.6 is wrong (by its value alone: suspicious)
    document.write_text("Scores [0, 0].\n\nSoftmax gives [0.5, 0.6] <b>&</b>.\n",
                        encoding="utf-8")
    spec = tmp_path / "inputs.toml"
    spec.write_text('[inputs]\nscaled = [[0, 0]]\n[options]\nscale = "none"\n',
                    encoding="utf-8")
    status, out, err = run(capsys, "check", str(document), "--spec", str(spec), "-f", "html",
                           "-l", "en", "--show", "problems", "--keys")
    assert status == 0, err
    assert strict_errors(out) == []
    cells = re.findall(r"<tr><td>([^<]*)</td><td[^>]*>([^<]*)</td><td><code>([^<]*)</code>",
                       out)
    assert cells == [("3:21", "the weight of key 2 in row 1", "weights[1,2] @ line 3")]
    assert "right numbers are not shown" in out and "In the document:" in out
    assert "suspicious: its place is not certain" in out
    document.write_text("The scores [2, 1, 0] go into softmax:\n\n"
                        "softmax([2, 1, 0]) = [0.665, 0.245, 0.090]\n", encoding="utf-8")
    status, out, _ = run(capsys, "check", str(document), "-f", "html", "-l", "en")
    # e^2, e^1, e^0 over their sum: 0.66524..., 0.24472..., 0.09003...: all right
    assert status == 0 and strict_errors(out) == [] and re.search(r"example 2 \(lines 3-[34],", out)
    assert out.count("✓") >= 3 and "✗" not in out


def test_a_page_of_several_reports_is_headed_in_its_language(capsys) -> None:  # type: ignore[no-untyped-def]
    _, out, _ = run(capsys, "check", "--example", "001-softmax-10-2-1", "--example",
                    "004-softmax-row", "-f", "html", "-l", "pl")
    assert "<h1>Sprawdzone liczby z tekstu</h1>" in out and "symattn check" not in out
