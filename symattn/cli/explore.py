"""``symattn sweep`` and ``symattn whatif``: experiments on a spec for teaching.

A command plugin (see ``cli.app._plugin_modules``): ``register(subparsers)`` adds both
parsers and returns their handlers. Nothing heavy is imported until a command
runs; the computations live in ``experiments``, the formatting here.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="symattn")
>>> sorted(register(parser.add_subparsers()))
['sweep', 'whatif']
"""

from __future__ import annotations

__all__ = ["register"]

import argparse
from typing import Any, Callable, Sequence

SIDE_BY_SIDE_WIDTH = 160     # wider comparisons are printed one below the other (when the
                             # output is not a terminal; on a terminal, its width decides)

SIDE_BY_SIDE_LATEX = 64    # widest weights + output rows (characters) set side by side

SWEEP_EPILOG = """\
examples:
  symattn sweep --example 003-entropy-temperature --temperatures 0.3,1,2
  symattn sweep my.toml -T "1/2, 1, sqrt(2)" --digits 6 --format json
  symattn sweep my.toml -T "0,3;1;2"        decimal commas: separate with semicolons
  symattn sweep my.toml --format latex -o sweep.tex --pdf    LaTeX and PDF

Each T replaces the spec's own temperature (scaled scores are divided by T).
Entropies are in bits; H_max = log2(number of unmasked keys of the row).
"""

WHATIF_EPILOG = """\
examples:
  symattn whatif --example 000-cat-chases-mouse
  symattn whatif my.toml --digits 3 --format json
  symattn whatif my.toml --pdf -o whatif.pdf

variants: no scaling (scale 1), no mask, K and V swapped (needs d_k = d_v),
softmax over columns (each column of exp(scores) sums to 1; output = weights V).
"""


def register(subparsers: Any) -> dict[str, Callable[[argparse.Namespace], int]]:
    """Add ``sweep`` and ``whatif``; return their handlers."""
    sweep = subparsers.add_parser(
        "sweep", help="entropy of the attention rows at several temperatures",
        description="Derive the spec at each temperature T and show the entropy of every "
                    "row of weights (bits), their mean and the largest weight.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=SWEEP_EPILOG)
    _add_common(sweep)
    sweep.add_argument("--temperatures", "-T", default="0.3,1,2", metavar="LIST",
                       help="temperatures separated by commas (default 0.3,1,2); each is read "
                            "exactly: 0.3, 1/2, sqrt(2)")
    whatif = subparsers.add_parser(
        "whatif", help="weights and outputs next to common mistakes (no scaling, no mask, "
                       "K and V swapped, softmax over columns)",
        description="Derive the spec as given and with each of the mistakes seed 003 lists, "
                    "side by side, each with a one-line note of what changed.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=WHATIF_EPILOG)
    _add_common(whatif)
    return {"sweep": _cmd_sweep, "whatif": _cmd_whatif}


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE", help="spec file, .toml or .json")
    parser.add_argument("--example", "-e", metavar="NAME",
                        help="use a bundled example (see `symattn examples`)")
    parser.add_argument("--digits", type=int, default=4, metavar="N",
                        help="significant digits of every decimal (default 4)")
    from symattn.cli.options import add_limit_option
    from symattn.render.reports.shared import add_report_options

    add_limit_option(parser)
    add_report_options(parser)


def _source(args: argparse.Namespace) -> Any:
    from symattn.problem import examples

    return args.file if args.file is not None else examples.path(args.example)


def _load(args: argparse.Namespace) -> Any:
    from symattn.problem import spec
    from symattn.errors import InputError
    from symattn.render.reports.shared import check_document_options

    if (args.file is None) == (args.example is None):
        raise InputError(f"{args.command} takes exactly one spec: a FILE or --example NAME")
    check_document_options(args)
    if not 1 <= args.digits <= 1000:
        raise InputError(f"--digits must be between 1 and 1000, got {args.digits}")
    from symattn.cli.options import limits_of

    return spec.load(_source(args), limits=limits_of(args))


def _emit(args: argparse.Namespace, layout: Callable[..., str], *data: Any) -> None:
    """Text or JSON to stdout or -o; LaTeX (--format latex, --pdf) through render_reports."""
    from symattn.render.reports import shared as reports

    if reports.wants_latex(args):
        tex = layout(*data, fragment=args.fragment)
        reports.emit(args, tex, reports.spec_stem(_source(args), args.command))
        return
    text = layout(*data)
    if args.output is None or args.output == "-":
        import sys

        sys.stdout.write(text)
    else:
        from symattn.render.files import write_atomically

        write_atomically(args.output, text)


def _number_format(args: argparse.Namespace) -> Any:
    from symattn.values.number_format import NumberFormat

    return NumberFormat(digits=args.digits)


def _json(document: dict[str, Any]) -> str:
    import json

    from symattn._version import __version__

    return json.dumps({"symattn": __version__, **document}, ensure_ascii=False, indent=1) + "\n"


def _title(kind: str, problem: Any) -> list[str]:
    heading = f"{kind}: {problem.title}" if problem.title else kind
    return [heading, "=" * len(heading)]


# -------------------------------------------------------------------- sweep
def _cmd_sweep(args: argparse.Namespace) -> int:
    from symattn.explore import sweep as experiments

    temperatures = experiments.parse_temperatures(args.temperatures)
    problem = _load(args)
    number_format = _number_format(args)
    sweeps = experiments.sweep(problem, temperatures)
    layout = {"json": _sweep_json, "latex": _sweep_latex}.get(args.format, _sweep_text)
    _emit(args, _sweep_latex if args.pdf else layout, problem, sweeps, number_format)
    return 0


def _row_label(problem: Any, i: int) -> int:
    """1-based row number as documents write it: the query's position when given."""
    positions = problem.query_positions
    return positions[i] if positions else i + 1


def _largest_parts(largest: Any, fmt: Any, problem: Any) -> tuple[str, str] | None:
    """The largest weight as printed and where: ("0.9749", "row 5, key 5")."""
    if largest is None:
        return None
    value, i, j = largest
    return fmt.format(value), f"row {_row_label(problem, i)}, key {j + 1}"


def _largest_text(largest: Any, fmt: Any, problem: Any) -> str:
    parts = _largest_parts(largest, fmt, problem)
    return "-" if parts is None else f"{parts[0]} ({parts[1]})"


def _format_label(fmt: Any) -> str:
    return f"{fmt.digits} significant digits, {fmt.rounding.value}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], indent: str = "") -> list[str]:
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]
    lines = []
    for row in [header, *rows]:
        cells = [row[0].ljust(widths[0])] + [cell.rjust(w) for cell, w in zip(row[1:-1],
                                                                              widths[1:-1])]
        cells.append(row[-1].ljust(widths[-1]) if len(row) > 1 else "")
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _sweep_text(problem: Any, sweeps: Sequence[Any], fmt: Any) -> str:
    out = _title("temperature sweep", problem)
    out.append(f"entropy of each row of weights in bits (H[i]), their mean, and the largest "
               f"weight; {_format_label(fmt)}")
    out += [f"note: {note}" for note in sweeps[0].notes]
    out.append(f"largest weight: {LARGEST_NOTE}")
    for sweep in sweeps:
        out.append("")
        if sweep.head:
            out.append(sweep.head.replace("head", "head "))
        n = len(sweep.entropy_max)
        header = ["T"] + [f"H[{_row_label(problem, i)}]" for i in range(n)] + \
            ["mean H", "largest weight"]
        rows = [["H_max"] + [fmt.format(h) for h in sweep.entropy_max] +
                [fmt.format(_mean(sweep.entropy_max)), ""]]
        for row in sweep.rows:
            rows.append([row.temperature.text] + [fmt.format(h) for h in row.entropy] +
                        [fmt.format(row.mean_entropy), _largest_text(row.largest, fmt, problem)])
        out += _table(header, rows)
    return "\n".join(out) + "\n"


LARGEST_NOTE = "over rows with two or more unmasked keys (one key always gets weight 1)"


def _sweep_latex(problem: Any, sweeps: Sequence[Any], fmt: Any, fragment: bool = False) -> str:
    """templates/report_sweep.tex.j2: one table per head, a row per query row, a column per T."""
    from symattn.render.reports.shared import number, render, text

    def largest(row: Any) -> dict[str, str]:
        parts = _largest_parts(row.largest, fmt, problem)
        return {"value": "", "where": ""} if parts is None else \
            {"value": number(parts[0]), "where": text(parts[1])}

    tables = []
    for sweep in sweeps:
        tables.append({
            "head": text(sweep.head.replace("head", "head ")) if sweep.head else "",
            "temperatures": [text(row.temperature.text) for row in sweep.rows],
            "rows": [{"label": text(str(_row_label(problem, i))),
                      "maximum": number(fmt.format(h)),
                      "entropy": [number(fmt.format(row.entropy[i])) for row in sweep.rows]}
                     for i, h in enumerate(sweep.entropy_max)],
            "mean": {"maximum": number(fmt.format(_mean(sweep.entropy_max))),
                     "entropy": [number(fmt.format(row.mean_entropy)) for row in sweep.rows]},
            "largest": [largest(row) for row in sweep.rows],
        })
    doc = {"title": text(problem.title), "numbers": text(_format_label(fmt)),
           "notes": [text(note) for note in sweeps[0].notes] if sweeps else [],
           "largest_note": text(LARGEST_NOTE), "sweeps": tables}
    return render("sweep", doc, fragment)


def _mean(values: Sequence[Any]) -> Any:
    from symattn.explore import shared as experiments

    return experiments.mean_entropy(values)


def _sweep_json(problem: Any, sweeps: Sequence[Any], fmt: Any) -> str:
    document = {
        "title": problem.title,
        "format": {"digits": fmt.digits, "rounding": fmt.rounding.value},
        "notes": list(sweeps[0].notes) if sweeps else [],
        "sweeps": [{
            "head": sweep.head or None,
            "rows": [_row_label(problem, i) for i in range(len(sweep.entropy_max))],
            "entropy_max": [fmt.format(h) for h in sweep.entropy_max],
            "temperatures": [{
                "temperature": row.temperature.text,
                "entropy": [fmt.format(h) for h in row.entropy],
                "mean_entropy": fmt.format(row.mean_entropy),
                "largest_weight": None if row.largest is None else {
                    "value": fmt.format(row.largest[0]),
                    "row": _row_label(problem, row.largest[1]),
                    "key": row.largest[2] + 1},
            } for row in sweep.rows],
        } for sweep in sweeps],
    }
    return _json(document)


# ------------------------------------------------------------------- whatif
def _cmd_whatif(args: argparse.Namespace) -> int:
    from symattn.explore import whatif as experiments

    problem = _load(args)
    number_format = _number_format(args)
    variants = experiments.whatif(problem)
    layout = {"json": _whatif_json, "latex": _whatif_latex}.get(args.format, _whatif_text)
    _emit(args, _whatif_latex if args.pdf else layout, problem, variants, number_format)
    return 0


def _note(variant: Any, original: Any, fmt: Any, problem: Any) -> str:
    """One line: what was changed, and what it did to the numbers."""
    parts = [variant.change]
    if variant.available and variant.key == "column_softmax":
        if variant.stats:
            low, high = (fmt.format(variant.stats[k]) for k in ("row_sum_min", "row_sum_max"))
            sums = f"rows now sum to {low}" if low == high else f"rows now sum to {low} ... {high}"
            parts.append(f"{sums} instead of 1" + (
                ", so an output row is not a weighted average of the value rows"
                if variant.output is not None else ""))
    elif variant.available and variant.key != "original" and not variant.same_as_original:
        before, after = original.stats["largest"], variant.stats["largest"]
        if before is not None and after is not None:
            parts.append(f"largest weight {fmt.format(before[0])} -> {fmt.format(after[0])}")
        parts.append(f"mean entropy {fmt.format(original.stats['mean_entropy'])} -> "
                     f"{fmt.format(variant.stats['mean_entropy'])} bits")
    elif variant.key == "original":
        largest = variant.stats["largest"]
        if largest is not None:
            parts.append(f"largest weight {_largest_text(largest, fmt, problem)}")
        parts.append(f"mean entropy {fmt.format(variant.stats['mean_entropy'])} bits")
    if variant.remark:
        parts.append(variant.remark)
    return "; ".join(parts)


def _cells(grid: Any, fmt: Any) -> list[list[str]]:
    rows, columns = tuple(grid.rows()), tuple(grid.columns())
    return [[d if d is not None else "(symbolic)" for d in row]
            for row in fmt.format_block(grid, rows, columns)]


def _blocks(title: str, variants: Sequence[Any], which: str, fmt: Any) -> list[str]:
    from symattn.render.text import matrix_lines

    shown = [(v.label, getattr(v, which)) for v in variants if getattr(v, which) is not None]
    if not shown:
        return []
    blocks = []
    for label, grid in shown:
        cells = _cells(grid, fmt)
        lines = matrix_lines(cells, tuple(grid.rows()), tuple(grid.columns()), indent="")
        width = max(len(label), *(len(line) for line in lines))
        blocks.append([label.ljust(width)] + [line.ljust(width) for line in lines])
    out = [title]
    total = sum(len(block[0]) for block in blocks) + 3 * (len(blocks) - 1) + 2
    if total <= _width():
        for parts in zip(*blocks):
            out.append(("  " + "   ".join(parts)).rstrip())
    else:
        for block in blocks:
            out += ["  " + line.rstrip() for line in block]
            out.append("")
        out.pop()
    return out


def _width() -> int:
    import shutil
    import sys

    if sys.stdout.isatty():
        return shutil.get_terminal_size((SIDE_BY_SIDE_WIDTH, 24)).columns
    return SIDE_BY_SIDE_WIDTH


def _whatif_text(problem: Any, variants: Sequence[Any], fmt: Any) -> str:
    out = _title("what if", problem)
    out.append(_format_label(fmt))
    out.append("")
    original = variants[0]
    width = max(len(v.label) for v in variants)
    for variant in variants:
        out.append(f"  {variant.label.ljust(width)}  {_note(variant, original, fmt, problem)}")
    for title, which in (("weights", "weights"), ("output", "output")):
        block = _blocks(title, variants, which, fmt)
        if block:
            out.append("")
            out += block
    return "\n".join(out) + "\n"


def _whatif_latex(problem: Any, variants: Sequence[Any], fmt: Any,
                  fragment: bool = False) -> str:
    """templates/report_whatif.tex.j2: the notes, then the weights and outputs side by side."""
    from symattn.render.reports.shared import matrix, render, text

    original = variants[0]
    matrices, columns, width = [], 10, 0
    for v in variants:
        if v.weights is None and v.output is None:
            continue
        grids = {which: _cells(getattr(v, which), fmt)
                 for which in ("weights", "output") if getattr(v, which) is not None}
        cells = {which: matrix(rows) for which, rows in grids.items()}
        matrices.append({"label": text(v.label), "weights": cells.get("weights", ""),
                         "output": cells.get("output", "")})
        columns = max([columns] + [len(tuple(getattr(v, w).columns())) for w in cells])
        width = max(width, sum(max((sum(len(c) + 2 for c in row) for row in rows), default=0)
                               for rows in grids.values()))
    doc = {"title": text(problem.title), "numbers": text(_format_label(fmt)),
           "variants": [{"label": text(v.label), "note": text(_note(v, original, fmt, problem))}
                        for v in variants],
           "matrices": matrices, "any_output": any(m["output"] for m in matrices),
           "side_by_side": width <= SIDE_BY_SIDE_LATEX}
    return render("whatif", doc, fragment, max_columns=columns)


def _whatif_json(problem: Any, variants: Sequence[Any], fmt: Any) -> str:
    def matrix(grid: Any) -> dict[str, Any] | None:
        if grid is None:
            return None
        return {"exact": [[grid.text(i, j) for j in grid.columns()] for i in grid.rows()],
                "value": _cells(grid, fmt)}

    original = variants[0]
    document = {
        "title": problem.title,
        "format": {"digits": fmt.digits, "rounding": fmt.rounding.value},
        "variants": [{
            "name": v.key,
            "label": v.label,
            "available": v.available,
            "change": v.change,
            "note": _note(v, original, fmt, problem),
            "weights": matrix(v.weights),
            "output": matrix(v.output),
        } for v in variants],
    }
    return _json(document)
