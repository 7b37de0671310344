"""``symattn kvcache``: causal self-attention decoded one token at a time.

Shows the cache of keys and values growing, each new query's scores against
the cached keys, its weights and output row, and the proof that the row
equals the full causal computation exactly (``symattn.explore.kvcache``; the
layouts are ``symattn.render.reports.kvcache``). Module-level imports stay
light: this module is imported for ``symattn --help``.
"""

from __future__ import annotations

__all__ = ["register"]

import argparse

from symattn.defaults import ROWS_SHOWN
from symattn.cli.options import (EXIT_INTERNAL, EXIT_OK, Handler, Subparsers,
                                 add_language_options, add_limit_option, add_number_options,
                                 add_source, language_of, load_one, number_format_of,
                                 spec_sources, whole, write_report)

EPILOG = """\
examples:
  symattn kvcache --example 000-cat-chases-mouse
  symattn kvcache my.toml --places 3
  symattn kvcache my.toml --format json
  symattn kvcache my.toml --format latex -o kvcache.tex --pdf

The spec must be causal self-attention (options.mask = "causal", one query per
key, X with W_Q, W_K, W_V or Q, K, V; positions none, sinusoidal or rope).
Exit status 0 when every step is proved equal to the full computation, 2 for
unusable input, 3 if a step could not be proved (a bug in symattn).
"""


def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``kvcache``; return its handler."""
    parser = subparsers.add_parser(
        "kvcache", help="decode one token at a time with a KV cache, proved exact",
        description="Incremental decoding of causal self-attention with a key/value cache: "
                    "the cache growing, each new query's scores, weights and output, each "
                    "output row proved equal to the full causal computation, and the K/V "
                    "rows the cache saves.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    add_source(parser)
    add_limit_option(parser)
    add_number_options(parser)
    parser.add_argument("--max-rows", action=whole(0), default=ROWS_SHOWN, metavar="N",
                        help=f"show at most N cached rows per step (default {ROWS_SHOWN}; "
                             "0 shows all)")
    from symattn.render.reports.shared import add_report_options

    add_report_options(parser)
    add_language_options(parser)
    return {"kvcache": run}


def run(args: argparse.Namespace) -> int:
    """The ``kvcache`` command; returns the exit status."""
    from symattn.explore import kvcache
    from symattn.render.reports import kvcache as layouts
    from symattn.render.reports.shared import check_document_options, spec_stem

    sources = spec_sources(args)
    problem = load_one(args, "kvcache")
    check_document_options(args)
    language = language_of(args, problem.language)
    fmt = number_format_of(args, language="en" if args.format == "json" else language)
    steps = kvcache.decode(problem)
    limit = None if args.max_rows == 0 else max(args.max_rows, 2)
    write_report(args, spec_stem(sources[0], "kvcache"), {
        "text": lambda: layouts.render_text(problem, steps, fmt, limit, language),
        "json": lambda: layouts.render_json(problem, steps, fmt),
        "latex": lambda: layouts.render_latex(problem, steps, fmt, limit, args.fragment,
                                              language)}, language,
        lambda: layouts.kvcache_blocks(problem, steps, fmt, limit, language))
    if not all(step.equal for step in steps):   # pragma: no cover - would be a bug
        import sys

        print("symattn: internal error: a decoding step was not proved equal to the full "
              "computation (this is a bug in symattn; please report it)", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_OK
