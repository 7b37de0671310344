"""The report of ``symattn sweep``: text, JSON and LaTeX (and what ``whatif`` shares).

Each layout receives the problem, what ``symattn.explore.sweep`` computed
(``Sweep`` per head) and the ``NumberFormat``, and returns the finished
string; the LaTeX layout fills ``templates/report_sweep.tex.j2``. Text and
LaTeX speak the reader's language (the catalogs' ``[reports]``); JSON is data,
its notes English. ``whatif``'s report is in ``reports.whatif``.
"""

from __future__ import annotations

__all__ = ["sweep_blocks", "render_sweep_text", "render_sweep_json", "render_sweep_latex",
           "row_label", "largest_parts", "largest_text", "numbers_phrase"]

from typing import Sequence

from symattn.explore.shared import mean_entropy
from symattn.explore.sweep import Sweep, SweepRow
from symattn.problem.problem import Problem
from symattn import messages
from symattn.messages import Catalog
from symattn.render import latex, prose
from symattn.render.blocks import (Block, Line, Piece, Table, joined, number as number_of,
                                   text as blocks_text)
from symattn.render.reasons import head_label
from symattn.render.reports.shared import (TemplateValue, decimal, heading, json_report,
                                           number, render, text)
from symattn.values.entries import Symbolic
from symattn.values.exact import Exact
from symattn.values.number_format import NumberFormat

Largest = tuple[Exact, int, int]     # the largest weight, its 0-based row and column


# ------------------------------------------------------------------- shared
def row_label(problem: Problem, i: int) -> int:
    """1-based row number as documents write it: the query's position when given."""
    positions = problem.query_positions
    return positions[i] if positions else i + 1


def largest_parts(largest: Largest | None, fmt: NumberFormat, problem: Problem,
                   catalog: Catalog | None = None) -> tuple[str, str] | None:
    """The largest weight as printed and where: ("0.9749", "row 5, key 5"), the place in
    the words of ``catalog`` (English when None)."""
    if largest is None:
        return None
    value, i, j = largest
    if catalog is None:
        return decimal(value, fmt), f"row {row_label(problem, i)}, key {j + 1}"
    return decimal(value, fmt), catalog.fill("reports.largest_where",
                                             row=str(row_label(problem, i)), key=str(j + 1))


def largest_text(largest: Largest | None, fmt: NumberFormat, problem: Problem,
                  catalog: Catalog | None = None) -> str:
    parts = largest_parts(largest, fmt, problem, catalog)
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


def numbers_phrase(fmt: NumberFormat, catalog: Catalog) -> str:
    rule = catalog.text(f"rounding.{fmt.rounding.value}")
    digits = fmt.digits or 0
    return catalog.count("document.numbers_digits", digits, digits=str(digits), rule=rule)


def _table(header: Sequence[str], rows: Sequence[Sequence[Piece | Line]]) -> Table:
    """Aligned columns: the first and last left-aligned, the numbers between right-aligned.

    >>> for line in _table(["T", "H[1]", "note"], [["0.3", "1.25", "a"], ["2", "0.5", "b"]]
    ...                    ).lines():
    ...     print(line)
    T    H[1]  note
    0.3  1.25  a
    2     0.5  b
    """
    return Table(tuple(header), tuple(tuple(row) for row in rows),
                 right=tuple(range(1, len(header) - 1)))


def _largest_line(largest: Largest | None, fmt: NumberFormat, problem: Problem,
                  catalog: Catalog) -> Line:
    """``largest_text`` with the weight as a number (its exact value on a page)."""
    parts = largest_parts(largest, fmt, problem, catalog)
    if largest is None or parts is None:
        return Line(("-",))
    return joined([number_of(largest[0], fmt), f" ({parts[1]})"], "")


# -------------------------------------------------------------------- sweep
def _sweep_rows(problem: Problem, sweep: Sweep, fmt: NumberFormat,
                catalog: Catalog) -> list[list[Piece | Line]]:
    """The table of one head: H_max, then a row per temperature."""
    rows: list[list[Piece | Line]] = [
        ["H_max", *(number_of(h, fmt) for h in sweep.entropy_max),
         number_of(mean_entropy(sweep.entropy_max), fmt), ""]]
    for row in sweep.rows:
        rows.append([_local(row.temperature.text, fmt),
                     *(number_of(h, fmt) for h in row.entropy),
                     number_of(row.mean_entropy, fmt),
                     _largest_line(row.largest, fmt, problem, catalog)])
    return rows


def render_sweep_text(problem: Problem, sweeps: Sequence[Sweep], fmt: NumberFormat,
                      language: str = "en") -> str:
    """The entropies as a table per head: a row per temperature, a column per query row,
    every word in ``language``."""
    return blocks_text(sweep_blocks(problem, sweeps, fmt, language))


def sweep_blocks(problem: Problem, sweeps: Sequence[Sweep], fmt: NumberFormat,
                 language: str = "en") -> list[Block]:
    """``render_sweep_text``'s report as blocks (``render.blocks``)."""
    catalog = messages.load(language)
    say = prose.plain
    out: list[Block] = []
    out += heading(say(catalog.text("reports.sweep_title")),
                   problem.prose_in("title", catalog.language))
    out.append(say(catalog.fill("reports.sweep_intro", numbers=numbers_phrase(fmt, catalog))))
    out += [say(catalog.fill("reports.note", note=note)) for note in _sweep_notes(problem,
                                                                                  catalog)]
    out.append(say(catalog.fill("reports.largest", note=catalog.text("reports.largest_note"))))
    for sweep in sweeps:
        out.append("")
        if sweep.head:
            out.append(head_label(sweep.head + ".", catalog))
        header = ["T"] + [f"H[{row_label(problem, i)}]" for i in range(len(sweep.entropy_max))]
        header += [say(catalog.text("reports.mean_entropy")),
                   say(catalog.text("reports.largest_weight"))]
        out.append(_table(header, _sweep_rows(problem, sweep, fmt, catalog)))
    return out


def _largest_latex(row: SweepRow, fmt: NumberFormat, problem: Problem,
                   catalog: Catalog) -> dict[str, str]:
    parts = largest_parts(row.largest, fmt, problem, catalog)
    return {"value": "", "where": ""} if parts is None else \
        {"value": number(parts[0]), "where": parts[1]}


def _sweep_table_latex(problem: Problem, sweep: Sweep, fmt: NumberFormat,
                       catalog: Catalog) -> TemplateValue:
    """One head's table as the template reads it: a row per query row, a column per T."""
    return {
        "head": head_label(sweep.head + ".", catalog) if sweep.head else "",
        "temperatures": [text(_local(row.temperature.text, fmt)) for row in sweep.rows],
        "rows": [{"label": text(str(row_label(problem, i))),
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
        "title": text(problem.prose_in("title", catalog.language)),
        "numbers": numbers_phrase(fmt, catalog),
        "notes": _sweep_notes(problem, catalog) if sweeps else [],
        "largest_note": catalog.text("reports.largest_note"),
        "sweeps": [_sweep_table_latex(problem, sweep, fmt, catalog) for sweep in sweeps]}
    return render("sweep", doc, fragment, catalog=catalog)


def _largest_json(problem: Problem, largest: Largest | None,
                  fmt: NumberFormat) -> dict[str, object] | None:
    if largest is None:
        return None
    return {"value": decimal(largest[0], fmt), "row": row_label(problem, largest[1]),
            "key": largest[2] + 1}


def render_sweep_json(problem: Problem, sweeps: Sequence[Sweep], fmt: NumberFormat) -> str:
    """Every entropy as printed, per head and temperature (docs/diagnostics.md)."""
    return json_report({
        "title": problem.title,
        "format": {"digits": fmt.digits, "rounding": fmt.rounding.value},
        "notes": list(sweeps[0].notes) if sweeps else [],
        "sweeps": [{
            "head": sweep.head or None,
            "rows": [row_label(problem, i) for i in range(len(sweep.entropy_max))],
            "entropy_max": [decimal(h, fmt) for h in sweep.entropy_max],
            "temperatures": [{
                "temperature": row.temperature.text,
                "entropy": [decimal(h, fmt) for h in row.entropy],
                "mean_entropy": decimal(row.mean_entropy, fmt),
                "largest_weight": _largest_json(problem, row.largest, fmt),
            } for row in sweep.rows],
        } for sweep in sweeps],
    })
