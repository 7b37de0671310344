"""symattn check DOC without a spec on the forms outside worked examples take.

Shape prints (``torch.Size([24, 16])``), keyword arguments in code (``axis=1``),
a result named after an arrow (``d_k = 2 → Output ≈ [[...]]``), a matrix opened
under the line that names it (``W_q = np.array(`` then ``[`` ...), comments
closing the rows of a matrix in code, and an input named neither ``X`` nor ``E``
multiplied by ``W_Q``, ``W_K``, ``W_V``. Every document is written for the test;
every expected value is computed here with NumPy, independently of the checker.
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


def _verdicts(text: str) -> list[tuple[int, str, str]]:
    """(line, printed, verdict) of every placed number, over every example found."""
    return [(line, printed, verdict) for line, _, printed, verdict in _placed(text)]


def _placed(text: str) -> list[tuple[int, int, str, str]]:
    """(line, column, printed, verdict) of every placed number, over every example found."""
    document = from_text(text)
    found = []
    for draft in extract(document).drafts:
        check = check_draft(document, draft)
        found += [(line, column, v.printed, v.verdict)
                  for v, (line, column) in zip(check.report.verdicts, check.places)]
    return found


def _names(text: str) -> list[tuple[tuple[str, ...], int]]:
    return [(g.names, len(g.rows)) for g in scan(from_text(text)).groups]


def _row(values: np.ndarray, places: int) -> str:
    return ", ".join(f"{v:.{places}f}" for v in values)


# ---------------------------------------------------------------- what is no number

def test_a_shape_print_gives_no_numbers() -> None:
    found = scan(from_text("print(W.shape)\ntorch.Size([24, 16])\n"
                           "keys.shape: torch.Size([6, 24])\nTensorShape([None, 3])\n"))
    assert found.groups == [] and [n.text for n in found.singles] == []


def test_a_shape_print_is_not_read_as_the_scores() -> None:
    scores = np.array([2.0, 1.0, 0.0])
    weights = _softmax(scores / 2)            # d_k = 4
    text = ("# Weights\nW_query: torch.Size([4, 3])\nW_key: torch.Size([4, 3])\n"
            f"omega = [{_row(scores, 1)}]\nd_k = 4\n"
            f"attention_weights = [{_row(weights, 4)}]\n")
    drafts = extract(from_text(text)).drafts
    assert [[[entry.value for entry in row] for row in spec.loads(d.head).inputs["scores"]]
            for d in drafts] == [[[2, 1, 0]]]
    assert all(verdict == "ok" for _, _, verdict in _verdicts(text))


def test_a_keyword_argument_in_code_is_no_claim() -> None:
    weights = _softmax(np.array([2.0, 1.0, 0.1]))
    text = ("scores = [2.0, 1.0, 0.1]\n\n"
            "    return np.exp(x) / np.sum(np.exp(x), axis=1, keepdims=True)\n"
            "    torch.softmax(s, dim=-1)\n\n"
            f"weights = [{_row(weights, 3)}]\n")
    assert [line for line, _, _ in _verdicts(text) if line in (3, 4)] == []
    unplaced = extract(from_text(text)).drafts[0].unplaced
    assert sorted(n.text for n in unplaced) == ["-1", "1"]


# ---------------------------------------------------------------- names

def test_a_result_named_after_an_arrow_is_judged_by_its_name() -> None:
    # softmax([1, 0] / √2) = [0.66976..., 0.33024...]: row 1 = 0.66976 [1, 2] + 0.33024 [3, 4]
    weights = _softmax(np.eye(2) / np.sqrt(2))
    output = weights @ np.array([[1.0, 2.0], [3.0, 4.0]])
    right = "[[" + "], [".join(_row(row, 5) for row in output) + "]]"
    slipped = output + 0.00034                # every entry off by 34 units in the 5th place
    wrong = "[[" + "], [".join(_row(row, 5) for row in slipped) + "]]"
    head = "Q = K = [[1,0],[0,1]] V = [[1,2],[3,4]] d_k = 2 → Output ≈ "
    assert _names(head + right)[-1] == (("Output",), 2)
    assert {v for line, _, v in _verdicts(head + right + "\n") if line == 1} == {"ok"}
    judged = [(printed, v) for _, printed, v in _verdicts(head + wrong + "\n")
              if printed.lstrip("~") in wrong]
    assert sorted(printed for printed, v in judged if v == "wrong") == \
        sorted(f"~{v:.5f}" for v in slipped.flat)


def test_a_matrix_opened_under_the_line_that_names_it() -> None:
    text = "W_q = np.array(\n[\n[0.2, 0.4],\n[0.1, 0.3],\n]\n)\nB =\n[[1, 2], [3, 4]]\n"
    assert _names(text) == [(("W_q",), 2), (("B",), 2)]
    # a group that ends on the line above keeps its names to itself
    assert _names("A = [[1, 2], [3, 4]] =\n[[5, 6], [7, 8]]\n")[1] == ((), 2)


def test_comments_closing_the_rows_of_a_matrix_in_code() -> None:
    text = ('X = np.array([\n    [1.0, 0.0],   # Token 0 ("cat")\n'
            "    [0.0, 1.0],   // token 1\n    [1.0, 1.0]    # Token 2\n])\n")
    assert _names(text) == [(("X",), 3)]


# ---------------------------------------------------------------- inputs

def test_an_input_named_otherwise_multiplied_by_the_three_projections() -> None:
    inputs = np.array([[1, 0, 1], [0, 1, 1]])
    w_q = np.array([[0.2, 0.4], [0.1, 0.3], [0.5, 0.5]])
    w_k = np.array([[0.1, 0.3], [0.6, 0.4], [0.2, 0.1]])
    w_v = np.array([[0.3, 0.5], [0.6, 0.4], [0.8, 0.9]])
    queries, keys = inputs @ w_q, inputs @ w_k
    weights = _softmax(queries @ keys.T / np.sqrt(2))

    def matrix(name: str, m: np.ndarray) -> str:
        return f"{name} = np.array([\n" + "".join(
            "    [" + ", ".join(str(v) for v in row) + "],\n" for row in m) + "])\n"

    text = ("# Attention\n```python\n" + matrix("S", inputs) + matrix("W_q", w_q) +
            matrix("W_k", w_k) + matrix("W_v", w_v) +
            "Q = S @ W_q\nK = S @ W_k\nV = S @ W_v\n```\n\nThe attention weights: "
            "[[" + "], [".join(_row(row, 3) for row in weights) + "]]\n")
    drafts = extract(from_text(text)).drafts
    assert sorted(spec.loads(drafts[0].head).inputs) == ["W_K", "W_Q", "W_V", "X"]
    judged = _verdicts(text)
    assert {v for line, _, v in judged if line == text.count("\n")} == {"ok"}
    assert len([1 for line, _, _ in judged if line == text.count("\n")]) == 4


# ---------------------------------------------------------------- dot products written out

def test_a_dot_product_written_out_term_by_term_is_placed_by_its_total() -> None:
    x = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]])
    scores = x @ x.T                          # [[2, 0, 1], [0, 2, 1], [1, 1, 2]]

    def line(i: int, j: int, total: float) -> str:
        products = " + ".join(f"{a}×{b}" for a, b in zip(x[i], x[j]))
        return (f"s[{i}][{j}] = [{','.join(map(str, x[i]))}] · [{','.join(map(str, x[j]))}]"
                f" = {products} = {total:.1f}\n")

    head = "Q = K = V = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0]]\n\n"
    right = head + "".join(line(0, j, scores[0, j]) for j in range(3))
    judged = _placed(right)
    # the factors (the first 1 of "1×1") are no claims; the total after them is the score
    lines = right.split("\n")
    products = {n: (lines[n - 1].index("= ", lines[n - 1].index("·")) + 2,
                    lines[n - 1].rindex("=")) for n in (3, 4, 5)}
    assert [(n, c) for n, c, _, _ in judged if n in products and
            products[n][0] < c <= products[n][1]] == []
    assert sorted((n, p) for n, c, p, _ in judged if n in products and c > products[n][1]) == \
        [(3, "2.0"), (4, "0.0"), (5, "1.0")]
    assert {v for _, _, _, v in judged} == {"ok"}
    slipped = head + line(0, 0, scores[0, 0]) + line(0, 1, scores[0, 1] + 1) + \
        line(0, 2, scores[0, 2])
    assert [(n, p) for n, p, v in _verdicts(slipped) if v == "wrong"] == [(4, "1.0")]


# ---------------------------------------------------------------- test cases of an exercise

def test_the_scores_of_a_test_case_are_a_side_calculation() -> None:
    right = _softmax(np.array([0.0, 10.0, 0.0]))     # [0.0000454, 0.9999092, 0.0000454]
    page = ("# Softmax weights\n\nImplement softmax(scores).\n\n"
            'Equal scores\nInput: {"scores": [0, 0, 0, 0]}\nExpected: [0.25, 0.25, 0.25, 0.25]\n\n'
            'Dominant score\nInput: {"scores": [0, 10, 0]}\nExpected: [{}]\n')
    text = page.replace("[{}]", "[" + ", ".join(f"{v:.7f}" for v in right) + "]")
    judged = _verdicts(text)
    assert [(n, p) for n, p, _ in judged if n == 11] == [(11, f"{right[0]:.7f}"),
                                                         (11, f"{right[1]:.7f}"),
                                                         (11, f"{right[2]:.7f}")]
    assert [p for n, p, _ in judged if n == 7] == ["0.25"] * 4
    assert {v for _, _, v in judged} == {"ok"}
    # a slip there is suspicious (placed by its value alone), never wrong
    slipped = page.replace("[{}]", "[0.0000454, 0.9990092, 0.0000454]")
    document = from_text(slipped)
    checks = [check_draft(document, d) for d in extract(document).drafts]
    assert not any(c.has_wrong for c in checks)
    assert [(s.line, s.printed) for c in checks for s in c.suspicious] == [(11, "0.9990092")]


def test_the_number_of_a_markdown_heading_is_no_claim() -> None:
    weights = _softmax(np.array([2.0, 1.0, 0.0]))
    text = ("# Attention\n\n## 2.0 Scores\n\nscores = [2.0, 1.0, 0.0]\n\n"
            f"### 0.67 is the first weight\n\nweights = [{_row(weights, 2)}]\n")
    assert [line for line, _, _ in _verdicts(text) if line in (3, 7)] == []
    unplaced = extract(from_text(text)).drafts[0].unplaced
    assert [(n.line, n.text) for n in unplaced] == [(3, "2.0"), (7, "0.67")]


def test_a_second_case_beside_an_input_both_share_is_another_example() -> None:
    # Case 1 is attention of Q = K = I over V; case 2 gives a new Q and V with the same K:
    # its V is the input of another computation, right as printed, never wrong
    first = _softmax(np.eye(2) / np.sqrt(2)) @ np.array([[1.0, 2.0], [3.0, 4.0]])
    text = ("Q = K = [[1,0],[0,1]]\nV = [[1,2],[3,4]]\n"
            "Output = [[" + "], [".join(_row(row, 5) for row in first) + "]]\n\n"
            "Case 2: Q = [[1,0]], K = [[1,0],[0,1]], V = [[10,20],[30,40]]\n")
    judged = _verdicts(text)
    assert [(n, p) for n, p, v in judged if v != "ok"] == []
    assert [p for n, p, _ in judged if n == 3] == [f"{v:.5f}" for v in first.flat]


def test_the_matrices_given_to_an_attention_function_are_its_queries_keys_and_values() -> None:
    output = _softmax(np.array([[1.0, 0.0]]) / np.sqrt(2)) @ np.array([[10.0, 20.0],
                                                                       [30.0, 40.0]])
    call = "Input: attention([[1,0]],[[1,0],[0,1]],[[10,20],[30,40]])\n"
    assert _names(call) == [(("Q",), 1), (("K",), 2), (("V",), 2)]
    assert _names("f([[1,0]], [[1,0]])\n") == [((), 1), ((), 1)]
    text = "# Case\n\n" + call + "Expected: [[" + _row(output[0], 5) + "]]\n"
    drafts = extract(from_text(text)).drafts
    assert [[[e.value for e in row] for row in spec.loads(drafts[0].head).inputs["V"]]] == \
        [[[10, 20], [30, 40]]]
    assert [p for n, p, v in _verdicts(text) if n == 4 and v == "ok"] == \
        [f"{v:.5f}" for v in output[0]]
    slipped = text.replace(f"{output[0][0]:.5f}", f"{output[0][0] + 0.00002:.5f}")
    document = from_text(slipped)
    checks = [check_draft(document, d) for d in extract(document).drafts]
    assert not any(c.has_wrong for c in checks)
    assert [s.line for c in checks for s in c.suspicious] == [4]
