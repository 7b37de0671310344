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

__all__ = ["register", "run", "check_one", "jobs_used"]

import argparse
import sys
from typing import TYPE_CHECKING, Union

from symattn.cli.gates import add_gate_options, fail_on, fails, summary_text
from symattn.defaults import MAX_TERMS, ROUNDING
from symattn.cli.options import (EXIT_INPUT, EXIT_INTERNAL, EXIT_OK, EXIT_WRONG, Handler, epilog,
                                 Subparsers,
                                 add_language_options, add_limit_option, add_table_options,
                                 add_precision_option, add_source,
                                 display_name, one_line, spec_sources, table_options, whole,
                                 write_output)

if TYPE_CHECKING:
    from symattn.render.report import TableOptions
    from symattn.verify.checker import Report
    from symattn.verify.verdicts import Failed

# What checking one spec gives: its report (one per [[variants]] block), or what went
# wrong (the one-line error).
Checked = Union["Report", list["Report"], "Failed"]


CHECK_EPILOG = epilog("""\
  symattn check --example 001-kocka-spi-venku   verdicts on the printed numbers of an example
  symattn check my.toml --show problems         only the numbers to look at
  symattn check book/*.toml -f markdown -j 2    several specs, two at a time
  symattn check chapter.md                      a document: its examples found and checked
  symattn check chapter.pdf --spec inputs.toml  a document with the inputs you give
  symattn check my.toml --fail-on wrong,propagated --summary   a CI gate
""")

def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``check``; return its handler."""
    parser = subparsers.add_parser("check", help="judge the printed numbers ([claims]) of specs",
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   epilog=CHECK_EPILOG)
    add_source(parser, many=True)
    add_limit_option(parser)
    add_precision_option(parser)
    parser.add_argument("--format", "-f", choices=("text", "markdown", "json", "html"),
                        default="text", help="text (default), a Markdown table, JSON (symattn "
                        "schema check), or html (one self-contained page that reads offline)")
    parser.add_argument("--rounding", default=None,
                        help="rounding the document used: half-up, half-even or truncate "
                             f"(default: the spec's options.rounding, else {ROUNDING})")
    parser.add_argument("--working", action="store_true",
                        help="numbers claimed under one label are one piece of working: each "
                             "must follow from the others (docs/checking.md)")
    parser.add_argument("--jobs", "-j", action=whole(1), default=1, metavar="N",
                        help="check N files in parallel processes, at most one per CPU core "
                             "(output stays in input order)")
    parser.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")
    parser.add_argument("--max-terms", action=whole(0), default=MAX_TERMS, metavar="N",
                        help="JSON: a closed form of more than N exponentials is null, as in "
                             f"derive (default {MAX_TERMS}; 0 writes every one)")
    parser.add_argument("--spec", metavar="INPUTS.toml",
                        help="FILEs are documents (text, Markdown, LaTeX, HTML, notebooks): "
                             "extract their printed numbers with these inputs and check them, "
                             "reporting each at its document line (docs/extract.md)")
    parser.add_argument("--show", choices=("all", "problems", "unplaced"), default="all",
                        help="text and markdown: all (default) the rows of every printed "
                             "number; problems those an author has to look at (wrong, "
                             "carried forward, suspicious, undecided, printed differently "
                             "elsewhere); unplaced: for a document, also the numbers not "
                             "placed (line, column, text)")
    add_table_options(parser)
    add_language_options(parser, locale=False)
    add_gate_options(parser)
    return {"check": run}


def check_one(source: str, rounding: str | None, max_size: int | None = None,
              working: bool = False, precision: str | None = None,
              language: str | None = None) -> Checked:
    """Report for one spec file, or what went wrong with it (``Failed``): an unusable
    spec (status 2), or an internal error (status 3) that stops only this file."""
    import os

    from symattn.errors import SymattnError
    from symattn.collector import uncollected
    from symattn.verify.verdicts import Failed

    name = display_name(source)
    try:
        with uncollected():   # a spec's objects live until it is judged: no collector passes
            return _checked(source, name, rounding, max_size, working, precision, language)
    except SymattnError as error:
        message = str(error).replace(source, name, 1)   # an example by its name
        named = message if name in message else f"{name}: {message}"
        return Failed(name, f"symattn: error: {one_line(named)}", EXIT_INPUT)
    except (Exception, RecursionError) as error:   # a bug: this file fails, the others not
        if os.environ.get("SYMATTN_DEBUG"):
            raise
        return Failed(name, f"symattn: internal error: {one_line(name)}: {type(error).__name__}: "
                            f"{one_line(str(error))} (this is a bug in symattn; run again with "
                            "SYMATTN_DEBUG=1 for the traceback and report it)", EXIT_INTERNAL)


def _checked(source: str, name: str, rounding: str | None, max_size: int | None,
             working: bool, precision: str | None, language: str | None = None) -> Checked:
    """``check_one`` of a spec that can be read and judged (errors go to the caller)."""
    import dataclasses

    from symattn import sizes   # a [sizes] spec: docs/sizes.md
    from symattn.derivation import pipeline
    from symattn.problem.limits import DEFAULT, Limits
    from symattn.verify import checker

    limits = DEFAULT if max_size is None else Limits.scaled(max_size)
    loaded = sizes.load_any(source, limits)       # the file is read once: pipes work
    if isinstance(loaded, dict):
        judged: Report = sizes.check_spec(loaded, source, rounding)
        return dataclasses.replace(judged, source=name)
    if loaded.written_language:   # "pt": no catalog, the report is in English (or --language)
        from symattn import messages

        note = messages.load(language or "en").fill("catalog.missing",
                                                     language=loaded.written_language)
        print(f"symattn: {name}: {note}", file=sys.stderr)
    if loaded.variants:      # several settings, one report each (problem.variants)
        from symattn.verify.variants import check_all

        return [dataclasses.replace(report, source=name)
                for report in check_all(loaded, rounding, working, precision)]
    report = checker.check(pipeline.derive(loaded), rounding, working, precision)
    return dataclasses.replace(report, source=name)


def _died(source: str) -> Failed:
    """The report of a file whose worker process died (killed, or out of memory)."""
    from symattn.verify.verdicts import Failed

    name = display_name(source)
    return Failed(name, f"symattn: error: {one_line(name)}: the process checking this file "
                        "stopped (killed, or out of memory); check it alone to see why",
                  EXIT_INPUT)


def _quiet_worker() -> None:
    """A ``check --jobs`` worker leaves Ctrl-C to the parent, which stops it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})   # blocked by _pooled


def jobs_used(jobs: int, files: int) -> int:
    """Processes for ``--jobs N`` over ``files`` files: at most one per CPU core."""
    import os

    return max(1, min(jobs, files, os.cpu_count() or 1))


def _pooled(sources: list[str], args: argparse.Namespace, workers: int) -> list[Checked | None]:
    """``check_one`` of each source in ``workers`` processes; None where a worker died."""
    import signal
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    # Ctrl-C waits while the workers are forked (they inherit the block, and ignore it
    # before unblocking): a signal in the middle of a fork leaves neither half sane.
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    pool = ProcessPoolExecutor(workers, initializer=_quiet_worker)
    results: list[Checked | None] = []
    try:
        futures = [pool.submit(check_one, source, args.rounding, args.max_size, args.working,
                               args.precision, args.language) for source in sources]
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        for future in futures:
            try:
                results.append(future.result())
            except BrokenProcessPool:
                results.append(None)
    except BaseException:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()   # Ctrl-C: stop the workers at once, not after their files
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results


def _check_in_parallel(sources: list[str], args: argparse.Namespace) -> list[Checked]:
    """``check_one`` of each source in ``--jobs`` processes, in the order of the sources.

    A worker that dies takes down the pool and every file it held; those files are
    checked again, each in a process of its own, so that only the file that kills its
    process is reported as failed."""
    first = _pooled(sources, args, jobs_used(args.jobs, len(sources)))
    results: list[Checked] = []
    for source, result in zip(sources, first):
        if result is None:
            again = _pooled([source], args, 1)[0] if first.count(None) > 1 else None
            result = again if again is not None else _died(source)
        results.append(result)
    return results


def _check_in_turn(sources: list[str], args: argparse.Namespace) -> list[Checked]:
    """``check_one`` of each source, one after another, with progress on a terminal."""
    from symattn import progress

    results = []
    with progress.task(len(sources), "checking"):
        for source in sources:
            results.append(check_one(source, args.rounding, args.max_size, args.working,
                                     args.precision, args.language))
            progress.advance()
    return results


def run(args: argparse.Namespace) -> int:
    """The ``check`` command; returns the exit status."""
    from symattn.errors import InputError
    from symattn.values.rounding import parse_rounding
    from symattn.verify.verdicts import Failed

    sources = spec_sources(args)
    if not sources:
        raise InputError("check needs at least one spec: FILE ... or --example NAME")
    if args.format == "html" and args.summary:
        raise InputError("--summary writes text, markdown or json, not html")
    from symattn.cli.extract import is_document

    if getattr(args, "spec", None):   # check DOC --spec INPUTS.toml: symattn extract, then check
        from symattn.cli.extract import run_check_documents

        return run_check_documents(args, sources)

    if not getattr(args, "example", None) and all(is_document(s) for s in sources):
        from symattn.cli.extract import run_check_inferred   # check DOC: inputs inferred

        return run_check_inferred(args, sources)
    if args.rounding is not None:
        parse_rounding(args.rounding)
    failing = fail_on(args.fail_on)
    parallel = args.jobs > 1 and len(sources) > 1
    results = [one for result in (_check_in_parallel if parallel else _check_in_turn)(
        sources, args) for one in (result if isinstance(result, list) else [result])]
    reports = [r for r in results if not isinstance(r, Failed)]
    failed = [r for r in results if isinstance(r, Failed)]
    for failure in failed:
        print(failure.error, file=sys.stderr)
    if reports or (args.format == "json" and results):
        from symattn.collector import uncollected

        with uncollected():     # the reports' lines: many small objects, no cycles
            text = _rendered(results, args)
        write_output(text, args.output)
    if failed:
        return max(failure.status for failure in failed)
    return EXIT_WRONG if any(fails(r, failing) for r in reports) else EXIT_OK


def _rendered(results: list[Report | Failed], args: argparse.Namespace) -> str:
    """The reports in ``--format``, whole or (``--summary``) their counts only; in JSON
    a spec that failed is an entry of its own."""
    from symattn.render import report as render_report
    from symattn.verify.verdicts import Failed

    if args.format == "json" and args.summary:
        return render_report.compact_json(render_report.report_document(
            results, args.max_terms or None, claims=False))
    if args.format == "json":
        return render_report.report_json(results, args.max_terms or None)
    reports = [r for r in results if not isinstance(r, Failed)]
    if args.format == "html":       # the problems first (render/web)
        from symattn.render.web.report_html import report_page

        return report_page(reports, args.language, table_options(args))
    if args.summary:
        return summary_text(reports, args.language, markdown=args.format == "markdown")
    options = table_options(args)
    if any(report.written_language for report in reports):
        return "\n".join(line for report in reports
                         for line in _report_lines(report, args, options))
    if args.format == "markdown":
        return render_report.report_markdown(reports, args.language, options.problems_only,
                                             options.keys)
    return render_report.report_text(reports, args.language, options.problems_only,
                                     options.keys, options.width)


def _report_lines(report: Report, args: argparse.Namespace, options: TableOptions
                  ) -> list[str]:
    """One report's lines in text or Markdown; a spec in a language without a catalog
    ("pt") has a line under the summary saying the report is in English (or --language)."""
    import dataclasses

    from symattn.render import report as render_report

    mode = "markdown" if args.format == "markdown" else "plain"
    notes = render_report.report_writer(report, args.language, mode)
    below = [notes.convert(notes.catalog.fill("languages.missing_report",
                                              language=report.written_language))]
    if mode == "markdown":      # Markdown tables are not wrapped
        return render_report.report_markdown_lines(report, notes, below,
                                                   dataclasses.replace(options, width=None))
    return render_report.report_text_lines(report, notes, below, options)
