"""``symattn serve [SPEC]``: "calculate for your own task" on a local web page.

A page on 127.0.0.1 only, served by the standard library's
``ThreadingHTTPServer`` (no web framework: one form and one page need none, and
symattn gains no dependency). ``GET /`` shows the form with the spec; ``POST /``
recomputes the submitted spec exactly (``cli.recompute``) within bounds: the
request body's size, every matrix's entries, the seconds of work. Nothing is
written unless ``--folder`` names where.
"""

from __future__ import annotations

__all__ = ["register", "make_server"]

import argparse
from typing import TYPE_CHECKING

from symattn.defaults import SERVE_ENTRIES, SERVE_SECONDS
from symattn.cli.options import (EXIT_OK, Handler, Subparsers, add_language_options, add_source,
                                 epilog, language_of, spec_sources, whole)

if TYPE_CHECKING:
    from http.server import ThreadingHTTPServer

EPILOG = epilog("""\
  symattn serve --example 003-calculator-six-tokens      then open the URL it prints
  symattn serve my.toml --port 8765 --language pl
  symattn serve --port 0 --folder lesson/               any free port; keep the last spec

The page is on 127.0.0.1 only. Each recomputation is bounded (a form of 64 kB,
matrices of --max-entries entries, --seconds of work).
""")


def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``serve``; return its handler."""
    parser = subparsers.add_parser(
        "serve", help="a local page where you edit a spec and see it recomputed",
        description="Serve a page on 127.0.0.1 where one edits the spec (matrices and "
                    "options) in a form and sees the calculator, the derivation and the "
                    "verdicts recomputed exactly.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    add_source(parser)
    parser.add_argument("--port", action=whole(0, 65535), default=8000, metavar="N",
                        help="the port (default 8000; 0 picks any free port)")
    parser.add_argument("--folder", metavar="DIR",
                        help="write the last spec and its calculator page into DIR "
                             "(default: nothing is written)")
    parser.add_argument("--max-entries", action=whole(1, 4096), default=SERVE_ENTRIES,
                        metavar="N", help=f"largest matrix a form may give (default "
                                          f"{SERVE_ENTRIES} entries)")
    parser.add_argument("--seconds", action=whole(1, 3600), default=SERVE_SECONDS, metavar="N",
                        help=f"seconds one recomputation may take (default {SERVE_SECONDS})")
    add_language_options(parser, locale=False)
    return {"serve": run}


def _initial_spec(args: argparse.Namespace) -> tuple[str, str]:
    """The spec text the form starts with, and its language."""
    from symattn.errors import InputError
    from symattn.problem import examples, spec

    sources = spec_sources(args)
    if len(sources) > 1:
        raise InputError("serve takes at most one spec: a FILE or --example NAME")
    path = sources[0] if sources else str(examples.path("003-calculator-six-tokens"))
    if not path.endswith(".toml"):
        raise InputError(f"serve edits TOML specs: {path!r} is not a .toml file")
    text = spec.read_file(path)
    problem = spec.loads(text, path, kind="toml")
    return text, language_of(args, problem.language)


def _folder(value: str | None) -> str | None:
    from pathlib import Path

    from symattn.errors import InputError

    if value is None:
        return None
    folder = Path(value)
    if not folder.is_dir():
        raise InputError(f"--folder: {value!r} is not a folder (create it first)")
    return str(folder.resolve())


def make_server(args: argparse.Namespace) -> ThreadingHTTPServer:
    """The server on 127.0.0.1 (not yet serving), set up from the parsed arguments."""
    from symattn.cli.server import Settings, server

    text, language = _initial_spec(args)
    return server(args.port, Settings(text, language, args.max_entries, args.seconds,
                                      _folder(args.folder)))


def run(args: argparse.Namespace) -> int:
    """The ``serve`` command: serve until Ctrl-C."""
    httpd = make_server(args)
    host, port = httpd.server_address[:2]
    print(f"symattn serve: http://{host!s}:{port}/  (Ctrl-C stops)", flush=True)
    try:
        httpd.serve_forever()
    finally:
        httpd.server_close()
    return EXIT_OK
