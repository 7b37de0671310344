"""The ``compare`` blocks of a spec: the problem beside a changed copy of itself.

The comparisons the seed documents draw, each shown as two tables side by
side (scores, weights and the row's entropy)::

    [[compare]]
    kind = "times"          # the scores multiplied by a factor (seed 001: ten times larger)
    factor = 10

    [[compare]]
    kind = "temperature"    # the spec's T beside another one (seed 003: T = 1 and T = 0.5)
    temperature = 0.5

    [[compare]]
    kind = "scaling"        # with and without 1/sqrt(d_k) (seeds 001 and 003)

Each block may name the query ``row`` it shows (1-based, as the page numbers
rows; default: the last row). A single ``[compare]`` table is one block.

>>> blocks = read_compare([{"kind": "times", "factor": 10}, {"kind": "scaling", "row": 2}],
...                       Location())
>>> [(b.kind, b.factor, b.row) for b in blocks]
[('times', 10, None), ('scaling', None, 2)]
>>> read_compare({"kind": "temperature"}, Location(key="compare"))
Traceback (most recent call last):
...
symattn.errors.InputError: compare: a temperature comparison needs `temperature`, e.g. 0.5
"""

from __future__ import annotations

__all__ = ["Comparison", "COMPARE_KINDS", "COMPARE_KEYS", "read_compare"]

from dataclasses import dataclass
from typing import Any, Mapping

from flint import fmpq

from symattn.errors import InputError, Location, did_you_mean
from symattn.problem.tables import check_keys, describe, literal
from symattn.values.entries import parse_entry

COMPARE_KINDS = ("times", "temperature", "scaling")
COMPARE_KEYS = ("kind", "factor", "temperature", "row")


@dataclass(frozen=True)
class Comparison:
    """One side-by-side comparison: its kind and the number it changes."""

    kind: str                        # times | temperature | scaling
    factor: fmpq | None = None       # times: the scores are multiplied by this
    temperature: fmpq | None = None  # temperature: the other T
    row: int | None = None           # 1-based row label; None: the last row


def read_compare(raw: Any, where: Location) -> tuple[Comparison, ...]:
    """The blocks of ``compare`` (a table, or a list of tables)."""
    blocks = [raw] if isinstance(raw, Mapping) else raw
    if not isinstance(blocks, list) or not blocks:
        raise InputError("compare must be a table or a list of tables ([[compare]])", where)
    return tuple(_read_block(block, where.at(key=f"compare[{k}]") if len(blocks) > 1 else where)
                 for k, block in enumerate(blocks, start=1))


def _read_block(block: Any, where: Location) -> Comparison:
    if not isinstance(block, Mapping):
        raise InputError(f"each compare block must be a table, got {describe(block)}", where)
    check_keys(block, COMPARE_KEYS, where)
    kind = str(block.get("kind", "")).strip().lower()
    if kind not in COMPARE_KINDS:
        raise InputError(f"compare kind must be one of {', '.join(COMPARE_KINDS)}, got "
                         f"{describe(block.get('kind'))}{did_you_mean(kind, COMPARE_KINDS)}",
                         where.at(key="kind"))
    row = _positive(block["row"], where.at(key="row"), "row", whole=True) \
        if "row" in block else None
    if kind == "times":
        factor = _positive(block.get("factor", 10), where.at(key="factor"), "factor")
        return Comparison(kind, factor=factor, row=int(row) if row is not None else None)
    if kind == "temperature":
        if "temperature" not in block:
            raise InputError("a temperature comparison needs `temperature`, e.g. 0.5", where)
        temperature = _positive(block["temperature"], where.at(key="temperature"), "temperature")
        return Comparison(kind, temperature=temperature,
                          row=int(row) if row is not None else None)
    return Comparison(kind, row=int(row) if row is not None else None)


def _positive(raw: Any, where: Location, what: str, whole: bool = False) -> fmpq:
    """A positive rational (a whole number when ``whole``)."""
    entry = parse_entry(literal(raw), where)
    value = entry.value
    if not isinstance(value, fmpq) or value <= 0 or whole and value.q != 1:
        kind = "a positive whole number" if whole else "a positive number"
        raise InputError(f"{what} must be {kind}, got {entry.text!r}", where)
    return value
