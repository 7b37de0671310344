"""What the commands share: source and number options, limits, output, exit codes.

Only argparse is imported at module level: every command's parser is built for
``symattn --help``.
"""

from __future__ import annotations

__all__ = ["EXIT_OK", "EXIT_WRONG", "EXIT_INPUT", "EXIT_INTERNAL", "EXIT_INTERRUPTED",
           "EXIT_TERMINATED", "EPILOG",
           "Subparsers", "Handler", "add_source", "add_limit_option", "add_number_options",
           "one_line", "spec_sources", "display_name", "number_format_of", "load_one",
           "limits_of", "write_output", "write_report", "add_language_options", "language_of",
           "PRECISION_CHOICES", "add_precision_option", "whole", "read_whole",
           "terminal_width", "add_table_options", "table_options", "REPORT_WIDTH"]

import argparse
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence, TypeAlias

if TYPE_CHECKING:
    from symattn.render.blocks import Block
    from symattn.render.report import TableOptions
    from symattn.problem.limits import Limits
    from symattn.problem.problem import Problem
    from symattn.values.number_format import NumberFormat

from symattn.defaults import DIGITS, MAX_DIGITS, MAX_ENTRIES, ROUNDING
from symattn.values.rules import Rounding

EXIT_OK, EXIT_WRONG, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_TERMINATED = 143      # 128 + SIGTERM, as a shell reports a process SIGTERM ended
_MESSAGE_LIMIT = 1000   # characters of one error line (a list of known keys fits)
_DEFAULT_ROUNDING = Rounding(ROUNDING)

# What ``add_subparsers`` returns: each command module's ``register`` adds its parser to it.
Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
# A command: the parsed arguments in, the exit status out.
Handler: TypeAlias = Callable[[argparse.Namespace], int]

_EXIT = """\
exit status: 0 ok, 1 a printed number is wrong (check), 2 unusable input or environment
(a bad spec or option, no TeX for --pdf), 3 internal error (a bug in symattn), 130 interrupted,
143 terminated (SIGTERM).
Spec format: docs/spec-format.md; every error message and its fix: docs/errors.md.
"""


def epilog(examples: str) -> str:
    """A command's help epilog: its own examples, then the exit statuses."""
    return "examples:\n" + examples.rstrip("\n") + "\n\n" + _EXIT


EPILOG = epilog("""\
  symattn examples                              list the bundled worked examples
  symattn derive --example 000-cat-chases-mouse every step, 6 significant digits
  symattn derive my.toml --digits 40            40 correct significant digits
  symattn derive my.toml --places 2 --format json
  symattn derive my.toml --format latex -o d.tex --pdf  worked example as LaTeX and PDF
  symattn check --example 001                   verdicts on a document's printed numbers
  symattn check chapter.md                      a document's worked examples, checked
""")


class _InOrder(argparse.Action):
    """Keeps FILEs and --example NAMEs in the order given (``source_order``)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                  values: object, option_string: str | None = None) -> None:
        order = list(getattr(namespace, "source_order", None) or [])
        if option_string is None:      # the FILE positional
            setattr(namespace, self.dest, values)
            given = values if isinstance(values, list) else [values] if values else []
            order += [("file", str(value)) for value in given]
        else:
            setattr(namespace, self.dest, [*(getattr(namespace, self.dest) or []), values])
            order.append(("example", str(values)))
        namespace.source_order = order


def add_source(parser: argparse.ArgumentParser, many: bool = False) -> None:
    """``FILE`` (``FILE ...`` when ``many``) and ``--example NAME`` (repeatable)."""
    parser.add_argument("files", nargs="*" if many else "?", metavar="FILE", action=_InOrder,
                        help="spec file(s), .toml or .json" if many
                        else "spec file, .toml or .json")
    parser.add_argument("--example", "-e", action=_InOrder, default=[], metavar="NAME",
                        help="use a bundled example (see `symattn examples`)")


def whole(least: int, most: int | None = None) -> type[argparse.Action]:
    """An argparse action: a whole number in ASCII digits from ``least`` to ``most``;
    anything else is an ``InputError`` naming the option (one line, status 2).

    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("--jobs", action=whole(1), default=1)
    >>> parser.parse_args(["--jobs", "4"]).jobs
    4
    >>> parser.parse_args(["--jobs", "0"])
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: --jobs must be at least 1 (a whole number), got '0'
    """
    class Whole(argparse.Action):
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                     values: object, option_string: str | None = None) -> None:
            setattr(namespace, self.dest, read_whole(str(values), option_string or self.dest,
                                                     least, most))
    return Whole


def read_whole(text: str, option: str, least: int, most: int | None = None) -> int:
    """``text`` as a whole number in ASCII digits from ``least`` to ``most``."""
    from symattn.errors import InputError

    cleaned = text.strip()
    body = cleaned[1:] if cleaned[:1] in "+-" else cleaned
    bounds = f"between {least} and {most}" if most is not None else f"at least {least}"
    if not (body.isascii() and body.isdigit()) or len(body) > 12 or \
            not least <= int(cleaned) <= (most if most is not None else int(cleaned)):
        raise InputError(f"{option} must be {bounds} (a whole number), got "
                         f"{one_line(text[:40])!r}")
    return int(cleaned)


def add_limit_option(parser: argparse.ArgumentParser) -> None:
    """``--max-size N``: the largest matrix a spec may have (``limits_of`` reads it)."""
    parser.add_argument("--max-size", action=whole(1), metavar="N",
                        help="largest number of entries in any matrix, scores included "
                             f"(default {MAX_ENTRIES:,} = 2048 x 2048)")


def add_number_options(parser: argparse.ArgumentParser) -> None:
    """``--digits`` or ``--places``, and ``--rounding`` (``number_format_of`` reads them)."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--digits", action=whole(1, MAX_DIGITS), metavar="N",
                       help="significant digits of every decimal (default: the spec's "
                            f"options.digits, else {DIGITS})")
    group.add_argument("--places", action=whole(-100, MAX_DIGITS), metavar="N",
                       help="fixed decimal places instead")
    parser.add_argument("--rounding", default=None,
                        help="half-up, half-even or truncate (default: the spec's "
                             f"options.rounding, else {ROUNDING})")


LANGUAGE_CHOICES = ("en", "pl", "cs", "ru", "uk")
REPORT_WIDTH = 120     # a text check report off a terminal is wrapped to this width
MIN_REPORT_WIDTH = 40  # narrower, a table of five columns has no room for words


def terminal_width(default: int) -> int:
    """The terminal's width when the output is one, else ``default``."""
    import shutil
    import sys

    try:
        terminal = sys.stdout is not None and sys.stdout.isatty()
    except ValueError:            # a closed stdout
        terminal = False
    return shutil.get_terminal_size((default, 24)).columns if terminal else default


def add_table_options(parser: argparse.ArgumentParser) -> None:
    """``--keys`` and ``--width``: how a check report's table is laid out."""
    parser.add_argument("--keys", action="store_true",
                        help="text and markdown: add a column with each number's claim key "
                             "(weights[3,2] @ line 75), as JSON, templates and [claims] "
                             "write it")
    parser.add_argument("--width", action=whole(0), default=None, metavar="N",
                        help="text: wrap the table to N characters, at least "
                             f"{MIN_REPORT_WIDTH} (default: the terminal's width, else "
                             f"{REPORT_WIDTH}; 0: never wrap)")


def table_options(args: argparse.Namespace) -> TableOptions:
    """The layout of a check report's table from ``--show``, ``--keys`` and ``--width``."""
    from symattn.render.report import TableOptions

    width = getattr(args, "width", None)
    width = width if width is not None else \
        REPORT_WIDTH if getattr(args, "output", None) else terminal_width(REPORT_WIDTH)
    return TableOptions(problems_only=getattr(args, "show", None) == "problems",
                        keys=getattr(args, "keys", False),
                        width=max(width, MIN_REPORT_WIDTH) if width else None)


def add_language_options(parser: argparse.ArgumentParser, locale: bool = True) -> None:
    """``--language L`` (the reader's language, and its decimal mark) and ``--locale``."""
    parser.add_argument("--language", "-l", choices=LANGUAGE_CHOICES, default=None,
                        help="the language of every word written: en, pl, cs, ru or uk "
                             "(default: the spec's language key, else en); it sets the "
                             "decimal mark too")
    if locale:
        parser.add_argument("--locale", choices=LANGUAGE_CHOICES, default=None,
                            help="decimal mark only, overriding --language: a point (en) or "
                                 "a comma (pl, cs, ru, uk)")


def language_of(args: argparse.Namespace, spec_language: str = "") -> str:
    """The reader's language: ``--language``, else the spec's ``language``, else English."""
    return getattr(args, "language", None) or spec_language or "en"


def one_line(message: str) -> str:
    """Error messages stay on one line, whatever a key or value contained: control
    characters (a terminal's escape sequences, newlines) are shown as escapes, and a
    message longer than a few lines is cut."""
    from symattn.errors import cut, visible

    return visible(cut(message, _MESSAGE_LIMIT))


def spec_sources(args: argparse.Namespace) -> list[str]:
    """The spec files a command was given: its FILE(s) and each --example's file, in the
    order of the command line."""
    from symattn.problem import examples

    order = getattr(args, "source_order", None)
    if order is not None:
        return [value if kind == "file" else str(examples.path(value)) for kind, value in order]
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
                     default_rounding: Rounding = _DEFAULT_ROUNDING,
                     language: str = "en") -> NumberFormat:
    """``--digits``, ``--places``, ``--rounding`` (and ``--locale``, else the decimal
    mark of ``language``), checked."""
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
                        locale=getattr(args, "locale", None) or language)


def load_one(args: argparse.Namespace, command: str) -> Problem:
    """The one spec a command works on (a FILE or --example NAME), read and validated."""
    from symattn.problem import spec
    from symattn.errors import InputError

    sources = spec_sources(args)
    if len(sources) != 1:
        raise InputError(f"{command} takes exactly one spec: a FILE or --example NAME")
    return spec.load(sources[0], limits=limits_of(args))


def limits_of(args: argparse.Namespace) -> Limits:
    """The limits ``--max-size`` sets (the defaults without it)."""
    from symattn.errors import InputError
    from symattn.problem.limits import DEFAULT, Limits

    size = getattr(args, "max_size", None)
    if size is None:
        return DEFAULT
    if size < 1:
        raise InputError(f"--max-size must be at least 1, got {size}")
    return Limits.scaled(size)


def write_output(text: str | Iterable[str], output: str | None) -> None:
    """``text`` to stdout (no ``-o``, or ``-o -``) or to the file ``output``, atomically;
    ``text`` in pieces goes to the file as it is made (``files.write_atomically``)."""
    from symattn.render.files import write_atomically, write_stdout

    if output is None or output == "-":
        write_stdout(text if isinstance(text, str) else "".join(text))
        return
    write_atomically(output, text)


def write_report(args: argparse.Namespace, stem: str,
                 layouts: Mapping[str, Callable[[], str]], language: str = "en",
                 blocks: Callable[[], Sequence[Block]] | None = None) -> None:
    """A report command's output: ``layouts[args.format]()`` written to stdout or ``-o``;
    LaTeX (``--format latex`` or ``--pdf``) written or compiled like ``derive``'s, the
    PDF named ``STEM.pdf`` unless ``-o`` names it; HTML the report's ``blocks`` (the
    data of its text layout) as a page in ``language``."""
    from symattn.errors import visible_lines
    from symattn.render.reports import shared

    if shared.wants_latex(args):
        shared.emit(args, layouts["latex"](), stem)
    elif args.format == "html":       # the report's blocks as a page (render/web/text_html.py)
        from symattn.render.web.text_html import blocks_page

        assert blocks is not None, "a report written as html has blocks"
        write_output(blocks_page(blocks(), language), args.output)
    else:
        text = layouts[args.format]()
        write_output(visible_lines(text) if args.format == "text" else text, args.output)


PRECISION_CHOICES = ("exact", "float64", "float32", "float16", "bfloat16")


def add_precision_option(parser: argparse.ArgumentParser) -> None:
    """``--precision``: the floating-point format a framework computed in (or exact)."""
    parser.add_argument("--precision", choices=PRECISION_CHOICES, default=None,
                        help="the format the numbers were computed in, as NumPy and PyTorch "
                             "do on the CPU (default: the spec's options.precision, else "
                             "exact); docs/checking.md, Framework precision")
