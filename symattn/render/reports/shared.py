"""LaTeX (and PDF) output of ``sizes``, ``sweep``, ``whatif``, ``permute`` and ``kvcache``.

Each command builds a mapping of finished strings from the numbers its text
output prints (formatted by the same code), with every piece of user text
escaped by ``latex.escape_text``; a template ``templates/report_NAME.tex.j2``
lays it out, with the preamble and macros of ``_macros.tex.j2`` (the same as
``symattn derive --format latex``). This module holds what the five share:
the options ``--fragment`` and ``--pdf``, turning formatted decimals into
mathematics, rendering, and writing the ``.tex`` or compiling the PDF exactly
as ``derive --pdf`` does; and for the text and JSON layouts, the heading, the
decimals of exact values and the JSON document. Only argparse is imported at
module level: the commands' parsers use this module for ``symattn --help``.

>>> number("0,25"), number("-inf"), number("sqrt(2)/2")
('0{,}25', '-\\\\infty', '\\\\text{sqrt(2)/2}')
>>> vector(["1.00000", "0"])
'\\\\bigl[1.00000,\\\\ 0\\\\bigr]'
>>> heading("KV cache", "")
['KV cache', '========']
"""

from __future__ import annotations

__all__ = ["add_report_options", "add_document_options", "check_document_options", "wants_latex",
           "TemplateValue", "text", "number", "vector", "matrix", "render", "emit", "spec_stem",
           "heading", "decimal", "decimal_cells", "json_report"]

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping, Sequence, Union

if TYPE_CHECKING:
    from symattn.messages import Catalog
    from symattn.values.exact import Exact
    from symattn.values.number_format import NumberFormat

# What a report template receives: strings (already LaTeX), flags, and lists
# and mappings of them.
TemplateValue = Union[str, bool, Sequence["TemplateValue"], Mapping[str, "TemplateValue"]]


FRAGMENT_NOTE = "a symattn {command} report (fragment)"


def add_report_options(parser: argparse.ArgumentParser) -> None:
    """``--format text|json|latex``, ``--output`` and the LaTeX options of a report command."""
    parser.add_argument("--format", "-f", choices=("text", "json", "latex", "html"),
                        default="text", help="text (default), JSON, LaTeX (with --pdf, "
                        "compiled), or html (the text report as one self-contained page)")
    parser.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")
    add_document_options(parser)


def add_document_options(parser: argparse.ArgumentParser) -> None:
    """``--pdf`` and ``--fragment`` (the command adds ``latex`` to its ``--format``)."""
    group = parser.add_argument_group("latex")
    group.add_argument("--pdf", action="store_true",
                       help="compile the LaTeX to a PDF (latexmk and --engine): -o OUT.pdf, or "
                            "-o OUT.tex for both files; default: NAME-COMMAND.pdf")
    group.add_argument("--fragment", action="store_true",
                       help="LaTeX to \\input into another document instead of a standalone one")
    add_engine_option(group)


def add_engine_option(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """``--engine {auto,pdflatex,lualatex,xelatex}`` for the commands that write LaTeX."""
    from symattn.render import engines

    parser.add_argument("--engine", choices=(engines.AUTO, *engines.ENGINES),
                        default=engines.AUTO, help=engines.ENGINE_HELP)


def check_document_options(args: argparse.Namespace,
                           fragment_formats: Sequence[str] = ("latex",)) -> None:
    """The errors ``derive`` gives for the same combinations (InputError, exit 2).

    ``--fragment`` is accepted with the formats ``fragment_formats``.
    """
    from symattn.errors import InputError

    if args.pdf and args.format not in ("text", "latex"):
        raise InputError("--pdf compiles LaTeX; use it with --format latex (or alone)")
    if args.pdf and args.fragment:
        raise InputError("a --fragment cannot be compiled on its own; drop --fragment or --pdf")
    if args.fragment and args.format not in fragment_formats:
        raise InputError("--fragment applies to --format latex")


def wants_latex(args: argparse.Namespace) -> bool:
    return bool(args.pdf) or args.format == "latex"


# ------------------------------------------------------------------ strings
def text(value: object) -> str:
    """User or report text as LaTeX that prints literally (``->`` and ``=>`` as arrows)."""
    from symattn.render import latex   # not at import: --help and --version build these parsers

    escaped = latex.escape_text(str(value))
    return escaped.replace("-\\textgreater{}", "$\\to$").replace("=\\textgreater{}",
                                                                 "$\\Rightarrow$")


def number(formatted: str) -> str:
    """A decimal as ``NumberFormat`` printed it, as mathematics; anything else
    (an exact form of a symbolic value, ``(symbolic)``) as escaped text."""
    from symattn.render import latex

    try:
        return latex.math_decimal(formatted)
    except ValueError:
        return f"\\text{{{latex.escape_text(formatted)}}}"


def vector(cells: Iterable[str]) -> str:
    """A row of formatted decimals as inline mathematics: ``[a, b]``."""
    return "\\bigl[" + ",\\ ".join(number(c) for c in cells) + "\\bigr]"


def matrix(rows: Sequence[Sequence[str]]) -> str:
    """Formatted decimals as a ``bmatrix`` (mathematics)."""
    body = " \\\\ ".join(" & ".join(number(c) for c in row) for row in rows)
    return f"\\begin{{bmatrix}}{body}\\end{{bmatrix}}"


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            # doc.keys would print the method: templates could not reach such a key
            if hasattr(dict, key):
                raise ValueError(f"report key {key!r} shadows a dict method")
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def render(command: str, doc: Mapping[str, object], fragment: bool,
           max_columns: int = 10, catalog: Catalog | None = None) -> str:
    """``templates/report_COMMAND.tex.j2`` on ``doc`` (strings, lists, dicts, bools:
    a ``TemplateValue`` each).

    ``doc`` gains ``cyrillic`` (some text needs T2A fonts) and ``max_columns``
    (for ``MaxMatrixCols``), which the shared preamble reads, and ``what``, the
    fragment's comment; the template's ``t`` is ``catalog`` (English when None).
    """
    from symattn.render import latex
    from symattn.render import templating
    from symattn._version import __version__

    from symattn.render import engines

    russian = catalog is not None and catalog.language in ("ru", "uk")
    doc = dict(doc, cyrillic=russian or any(latex.CYRILLIC_MACRO in s for s in _strings(doc)),
               max_columns=str(max(10, max_columns)))
    return engines.render_for_engine(lambda tex: templating.render(
        f"report_{command}.tex.j2", doc=doc, fragment=fragment, version=__version__,
        what=FRAGMENT_NOTE.format(command=command), tex=tex, messages=catalog), None,
        catalog.language if catalog is not None else "en", cyrillic=bool(doc["cyrillic"]))


# ------------------------------------------------------------------- output
def emit(args: argparse.Namespace, tex: str, default_stem: str) -> None:
    """Write the LaTeX (stdout or ``-o``), or with ``--pdf`` compile it like ``derive``.

    PDF: ``-o OUT.pdf``; ``-o OUT.tex`` writes both; ``-o -`` the PDF to stdout;
    no ``-o``: ``DEFAULT_STEM.pdf`` in the current folder.
    """
    from symattn.render import engines
    from symattn.render.files import write_atomically, write_stdout

    output = getattr(args, "output", None)
    engine = getattr(args, "engine", None)
    tex = engines.name_engine(tex, engine)
    if not args.pdf:
        if output is None or output == "-":
            write_stdout(tex)
        else:
            write_atomically(output, tex)
        return
    from symattn.render.pdf import compile_pdf

    pdf = compile_pdf(tex, engine=engine)
    output = output or f"{default_stem}.pdf"
    if output == "-":
        write_stdout(pdf)
        return
    if output.lower().endswith(".tex"):
        write_atomically(output, tex)
        output = str(Path(output).with_suffix(".pdf"))
    write_atomically(output, pdf)
    print(f"symattn: wrote {output}", file=sys.stderr)


def spec_stem(source: str | Path, command: str) -> str:
    """The default PDF name of a spec's report: ``NAME-COMMAND``."""
    return f"{Path(source).stem}-{command}"


# ------------------------------------------------------------ text and JSON
def heading(kind: str, title: str) -> list[str]:
    """A text report's first two lines: ``KIND: TITLE`` (``KIND`` alone) underlined."""
    line = f"{kind}: {title}" if title else kind
    return [line, "=" * len(line)]


def decimal(value: Exact, number_format: NumberFormat) -> str:
    """The certified decimal of an exact value; its exact text when it is symbolic."""
    from symattn.values.exact import exact_text

    formatted = number_format.format(value)
    return formatted if formatted is not None else exact_text(value)


def decimal_cells(values: Iterable[Exact], number_format: NumberFormat) -> list[str]:
    """``decimal`` of each value."""
    return [decimal(value, number_format) for value in values]


def json_report(document: Mapping[str, object]) -> str:
    """A report as JSON: the symattn version first, then ``document``, one key a line."""
    import json

    from symattn._version import SCHEMA_VERSION, __version__

    return json.dumps({"symattn": __version__, "schema_version": SCHEMA_VERSION, **document},
                      ensure_ascii=False, indent=1) + "\n"
