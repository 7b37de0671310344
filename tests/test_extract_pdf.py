"""Reading PDF documents: lines, columns, scripts, matrices, unreadable glyphs, locations,
hostile files and the optional extra.

PDFs are made here: byte by byte (tests/pdf_support.py) or, where TeX typesetting
is the point (a bmatrix, two columns, scripts), with pdflatex from a small .tex
(skipped when pdflatex is missing).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_support import run
from pdf_support import chromium_pdf, pdflatex, simple_pdf
from symattn.errors import InputError
from symattn.extract.checking import check_document
from symattn.extract.document import Document, from_text, read_document
from symattn.extract.pdf_layout import Glyph, Rule, page_lines
from symattn.extract.pdf_text import read_pdf
from symattn.extract.scanner import scan

needs_tex = pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex missing")
needs_chromium = pytest.mark.skipif(shutil.which("chromium") is None, reason="chromium missing")

# Q = K = I, V = [[1, -2], [3, 4]], scale 1/sqrt(2): scaled[1,1] = 0.7071, e^0.7071 = 2.0281
# (the page prints 2.128: wrong), weights row 1 = 2.0281 / 3.0281 = 0.6698, 0.3302;
# output row 1 = 0.6698 * 1 + 0.3302 * 3 = 1.6605, 0.6698 * -2 + 0.3302 * 4 = -0.0186;
# row 2 = 0.3302 + 3 * 0.6698 = 2.3395, -0.6605 + 2.6790 = 2.0186.
SPEC = "[inputs]\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, -2], [3, 4]]\n"
MARKDOWN = ("# A worked example\n"
            "With d_k = 2 the scaled score is 1 / 1.414 = 0.707, and e^0.707 = 2.128.\n"
            "weights = [[0.670, 0.330], [0.330, 0.670]]\n"
            "output = [[1.660, −0.019], [2.340, 2.019]]\n")
TEX = r"""\documentclass{article}
\usepackage{amsmath}
\pagestyle{empty}
\begin{document}
\section*{A worked example}
With $d_k = 2$ the scaled score is $1 / 1.414 = 0.707$, and $e^{0.707} = 2.128$.
\[ \text{weights} = \begin{bmatrix} 0.670 & 0.330 \\ 0.330 & 0.670 \end{bmatrix} \]
\[ \text{output} = \begin{bmatrix} 1.660 & -0.019 \\ 2.340 & 2.019 \end{bmatrix} \]
\end{document}
"""
EXPECTED = {("scaled[1,1]", "ok"), ("exp[1,1]", "wrong"), ("weights[1,1]", "ok"),
            ("weights[2,2]", "ok"), ("output[1,2]", "ok"), ("output[2,1]", "ok")}


def verdicts(document_path: Path) -> list[tuple[str, str]]:
    checked = check_document(read_document(document_path), SPEC)
    return [(v.position, v.verdict) for v in checked.report.verdicts]


@needs_tex
def test_the_worked_example_as_pdf_gives_the_verdicts_of_its_markdown(tmp_path: Path) -> None:
    markdown = tmp_path / "example.md"
    markdown.write_text(MARKDOWN, encoding="utf-8")
    pdf = pdflatex(TEX, tmp_path)
    from_markdown, from_pdf = verdicts(markdown), verdicts(pdf)
    assert EXPECTED <= set(from_markdown)
    assert from_pdf == from_markdown


@needs_tex
def test_a_bmatrix_minus_signs_and_scripts_come_out_as_the_normaliser_reads_them(
        tmp_path: Path) -> None:
    document = read_document(pdflatex(TEX, tmp_path))
    lines = document.raw.splitlines()
    assert "weights = [[ 0.670  0.330 ], [ 0.330  0.670 ]]" in lines
    assert "output = [[ 1.660  −0.019 ], [ 2.340  2.019 ]]" in lines
    assert any("d_{k} = 2" in line and "e^{0.707} = 2.128" in line for line in lines)
    groups = scan(document).groups
    output = next(g for g in groups if g.names == ("output",))
    assert [[str(n.value) for n in row] for row in output.rows] == [
        ["83/50", "-19/1000"], ["117/50", "2019/1000"]]


@needs_tex
def test_two_columns_are_read_column_by_column_and_ligatures_are_letters(
        tmp_path: Path) -> None:
    left = " ".join(f"Left words {k} fill the first column here." for k in range(30))
    right = " ".join(f"Right words {k} fill the second column." for k in range(30))
    tex = ("\\documentclass[twocolumn]{article}\n\\pagestyle{empty}\n\\begin{document}\n"
           f"An efficient start. {left}\n\\newpage\nsecond: {right}\n\\end{{document}}\n")
    text = read_document(pdflatex(tex, tmp_path)).raw
    assert "efficient" in text                      # the ffi ligature, as letters
    assert text.index("Left words 29") < text.index("second:")
    assert text.index("Right words 0") < text.index("Right words 29")


def test_super_and_subscripts_from_size_and_baseline() -> None:
    # "e" then a raised "0.5" in a smaller size; "d" then a lowered "k"; 10 then raised -3
    glyphs = [Glyph("e", 0, 5, 100, 10), Glyph("0", 5, 9, 96, 7), Glyph(".", 9, 11, 96, 7),
              Glyph("5", 11, 15, 96, 7), Glyph("d", 30, 35, 100, 10), Glyph("k", 35, 39, 102, 7),
              Glyph("1", 50, 55, 100, 10), Glyph("0", 55, 60, 100, 10),
              Glyph("−", 60, 64, 96, 7), Glyph("3", 64, 68, 96, 7)]
    assert page_lines(glyphs, 600.0) == ["e^{0.5} d_{k} 10^{−3}"]
    assert from_text("e^{0.5} d_{k}").text == "e^0.5 d_k"


def pdf_file(tmp_path: Path, data: bytes) -> Document:
    path = tmp_path / "made.pdf"
    path.write_bytes(data)
    return read_document(path)


def test_a_number_with_an_unreadable_glyph_is_never_read_as_another_number(
        tmp_path: Path) -> None:
    data = simple_pdf(["x = 0.25 and y = 1.5", "z = 3"], to_unicode={"5": "\ue000"})
    document = pdf_file(tmp_path, data)
    found = [str(n.value) for n in scan(document).singles]
    assert found == ["3"]                            # not 0.2, not 1
    assert document.unreadable == ((1, 5, "0.2\ufffd"), (1, 18, "1.\ufffd"))


def test_lines_are_located_by_page_and_line(tmp_path: Path) -> None:
    import pypdfium2

    pdf = pypdfium2.PdfDocument.new()
    for _ in range(2):
        pdf.new_page(612, 792)
    path = tmp_path / "blank.pdf"
    pdf.save(str(path))
    assert read_document(path).raw == "\n\n\n\n"    # two empty pages
    document = pdf_file(tmp_path, simple_pdf(["first 1.5", "second 2.5"]))
    assert document.part == "page"
    assert document.cell_of(2) == (1, 2)


@needs_tex
def test_a_second_page_is_named_in_the_draft(tmp_path: Path) -> None:
    tex = ("\\documentclass{article}\n\\begin{document}\nFirst page.\n\\newpage\n"
           "The weight is 0.670 here.\n\\end{document}\n")
    document = read_document(pdflatex(tex, tmp_path))
    line = next(n for n, text in enumerate(document.raw.splitlines(), 1) if "0.670" in text)
    assert document.cell_of(line) == (2, 1)


@pytest.mark.parametrize("data, says", [
    (b"not a pdf at all, just words", "damaged or not a PDF"),
    (simple_pdf(["x = 1"])[:40], "damaged or not a PDF"),
    (simple_pdf(["x = 1"], encrypted=True), "encrypted"),
])
def test_a_bad_pdf_is_a_one_line_error_naming_the_file(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, data: bytes, says: str) -> None:
    path = tmp_path / "bad.pdf"
    path.write_bytes(data)
    status, _, err = run(capsys, "extract", str(path))
    assert status == 2
    assert "bad.pdf" in err and says in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_without_the_extra_a_pdf_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "pypdfium2", None)     # the import fails
    path = tmp_path / "doc.pdf"
    path.write_bytes(simple_pdf(["x = 1"]))
    status, _, err = run(capsys, "extract", str(path))
    assert status == 2
    assert "pip install 'symattn[pdf]'" in err and "doc.pdf" in err


def test_the_page_budget_is_an_input_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import symattn.extract.pdf_text as pdf_text

    monkeypatch.setattr(pdf_text, "MAX_GLYPHS", 5)
    with pytest.raises(InputError, match="more than 5 characters"):
        read_pdf(simple_pdf(["x = 0.25 and y = 1.5"]), "long.pdf")
    monkeypatch.setattr(pdf_text, "MAX_PAGES", 0)
    with pytest.raises(InputError, match="at most 0 are read"):
        read_pdf(simple_pdf(["x = 1"]), "long.pdf")


_SEED = simple_pdf(["q_1 = [1.0, -0.5]", "e^0.5 = 1.649"])


@settings(max_examples=60, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, len(_SEED) - 1), st.integers(0, 255)), max_size=8),
       st.integers(1, len(_SEED)))
def test_mutated_pdf_bytes_give_a_document_or_an_input_error(
        changes: list[tuple[int, int]], length: int) -> None:
    data = bytearray(_SEED[:length])
    for at, value in changes:
        if at < len(data):
            data[at] = value
    try:
        read_pdf(bytes(data), "fuzz.pdf")
    except InputError:
        pass


@needs_tex
def test_reports_name_the_page_in_the_draft_and_in_json(capsys: pytest.CaptureFixture[str],
                                                        tmp_path: Path) -> None:
    import json

    pdf = pdflatex(TEX, tmp_path)
    checked = check_document(read_document(pdf), SPEC)
    assert "# line 2 (page 1, line 2): …d_{k} = 2 the scaled score" in checked.draft
    spec = tmp_path / "inputs.toml"
    spec.write_text(SPEC, encoding="utf-8")
    status, out, _ = run(capsys, "check", str(pdf), "--spec", str(spec), "-f", "json")
    claims = json.loads(out)["reports"][0]["claims"]
    assert status in (0, 1)
    assert {c["page"] for c in claims} == {1} and all("cell" not in c for c in claims)


@needs_tex
def test_matrices_side_by_side_of_different_heights_come_out_whole(tmp_path: Path) -> None:
    # X (3 x 4) times W (4 x 2) = Q (3 x 2), set on one display line; a 4-row matrix has
    # its name between its middle rows
    tex = r"""\documentclass{article}
\usepackage{amsmath}
\pagestyle{empty}
\begin{document}
\[ Q = XW = \begin{bmatrix} 1 & 0 & 1 & 0 \\ 0 & 2 & 0 & 2 \\ 1 & 1 & 1 & 1 \end{bmatrix}
   \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 1 & 1 \\ 0 & 0 \end{bmatrix}
   = \begin{bmatrix} 2 & 1 \\ 2 & 4 \\ 2 & 2 \end{bmatrix} \]
\[ W = \begin{bmatrix} 1 & 0 \\ 0 & 1 \\ 1 & 1 \\ 0 & 0 \end{bmatrix} \]
\end{document}
"""
    lines = read_document(pdflatex(tex, tmp_path)).raw.splitlines()
    assert "Q = XW = [[ 1  0  1  0 ], [ 0  2  0  2 ], [ 1  1  1  1 ]] [[ 1  0 ], [ 0  1 ], " \
        "[ 1  1 ], [ 0  0 ]] = [[ 2  1 ], [ 2  4 ], [ 2  2 ]]" in lines
    assert "W = [[ 1  0 ], [ 0  1 ], [ 1  1 ], [ 0  0 ]]" in lines


def test_a_hostile_page_of_scattered_glyphs_is_laid_out_quickly() -> None:
    import random
    import time

    chooser = random.Random(7)
    glyphs = []
    for _ in range(20_000):
        x = chooser.uniform(0, 600)
        glyphs.append(Glyph(chooser.choice("0123456789[]-. a\ufffd"), x, x + 5,
                            chooser.uniform(0, 800), chooser.choice([6.0, 8.0, 10.0, 12.0])))
    start = time.perf_counter()
    page_lines(glyphs, 600.0)
    assert time.perf_counter() - start < 10


@settings(max_examples=80, deadline=2000)
@given(st.lists(st.tuples(st.sampled_from("01-.[]x=\ufffd⎡⎤"), st.floats(0, 600),
                          st.floats(0, 800), st.sampled_from([5.0, 7.0, 10.0, 14.0, 30.0])),
                max_size=60))
def test_any_set_of_glyphs_gives_lines(glyphs: list[tuple[str, float, float, float]]) -> None:
    lines = page_lines([Glyph(c, x, x + size / 2, y, size) for c, x, y, size in glyphs], 600.0)
    assert all(isinstance(line, str) and "\n" not in line for line in lines)


def test_a_bracket_a_space_away_from_its_numbers_is_kept() -> None:
    # NumPy's continuation row "       [ 1.43, 2.64]]" in a monospaced font: a space
    # (0.6 em) between the bracket and the number; a bracket alone on its baseline is dropped
    advance = 6.0
    glyphs = [Glyph(c, k * advance, (k + 1) * advance, 100, 10)
              for k, c in enumerate("[ 1.43, 2.64]]") if c != " "]
    glyphs.append(Glyph("[", 0, 6, 140, 10))
    assert page_lines(glyphs, 600.0) == ["[ 1.43, 2.64]]"]


def test_a_stacked_fraction_over_a_bar_is_written_on_its_line() -> None:
    # "s = 2.034 over 5.068 ≈ 0.401": numerator and denominator smaller, above and below a
    # bar at y 97 (the math axis of the line on baseline 100); a radical sign set at the
    # top of its bar, above its radicand "2", moves down to it
    small = 7.0
    numerator = [Glyph(c, 20 + 4 * k, 24 + 4 * k, 94, small) for k, c in enumerate("2.034")]
    denominator = [Glyph(c, 20 + 4 * k, 24 + 4 * k, 103, small) for k, c in enumerate("5.068")]
    line = [Glyph("s", 0, 5, 100, 10), Glyph("=", 8, 14, 100, 10), Glyph("≈", 46, 52, 100, 10)]
    line += [Glyph(c, 56 + 5 * k, 61 + 5 * k, 100, 10) for k, c in enumerate("0.401")]
    root = [Glyph("√", 100, 108, 91, 10, 10), Glyph("2", 108, 113, 100, 10)]
    rules = [Rule(19.5, 40.5, 97.0), Rule(107.8, 114, 91.2)]
    text = page_lines(numerator + denominator + line + root, 600.0, rules)
    assert text == ["s = \\frac{2.034}{5.068} ≈ 0.401 √2"]
    assert from_text(text[0]).text == "s = 2.034/5.068 ≈ 0.401 √2"


def test_a_rule_under_a_line_of_text_or_between_table_rows_makes_no_fraction() -> None:
    # a heading underlined (the line runs past nothing, but nothing is under the rule),
    # a table's border between a header and a row (cells a wide gap apart), and a rule
    # under a line that runs past the rule's ends
    heading = [Glyph(c, 10 + 6 * k, 16 + 6 * k, 50, 10) for k, c in enumerate("Scores")]
    header = [Glyph("a", 10, 16, 100, 10), Glyph("b", 60, 66, 100, 10)]
    row = [Glyph("1", 10, 16, 112, 10), Glyph("2", 60, 66, 112, 10)]
    long_line = [Glyph(c, 10 + 6 * k, 16 + 6 * k, 150, 10) for k, c in enumerate("one 1.5 more")
                 if c != " "]
    below = [Glyph(c, 34 + 6 * k, 40 + 6 * k, 158, 10) for k, c in enumerate("2.5")]
    rules = [Rule(10, 46, 52), Rule(8, 68, 104), Rule(33, 53, 153)]
    glyphs = heading + header + row + long_line + below
    assert page_lines(glyphs, 600.0, rules) == page_lines(glyphs, 600.0) == [
        "Scores", "a b", "1 2", "one 1.5 more", "2.5"]


FRACTIONS_TEX = r"""\documentclass{article}
\usepackage{amsmath}
\pagestyle{empty}
\begin{document}
The weight is $\frac{2.034}{5.068} \approx 0.401$ and the scale $\sqrt{4} = 2$ here.
\[ \frac{QK^T}{\sqrt{2}} \approx 0.707, \qquad \frac{2.034 + 1}{5.068} = 0.598 \]
\begin{tabular}{|l|l|}
\hline
token & score \\
\hline
the & 0.5 \\
\hline
\end{tabular}

\noindent\rule{\textwidth}{0.4pt}
Text after a rule with 1.5 in it.
\end{document}
"""
FRACTIONS_HTML = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>
<p>The weight is <math><mfrac><mn>2.034</mn><mn>5.068</mn></mfrac><mo>≈</mo><mn>0.401</mn>
</math> and the scale <math><msqrt><mn>4</mn></msqrt><mo>=</mo><mn>2</mn></math> here.</p>
<math display="block"><mfrac><mrow><mi>Q</mi><msup><mi>K</mi><mi>T</mi></msup></mrow>
<msqrt><mn>2</mn></msqrt></mfrac><mo>≈</mo><mn>0.707</mn></math>
<table border="1"><tr><td>token</td><td>score</td></tr><tr><td>the</td><td>0.5</td></tr></table>
<hr><p>Text after a rule with 1.5 in it.</p>
</body></html>
"""


def assert_fractions_read(document: Document) -> None:
    lines = document.raw.splitlines()
    assert "The weight is \\frac{2.034}{5.068} ≈ 0.401 and the scale √4 = 2 here." in lines
    assert any(line.startswith("\\frac{QK^{T}}{√2} ≈ 0.707") for line in lines)
    # the table's borders and the rule across the page are no fraction bars
    assert lines[2:5] == ["token score", "the 0.5", "Text after a rule with 1.5 in it."]
    assert "2.034/5.068 ≈ 0.401" in document.text and "QK^T/√2 ≈ 0.707" in document.text


@needs_tex
def test_fractions_and_radicals_set_by_tex_are_read_on_their_line(tmp_path: Path) -> None:
    document = read_document(pdflatex(FRACTIONS_TEX, tmp_path))
    assert_fractions_read(document)
    assert "\\frac{2.034 + 1}{5.068} = 0.598" in document.raw
    assert "(2.034 + 1)/5.068 = 0.598" in document.text


@needs_chromium
def test_fractions_and_radicals_printed_by_a_browser_are_read_on_their_line(
        tmp_path: Path) -> None:
    assert_fractions_read(read_document(chromium_pdf(FRACTIONS_HTML, tmp_path)))


def test_a_page_of_many_rules_and_glyphs_is_laid_out_quickly() -> None:
    import random
    import time

    chooser = random.Random(11)
    glyphs = [Glyph(chooser.choice("0123456789√.= a"), x, x + 5, chooser.uniform(0, 800),
                    chooser.choice([7.0, 10.0])) for x in
              (chooser.uniform(0, 600) for _ in range(10_000))]
    rules = [Rule(x, x + chooser.uniform(2, 40), chooser.uniform(0, 800)) for x in
             (chooser.uniform(0, 600) for _ in range(3_000))]
    start = time.perf_counter()
    lines = page_lines(glyphs, 600.0, rules)
    assert time.perf_counter() - start < 20 and all("\n" not in line for line in lines)


HEADINGS_TEX = r"""\documentclass{article}
\usepackage{amsmath}
\pagestyle{empty}
\begin{document}
\section*{Example 3: Four Keys}
Let us consider these.
\[ Q = \begin{bmatrix} 1 & 1 & 1 & 1 \end{bmatrix}, \quad
   K = \begin{bmatrix} 1 & 0 & 0 & 0 \\ 0 & 1 & 0 & 0 \\ 0 & 0 & 1 & 0 \\ 0 & 0 & 0 & 1
   \end{bmatrix}, \quad V = \begin{bmatrix} 2 \\ 4 \\ 6 \\ 8 \end{bmatrix}. \]
\subsection*{Step 1: Scores}
\textbf{Final output:} 5 and \textbf{Result} run into text here.

\textbf{A bold line alone}

\texttt{\textbf{else:}}

\paragraph{Example 4: Run In} The text follows here.
\end{document}
"""


@pytest.mark.parametrize("engine", ["pdflatex", "xelatex"])
def test_headings_by_font_and_matrices_side_by_side_keep_their_rows_and_brackets(
        tmp_path: Path, engine: str) -> None:
    # two matrices of four rows side by side: their first rows share a baseline, as do
    # their last; each matrix keeps its own (the brackets between them end the rows); a
    # matrix of one row keeps its brackets (pdflatex draws them as glyphs with no text)
    if shutil.which(engine) is None:
        pytest.skip(f"{engine} missing")
    source = tmp_path / "doc.tex"
    source.write_text(HEADINGS_TEX, encoding="utf-8")
    import subprocess
    subprocess.run([engine, "-interaction=batchmode", "-halt-on-error", source.name],
                   cwd=tmp_path, capture_output=True, timeout=120, check=True)
    lines = read_document(tmp_path / "doc.pdf").raw.splitlines()
    assert lines[:2] == ["## Example 3: Four Keys", "Let us consider these."]
    assert lines[2] == ("Q = [1 1 1 1] , K = [[ 1  0  0  0 ], [ 0  1  0  0 ], [ 0  0  1  0 ], "
                        "[ 0  0  0  1 ]] , V = [[ 2 ], [ 4 ], [ 6 ], [ 8 ]] .")
    # a bold label before text and a bold word inside it are no headings; code is never one
    assert lines[3:7] == ["### Step 1: Scores", "Final output: 5 and Result run into text here.",
                          "#### A bold line alone", "else:"]
    # a heading run into its paragraph (a quad after it) is put on a line of its own
    assert lines[7:9] == ["#### Example 4: Run In", "The text follows here."]


def test_a_line_in_a_bold_font_is_a_heading_its_level_by_size() -> None:
    def word(text: str, x: float, base: float, size: float, bold: bool) -> list[Glyph]:
        step = size / 2
        return [Glyph(c, x + k * step, x + (k + 1) * step, base, size, bold=bold)
                for k, c in enumerate(text)]
    glyphs = (word("Scores", 0, 50, 16, True) + word("Step", 0, 80, 10, True) +
              word("2", 24, 80, 10, True) + word("body", 0, 100, 10, False) +
              word("text", 24, 100, 10, False) + word("Output:", 0, 120, 10, True) +
              word("5", 40, 120, 10, False))
    assert page_lines(glyphs, 600.0) == ["# Scores", "#### Step 2", "body text", "Output: 5"]


def test_a_closing_bracket_alone_on_a_line_of_code_is_kept(tmp_path: Path) -> None:
    # code in a monospaced font: the "]" that closes a list on its own line is text; in
    # a proportional font a bracket alone on its line is taken for a piece of a tall one
    code = ["weights = [", "[0.0, 0.5, 0.5],", "[0.0, 1.0, 0.0],", "]"]
    assert pdf_file(tmp_path, simple_pdf(code, font="Courier")).raw.splitlines()[:4] == code
    assert pdf_file(tmp_path, simple_pdf(code)).raw.splitlines()[:4] == code[:3] + [""]


@settings(max_examples=60, deadline=2000)
@given(st.lists(st.tuples(st.sampled_from("01-.[]x=√\ufffd⎡⎤"), st.floats(0, 600),
                          st.floats(0, 800), st.sampled_from([5.0, 7.0, 10.0, 14.0]),
                          st.booleans()), max_size=50),
       st.lists(st.tuples(st.floats(0, 600), st.floats(0, 60), st.floats(0, 800)),
                max_size=10))
def test_any_glyphs_and_rules_give_lines(glyphs: list[tuple[str, float, float, float, bool]],
                                         rules: list[tuple[float, float, float]]) -> None:
    lines = page_lines([Glyph(c, x, x + size / 2, y, size, size, bold) for c, x, y, size, bold
                        in glyphs], 600.0, [Rule(x, x + w, y) for x, w, y in rules])
    assert all(isinstance(line, str) and "\n" not in line for line in lines)


@needs_tex
def test_fractions_with_scripts_and_fractions_in_a_matrix(tmp_path: Path) -> None:
    # a sum of exponentials under the bar; a matrix whose entries are fractions: under
    # each fraction stands the numerator of the next row's, which is not its denominator
    tex = r"""\documentclass{article}
\usepackage{amsmath}
\pagestyle{empty}
\begin{document}
\[ \alpha_1 = \frac{e^{0.5}}{e^{0.5} + e^{1.2}} = \frac{1.649}{1.649 + 3.320} = 0.332 \]
\[ W = \begin{bmatrix} \frac{1}{2} & \frac{1}{4} \\ \frac{3}{4} & \frac{1}{2} \end{bmatrix} \]
\end{document}
"""
    document = read_document(pdflatex(tex, tmp_path))
    lines = document.raw.splitlines()
    assert lines[0] == ("α_{1} = \\frac{e^{0.5}}{e^{0.5} + e^{1.2}} = "
                        "\\frac{1.649}{1.649 + 3.320} = 0.332")
    assert "α_1 = e^0.5/(e^0.5 + e^1.2) = 1.649/(1.649 + 3.320) = 0.332" in document.text
    assert "\\frac{1}{2} \\frac{1}{4}" in lines and "\\frac{3}{4} \\frac{1}{2}" in lines
    # never the numerators and denominators read as a matrix of whole numbers
    assert not any(len(g.rows) >= 2 and len(g.rows[0]) == 2 for g in scan(document).groups)
