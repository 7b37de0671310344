"""The report of ``symattn whatif``: the problem next to the common mistakes.

Text, JSON and LaTeX (``templates/report_whatif.tex.j2``) of what
``symattn.explore.whatif`` computed (a ``Variant`` per mistake). Text and
LaTeX speak the reader's language: each variant's change and remark are
message data (``Variant.change_says``, ``remark_says``) rendered from the
catalogs' ``[whatif]``; JSON is data, its notes English.
"""

from __future__ import annotations

__all__ = ["render_whatif_text", "whatif_blocks", "render_whatif_json", "render_whatif_latex",
           "SIDE_BY_SIDE_WIDTH", "SIDE_BY_SIDE_PAGE", "SIDE_BY_SIDE_LATEX"]

import dataclasses
import re
from typing import Sequence

from symattn import messages
from symattn.derivation.grids import Grid
from symattn.explore.whatif import Says, Variant
from symattn.messages import Catalog
from symattn.problem.problem import Problem
from symattn.render import prose
from symattn.render.reports.explore import (largest_parts, largest_text,
                                            numbers_phrase)
from symattn.render.reports.shared import (TemplateValue, decimal, heading, json_report, matrix,
                                           number, render, text)
from symattn.render.blocks import (Block, Matrices, Matrix, Table, grid_numbers,
                                   text as blocks_text)
from symattn.values.exact import Exact
from symattn.values.number_format import NumberFormat

SIDE_BY_SIDE_WIDTH = 160     # the width the text comparison of whatif fits side by side in,
                             # when the output is not a terminal (the command passes its width)

SIDE_BY_SIDE_PAGE = 100     # the width a page shows them side by side in (a page's width of
                            # preformatted text, so that a matrix is never scrolled to)

SIDE_BY_SIDE_LATEX = 64    # widest weights + output rows (characters) set side by side


def _column_softmax_note(variant: Variant, fmt: NumberFormat) -> list[str]:
    """Softmax over columns: what the row sums became."""
    if not variant.stats:
        return []
    low, high = (fmt.format(variant.stats[k]) for k in ("row_sum_min", "row_sum_max"))
    sums = f"rows now sum to {low}" if low == high else f"rows now sum to {low} ... {high}"
    return [f"{sums} instead of 1" + (
        ", so an output row is not a weighted average of the value rows"
        if variant.output is not None else "")]


def _changed_note(variant: Variant, original: Variant, fmt: NumberFormat) -> list[str]:
    """A variant that changed the weights: the largest weight and mean entropy, before -> after."""
    parts = []
    before, after = original.stats["largest"], variant.stats["largest"]
    if before is not None and after is not None:
        parts.append(f"largest weight {fmt.format(before[0])} -> {fmt.format(after[0])}")
    parts.append(f"mean entropy {fmt.format(original.stats['mean_entropy'])} -> "
                 f"{fmt.format(variant.stats['mean_entropy'])} bits")
    return parts


def _original_note(variant: Variant, fmt: NumberFormat, problem: Problem) -> list[str]:
    parts = []
    largest = variant.stats["largest"]
    if largest is not None:
        parts.append(f"largest weight {largest_text(largest, fmt, problem)}")
    parts.append(f"mean entropy {fmt.format(variant.stats['mean_entropy'])} bits")
    return parts


def _note(variant: Variant, original: Variant, fmt: NumberFormat, problem: Problem) -> str:
    """One line: what was changed, and what it did to the numbers."""
    parts = [variant.change]
    if variant.available and variant.key == "column_softmax":
        parts += _column_softmax_note(variant, fmt)
    elif variant.available and variant.key != "original" and not variant.same_as_original:
        parts += _changed_note(variant, original, fmt)
    elif variant.key == "original":
        parts += _original_note(variant, fmt, problem)
    if variant.remark:
        parts.append(variant.remark)
    return "; ".join(parts)


def _said(says: Says, fmt: NumberFormat, catalog: Catalog) -> str:
    """A sentence of ``explore.whatif`` (message data) in the catalog's words (LaTeX)."""
    key, args = says
    if not key:
        return ""
    values = {name: _math_local(value, fmt) for name, value in args}
    return catalog.fill(f"whatif.{key}", **values)


def _math_local(math: str, fmt: NumberFormat) -> str:
    """Numbers inside math with the report's decimal mark (``0{,}5``)."""
    return re.sub(r"(\d)\.(\d)", r"\1{,}\2", math) if fmt.separator == "," else math


def _number_math(value: Exact, fmt: NumberFormat) -> str:
    return "$" + number(decimal(value, fmt)) + "$"


def _note_latex(variant: Variant, original: Variant, fmt: NumberFormat, problem: Problem,
                catalog: Catalog) -> str:
    """``_note`` in the catalog's words (LaTeX): what was changed, and what it did."""
    c = catalog
    parts = [_said(variant.change_says, fmt, c)]
    stats = variant.stats
    if variant.available and variant.key == "column_softmax" and stats:
        low, high = (_number_math(stats[k], fmt) for k in ("row_sum_min", "row_sum_max"))
        sums = c.fill("whatif.rows_sum", low=low) if low == high else \
            c.fill("whatif.rows_sum_range", low=low, high=high)
        parts.append(sums + (", " + c.text("whatif.not_average")
                             if variant.output is not None else ""))
    elif variant.available and variant.key != "original" and not variant.same_as_original:
        before, after = original.stats["largest"], stats["largest"]
        if before is not None and after is not None:
            parts.append(c.fill("whatif.largest_change", before=_number_math(before[0], fmt),
                                after=_number_math(after[0], fmt)))
        parts.append(c.fill("whatif.entropy_change",
                            before=_number_math(original.stats["mean_entropy"], fmt),
                            after=_number_math(stats["mean_entropy"], fmt)))
    elif variant.key == "original":
        largest = largest_parts(stats["largest"], fmt, problem, c)
        if largest is not None:
            parts.append(c.fill("whatif.largest", value="$" + number(largest[0]) + "$",
                                where=largest[1]))
        parts.append(c.fill("whatif.entropy", value=_number_math(stats["mean_entropy"], fmt)))
    remark = _said(variant.remark_says, fmt, c)
    if remark:
        parts.append(remark)
    return "; ".join(part for part in parts if part)


def _label(variant: Variant, catalog: Catalog) -> str:
    key = f"whatif.label_{variant.key}"
    return catalog.text(key) if key in catalog else text(variant.label)


def _cells(grid: Grid, fmt: NumberFormat) -> list[list[str]]:
    rows, columns = tuple(grid.rows()), tuple(grid.columns())
    return [[d if d is not None else "(symbolic)" for d in row]
            for row in fmt.format_block(grid, rows, columns)]


def _grids(variant: Variant) -> dict[str, Grid | None]:
    return {"weights": variant.weights, "output": variant.output}


def _matrices(title: str, variants: Sequence[Variant], which: str, fmt: NumberFormat,
              width: int) -> list[Block]:
    """The variants' ``which`` matrices side by side when they fit ``width``, else stacked."""
    shown = [Matrix(v.label, tuple(map(tuple, grid_numbers(grid, fmt, "(symbolic)"))),
                    tuple(grid.rows()), tuple(grid.columns()))
             for v in variants if (grid := _grids(v)[which]) is not None]
    return [title, Matrices(tuple(shown), width)] if shown else []


def render_whatif_text(problem: Problem, variants: Sequence[Variant], fmt: NumberFormat,
                       width: int = SIDE_BY_SIDE_WIDTH, language: str = "en") -> str:
    """A note per variant, then the weights and the outputs, side by side within ``width``,
    every word in ``language``."""
    return blocks_text(whatif_blocks(problem, variants, fmt, width, language))


def whatif_blocks(problem: Problem, variants: Sequence[Variant], fmt: NumberFormat,
                  width: int = SIDE_BY_SIDE_WIDTH, language: str = "en") -> list[Block]:
    """``render_whatif_text``'s report as blocks (``render.blocks``)."""
    catalog = messages.load(language)
    say = prose.plain
    out: list[Block] = []
    out += heading(say(catalog.text("whatif.title")),
                   problem.prose_in("title", catalog.language))
    out.append(say(catalog.fill("text.decimals", numbers=numbers_phrase(fmt, catalog))))
    out.append("")
    original = variants[0]
    labels = [say(_label(v, catalog)) for v in variants]
    out.append(Table((), tuple((label, say(_note_latex(variant, original, fmt, problem, catalog)))
                               for label, variant in zip(labels, variants)), indent="  "))
    shown = [dataclasses.replace(v, label=label) for v, label in zip(variants, labels)]
    for which in ("weights", "output"):
        block = _matrices(say(catalog.text(f"whatif.{which}_word")), shown, which, fmt, width)
        if block:
            out.append("")
            out += block
    return out


def _row_width(rows: Sequence[Sequence[str]]) -> int:
    """Characters of the widest row of formatted cells (with room between them)."""
    return max((sum(len(c) + 2 for c in row) for row in rows), default=0)


def render_whatif_latex(problem: Problem, variants: Sequence[Variant], fmt: NumberFormat,
                        fragment: bool = False, language: str = "en") -> str:
    """templates/report_whatif.tex.j2: the notes, then the weights and outputs side by side,
    every word in ``language``."""
    catalog = messages.load(language)
    original = variants[0]
    matrices: list[dict[str, str]] = []
    columns, width = 10, 0
    for v in variants:
        shown = {which: grid for which, grid in _grids(v).items() if grid is not None}
        if not shown:
            continue
        cells = {which: _cells(grid, fmt) for which, grid in shown.items()}
        tex = {which: matrix(rows) for which, rows in cells.items()}
        matrices.append({"label": _label(v, catalog), "weights": tex.get("weights", ""),
                         "output": tex.get("output", "")})
        columns = max([columns] + [len(grid.columns()) for grid in shown.values()])
        width = max(width, sum(_row_width(rows) for rows in cells.values()))
    doc: dict[str, TemplateValue] = {
        "title": text(problem.prose_in("title", catalog.language)),
        "numbers": numbers_phrase(fmt, catalog),
        "variants": [{"label": _label(v, catalog),
                      "note": _note_latex(v, original, fmt, problem, catalog)}
                     for v in variants],
        "matrices": matrices, "any_output": any(m["output"] for m in matrices),
        "side_by_side": width <= SIDE_BY_SIDE_LATEX}
    return render("whatif", doc, fragment, max_columns=columns, catalog=catalog)


def _matrix_json(grid: Grid | None, fmt: NumberFormat) -> dict[str, object] | None:
    if grid is None:
        return None
    return {"exact": [[grid.text(i, j) for j in grid.columns()] for i in grid.rows()],
            "value": _cells(grid, fmt)}


def render_whatif_json(problem: Problem, variants: Sequence[Variant], fmt: NumberFormat) -> str:
    """Every variant with its note, exact and printed weights and outputs."""
    original = variants[0]
    return json_report({
        "title": problem.title,
        "format": {"digits": fmt.digits, "rounding": fmt.rounding.value},
        "variants": [{
            "name": v.key,
            "label": v.label,
            "available": v.available,
            "change": v.change,
            "note": _note(v, original, fmt, problem),
            "weights": _matrix_json(v.weights, fmt),
            "output": _matrix_json(v.output, fmt),
        } for v in variants],
    })
