"""symattn extract: the structures outside documents print, read from small documents.

Math in image addresses, NumPy and PyTorch prints, Markdown tables with headings,
LaTeX divisions and transpose marks. Every expected value is read off the test
document by hand (decoded addresses by hand from the percent codes in the comments).
"""

from __future__ import annotations

from fractions import Fraction

from symattn.extract.document import from_text
from symattn.extract.scanner import Group, expression_above, scan


def _rows(text: str) -> list[list[list[str]]]:
    return [[[n.text for n in row] for row in g.rows] for g in scan(from_text(text)).groups]


def _singles(text: str) -> list[str]:
    return [n.text for n in scan(from_text(text)).singles]


# ------------------------------------------------------------ math in image addresses

def test_a_codecogs_image_is_read_as_its_tex_at_its_place_in_the_line() -> None:
    # %5C = \, %20 = space, %3D = =, %7B/%7D = {}, %26 = &: the address carries
    # "\bg_white A = \begin{bmatrix} 1.5 & -2 \\ 0.25 & 3 \end{bmatrix}"
    address = ("https://latex.codecogs.com/svg.latex?%5Cbg_white%20A%20%3D%20%5Cbegin%7Bbmatrix%7D"
               "%201.5%20%26%20-2%20%5C%5C%200.25%20%26%203%20%5Cend%7Bbmatrix%7D")
    text = "Intro line\n![The A matrix](" + address + ")\n"
    found = scan(from_text(text))
    assert [(g.names, [[n.text for n in r] for r in g.rows]) for g in found.groups] == [
        (("A",), [["1.5", "-2"], ["0.25", "3"]])]
    assert found.singles == []                      # nothing from "%20" or "svg"
    first = found.groups[0].rows[0][0]
    # "1.5" is encoded as "%201.5": its "1" is at column 1 + len("![The A matrix](") + ...
    assert (first.line, first.column) == (2, text.split("\n")[1].index("1.5%20%26") + 1)


def test_img_tags_github_render_and_chart_addresses_decode_plus_and_entities() -> None:
    # codecogs spells spaces and plus signs as HTML entities: "e^{1} + 1 = 3.718"
    assert _singles('<img src="https://latex.codecogs.com/png.image?\\dpi{110}'
                    'e^{1}&space;&plus;&space;1&space;=&space;3.718">') == ["1", "1", "3.718"]
    # GitHub's renderer is a form-encoded query: "+" is a space; %5E = ^
    assert _singles("![](https://render.githubusercontent.com/render/math?math=e%5E%7B0.5%7D"
                    "+%3D+1.649&mode=inline)") == ["0.5", "1.649"]
    # Google's chart API: the TeX is chl=, after cht=tx
    assert _singles("https://chart.googleapis.com/chart?cht=tx&chl=%5Cfrac%7B3%7D%7B4%7D"
                    "%3D0.75") == ["3", "4", "0.75"]


def test_other_addresses_and_object_prints_give_no_numbers() -> None:
    assert _singles("see https://arxiv.org/abs/1706.03762v7 and "
                    "[the post](http://example.org/a%20b/2024/) for 0.5") == ["0.5"]
    assert _singles("<Figure size 432x216 with 2 Axes>\nweights sum to 1.0") == ["1.0"]


def test_a_fraction_reads_as_a_division_and_transpose_marks_are_letters() -> None:
    document = from_text(r"$\dfrac{0.97}{2} = 0.485$ and $\frac{e^{1}}{e^{1} + e^{2}}$")
    assert "0.97/2 = 0.485" in document.text
    assert "e^1/(e^1 + e^2)" in document.text
    assert from_text(r"\frac{QK^\top}{\sqrt{d_k}}").text == "QK^T/√d_k"
    assert from_text(r"\mathbf{Q}\mathbf{K}^{\top}, K^{T}, \boldsymbol{x}").text == "QK^T, K^T, x"
    # no number from a transpose mark or a word command
    assert _singles(r"\text{softmax}\left(\frac{Q K^\intercal}{\sqrt{d_k}}\right)") == []


def test_square_roots_exponentials_and_functions() -> None:
    assert from_text(r"$\sqrt{d}=2$").text == "$√d=2$"
    assert from_text(r"\sqrt{d_k} = \sqrt{4} = 2").text == "√d_k = √4 = 2"
    assert from_text(r"e^{-0.5} = 0.607, \exp(1.2) = 3.320").text == \
        "e^-0.5 = 0.607, exp(1.2) = 3.320"
    assert _singles(r"e^{-0.5} = 0.607") == ["-0.5", "0.607"]


# ------------------------------------------------------------ NumPy and PyTorch prints

def test_numpy_prints_minus_signs_inside_rows_and_exponents() -> None:
    # NumPy separates by spaces: "-0.2" after "0.1" is a sign, not a subtraction
    assert _rows("[[ 0.1 -0.2]\n [ 0.3  0.4]]") == [[["0.1", "-0.2"], ["0.3", "0.4"]]]
    assert _rows("[0.5, -0.25]") == [[["0.5", "-0.25"]]]
    assert _rows("[1. 1. 1. 1.]") == [[["1", "1", "1", "1"]]]
    found = scan(from_text("array([[1.2e-03, 5.0e+00]], dtype=float32)"))
    (row,) = found.groups[0].rows
    assert [(n.value, n.places) for n in row] == [(Fraction(12, 10_000), 4), (Fraction(5), 1)]
    assert found.singles == []                      # no 32 from float32


def test_a_shortened_numpy_print_is_not_read() -> None:
    text = "[[0.1 0.2 ... 0.9]\n [0.3 0.4 ... 0.8]\n ...\n [0.5 0.6 ... 0.7]]\nx = [1, 2]"
    found = scan(from_text(text))
    assert [[n.text for n in g.numbers] for g in found.groups] == [["1", "2"]]
    assert found.singles == []
    assert _rows("[0.1, 0.2, …, 0.9]") == []


def test_pytorch_prints() -> None:
    text = ("tensor([[0.2500, 0.7500],\n        [0.6000, 0.4000]], grad_fn=<SoftmaxBackward0>)\n"
            "tensor(0.5000)\ntensor([[[ 0.3105, -0.5263]]], grad_fn=<BmmBackward0>)")
    found = scan(from_text(text))
    assert [[[n.text for n in r] for r in g.rows] for g in found.groups] == [
        [["0.2500", "0.7500"], ["0.6000", "0.4000"]], [["0.3105", "-0.5263"]]]
    assert [n.text for n in found.singles] == ["0.5000"]   # nothing from SoftmaxBackward0


def test_three_dimensional_prints_give_their_matrices() -> None:
    assert _rows("[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]") == [
        [["1", "2"], ["3", "4"]], [["5", "6"], ["7", "8"]]]


# ------------------------------------------------------------ tables

def test_a_markdown_table_keeps_headings_and_row_labels() -> None:
    text = ("| token | score | weight |\n|:--|--:|---|\n| the | 1.5 | 0.25 |\n| cat | -2 | 0.75 |\n"
            "\n| 7 | 8 |\n")
    groups = scan(from_text(text)).groups
    assert [([n.text for n in g.numbers], g.headings, g.label) for g in groups] == [
        (["1.5", "0.25"], ("score", "weight"), "the"),
        (["-2", "0.75"], ("score", "weight"), "cat"),
        (["7", "8"], ("", ""), "")]
    # the two rows are one table; the row after the blank line is another
    assert groups[0].table == groups[1].table == 0 and groups[2].table == text.index("| 7")


def test_a_bracket_group_is_not_a_table_row() -> None:
    group: Group = scan(from_text("q = [1, 2]")).groups[0]
    assert (group.headings, group.label, group.table) == ((), "", -1)


# ------------------------------------------------------------ several examples, prose

def test_prose_numbers_and_several_examples_in_one_file() -> None:
    text = ("## Example 1\nThe score is 2.5 and d_k = 4.\nq = [1, 0]\n\n"
            "## Example 2\nNow q = [0, 1] and the weight is 0.73.\n")
    found = scan(from_text(text))
    assert [(g.names, g.line) for g in found.groups] == [(("q",), 3), (("q",), 6)]
    assert [(n.text, n.line) for n in found.singles] == [
        ("1", 1), ("2.5", 2), ("4", 2), ("2", 5), ("0.73", 6)]


def test_unclosed_brackets_give_their_rows() -> None:
    assert _rows("[[[1, 2] [3, 4] [5, 6]") == [[["1", "2"]], [["3", "4"]], [["5", "6"]]]
    assert _rows("]] [1, 2]]]") == [[["1", "2"]]]


def test_continuation_lines_carry_the_expression_above() -> None:
    text = ("Q = X W_Q\n  = [[1, 2], [3, 4]]\nscores = [[1, 2]]\n  ≈ [[0.5, 1]]\n"
            "0.97 / 2\n  ≈ 0.485\n")
    document = from_text(text)
    found = scan(document)
    # the name comes from the line above when that line holds no group of its own
    assert [(g.names, g.above) for g in found.groups] == [
        (("Q",), "Q = X W_Q"), (("scores",), ""), ((), "scores = [[1, 2]]")]
    assert [(n.text, expression_above(document, n.start)) for n in found.singles] == [
        ("0.97", None), ("2", None), ("0.485", ("0.97 / 2", text.index("0.97")))]


def test_a_printed_dataframe_is_read_row_by_row_with_headings_and_index() -> None:
    text = ("Weights 1 and 2:\n"
            "           q1        q2\n"
            "the  0.100000  0.200000\n"
            "cat  0.300000 -0.400000\n"
            "\n"
            "     0     1\n"
            "0  1.5  2.25\n"
            "1  3.0  4.00\n"
            "In 2024 there were 3 cats.\n")
    found = scan(from_text(text))
    assert [([n.text for n in g.numbers], g.headings, g.label, g.line) for g in found.groups] == [
        (["0.100000", "0.200000"], ("q1", "q2"), "the", 3),
        (["0.300000", "-0.400000"], ("q1", "q2"), "cat", 4),
        (["1.5", "2.25"], ("0", "1"), "0", 7),
        (["3.0", "4.00"], ("0", "1"), "1", 8)]
    assert [g.table for g in found.groups] == [text.index("           q1")] * 2 + \
        [text.index("     0     1")] * 2
    # the column names 0 and 1 and the index are not numbers of the computation
    assert [n.text for n in found.singles] == ["1", "2", "2024", "3"]


def test_lines_that_do_not_line_up_are_not_a_table() -> None:
    found = scan(from_text("scores are\n0.5 0.25 here\nq k\n  1    2\n"))
    assert found.groups == []
    assert [n.text for n in found.singles] == ["0.5", "0.25", "1", "2"]


def test_two_lines_of_numbers_are_not_a_heading_and_a_row() -> None:
    found = scan(from_text(" 10  20\n  0  30\n"))
    assert found.groups == []
    assert [n.text for n in found.singles] == ["10", "20", "0", "30"]


def test_a_product_written_below_its_name_does_not_name_its_first_factor() -> None:
    """``Q = X W_Q`` then ``= [X] [W_Q] = [Q]`` on the lines below: the first matrix is X,
    a factor, and must not be named Q (it would look like Q in the wrong shape)."""
    text = ("Q = X W_Q\n"
            " = [[1, 0], [0, 2], [1, 1]]\n"
            "   [[1, 0], [0, 1]]\n"
            " = [[1, 0], [0, 2], [1, 1]]\n")
    assert [group.names for group in scan(from_text(text)).groups][0] == ()


def test_the_first_factor_of_a_product_on_one_line_is_not_named_by_the_product() -> None:
    text = "Q = X W_Q = [[1, 0], [0, 2]] [[1, 0], [0, 1]] = [[1, 0], [0, 2]]\n"
    names = [group.names for group in scan(from_text(text)).groups]
    assert names[0] == () and names[1] == ()


# ------------------------------------------------------------ products by their factors

def test_a_product_is_named_by_its_factors_whatever_its_values(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``A × V = C`` with A placed as the weights and V as V: C is the output, though its
    values are far from the exact ones (it is worked from wrong weights), so that by the
    values alone it would be placed nowhere. The weights in the product are placed by
    their values only, so C's place is as sure as theirs: its slip is suspicious."""
    import json
    import subprocess
    import sys

    document = tmp_path / "page.md"
    weights = "\\begin{bmatrix} 0.9 & 0.1 \\\\ 0.1 & 0.9 \\end{bmatrix}"
    document.write_text(
        "The weights, then the weights times the values:\n\n"
        f"$$\n\\text{{Attention Weights}} = {weights}\n$$\n\n"
        f"$$\n{weights}\n\\times\n"
        "\\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}\n=\n"
        "\\begin{bmatrix} 1.2 & 2.2 \\\\ 2.8 & 3.9 \\end{bmatrix}\n$$\n", encoding="utf-8")
    spec = tmp_path / "inputs.toml"
    # zero queries and keys: every score 0, every weight 1/2, output rows [2, 3]; from the
    # printed weights: 0.9 [1, 2] + 0.1 [3, 4] = [1.2, 2.2], 0.1 [1, 2] + 0.9 [3, 4] = [2.8, 3.8]
    spec.write_text("[inputs]\nQ = [[0, 0], [0, 0]]\nK = [[0, 0], [0, 0]]\n"
                    "V = [[1, 2], [3, 4]]\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "symattn", "check", str(document), "--spec",
                           str(spec), "-f", "json"], capture_output=True, text=True)
    report = json.loads(done.stdout)["reports"][0]
    output = sorted((c["position"], c["printed"], c["verdict"]) for c in report["claims"]
                    if c["line"] == 12)
    assert output == [("output[1,1]", "1.2", "propagated"), ("output[1,2]", "2.2", "propagated"),
                      ("output[2,1]", "2.8", "propagated"), ("output[2,2]", "3.9", "suspicious")]
    assert report["not_placed"] == []


# ------------------------------------------------------------ probabilities named P

def _check_json(document, spec):  # type: ignore[no-untyped-def]
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "symattn", "check", str(document), "--spec",
                           str(spec), "-f", "json"], capture_output=True, text=True)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout)["reports"][0]


def test_a_row_named_p_is_the_weights_when_it_sums_to_one(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``P = [...]`` is the softmax's probabilities when its row can sum to 1; then its
    place is certain (a wrong entry is wrong); a P that is no distribution is not."""
    spec = tmp_path / "inputs.toml"
    # softmax([ln 3, 0]) = [3/4, 1/4] exactly
    spec.write_text('[inputs]\nscores = [[1.0986122886681098, 0]]\n[options]\nscale = "none"\n',
                    encoding="utf-8")
    document = tmp_path / "page.md"
    document.write_text("The scores [1.10, 0] through softmax:\n\nP = [0.70, 0.30]\n",
                        encoding="utf-8")
    claims = _check_json(document, spec)["claims"]
    assert [(c["position"], c["printed"], c["verdict"]) for c in claims if c["line"] == 3] == [
        ("weights[1,1]", "0.70", "wrong"), ("weights[1,2]", "0.30", "wrong")]
    document.write_text("The scores [1.10, 0] through softmax:\n\nP = [0.70, 0.90]\n",
                        encoding="utf-8")
    claims = _check_json(document, spec)["claims"]
    assert not [c for c in claims if c["line"] == 3 and c["verdict"] == "wrong"]


def test_a_spec_is_not_about_the_sections_of_other_temperatures(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """One document, the same scores under T = 1 and T = 2: a spec of T = 2 judges the
    T = 2 section only; the T = 1 section's probabilities are not wrong for it."""
    spec = tmp_path / "inputs.toml"
    spec.write_text('[inputs]\nscores = [[1.0986122886681098, 0]]\n'
                    '[options]\nscale = "none"\ntemperature = 2\n', encoding="utf-8")
    # T = 1: [3/4, 1/4]; T = 2: softmax([ln 3 / 2, 0]) = [√3/(√3+1), 1/(√3+1)] = 0.634, 0.366
    markdown = tmp_path / "page.md"
    markdown.write_text("# Softmax at T = 1\n\nP = [0.75, 0.25]\n\n"
                        "# Softmax at T = 2\n\nP = [0.63, 0.37]\n", encoding="utf-8")
    # the same as a web page, whose lines are not those of its text
    page = tmp_path / "page.html"
    formula = "<math display=\"block\">" + "\n".join(["<mi>z</mi>", "<mo>=</mo>"] * 6) + \
        "\n<mi>x</mi></math>"          # one line of the page's text, 13 of its own
    page.write_text("<!DOCTYPE html><html><head><title>t</title></head><body>\n"
                    f"<p>{formula}</p>\n<h1>Softmax at T = 1</h1>\n"
                    "<p>P = [0.75, 0.25]</p>\n<h1>Softmax at T = 2</h1>\n"
                    "<p>P = [0.63, 0.37]</p>\n</body></html>\n", encoding="utf-8")
    for document, line in ((markdown, 7), (page, 18)):
        claims = _check_json(document, spec)["claims"]
        assert {c["line"] for c in claims if c["step"] == "weights"} == {line}, document
        assert [(c["printed"], c["verdict"]) for c in claims if c["line"] == line] == [
            ("0.63", "ok"), ("0.37", "ok")]


def test_a_minus_before_an_alignment_mark_stays_with_its_number() -> None:
    # an aligned environment puts "&" between a sign and its number: "=& -&1.23"
    assert _singles(r"$$\begin{aligned} c =& -&0.93 &*& 1.10 =& -&1.023 \end{aligned}$$") == \
        ["-0.93", "1.10", "-1.023"]
    assert _rows(r"$\begin{bmatrix}1 & -2\\ 3 & 4\end{bmatrix}$") == [[["1", "-2"], ["3", "4"]]]
