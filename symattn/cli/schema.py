"""``symattn schema NAME``: print a JSON Schema of symattn's JSON documents.

The schemas ship inside the package (``symattn/schemas/*.json``): ``derive``,
``check``, ``sizes``, ``answers`` (a worksheet class set's
``worksheet-answers.json``), ``report`` (the envelope of ``sweep``,
``whatif``, ``permute`` and ``kvcache``) and ``grade`` (``symattn grade --format
json``). Each document carries ``"schema_version": "1"``; docs/ci.md shows how
to validate against them.

>>> import argparse
>>> commands = argparse.ArgumentParser(prog="symattn").add_subparsers(dest="command")
>>> sorted(register(commands))
['schema']
>>> '"$schema"' in schema_text("check")
True
"""

from __future__ import annotations

__all__ = ["register", "run", "SCHEMAS", "schema_text"]

import argparse

from symattn.cli.options import EXIT_OK, Handler, Subparsers, epilog, write_output

SCHEMAS = ("derive", "check", "sizes", "answers", "report", "grade")


def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``schema``; return its handler."""
    parser = subparsers.add_parser("schema", help="print the JSON Schema of a JSON output",
                                   description="Print the JSON Schema (draft 2020-12) of "
                                   "one of symattn's JSON documents.",
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   epilog=epilog("""\
  symattn schema check -o check.schema.json     the schema of check --format json
  symattn schema derive                         the schema of derive --format json
"""))
    parser.add_argument("name", choices=SCHEMAS,
                        help="derive, check, sizes, answers (worksheet-answers.json), "
                             "report (sweep, whatif, permute, kvcache) or grade")
    parser.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")
    return {"schema": run}


def schema_text(name: str) -> str:
    """The shipped schema ``name`` as text."""
    from importlib import resources

    return (resources.files("symattn") / "schemas" / f"{name}.json").read_text("utf-8")


def run(args: argparse.Namespace) -> int:
    """The ``schema`` command: the schema, as shipped."""
    write_output(schema_text(args.name), args.output)
    return EXIT_OK
