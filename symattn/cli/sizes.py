"""The ``symattn sizes`` command: shapes, parameter counts and memory of a layer.

A plugin of ``symattn.cli.app`` (see ``_plugin_modules`` there): ``register`` adds the
parser and returns the handler. Only argparse is imported at module level, so
``symattn --help`` stays instant; ``symattn.sizes`` is imported when the
command runs. Every bad value is a one-line error with exit status 2. The
report itself (text, JSON, LaTeX) is ``symattn.render.reports.sizes``.

>>> import argparse
>>> commands = argparse.ArgumentParser(prog="symattn").add_subparsers(dest="command")
>>> sorted(register(commands))
['sizes']
"""

from __future__ import annotations

__all__ = ["register", "run"]

import argparse
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from symattn.sizes import ModelShape

EPILOG = """\
examples:
  symattn sizes --d-model 4096 --heads 32 --seq-len 1024          seed 001's exercise
  symattn sizes --d-model 4096 --heads 32 --kv-heads 8 --layers 32 --seq-len 8192
  symattn sizes --d-model 768 --heads 12 --seq-len 1024 --layers 12 --vocab 50257 --bias
  symattn sizes --d-model 4096 --heads 32 --seq-len 1024 --format json
  symattn sizes --d-model 4096 --heads 32 --seq-len 1024 --pdf -o sizes.pdf
  symattn sizes --d-model 4096 --heads 32 --seq-len 1024 --language cs

Units: 1 KiB = 2^10 bytes, 1 MiB = 2^20, 1 GiB = 2^30 (binary); 1 kB = 10^3,
1 MB = 10^6, 1 GB = 10^9 (decimal). Every value is exact. See docs/sizes.md.
"""

_INTEGERS = (("d_model", True), ("heads", True), ("seq_len", True), ("batch", False),
             ("kv_heads", False), ("layers", False), ("d_ff", False), ("vocab", False))
FORMATS = ("text", "json", "latex", "html")


def register(subparsers: Any) -> dict[str, Callable[[argparse.Namespace], int]]:
    """Add ``sizes`` to the ``symattn`` subcommands; return {name: handler}."""
    parser = subparsers.add_parser(
        "sizes", help="tensor shapes, parameter counts, score-matrix and KV-cache memory",
        description="Shapes of every tensor of one Transformer layer, parameter counts, "
                    "the memory of the score matrix and of the KV cache (with the saving "
                    "from grouped-query attention), all exact.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    # Numbers are read here, not by argparse, so a bad value is one line (exit 2).
    parser.add_argument("--d-model", metavar="N", help="model width (required)")
    parser.add_argument("--heads", metavar="N", help="attention (query) heads; must divide "
                                                     "d_model (required)")
    parser.add_argument("--seq-len", "-T", metavar="N", help="tokens per sequence (required)")
    parser.add_argument("--kv-heads", metavar="N",
                        help="K/V heads for grouped-query attention; must divide heads "
                             "(default: heads)")
    parser.add_argument("--batch", "-B", metavar="N", help="sequences per batch (default 1)")
    parser.add_argument("--layers", metavar="N", help="layers (default 1)")
    parser.add_argument("--d-ff", metavar="N", help="feed-forward width (default 4 d_model)")
    parser.add_argument("--vocab", metavar="N", help="vocabulary size: adds the embedding")
    parser.add_argument("--dtype", default="fp16",
                        help="fp32, fp16 (default), bf16, fp8, int8 (also fp64, tf32)")
    parser.add_argument("--bias", action="store_true",
                        help="count the bias vectors of the projections and the FFN")
    parser.add_argument("--format", "-f", default="text", metavar="FORMAT",
                        help="text (default), json, latex or html")
    parser.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")
    from symattn.cli.options import add_language_options
    from symattn.render.reports.shared import add_document_options

    add_language_options(parser)
    add_document_options(parser)
    return {"sizes": run}


def _integer(option: str, text: str) -> int:
    from symattn.errors import InputError, cut
    from symattn.values.whole import ascii_whole

    number = ascii_whole(text.strip().replace("_", "").replace(",", ""))
    if number is None:
        raise InputError(f"--{option.replace('_', '-')} must be a positive whole number, "
                         f"got {cut(text)!r}")
    return number


def shape_from_args(args: argparse.Namespace) -> ModelShape:
    """The ModelShape the options describe (InputError, one line, when unusable)."""
    from symattn.errors import InputError
    from symattn.sizes import ModelShape

    missing = [f"--{name.replace('_', '-')}" for name, required in _INTEGERS
               if required and getattr(args, name) is None]
    if missing:
        raise InputError(f"sizes needs {', '.join(missing)} (e.g. symattn sizes "
                         "--d-model 4096 --heads 32 --seq-len 1024)")
    values = {name: _integer(name, getattr(args, name)) for name, _ in _INTEGERS
              if getattr(args, name) is not None}
    try:
        # no location: the options are on the command line, not in a file
        return ModelShape(**values, dtype=args.dtype, bias=bool(args.bias), location=None)
    except InputError as error:
        # name the options as typed on the command line
        message = error.message
        for name, _ in _INTEGERS:
            if message.startswith(name + " must"):
                message = f"--{name.replace('_', '-')}" + message[len(name):]
                break
        raise InputError(message) from None


def run(args: argparse.Namespace) -> int:
    """The ``sizes`` command; returns the exit status (0)."""
    from symattn.errors import InputError
    from symattn.render.reports import shared as reports
    from symattn.render.reports.sizes import render_json, render_latex, render_text, sizes_blocks
    from symattn.sizes import compute

    if args.format not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, got {args.format!r}")
    reports.check_document_options(args)
    sizes = compute(shape_from_args(args))
    language = args.language or "en"        # no spec: the option, else English
    if reports.wants_latex(args):
        reports.emit(args, render_latex(sizes, args.fragment, language, args.locale), "sizes")
        return 0
    if args.format == "html":      # the report's blocks as a page (render/web/text_html.py)
        from symattn import messages
        from symattn.render.web.text_html import blocks_page

        text = blocks_page(sizes_blocks(sizes, language, args.locale), language,
                           messages.load(language).text("sizes.title"))
    else:
        text = render_json(sizes) if args.format == "json" else \
            render_text(sizes, language, args.locale)
    from symattn.cli.options import write_output

    write_output(text, args.output)
    return 0
