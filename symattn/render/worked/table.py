"""A softmax row as a table: scores, exponentials, their sum, weights, percentages.

Every number in the table follows from the numbers printed before it: the
sum is the sum of the exponentials as printed, each weight (the exact weight,
rounded) is the printed exponential over the printed sum, rounded, and each
exponential is e to the printed score, rounded. For that the scores and the
exponentials carry as many guard digits as it takes (``rows.GUARD_DIGITS``
and two more for the scores, whose rounding the exponential magnifies).

Every column shows the same number of decimal places in every row, and in every
table of the step (one per query row written out): the places of its largest
number in the document's format, more where the working needs them. A small number
then shows fewer significant digits (e^-30 is 0.00000 beside 1.00000), never a digit
that is not certain; an exact decimal shorter than its column is written out with
zeros (0.730 beside 0.485). Only a column with a number too large to write out
(e^800) keeps significant digits, in powers of ten. The
sum row adds up the weights and the percentages as printed: 0.999 and
99.9 % when rounding makes them fall short of 1, with a note saying why.
"""

from __future__ import annotations

__all__ = ["softmax_row"]

from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from typing import Any

from flint import fmpq

from symattn.render import latex
from symattn.render.worked.cells import finer, percent_format
from symattn.render.worked.model import Shown, SoftmaxEntry, SoftmaxRow, Value
from symattn.render.worked.rows import GUARD_DIGITS, Number, shown_number, with_gaps
from symattn.values import arith
from symattn.values.exact import NAN, terminating_places
from symattn.values.number_format import NumberFormat

_EMPTY = Value("", "", "", True)
# The scores carry at most this many digits more than the exponentials: enough
# for e^z with z up to about 700 (e^z magnifies the rounding of z by e^z).
_SCORE_GUARD = 24


@dataclass(frozen=True)
class _Working:
    """The scores, exponentials and their sum as the table prints them."""

    scores: dict[int, Number]
    exps: dict[int, Number]
    total: Number | None


def _format(fmt: NumberFormat, value: Any) -> str | None:
    try:
        return fmt.format(value)
    except (ValueError, TypeError):
        return None


@dataclass(frozen=True)
class _Columns:
    """The formats of the score, exponential and weight columns, shared by every table
    of a step: fixed decimal places, or significant digits for a column with a number
    the document's format writes in powers of ten for its size (e^800)."""

    scores: NumberFormat
    exps: NumberFormat
    weights: NumberFormat


def _fixed(fmt: NumberFormat, places: int) -> NumberFormat:
    """``fmt``'s rule and decimal mark with ``places`` fixed decimal places."""
    return NumberFormat(digits=None, places=max(places, 0), rounding=fmt.rounding,
                        locale=fmt.locale)


def _places(text: str | None, separator: str) -> int | None:
    """The decimal places of a formatted decimal; None for none to count (-inf)."""
    if text is None or text in ("-inf", "nan"):
        return None
    return len(text.partition(separator)[2])


def _terminates(raw: Any) -> bool:
    places = terminating_places(raw) if isinstance(raw, fmpq) else None
    return places is not None and places <= latex.MAX_EXACT_PLACES


def _candidates(fmt: NumberFormat, raws: list[Any], extra: int) -> list[NumberFormat]:
    """The formats a column may take, fewest digits first: from the places ``fmt`` gives
    its largest inexact number (or an exact decimal needs), up to ``extra`` more. A
    number too small for them shows fewer digits (e^-30 is 0.00000 beside 1.00000);
    a column with a number ``fmt`` writes in powers of ten for its size (e^800) keeps
    significant digits (``finer``): fixed places would write out all its digits."""
    texts = [(raw, _format(fmt, raw)) for raw in raws]
    if fmt.places is None and any(text and "e+" in text for _, text in texts):
        return [finer(fmt, guard) for guard in range(extra + 1)]
    inexact = [fmt.places] if fmt.places is not None else \
        [p for raw, text in texts if not _terminates(raw) and text and "e" not in text
         for p in [_places(text, fmt.separator)] if p is not None]
    if not inexact and any(text and "e-" in text for _, text in texts):
        inexact = [(fmt.digits or 1) - 1]    # only tiny ones (e^-30 beside 1): 1.00000
    exact = [terminating_places(raw) or 0 for raw, _ in texts if _terminates(raw)]
    start = max(min(inexact, default=0), max(exact, default=0))
    return [_fixed(fmt, start + more) for more in range(extra + 1)]


def column_number(b: Any, raw: Any, fmt: NumberFormat) -> Number:
    """``raw`` in a column of ``fmt``: with fixed places, its decimal rounded to them, or,
    exact and ending by then, written out with its zeros (0.730, 4.000: exact still)."""
    if fmt.places is not None and _terminates(raw) and \
            (terminating_places(raw) or 0) <= fmt.places:
        text = fmt.format(raw) or ""
        return Number(latex.math_decimal(text), raw, True, text.replace(",", "."))
    return shown_number(b, raw, fmt)


def _open_keys(b: Any, i: int) -> list[int]:
    return [j for j in range(b.d[b.n("scaled")].shape[1]) if b.allowed(i, j)]


def _weights_follow(b: Any, i: int, exps: dict[int, Number], total: Number,
                    weights: NumberFormat) -> bool:
    """Whether each printed weight is the printed exponential over the printed sum."""
    if not all(isinstance(n.value, fmpq) for n in exps.values()) or total.value == 0:
        return False
    name = b.n("weights")
    return all(_format(weights, arith.divide(n.value, total.value)) ==
               _format(weights, b.raw(name, i, j)) for j, n in exps.items())


def _exponentials(b: Any, i: int, fmt: NumberFormat) -> tuple[dict[int, Number], Number]:
    """Row i's exponentials and their sum in ``fmt``."""
    exp, exp_sum = b.cells.exponentials(b.prefix)    # shifted ones after a max-shift
    exps = {j: column_number(b, b.raw(exp, i, j), fmt) for j in _open_keys(b, i)}
    total = column_number(b, arith.total(n.value for n in exps.values())
                          if all(isinstance(n.value, fmpq) for n in exps.values())
                          else b.raw(exp_sum, i, 0), fmt)
    return exps, total


def _exps_follow(b: Any, i: int, fmt: NumberFormat, weights: NumberFormat) -> bool:
    """Whether the weights follow from row i's exponentials in ``fmt`` (and the sum
    rounds as the exact sum does)."""
    exps, total = _exponentials(b, i, fmt)
    target = _format(b.fmt, b.raw(b.cells.exponentials(b.prefix)[1], i, 0))
    return _format(b.fmt, total.value) == target and _weights_follow(b, i, exps, total,
                                                                      weights)


def _scores(b: Any, i: int, source: str, fmt: NumberFormat) -> dict[int, Number]:
    return {j: column_number(b, b.raw(source, i, j), fmt) for j in _open_keys(b, i)}


def _scores_follow(b: Any, i: int, source: str, fmt: NumberFormat,
                   exps: dict[int, Number], exp_fmt: NumberFormat) -> bool:
    """Whether row i's exponentials are e to its scores in ``fmt``, rounded as shown
    (after a max-shift e^(z - m))."""
    shifted = b.cells.exponentials(b.prefix)[0] != b.n("exp")
    shift = b.raw(b.n("row_max"), i, 0) if shifted else fmpq(0)
    if not isinstance(shift, fmpq):
        return True
    return all(score.exact or exps[j].exact or not isinstance(score.value, fmpq) or
               _format(exp_fmt, arith.exp(score.value - shift)) ==
               _format(exp_fmt, exps[j].value)
               for j, score in _scores(b, i, source, fmt).items())


def _first(candidates: list[NumberFormat], works: Any) -> NumberFormat:
    """The first format for which ``works``, else the last."""
    for fmt in candidates:
        if works(fmt):
            return fmt
    return candidates[-1]


def _columns(b: Any, source: str, rows: list[int]) -> _Columns:
    """The columns of the tables of ``rows``: the fewest digits, the same in every
    table, with which each table's numbers follow from those before them."""
    def column(name: str) -> list[Any]:
        return [b.raw(name, i, j) for i in rows for j in _open_keys(b, i)]

    weights = _candidates(b.fmt, column(b.n("weights")), 0)[0]
    exps = _first(_candidates(b.fmt, column(b.cells.exponentials(b.prefix)[0]), GUARD_DIGITS),
                  lambda fmt: all(_exps_follow(b, i, fmt, weights) for i in rows))
    shown = {i: _exponentials(b, i, exps)[0] for i in rows}
    scores = _first(_candidates(b.fmt, column(source), GUARD_DIGITS + _SCORE_GUARD),
                    lambda fmt: all(_scores_follow(b, i, source, fmt, shown[i], exps)
                                    for i in rows))
    return _Columns(scores, exps, weights)


def _step_columns(b: Any, source: str) -> _Columns:
    """``_columns`` of the step's tables that can be added up (softmax, some key open, no
    key left out), worked out once per step."""
    key = (b.prefix, source)
    if key not in b.tables:
        b.tables[key] = _columns(b, source, [i for i in b.expanded if _open_keys(b, i)])
    found: _Columns = b.tables[key]
    return found


def _working(b: Any, i: int, source: str) -> tuple[_Working, NumberFormat]:
    columns = _step_columns(b, source)
    exps, total = _exponentials(b, i, columns.exps)
    return _Working(_scores(b, i, source, columns.scores), exps, total), columns.weights


def _value(number: Number) -> Value:
    """A number of the table as a ``Value`` (the template prints exact or decimal)."""
    return Value(number.latex, number.latex, ("= " if number.exact else r"\approx ") +
                 number.latex, number.exact, number.latex)


def _column_value(value: Value, number: Number) -> Value:
    """A weight's ``Value`` with the column's decimal in the table's cell; the lines
    under the table keep its closed form and the document's decimal (``chain``)."""
    if number.exact and not value.is_exact:
        return _value(number)
    return replace(value, exact=number.latex if value.is_exact else value.exact,
                   decimal=number.latex)


def _percent(b: Any, raw: Any, weights: NumberFormat) -> tuple[str, Any, str]:
    """A weight in percent (two places fewer than ``weights``): math, the value it stands
    for and its plain text."""
    if raw is NAN:
        return r"\mathrm{NaN}", None, ""
    number = column_number(b, b.product(raw, fmpq(100)), percent_format(weights))
    return (number.latex + r"\,\%" if number.latex else ""), number.value, \
        (number.text + "%" if number.text else "")


def _exactly(fmt: NumberFormat, total: fmpq, texts: list[str]) -> str:
    """A sum of printed decimals, written out to the places of the longest one
    (where it is exact), in ``fmt``'s separator."""
    if any("e" in text for text in texts):
        return _format(fmt, total) or ""
    places = max((len(text.partition(".")[2]) for text in texts), default=0)
    if fmt.places is None:   # significant digits: no zeros past the sum's last digit
        places = min(places, terminating_places(total) or 0)
    return _fixed(fmt, places).format(total) or ""


def _totals(b: Any, i: int, open_keys: list[int], fmt: NumberFormat
            ) -> tuple[str, str, bool, list[Shown]]:
    """The sums of the printed weights (in ``fmt``) and percentages, whether rounding
    kept them from 1 and 100 %, and the two sums as printed numbers."""
    weights = b.n("weights")
    shown = [column_number(b, b.raw(weights, i, j), fmt) for j in open_keys]
    percents = [_percent(b, b.raw(weights, i, j), fmt) for j in open_keys]
    if any(not isinstance(n.value, fmpq) for n in shown) or \
            any(not isinstance(p[1], fmpq) for p in percents):
        return "1", r"100\,\%", False, []
    weight_sum = sum((n.value for n in shown), fmpq(0))
    percent_sum = sum((p[1] for p in percents), fmpq(0))
    weight_text = "1" if weight_sum == 1 else _exactly(fmt, weight_sum,
                                                       [n.text for n in shown])
    percent_text = "100" if percent_sum == 100 else \
        _exactly(fmt, percent_sum, [p[2].rstrip("%") for p in percents])
    tag = f"weights {i + 1} table"
    sums = [Shown(weights, i, 0, weight_text.replace(",", "."), "sum", label=tag)]
    if fmt.places is None or fmt.places >= 2:   # else the percentages have more places
        sums.append(Shown(weights, i, 0, percent_text.replace(",", ".") + "%", "sum",
                          label=tag + " percent"))
    return (latex.math_decimal(weight_text), latex.math_decimal(percent_text) + r"\,\%",
            weight_sum != 1 and not _reads_as_one(weight_text), sums)


def _reads_as_one(text: str) -> bool:
    """Whether a written sum reads as 1 (1,00000 for weights next to 10^-14): then
    no note that the printed weights add up to it "and not to exactly 1".

    >>> _reads_as_one("1,00000"), _reads_as_one("0.999999"), _reads_as_one("1")
    (True, False, True)
    """
    try:
        return Decimal(text.replace(",", ".")) == 1
    except InvalidOperation:
        return False


def softmax_row(b: Any, i: int) -> SoftmaxRow:
    """The softmax table of row i: scores, exponentials, their sum, weights, percentages."""
    label = b.labels[i]
    keys, _ = b.keys(i)
    source = b.n("masked") if b.n("masked") in b.d else b.n("scaled")
    softmax = b.problem.normalisation == "softmax" and b.n("exp") in b.d
    exp_name, exp_sum_name = b.cells.exponentials(b.prefix)    # shifted after a max-shift
    open_keys = [j for j in range(b.d[b.n("scaled")].shape[1]) if b.allowed(i, j)]
    fully = not open_keys
    elided = b.keys(i)[1]
    # A table with keys left out cannot be added up by its reader: no guard digits,
    # and each of its numbers stands alone (its own label) for the page's own check.
    working, weights = _working(b, i, source) if softmax and not fully and not elided \
        else (_Working({}, {}, None), b.fmt)
    tag = f"weights {i + 1} table"
    entries = []
    shown: list[Shown] = []
    for j in with_gaps(keys):
        if j is None:
            entries.append(SoftmaxEntry("", "", _EMPTY, _EMPTY, _EMPTY, "", False, True))
            continue
        score = _value(working.scores[j]) if j in working.scores else b.value(source, i, j)
        exp = _value(working.exps[j]) if j in working.exps else \
            b.value(exp_name, i, j) if softmax else b.value(source, i, j)
        weight = b.raw(b.n("weights"), i, j)
        # a masked key's weight is 0 by the mask, not a number of the column
        column = weights if j in working.exps else b.fmt
        percent, _, percent_text = _percent(b, weight, column)
        entries.append(SoftmaxEntry(
            key=str(j + 1), token=b.token(j, "key"), score=score, exp=exp,
            weight=_column_value(b.value(b.n("weights"), i, j),
                                 column_number(b, weight, weights)) if j in working.exps else
            b.value(b.n("weights"), i, j), percent=percent, masked=not b.allowed(i, j)))
        shown += _entry_shown(b, i, j, (source, column), working, tag if not elided else
                              f"{tag} key {j + 1}", percent_text)
    if working.total is not None and working.total.text:
        shown.append(Shown(exp_sum_name, i, 0, working.total.text, label=tag))
    if softmax:
        total = b.value(exp_sum_name, i, 0)
    else:
        raw_total = b.total(b.raw(source, i, j) for j in open_keys)
        total = b.make_value(raw_total, latex.exact_latex(raw_total, b.locale))
    nan = b.raw(b.n("weights"), i, 0) is NAN
    if fully:
        weight_total = r"\mathrm{NaN}" if nan else "0"
        percent_total, rounded = (r"\mathrm{NaN}" if nan else r"0\,\%"), False
    else:
        weight_total, percent_total, rounded, sums = _totals(b, i, open_keys, weights)
        shown += sums if not elided else []
    shown_open = [e for e in entries if not e.elision and not e.masked]
    all_exact = bool(shown_open) and all(e.weight.exact for e in shown_open)
    return SoftmaxRow(str(label), b.token(i, "query"), tuple(entries), total, weight_total,
                      percent_total, fully, ", ".join(str(j + 1) for j in open_keys),
                      all_exact, rounded, tuple(shown),
                      sum_shown=_sum_shown(working.total) if working.total else "")


def _sum_shown(total: Number) -> str:
    """The table's sum of exponentials after its relation: = when it is the exact
    sum of the printed exponentials."""
    return ("= " if total.exact else r"\approx ") + total.latex


def _entry_shown(b: Any, i: int, j: int, columns: tuple[str, NumberFormat],
                 working: _Working, tag: str, percent_text: str) -> list[Shown]:
    """The numbers of key j's line of the table, for the page's own check (``columns``:
    the step of the scores and the weights' format)."""
    out = []
    source, weights = columns
    weight = column_number(b, b.raw(b.n("weights"), i, j), weights)
    exp = b.cells.exponentials(b.prefix)[0]      # shifted ones after a max-shift
    for step, number in ((source, working.scores.get(j)), (exp, working.exps.get(j)),
                         (b.n("weights"), weight)):
        if number is not None and number.text:
            out.append(Shown(step, i, j, number.text, label=tag))
    if percent_text:
        out.append(Shown(b.n("weights"), i, j, percent_text, label=tag + " percent"))
    return out
