"""``symattn permute``: permute the tokens, prove what happens to the output.

Without positional encodings (and without a mask) every output row of the
permuted problem equals the permuted original row exactly; with
``positions = "sinusoidal"`` or ``"rope"`` the rows differ, shown by certified
decimals (``symattn.explore.permute``; the layouts are
``symattn.render.reports.permute``). See docs/positions.md. Module-level
imports stay light: this module is imported for ``symattn --help``.
"""

from __future__ import annotations

__all__ = ["register"]

import argparse
from typing import TYPE_CHECKING

from symattn.cli.options import (EXIT_OK, Handler, Subparsers, add_language_options,
                                 add_limit_option, add_number_options, add_source, language_of,
                                 load_one, number_format_of, spec_sources, write_report)

if TYPE_CHECKING:
    from symattn.problem.problem import Problem

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


def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``permute``; return its handler."""
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
    add_language_options(parser)
    return {"permute": run}


def run(args: argparse.Namespace) -> int:
    """The ``permute`` command; returns the exit status."""
    from symattn.explore.permute import parse_order, permutation_check
    from symattn.render.reports import permute as layouts
    from symattn.render.reports.shared import check_document_options, spec_stem

    sources = spec_sources(args)
    problem = load_one(args, "permute")
    check_document_options(args)
    language = language_of(args, problem.language)
    fmt = number_format_of(args, language="en" if args.format == "json" else language)
    order = parse_order(args.order) if args.order is not None else None
    problem = _with_positions(problem, args.positions, sources[0])
    if order is None:
        order = tuple(range(problem.score_shape()[0], 0, -1))
    result = permutation_check(problem, order)
    write_report(args, spec_stem(sources[0], "permute"), {
        "text": lambda: layouts.render_text(problem, result, fmt, language),
        "json": lambda: layouts.render_json(problem, result, fmt),
        "latex": lambda: layouts.render_latex(problem, result, fmt, args.fragment, language)},
        language, lambda: layouts.permute_blocks(problem, result, fmt, language))
    return EXIT_OK


def _with_positions(problem: Problem, positions: str | None, source: str) -> Problem:
    """``--positions``: the problem with those positions, its sizes checked for them."""
    import dataclasses

    from symattn.problem.modes import Positions

    if positions is None or positions == problem.positions:
        return problem
    problem = dataclasses.replace(problem, positions=Positions(positions))
    if problem.positions != Positions.NONE:
        from symattn.errors import Location
        from symattn.problem.limits import DEFAULT, check_positions, check_problem

        n, m = problem.score_shape()
        check_problem(n, m, problem.heads, problem.needs_sympy, DEFAULT, Location(file=source))
        check_positions(max(n, m), problem.position_width, DEFAULT, Location(file=source))
    return problem
