"""What the commands share: source and number options, limits, output, exit codes."""

from __future__ import annotations

import argparse
import sys

from symattn.defaults import DIGITS, MAX_DIGITS, MAX_ENTRIES, ROUNDING
from symattn.values.rules import Rounding

EXIT_OK, EXIT_WRONG, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
_DEFAULT_ROUNDING = Rounding(ROUNDING)


def add_source(parser: argparse.ArgumentParser, many: bool = False) -> None:
    parser.add_argument("files", nargs="*" if many else "?", metavar="FILE",
                        help="spec file(s), .toml or .json" if many else "spec file, .toml or .json")
    parser.add_argument("--example", "-e", action="append", default=[], metavar="NAME",
                        help="use a bundled example (see `symattn examples`)")


def add_limit_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-size", type=int, metavar="N",
                        help="largest number of entries in any matrix, scores included "
                             f"(default {MAX_ENTRIES:,} = 2048 x 2048)")


def add_number_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--digits", type=int, metavar="N",
                       help="significant digits of every decimal (default: the spec's "
                            f"options.digits, else {DIGITS})")
    group.add_argument("--places", type=int, metavar="N", help="fixed decimal places instead")
    parser.add_argument("--rounding", default=None,
                        help="half-up, half-even or truncate (default: the spec's "
                             f"options.rounding, else {ROUNDING})")


def one_line(message: str) -> str:
    """Error messages stay on one line, whatever a key or value contained."""
    return message.replace("\r", "\\r").replace("\n", "\\n")


def spec_sources(args: argparse.Namespace) -> list[str]:
    from symattn.problem import examples

    files = args.files if isinstance(args.files, list) else ([args.files] if args.files else [])
    return list(files) + [str(examples.path(name)) for name in args.example]


def display_name(source: str) -> str:
    """How a report names its spec: the example's name, or the path as given."""
    from pathlib import Path

    from symattn.problem import examples

    path = Path(source)
    if path.parent == examples.path(examples.names()[0]).parent:
        return f"example {path.stem}"
    return source


def number_format_of(args: argparse.Namespace, default_digits: int = DIGITS,
                   default_rounding: Rounding = _DEFAULT_ROUNDING):
    from symattn.errors import InputError
    from symattn.values.number_format import NumberFormat
    from symattn.values.rounding import parse_rounding

    if args.digits is not None and not 1 <= args.digits <= MAX_DIGITS:
        raise InputError(f"--digits must be between 1 and {MAX_DIGITS}, got {args.digits}")
    if args.places is not None and not -100 <= args.places <= MAX_DIGITS:
        raise InputError(f"--places must be between -100 and {MAX_DIGITS}, got {args.places}")
    return NumberFormat(digits=args.digits if args.digits is not None else default_digits,
                        places=args.places,
                        rounding=parse_rounding(args.rounding) if args.rounding
                        else default_rounding,
                        locale=getattr(args, "locale", None) or "en")


def load_one(args: argparse.Namespace, command: str):
    """The one spec a command works on (a FILE or --example NAME), read and validated."""
    from symattn.problem import spec
    from symattn.errors import InputError

    sources = spec_sources(args)
    if len(sources) != 1:
        raise InputError(f"{command} takes exactly one spec: a FILE or --example NAME")
    return spec.load(sources[0], limits=limits_of(args))


def limits_of(args: argparse.Namespace):
    from symattn.errors import InputError
    from symattn.problem.limits import DEFAULT, Limits

    size = getattr(args, "max_size", None)
    if size is None:
        return DEFAULT
    if size < 1:
        raise InputError(f"--max-size must be at least 1, got {size}")
    return Limits.scaled(size)


def write_output(text: str, output: str | None) -> None:
    if output is None or output == "-":
        sys.stdout.write(text)
        return
    from symattn.render.files import write_atomically

    write_atomically(output, text)
