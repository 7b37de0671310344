"""Chosen rows written out entry by entry, for the worked example.

A score as q_i . k_j term by term; a scaled score as the score over the
divisor; a softmax row as a table of e^x, the sum, each weight and its
percentage; an output row as the weighted sum of the value rows, component
by component. Each function takes the ``worked._Builder`` (which formats
every number) and a 0-based query row.
"""

from __future__ import annotations

__all__ = ["score_row", "scaled_row", "output_row", "with_gaps", "fewer_limits", "Number",
           "shown_number", "plain"]

from dataclasses import dataclass, replace
from typing import Any, Sequence

from flint import fmpq

from symattn.derivation.attention import scale_factor
from symattn.derivation.terms import Factor, Term, claim_term, output_term
from symattn.render import latex
from symattn.values.decimals import fixed_decimal
from symattn.values.exact import NEG_INF, Surd, exact_text, terminating_places
from symattn.values.number_format import NumberFormat
from symattn.render.view import shown_indices
from symattn.render.worked.cells import finer, significant, stands_for, value_of
from symattn.render.worked.model import (OutputComponent, OutputRow, ScaledEntry, ScaledRow,
                                         ScoreEntry, ScoreRow, Shown, Value)

_EMPTY = Value("", "", "", True)
COMPACT = 56        # chains this wide (rough characters) stay on one line, row by row
SUM_WIDTH = 66      # a written-out sum wider than this shows fewer terms (see score_row)
# The most extra digits the working of a written-out sum carries: one or two
# almost always; more only for a total next to a rounding midpoint.
GUARD_DIGITS = 30


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


@dataclass(frozen=True)
class Number:
    """A number as a line shows it: its math, the value it stands for, whether
    it is shown exactly, and its plain text for the page's own check ("" if none)."""

    latex: str
    value: Any
    exact: bool
    text: str


def plain(raw: Any) -> str:
    """Exact text a reader of printed numbers reads back ("" for other kinds): a
    terminating rational as its decimal (shown so), else its closed form."""
    if isinstance(raw, fmpq):
        places = terminating_places(raw)
        if places is not None and places <= latex.MAX_EXACT_PLACES:
            return fixed_decimal(raw, places)
    return exact_text(raw) if isinstance(raw, (fmpq, Surd)) else ""


def shown_number(b: Any, raw: Any, fmt: NumberFormat) -> Number:
    """``raw`` exactly when its exact form is short and terminates, else its decimal in ``fmt``."""
    value = value_of(raw, latex.exact_latex(raw, b.locale), None, fmt)
    if value.is_exact:
        return Number(value.exact, raw, True, plain(raw))
    text = fmt.format(raw)
    if text is None or text in ("-inf", "nan"):
        return Number(value.exact or value.decimal, raw, False, "")
    digits = fmt.digits if fmt.places is None else None
    return Number(latex.math_decimal(text), stands_for(text), False,
                  significant(text.replace(",", "."), digits))


def _factor(b: Any, factor: Factor, fmt: NumberFormat) -> Number:
    """An operand inside a substitution: exact when short and simple, else its decimal."""
    raw = b.raw(factor.step, factor.row, factor.column)
    value = b.value(factor.step, factor.row, factor.column)
    if value.is_exact or value.exact and "e^" not in value.exact:
        return Number(value.exact, raw, True, plain(raw))
    return shown_number(b, raw, fmt)


@dataclass(frozen=True)
class _Line:
    """A written-out sum of products: symbolic, substituted and term by term,
    whether all of it is exact, the sum of its terms as shown (None with
    elided terms) and the numbers it shows."""

    symbolic: str
    substituted: str
    terms: str
    exact: bool
    total: Any
    shown: tuple[Shown, ...]


def _sum_of_products(b: Any, sum_terms: list[Term | None], labels: tuple[str, str],
                     wrap: bool, fmt: NumberFormat, entry: tuple[str, int, int]) -> _Line:
    """Each term the product of the factors as shown (in ``fmt``), rounded to ``fmt``."""
    symbolic: list[str] = []
    substituted: list[str] = []
    terms: list[str] = []
    values: list[Any] = []
    shown: list[Shown] = []
    label = _line_label(entry)
    exact = True
    for sum_term in sum_terms:
        if sum_term is None:
            for part in (symbolic, substituted, terms):
                part.append(r"\cdots")
            continue
        left, right = sum_term
        symbolic.append(f"{labels[0]}_{{{i_label(b, left.step, left.row)},{left.column + 1}}} "
                        f"{labels[1]}_{{{right.row + 1},{right.column + 1}}}")
        x, y = _factor(b, left, fmt), _factor(b, right, fmt)
        substituted.append(latex.product_latex(x.latex, y.latex))
        term = shown_number(b, b.product(x.value, y.value), fmt)
        terms.append(term.latex)
        values.append(term.value)
        exact = exact and x.exact and y.exact and term.exact
        shown += [Shown(f.step, f.row, f.column, n.text, label=label)
                  for f, n in ((left, x), (right, y)) if n.text]
        if term.text:
            shown.append(Shown(*entry, term.text, "term", left.column, label))
    total = b.total(values) if None not in sum_terms else None
    return _Line(wrapped_sum(symbolic, wrap), wrapped_sum(substituted, wrap),
                 wrapped_sum(terms, wrap) if len(terms) > 1 else "", exact, total, tuple(shown))


def _line_label(entry: tuple[str, int, int]) -> str:
    """The label of the numbers of one written-out line (for the page's own check)."""
    name, i, j = entry
    return f"{name} {i + 1},{j + 1} written out"


# One written-out sum: its terms (None for the elided ones), the letters of
# its two factors, and the entry (step, row, column) it adds up to.
_Sum = tuple[list["Term | None"], tuple[str, str], tuple[str, int, int]]


def _adds_up(b: Any, line: _Line, result: tuple[str, int, int]) -> bool:
    """Whether the terms shown add up to the result as printed (or cannot be compared)."""
    target = _format(b.fmt, b.raw(*result))
    return target is None or line.total is None or _format(b.fmt, line.total) == target


def _written_row(b: Any, sums: list[_Sum], wrap: bool) -> list[dict[str, Any]]:
    """The fields of each written-out sum of a row (score entries, output components).

    The working carries as many guard digits as it needs for the terms, each the
    product of the factors shown, to add up to each result as printed: the same
    number for the whole row when one fits all (up to GUARD_DIGITS), else each
    sum its own."""
    for guard in range(GUARD_DIGITS + 1):
        lines = [_sum_of_products(b, terms, labels, wrap, finer(b.fmt, guard), result)
                 for terms, labels, result in sums]
        if all(_adds_up(b, line, result) for line, (_, _, result) in zip(lines, sums)):
            return [_fields(b, line, result) for line, (_, _, result) in zip(lines, sums)]
    return [_fields(b, _one_sum(b, terms, labels, result, wrap), result)
            for terms, labels, result in sums]


def _one_sum(b: Any, sum_terms: list[Term | None], labels: tuple[str, str],
             result: tuple[str, int, int], wrap: bool) -> _Line:
    """One written-out sum with the fewest guard digits that make it add up."""
    for guard in range(GUARD_DIGITS + 1):
        line = _sum_of_products(b, sum_terms, labels, wrap, finer(b.fmt, guard), result)
        if _adds_up(b, line, result):
            break
    return line


def _fields(b: Any, line: _Line, result: tuple[str, int, int]) -> dict[str, Any]:
    """The fields a score entry and an output component share: the sum three
    ways, the relation (= or approx), the result's value and the layout."""
    relation = "=" if line.exact else r"\approx"
    value = b.after(relation, b.value(*result))
    if relation != "=" and value.is_exact and value.decimal:
        # rounded terms add up to the exact result only approximately: 0.7674 + 0.2327
        # is 1.0001, so the line ends "~ 1.000", not "= 1"
        value = Value("", value.decimal, f"\\approx {value.decimal}", False)
    target = _format(b.fmt, b.raw(*result))
    printed = plain(b.raw(*result)) if value.is_exact else target
    # With terms left out (\cdots) the result cannot be added up from the line.
    label = _line_label(result) + ("" if line.total is not None else ", result")
    shown = line.shown + ((Shown(*result, printed.replace(",", "."), label=label),)
                          if printed else ())
    return dict(symbolic=line.symbolic, substituted=line.substituted, terms=line.terms,
                relation=relation, value=value, shown=shown,
                compact=_compact(line.symbolic, line.substituted, line.terms, value.chain))


def _format(fmt: NumberFormat, value: Any) -> str | None:
    """``fmt.format``, None where a value has no decimal to compare."""
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return None


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
    operands = b.d[b.n("scores")].operands
    d = b.d[b.n("Q")].shape[1]

    def entries_for(limit: int | None, wrap: bool) -> list[ScoreEntry]:
        dims = with_gaps(shown_indices(d, limit))
        fields = _written_row(b, [([None if t is None else claim_term(
            b.n("scores"), i, j, t, operands) for t in dims], ("q", "k"), (b.n("scores"), i, j))
            for j in keys], wrap)
        return [ScoreEntry(lhs=f"s_{{{label},{j + 1}}}", dot=f"q_{{{label}}} \\cdot k_{{{j + 1}}}",
                           **written) for j, written in zip(keys, fields)]

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
    """Each scaled score as the raw score over the divisor (or times the scale); a
    raw score shown as a decimal carries the guard digits the quotient needs."""
    label = b.labels[i]
    keys, elided = b.keys(i)
    entry = b.scale_info()["entry"]
    problem = b.problem
    factor = scale_factor(problem) if isinstance(problem.scale_value, (fmpq, Surd)) and \
        isinstance(problem.temperature, (fmpq, Surd)) else None
    entries = []
    for j in keys:
        masked = b.raw(b.n("scaled"), i, j) is NEG_INF
        target = _format(b.fmt, b.raw(b.n("scaled"), i, j))
        for guard in range(GUARD_DIGITS + 1):
            score = _factor(b, Factor(b.n("scores"), i, j), finer(b.fmt, guard))
            if score.exact or factor is None or masked or target is None or \
                    _format(b.fmt, b.product(score.value, factor)) == target:
                break
        substituted = entry.replace("{s}", score.latex) if not masked else r"-\infty"
        value = b.value(b.n("scaled"), i, j)
        tag = f"scaled {i + 1},{j + 1} written out"
        printed = plain(b.raw(b.n("scaled"), i, j)) if value.is_exact else target
        shown = tuple(Shown(step, i, j, text.replace(",", "."), label=tag)
                      for step, text in ((b.n("scores"), score.text), (b.n("scaled"), printed))
                      if text and not masked)
        entries.append(ScaledEntry(f"\\tilde{{s}}_{{{label},{j + 1}}}", substituted, value,
                                   masked, shown))
    return ScaledRow(str(label), b.token(i, "query"), tuple(entries), elided)


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
        shown = shown_indices(b.d[b.n("V")].shape[1], b.limit)
        fields = _written_row(b, [([None if j is None else output_term(
            b.n("weights"), b.n("V"), i, k, j) for j in gapped], ("a", "v"),
            (b.n("output"), i, k)) for k in shown], wrap)
        return [OutputComponent(lhs=f"o_{{{label},{k + 1}}}", **written)
                for k, written in zip(shown, fields)]

    limit, components = _fitted_entries(components_for, fewer_limits(b.limit, width))
    # The page says a masked key's term is exactly 0 and leaves it out: so it reads.
    components = [replace(c, shown=c.shown + tuple(
        Shown(b.n("output"), i, k, "0", "term", j, _line_label((b.n("output"), i, k)))
        for j in masked)) for k, c in zip(shown_indices(b.d[b.n("V")].shape[1], b.limit),
                                         components)]
    vector = latex.sum_latex([r"\cdots" if j is None else f"a_{{{label},{j + 1}}} v_{{{j + 1}}}"
                              for j in open_keys(limit)])
    return OutputRow(str(label), b.token(i, "query"), vector,
                     _same_layout(components) if not fully else (),
                     ", ".join(str(j + 1) for j in masked), fully)
