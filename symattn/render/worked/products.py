"""The layer after attention written out like the attention steps.

A product of matrices (the FFN ``x W``, its two layers with their biases, the
multi-head ``C W_O``, the logits ``h W_vocab``) shows a chosen row entry by
entry: the sum of products in symbols, the factors as the page prints them,
each product of those printed factors rounded as the page rounds, and the
terms as printed added up. So every number follows from the numbers printed
before it (a student with a calculator gets the same digits); the exact
result, rounded, is the step's own matrix. The next-token probabilities get
the table of the attention weights: logits, exponentials, their sum,
probabilities and percentages.

>>> import symattn
>>> from symattn.render.worked import build
>>> document = build(symattn.derive(symattn.load_example("000-cat-chases-mouse")))
>>> ffn = next(step for step in document.steps if step.name == "ffn")
>>> entry = ffn.expansions[-1].entries[0]
>>> entry.symbolic
'o_{3,1} w_{1,1} + o_{3,2} w_{2,1}'
"""

from __future__ import annotations

__all__ = ["PRODUCTS", "factors", "product_row", "probs_row"]

from typing import Any

from flint import fmpq

from symattn.derivation.names import split_name
from symattn.render import latex
from symattn.render.view import shown_indices
from symattn.render.worked.cells import percent_format
from symattn.render.worked.model import ProductEntry, ProductRow, SoftmaxEntry, SoftmaxRow, Value
from symattn.render.worked.rows import with_gaps
from symattn.values import arith
from symattn.values.entries import Symbolic, parse_entry
from symattn.values.exact import Exact

# Steps that are a row of one matrix times a constant matrix (plus a bias), by
# name: their letter in the written-out sums.
PRODUCTS = {"ffn": "f", "ffn_hidden": "h", "logits": "z", "output": "o"}
# The letter of each operand in the symbolic sums.
_LETTERS = {"output": "o", "residual_1": "r", "norm_1": "n", "ffn_activated": "a",
            "h": "h", "concat": "c", "W_FFN": "w", "W_1": "w", "W_2": "w", "W_vocab": "w",
            "U": "u", "W_O": "w", "b_1": "b", "b_2": "b"}
COMPACT = 56
_LONGEST_TOTAL = 24     # characters of an exact total shown as it is


def factors(operands: tuple[str, ...]) -> tuple[str, str, str | None]:
    """The row operand, the matrix and the bias (or None) of a product step."""
    left, right = operands[0], operands[1]
    bias = operands[2] if len(operands) > 2 else None
    return left, right, bias


def _number(text: str) -> Exact:
    """The number a printed decimal stands for (``0,25`` and ``1.2e-30`` too)."""
    value = parse_entry(text.replace(",", ".")).value
    if isinstance(value, Symbolic):    # pragma: no cover - a decimal is never symbolic
        raise TypeError(f"not a decimal: {text!r}")
    return value


def printed(b: Any, step: str, i: int, j: int) -> tuple[str, Exact, bool]:
    """An entry as the page prints it: its math, the number that is, and whether exact."""
    value = b.value(step, i, j)
    raw = b.raw(step, i, j)
    if value.is_exact:
        return value.inline or value.exact, raw, True
    return value.decimal, _number(b.fmt.format(raw)), False


def _rounded(b: Any, number: Exact) -> tuple[str, Exact, bool]:
    """A computed number as the page prints it: its math, the number that is, exact or not."""
    value = b.make_value(number, latex.exact_latex(number, b.locale))
    if value.is_exact:
        return value.exact, number, True
    return value.decimal, _number(b.fmt.format(number)), False


def _total(b: Any, total: Exact) -> tuple[str, bool]:
    """The printed terms added up: exactly, as the decimal they make (a sum of
    decimals is one), rounded only when that would be too long to read."""
    text = latex.exact_latex(total, b.locale)
    if text is not None and "frac" not in text and len(text) <= _LONGEST_TOTAL:
        return text, True
    shown, _, exact = _rounded(b, total)
    return shown, exact


def _entry(b: Any, step: str, row: int, i: int, j: int, inner: list[int | None],
           lhs: str) -> ProductEntry:
    """Entry (i, j) of ``step`` as the sum of printed factors' products."""
    left, right, bias = factors(b.d[step].operands)
    transposed = b.d[right].shape[0] != b.d[left].shape[1]   # W_vocab as rows
    row_label = f"{row}," if row else ""
    symbolic: list[str] = []
    substituted: list[str] = []
    terms: list[str] = []
    total: Exact = fmpq(0)
    exact = True
    for k in inner:
        if k is None:
            for part in (symbolic, substituted, terms):
                part.append(r"\cdots")
            continue
        r_i, r_j = (j, k) if transposed else (k, j)
        symbolic.append(f"{_LETTERS.get(left, 'x')}_{{{row_label}{k + 1}}} "
                        f"{_LETTERS.get(right, 'w')}_{{{k + 1},{j + 1}}}")
        x_text, x, x_exact = printed(b, left, i, k)
        w_text, w, w_exact = printed(b, right, r_i, r_j)
        substituted.append(latex.product_latex(x_text, w_text))
        term_text, term, term_exact = _rounded(b, arith.multiply(x, w))
        terms.append(term_text)
        total = arith.add(total, term)
        exact = exact and x_exact and w_exact and term_exact
    if bias is not None:
        symbolic.append(f"b_{{{j + 1}}}")
        b_text, b_value, b_exact = printed(b, bias, 0, j)
        substituted.append(b_text)
        terms.append(b_text)
        total = arith.add(total, b_value)
        exact = exact and b_exact
    total_text, total_exact = _total(b, total)
    relation = "=" if exact else r"\approx"
    parts = [latex.sum_latex(symbolic), latex.sum_latex(substituted),
             latex.sum_latex(terms) if len(terms) > 1 else "", total_text]
    return ProductEntry(lhs=lhs, symbolic=parts[0], substituted=parts[1], terms=parts[2],
                        relation=relation, total=total_text,
                        total_relation="=" if total_exact else r"\approx",
                        compact=sum(latex.approx_width(p) for p in parts) <= COMPACT)


def product_row(b: Any, step: str, i: int) -> ProductRow:
    """Row i of a product step, entry by entry (the columns on show)."""
    left, _, _ = factors(b.d[step].operands)
    rows, columns = b.d[step].shape
    letter = PRODUCTS.get(split_name(step)[1], "y")
    single = rows == 1
    label = "" if single else str(b.row_label(step, i))
    inner = with_gaps(list(shown_indices(b.d[left].shape[1], b.limit)))
    shown = list(shown_indices(columns, b.limit))
    entries = [_entry(b, step, int(label) if label.isdigit() else 0, i, j, inner,
                      f"{letter}_{{{label + ',' if label else ''}{j + 1}}}") for j in shown]
    compact = all(e.compact for e in entries)
    entries = [ProductEntry(**{**e.__dict__, "compact": compact}) for e in entries]
    token = "" if single else b.token(i, "query")
    return ProductRow(label, token, tuple(entries), len(shown) < columns)


def _percent(b: Any, raw: Exact) -> str:
    value = b.percent_value(b.product(raw, fmpq(100)))
    shown = value.exact if value.is_exact else value.decimal
    return shown + r"\,\%" if shown else ""


def _printed_total(b: Any, values: list[Exact], unit: str = "") -> str:
    """The sum of numbers as printed (a table's sum row adds what it shows)."""
    total: Exact = fmpq(0)
    for value in values:
        total = arith.add(total, value)
    text, _ = _total(b, total)
    return text + unit


def probs_row(b: Any) -> SoftmaxRow:
    """The table of the next-token probabilities: logits, e^z, their sum, P, %."""
    size = b.d["probs"].shape[1]
    vocabulary = b.problem.vocabulary
    names = vocabulary.tokens if vocabulary is not None else ()
    entries: list[SoftmaxEntry] = []
    printed_probs: list[Exact] = []
    printed_percents: list[Exact] = []
    for j in with_gaps(list(shown_indices(size, b.limit))):
        if j is None:
            empty = Value("", "", "", True)
            entries.append(SoftmaxEntry("", "", empty, empty, empty, "", False, True))
            continue
        raw = b.raw("probs", 0, j)
        entries.append(SoftmaxEntry(
            key=str(j + 1), token=b.text(names[j]) if j < len(names) else "",
            score=b.value("logits", 0, j), exp=b.value("logits_exp", 0, j),
            weight=b.value("probs", 0, j), percent=_percent(b, raw), masked=False))
        printed_probs.append(printed(b, "probs", 0, j)[1])
        percent = b.product(raw, fmpq(100))
        printed_percents.append(_number(str(percent_format(b.fmt).format(percent))))
    complete = len(printed_probs) == size    # a sum row adds what the table prints
    weight_total = _printed_total(b, printed_probs) if complete else "1"
    percent_total = _printed_total(b, printed_percents, r"\,\%") if complete else r"100\,\%"
    return SoftmaxRow("", "", tuple(entries), b.value("logits_exp_sum", 0, 0), weight_total,
                      percent_total, False, ", ".join(str(j + 1) for j in range(size)),
                      False)
