"""``symattn derive``: every step of the computation, as text, JSON, LaTeX or Markdown.

A command module of ``symattn.cli.app``: ``register(subparsers)`` adds the
parser and returns the handler. Only argparse is imported at module level.

>>> import argparse
>>> commands = argparse.ArgumentParser(prog="symattn").add_subparsers(dest="command")
>>> sorted(register(commands))
['derive']
>>> _expand_rows("1, 3"), _expand_rows("all"), _expand_rows(None)
((1, 3), (), None)
"""

from __future__ import annotations

__all__ = ["register", "run"]

import argparse
from typing import TYPE_CHECKING, Iterator

from symattn.defaults import MAX_TERMS, ROWS_SHOWN
from symattn.cli.options import (EXIT_OK, epilog, Handler, Subparsers, add_language_options,
                                 add_limit_option, add_number_options, add_precision_option,
                                 add_source, language_of, load_one,
                                 number_format_of, spec_sources, whole, write_output)

if TYPE_CHECKING:
    from symattn.problem.problem import Problem
    from symattn.derivation.steps import Derivation
    from symattn.values.number_format import NumberFormat


DERIVE_EPILOG = epilog("""\
  symattn derive --example 000-cat-chases-mouse every step, 6 significant digits
  symattn derive my.toml --digits 40            40 correct significant digits
  symattn derive my.toml --places 2 --format json
  symattn derive my.toml -f latex -o d.tex --pdf   the worked example as LaTeX and PDF
  symattn derive my.toml -f markdown --handout     a clean copy for students
  symattn derive my.toml -f html -o page.html      one page that reads offline
  symattn derive my.toml --precision float16    the steps as a framework computes them
""")

def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``derive``; return its handler."""
    parser = subparsers.add_parser("derive", help="show every step of the computation",
                                   formatter_class=argparse.RawDescriptionHelpFormatter,
                                   epilog=DERIVE_EPILOG)
    add_source(parser)
    add_number_options(parser)
    add_limit_option(parser)
    add_precision_option(parser)
    _add_output_options(parser)
    _add_document_options(parser)
    _add_symbol_options(parser)
    return {"derive": run}


def _add_symbol_options(parser: argparse.ArgumentParser) -> None:
    """What to ask of the spec's symbols (``[symbols]``; docs/symbols.md)."""
    group = parser.add_argument_group("symbols (a spec with a symbol such as T)")
    group.add_argument("--limit", action="append", default=[], metavar="LIMIT",
                       help='the weights in a limit: "T->0+" or "T->oo" (may be repeated)')
    group.add_argument("--derivative", metavar="NAME",
                       help="the derivative of every weight with respect to the symbol NAME")
    group.add_argument("--subs", metavar="NAME=VALUE",
                       help="the weights with a number put in for a symbol, e.g. T=0.5 "
                            "(several: T=0.5;a=2), with proved decimals")


def _with_symbol_options(args: argparse.Namespace, problem: Problem) -> Problem:
    if not (args.limit or args.derivative or args.subs):
        return problem
    import dataclasses

    from symattn.problem.symbols import spec_symbols, with_options

    known = spec_symbols(problem.inputs, problem.temperature, problem.scale)
    asked = with_options(problem.symbols, known, args.limit, args.derivative, args.subs)
    return dataclasses.replace(problem, symbols=asked)


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """``--format``, the elision of large matrices and sums, ``--output`` and ``--locale``."""
    parser.add_argument("--format", "-f", choices=("text", "json", "latex", "markdown", "html"),
                        default="text", help="text (default), json, latex (a worked example: "
                        "formula, numbers substituted, result), markdown ($...$ math) or html "
                        "(one self-contained page: MathML, a heatmap, the verdicts)")
    parser.add_argument("--max-rows", action=whole(0), default=ROWS_SHOWN, metavar="N",
                        help="elide matrices larger than N rows/columns in text, latex and "
                             f"markdown (default {ROWS_SHOWN}; 0 shows all)")
    parser.add_argument("--max-terms", action=whole(0), default=MAX_TERMS, metavar="N",
                        help="text and json: leave out closed forms of more than N "
                             "exponentials (a softmax over N keys; JSON null); "
                             f"default {MAX_TERMS}, 0 writes them all")
    parser.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")
    parser.add_argument("--variant", metavar="NAME",
                        help="lay out the spec's [[variants]] block NAME: its options and "
                             "its claims (docs/checking.md)")
    add_language_options(parser)


def _add_document_options(parser: argparse.ArgumentParser) -> None:
    """The options of the worked example (``--format latex`` or ``markdown``, ``--pdf``)."""
    from symattn.render.reports.shared import add_engine_option

    document = parser.add_argument_group("latex and markdown")
    document.add_argument("--pdf", action="store_true",
                          help="compile the LaTeX to a PDF (latexmk and --engine): -o OUT.pdf, or "
                               "-o OUT.tex for both files; default: the spec's name .pdf")
    document.add_argument("--fragment", action="store_true",
                          help="LaTeX to \\input into another document instead of a standalone one")
    add_engine_option(document)
    document.add_argument("--template-dir", metavar="DIR",
                          help="templates in DIR override the bundled ones by name "
                               "(docs/templates.md; they run as trusted code)")
    document.add_argument("--figure", metavar="IMAGE",
                          help="markdown: also draw the attention weights as a heatmap, "
                               "IMAGE.png, .svg or .pdf, linked at the end of the page "
                               "(needs matplotlib: pip install 'symattn[plot]')")
    document.add_argument("--handout", action="store_true",
                          help="a clean copy to hand out: no marks on the numbers the spec's "
                               "claims printed, no notes on them")
    document.add_argument("--source", action=argparse.BooleanOptionalAction, default=None,
                          help="name the spec file under the title (default: yes, but not "
                               "with --handout)")
    document.add_argument("--method", action=argparse.BooleanOptionalAction, default=None,
                          help="the paragraph on how steps and decimals are shown (default: "
                               "yes, but not with --handout)")
    document.add_argument("--detail", choices=("summary", "full"), default="full",
                          help="full (default): substitutions and expanded rows; summary: "
                               "formulas and results only")
    document.add_argument("--max-shift", choices=("auto", "on", "off"), default=None,
                          help="subtract each row's largest score before the exponentials, "
                               "as np.exp(z - z.max()) does: auto (default: the spec's "
                               "options.max_shift, else where e^z would pass 10^6), on or off")
    document.add_argument("--expand-rows", metavar="ROWS",
                          help="query rows to write out entry by entry, 1-based, e.g. 1,3 or "
                               "all (default: the last row, or all rows when there are <= 3)")


def _check_options(args: argparse.Namespace) -> None:
    """The worked example's options need its formats; ``--max-terms`` is not negative."""
    from symattn.errors import InputError

    document_options = args.pdf or args.fragment or args.template_dir is not None or \
        args.detail != "full" or args.expand_rows is not None or args.handout or \
        args.figure is not None
    if args.format in ("text", "json") and document_options and not args.pdf:
        raise InputError("--fragment, --template-dir, --detail, --expand-rows, --handout and "
                         "--figure apply to --format latex or markdown (or --pdf)")
    if args.max_terms < 0:
        raise InputError("--max-terms must be 0 (write every closed form) or more")


def _check_written(args: argparse.Namespace, problem: Problem, source: str,
                   number_format: NumberFormat) -> None:
    """The scores this output writes stay within the limits: with positions, and to
    many digits."""
    from symattn.cli.options import display_name, limits_of
    from symattn.errors import Location
    from symattn.problem.limits import check_digits_written, check_positions_written
    from symattn.problem.modes import Positions

    n, m = problem.score_shape()
    every = args.format == "json" or args.max_rows == 0
    shown = max(args.max_rows, 2)
    rows, columns = (n, m) if every else (min(n, shown), min(m, shown))
    digits = max(number_format.digits or 0, number_format.places or 0)
    spec_digits = args.digits is None and args.places is None
    limits, name = limits_of(args), display_name(source)
    check_digits_written(rows, columns, digits, limits, Location(
        file=name, key="options.digits" if spec_digits else None))
    if problem.positions != Positions.NONE:
        check_positions_written(rows, columns, limits,
                                Location(file=name, key="options.positions"))


def _variant(problem: Problem, name: str) -> Problem:
    """The spec's [[variants]] block called ``name`` (verify.variants)."""
    from symattn.errors import InputError
    from symattn.verify.variants import variant_problem

    found = next((v for v in problem.variants if v.name == name.strip()), None)
    if found is None:
        names = ", ".join(repr(v.name) for v in problem.variants) or "none"
        raise InputError(f"--variant {name!r}: no such [[variants]] block (this spec has "
                         f"{names})")
    return variant_problem(problem, found)


def run(args: argparse.Namespace) -> int:
    """The ``derive`` command; returns the exit status."""
    from symattn.collector import uncollected

    # a large derivation keeps every step and its texts: collector passes find nothing
    with uncollected():
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    from symattn.derivation import pipeline
    from symattn.errors import InputError
    from symattn.render import text as render_text
    from symattn.render import view

    sources = spec_sources(args)
    problem = load_one(args, "derive")
    language = language_of(args, problem.language)
    # JSON is data: its decimals keep the point unless --locale asks otherwise
    number_format = number_format_of(args, problem.digits, problem.rounding,
                                     "en" if args.format == "json" else language)
    _check_options(args)
    if args.variant is not None:
        problem = _variant(problem, args.variant)
    problem = _with_symbol_options(args, problem)
    if args.max_shift is not None:
        import dataclasses

        shift = {"auto": None, "on": True, "off": False}[args.max_shift]
        problem = dataclasses.replace(problem, max_shift=shift)
    _check_written(args, problem, sources[0], number_format)
    derivation = pipeline.derive(problem)
    latex = args.pdf or args.format == "latex"
    if args.precision not in (None, "exact") and latex:
        raise InputError("--precision shows the steps in a floating-point format in text, "
                         "markdown and json; use one of those formats")
    # the spec's options.precision adds the section where there is one (not to LaTeX)
    precision = args.precision or ("exact" if latex else problem.precision)
    if args.format == "html":
        return _derive_html(args, derivation, number_format, sources[0], language, precision)
    if args.pdf or args.format in ("latex", "markdown"):
        status = _derive_document(args, derivation, number_format, sources[0], language,
                                  _precision_section(precision, problem, language))
        return status
    limit = None if args.format == "json" or args.max_rows == 0 else max(args.max_rows, 2)
    # Text shows the steps a page shows (a max-shift hides e^z); JSON has every step.
    shown = None if args.format == "json" else tuple(s.name for s in derivation if not s.hidden)
    text: str | Iterator[str]
    if args.format == "json":   # step by step, streamed
        steps = view.iter_step_views(derivation, number_format, limit, shown,
                                     args.max_terms or None)
        text = render_text.iter_json_steps(problem.title, number_format, steps,
                                           problem.description, problem.tokens)
    else:
        built = view.build_view(derivation, number_format, limit=limit, steps=shown,
                                max_terms=args.max_terms or None)
        text = render_text.render_text(built, language)
    if precision != "exact":
        whole = text if isinstance(text, str) else "".join(text)
        text = _with_precision(whole, args.format, precision, problem, language)
    write_output(text, args.output)
    return EXIT_OK


def _derive_html(args: argparse.Namespace, derivation: Derivation, number_format: NumberFormat,
                 source: str, language: str, precision: str) -> int:
    """``derive --format html``: the page (render/web), its numbers judged unless
    ``--handout``; a framework's ``precision`` adds its steps as a section."""
    import os

    from symattn.api import render_html
    from symattn.errors import InputError

    if args.pdf or args.fragment or args.template_dir is not None or args.figure is not None \
            or args.detail != "full" or args.expand_rows is not None:
        raise InputError("--format html takes --handout and --source; --pdf, --fragment, "
                         "--template-dir, --figure, --detail and --expand-rows are for latex "
                         "and markdown")
    named = args.source if args.source is not None else not args.handout
    page = render_html(derivation, number_format=number_format, language=language,
                       handout=args.handout,
                       limit=None if args.max_rows == 0 else max(args.max_rows, 2),
                       source=os.path.basename(source) if named else "")
    if precision != "exact":       # the framework's steps: their text layout, as a section
        from symattn.derivation.precision import compute
        from symattn.render.precision import precision_text
        from symattn.render.web.text_html import text_section

        section = text_section(precision_text(compute(derivation.problem, precision), language))
        page = page.replace("\n</main>", f"\n{section}\n</main>", 1)
    write_output(page, args.output)
    return EXIT_OK


def _with_precision(text: str, format_name: str, precision: str, problem: Problem,
                    language: str) -> str:
    """The text or JSON output with the steps as ``precision`` computes them."""
    import json

    from symattn.derivation.precision import compute
    from symattn.render.precision import precision_json, precision_text

    framework = compute(problem, precision)
    if format_name == "json":
        document = json.loads(text)
        document["precision"] = precision_json(framework)
        return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    return text + "\n" + precision_text(framework, language) + "\n"


def _precision_section(precision: str, problem: Problem, language: str) -> str:
    """Markdown: the steps as ``precision`` computes them ("" when exact)."""
    if precision == "exact":
        return ""
    from symattn.derivation.precision import compute
    from symattn.render.precision import precision_markdown

    return "\n" + precision_markdown(compute(problem, precision), language)


def _expand_rows(text: str | None) -> tuple[int, ...] | None:
    """``--expand-rows 1,3`` as labels; ``all`` as every row (an empty tuple)."""
    from symattn.errors import InputError, cut
    from symattn.values.whole import ascii_whole

    if text is None:
        return None
    if text.strip().lower() == "all":
        return ()
    rows = []
    for part in text.split(","):
        number = ascii_whole(part)
        if number is None or number < 1:
            raise InputError(f"--expand-rows: {cut(part.strip())!r} is not a row number "
                             "(1-based, e.g. 1,3)")
        rows.append(number)
    return tuple(rows)


def _figure(args: argparse.Namespace, derivation: Derivation,
            number_format: NumberFormat) -> str:
    """``--figure IMAGE``: the weights drawn to IMAGE, and the Markdown that shows it."""
    import os

    from symattn import messages
    from symattn.render.figure import save_weights_figure

    if args.figure is None:
        return ""
    language = getattr(args, "language", None) or "en"
    save_weights_figure(derivation, args.figure, language, number_format.locale)
    folder = os.path.dirname(args.output) if args.output not in (None, "-") else "."
    link = os.path.relpath(args.figure, folder or ".").replace(os.sep, "/")
    if any(c in link for c in " ()<>"):
        link = "<" + link.replace("<", "%3C").replace(">", "%3E") + ">"
    title = messages.load(language).text("layout.figure_title")
    return f"\n![{title}]({link})\n"


def _derive_document(args: argparse.Namespace, derivation: Derivation,
                     number_format: NumberFormat, source: str, language: str,
                     extra: str = "") -> int:
    """``derive --format latex|markdown`` and ``--pdf``: the worked example."""
    from pathlib import Path

    from symattn.api import render_latex, render_markdown
    from symattn.errors import InputError
    from symattn.render import worked
    from symattn.render.reports.shared import check_document_options, emit

    # Markdown has no fragment form: --fragment changes nothing there.
    check_document_options(args, fragment_formats=("latex", "markdown"))
    rows = _expand_rows(args.expand_rows)
    if rows == ():
        rows = tuple(worked.row_labels(derivation))
    options = worked.Options(number_format=number_format, detail=args.detail, expand_rows=rows,
                             limit=None if args.max_rows == 0 else max(args.max_rows, 2),
                             language=language, source=args.source, method=args.method)
    if args.format == "markdown":
        text = render_markdown(derivation, options, template_dir=args.template_dir,
                               handout=args.handout)
        write_output(text + _figure(args, derivation, number_format) + extra, args.output)
        return EXIT_OK
    if args.figure is not None:
        raise InputError("--figure draws the weights for --format markdown; the LaTeX "
                         "shows them as a shaded table")
    tex = render_latex(derivation, options, fragment=args.fragment,
                       template_dir=args.template_dir, engine=args.engine,
                       handout=args.handout)
    emit(args, tex, Path(source).stem)
    return EXIT_OK
