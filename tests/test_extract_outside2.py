"""symattn check DOC without a spec on more forms worked examples take outside.

Names inside Markdown's inline code or bold (``- `q1 = [1, 0]` ``, ``**K** = [[...]]``).
Every document is written for the test; every expected value is computed here with
NumPy, independently of the checker.
"""

from __future__ import annotations

import numpy as np

from symattn.extract.checking import check_draft
from symattn.extract.document import from_text
from symattn.extract.pipeline import extract
from symattn.extract.scanner import scan
from symattn.problem import spec


def _softmax(scores: np.ndarray) -> np.ndarray:
    exp = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return exp / exp.sum(axis=-1, keepdims=True)


def _placed(text: str) -> list[tuple[int, str, str]]:
    """(line, printed, verdict) of every placed number, over every example found."""
    document = from_text(text)
    found = []
    for draft in extract(document).drafts:
        check = check_draft(document, draft)
        found += [(line, v.printed, v.verdict)
                  for v, (line, _) in zip(check.report.verdicts, check.places)]
    return found


def _inputs(text: str) -> list[dict[str, list[list[float]]]]:
    return [{name: [[float(entry.value) for entry in row] for row in rows]
             for name, rows in spec.loads(draft.head).inputs.items()}
            for draft in extract(from_text(text)).drafts]


# ---------------------------------------------------------------- names in markup

def test_a_name_in_inline_code_or_bold_names_its_group() -> None:
    found = scan(from_text("- `q1 = [1, 0]`\n**K** = [[1, 0], [0, 1]]\n* `v_2` = [3, 4]\n"))
    assert [g.names for g in found.groups] == [("q1",), ("K",), ("v_2",)]


def test_vectors_listed_in_inline_code_are_the_inputs_and_a_slip_is_found() -> None:
    queries = np.array([[1.0, 0.0], [0.0, 1.0]])
    keys = np.array([[1.0, 1.0], [0.0, 2.0]])
    values = np.array([[1.0, 0.0], [0.0, 1.0]])
    weights = _softmax(queries @ keys.T / np.sqrt(2))
    right, slipped = f"{weights[0, 0]:.3f}", f"{weights[0, 1] + 0.01:.3f}"
    text = ("# Vectors\n\n**Word 1:**\n- `q1 = [1, 0]`\n- `k1 = [1, 1]`\n- `v1 = [1, 0]`\n\n"
            "**Word 2:**\n- `q2 = [0, 1]`\n- `k2 = [0, 2]`\n- `v2 = [0, 1]`\n\n"
            f"The weights of word 1 are `[{right}, {slipped}]`.\n")
    assert _inputs(text)[0] == {"Q": queries.tolist(), "K": keys.tolist(),
                                "V": values.tolist()}
    verdicts = {(line, printed): verdict for line, printed, verdict in _placed(text)}
    assert verdicts[(13, right)] == "ok"
    # an unnamed row is placed by its values alone: the slip is suspicious, never right
    assert verdicts[(13, slipped)] == "suspicious"


# ---------------------------------------------------------------- one line a token

def test_a_query_key_and_value_on_each_token_line_are_stacked() -> None:
    queries = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    keys = np.array([[1.0, 1.0], [0.0, 2.0], [2.0, 0.0]])
    values = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])
    lines = "\n\n".join(f'"{token}": Query = {q}, Key = {k}, Value = {v}'
                        for token, q, k, v in zip(("cat", "sat", "mat"), queries.tolist(),
                                                  keys.tolist(), values.tolist()))
    weights = _softmax(queries @ keys.T / np.sqrt(2))
    right = ", ".join(f"{w:.3f}" for w in weights[1])
    text = f"# Tokens\n\n{lines}\n\nWeights of sat: [{right}]\n"
    assert _inputs(text)[0] == {"Q": queries.tolist(), "K": keys.tolist(),
                                "V": values.tolist()}
    placed = _placed(text)
    assert {verdict for line, _, verdict in placed} == {"ok"}
    assert sorted(printed for line, printed, _ in placed if line == 9) == \
        sorted(f"{w:.3f}" for w in weights[1])


def test_rows_under_one_name_on_one_line_are_not_stacked() -> None:
    # two keys on one line are no token lines: nothing is stacked from them
    text = ("# T\n\nQuery = [1, 0], Query = [0, 1]\n\nKey = [1, 1], Key = [0, 1]\n\n"
            "Value = [1, 0], Value = [0, 1]\n")
    assert all(found.get("K") != [[1.0, 1.0], [0.0, 1.0]] for found in _inputs(text))


# ---------------------------------------------------------------- products and their total

def _products(query: np.ndarray, key: np.ndarray) -> str:
    return " + ".join(f"{a:g}×{b:g}" for a, b in zip(query, key))


def test_products_written_out_fix_the_score_their_total_stands_for() -> None:
    queries = np.array([[0.2, 0.5, 0.1], [0.3, 0.4, 0.1]])
    keys = np.array([[0.1, 0.3, 0.6], [0.2, 0.4, 0.7]])
    scores = queries @ keys.T                     # row 2: 0.21, 0.29
    slipped = scores[1, 1] - 0.03                 # 0.26 printed for 0.29
    rows = "\n".join(f"{name} = [{', '.join(f'{v:g}' for v in row)}]"
                     for letter, matrix in (("q", queries), ("k", keys), ("v", keys))
                     for name, row in ((f"{letter}{i + 1}", r) for i, r in enumerate(matrix)))
    text = (f"# Products\n\n{rows}\n\n"
            f"Score of 2 on 1 = {_products(queries[1], keys[0])} = {scores[1, 0]:.2f}\n\n"
            f"Score of 2 on 2 = {_products(queries[1], keys[1])} = {slipped:.2f}\n")
    verdicts = {(line, printed): verdict for line, printed, verdict in _placed(text)}
    assert verdicts[(10, f"{scores[1, 0]:.2f}")] == "ok"
    assert verdicts[(12, f"{slipped:.2f}")] == "wrong"      # the factors fix its place


def test_products_that_fit_several_entries_leave_a_slip_suspicious() -> None:
    # q1·k1 and q1·k2 are both 1×1 + 0×0: which score a wrong total stands for is unsure
    text = ("# Same\n\nq1 = [1, 0]\nk1 = [1, 0]\nk2 = [1, 0]\nv1 = [1, 0]\nv2 = [0, 1]\n\n"
            "Score: 1×1 + 0×0 = 2\n")
    verdicts = {(line, printed): verdict for line, printed, verdict in _placed(text)}
    assert verdicts.get((9, "2")) in (None, "suspicious")


# ---------------------------------------------------------------- names multiplied

def test_two_names_multiplied_name_neither_of_the_vectors_after_them() -> None:
    found = scan(from_text("q1 . k2 = [1, 0] . [0, 1] = 0\nq_1 · k_2 = [1, 0] · [0, 1] = 0\n"
                           "We compute. K = [1, 2]\nscores = Q × K^T = [[1, 2]]\n"))
    assert [g.names for g in found.groups] == [(), (), (), (), ("K",), ("scores",)]


def test_a_dot_product_restated_does_not_start_another_example() -> None:
    # "q1 . k1 = [...] . [...]" once named the query vector k1: an input printed with
    # other values, so nothing after it was placed but what is certain
    queries = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    keys = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0]])
    scaled = queries @ keys.T / np.sqrt(3)      # every entry 1/√3: which one is not sure
    text = ("# Dot\n\nq1 = [1, 0, 0]\nk1 = [1, 1, 0]\nv1 = [1, 0, 0]\n"
            "q2 = [0, 1, 0]\nk2 = [1, 1, 0]\nv2 = [0, 1, 0]\n\n"
            "q1 . k1 = [1, 0, 0] . [1, 1, 0] = 1\n\n"
            f"1 / 1.732 = {scaled[0, 0]:.3f}\n")
    verdicts = {(line, printed): verdict for line, printed, verdict in _placed(text)}
    assert verdicts[(12, f"{scaled[0, 0]:.3f}")] == "ok"


# ---------------------------------------------------------------- a printed vocabulary

def test_token_ids_in_a_printed_dict_are_no_claims() -> None:
    weights = _softmax(np.array([2.0, 1.0, 0.0]))
    text = ("# Ids\n\n{'cat': 0, 'sat': 1, 'mat': 2}\n\nscores = [2, 1, 0]\n\n"
            f"weights = [{', '.join(f'{w:.3f}' for w in weights)}]\n\n"
            "{'cat': 0.665}\n")
    placed = _placed(text)
    assert [printed for line, printed, _ in placed if line == 3] == []
    # a decimal under a quoted key is still read: the weight of "cat"
    assert [(printed, verdict) for line, printed, verdict in placed if line == 9] == \
        [(f"{weights[0]:.3f}", "ok")]
