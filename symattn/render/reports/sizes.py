"""The report of ``symattn sizes``: text, JSON and LaTeX of one layer's sizes.

Strings only: it lays out what ``symattn.sizes.compute`` found.

JSON (stable): ``{"symattn": version, "shape": {d_model, heads, kv_heads,
head_dim, seq_len, batch, layers, d_ff, vocab, dtype, bytes_per_element,
bias}, "tensors": [{"name", "dims", "shape", "elements", "description"}],
"quantities": [{"name", "kind", "exact", "value", "human", "formula",
"substituted", "description"}], "score_bytes_by_dtype": {dtype: bytes}}``.
``value`` is the exact integer (null for a ratio that is not whole; ``exact``
is always the exact value as text, ``"1/4"``).

>>> from symattn.sizes import ModelShape, compute
>>> report = render_text(compute(ModelShape(64, 4, 8, kv_heads=2, dtype="int8")))
>>> for part in report.splitlines()[0].split(", "): print(part)
d_model 64
heads 4 (head_dim 16)
kv_heads 2
seq_len 8
batch 1
layers 1
d_ff 256
int8 (1 byte per number)
"""

from __future__ import annotations

__all__ = ["render_text", "render_json", "render_latex"]

import json

from symattn._version import __version__
from symattn.render.reports.shared import render, text
from symattn.sizes import ModelShape, Sizes, format_bytes, group_digits

_TENSOR_COLUMNS = ("name", "dims", "shape", "elements", "description")
_QUANTITY_COLUMNS = ("name", "value", "human", "formula")


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]) - 1)]
    return ["  " + "  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row[:-1]))
            + "  " + row[-1] for row in rows]


def _shape_line(shape: ModelShape) -> str:
    gqa = f", kv_heads {shape.kv}" if shape.kv != shape.heads else ""
    return (f"d_model {shape.d_model}, heads {shape.heads} (head_dim {shape.head_dim})"
            f"{gqa}, seq_len {shape.seq_len}, batch {shape.batch}, layers {shape.layers}, "
            f"d_ff {shape.ff}" + (f", vocab {shape.vocab}" if shape.vocab else "")
            + f", {shape.dtype} ({shape.bytes_per_element} "
            + ("byte" if shape.bytes_per_element == 1 else "bytes") + " per number)"
            + (", with biases" if shape.bias else ""))


def _tensor_rows(sizes: Sizes) -> list[tuple[str, ...]]:
    """name, dims, shape, elements, what: as the text and LaTeX reports print them."""
    return [(tensor.name, "[" + ", ".join(tensor.dims) + "]", tensor.text(),
             group_digits(tensor.elements), tensor.description) for tensor in sizes.tensors]


def _quantity_rows(sizes: Sizes) -> list[tuple[str, ...]]:
    """name, value, human, formula = substituted."""
    rows: list[tuple[str, ...]] = []
    for quantity in sizes.quantities:
        value = group_digits(int(quantity.value)) if quantity.integral else quantity.exact
        if quantity.kind == "bytes":
            value += " B"
        rows.append((quantity.name, value, quantity.human(),
                     f"{quantity.formula} = {quantity.substituted}"))
    return rows


def _by_dtype(sizes: Sizes) -> list[tuple[str, str]]:
    return [(name, format_bytes(value)) for name, value in sizes.score_bytes_by_dtype]


def render_text(sizes: Sizes) -> str:
    """A readable report: the shape, the tensors, the quantities."""
    lines = [_shape_line(sizes.shape), "", "tensors of one layer ([in, out] for weights)"]
    lines += _table([("name", "dims", "shape", "elements", "what")] + _tensor_rows(sizes))
    lines += ["", "quantities"]
    lines += _table([("name", "value", "", "formula")] + _quantity_rows(sizes))
    lines += ["", "score matrix of one layer by dtype: " + ", ".join(
        f"{name} {size}" for name, size in _by_dtype(sizes)), ""]
    return "\n".join(lines)


def _prose(value: str) -> str:
    """Report text as LaTeX, where "~" means "about" and " x " times."""
    return text(value.replace("~", "\u2248").replace(" x ", " \u00d7 "))


def render_latex(sizes: Sizes, fragment: bool = False) -> str:
    """The same report as LaTeX (templates/report_sizes.tex.j2): a document or a fragment."""
    doc = {
        "shape": text(_shape_line(sizes.shape)),
        "tensors": [dict(zip(_TENSOR_COLUMNS, map(text, row))) for row in _tensor_rows(sizes)],
        "quantities": [dict(zip(_QUANTITY_COLUMNS, map(_prose, row)))
                       for row in _quantity_rows(sizes)],
        "by_dtype": [{"dtype": text(name), "size": text(size)} for name, size in _by_dtype(sizes)],
    }
    return render("sizes", doc, fragment)


def render_json(sizes: Sizes) -> str:
    """The stable JSON document (see the module docstring and docs/sizes.md)."""
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
