"""Chosen rows written out entry by entry, for the worked example.

A score as q_i . k_j term by term; a scaled score as the score over the
divisor; a softmax row as a table of e^x, the sum, each weight and its
percentage; an output row as the weighted sum of the value rows, component
by component. Each function takes the ``worked._Builder`` (which formats
every number) and a 0-based query row.
"""

from __future__ import annotations

__all__ = ["score_row", "scaled_row", "softmax_row", "output_row", "with_gaps", "fewer_limits"]

from dataclasses import replace
from typing import Any, Sequence

from flint import fmpq

from symattn.derivation.terms import Term, output_term, score_term
from symattn.render import latex
from symattn.values.exact import NAN, NEG_INF
from symattn.render.view import shown_indices
from symattn.render.worked.model import (OutputComponent, OutputRow, ScaledEntry, ScaledRow,
                                  ScoreEntry, ScoreRow, SoftmaxEntry, SoftmaxRow, Value)

_EMPTY = Value("", "", "", True)
COMPACT = 56        # chains this wide (rough characters) stay on one line, row by row
SUM_WIDTH = 66      # a written-out sum wider than this shows fewer terms (see score_row)


def fewer_limits(limit: int | None, count: int) -> list[int | None]:
    """``limit``, then smaller ones to try when a line is too wide - but only for
    a sum or matrix that is elided anyway: a short one is always shown whole.

    >>> fewer_limits(8, 16), fewer_limits(8, 4), fewer_limits(None, 100)
    ([8, 6, 4, 2], [8], [None])
    """
    if limit is None or count <= limit:
        return [limit]
    smaller: list[int | None] = [k for k in (6, 4, 2) if k < limit]
    return [limit, *smaller]


def with_gaps(indices: Sequence[int]) -> list[int | None]:
    """The indices with None where some are left out.

    >>> with_gaps([0, 1, 5])
    [0, 1, None, 5]
    """
    out: list[int | None] = []
    for k, index in enumerate(indices):
        if k > 0 and index != indices[k - 1] + 1:
            out.append(None)
        out.append(index)
    return out


def wrapped_sum(parts: list[str], wrap: bool = False) -> str:
    r"""``latex.sum_latex`` of the parts; with ``wrap``, continued on new align
    lines (``\\ &\qquad + ...``) wherever a line would pass SUM_WIDTH.

    >>> wrapped_sum(["a", "-b"])
    'a - b'
    >>> print(wrapped_sum(["x" * 40, "-" + "y" * 40], wrap=True))
    xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx \\ &\qquad - yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy
    """
    text = latex.sum_latex(parts)
    if not wrap or latex.approx_width(text) <= SUM_WIDTH:
        return text
    chunks: list[list[str]] = [[]]
    for part in parts:
        if chunks[-1] and latex.approx_width(latex.sum_latex(chunks[-1] + [part])) > SUM_WIDTH:
            chunks.append([])
        chunks[-1].append(part)
    lines = [latex.sum_latex(chunks[0])]
    for chunk in chunks[1:]:   # "0 + a - b" without its "0": the continuation's own sign
        lines.append(latex.sum_latex(["0"] + chunk)[1:].lstrip())
    return r" \\ &\qquad ".join(lines)


def _sum_of_products(b: Any, sum_terms: list[Term | None], labels: tuple[str, str],
                     wrap: bool = False) -> tuple[str, str, str, bool]:
    """Symbolic, substituted and evaluated sums of products (None: the elided
    terms), and whether all are exact."""
    symbolic: list[str] = []
    substituted: list[str] = []
    terms: list[str] = []
    exact = True
    for sum_term in sum_terms:
        if sum_term is None:
            for part in (symbolic, substituted, terms):
                part.append(r"\cdots")
            continue
        left, right = sum_term
        symbolic.append(f"{labels[0]}_{{{i_label(b, left.step, left.row)},{left.column + 1}}} "
                        f"{labels[1]}_{{{right.row + 1},{right.column + 1}}}")
        (x, x_exact), (y, y_exact) = (b.factor(left.step, left.row, left.column),
                                      b.factor(right.step, right.row, right.column))
        substituted.append(latex.product_latex(x, y))
        term = b.product(b.raw(left.step, left.row, left.column),
                         b.raw(right.step, right.row, right.column))
        value = b.make_value(term, latex.exact_latex(term, b.locale))
        terms.append(value.exact if value.is_exact else value.decimal or value.exact)
        exact = exact and x_exact and y_exact and value.is_exact
    return (wrapped_sum(symbolic, wrap), wrapped_sum(substituted, wrap),
            wrapped_sum(terms, wrap) if len(terms) > 1 else "", exact)


def _written(b: Any, sum_terms: list[Term | None], labels: tuple[str, str],
             result: tuple[str, int, int], wrap: bool) -> dict[str, Any]:
    """The fields a score entry and an output component share: the sum three
    ways, the relation (= or approx), the result's value and the layout."""
    symbolic, substituted, terms, exact = _sum_of_products(b, sum_terms, labels, wrap)
    relation = "=" if exact else r"\approx"
    value = b.after(relation, b.value(*result))
    return dict(symbolic=symbolic, substituted=substituted, terms=terms, relation=relation,
                value=value, compact=_compact(symbolic, substituted, terms, value.chain))


def i_label(b: Any, name: str, i: int) -> str:
    """The label of row i of a step: its query position for query rows."""
    return str(b.row_label(name, i))


def _compact(*parts: str) -> bool:
    return sum(latex.approx_width(p) for p in parts) <= COMPACT


def _same_layout(entries: list[Any]) -> tuple[Any, ...]:
    """One line each only if every entry of the row fits on one line."""
    compact = all(e.compact for e in entries)
    return tuple(replace(e, compact=compact) for e in entries)


def score_row(b: Any, i: int) -> ScoreRow:
    """s_ij = q_i . k_j, term by term, for every key on show.

    With long sums (many dimensions, four-digit indices) fewer terms are
    written out around the ``\\cdots``, until each line fits the page.
    """
    label = b.labels[i]
    keys, elided = b.keys(i)
    d = b.d[b.n("Q")].shape[1]

    def entries_for(limit: int | None, wrap: bool) -> list[ScoreEntry]:
        dims = with_gaps(shown_indices(d, limit))
        return [ScoreEntry(lhs=f"s_{{{label},{j + 1}}}",
                           dot=f"q_{{{label}}} \\cdot k_{{{j + 1}}}",
                           **_written(b, [None if t is None else
                                          score_term(b.n("Q"), b.n("K"), i, j, t) for t in dims],
                                      ("q", "k"), (b.n("scores"), i, j), wrap))
                for j in keys]

    _, entries = _fitted_entries(entries_for, fewer_limits(b.limit, d))
    return ScoreRow(str(label), b.token(i, "query"), _same_layout(entries), elided)


def _widest(entries: Sequence[Any]) -> float:
    return max((latex.approx_width(part) for e in entries
                for part in (e.symbolic, e.substituted, e.terms + e.value.chain)), default=0.0)


def _fitted_entries(entries_for: Any, limits: list[int | None]
                    ) -> tuple[int | None, list[Any]]:
    """The first limit whose sums fit SUM_WIDTH and its entries; failing that,
    the last limit's, with the sums wrapped onto further lines."""
    for limit in limits:
        entries = entries_for(limit, False)
        if _widest(entries) <= SUM_WIDTH:
            return limit, entries
    return limits[-1], entries_for(limits[-1], True)


def scaled_row(b: Any, i: int) -> ScaledRow:
    """Each scaled score as the raw score over the divisor (or times the scale)."""
    label = b.labels[i]
    keys, elided = b.keys(i)
    entry = b.scale_info()["entry"]
    entries = []
    for j in keys:
        score, _ = b.factor(b.n("scores"), i, j)
        masked = b.raw(b.n("scaled"), i, j) is NEG_INF
        substituted = entry.replace("{s}", score) if not masked else r"-\infty"
        entries.append(ScaledEntry(f"\\tilde{{s}}_{{{label},{j + 1}}}", substituted,
                                   b.value(b.n("scaled"), i, j), masked))
    return ScaledRow(str(label), b.token(i, "query"), tuple(entries), elided)


def _percent(b: Any, raw: Any) -> str:
    if raw is NAN:
        return r"\mathrm{NaN}"
    value = b.percent_value(b.product(raw, fmpq(100)))
    shown = value.exact if value.is_exact else value.decimal
    return shown + r"\,\%" if shown else ""


def softmax_row(b: Any, i: int) -> SoftmaxRow:
    """The softmax table of row i: scores, exponentials, their sum, weights, percentages."""
    label = b.labels[i]
    keys, _ = b.keys(i)
    source = b.n("masked") if b.n("masked") in b.d else b.n("scaled")
    softmax = b.problem.normalisation == "softmax" and b.n("exp") in b.d
    exp, exp_sum = b.cells.exponentials(b.prefix)    # shifted ones after a max-shift
    entries = []
    for j in with_gaps(keys):
        if j is None:
            entries.append(SoftmaxEntry("", "", _EMPTY, _EMPTY, _EMPTY, "", False, True))
            continue
        entries.append(SoftmaxEntry(
            key=str(j + 1), token=b.token(j, "key"), score=b.value(source, i, j),
            exp=b.value(exp, i, j) if softmax else b.value(source, i, j),
            weight=b.value(b.n("weights"), i, j), percent=_percent(b, b.raw(b.n("weights"), i, j)),
            masked=not b.allowed(i, j)))
    open_keys = [j for j in range(b.d[b.n("scaled")].shape[1]) if b.allowed(i, j)]
    if softmax:
        total = b.value(exp_sum, i, 0)
    else:
        raw_total = b.total(b.raw(source, i, j) for j in open_keys)
        total = b.make_value(raw_total, latex.exact_latex(raw_total, b.locale))
    nan = b.raw(b.n("weights"), i, 0) is NAN
    fully = not open_keys
    weight_total = (r"\mathrm{NaN}" if nan else "0") if fully else "1"
    percent_total = (r"\mathrm{NaN}" if nan else r"0\,\%") if fully else r"100\,\%"
    shown_open = [e for e in entries if not e.elision and not e.masked]
    all_exact = bool(shown_open) and all(e.weight.exact for e in shown_open)
    return SoftmaxRow(str(label), b.token(i, "query"), tuple(entries), total, weight_total,
                      percent_total, fully, ", ".join(str(j + 1) for j in open_keys),
                      all_exact)


def output_row(b: Any, i: int) -> OutputRow:
    """o_i = sum_j a_ij v_j, component by component (masked keys left out).

    As in ``score_row``, long sums show fewer keys around the ``\\cdots``.
    """
    label = b.labels[i]
    width = b.d[b.n("weights")].shape[1]
    masked = [j for j in range(width) if not b.allowed(i, j)]
    fully = len(masked) == width

    def open_keys(limit: int | None) -> list[int | None]:
        return [j for j in with_gaps(shown_indices(width, limit)) if j is None or b.allowed(i, j)]

    def components_for(limit: int | None, wrap: bool) -> list[OutputComponent]:
        gapped = open_keys(limit)
        return [OutputComponent(lhs=f"o_{{{label},{k + 1}}}",
                                **_written(b, [None if j is None else
                                               output_term(b.n("weights"), b.n("V"), i, k, j)
                                               for j in gapped],
                                           ("a", "v"), (b.n("output"), i, k), wrap))
                for k in shown_indices(b.d[b.n("V")].shape[1], b.limit)]

    limit, components = _fitted_entries(components_for, fewer_limits(b.limit, width))
    vector = latex.sum_latex([r"\cdots" if j is None else f"a_{{{label},{j + 1}}} v_{{{j + 1}}}"
                              for j in open_keys(limit)])
    return OutputRow(str(label), b.token(i, "query"), vector,
                     _same_layout(components) if not fully else (),
                     ", ".join(str(j + 1) for j in masked), fully)
