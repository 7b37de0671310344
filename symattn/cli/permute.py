"""``symattn permute``: permute the tokens, prove what happens to the output.

Without positional encodings (and without a mask) every output row of the
permuted problem equals the permuted original row exactly; with
``positions = "sinusoidal"`` or ``"rope"`` the rows differ, shown by certified
decimals. See docs/positions.md. Module-level imports stay light: this module
is imported for ``symattn --help``.
"""

from __future__ import annotations

__all__ = ["register"]

import argparse
from typing import Any

from symattn.cli.options import (EXIT_OK, add_limit_option, add_number_options, add_source,
                         load_one, number_format_of, spec_sources, write_output)

EPILOG = """\
examples:
  symattn permute --example 003-positions-sinusoidal --order 3,1,2
  symattn permute --example 003-positions-sinusoidal --order 3,1,2 --positions none
  symattn permute my.toml --order 2,1,3 --positions rope --format json
  symattn permute my.toml --order 2,1,3 --format latex -o permute.tex --pdf

--order lists the original tokens' 1-based numbers in their new order: with
3,1,2 the permuted problem's first token is the original token 3. Without
--order the tokens are reversed. Exit status 0 (the result is in the output),
2 for unusable input such as an --order that is not a permutation.
"""


def register(subparsers: Any) -> dict[str, Any]:
    parser = subparsers.add_parser(
        "permute", help="permute the tokens: outputs permute exactly without positions",
        description="Permute the tokens (rows of X, or of Q, K, V) and prove that each output "
                    "row equals the permuted original row exactly - or, with sinusoidal or "
                    "RoPE positions, that it differs.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    add_source(parser)
    add_limit_option(parser)
    parser.add_argument("--order", metavar="I,J,...",
                        help="new order of the original tokens, 1-based, e.g. 3,1,2 "
                             "(default: reversed)")
    parser.add_argument("--positions", choices=("none", "sinusoidal", "rope"), default=None,
                        help="use these positions instead of the spec's options.positions")
    add_number_options(parser)
    from symattn.render.reports.shared import add_report_options

    add_report_options(parser)
    return {"permute": run}


def run(args: argparse.Namespace) -> int:
    import dataclasses

    from symattn.render.reports import shared as reports
    from symattn.explore.permute import parse_order, permutation_check
    from symattn.problem.modes import Positions

    sources = spec_sources(args)
    problem = load_one(args, "permute")
    reports.check_document_options(args)
    number_format = number_format_of(args)
    order = parse_order(args.order) if args.order is not None else None
    if args.positions is not None and args.positions != problem.positions:
        problem = dataclasses.replace(problem, positions=Positions(args.positions))
        if problem.positions != Positions.NONE:
            from symattn.errors import Location
            from symattn.problem.limits import DEFAULT, check_problem

            n, m = problem.score_shape()
            check_problem(n, m, problem.heads, True, DEFAULT, Location(file=sources[0]))
    if order is None:
        order = tuple(range(problem.score_shape()[0], 0, -1))
    result = permutation_check(problem, order)
    if reports.wants_latex(args):
        tex = render_latex(problem, result, number_format, args.fragment)
        reports.emit(args, tex, reports.spec_stem(sources[0], "permute"))
        return EXIT_OK
    layout = render_json if args.format == "json" else render_text
    write_output(layout(problem, result, number_format), args.output)
    return EXIT_OK


# ------------------------------------------------------------------- layouts
def _cells(values: Any, number_format: Any) -> list[str]:
    """Certified decimals of exact values (their exact text when symbolic)."""
    from symattn.values.exact import exact_text

    cells = []
    for value in values:
        text = number_format.format(value)
        cells.append(text if text is not None else exact_text(value))
    return cells


def _distinguishing(row: Any, number_format: Any) -> tuple[list[str], list[str]]:
    """Decimals of both rows; more digits when rows proved different print alike."""
    import dataclasses

    fmt = number_format
    mine, theirs = _cells(row.permuted, fmt), _cells(row.original, fmt)
    for _ in range(12):
        if row.verdict != "differs" or mine != theirs:
            break
        fmt = dataclasses.replace(fmt, places=fmt.places + 3) if fmt.places is not None \
            else dataclasses.replace(fmt, digits=(fmt.digits or 6) + 3)
        mine, theirs = _cells(row.permuted, fmt), _cells(row.original, fmt)
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


def _count(label: str, counts: tuple[int, int, int], unit: str) -> str:
    return f"{label}: " + _count_text(counts, unit)


def _positions_text(result: Any) -> str:
    return "none" if result.positions == "none" else \
        f"{result.positions} (base {result.position_base})"


def _check_text(result: Any) -> str | None:
    """How many rows' exact closed forms read back identical, when that was checked."""
    texts = [row.text_equal for row in result.rows]
    if all(t is None for t in texts):
        return None
    same = sum(1 for t in texts if t)
    return f"exact closed forms identical (read back by SymPy) in {same} of {len(texts)} rows"


def _verdict_text(row: Any) -> str:
    return {"equal": "equal (exact)", "differs": "differs (proved)"}.get(row.verdict, row.verdict)


def _result_text(result: Any) -> str:
    n = len(result.order)
    if result.equivariant:
        return (f"equivariant - every {result.step} row of the permuted problem equals the "
                f"permuted original row exactly ({n} of {n})")
    differing = len(result.differing)
    return (f"not equivariant - {differing} of {n} rows proved different (their certified "
            "decimals differ)" + ("" if differing + sum(r.verdict == "equal" for r in result.rows)
                                  == n else "; the others undecided"))


def render_text(problem: Any, result: Any, number_format: Any) -> str:
    order = ",".join(map(str, result.order))
    out = []
    title = f"permutation equivariance: {problem.title}" if problem.title \
        else "permutation equivariance"
    out += [title, "=" * len(title)]
    out.append(f"order {order}: token i of the permuted problem is token order[i] of the "
               "original")
    positions = _positions_text(result)
    out.append(f"positions: {positions}; mask: {result.mask}; compared: the {result.step} rows")
    out.append("")
    kind = "as rationals" if result.rational else "as exact expressions"
    out.append(_count(f"scores  S'[i,j] vs S[order[i],order[j]] ({kind})", result.scores,
                      "entries"))
    if result.values is not None:
        out.append(_count("values  V'[j] vs V[order[j]]", result.values, "rows"))
    if all(row.structural for row in result.rows):
        if result.step == "output":
            out += ["proof   row i of the permuted problem weighs the same (score, value) pairs "
                    "as original row order[i],",
                    "        each compared exactly; the softmax and the weighted sum depend on "
                    "nothing else,", "        so O'[i] = O[order[i]] exactly"]
        else:
            out += ["proof   row i of the permuted problem has the scores of original row "
                    "order[i], each compared",
                    "        exactly, in permuted columns; so A'[i,j] = A[order[i],order[j]] "
                    "exactly"]
    check = _check_text(result)
    if check is not None:
        out.append(f"check   {check}")
    out.append("")
    header = ["row", "token", "original row", "verdict", f"{result.step} (permuted problem)",
              f"{result.step} (original row)" if result.step == "output"
              else "weights (original row, columns permuted)"]
    table = [header]
    for row in result.rows:
        mine, theirs = _distinguishing(row, number_format)
        table.append([str(row.row), row.token or "-", str(row.source), _verdict_text(row),
                      "[" + ", ".join(mine) + "]", "[" + ", ".join(theirs) + "]"])
    widths = [max(len(r[c]) for r in table) for c in range(len(header))]
    for r in table:
        out.append("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(r)).rstrip())
    out.append("")
    out.append(f"result: {_result_text(result)}")
    for note in result.notes:
        out.append(f"note: {note}")
    return "\n".join(out) + "\n"


def render_latex(problem: Any, result: Any, number_format: Any, fragment: bool = False) -> str:
    """templates/report_permute.tex.j2: the comparison, its proof and its conclusion."""
    from symattn.render.reports.shared import render, text, vector

    rows = []
    for row in result.rows:
        mine, theirs = _distinguishing(row, number_format)
        rows.append({"row": text(str(row.row)), "token": text(row.token or "-"),
                     "source": text(str(row.source)), "verdict": text(_verdict_text(row)),
                     "equal": row.verdict == "equal",
                     "permuted": vector(mine), "original": vector(theirs)})
    check = _check_text(result)
    proof = "" if not all(row.structural for row in result.rows) else result.step
    doc = {"title": text(problem.title), "order": text(",".join(map(str, result.order))),
           "positions": text(_positions_text(result)), "mask": text(result.mask),
           "step": text(result.step), "output": result.step == "output",
           "kind": text("as rationals" if result.rational else "as exact expressions"),
           "score_counts": text(_count_text(result.scores, "entries")),
           "value_counts": text(_count_text(result.values, "rows")) if result.values is not None
           else "",
           "proof": text(proof), "check": text(check) if check is not None else "",
           "rows": rows, "equivariant": result.equivariant, "result": text(_result_text(result)),
           "notes": [text(note) for note in result.notes]}
    return render("permute", doc, fragment)


def render_json(problem: Any, result: Any, number_format: Any) -> str:
    import json

    from symattn._version import __version__
    from symattn.values.exact import exact_text

    def counts(values: Any) -> Any:
        if values is None:
            return None
        return dict(zip(("equal", "different", "undecided"), values))

    rows = []
    for row in result.rows:
        mine, theirs = _distinguishing(row, number_format)
        rows.append({"row": row.row, "source": row.source, "token": row.token,
                     "verdict": row.verdict, "structural": row.structural,
                     "text_equal": row.text_equal, "permuted": mine, "original": theirs,
                     "permuted_exact": [exact_text(v) for v in row.permuted],
                     "original_exact": [exact_text(v) for v in row.original]})
    document = {"symattn": __version__, "title": problem.title, "order": list(result.order),
                "positions": result.positions, "position_base": result.position_base,
                "mask": result.mask, "step": result.step, "equivariant": result.equivariant,
                "scores": counts(result.scores), "values": counts(result.values),
                "rows": rows, "notes": list(result.notes)}
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
