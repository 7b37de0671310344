"""The report of ``symattn permute``: text, JSON and LaTeX.

Each layout receives the problem, the ``PermutationResult`` that
``symattn.explore.permute.permutation_check`` proved and the ``NumberFormat``;
it returns the finished string. Rows proved different are printed with as
many more digits as it takes for their decimals to differ too. The LaTeX
layout fills ``templates/report_permute.tex.j2``.

>>> _count_text((2, 1, 0), "rows")
'2 of 3 rows equal exactly, 1 proved different'
"""

from __future__ import annotations

__all__ = ["render_text", "render_json", "render_latex"]

import dataclasses

from symattn.explore.permute import PermutationResult, RowComparison
from symattn.problem.problem import Problem
from symattn.render.reports.shared import (TemplateValue, decimal_cells, heading, json_report,
                                           render, text, vector)
from symattn.values.exact import exact_text
from symattn.values.number_format import NumberFormat

MORE_DIGITS_TRIES = 12     # 3 more digits each time: rows proved different print apart
VERDICTS = {"equal": "equal (exact)", "differs": "differs (proved)"}
OUTPUT_PROOF = (
    "proof   row i of the permuted problem weighs the same (score, value) pairs as original "
    "row order[i],",
    "        each compared exactly; the softmax and the weighted sum depend on nothing else,",
    "        so O'[i] = O[order[i]] exactly")
WEIGHTS_PROOF = (
    "proof   row i of the permuted problem has the scores of original row order[i], each "
    "compared",
    "        exactly, in permuted columns; so A'[i,j] = A[order[i],order[j]] exactly")


def _distinguishing(row: RowComparison, number_format: NumberFormat
                    ) -> tuple[list[str], list[str]]:
    """Decimals of both rows; more digits when rows proved different print alike."""
    fmt = number_format
    mine, theirs = decimal_cells(row.permuted, fmt), decimal_cells(row.original, fmt)
    for _ in range(MORE_DIGITS_TRIES):
        if row.verdict != "differs" or mine != theirs:
            break
        fmt = dataclasses.replace(fmt, places=fmt.places + 3) if fmt.places is not None \
            else dataclasses.replace(fmt, digits=(fmt.digits or 6) + 3)
        mine, theirs = decimal_cells(row.permuted, fmt), decimal_cells(row.original, fmt)
    return mine, theirs


def _count_text(counts: tuple[int, int, int], unit: str) -> str:
    equal, differ, undecided = counts
    total = equal + differ + undecided
    parts = [f"{equal} of {total} {unit} equal exactly"]
    if differ:
        parts.append(f"{differ} proved different")
    if undecided:
        parts.append(f"{undecided} undecided")
    return ", ".join(parts)


def _positions_text(result: PermutationResult) -> str:
    return "none" if result.positions == "none" else \
        f"{result.positions} (base {result.position_base})"


def _kind(result: PermutationResult) -> str:
    return "as rationals" if result.rational else "as exact expressions"


def _check_text(result: PermutationResult) -> str | None:
    """How many rows' exact closed forms read back identical, when that was checked."""
    texts = [row.text_equal for row in result.rows]
    if all(t is None for t in texts):
        return None
    same = sum(1 for t in texts if t)
    return f"exact closed forms identical (read back by SymPy) in {same} of {len(texts)} rows"


def _verdict_text(row: RowComparison) -> str:
    return VERDICTS.get(row.verdict, row.verdict)


def _result_text(result: PermutationResult) -> str:
    n = len(result.order)
    if result.equivariant:
        return (f"equivariant - every {result.step} row of the permuted problem equals the "
                f"permuted original row exactly ({n} of {n})")
    differing = len(result.differing)
    return (f"not equivariant - {differing} of {n} rows proved different (their certified "
            "decimals differ)" + ("" if differing + sum(r.verdict == "equal" for r in result.rows)
                                  == n else "; the others undecided"))


# --------------------------------------------------------------------- text
def _summary_text(result: PermutationResult) -> list[str]:
    """The counts of equal scores and value rows, the proof and the second check."""
    out = [f"scores  S'[i,j] vs S[order[i],order[j]] ({_kind(result)}): "
           + _count_text(result.scores, "entries")]
    if result.values is not None:
        out.append("values  V'[j] vs V[order[j]]: " + _count_text(result.values, "rows"))
    if all(row.structural for row in result.rows):
        out += OUTPUT_PROOF if result.step == "output" else WEIGHTS_PROOF
    check = _check_text(result)
    if check is not None:
        out.append(f"check   {check}")
    return out


def _rows_text(result: PermutationResult, number_format: NumberFormat) -> list[str]:
    """Each row of the permuted problem next to the original row it should equal."""
    step = result.step
    header = ["row", "token", "original row", "verdict", f"{step} (permuted problem)",
              f"{step} (original row)" if step == "output"
              else "weights (original row, columns permuted)"]
    table = [header]
    for row in result.rows:
        mine, theirs = _distinguishing(row, number_format)
        table.append([str(row.row), row.token or "-", str(row.source), _verdict_text(row),
                      "[" + ", ".join(mine) + "]", "[" + ", ".join(theirs) + "]"])
    widths = [max(len(r[c]) for r in table) for c in range(len(header))]
    return ["  ".join(cell.ljust(widths[c]) for c, cell in enumerate(r)).rstrip()
            for r in table]


def render_text(problem: Problem, result: PermutationResult,
                number_format: NumberFormat) -> str:
    """The order, the counts and proof, a table of the rows, and the verdict."""
    out = heading("permutation equivariance", problem.title)
    out.append(f"order {','.join(map(str, result.order))}: token i of the permuted problem "
               "is token order[i] of the original")
    out.append(f"positions: {_positions_text(result)}; mask: {result.mask}; "
               f"compared: the {result.step} rows")
    out.append("")
    out += _summary_text(result)
    out.append("")
    out += _rows_text(result, number_format)
    out.append("")
    out.append(f"result: {_result_text(result)}")
    out += [f"note: {note}" for note in result.notes]
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------- LaTeX
def _row_latex(row: RowComparison, number_format: NumberFormat) -> TemplateValue:
    mine, theirs = _distinguishing(row, number_format)
    return {"row": text(str(row.row)), "token": text(row.token or "-"),
            "source": text(str(row.source)), "verdict": text(_verdict_text(row)),
            "equal": row.verdict == "equal", "permuted": vector(mine),
            "original": vector(theirs)}


def render_latex(problem: Problem, result: PermutationResult, number_format: NumberFormat,
                 fragment: bool = False) -> str:
    """templates/report_permute.tex.j2: the comparison, its proof and its conclusion."""
    check = _check_text(result)
    proof = "" if not all(row.structural for row in result.rows) else result.step
    doc: dict[str, TemplateValue] = {
        "title": text(problem.title), "order": text(",".join(map(str, result.order))),
        "positions": text(_positions_text(result)), "mask": text(result.mask),
        "step": text(result.step), "output": result.step == "output",
        "kind": text(_kind(result)),
        "score_counts": text(_count_text(result.scores, "entries")),
        "value_counts": text(_count_text(result.values, "rows")) if result.values is not None
        else "",
        "proof": text(proof), "check": text(check) if check is not None else "",
        "rows": [_row_latex(row, number_format) for row in result.rows],
        "equivariant": result.equivariant, "result": text(_result_text(result)),
        "notes": [text(note) for note in result.notes]}
    return render("permute", doc, fragment)


# --------------------------------------------------------------------- JSON
def _counts_json(counts: tuple[int, int, int] | None) -> dict[str, int] | None:
    if counts is None:
        return None
    return dict(zip(("equal", "different", "undecided"), counts))


def _row_json(row: RowComparison, number_format: NumberFormat) -> dict[str, object]:
    mine, theirs = _distinguishing(row, number_format)
    return {"row": row.row, "source": row.source, "token": row.token,
            "verdict": row.verdict, "structural": row.structural,
            "text_equal": row.text_equal, "permuted": mine, "original": theirs,
            "permuted_exact": [exact_text(v) for v in row.permuted],
            "original_exact": [exact_text(v) for v in row.original]}


def render_json(problem: Problem, result: PermutationResult, number_format: NumberFormat) -> str:
    """The order, the counts, every row exact and printed, and the verdict."""
    return json_report({
        "title": problem.title, "order": list(result.order),
        "positions": result.positions, "position_base": result.position_base,
        "mask": result.mask, "step": result.step, "equivariant": result.equivariant,
        "scores": _counts_json(result.scores), "values": _counts_json(result.values),
        "rows": [_row_json(row, number_format) for row in result.rows],
        "notes": list(result.notes)})
