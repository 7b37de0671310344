"""``symattn calculator``: the temperature calculator as one self-contained HTML page.

Every state the page can show (each T, each d_k, scaling and mask on and off)
is derived here in advance (``symattn.explore.calculator``, the derivations of
``symattn sweep``); the page (``symattn.render.web.calculator_page``) only
selects one. Module-level imports stay light: this module is imported for
``symattn --help``.
"""

from __future__ import annotations

__all__ = ["register", "SWEEP_DIGITS"]

import argparse

from symattn.defaults import CALCULATOR_D_KS, CALCULATOR_TEMPERATURES
from symattn.cli.options import (EXIT_OK, Handler, Subparsers, add_language_options,
                                 add_limit_option, add_number_options, add_source, epilog,
                                 language_of, limits_of, load_one, number_format_of,
                                 write_output)

SWEEP_DIGITS = 4      # the significant digits of symattn sweep, so both print alike

EPILOG = epilog("""\
  symattn calculator --example 003-calculator-six-tokens -o calculator.html
  symattn calculator my.toml --language pl -o kalkulator.html
  symattn calculator my.toml -T 0.5,1,2 --d-k 1,4,16 --digits 6 -o page.html
  symattn calculator my.toml --fragment -o calculator-fragment.html   to embed in a page

The page needs no server and loads nothing; docs/calculator.md shows how to embed it.
""")


def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``calculator``; return its handler."""
    parser = subparsers.add_parser(
        "calculator", help="an offline HTML page with sliders for T and d_k",
        description="One self-contained HTML page: sliders for the temperature T and d_k "
                    "(the scale 1/sqrt(d_k)), switches for the scaling and the mask, the "
                    "weights, each row's entropy beside H_max and the mean entropy. Every "
                    "state is computed in advance, exactly; moving a slider only selects one.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    add_source(parser)
    parser.add_argument("--temperatures", "-T", default=CALCULATOR_TEMPERATURES, metavar="LIST",
                        help="the temperature slider's positions, separated by commas "
                             "(default 0.1 to 3 in steps of 0.1); each read exactly")
    parser.add_argument("--d-k", default=",".join(map(str, CALCULATOR_D_KS)), metavar="LIST",
                        help="the d_k slider's positions (default 1,2,4,8,16,32,64; the "
                             "spec's own d_k is added)")
    parser.add_argument("--fragment", action="store_true",
                        help="write the calculator's <section> (with its style and script) "
                             "alone, to paste into a page")
    parser.add_argument("--output", "-o", metavar="FILE",
                        help="write the page to FILE (default: standard output)")
    add_limit_option(parser)
    add_number_options(parser)
    add_language_options(parser)
    return {"calculator": run}


def run(args: argparse.Namespace) -> int:
    """The ``calculator`` command; returns the exit status."""
    from symattn.explore import calculator
    from symattn.render.web.calculator_page import render_calculator

    temperatures = calculator.parse_temperatures(args.temperatures)
    d_ks = calculator.parse_d_ks(args.d_k)
    problem = load_one(args, "calculator")
    language = language_of(args, problem.language)
    fmt = number_format_of(args, default_digits=SWEEP_DIGITS, language=language)
    states = calculator.calculator(problem, temperatures, d_ks, limits_of(args))
    write_output(render_calculator(problem, states, fmt, language, args.fragment), args.output)
    return EXIT_OK
