"""The report of ``symattn permute``: text, JSON and LaTeX.

Each layout receives the problem, the ``PermutationResult`` that
``symattn.explore.permute.permutation_check`` proved and the ``NumberFormat``;
it returns the finished string. Rows proved different are printed with as
many more digits as it takes for their decimals to differ too. The LaTeX
layout fills ``templates/report_permute.tex.j2``.

>>> from symattn import messages
>>> _count_text((2, 1, 0), "rows", messages.load("en"))
'rows equal exactly: 2 of 3, proved different: 1'

Text and LaTeX speak the reader's language (the catalogs' ``[permute]``); JSON
is data, its notes English.
"""

from __future__ import annotations

__all__ = ["render_text", "permute_blocks", "render_json", "render_latex"]

import dataclasses

from symattn import messages
from symattn.explore.permute import PermutationResult, RowComparison
from symattn.messages import Catalog
from symattn.problem.problem import Problem
from symattn.render import prose
from symattn.render.blocks import Block, Line, Piece, Table, bracketed, numbers, text as blocks_text
from symattn.render.reports.shared import (TemplateValue, decimal_cells, heading, json_report,
                                           render, text, vector)
from symattn.values.exact import exact_text
from symattn.values.number_format import NumberFormat

MORE_DIGITS_TRIES = 12     # 3 more digits each time: rows proved different print apart


def _distinguishing_format(row: RowComparison, number_format: NumberFormat) -> NumberFormat:
    """``number_format``, or one with more digits when rows proved different print alike."""
    fmt = number_format
    for _ in range(MORE_DIGITS_TRIES):
        if row.verdict != "differs" or \
                decimal_cells(row.permuted, fmt) != decimal_cells(row.original, fmt):
            break
        fmt = dataclasses.replace(fmt, places=fmt.places + 3) if fmt.places is not None \
            else dataclasses.replace(fmt, digits=(fmt.digits or 6) + 3)
    return fmt


def _distinguishing(row: RowComparison, number_format: NumberFormat
                    ) -> tuple[list[str], list[str]]:
    """Decimals of both rows; more digits when rows proved different print alike."""
    fmt = _distinguishing_format(row, number_format)
    return decimal_cells(row.permuted, fmt), decimal_cells(row.original, fmt)


def _count_text(counts: tuple[int, int, int], unit: str, catalog: Catalog) -> str:
    """The counts in words (LaTeX): "entries equal exactly: 9 of 9, proved different: 1"."""
    equal, differ, undecided = counts
    total = equal + differ + undecided
    parts = [catalog.fill(f"permute.{unit}_equal", equal=str(equal), total=str(total))]
    if differ:
        parts.append(catalog.fill("permute.differ", count=str(differ)))
    if undecided:
        parts.append(catalog.fill("permute.undecided", count=str(undecided)))
    return ", ".join(parts)


def _positions_text(result: PermutationResult, catalog: Catalog) -> str:
    if result.positions == "none":
        return catalog.text("permute.none")
    return catalog.fill(f"permute.{result.positions}", base=str(result.position_base))


def _mask_text(result: PermutationResult, catalog: Catalog) -> str:
    kind = result.mask
    if kind == "none":
        return catalog.text("permute.none")
    return catalog.text(f"setup.{kind}") if f"setup.{kind}" in catalog else text(kind)


def _check_text(result: PermutationResult, catalog: Catalog) -> str | None:
    """How many rows' exact closed forms read back identical, when that was checked."""
    texts = [row.text_equal for row in result.rows]
    if all(t is None for t in texts):
        return None
    same = sum(1 for t in texts if t)
    return catalog.fill("permute.check", same=str(same), total=str(len(texts)))


def _verdict_text(row: RowComparison, catalog: Catalog) -> str:
    key = {"equal": "equal", "differs": "differs"}.get(row.verdict, "undecided_row")
    return catalog.text(f"permute.{key}")


def _result_text(result: PermutationResult, catalog: Catalog) -> str:
    n = str(len(result.order))
    if result.equivariant:
        return catalog.fill("permute.equivariant", n=n)
    differing = len(result.differing)
    decided = differing + sum(r.verdict == "equal" for r in result.rows) == len(result.order)
    return catalog.fill("permute.not_equivariant", differing=str(differing), n=n) + (
        "" if decided else catalog.text("permute.others_undecided"))


def _notes(result: PermutationResult, catalog: Catalog) -> list[str]:
    """What positions and a mask do to a permutation (``explore.permute``'s notes)."""
    notes = []
    if result.positions in ("sinusoidal", "rope"):
        notes.append(catalog.fill(f"permute.note_{result.positions}",
                                  base=str(result.position_base)))
    if result.mask != "none":
        notes.append(catalog.text("permute.note_mask"))
    return notes


def _kind(result: PermutationResult, catalog: Catalog) -> str:
    return catalog.text("permute.rational" if result.rational else "permute.exact")


# --------------------------------------------------------------------- text
def _summary_text(result: PermutationResult, catalog: Catalog) -> list[str]:
    """The counts of equal scores and value rows, the proof and the second check."""
    say = prose.plain
    out = [say(catalog.fill("permute.scores", kind=_kind(result, catalog),
                            counts=_count_text(result.scores, "entries", catalog)))]
    if result.values is not None:
        out.append(say(catalog.fill("permute.values",
                                    counts=_count_text(result.values, "rows", catalog))))
    if all(row.structural for row in result.rows):
        out.append(say(catalog.text(f"permute.proof_{result.step}")))
    check = _check_text(result, catalog)
    if check is not None:
        out.append(say(check))
    return out


def _rows_text(result: PermutationResult, number_format: NumberFormat,
               catalog: Catalog) -> Table:
    """Each row of the permuted problem next to the original row it should equal."""
    say = prose.plain
    c = catalog
    step = say(c.text(f"permute.{result.step}"))
    original = f"{step} {say(c.text('permute.original_row'))}"
    if result.step != "output":
        original += " " + say(c.text("permute.columns_permuted"))
    header = [say(c.text("permute.row")), say(c.text("permute.token")), "order[i]",
              say(c.text("permute.verdict")), f"{step} {say(c.text('permute.permuted_row'))}",
              original]
    table: list[tuple[Piece | Line, ...]] = []
    comma = "; " if number_format.separator == "," else ", "    # 0,5; 0,3 with a decimal comma
    for row in result.rows:
        fmt = _distinguishing_format(row, number_format)
        table.append((str(row.row), row.token or "-", str(row.source),
                      say(_verdict_text(row, c)), bracketed(numbers(row.permuted, fmt), comma),
                      bracketed(numbers(row.original, fmt), comma)))
    return Table(tuple(header), tuple(table))


def render_text(problem: Problem, result: PermutationResult, number_format: NumberFormat,
                language: str = "en") -> str:
    """The order, the counts and proof, a table of the rows, and the verdict, every word
    in ``language``."""
    return blocks_text(permute_blocks(problem, result, number_format, language))


def permute_blocks(problem: Problem, result: PermutationResult, number_format: NumberFormat,
                   language: str = "en") -> list[Block]:
    """``render_text``'s report as blocks (``render.blocks``)."""
    catalog = messages.load(language)
    say = prose.plain
    out: list[Block] = []
    out += heading(say(catalog.text("permute.title")),
                   problem.prose_in("title", catalog.language))
    out.append(say(catalog.fill("permute.order", order=",".join(map(str, result.order)))))
    step = catalog.text(f"permute.step_{result.step}")
    out.append(say(catalog.fill("permute.setting", positions=_positions_text(result, catalog),
                                mask=_mask_text(result, catalog), step=step)))
    out.append("")
    out += _summary_text(result, catalog)
    out.append("")
    out.append(_rows_text(result, number_format, catalog))
    out.append("")
    out.append(say(catalog.fill("permute.result", result=_result_text(result, catalog))))
    out += [say(catalog.fill("reports.note", note=note)) for note in _notes(result, catalog)]
    return out


# -------------------------------------------------------------------- LaTeX
def _row_latex(row: RowComparison, number_format: NumberFormat,
               catalog: Catalog) -> TemplateValue:
    mine, theirs = _distinguishing(row, number_format)
    return {"row": text(str(row.row)), "token": text(row.token or "-"),
            "source": text(str(row.source)), "verdict": _verdict_text(row, catalog),
            "equal": row.verdict == "equal", "permuted": vector(mine),
            "original": vector(theirs)}


def render_latex(problem: Problem, result: PermutationResult, number_format: NumberFormat,
                 fragment: bool = False, language: str = "en") -> str:
    """templates/report_permute.tex.j2: the comparison, its proof and its conclusion,
    every word in ``language``."""
    catalog = messages.load(language)
    check = _check_text(result, catalog)
    proof = "" if not all(row.structural for row in result.rows) else result.step
    doc: dict[str, TemplateValue] = {
        "title": text(problem.prose_in("title", catalog.language)),
        "order": text(",".join(map(str, result.order))),
        "positions": _positions_text(result, catalog), "mask": _mask_text(result, catalog),
        "step": catalog.text(f"permute.step_{result.step}"), "output": result.step == "output",
        "kind": _kind(result, catalog),
        "score_counts": _count_text(result.scores, "entries", catalog),
        "value_counts": _count_text(result.values, "rows", catalog)
        if result.values is not None else "",
        "proof": text(proof), "check": check if check is not None else "",
        "rows": [_row_latex(row, number_format, catalog) for row in result.rows],
        "equivariant": result.equivariant, "result": _result_text(result, catalog),
        "notes": _notes(result, catalog)}
    return render("permute", doc, fragment, catalog=catalog)


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
