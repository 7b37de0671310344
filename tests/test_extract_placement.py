"""Placement by structure: continuation lines, LaTeX fractions, another example in the same
document, and whether a place is anchored (fixed by the structure whatever the value).

Every document here is written for the test. The computation: one query over two keys,
unscaled, so the expected values are computed by hand with ``math.exp``:
scores [1, 0], exp [e, 1] = [2.71828.., 1], their sum 3.71828.., weights
[0.73106.., 0.26894..], output [2 * 0.73106.., 4 * 0.26894..] = [1.46212.., 1.07576..].
"""

from __future__ import annotations

import math

from symattn.extract.document import from_text
from symattn.extract.pipeline import extract
from symattn.extract.structure import continued
from symattn.extract.place import Placement
from symattn.extract.scanner import scan

SPEC = """[inputs]
Q = [[1, 0]]
K = [[1, 0], [0, 1]]
V = [[2, 0], [0, 4]]

[options]
scale = "none"
"""
E = math.e
WEIGHTS = (E / (E + 1), 1 / (E + 1))
OUTPUT = (2 * WEIGHTS[0], 4 * WEIGHTS[1])


def _placements(text: str) -> list[Placement]:
    return extract(from_text(text), SPEC).drafts[0].placements


def _on_line(placements: list[Placement], line: int) -> list[Placement]:
    return [p for p in placements if p.line == line]


def test_hand_values() -> None:
    # the printed numbers below are these values rounded by hand
    assert f"{WEIGHTS[0]:.3f}, {WEIGHTS[1]:.3f}" == "0.731, 0.269"
    assert f"{OUTPUT[0]:.3f}, {OUTPUT[1]:.3f}" == "1.462, 1.076"
    assert f"{E:.3f}, {E + 1:.3f}" == "2.718, 3.718"


def test_a_continuation_line_is_the_row_the_expression_above_names() -> None:
    text = ("The output of token 1:\n"
            "out_1 = 0.731 × v_1 + 0.269 × v_2\n"
            "      ≈ [1.462, 1.076]\n")
    [row] = [p for p in _on_line(_placements(text), 3)]
    assert (row.key, row.layout) == ("output[1]", ["~1.462", "~1.076"])
    assert row.anchored and "named out_1" in row.why


def test_a_continuation_is_not_a_factor_of_a_product_continued_below() -> None:
    text = ("out_1 = W\n"
            "  = [1.462, 1.076]\n"
            "    [2, 0]\n")
    document = from_text(text)
    first = scan(document).groups[0]
    assert continued(document.text, first) == first   # not named out_1 by the continuation


def test_a_row_placed_by_value_alone_is_not_anchored_and_knows_its_neighbours() -> None:
    text = "The weights come out as [0.731, 0.269], which sum to one.\n"
    [row] = _placements(text)
    assert row.key == "weights[1]" and not row.anchored
    # every entry fits, so the neighbours are those of the first: 0.731
    assert 1 <= len(row.nearest) <= 3
    key, value = row.nearest[0]
    assert key == "weights[1,1]" and math.isclose(value, WEIGHTS[0])


def test_the_result_of_an_exponential_is_anchored_whatever_its_value() -> None:
    # e^1 = 2.71828..: 2.719 is one unit off in the last place, still exp[1,1] by its place
    text = "First e^1 = 2.719 and then, alone, the total is 3.718.\n"
    placements = {p.layout: p for p in _placements(text)}
    assert placements["2.719"].key == "exp[1,1]" and placements["2.719"].anchored
    assert placements["3.718"].key == "exp_sum[1]" and not placements["3.718"].anchored


def test_a_latex_fraction_is_a_division_with_its_sides_placed() -> None:
    text = "$$\\frac{2.718}{3.718} = 0.731$$\n"
    placements = {p.key: p for p in _placements(text)}
    assert placements["exp[1,1]"].layout == "2.718"
    assert placements["exp_sum[1]"].layout == "3.718"
    assert placements["weights[1,1]"].layout == "0.731" and placements["weights[1,1]"].anchored


def test_a_second_example_is_not_placed_on_this_computation() -> None:
    text = ("Example 1.\n"
            "Q = [[1, 0]], K = [[1, 0], [0, 1]], V = [[2, 0], [0, 4]]\n"
            "out_1 = [1.462, 1.076]\n"
            "Example 2.\n"
            "Q = [[0, 1]]\n"
            "the second value row [0, 4] weighted, and the output [0.538, 2.924]\n")
    placements = _placements(text)
    assert [p.key for p in _on_line(placements, 3)] == ["output[1]"]
    assert _on_line(placements, 6) == []      # [0, 4] would fit V[2] by value alone
    alone = _placements("Q = [[1, 0]]\nthe second value row [0, 4] weighted\n")
    assert [p.key for p in _on_line(alone, 2)] == ["V[2]"]   # what the example boundary stops


def test_a_minus_inside_brackets_is_a_sign() -> None:
    [group] = scan(from_text("scores = [10, 0, -5] and [ 0.9  -0.8 ]")).groups[:1]
    assert [n.value for n in group.numbers] == [10, 0, -5]
    second = scan(from_text("[ 0.9  -0.8 ]")).groups[0]
    assert [float(n.value or 0) for n in second.numbers] == [0.9, -0.8]


def test_a_whole_number_row_matched_by_value_is_not_certain() -> None:
    [row] = _placements("a row [0, 4] printed on its own\n")
    assert row.key == "V[2]" and row.confidence != "certain" and not row.anchored


def test_a_table_is_read_column_by_column_by_its_headings() -> None:
    text = ("Query 1 over the two keys:\n\n"
            "| key | score | exp | weight |\n"
            "|-----|-------|-----|--------|\n"
            "| k1  | 1     | 2.718 | 0.731 |\n"
            "| k2  | 0     | 1.000 | 0.269 |\n")
    placements = {p.key: p for p in _placements(text)}
    assert placements["exp[1]"].layout == ["2.718", "1.000"]
    assert placements["weights[1]"].layout == ["0.731", "0.269"]
    # a one-query computation: the heading alone fixes the row
    assert placements["weights[1]"].anchored and "named weights" in placements["weights[1]"].why


def test_a_table_without_quantity_headings_stays_row_by_row() -> None:
    text = ("| a | b |\n"
            "|---|---|\n"
            "| 0.731 | 0.269 |\n")
    [row] = _placements(text)
    assert (row.key, row.layout) == ("weights[1]", ["0.731", "0.269"]) and not row.anchored


def test_a_sum_of_numbers_carried_forward_is_placed_from_the_printed_operands() -> None:
    # with d_k = 2 the scaled scores are [1/sqrt(2), 0] = [0.7071.., 0]: the document rounds
    # the exponent to 0.71, so e^0.71 = 2.034 (exact exp: 2.028) and 2.034 + 1 = 3.034 (exact
    # sum: 3.028); the sum is placed because its terms are the document's own exponentials
    assert f"{math.exp(0.71):.3f}, {math.exp(1 / math.sqrt(2)) + 1:.3f}" == "2.034, 3.028"
    spec = SPEC.replace('scale = "none"', "d_k = 2")
    text = ("e^0.71 ≈ 2.034\n"
            "e^0 = 1\n"
            "Sum of exponentials: 2.034 + 1 ≈ 3.034\n")
    draft = extract(from_text(text), spec).drafts[0]
    placements = {(p.key, p.line): p for p in draft.placements}
    assert placements[("exp_sum[1].terms", 3)].layout == ["2.034", "1"]
    total = placements[("exp_sum[1]", 3)]
    assert total.layout == "~3.034" and not total.anchored   # by values carried, not fixed
    alone = extract(from_text(text.splitlines()[2]), spec).drafts[0]
    assert alone.placements == []     # without the printed exponentials nothing fits


def test_an_exponential_of_a_rounded_exponent_is_likely_not_a_guess() -> None:
    # the exponent 0.5 printed for exact 1/sqrt(2) * ... : use the scaled spec's own numbers
    spec = SPEC.replace('scale = "none"', "d_k = 2")
    # scaled [1/sqrt(2), 0] = [0.7071.., 0]; printed 0.71, and e^0.71 = 2.03399.. -> 2.034,
    # while the exact e^0.7071.. = 2.02811.. -> 2.028
    assert f"{math.exp(0.71):.3f}, {math.exp(1 / math.sqrt(2)):.3f}" == "2.034, 2.028"
    draft = extract(from_text("e^0.71 ≈ 2.034\n"), spec).drafts[0]
    result = next(p for p in draft.placements if p.key == "exp[1,1]")
    assert result.layout == "~2.034" and result.anchored and result.confidence == "likely"


def test_a_weight_before_a_row_of_v_is_in_that_rows_column() -> None:
    # 0.269 fits weights[1,2] by value; the vector after it, [0, 4], is V's row 2
    text = ("y_1 &= 0.731 [2, 0]\n"
            "    + 0.269 [0, 4]\n"
            "    &= [1.462, 1.076]\n")
    placements = {(p.key, p.line): p for p in _placements(text)}
    assert placements[("weights[1,1]", 1)].layout == "0.731"
    assert placements[("weights[1,2]", 2)].layout == "0.269"
    # the last line continues the expression of the first (through the line opening with +)
    assert placements[("output[1]", 3)].anchored


def test_a_division_alone_places_no_weight_and_an_exponent_only_on_a_score() -> None:
    # "1/0.269": 0.269 is no denominator of this computation; e^{0.731} inside a fraction
    # has no "=" after it, and 0.731 is no scaled score here (scaled = [1, 0])
    text = "z / T = [1/0.269] and \\frac{e^{0.731}}{\\sum_{j=1} e^{z_j}}\n"
    placed = [(p.layout, p.key) for p in _placements(text)]
    assert placed == [("1", "scores[1,1]")]   # a numerator may be a score; j=1 is an index


def test_a_name_that_does_not_fit_yields_to_a_quantity_that_fits_every_entry() -> None:
    # "Masked Scores" is read as the name "Scores"; the matrix is the masked scores
    # (scores [[1, 0], [0, 1]] with the causal mask: [[1, -inf], [0, 1]])
    spec = ("[inputs]\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\nV = [[1, 0], [0, 1]]\n"
            '[options]\nscale = "none"\nmask = "causal"\n')
    draft = extract(from_text("Masked Scores = [[1, -inf], [0, 1]]\n"), spec).drafts[0]
    [matrix] = draft.placements
    assert matrix.key == "masked" and matrix.confidence == "certain"


def test_a_product_written_over_several_lines_places_its_factors() -> None:
    # Q K^T with Q = [[1, 2], [3, 4]], K = [[0, 1], [2, 0]]: K^T = [[0, 2], [1, 0]] (square,
    # printed transposed: its rows are K's columns) and Q K^T = [[2, 2], [4, 6]] by hand
    spec = ("[inputs]\nQ = [[1, 2], [3, 4]]\nK = [[0, 1], [2, 0]]\nV = [[1, 0], [0, 1]]\n"
            '[options]\nscale = "none"\n')
    text = ("$$\nQK^T\n"
            "=\\begin{bmatrix}1&2\\\\3&4\\end{bmatrix}\n"
            " \\begin{bmatrix}0&2\\\\1&0\\end{bmatrix}\n"
            "=\\begin{bmatrix}2&2\\\\4&6\\end{bmatrix}\n$$\n")
    draft = extract(from_text(text), spec).drafts[0]
    keys = {p.line: p.key for p in draft.placements if p.line != 4}
    assert keys == {3: "Q", 5: "scores"}
    columns = sorted((p.key, p.layout) for p in draft.placements if p.line == 4)
    assert columns == [("K[:,1]", ["0", "2"]), ("K[:,2]", ["1", "0"])]
    assert draft.unplaced == []


def test_a_number_whose_comma_may_group_thousands_is_not_anchored_when_it_does_not_fit() -> None:
    # "e^1 = 2,718": read with a decimal comma it is e (anchored, fits); "e^1 = 2,719" does not
    # fit and may be read either way: suspicious, not wrong
    fits = next(p for p in _placements("e^1 = 2,718\n") if p.key == "exp[1,1]")
    assert fits.anchored
    off = next(p for p in _placements("e^1 = 2,719\n") if p.key == "exp[1,1]")
    assert not off.anchored


def test_one_over_a_square_root_is_no_divisor() -> None:
    spec = SPEC.replace('scale = "none"', "d_k = 2")
    draft = extract(from_text("scale by 1/√2 ≈ 0.707, where √2 ≈ 1.414\n"), spec).drafts[0]
    divisors = [p for p in draft.placements if p.key == "divisor"]
    assert [p.layout for p in divisors] == ["~1.414"] and divisors[0].anchored


def test_an_output_computed_from_the_weights_as_printed_is_placed() -> None:
    # the document rounds the weights to [0.73, 0.27] (exact: 0.7311, 0.2689) and computes
    # the output from them: 2 * 0.73 = 1.460 and 4 * 0.27 = 1.080 (exact: 1.462, 1.076)
    text = ("weights = [0.73, 0.27]\n"
            "and the result is [1.460, 1.080]\n")
    placements = {p.line: p for p in _placements(text)}
    assert placements[1].key == "weights[1]" and placements[1].anchored
    assert placements[2].key == "output[1]" and not placements[2].anchored
    assert placements[2].confidence != "certain"
    alone = _placements("and the result is [1.460, 1.080]\n")
    assert alone == []                    # without the printed weights nothing fits


def test_vectors_added_up_are_the_terms_of_the_row_they_give() -> None:
    # output[1,1] = 0.731 * 2 + 0.269 * 0 and output[1,2] = 0.731 * 0 + 0.269 * 4: the terms
    # are [1.462, 0] and [0, 1.076], written as two vectors added up, over two lines
    text = ("0.731 × [2, 0] + 0.269 × [0, 4]\n"
            "= [1.462, 0] + [0, 1.076]\n"
            "= [1.462, 1.076]\n")
    placements = {p.key: p for p in _placements(text)}
    assert placements["output[1,1].terms"].layout == ["1.462", "0"]
    assert placements["output[1,2].terms"].layout == ["0", "1.076"]
    assert placements["output[1,1].terms"].anchored      # every entry of the total fits
    assert placements["output[1]"].layout == ["1.462", "1.076"]


def test_a_vector_of_sums_written_out_gives_the_terms_of_each_entry() -> None:
    text = ("0.731 × [2, 0] + 0.269 × [0, 4]\n"
            "= [1.462 + 0, 0 + 1.076]\n"
            "= [1.462, 1.076]\n")
    placements = {p.key: p for p in _placements(text)}
    assert placements["output[1,1].terms"].layout == ["1.462", "0"]
    assert placements["output[1,2].terms"].layout == ["0", "1.076"]


def test_a_wrong_quotient_is_placed_by_its_sides() -> None:
    # 2.718 / 3.718 = 0.7310..: a document printing 0.75 is wrong, and its sides say where
    assert f"{E / (E + 1):.2f}" == "0.73"
    placements = {p.key: p for p in _placements("\\frac{2.718}{3.718} = 0.75\n")}
    quotient = placements["weights[1,1]"]
    assert quotient.layout == "0.75" and quotient.anchored and quotient.confidence == "guess"
    assert [key for key, _ in quotient.nearest][:1] == ["weights[1,1]"]
    # with sides that fit nothing, the quotient is not placed
    assert _placements("\\frac{5.5}{9.5} = 0.75\n") == []


def test_a_quotient_in_a_computation_that_starts_from_scaled_scores() -> None:
    # scaled scores as the input: there are no raw scores for a quotient's numerator
    spec = '[inputs]\nscaled = [[1, 0]]\n[options]\nscale = "none"\n'
    draft = extract(from_text("\\frac{2.718}{3.718} = 0.75 and 2 / 3 = 0.9\n"), spec).drafts[0]
    assert [p.key for p in draft.placements if p.layout == "0.75"] == ["weights[1,1]"]
