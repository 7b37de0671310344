"""``symattn render``: fill a document template with proved numbers (author mode).

A command module of ``symattn.cli.app``: ``register(subparsers)`` adds the
parser and returns the handler. Only argparse is imported at module level.
See docs/author.md.

>>> import argparse
>>> commands = argparse.ArgumentParser(prog="symattn").add_subparsers(dest="command")
>>> sorted(register(commands))
['render']
"""

from __future__ import annotations

__all__ = ["register", "run"]

import argparse
from typing import TYPE_CHECKING

from symattn.cli.options import (EXIT_OK, epilog, Handler, Subparsers, add_language_options,
                                 add_limit_option, limits_of, whole, write_output)

if TYPE_CHECKING:
    from symattn.render.author import TemplateLimits

_EXAMPLES = """\
  symattn render chapter.md.j2 --spec cat.toml -o chapter.md
  symattn render chapter.tex.j2 --example 000-cat-chases-mouse -o chapter.tex
In the template (Markdown: {{ ... }}; LaTeX: \\VAR{...} and \\BLOCK{...}), positions 1-based:
  {{ weights[3,2] | places(3) }}   {{ matrix("weights", places=2) }}
  {{ steps("scores", "weights") }}   {{ softmax_table(3) }}   {{ verdict_free_derivation() }}

"""


def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``render``; return its handler."""
    parser = subparsers.add_parser(
        "render", help="fill a Markdown or LaTeX template with proved numbers of a spec",
        description="Fill a document template (Jinja, run in a sandbox: it reads no file and "
                    "runs nothing) with the proved numbers and worked pieces of a spec, so "
                    "no number is typed by hand and `symattn check` confirms each one.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=epilog(_EXAMPLES))
    parser.add_argument("document", metavar="DOC",
                        help="the template: NAME.md.j2 (Markdown) or NAME.tex.j2 (LaTeX)")
    parser.add_argument("--spec", "-s", metavar="SPEC", help="the spec (.toml or .json)")
    parser.add_argument("--example", "-e", metavar="NAME",
                        help="use a bundled example as the spec")
    parser.add_argument("--kind", choices=("latex", "markdown"), default=None,
                        help="the template's kind (default: from its name)")
    parser.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")
    add_limit_option(parser)
    _add_template_limits(parser)
    add_language_options(parser, locale=False)
    return {"render": run}


def _add_template_limits(parser: argparse.ArgumentParser) -> None:
    """The ``--template-max-*`` options: how much the template may compute."""
    from symattn import defaults

    group = parser.add_argument_group("template limits (docs/author.md, Limits)")
    for option, default, what in (
            ("--template-max-digits", defaults.TEMPLATE_MAX_DIGITS,
             "most digits of an integer the template makes"),
            ("--template-max-length", defaults.TEMPLATE_MAX_LENGTH,
             "longest string or list the template makes, and largest repetition count"),
            ("--template-max-iterations", defaults.TEMPLATE_MAX_ITERATIONS,
             "most loop iterations and calls, all loops together"),
            ("--template-max-output", defaults.TEMPLATE_MAX_OUTPUT,
             "most characters the template prints"),
            ("--template-max-seconds", int(defaults.TEMPLATE_MAX_SECONDS),
             "most seconds the render takes")):
        group.add_argument(option, action=whole(1), metavar="N", default=default,
                           help=f"{what} (default {default:,})")


def template_limits(args: argparse.Namespace) -> TemplateLimits:
    """The ``TemplateLimits`` of the ``--template-max-*`` options."""
    from symattn.render.author import TemplateLimits

    return TemplateLimits(max_digits=args.template_max_digits,
                          max_length=args.template_max_length,
                          max_iterations=args.template_max_iterations,
                          max_output=args.template_max_output,
                          max_seconds=args.template_max_seconds)


def run(args: argparse.Namespace) -> int:
    """The ``render`` command; returns the exit status."""
    from symattn.derivation import pipeline
    from symattn.errors import InputError, Location
    from symattn.problem import examples, spec
    from symattn.render import author

    if (args.spec is None) == (args.example is None):
        raise InputError("render needs one spec: --spec FILE or --example NAME")
    kind = args.kind or author.kind_of(args.document)
    if kind is None:
        raise InputError("cannot tell the document's kind from its name; name it .md.j2 or "
                         ".tex.j2, or give --kind latex|markdown", Location(file=args.document))
    source = str(examples.path(args.example)) if args.example else args.spec
    problem = spec.load(source, limits=limits_of(args))
    text = spec.read_file(args.document)      # read once: a pipe works
    filled = author.fill(text, pipeline.derive(problem), kind, args.language,
                         name=args.document, limits=template_limits(args))
    write_output(filled, args.output)
    return EXIT_OK
