"""``symattn sweep`` and ``symattn whatif``: experiments on a spec for teaching.

A command plugin (see ``cli.app._command_modules``): ``register(subparsers)`` adds both
parsers and returns their handlers. Nothing heavy is imported until a command
runs; the computations live in ``explore.sweep`` and ``explore.whatif``, the layouts in
``render.reports.explore`` and ``render.reports.whatif``.

>>> import argparse
>>> parser = argparse.ArgumentParser(prog="symattn")
>>> sorted(register(parser.add_subparsers()))
['sweep', 'whatif']
"""

from __future__ import annotations

__all__ = ["register"]

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from symattn.cli.options import (EXIT_OK, Handler, Subparsers, add_language_options,
                                 add_limit_option, language_of, limits_of, terminal_width, whole,
                                 write_report)

if TYPE_CHECKING:
    from symattn.problem.problem import Problem
    from symattn.values.number_format import NumberFormat

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


def register(subparsers: Subparsers) -> dict[str, Handler]:
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
    add_language_options(sweep)
    whatif = subparsers.add_parser(
        "whatif", help="weights and outputs next to common mistakes (no scaling, no mask, "
                       "K and V swapped, softmax over columns)",
        description="Derive the spec as given and with each of the mistakes seed 003 lists, "
                    "side by side, each with a one-line note of what changed.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=WHATIF_EPILOG)
    _add_common(whatif)
    add_language_options(whatif)
    return {"sweep": _cmd_sweep, "whatif": _cmd_whatif}


def _add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", nargs="?", metavar="FILE", help="spec file, .toml or .json")
    parser.add_argument("--example", "-e", metavar="NAME",
                        help="use a bundled example (see `symattn examples`)")
    parser.add_argument("--digits", action=whole(1, 1000), default=4, metavar="N",
                        help="significant digits of every decimal (default 4)")
    from symattn.render.reports.shared import add_report_options

    add_limit_option(parser)
    add_report_options(parser)


def _source(args: argparse.Namespace) -> str | Path:
    from symattn.problem import examples

    return args.file if args.file is not None else examples.path(args.example)


def _load(args: argparse.Namespace) -> Problem:
    from symattn.errors import InputError
    from symattn.problem import spec
    from symattn.render.reports.shared import check_document_options

    if (args.file is None) == (args.example is None):
        raise InputError(f"{args.command} takes exactly one spec: a FILE or --example NAME")
    check_document_options(args)
    if not 1 <= args.digits <= 1000:
        raise InputError(f"--digits must be between 1 and 1000, got {args.digits}")
    return spec.load(_source(args), limits=limits_of(args))


def _number_format(args: argparse.Namespace, language: str = "en") -> NumberFormat:
    """``--digits``; the decimal mark of ``--locale``, else of ``language`` (JSON: a point)."""
    from symattn.values.number_format import NumberFormat

    locale = getattr(args, "locale", None) or ("en" if args.format == "json" else language)
    return NumberFormat(digits=args.digits, locale=locale)


def _report_stem(args: argparse.Namespace) -> str:
    from symattn.render.reports.shared import spec_stem

    return spec_stem(_source(args), args.command)


def _terminal_width() -> int:
    """The width whatif's text fits its matrices side by side in: the terminal's, if any."""
    from symattn.render.reports.whatif import SIDE_BY_SIDE_WIDTH

    return terminal_width(SIDE_BY_SIDE_WIDTH)


def _cmd_sweep(args: argparse.Namespace) -> int:
    from symattn.explore import sweep
    from symattn.render.reports import explore as layouts

    temperatures = sweep.parse_temperatures(args.temperatures)
    problem = _load(args)
    language = language_of(args, problem.language)
    fmt = _number_format(args, language)
    sweeps = sweep.sweep(problem, temperatures, limits_of(args))
    write_report(args, _report_stem(args), {
        "text": lambda: layouts.render_sweep_text(problem, sweeps, fmt, language),
        "json": lambda: layouts.render_sweep_json(problem, sweeps, fmt),
        "latex": lambda: layouts.render_sweep_latex(problem, sweeps, fmt, args.fragment,
                                                    language)}, language,
        lambda: layouts.sweep_blocks(problem, sweeps, fmt, language))
    return EXIT_OK


def _cmd_whatif(args: argparse.Namespace) -> int:
    from symattn.explore import whatif
    from symattn.render.reports import whatif as layouts

    problem = _load(args)
    language = language_of(args, problem.language)
    fmt = _number_format(args, language)
    variants = whatif.whatif(problem)
    write_report(args, _report_stem(args), {
        "text": lambda: layouts.render_whatif_text(problem, variants, fmt, _terminal_width(),
                                                   language),
        "json": lambda: layouts.render_whatif_json(problem, variants, fmt),
        "latex": lambda: layouts.render_whatif_latex(problem, variants, fmt, args.fragment,
                                                     language)}, language,
        lambda: layouts.whatif_blocks(problem, variants, fmt, layouts.SIDE_BY_SIDE_PAGE,
                                      language))
    return EXIT_OK
