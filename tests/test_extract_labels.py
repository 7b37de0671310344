"""Placement by what the page says around a printed block: a label before its colon, a
matrix of the terms before they are added up, a result printed on its own, and sections
that work the same inputs under another setting.

Every document here is written for the test, and every expected value is computed here
with ``math`` (one query over three keys, unscaled unless a spec says otherwise).
"""

from __future__ import annotations

import math

from symattn.extract.document import from_text
from symattn.extract.pipeline import extract
from symattn.extract.place import Placement
from symattn.extract.scanner import _names_in

SPEC = """[inputs]
Q = [[1, 0]]
K = [[1, 0], [0, 1], [1, 1]]
V = [[1, 2], [3, 4], [6, 5]]

[options]
scale = "none"
"""
E = math.e
WEIGHTS = (E / (2 * E + 1), 1 / (2 * E + 1), E / (2 * E + 1))     # softmax([1, 0, 1])
V = ((1, 2), (3, 4), (6, 5))
TERMS = [[WEIGHTS[j] * V[j][c] for j in range(3)] for c in range(2)]  # output[1,c+1].terms


def _placements(text: str, spec: str = SPEC) -> list[Placement]:
    return extract(from_text(text), spec).drafts[0].placements


def _printed(values: list[float], places: int) -> list[str]:
    return [f"{v:.{places}f}" for v in values]


def test_a_label_before_a_colon_names_the_block_after_it() -> None:
    assert _names_in("- Softmax: ") == ("Softmax",)
    assert _names_in("**Attention weights:** ") == ("Attention_weights",)
    assert _names_in("Step 3: softmax: ") == ("softmax",)
    assert _names_in("Q: ") == ("Q",)
    assert _names_in("see eq. 3: ") == ()          # no name in it
    assert _names_in("Look at the row for studying (") == ()


def test_a_labelled_row_is_anchored_so_a_wrong_one_is_called_wrong() -> None:
    # the right weights are 0.422, 0.155, 0.422: this row is a slip, and the label fixes it
    [row] = [p for p in _placements("- Softmax: [0.50, 0.20, 0.30]\n") if p.line == 1]
    assert (row.key, row.anchored) == ("weights[1]", True)
    right = _printed(list(WEIGHTS), 3)
    [row] = [p for p in _placements(f"Attention weights:\n[{', '.join(right)}]\n")
             if p.line == 2]
    assert (row.key, row.layout, row.confidence) == ("weights[1]", right, "certain")


def test_a_label_whose_last_words_name_a_step_names_it() -> None:
    right = _printed(list(WEIGHTS), 3)
    [row] = [p for p in _placements(f"Softmax outputs: [{', '.join(right)}]\n")]
    assert row.key == "weights[1]" and row.anchored     # not the output of the attention


def test_a_matrix_of_weighted_values_is_the_terms_of_the_output_row() -> None:
    # weights[:, None] * V: a row per key, each v_j times its weight
    rows = [[f"{WEIGHTS[j] * V[j][c]:.3f}" for c in range(2)] for j in range(3)]
    text = "weighted = weights[:, None] * V\n[" + ", ".join(
        "[" + ", ".join(r) + "]" for r in rows) + "]\n"
    found = {p.key: p.layout for p in _placements(text)}
    assert found == {"output[1,1].terms": _printed(TERMS[0], 3),
                     "output[1,2].terms": _printed(TERMS[1], 3)}


def test_a_matrix_of_terms_printed_a_row_per_entry_reads_the_same() -> None:
    text = "applied = weights * annotations\n[" + ", ".join(
        "[" + ", ".join(_printed(terms, 4)) + "]" for terms in TERMS) + "]\n"
    found = {p.key: p.layout for p in _placements(text)}
    assert found == {"output[1,1].terms": _printed(TERMS[0], 4),
                     "output[1,2].terms": _printed(TERMS[1], 4)}


SCORES_SPEC = """[inputs]
Q = [[2, 3]]
K = [[4, 5], [1, 0]]
V = [[1, 0], [0, 1]]

[options]
scale = "none"
"""   # scores: 2*4 + 3*5 = 23 and 2*1 + 3*0 = 2


def test_a_whole_number_printed_on_its_own_is_a_result_where_it_is_exact() -> None:
    text = "```python\nnp.dot(q, k1)\n```\n\n    23\n\n```python\nnp.dot(q, k2) + 5\n```\n\n    7\n"
    found = [(p.line, p.key) for p in _placements(text, SCORES_SPEC)]
    assert found == [(5, "scores[1,1]")]       # 7 is no quantity of this computation


def test_a_keyword_argument_far_into_a_call_is_no_claim() -> None:
    text = "sns.heatmap(weights, annot=True, cmap='Blues', linewidths=2)\n"
    assert _placements(text, SCORES_SPEC) == []


def _scores_spec(options: str) -> str:
    return f"[inputs]\nscores = [[10, 0, -5]]\n\n[options]\n{options}\n"


def _softmax(values: list[float]) -> list[float]:
    total = sum(math.exp(v) for v in values)
    return [math.exp(v) / total for v in values]


SETTINGS = ("# Scaled by 2\n"
            "If d_k = 4, √4 = 2, and the scaled scores are [5, 0, -2.5]\n"
            "- Softmax: [{four}]\n"
            "# Larger\n"
            "With d_k = 64, √64 = 8\n"
            "- Softmax: [{sixty_four}]\n"
            "# What happens without scaling?\n"
            "- Softmax: [{none}]\n")


def _settings_document() -> str:
    return SETTINGS.format(
        four=", ".join(_printed(_softmax([5, 0, -2.5]), 4)),
        sixty_four=", ".join(_printed(_softmax([10 / 8, 0, -5 / 8]), 4)),
        none=", ".join(_printed(_softmax([10, 0, -5]), 4)))


def test_sections_under_another_setting_keep_only_what_their_values_settle() -> None:
    text = _settings_document()
    for options, line in (("d_k = 4", 3), ("d_k = 64", 6), ('scale = "none"', 8)):
        weights = [p for p in _placements(text, _scores_spec(options))
                   if p.key == "weights[1]"]
        # the spec's own section, and no other: the rows of the other settings would be
        # wrong for this one, and their labels would make them certain
        assert [(p.line, p.confidence) for p in weights] == [(line, "certain")], options


# ------------------------------------------------------------ numbers printed again

def test_percentages_that_retell_a_row_are_that_row() -> None:
    # a slip: the weights are 0.422, 0.155, 0.422; the prose retells the printed row
    text = "The weights: [0.40, 0.20, 0.40] for the query.\n" \
           "So it takes 40% from the first key, 20% from the second and 40% from the third.\n"
    retold = [(p.key, p.layout, p.anchored) for p in _placements(text) if p.line == 2]
    row = next(p for p in _placements(text) if p.line == 1)
    assert [key for key, _, _ in retold] == ["weights[1,1]", "weights[1,2]", "weights[1,3]"]
    assert [layout for _, layout, _ in retold] == ["40%", "20%", "40%"]
    assert {anchored for _, _, anchored in retold} == {row.anchored} == {True}


def test_a_percentage_after_an_approximation_sign_is_the_number_before_it() -> None:
    # e / (2e + 1) = 0.42232...; "0.42 ≈ 4.2%" retells it wrong by a factor of ten
    text = r"$w_{1} = \frac{2.718}{6.437} = 0.422 \approx 4.2\%$" + "\n"
    found = {p.numbers[0].text: p.key for p in _placements(text)}
    assert found["0.422"] == found["4.2%"] == "weights[1,1]"


def test_a_row_printed_again_in_prose_is_the_row_it_repeats() -> None:
    right = ", ".join(_printed(list(WEIGHTS), 3))
    text = f"weights = [[{right}]]\n\nThe row `[{right}]` says where the query looks.\n"
    lines = sorted({(p.line, p.key.split("[")[0]) for p in _placements(text)})
    assert lines == [(1, "weights"), (3, "weights")]


def test_with_no_scaling_a_row_of_scores_is_the_scores_not_the_scaled_scores() -> None:
    # scale 1 makes the scaled scores the scores themselves: the first step is named
    text = "The dot products, after the weights:\nsoftmax: [0.422, 0.155, 0.422]\n" \
           "and the products were [1, 0, 1] and [1.0, 0.0, 1.0]\n"
    keys = [p.key for p in _placements(text) if p.line == 3]
    assert keys == ["scores[1]", "scores[1]"]


# ------------------------------------------------------------ names in other languages

def test_the_catalogs_headings_name_steps_in_their_languages() -> None:
    # a slip in Russian, under the catalog's own heading of the weights
    [row] = [p for p in _placements("Веса внимания: [0.50, 0.20, 0.30]\n")]
    assert (row.key, row.anchored) == ("weights[1]", True)
    # raw scores in Polish, first word of a Slavic noun phrase in Russian
    [row] = [p for p in _placements("Surowe wyniki = [1, 0, 1]\n")]
    assert row.key == "scores[1]" and "named Surowe_wyniki" in row.why
    [row] = [p for p in _placements("Оценки внимания: [1, 0, 1]\n")]
    assert row.key == "scores[1]" and row.anchored
    output = [(E + 3 + 6 * E) / (2 * E + 1), (2 * E + 4 + 5 * E) / (2 * E + 1)]   # w · V
    [row] = [p for p in _placements(f"Výstup: [{', '.join(_printed(output, 3))}]\n")]
    assert (row.key, row.confidence, row.anchored) == ("output[1]", "certain", True)


def test_percentages_that_make_a_distribution_are_a_row_of_weights_never_certain() -> None:
    # 30 + 20 + 50 = 100, three of them, as many as a row of weights: the row, by value
    text = "The query gives 30% to the first key, 20% to the second and 50% to the third.\n"
    found = [(p.key, p.anchored) for p in _placements(text)]
    assert found == [("weights[1,1]", False), ("weights[1,2]", False), ("weights[1,3]", False)]
    # 30 + 20 + 40 is no distribution: nothing is said of the weights
    assert _placements(text.replace("50%", "40%")) == []


TWO_QUERIES = """[inputs]
Q = [[1, 0, 0], [0, 0, 5]]
K = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
V = [[1, 0], [0, 1], [1, 1]]

[options]
scale = "none"
"""   # weights: row 1 softmax([1, 0, 0]), row 2 softmax([0, 0, 5])


def test_the_weights_of_one_weighted_sum_are_one_row() -> None:
    row_1 = _softmax([1, 0, 0])
    row_2 = _softmax([0, 0, 5])
    assert f"{row_2[0]:.2f}, {row_1[1]:.2f}" == "0.01, 0.21"   # 0.01 alone fits row 2
    text = "y_1 = 0.01 [1, 0]\n    + 0.21 [0, 1]\n    + 0.21 [1, 1]\n"
    found = [p.key for p in _placements(text, TWO_QUERIES) if p.key.startswith("weights")]
    assert found == ["weights[1,1]", "weights[1,2]", "weights[1,3]"]


def test_an_input_is_printed_as_given_so_a_number_only_close_to_it_is_something_else() -> None:
    # V[3,1] is 6: "6.1" is no reprint of it (and nothing else here is near 6.1)
    assert [p.key for p in _placements("a norm of 6.1 here\n")] == []
    assert [p.key for p in _placements("a norm of 6.0 here\n")] == ["V[3,1]"]
    # an unnamed row close to a row of V but not it: no reprint either
    assert [p.key for p in _placements("the row [6.1, 5.0] below\n")] == []
