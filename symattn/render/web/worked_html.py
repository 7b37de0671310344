"""The rows a worked example writes out, as HTML: scores term by term, the softmax
table, the weighted sum of the value rows.

The records are the worked example's (``render.worked.build``, the same as the
Markdown and LaTeX documents show); their mathematics becomes MathML through
``mathml.to_mathml``, an equation chain a two-column table (the left side, then
``= ...`` line by line), a softmax row a table. Nothing here computes: every
number is the record's string.

>>> from symattn.render.worked.model import ScoreEntry, ScoreRow, Value
>>> from symattn import messages
>>> row = ScoreRow("1", "a<b", (ScoreEntry("s_{1,1}", "q_{1} \\\\cdot k_{1}", "q_{1,1} k_{1,1}",
...                "2 \\\\cdot 3", "", "=", Value("6", "6", "= 6", True)),), False)
>>> out = expansion_html(row, "softmax", False, messages.load("en"))
>>> "Row 1 (a&lt;b), term by term." in out, out.count("<math") == 3
(True, True)
"""

from __future__ import annotations

__all__ = ["expansion_html", "expansions_html", "Tips"]

from typing import Callable, Mapping, Sequence

from symattn.messages import Catalog
from symattn.render.web.mathml import prose_html, to_mathml
from symattn.render.web.page import escape, tipped, words
from symattn.render.worked.model import (Expansion, OutputRow, ProductRow, ScaledRow, ScoreRow,
                                         Shown, SoftmaxEntry, SoftmaxRow, StepModel, Value)

Chain = Sequence[tuple[str, str]]     # (left side, the rest) of each line, as LaTeX
Tips = Mapping[tuple[str, int, int], str]    # a matrix entry's tip by (step, row, column)
EMPTY_TIPS: Tips = {}


_TOKEN = "\x00token\x00"      # where the row's token goes, once the words are HTML


def _title(key: str, query: str, token: str, catalog: Catalog) -> str:
    """"Row 3 (venku), term by term.": the catalog's words, the token escaped."""
    label = catalog.fill("step.row", query=query) + (f" ({_TOKEN})" if token else "")
    said = words(catalog.fill(key, row=label)).replace(_TOKEN, escape(token))
    return f'<p class="row">{said}</p>'


def _chain(lines: Chain, tips: Sequence[str] = ()) -> str:
    """Equations one under another, lined up on their relation (a table of two columns);
    ``tips``: a line's left side, focused, shows its entry's tip."""
    rows = []
    for k, (left, right) in enumerate(lines):
        shown = to_mathml(left) if left else ""
        tip = tips[k] if k < len(tips) else ""
        rows.append(f'<tr><td class="lhs">{_tipped(shown, tip) if left else ""}</td>'
                    f"<td>{to_mathml(right)}</td></tr>")
    return f'<table class="chain">{"".join(rows)}</table>'


def _result_tip(shown: Sequence[Shown], step: str, tips: Tips) -> str:
    """The tip of the entry a line works out (its number of ``step``), or ""."""
    entry = next((s for s in shown if s.part == "entry" and s.step == step), None)
    return tips.get((entry.step, entry.row, entry.column), "") if entry else ""


def _sum_lines(lhs: str, symbolic: str, relation: str, substituted: str, terms: str,
               tail: str) -> list[tuple[str, str]]:
    """``lhs = symbolic``, then ``≈ substituted ≈ terms`` and the value on the next line."""
    rest = f"{relation} {substituted}" + (f" {relation} {terms}" if terms else "")
    return [(lhs, f"= {symbolic}"), ("", f"{rest} {tail}")]


def _shown(value: Value) -> str:
    return value.exact if value.is_exact else value.decimal


def _row_steps(row: SoftmaxRow) -> tuple[int, tuple[str, ...]] | None:
    """The 0-based row a softmax table shows, and the steps of its score, exponential and
    weight columns in order, from the numbers it prints (None when it prints none)."""
    entries = [s for s in row.shown if s.part == "entry"]
    if not entries:
        return None
    steps = tuple(dict.fromkeys(s.step for s in entries if s.step.split(".")[-1] != "exp_sum"))
    return entries[0].row, steps


def _softmax_entry(entry: SoftmaxEntry, softmax: bool, tip: Callable[[int, int], str]
                   ) -> str:
    """One key's line of the table; ``tip(column, j)``: the tip of the number in the
    table's ``column`` (0 score, 1 exponential, 2 weight) for key ``j`` (0-based)."""
    if entry.elision:
        return "<tr>" + "<td>⋮</td>" * (6 if softmax else 5) + "</tr>"
    j = int(entry.key) - 1 if entry.key.isdigit() else -1
    values = [entry.score, entry.exp, entry.weight] if softmax else [entry.score, entry.weight]
    numbers = [_tipped(to_mathml(_shown(value)), tip(k if softmax or k == 0 else 2, j))
               for k, value in enumerate(values)]
    cells = [to_mathml(entry.key), escape(entry.token), *numbers, to_mathml(entry.percent)]
    return "<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>"


def _tipped(shown: str, tip: str) -> str:
    return tipped(shown, tip) if tip else shown


def _softmax_html(row: SoftmaxRow, softmax: bool, shifted: bool, catalog: Catalog,
                  tips: Tips) -> str:
    """The row's table: key, score, e^score, weight and percentage, then the sums; each
    number with the tip of its matrix entry (``tips``), where the page has one."""
    out = [_title("step.row_heading", row.query, row.token, catalog)]
    if row.fully_masked:
        said = catalog.fill("step.weights_fully_masked", value=row.weight_total)
        return out[0] + f"<p>{prose_html(said)}</p>"
    q = row.query
    sigma = "\\Sigma" + ("'" if shifted else "") + f"_{{{q}}}"
    head = [to_mathml("j"), words(catalog.text("step.weights_key")), to_mathml(f"z_{{{q} j}}")]
    if softmax:
        head.append(to_mathml(f"e^{{z_{{{q} j}}" + (f" - m_{{{q}}}" if shifted else "") + "}"))
    head += [to_mathml(f"a_{{{q} j}}"), "%"]
    out.append('<table class="softmax"><thead><tr>' +
               "".join(f"<th>{cell}</th>" for cell in head) + "</tr></thead><tbody>")
    found = _row_steps(row)

    def tip(column: int, j: int) -> str:
        if found is None or j < 0:
            return ""
        i, steps = found
        step = steps[column] if column < len(steps) else steps[-1] if column == 2 else ""
        return tips.get((step, i, j), "")

    out += [_softmax_entry(entry, softmax, tip) for entry in row.entries]
    total = row.sum_shown or (f"= {row.total.exact}" if row.total.is_exact
                              else f"\\approx {row.total.decimal}")
    sums = [words(catalog.text("step.weights_sum_row")), "", ""]
    if softmax:
        sums.append(to_mathml(f"{sigma} {total}"))
    sums += [to_mathml(row.weight_total), to_mathml(row.percent_total)]
    out.append('<tr class="sum">' + "".join(f"<td>{cell}</td>" for cell in sums) +
               "</tr></tbody></table>")
    if row.rounded_total:
        said = catalog.fill("selfcheck.rounded_sum", weights=row.weight_total,
                            percent=row.percent_total)
        out.append(f"<p>{prose_html(said)}</p>")
    if row.all_exact:
        lines = [(sigma, row.total.chain)] + [
            (f"a_{{{q},{entry.key}}}", entry.weight.chain) for entry in row.entries
            if not entry.elision and not entry.masked]
        out += [f"<p>{words(catalog.text('step.weights_exactly'))}</p>", _chain(lines)]
    return "\n".join(out)


def _output_html(row: OutputRow, catalog: Catalog, step: str, tips: Tips) -> str:
    out = [_title("step.row_components", row.query, row.token, catalog)]
    if row.fully_masked:
        out.append(f"<p>{words(catalog.text('step.output_fully_masked'))}</p>")
    else:
        masked = ""
        if row.masked_keys:
            key = "step.output_masked_many" if "," in row.masked_keys else \
                "step.output_masked_one"
            masked = prose_html(catalog.fill(key, keys=row.masked_keys))
        out.append(f"<p>{to_mathml(f'o_{{{row.query}}} = {row.vector}')}{masked}.</p>")
    lines = [line for c in row.components for line in _sum_lines(
        c.lhs, c.symbolic, c.relation, c.substituted, c.terms, c.value.chain)]
    if lines:
        out.append(_chain(lines, [tip for c in row.components
                                  for tip in (_result_tip(c.shown, step, tips), "")]))
    return "\n".join(out)


def expansion_html(row: Expansion, normalisation: str, shifted: bool, catalog: Catalog,
                   tips: Tips = EMPTY_TIPS, step: str = "") -> str:
    """One row written out; a softmax row by its step's ``normalisation`` ("softmax", or
    "sum": the scores divided by their sum) and whether its scores were ``shifted`` by
    the row's maximum; ``tips``, by ``step``'s entries: what a result shows focused."""
    if isinstance(row, ScoreRow):
        lines = [line for e in row.entries for line in _sum_lines(
            e.lhs, e.symbolic, e.relation, e.substituted, e.terms, e.value.chain)]
        results = [t for e in row.entries for t in (_result_tip(e.shown, step, tips), "")]
        note = f"<p>{words(catalog.text('step.scores_elided'))}</p>" if row.elided else ""
        return _title("step.row_terms", row.query, row.token, catalog) + \
            _chain(lines, results) + note
    if isinstance(row, ScaledRow):
        lines = [(e.lhs, f"= {e.substituted}" + ("" if e.masked else f" {e.value.chain}"))
                 for e in row.entries]
        return _title("step.row_heading", row.query, row.token, catalog) + \
            _chain(lines, [_result_tip(e.shown, step, tips) for e in row.entries])
    if isinstance(row, SoftmaxRow):
        return _softmax_html(row, normalisation == "softmax", shifted, catalog, tips)
    if isinstance(row, OutputRow):
        return _output_html(row, catalog, step, tips)
    assert isinstance(row, ProductRow)
    lines = [line for e in row.entries for line in _sum_lines(
        e.lhs, e.symbolic, e.relation, e.substituted, e.terms,
        f"{e.total_relation} {e.total}")]
    title = _title("step.row_components", row.query, row.token, catalog) if row.query else ""
    return title + _chain(lines)


def expansions_html(step: StepModel, catalog: Catalog, tips: Tips = EMPTY_TIPS) -> str:
    """Every row the step writes out, in a section of its own ("" when none); ``tips``:
    the tip of each matrix entry the page shows, by (step, row, column), 0-based."""
    if not step.expansions:
        return ""
    normalisation = step.info.get("normalisation", "softmax")
    shifted = bool(step.info.get("shifted"))
    return '<div class="worked">' + "\n".join(
        expansion_html(row, normalisation, shifted, catalog, tips, step.step)
        for row in step.expansions) + \
        "</div>"
