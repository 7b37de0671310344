"""The ``symattn`` command: thin argument parsing, files and exit codes.

Exit status: 0 success; 1 ``check`` found a wrong printed number; 2 unusable
input or environment (the message names file, key, row and column); 130
interrupted. Heavy modules are imported only inside the commands, so
``--help`` and ``--version`` start instantly.
"""

from __future__ import annotations

__all__ = ["main"]

import argparse
import sys
from typing import Sequence

from symattn._version import __version__

EXIT_OK, EXIT_WRONG, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130

EPILOG = """\
examples:
  symattn examples                              list the bundled worked examples
  symattn derive --example 000-cat-chases-mouse every step, 6 significant digits
  symattn derive my.toml --digits 40            40 correct significant digits
  symattn derive my.toml --places 2 --format json
  symattn check --example 001                   verdicts on a document's printed numbers

exit status: 0 ok, 1 a printed number is wrong (check), 2 unusable input, 130 interrupted.
Spec format: docs/spec-format.md.
"""


def _add_source(parser: argparse.ArgumentParser, many: bool = False) -> None:
    parser.add_argument("files", nargs="*" if many else "?", metavar="FILE",
                        help="spec file(s), .toml or .json" if many else "spec file, .toml or .json")
    parser.add_argument("--example", "-e", action="append", default=[], metavar="NAME",
                        help="use a bundled example (see `symattn examples`)")


def _add_number_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--digits", type=int, metavar="N",
                       help="significant digits of every decimal (default 6)")
    group.add_argument("--places", type=int, metavar="N", help="fixed decimal places instead")
    parser.add_argument("--rounding", default="half-up",
                        help="half-up (default), half-even or truncate")


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
    _add_source(derive)
    _add_number_options(derive)
    derive.add_argument("--format", "-f", choices=("text", "json"), default="text")
    derive.add_argument("--max-rows", type=int, default=8, metavar="N",
                        help="elide matrices larger than N rows/columns in text (default 8; "
                             "0 shows all)")
    derive.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")

    check = commands.add_parser("check", help="judge the printed numbers ([claims]) of specs",
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=EPILOG)
    _add_source(check, many=True)
    check.add_argument("--format", "-f", choices=("text", "markdown", "json"), default="text")
    check.add_argument("--rounding", default=None,
                       help="rounding the document used: half-up, half-even or truncate "
                            "(default: the spec's options.rounding, else half-up)")
    check.add_argument("--jobs", "-j", type=int, default=1, metavar="N",
                       help="check N files in parallel processes (output stays in input order)")
    check.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")

    commands.add_parser("examples", help="list the bundled examples")
    for module in _plugin_modules():
        COMMANDS.update(module.register(commands))
    return parser


# Commands that live in their own modules: each has register(subparsers), which
# adds its parser and returns {command name: handler(args) -> exit status}.
PLUGINS: tuple[str, ...] = ()


def _plugin_modules() -> list:  # type: ignore[type-arg]
    from importlib import import_module

    return [import_module(name) for name in PLUGINS]


def _sources(args: argparse.Namespace) -> list[str]:
    from symattn import examples

    files = args.files if isinstance(args.files, list) else ([args.files] if args.files else [])
    return list(files) + [str(examples.path(name)) for name in args.example]


def _display_name(source: str) -> str:
    """How a report names its spec: the example's name, or the path as given."""
    from pathlib import Path

    from symattn import examples

    path = Path(source)
    if path.parent == examples.path(examples.names()[0]).parent:
        return f"example {path.stem}"
    return source


def _number_format(args: argparse.Namespace, default_digits: int = 6):  # type: ignore[no-untyped-def]
    from symattn.errors import InputError
    from symattn.formatting import NumberFormat
    from symattn.rounding import parse_rounding

    if args.digits is not None and not 1 <= args.digits <= 10_000:
        raise InputError(f"--digits must be between 1 and 10000, got {args.digits}")
    if args.places is not None and not -100 <= args.places <= 10_000:
        raise InputError(f"--places must be between -100 and 10000, got {args.places}")
    return NumberFormat(digits=args.digits if args.digits is not None else default_digits,
                        places=args.places, rounding=parse_rounding(args.rounding))


def _write(text: str, output: str | None) -> None:
    if output is None or output == "-":
        sys.stdout.write(text)
        return
    from symattn.files import write_atomically

    write_atomically(output, text)


def _cmd_examples(args: argparse.Namespace) -> int:
    from symattn import examples

    for name in examples.names():
        title, description = examples.describe(name)
        print(f"{name:32} {title}")
    return EXIT_OK


def _cmd_derive(args: argparse.Namespace) -> int:
    from symattn import engine, render_text, spec, view
    from symattn.errors import InputError

    sources = _sources(args)
    if len(sources) != 1:
        raise InputError("derive takes exactly one spec: a FILE or --example NAME")
    number_format = _number_format(args)
    derivation = engine.derive(spec.load(sources[0]))
    limit = None if args.format == "json" or args.max_rows == 0 else max(args.max_rows, 2)
    built = view.build_view(derivation, number_format, limit=limit)
    text = render_text.render_json(built) if args.format == "json" \
        else render_text.render_text(built)
    _write(text, args.output)
    return EXIT_OK


def check_one(source: str, rounding: str | None) -> object:
    """Report for one spec file, or the error message when it is unusable."""
    from symattn import engine, spec, verify
    from symattn.errors import SymattnError

    import dataclasses

    try:
        report = verify.check(engine.derive(spec.load(source)), rounding)
        return dataclasses.replace(report, source=_display_name(source))
    except SymattnError as error:
        return f"symattn: error: {error}"


def _cmd_check(args: argparse.Namespace) -> int:
    from symattn import render_report
    from symattn.errors import InputError
    from symattn.rounding import parse_rounding

    sources = _sources(args)
    if not sources:
        raise InputError("check needs at least one spec: FILE ... or --example NAME")
    if args.rounding is not None:
        parse_rounding(args.rounding)
    if args.jobs > 1 and len(sources) > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=args.jobs) as pool:
            results = list(pool.map(check_one, sources, [args.rounding] * len(sources)))
    else:
        from symattn import progress

        results = []
        with progress.task(len(sources), "checking"):
            for source in sources:
                results.append(check_one(source, args.rounding))
                progress.advance()
    reports = [r for r in results if not isinstance(r, str)]
    for message in (r for r in results if isinstance(r, str)):
        print(message, file=sys.stderr)
    layout = {"text": render_report.report_text, "markdown": render_report.report_markdown,
              "json": render_report.report_json}[args.format]
    if reports:
        _write(layout(reports), args.output)
    if len(reports) < len(results):
        return EXIT_INPUT
    return EXIT_WRONG if any(r.has_wrong for r in reports) else EXIT_OK


COMMANDS = {"derive": _cmd_derive, "check": _cmd_check, "examples": _cmd_examples}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_INPUT
    from symattn.errors import SymattnError

    from symattn import progress

    try:
        with progress.enabled():
            return COMMANDS[args.command](args)
    except SymattnError as error:
        print(f"symattn: error: {error}", file=sys.stderr)
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
