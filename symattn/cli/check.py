"""``symattn check``: judge the numbers documents print (their specs' ``[claims]``).

A command module of ``symattn.cli.app``: ``register(subparsers)`` adds the
parser and returns the handler. Only argparse is imported at module level.
Exit status 0 when every printed number is confirmed, 1 when one is wrong,
2 when a spec is unusable (its message goes to stderr; the others are still
judged).

>>> import argparse
>>> commands = argparse.ArgumentParser(prog="symattn").add_subparsers(dest="command")
>>> sorted(register(commands))
['check']
"""

from __future__ import annotations

__all__ = ["register", "run", "check_one"]

import argparse
import sys
from typing import TYPE_CHECKING, Union

from symattn.cli.gates import add_gate_options, fail_on, fails, summary_document, summary_text
from symattn.defaults import ROUNDING
from symattn.cli.options import (EPILOG, EXIT_INPUT, EXIT_OK, EXIT_WRONG, Handler, Subparsers,
                                 add_language_options, add_limit_option, add_source,
                                 display_name, one_line, spec_sources, whole, write_output)

if TYPE_CHECKING:
    from symattn.verify.checker import Report

# What checking one spec gives: its report, or the one-line error when it is unusable.
Checked = Union["Report", str]


def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``check``; return its handler."""
    parser = subparsers.add_parser("check", help="judge the printed numbers ([claims]) of specs",
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   epilog=EPILOG)
    add_source(parser, many=True)
    add_limit_option(parser)
    parser.add_argument("--format", "-f", choices=("text", "markdown", "json"), default="text")
    parser.add_argument("--rounding", default=None,
                        help="rounding the document used: half-up, half-even or truncate "
                             f"(default: the spec's options.rounding, else {ROUNDING})")
    parser.add_argument("--working", action="store_true",
                        help="numbers claimed under one label are one piece of working: each "
                             "must follow from the others (docs/checking.md)")
    parser.add_argument("--jobs", "-j", action=whole(1), default=1, metavar="N",
                        help="check N files in parallel processes (output stays in input order)")
    parser.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")
    add_language_options(parser, locale=False)
    add_gate_options(parser)
    return {"check": run}


def check_one(source: str, rounding: str | None, max_size: int | None = None,
              working: bool = False) -> Checked:
    """Report for one spec file, or the error message when it is unusable."""
    import dataclasses

    from symattn import sizes   # a [sizes] spec: docs/sizes.md
    from symattn.derivation import pipeline
    from symattn.errors import SymattnError
    from symattn.problem import spec
    from symattn.problem.limits import DEFAULT, Limits
    from symattn.verify import checker

    try:
        mapping = sizes.read_spec(source)
        if mapping is not None and sizes.is_sizes_spec(mapping):
            judged: Report = sizes.check_spec(mapping, source, rounding)
            return dataclasses.replace(judged, source=display_name(source))
        limits = DEFAULT if max_size is None else Limits.scaled(max_size)
        report = checker.check(pipeline.derive(spec.load(source, limits=limits)), rounding,
                               working)
        return dataclasses.replace(report, source=display_name(source))
    except SymattnError as error:
        return f"symattn: error: {one_line(str(error))}"


def _quiet_worker() -> None:
    """A ``check --jobs`` worker leaves Ctrl-C to the parent, which stops it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _check_in_parallel(sources: list[str], args: argparse.Namespace) -> list[Checked]:
    """``check_one`` of each source in ``--jobs`` processes, in the order of the sources."""
    import multiprocessing

    # Workers ignore Ctrl-C (no tracebacks from idle workers); the parent
    # gets it and terminates them at once - what Pool.terminate is for.
    pool = multiprocessing.Pool(min(args.jobs, len(sources)), initializer=_quiet_worker)
    try:
        results = pool.starmap(check_one, [(source, args.rounding, args.max_size, args.working)
                                           for source in sources])
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
    return results


def _check_in_turn(sources: list[str], args: argparse.Namespace) -> list[Checked]:
    """``check_one`` of each source, one after another, with progress on a terminal."""
    from symattn import progress

    results = []
    with progress.task(len(sources), "checking"):
        for source in sources:
            results.append(check_one(source, args.rounding, args.max_size, args.working))
            progress.advance()
    return results


def run(args: argparse.Namespace) -> int:
    """The ``check`` command; returns the exit status."""
    from symattn.errors import InputError
    from symattn.values.rounding import parse_rounding

    sources = spec_sources(args)
    if not sources:
        raise InputError("check needs at least one spec: FILE ... or --example NAME")
    if args.rounding is not None:
        parse_rounding(args.rounding)
    failing = fail_on(args.fail_on)
    parallel = args.jobs > 1 and len(sources) > 1
    results = (_check_in_parallel if parallel else _check_in_turn)(sources, args)
    reports = [r for r in results if not isinstance(r, str)]
    for message in (r for r in results if isinstance(r, str)):
        print(message, file=sys.stderr)
    if reports:
        write_output(_rendered(reports, args), args.output)
    if len(reports) < len(results):
        return EXIT_INPUT
    return EXIT_WRONG if any(fails(r, failing) for r in reports) else EXIT_OK


def _rendered(reports: list[Report], args: argparse.Namespace) -> str:
    """The reports in ``--format``, whole or (``--summary``) their counts only."""
    import json

    from symattn.render import report as render_report

    if args.format == "json":
        document = render_report.report_document(reports)
        if args.summary:
            document = summary_document(document)
        return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    if args.summary:
        return summary_text(reports, args.language, markdown=args.format == "markdown")
    return {"text": render_report.report_text, "markdown": render_report.report_markdown}[
        args.format](reports, args.language)
