"""``symattn examples``: the bundled worked examples, one a line with its kind and title.

The kind says which command an example is for: ``derive`` (inputs only), ``check``
(inputs and printed numbers; ``derive`` works too) or ``sizes`` (a size exercise, for
``symattn sizes`` and ``check``).

A command module of ``symattn.cli.app``: ``register(subparsers)`` adds the
parser and returns the handler.

>>> import argparse
>>> commands = argparse.ArgumentParser(prog="symattn").add_subparsers(dest="command")
>>> sorted(register(commands))
['examples']
"""

from __future__ import annotations

__all__ = ["register", "run"]

import argparse

from symattn.cli.options import EXIT_OK, Handler, Subparsers, epilog


def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``examples``; return its handler."""
    subparsers.add_parser("examples", help="list the bundled examples",
                          description="List the bundled examples: name, kind (derive, check "
                                      "or sizes) and title.",
                          formatter_class=argparse.RawDescriptionHelpFormatter,
                          epilog=epilog("""\
  symattn examples                              every bundled example with its kind and title
"""))
    return {"examples": run}


def run(args: argparse.Namespace) -> int:
    """The ``examples`` command: each example's name, kind and title."""
    from symattn.problem import examples

    for name in examples.names():
        title, _ = examples.describe(name)
        print(f"{name:32} {examples.kind(name):6} {title}")
    return EXIT_OK
