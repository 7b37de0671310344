"""The report of ``symattn sizes``: text, JSON and LaTeX of one layer's sizes.

Strings only: it lays out what ``symattn.sizes.compute`` found. Text and
LaTeX speak the reader's language (the catalogs' ``[sizes]``, through
``sizes_view.SizesView``): every tensor and quantity named in words and by
a symbol, formulas in symbols, numbers with the language's decimal mark.
JSON is data, in the code's names.

JSON (stable): ``{"symattn": version, "shape": {d_model, heads, kv_heads,
head_dim, seq_len, batch, layers, d_ff, vocab, dtype, bytes_per_element,
bias}, "tensors": [{"name", "dims", "shape", "elements", "description"}],
"quantities": [{"name", "kind", "exact", "value", "human", "formula",
"substituted", "description"}], "score_bytes_by_dtype": {dtype: bytes}}``.
``value`` is the exact integer (null for a ratio that is not whole; ``exact``
is always the exact value as text, ``"1/4"``).

>>> from symattn.sizes import ModelShape, compute
>>> report = render_text(compute(ModelShape(64, 4, 8, kv_heads=2, dtype="int8")))
>>> for part in report.splitlines()[0].split("; "): print(part.replace(chr(160), " "))
Model width d_model = 64
attention heads h = 4, each of width d_k = 16
key and value heads h_kv = 2, each shared by a group of query heads (grouped-query attention, GQA)
sequence length T = 8
batch of B = 1 sequences
number of layers L = 1
feed-forward width d_ff = 256
each number in int8 takes b = 1 B.
"""

from __future__ import annotations

__all__ = ["render_text", "sizes_blocks", "render_json", "render_latex"]

import json
from typing import Sequence

from symattn import messages
from symattn._version import SCHEMA_VERSION, __version__
from symattn.render import prose
from symattn.render.blocks import Block, Number, Piece, Table, text as blocks_text
from symattn.render.reports.shared import render
from symattn.render.reports.sizes_view import SizesView
from symattn.sizes import Sizes, format_bytes


def _view(language: str, locale: str | None) -> SizesView:
    """The view of ``language``, with the decimal mark of ``locale`` (else the language's)."""
    return SizesView(messages.load(language), "." if (locale or language) == "en" else ",")


def _tensor_rows(sizes: Sizes, view: SizesView) -> list[tuple[str, ...]]:
    """symbol, dimensions, shape, elements, what (catalog LaTeX)."""
    return [(view.tensor_symbol(tensor), view.dims(tensor), f"${tensor.text()}$",
             view.integer(tensor.elements),
             view.catalog.text(f"sizes.tensor.{tensor.name}")) for tensor in sizes.tensors]


def _quantity_rows(sizes: Sizes, view: SizesView) -> list[tuple[str, ...]]:
    """what, value, readable form, formula (catalog LaTeX)."""
    return [(view.what(quantity), view.value(quantity),
             view.human(quantity), view.formula(quantity)) for quantity in sizes.quantities]


def _by_dtype(sizes: Sizes, view: SizesView) -> str:
    listed = ", ".join(f"{name} {view.short(format_bytes(value))}"
                       for name, value in sizes.score_bytes_by_dtype)
    return view.catalog.fill("sizes.by_dtype", list=listed)


def _numbered(rows: list[tuple[str, ...]], column: int,
              exact: list[str]) -> list[tuple[Piece, ...]]:
    """``rows`` with the cells of ``column`` as numbers whose exact forms are ``exact``."""
    return [row[:column] + (Number(row[column], value),) + row[column + 1:]
            for row, value in zip(rows, exact)]


def _table(header: tuple[str, ...], rows: Sequence[tuple[Piece, ...]]) -> Table:
    """A table of the text report: every column left-aligned, indented."""
    return Table(tuple(prose.plain(cell) for cell in header), tuple(rows), indent="  ")


def _plain_rows(rows: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    return [tuple(prose.plain(cell) for cell in row) for row in rows]


def render_text(sizes: Sizes, language: str = "en", locale: str | None = None) -> str:
    """A readable report in ``language``: the shape, the tensors, the quantities."""
    return blocks_text(sizes_blocks(sizes, language, locale))


def sizes_blocks(sizes: Sizes, language: str = "en", locale: str | None = None) -> list[Block]:
    """``render_text``'s report as blocks (``render.blocks``), each count and size a
    number with its exact value."""
    view = _view(language, locale)
    c = view.catalog

    def head(*keys: str) -> tuple[str, ...]:
        return tuple(c.text(f"sizes.{key}") for key in keys)

    lines: list[Block] = [prose.plain(view.shape_text(sizes.shape)),
                          prose.plain(c.text("sizes.units")), "",
                          prose.plain(c.text("sizes.tensors"))]
    lines.append(_table(head("col_tensor", "col_dims", "col_shape", "col_elements", "col_what"),
                        _numbered(_plain_rows(_tensor_rows(sizes, view)), 3,
                                  [str(tensor.elements) for tensor in sizes.tensors])))
    lines += ["", prose.plain(c.text("sizes.quantities"))]
    lines.append(_table(head("col_quantity", "col_value") + ("", c.text("sizes.col_formula")),
                        _numbered(_plain_rows(_quantity_rows(sizes, view)), 1,
                                  [quantity.exact for quantity in sizes.quantities])))
    lines += ["", prose.plain(_by_dtype(sizes, view))]
    return lines


def render_latex(sizes: Sizes, fragment: bool = False, language: str = "en",
                 locale: str | None = None) -> str:
    """The same report as LaTeX (templates/report_sizes.tex.j2): a document or a fragment."""
    view = _view(language, locale)
    doc = {
        "shape": view.shape_text(sizes.shape),
        "tensors": [dict(zip(("symbol", "dims", "shape", "elements", "what"), row))
                    for row in _tensor_rows(sizes, view)],
        "quantities": [dict(zip(("what", "value", "human", "formula"), row))
                       for row in _quantity_rows(sizes, view)],
        "by_dtype": _by_dtype(sizes, view),
    }
    return render("sizes", doc, fragment, catalog=view.catalog)


def render_json(sizes: Sizes) -> str:
    """The stable JSON document (see the module docstring and docs/sizes.md)."""
    document = {
        "symattn": __version__,
        "schema_version": SCHEMA_VERSION,
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
