"""The ``symattn sizes`` command: shapes, parameter counts and memory of a layer.

A plugin of ``symattn.cli.app`` (see ``_plugin_modules`` there): ``register`` adds the
parser and returns the handler. Only argparse is imported at module level, so
``symattn --help`` stays instant; ``symattn.sizes`` is imported when the
command runs. Every bad value is a one-line error with exit status 2.

>>> import argparse
>>> commands = argparse.ArgumentParser(prog="symattn").add_subparsers(dest="command")
>>> sorted(register(commands))
['sizes']

JSON (stable): ``{"symattn": version, "shape": {d_model, heads, kv_heads,
head_dim, seq_len, batch, layers, d_ff, vocab, dtype, bytes_per_element,
bias}, "tensors": [{"name", "dims", "shape", "elements", "description"}],
"quantities": [{"name", "kind", "exact", "value", "human", "formula",
"substituted", "description"}], "score_bytes_by_dtype": {dtype: bytes}}``.
``value`` is the exact integer (null for a ratio that is not whole; ``exact``
is always the exact value as text, ``"1/4"``).
"""

from __future__ import annotations

__all__ = ["register", "run", "render_text", "render_json", "render_latex"]

import argparse
from typing import Any, Callable

EPILOG = """\
examples:
  symattn sizes --d-model 4096 --heads 32 --seq-len 1024          seed 001's exercise
  symattn sizes --d-model 4096 --heads 32 --kv-heads 8 --layers 32 --seq-len 8192
  symattn sizes --d-model 768 --heads 12 --seq-len 1024 --layers 12 --vocab 50257 --bias
  symattn sizes --d-model 4096 --heads 32 --seq-len 1024 --format json
  symattn sizes --d-model 4096 --heads 32 --seq-len 1024 --pdf -o sizes.pdf

Units: 1 KiB = 2^10 bytes, 1 MiB = 2^20, 1 GiB = 2^30 (binary); 1 kB = 10^3,
1 MB = 10^6, 1 GB = 10^9 (decimal). Every value is exact. See docs/sizes.md.
"""

_INTEGERS = (("d_model", True), ("heads", True), ("seq_len", True), ("batch", False),
             ("kv_heads", False), ("layers", False), ("d_ff", False), ("vocab", False))
FORMATS = ("text", "json", "latex")


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
                        help="text (default), json or latex")
    parser.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")
    from symattn.render.reports.shared import add_document_options

    add_document_options(parser)
    return {"sizes": run}


def _integer(option: str, text: str) -> int:
    from symattn.errors import InputError

    cleaned = text.strip().replace("_", "").replace(",", "")
    if not cleaned.isdigit() or not cleaned.isascii():
        raise InputError(f"--{option.replace('_', '-')} must be a positive whole number, "
                         f"got {text!r}")
    return int(cleaned)


def shape_from_args(args: argparse.Namespace) -> Any:
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
        return ModelShape(**values, dtype=args.dtype, bias=bool(args.bias))
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
    from symattn.render.reports import shared as reports
    from symattn.errors import InputError
    from symattn.sizes import compute

    if args.format not in FORMATS:
        raise InputError(f"--format must be one of {', '.join(FORMATS)}, got {args.format!r}")
    reports.check_document_options(args)
    sizes = compute(shape_from_args(args))
    if reports.wants_latex(args):
        reports.emit(args, render_latex(sizes, args.fragment), "sizes")
        return 0
    text = render_json(sizes) if args.format == "json" else render_text(sizes)
    if args.output is None or args.output == "-":
        import sys

        sys.stdout.write(text)
    else:
        from symattn.render.files import write_atomically

        write_atomically(args.output, text)
    return 0


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]) - 1)]
    return ["  " + "  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row[:-1]))
            + "  " + row[-1] for row in rows]


def _shape_line(shape: Any) -> str:
    gqa = f", kv_heads {shape.kv}" if shape.kv != shape.heads else ""
    return (f"d_model {shape.d_model}, heads {shape.heads} (head_dim {shape.head_dim})"
            f"{gqa}, seq_len {shape.seq_len}, batch {shape.batch}, layers {shape.layers}, "
            f"d_ff {shape.ff}" + (f", vocab {shape.vocab}" if shape.vocab else "")
            + f", {shape.dtype} ({shape.bytes_per_element} "
            + ("byte" if shape.bytes_per_element == 1 else "bytes") + " per number)"
            + (", with biases" if shape.bias else ""))


def _tensor_rows(sizes: Any) -> list[tuple[str, ...]]:
    """name, dims, shape, elements, what: as the text and LaTeX reports print them."""
    from symattn.sizes import group_digits

    return [(tensor.name, "[" + ", ".join(tensor.dims) + "]", tensor.text(),
             group_digits(tensor.elements), tensor.description) for tensor in sizes.tensors]


def _quantity_rows(sizes: Any) -> list[tuple[str, ...]]:
    """name, value, human, formula = substituted."""
    from symattn.sizes import group_digits

    rows = []
    for quantity in sizes.quantities:
        value = group_digits(int(quantity.value)) if quantity.integral else quantity.exact
        if quantity.kind == "bytes":
            value += " B"
        rows.append((quantity.name, value, quantity.human(),
                     f"{quantity.formula} = {quantity.substituted}"))
    return rows


def _by_dtype(sizes: Any) -> list[tuple[str, str]]:
    from symattn.sizes import format_bytes

    return [(name, format_bytes(value)) for name, value in sizes.score_bytes_by_dtype]


def render_text(sizes: Any) -> str:
    """A readable report: the shape, the tensors, the quantities."""
    lines = [_shape_line(sizes.shape), "", "tensors of one layer ([in, out] for weights)"]
    lines += _table([("name", "dims", "shape", "elements", "what")] + _tensor_rows(sizes))
    lines += ["", "quantities"]
    lines += _table([("name", "value", "", "formula")] + _quantity_rows(sizes))
    lines += ["", "score matrix of one layer by dtype: " + ", ".join(
        f"{name} {size}" for name, size in _by_dtype(sizes)), ""]
    return "\n".join(lines)


def render_latex(sizes: Any, fragment: bool = False) -> str:
    """The same report as LaTeX (templates/report_sizes.tex.j2): a document or a fragment."""
    from symattn.render.reports.shared import render, text

    def prose(value: str) -> str:      # "~" means "about" here, "x" times
        return text(value.replace("~", "\u2248").replace(" x ", " \u00d7 "))

    doc = {
        "shape": text(_shape_line(sizes.shape)),
        "tensors": [dict(zip(("name", "dims", "shape", "elements", "description"),
                             map(text, row))) for row in _tensor_rows(sizes)],
        "quantities": [dict(zip(("name", "value", "human", "formula"), map(prose, row)))
                       for row in _quantity_rows(sizes)],
        "by_dtype": [{"dtype": text(name), "size": text(size)} for name, size in _by_dtype(sizes)],
    }
    return render("sizes", doc, fragment)


def render_json(sizes: Any) -> str:
    """The stable JSON document (see the module docstring and docs/sizes.md)."""
    import json

    from symattn._version import __version__

    document = {
        "symattn": __version__,
        "shape": sizes.shape.as_dict(),
        "tensors": [{"name": t.name, "dims": list(t.dims), "shape": list(t.sizes),
                     "elements": t.elements, "description": t.description}
                    for t in sizes.tensors],
        "quantities": [{"name": q.name, "kind": q.kind, "exact": q.exact,
                        "value": int(q.value) if q.integral else None, "human": q.human(),
                        "formula": q.formula, "substituted": q.substituted,
                        "description": q.description} for q in sizes.quantities],
        "score_bytes_by_dtype": dict(sizes.score_bytes_by_dtype),
    }
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
