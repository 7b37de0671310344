"""The reports of ``symattn sweep`` and ``symattn whatif``: text, JSON and LaTeX.

Each layout receives the problem, what ``symattn.explore.sweep`` and ``whatif``
computed (``Sweep`` per head, ``Variant`` per mistake) and the
``NumberFormat``, and returns the finished string; the LaTeX layouts fill
``templates/report_sweep.tex.j2`` and ``report_whatif.tex.j2``.
"""

from __future__ import annotations

__all__ = ["render_sweep_text", "render_sweep_json", "render_sweep_latex", "render_whatif_text",
           "render_whatif_json", "render_whatif_latex", "SIDE_BY_SIDE_WIDTH",
           "SIDE_BY_SIDE_LATEX", "LARGEST_NOTE"]

import dataclasses
import re
from typing import Sequence

from symattn.derivation.grids import Grid
from symattn.explore.shared import mean_entropy
from symattn.explore.sweep import Sweep, SweepRow
from symattn.explore.whatif import Says, Variant
from symattn.problem.problem import Problem
from symattn import messages
from symattn.messages import Catalog
from symattn.render import latex, prose
from symattn.render.reasons import head_label
from symattn.render.reports.shared import (TemplateValue, decimal, heading, json_report, matrix,
                                           number, render, text)
from symattn.render.text import matrix_lines
from symattn.values.entries import Symbolic
from symattn.values.exact import Exact
from symattn.values.number_format import NumberFormat

SIDE_BY_SIDE_WIDTH = 160     # the width the text comparison of whatif fits side by side in,
                             # when the output is not a terminal (the command passes its width)

SIDE_BY_SIDE_LATEX = 64    # widest weights + output rows (characters) set side by side

LARGEST_NOTE = "over rows with two or more unmasked keys (one key always gets weight 1)"

Largest = tuple[Exact, int, int]     # the largest weight, its 0-based row and column


# ------------------------------------------------------------------- shared
def _row_label(problem: Problem, i: int) -> int:
    """1-based row number as documents write it: the query's position when given."""
    positions = problem.query_positions
    return positions[i] if positions else i + 1


def _largest_parts(largest: Largest | None, fmt: NumberFormat, problem: Problem,
                   catalog: Catalog | None = None) -> tuple[str, str] | None:
    """The largest weight as printed and where: ("0.9749", "row 5, key 5"), the place in
    the words of ``catalog`` (English when None)."""
    if largest is None:
        return None
    value, i, j = largest
    if catalog is None:
        return decimal(value, fmt), f"row {_row_label(problem, i)}, key {j + 1}"
    return decimal(value, fmt), catalog.fill("reports.largest_where",
                                             row=str(_row_label(problem, i)), key=str(j + 1))


def _largest_text(largest: Largest | None, fmt: NumberFormat, problem: Problem,
                  catalog: Catalog | None = None) -> str:
    parts = _largest_parts(largest, fmt, problem, catalog)
    return "-" if parts is None else f"{parts[0]} ({parts[1]})"


def _sweep_notes(problem: Problem, catalog: Catalog) -> list[str]:
    """What the sweep did to the problem's own scaling, in the catalog's words (LaTeX):
    the same conditions as ``explore.sweep``'s English notes."""
    notes = []
    if "scaled" in problem.inputs:
        notes.append(catalog.text("reports.sweep_note_scaled"))
    if problem.temperature != 1:
        temperature = problem.temperature
        shown = latex.sympy_latex(temperature.to_sympy()) if isinstance(temperature, Symbolic) \
            else latex.exact_latex(temperature, catalog.language) or str(temperature)
        notes.append(catalog.fill("reports.sweep_note_temperature", t=shown))
    return notes


def _local(typed: str, fmt: NumberFormat) -> str:
    """A number as the user typed it (a temperature), with the report's decimal mark."""
    return typed.replace(".", ",") if fmt.separator == "," and "," not in typed else typed


def _numbers(fmt: NumberFormat, catalog: Catalog) -> str:
    rule = catalog.text(f"rounding.{fmt.rounding.value}")
    digits = fmt.digits or 0
    return catalog.count("document.numbers_digits", digits, digits=str(digits), rule=rule)


def _format_label(fmt: NumberFormat) -> str:
    return f"{fmt.digits} significant digits, {fmt.rounding.value}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    """Aligned columns: the first and last left-aligned, the numbers between right-aligned.

    >>> for line in _table(["T", "H[1]", "note"], [["0.3", "1.25", "a"], ["2", "0.5", "b"]]):
    ...     print(line)
    T    H[1]  note
    0.3  1.25  a
    2     0.5  b
    """
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(row[1:-1],
                                                                              widths[1:-1])]
        cells.append(row[-1].ljust(widths[-1]) if len(row) > 1 else "")
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


# -------------------------------------------------------------------- sweep
def _sweep_rows(problem: Problem, sweep: Sweep, fmt: NumberFormat,
                catalog: Catalog) -> list[list[str]]:
    """The table of one head: H_max, then a row per temperature."""
    rows = [["H_max"] + [decimal(h, fmt) for h in sweep.entropy_max] +
            [decimal(mean_entropy(sweep.entropy_max), fmt), ""]]
    for row in sweep.rows:
        rows.append([_local(row.temperature.text, fmt)] + [decimal(h, fmt) for h in row.entropy] +
                    [decimal(row.mean_entropy, fmt),
                     _largest_text(row.largest, fmt, problem, catalog)])
    return rows


def render_sweep_text(problem: Problem, sweeps: Sequence[Sweep], fmt: NumberFormat,
                      language: str = "en") -> str:
    """The entropies as a table per head: a row per temperature, a column per query row,
    every word in ``language``."""
    catalog = messages.load(language)
    say = prose.plain
    out = heading(say(catalog.text("reports.sweep_title")), problem.title)
    out.append(say(catalog.fill("reports.sweep_intro", numbers=_numbers(fmt, catalog))))
    out += [say(catalog.fill("reports.note", note=note)) for note in _sweep_notes(problem,
                                                                                  catalog)]
    out.append(say(catalog.fill("reports.largest", note=catalog.text("reports.largest_note"))))
    for sweep in sweeps:
        out.append("")
        if sweep.head:
            out.append(head_label(sweep.head + ".", catalog))
        header = ["T"] + [f"H[{_row_label(problem, i)}]" for i in range(len(sweep.entropy_max))]
        header += [say(catalog.text("reports.mean_entropy")),
                   say(catalog.text("reports.largest_weight"))]
        out += _table(header, _sweep_rows(problem, sweep, fmt, catalog))
    return "\n".join(out) + "\n"


def _largest_latex(row: SweepRow, fmt: NumberFormat, problem: Problem,
                   catalog: Catalog) -> dict[str, str]:
    parts = _largest_parts(row.largest, fmt, problem, catalog)
    return {"value": "", "where": ""} if parts is None else \
        {"value": number(parts[0]), "where": parts[1]}


def _sweep_table_latex(problem: Problem, sweep: Sweep, fmt: NumberFormat,
                       catalog: Catalog) -> TemplateValue:
    """One head's table as the template reads it: a row per query row, a column per T."""
    return {
        "head": head_label(sweep.head + ".", catalog) if sweep.head else "",
        "temperatures": [text(_local(row.temperature.text, fmt)) for row in sweep.rows],
        "rows": [{"label": text(str(_row_label(problem, i))),
                  "maximum": number(decimal(h, fmt)),
                  "entropy": [number(decimal(row.entropy[i], fmt)) for row in sweep.rows]}
                 for i, h in enumerate(sweep.entropy_max)],
        "mean": {"maximum": number(decimal(mean_entropy(sweep.entropy_max), fmt)),
                 "entropy": [number(decimal(row.mean_entropy, fmt)) for row in sweep.rows]},
        "largest": [_largest_latex(row, fmt, problem, catalog) for row in sweep.rows],
    }


def render_sweep_latex(problem: Problem, sweeps: Sequence[Sweep], fmt: NumberFormat,
                       fragment: bool = False, language: str = "en") -> str:
    """templates/report_sweep.tex.j2: one table per head, a row per query row, a column per T,
    every word in ``language``."""
    catalog = messages.load(language)
    doc: dict[str, TemplateValue] = {
        "title": text(problem.title), "numbers": _numbers(fmt, catalog),
        "notes": _sweep_notes(problem, catalog) if sweeps else [],
        "largest_note": catalog.text("reports.largest_note"),
        "sweeps": [_sweep_table_latex(problem, sweep, fmt, catalog) for sweep in sweeps]}
    return render("sweep", doc, fragment, catalog=catalog)


def _largest_json(problem: Problem, largest: Largest | None,
                  fmt: NumberFormat) -> dict[str, object] | None:
    if largest is None:
        return None
    return {"value": decimal(largest[0], fmt), "row": _row_label(problem, largest[1]),
            "key": largest[2] + 1}


def render_sweep_json(problem: Problem, sweeps: Sequence[Sweep], fmt: NumberFormat) -> str:
    """Every entropy as printed, per head and temperature (docs/diagnostics.md)."""
    return json_report({
        "title": problem.title,
        "format": {"digits": fmt.digits, "rounding": fmt.rounding.value},
        "notes": list(sweeps[0].notes) if sweeps else [],
        "sweeps": [{
            "head": sweep.head or None,
            "rows": [_row_label(problem, i) for i in range(len(sweep.entropy_max))],
            "entropy_max": [decimal(h, fmt) for h in sweep.entropy_max],
            "temperatures": [{
                "temperature": row.temperature.text,
                "entropy": [decimal(h, fmt) for h in row.entropy],
                "mean_entropy": decimal(row.mean_entropy, fmt),
                "largest_weight": _largest_json(problem, row.largest, fmt),
            } for row in sweep.rows],
        } for sweep in sweeps],
    })


# ------------------------------------------------------------------- whatif
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
        parts.append(f"largest weight {_largest_text(largest, fmt, problem)}")
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
        largest = _largest_parts(stats["largest"], fmt, problem, c)
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


def _labelled_block(label: str, grid: Grid, fmt: NumberFormat) -> list[str]:
    """A matrix under its label, every line padded to the block's width."""
    lines = matrix_lines(_cells(grid, fmt), tuple(grid.rows()), tuple(grid.columns()), indent="")
    width = max(len(label), *(len(line) for line in lines))
    return [label.ljust(width)] + [line.ljust(width) for line in lines]


def _blocks(title: str, variants: Sequence[Variant], which: str, fmt: NumberFormat,
            width: int) -> list[str]:
    """The variants' ``which`` matrices side by side when they fit ``width``, else stacked."""
    shown = [(v.label, grid) for v in variants if (grid := _grids(v)[which]) is not None]
    if not shown:
        return []
    blocks = [_labelled_block(label, grid, fmt) for label, grid in shown]
    out = [title]
    total = sum(len(block[0]) for block in blocks) + 3 * (len(blocks) - 1) + 2
    if total <= width:
        for parts in zip(*blocks):
            out.append(("  " + "   ".join(parts)).rstrip())
    else:
        for block in blocks:
            out += ["  " + line.rstrip() for line in block]
            out.append("")
        out.pop()
    return out


def render_whatif_text(problem: Problem, variants: Sequence[Variant], fmt: NumberFormat,
                       width: int = SIDE_BY_SIDE_WIDTH, language: str = "en") -> str:
    """A note per variant, then the weights and the outputs, side by side within ``width``,
    every word in ``language``."""
    catalog = messages.load(language)
    say = prose.plain
    out = heading(say(catalog.text("whatif.title")), problem.title)
    out.append(say(catalog.fill("text.decimals", numbers=_numbers(fmt, catalog))))
    out.append("")
    original = variants[0]
    labels = [say(_label(v, catalog)) for v in variants]
    label_width = max(len(label) for label in labels)
    for label, variant in zip(labels, variants):
        out.append(f"  {label.ljust(label_width)}  "
                   f"{say(_note_latex(variant, original, fmt, problem, catalog))}")
    shown = [dataclasses.replace(v, label=label) for v, label in zip(variants, labels)]
    for which in ("weights", "output"):
        block = _blocks(say(catalog.text(f"whatif.{which}_word")), shown, which, fmt, width)
        if block:
            out.append("")
            out += block
    return "\n".join(out) + "\n"


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
        "title": text(problem.title), "numbers": _numbers(fmt, catalog),
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
