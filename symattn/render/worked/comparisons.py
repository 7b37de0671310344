"""The spec's comparison blocks (``derivation.compare``) as records for the page.

Each block becomes a ``CompareModel``: what each side is, a row per key with
the score fed to softmax, the weight and its percentage on either side, the
entropy of both sides and the one-line note the seeds draw from it (seed 001:
the weakest weight falls from 0.297 to 0.051; seed 003: the entropy falls as
T falls). Every number is formatted here, in the document's number format;
every word comes from the catalog table ``[compare]``.

>>> import symattn
>>> from symattn.render.worked import build
>>> document = build(symattn.derive(symattn.load_example("003-cross-attention-temperature")))
>>> block = document.comparisons[0]
>>> block.labels
('$T = 0.5$', '$T = 1$')
>>> [row.weights for row in block.rows][1]
('0.786986', '0.576117')
"""

from __future__ import annotations

__all__ = ["comparison_models"]

from typing import Any

from flint import fmpq

from symattn.derivation.steps import Compared, Side
from symattn.messages import Catalog
from symattn.render import latex
from symattn.render.worked.model import CompareModel, CompareRow
from symattn.values.exact import Exact


def _shown(b: Any, raw: Exact) -> str:
    """A number as the page prints it: exact when short, else its decimal."""
    value = b.make_value(raw, latex.exact_latex(raw, b.locale))
    return str(value.exact if value.is_exact else value.decimal)


def _percent(b: Any, raw: Exact) -> str:
    value = b.percent_value(b.product(raw, fmpq(100)))
    shown = str(value.exact if value.is_exact else value.decimal)
    return shown + r"\,\%" if shown else ""


def _label(b: Any, block: Compared, side: Side) -> str:
    """What a side is, as catalog text (``compare.side_*``)."""
    catalog: Catalog = b.catalog
    number = "" if side.number is None else b.cells.any_latex(side.number)
    if block.kind == "temperature":
        return catalog.fill("compare.side_temperature", t=number)
    if side.kind == "times":
        return catalog.fill("compare.side_times", factor=number)
    if side.kind == "given" and block.kind == "times":
        return catalog.fill("compare.side_times", factor="1")
    scaled = side.kind == "scaled" or side.kind == "given" and block.sides[1].kind == "unscaled"
    return catalog.text("compare.side_scaled" if scaled else "compare.side_unscaled")


def _intro(b: Any, block: Compared) -> str:
    catalog: Catalog = b.catalog
    left, right = block.sides
    if block.kind == "times":
        return catalog.fill("compare.intro_times", factor=b.cells.any_latex(right.number))
    if block.kind == "temperature":
        return catalog.fill("compare.intro_temperature",
                            left=b.cells.any_latex(left.number or fmpq(1)),
                            right=b.cells.any_latex(right.number or fmpq(1)))
    return catalog.text("compare.intro_scaling")


def _model(b: Any, block: Compared) -> CompareModel:
    left, right = block.sides
    i = block.row
    label, token = b.labels[i], b.token(i, "query")
    row = b.catalog.fill("step.row", query=str(label)) + (f" ({token})" if token else "")
    rows = tuple(CompareRow(key=str(j + 1), token=b.token(j, "key"),
                            scores=(_shown(b, left.scores[j]), _shown(b, right.scores[j])),
                            weights=(_shown(b, left.weights[j]), _shown(b, right.weights[j])),
                            percents=(_percent(b, left.weights[j]),
                                      _percent(b, right.weights[j])))
                 for j in range(len(left.weights)))
    note = b.catalog.fill(
        "compare.note", key_largest=str(left.largest + 1),
        key_smallest=str(left.smallest + 1), largest=_shown(b, left.weights[left.largest]),
        largest_after=_shown(b, right.weights[left.largest]),
        smallest=_shown(b, left.weights[left.smallest]),
        smallest_after=_shown(b, right.weights[left.smallest]),
        entropy=_shown(b, left.entropy), entropy_after=_shown(b, right.entropy))
    return CompareModel(heading=b.catalog.text(f"compare.heading_{block.kind}"),
                        intro=_intro(b, block), row=row,
                        labels=(_label(b, block, left), _label(b, block, right)), rows=rows,
                        entropy=(_shown(b, left.entropy), _shown(b, right.entropy)),
                        entropy_max=_shown(b, block.entropy_max), note=note)


def comparison_models(b: Any) -> tuple[CompareModel, ...]:
    """The derivation's comparison blocks, laid out (the builder ``b`` formats)."""
    return tuple(_model(b, block) for block in b.d.comparisons)
