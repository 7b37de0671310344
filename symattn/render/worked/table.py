"""A softmax row as a table: scores, exponentials, their sum, weights, percentages.

Every number in the table follows from the numbers printed before it: the
sum is the sum of the exponentials as printed, each weight (the exact weight,
rounded) is the printed exponential over the printed sum, rounded, and each
exponential is e to the printed score, rounded. For that the scores and the
exponentials carry as many guard digits as it takes (``rows.GUARD_DIGITS``
and two more for the scores, whose rounding the exponential magnifies). The
sum row adds up the weights and the percentages as printed: 0.999 and
99.9 % when rounding makes them fall short of 1, with a note saying why.
"""

from __future__ import annotations

__all__ = ["softmax_row"]

from dataclasses import dataclass
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


def _quotients_follow(b: Any, i: int, exps: dict[int, Number], total: Number) -> bool:
    """Whether each printed weight is the printed exponential over the printed sum."""
    if not all(isinstance(n.value, fmpq) for n in exps.values()) or total.value == 0:
        return False
    weights = b.n("weights")
    return all(_format(b.fmt, arith.divide(n.value, total.value)) ==
               _format(b.fmt, b.raw(weights, i, j)) for j, n in exps.items())


def _exponentials(b: Any, i: int, open_keys: list[int]
                  ) -> tuple[dict[int, Number], Number, NumberFormat]:
    """The exponentials and their sum with the fewest guard digits that make the
    weights follow from them (and the sum round as the exact sum does)."""
    exp, exp_sum = b.cells.exponentials(b.prefix)    # shifted ones after a max-shift
    target = _format(b.fmt, b.raw(exp_sum, i, 0))
    for guard in range(GUARD_DIGITS + 1):
        fmt = finer(b.fmt, guard)
        exps = {j: shown_number(b, b.raw(exp, i, j), fmt) for j in open_keys}
        total = shown_number(b, arith.total(n.value for n in exps.values())
                             if all(isinstance(n.value, fmpq) for n in exps.values())
                             else b.raw(exp_sum, i, 0), fmt)
        if _format(b.fmt, total.value) == target and _quotients_follow(b, i, exps, total):
            break
    return exps, total, fmt


def _scores(b: Any, i: int, source: str, exps: dict[int, Number], fmt: NumberFormat
            ) -> dict[int, Number]:
    """The scores, all with the fewest guard digits whose exponentials round as
    printed (``fmt``: the exponentials' format; after a max-shift they are e^(z - m))."""
    shifted = b.cells.exponentials(b.prefix)[0] != b.n("exp")
    shift = b.raw(b.n("row_max"), i, 0) if shifted else fmpq(0)
    scores: dict[int, Number] = {}
    for guard in range(GUARD_DIGITS + _SCORE_GUARD + 1):
        scores = {j: shown_number(b, b.raw(source, i, j), finer(b.fmt, guard)) for j in exps}
        if not isinstance(shift, fmpq) or all(
               score.exact or exps[j].exact or not isinstance(score.value, fmpq) or
               _format(fmt, arith.exp(score.value - shift)) == _format(fmt, exps[j].value)
               for j, score in scores.items()):
            break
    return scores


def _working(b: Any, i: int, source: str, open_keys: list[int]) -> _Working:
    exps, total, fmt = _exponentials(b, i, open_keys)
    return _Working(_scores(b, i, source, exps, fmt), exps, total)


def _value(number: Number) -> Value:
    """A number of the table as a ``Value`` (the template prints exact or decimal)."""
    return Value(number.latex, number.latex, ("= " if number.exact else r"\approx ") +
                 number.latex, number.exact, number.latex)


def _percent(b: Any, raw: Any) -> tuple[str, Any, str]:
    """A weight in percent: math, the value it stands for and its plain text."""
    if raw is NAN:
        return r"\mathrm{NaN}", None, ""
    number = shown_number(b, b.product(raw, fmpq(100)), percent_format(b.fmt))
    return (number.latex + r"\,\%" if number.latex else ""), number.value, \
        (number.text + "%" if number.text else "")


def _exactly(b: Any, total: fmpq, texts: list[str]) -> str:
    """A sum of printed decimals, written out to the places of the longest one
    (where it is exact), in the document's separator."""
    if any("e" in text for text in texts):
        return _format(b.fmt, total) or ""
    places = max((len(text.partition(".")[2]) for text in texts), default=0)
    if b.fmt.places is None:   # significant digits: no zeros past the sum's last digit
        places = min(places, terminating_places(total) or 0)
    return NumberFormat(digits=None, places=places, rounding=b.fmt.rounding,
                        locale=b.fmt.locale).format(total) or ""


def _totals(b: Any, i: int, open_keys: list[int]) -> tuple[str, str, bool, list[Shown]]:
    """The sums of the printed weights and percentages, whether rounding kept them
    from 1 and 100 %, and the two sums as printed numbers."""
    weights = b.n("weights")
    shown = [shown_number(b, b.raw(weights, i, j), b.fmt) for j in open_keys]
    percents = [_percent(b, b.raw(weights, i, j)) for j in open_keys]
    if any(not isinstance(n.value, fmpq) for n in shown) or \
            any(not isinstance(p[1], fmpq) for p in percents):
        return "1", r"100\,\%", False, []
    weight_sum = sum((n.value for n in shown), fmpq(0))
    percent_sum = sum((p[1] for p in percents), fmpq(0))
    weight_text = "1" if weight_sum == 1 else _exactly(b, weight_sum, [n.text for n in shown])
    percent_text = "100" if percent_sum == 100 else \
        _exactly(b, percent_sum, [p[2].rstrip("%") for p in percents])
    tag = f"weights {i + 1} table"
    sums = [Shown(weights, i, 0, weight_text.replace(",", "."), "sum", label=tag)]
    if b.fmt.places is None or b.fmt.places >= 2:   # else the percentages have more places
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
    working = _working(b, i, source, open_keys) if softmax and not fully and not elided \
        else _Working({}, {}, None)
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
        percent, _, percent_text = _percent(b, weight)
        entries.append(SoftmaxEntry(
            key=str(j + 1), token=b.token(j, "key"), score=score, exp=exp,
            weight=b.value(b.n("weights"), i, j), percent=percent, masked=not b.allowed(i, j)))
        shown += _entry_shown(b, i, j, source, working, tag if not elided else
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
        weight_total, percent_total, rounded, sums = _totals(b, i, open_keys)
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


def _entry_shown(b: Any, i: int, j: int, source: str, working: _Working, tag: str,
                 percent_text: str) -> list[Shown]:
    """The numbers of key j's line of the table, for the page's own check."""
    out = []
    weight = shown_number(b, b.raw(b.n("weights"), i, j), b.fmt)
    exp = b.cells.exponentials(b.prefix)[0]      # shifted ones after a max-shift
    for step, number in ((source, working.scores.get(j)), (exp, working.exps.get(j)),
                         (b.n("weights"), weight)):
        if number is not None and number.text:
            out.append(Shown(step, i, j, number.text, label=tag))
    if percent_text:
        out.append(Shown(b.n("weights"), i, j, percent_text, label=tag + " percent"))
    return out
