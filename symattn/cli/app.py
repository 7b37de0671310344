"""The ``symattn`` command: thin argument parsing, files and exit codes.

Exit status: 0 success; 1 ``check`` found a wrong printed number; 2 unusable
input or environment (the message names file, key, row and column); 3 an
internal error (a bug: one line, the traceback with SYMATTN_DEBUG=1); 130
interrupted. Heavy modules are imported only inside the commands, so
``--help`` and ``--version`` start instantly.
"""

from __future__ import annotations

__all__ = ["main"]

import argparse
import sys
from types import ModuleType
from typing import Sequence

from symattn._version import __version__
from symattn.defaults import MAX_TERMS, ROUNDING, ROWS_SHOWN

from symattn.cli.options import (EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK, EXIT_WRONG,
                                 add_limit_option, add_number_options, add_source, display_name,
                                 load_one, number_format_of, one_line, spec_sources, write_output)

EPILOG = """\
examples:
  symattn examples                              list the bundled worked examples
  symattn derive --example 000-cat-chases-mouse every step, 6 significant digits
  symattn derive my.toml --digits 40            40 correct significant digits
  symattn derive my.toml --places 2 --format json
  symattn derive my.toml --format latex -o d.tex --pdf  worked example as LaTeX and PDF
  symattn check --example 001                   verdicts on a document's printed numbers

exit status: 0 ok, 1 a printed number is wrong (check), 2 unusable input or environment
(a bad spec or option, no TeX for --pdf), 3 internal error (a bug in symattn), 130 interrupted.
Spec format: docs/spec-format.md; every error message and its fix: docs/errors.md.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="symattn", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Exact Transformer attention from matrices you write down: every step, "
                    "certified decimals, and checks of published hand calculations.")
    parser.add_argument("--version", action="version", version=f"symattn {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    derive = commands.add_parser("derive", help="show every step of the computation",
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=EPILOG)
    add_source(derive)
    add_number_options(derive)
    add_limit_option(derive)
    derive.add_argument("--format", "-f", choices=("text", "json", "latex", "markdown"),
                        default="text", help="text (default), json, latex (a worked example: "
                        "formula, numbers substituted, result) or markdown ($...$ math)")
    derive.add_argument("--max-rows", type=int, default=ROWS_SHOWN, metavar="N",
                        help="elide matrices larger than N rows/columns in text, latex and "
                             f"markdown (default {ROWS_SHOWN}; 0 shows all)")
    derive.add_argument("--max-terms", type=int, default=MAX_TERMS, metavar="N",
                        help="text and json: leave out closed forms of more than N "
                             "exponentials (a softmax over N keys; JSON null); "
                             f"default {MAX_TERMS}, "
                             "0 writes them all")
    derive.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")
    derive.add_argument("--locale", choices=("en", "pl", "cs", "ru", "uk"), default=None,
                        help="decimal separator: a point (en, default) or a comma "
                             "(pl, cs, ru, uk)")
    document = derive.add_argument_group("latex and markdown")
    document.add_argument("--pdf", action="store_true",
                          help="compile the LaTeX to a PDF (latexmk or pdflatex): -o OUT.pdf, or "
                               "-o OUT.tex for both files; default: the spec's name .pdf")
    document.add_argument("--fragment", action="store_true",
                          help="LaTeX to \\input into another document instead of a standalone one")
    document.add_argument("--template-dir", metavar="DIR",
                          help="templates in DIR override the bundled ones by name "
                               "(docs/templates.md; they run as trusted code)")
    document.add_argument("--detail", choices=("summary", "full"), default="full",
                          help="full (default): substitutions and expanded rows; summary: "
                               "formulas and results only")
    document.add_argument("--expand-rows", metavar="ROWS",
                          help="query rows to write out entry by entry, 1-based, e.g. 1,3 or "
                               "all (default: the last row, or all rows when there are <= 3)")

    check = commands.add_parser("check", help="judge the printed numbers ([claims]) of specs",
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=EPILOG)
    add_source(check, many=True)
    add_limit_option(check)
    check.add_argument("--format", "-f", choices=("text", "markdown", "json"), default="text")
    check.add_argument("--rounding", default=None,
                       help="rounding the document used: half-up, half-even or truncate "
                            f"(default: the spec's options.rounding, else {ROUNDING})")
    check.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                       help="check N files in parallel processes (output stays in input order)")
    check.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")

    commands.add_parser("examples", help="list the bundled examples")
    for module in _plugin_modules():
        COMMANDS.update(module.register(commands))
    return parser


def _plugin_modules() -> list[ModuleType]:
    """Commands that live in their own modules: each has register(subparsers), which
    adds its parser and returns {command name: handler(args) -> exit status}."""
    import symattn.cli.explore as explore
    import symattn.cli.kvcache as kvcache
    import symattn.cli.permute as permute
    import symattn.cli.sizes as sizes
    import symattn.cli.worksheet as worksheet

    return [sizes, explore, permute, kvcache, worksheet]


def _cmd_examples(args: argparse.Namespace) -> int:
    from symattn.problem import examples

    for name in examples.names():
        title, description = examples.describe(name)
        print(f"{name:32} {title}")
    return EXIT_OK


def _cmd_derive(args: argparse.Namespace) -> int:
    from symattn.derivation import pipeline
    from symattn.render import text as render_text
    from symattn.render import view
    from symattn.errors import InputError

    sources = spec_sources(args)
    problem = load_one(args, "derive")
    number_format = number_format_of(args, problem.digits, problem.rounding)
    document_options = args.pdf or args.fragment or args.template_dir is not None or \
        args.detail != "full" or args.expand_rows is not None
    if args.format in ("text", "json") and document_options and not args.pdf:
        raise InputError("--fragment, --template-dir, --detail and --expand-rows apply to "
                         "--format latex or markdown (or --pdf)")
    if args.max_terms < 0:
        raise InputError("--max-terms must be 0 (write every closed form) or more")
    derivation = pipeline.derive(problem)
    if args.pdf or args.format in ("latex", "markdown"):
        return _derive_document(args, derivation, number_format, sources[0])
    limit = None if args.format == "json" or args.max_rows == 0 else max(args.max_rows, 2)
    built = view.build_view(derivation, number_format, limit=limit,
                            max_terms=args.max_terms or None)
    text = render_text.render_json(built) if args.format == "json" \
        else render_text.render_text(built)
    write_output(text, args.output)
    return EXIT_OK


def _expand_rows(text: str | None) -> tuple[int, ...] | None:
    """``--expand-rows 1,3`` as labels; ``all`` as every row (an empty tuple)."""
    from symattn.errors import InputError

    if text is None:
        return None
    if text.strip().lower() == "all":
        return ()
    rows = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or int(part) < 1:
            raise InputError(f"--expand-rows: {part!r} is not a row number (1-based, e.g. 1,3)")
        rows.append(int(part))
    return tuple(rows)


def _derive_document(args: argparse.Namespace, derivation: object, number_format: object,
                     source: str) -> int:
    """``derive --format latex|markdown`` and ``--pdf``."""
    from pathlib import Path

    from symattn.render import worked
    from symattn.errors import InputError

    if args.pdf and args.format not in ("text", "latex"):
        raise InputError("--pdf compiles LaTeX; use it with --format latex (or alone)")
    if args.pdf and args.fragment:
        raise InputError("a --fragment cannot be compiled on its own; drop --fragment or --pdf")
    rows = _expand_rows(args.expand_rows)
    if rows == ():
        rows = tuple(worked.row_labels(derivation))  # type: ignore[arg-type]
    options = worked.Options(number_format=number_format,  # type: ignore[arg-type]
                             detail=args.detail, expand_rows=rows,
                             limit=None if args.max_rows == 0 else max(args.max_rows, 2))
    if args.format == "markdown":
        from symattn.api import render_markdown

        text = render_markdown(derivation, options,  # type: ignore[arg-type]
                               template_dir=args.template_dir)
        write_output(text, args.output)
        return EXIT_OK
    from symattn.api import render_latex

    tex = render_latex(derivation, options, fragment=args.fragment,  # type: ignore[arg-type]
                       template_dir=args.template_dir)
    if not args.pdf:
        write_output(tex, args.output)
        return EXIT_OK
    from symattn.render.files import write_atomically
    from symattn.render.pdf import compile_pdf

    pdf = compile_pdf(tex)
    output = args.output or f"{Path(source).stem}.pdf"
    if output == "-":
        sys.stdout.buffer.write(pdf)
        return EXIT_OK
    if output.lower().endswith(".tex"):
        write_atomically(output, tex)
        output = str(Path(output).with_suffix(".pdf"))
    write_atomically(output, pdf)
    print(f"symattn: wrote {output}", file=sys.stderr)
    return EXIT_OK


def check_one(source: str, rounding: str | None, max_size: int | None = None) -> object:
    """Report for one spec file, or the error message when it is unusable."""
    from symattn.derivation import pipeline
    from symattn.problem import spec
    from symattn.verify import checker
    from symattn.errors import SymattnError

    import dataclasses

    try:
        from symattn import sizes   # a [sizes] spec: docs/sizes.md
        mapping = sizes.read_spec(source)
        if mapping is not None and sizes.is_sizes_spec(mapping):
            report = sizes.check_spec(mapping, source, rounding)
            return dataclasses.replace(report, source=display_name(source))
        from symattn.problem.limits import DEFAULT, Limits

        limits = DEFAULT if max_size is None else Limits.scaled(max_size)
        report = checker.check(pipeline.derive(spec.load(source, limits=limits)), rounding)
        return dataclasses.replace(report, source=display_name(source))
    except SymattnError as error:
        return f"symattn: error: {one_line(str(error))}"


def _quiet_worker() -> None:
    """A ``check --jobs`` worker leaves Ctrl-C to the parent, which stops it."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _cmd_check(args: argparse.Namespace) -> int:
    from symattn.render import report as render_report
    from symattn.errors import InputError
    from symattn.values.rounding import parse_rounding

    sources = spec_sources(args)
    if not sources:
        raise InputError("check needs at least one spec: FILE ... or --example NAME")
    if args.rounding is not None:
        parse_rounding(args.rounding)
    if args.jobs > 1 and len(sources) > 1:
        import multiprocessing

        # Workers ignore Ctrl-C (no tracebacks from idle workers); the parent
        # gets it and terminates them at once - what Pool.terminate is for.
        pool = multiprocessing.Pool(min(args.jobs, len(sources)), initializer=_quiet_worker)
        try:
            results = pool.starmap(check_one, [(source, args.rounding, args.max_size)
                                               for source in sources])
            pool.close()
        except BaseException:
            pool.terminate()
            raise
        finally:
            pool.join()
    else:
        from symattn import progress

        results = []
        with progress.task(len(sources), "checking"):
            for source in sources:
                results.append(check_one(source, args.rounding, args.max_size))
                progress.advance()
    reports = [r for r in results if not isinstance(r, str)]
    for message in (r for r in results if isinstance(r, str)):
        print(message, file=sys.stderr)
    layout = {"text": render_report.report_text, "markdown": render_report.report_markdown,
              "json": render_report.report_json}[args.format]
    if reports:
        write_output(layout(reports), args.output)
    if len(reports) < len(results):
        return EXIT_INPUT
    return EXIT_WRONG if any(r.has_wrong for r in reports) else EXIT_OK


COMMANDS = {"derive": _cmd_derive, "check": _cmd_check, "examples": _cmd_examples}


def _located(error: Exception, args: argparse.Namespace) -> Exception:
    """A number that cannot be written out names the command's one spec file."""
    from symattn.errors import Location
    from symattn.values.decimals import UndecidedError

    if not isinstance(error, UndecidedError) or error.location is not None:
        return error
    names = []       # FILE (files for derive and check, file for the other commands) ...
    for value in (getattr(args, "files", None), getattr(args, "file", None)):
        names += [value] if isinstance(value, str) else list(value or [])
    for value in (getattr(args, "example", None),):   # ... or --example NAME
        names += [f"example {v}" for v in ([value] if isinstance(value, str) else value or [])]
    if len(names) != 1:
        return error
    return type(error)(error.message, Location(file=names[0]))


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        print("symattn: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.command is None:
        parser.print_help()
        return EXIT_INPUT
    from symattn.errors import SymattnError

    from symattn import progress

    try:
        with progress.enabled():
            return COMMANDS[args.command](args)
    except SymattnError as error:
        print(f"symattn: error: {one_line(str(_located(error, args)))}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("symattn: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except Exception as error:  # a bug in symattn: one line, not a traceback
        import os

        if os.environ.get("SYMATTN_DEBUG"):
            raise
        print(f"symattn: internal error: {type(error).__name__}: {error} (this is a bug in "
              "symattn; run again with SYMATTN_DEBUG=1 for the traceback and report it)",
              file=sys.stderr)
        return EXIT_INTERNAL


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
