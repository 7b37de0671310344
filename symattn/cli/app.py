"""The ``symattn`` command: the parser, the commands and the exit codes.

Exit status: 0 success; 1 ``check`` found a wrong printed number; 2 unusable
input or environment (the message names file, key, row and column); 3 an
internal error (a bug: one line, the traceback with SYMATTN_DEBUG=1); 130
interrupted (Ctrl-C); 143 terminated (SIGTERM, handled like Ctrl-C: temporary
files and TeX runs are cleaned up). A closed stdout (``| head``) does not
change the status. Each command lives in its own module of ``symattn.cli``, whose
``register(subparsers)`` adds its parser and returns its handler. Heavy
modules are imported only inside the commands, so ``--help`` and
``--version`` start instantly.
"""

from __future__ import annotations

__all__ = ["main", "run", "build_parser", "EPILOG"]

import argparse
import os
import sys
from types import ModuleType
from typing import NoReturn, Sequence

from symattn._version import __version__
from symattn.cli.interleaved import CommandParser
from symattn.cli.options import (EPILOG, EXIT_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_OK,
                                 EXIT_TERMINATED, Handler, one_line)
from symattn.errors import SymattnError


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command; each command's parser has its ``handler`` as a default."""
    parser = argparse.ArgumentParser(
        prog="symattn", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Exact Transformer attention from matrices you write down: every step, "
                    "certified decimals, and checks of published hand calculations.")
    parser.add_argument("--version", action="version", version=f"symattn {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND",
                                     parser_class=CommandParser)
    for module in _command_modules():
        for name, handler in module.register(commands).items():
            commands.choices[name].set_defaults(handler=handler)
    return parser


def _command_modules() -> list[ModuleType]:
    """The command modules, in the order ``symattn --help`` lists their commands."""
    import symattn.cli.calculator as calculator
    import symattn.cli.check as check
    import symattn.cli.derive as derive
    import symattn.cli.examples as examples
    import symattn.cli.explore as explore
    import symattn.cli.extract as extract
    import symattn.cli.grade as grade
    import symattn.cli.kvcache as kvcache
    import symattn.cli.permute as permute
    import symattn.cli.render as render
    import symattn.cli.schema as schema
    import symattn.cli.serve as serve
    import symattn.cli.sizes as sizes
    import symattn.cli.worksheet as worksheet

    return [derive, check, extract, examples, sizes, explore, permute, kvcache, calculator,
            serve, worksheet, grade, render, schema]


def _located(error: SymattnError, args: argparse.Namespace) -> SymattnError:
    """A number that cannot be written out names the command's one spec file; a bundled
    example is named by its name, not by the folder it is installed in."""
    import dataclasses

    from symattn.cli.options import display_name
    from symattn.errors import Location
    from symattn.values.decimals import UndecidedError

    where = error.location
    if where is not None and where.file and display_name(where.file) != where.file:
        return type(error)(error.message, dataclasses.replace(where,
                                                              file=display_name(where.file)))
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


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the program is, so that it unwinds as Ctrl-C does."""


def _on_sigterm(number: int, frame: object) -> None:
    import os
    import signal

    if os.getpid() != _MAIN_PID[0]:     # a forked worker (check --jobs): die as asked
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
        return
    raise Terminated()


_MAIN_PID = [0]


def _handle_sigterm() -> object:
    """SIGTERM unwinds like Ctrl-C (cleanup), then exits with status 143; returns the
    handler it replaced (None outside the main thread, where none is set)."""
    import os
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    _MAIN_PID[0] = os.getpid()
    return signal.signal(signal.SIGTERM, _on_sigterm)


def _restore_sigterm(previous: object) -> None:
    import signal

    if previous is not None:
        signal.signal(signal.SIGTERM, previous)  # type: ignore[arg-type]  # signal's own


def _inputs(args: argparse.Namespace) -> list[str]:
    """The spec files (and the document) a command reads."""
    names: list[str] = []
    for key in ("files", "file", "spec", "document"):
        value = getattr(args, key, None)
        names += [value] if isinstance(value, str) else list(value or [])
    return names


def _run(handler: Handler, args: argparse.Namespace) -> int:
    """The command's exit status; errors as one line on stderr, with their exit status."""
    from symattn import progress
    from symattn.render import files

    try:
        files.check_not_input(getattr(args, "output", None), _inputs(args))
        with progress.enabled():
            return handler(args)
    except SymattnError as error:
        print(f"symattn: error: {one_line(str(_located(error, args)))}", file=sys.stderr)
        return EXIT_INPUT
    except Terminated:
        print("symattn: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("symattn: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:     # a write not through files.write_stdout; its status is lost
        files.stdout_closed()
        return EXIT_OK
    except Exception as error:  # a bug in symattn: one line, not a traceback
        import os

        if os.environ.get("SYMATTN_DEBUG"):
            raise
        print(f"symattn: internal error: {type(error).__name__}: {one_line(str(error))} (this "
              "is a bug in "
              "symattn; run again with SYMATTN_DEBUG=1 for the traceback and report it)",
              file=sys.stderr)
        return EXIT_INTERNAL


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    _one_blas_thread()
    previous = _handle_sigterm()
    try:
        return _main(argv)
    finally:
        _restore_sigterm(previous)


def run() -> NoReturn:
    """The ``symattn`` command (``python -m symattn`` and the installed script): ``main``,
    then exit with its status. An embedding program calls ``main`` instead."""
    raise SystemExit(main())


def _one_blas_thread() -> None:
    """One OpenBLAS thread (unless the user chose): symattn's float products are small,
    and idle helper threads spin between calls (a tenth of the CPU time of a
    1,024-token JSON). Only before numpy is loaded; an embedding program keeps its own."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def _main(argv: Sequence[str] | None) -> int:
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
    except Terminated:
        print("symattn: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    except KeyboardInterrupt:
        print("symattn: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except SymattnError as error:       # an option's value out of range (options.whole)
        print(f"symattn: error: {one_line(str(error))}", file=sys.stderr)
        return EXIT_INPUT
    if args.command is None:
        parser.print_help()
        return EXIT_INPUT
    handler: Handler = args.handler
    return _run(handler, args)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
