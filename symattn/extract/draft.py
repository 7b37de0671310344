"""The draft spec as TOML text: inputs, options and claims with their document lines.

Each claim carries a comment: the document line, the text around the number,
the confidence (certain / likely / guess) and why. A quantity printed again
is claimed again under a label naming its line (``@ line 52`` in the
document's language), so every printing gets its own verdict. Numbers not
placed are listed at the end with their lines.
"""

from __future__ import annotations

__all__ = ["toml_value", "toml_key", "comment", "claims_table", "Claimed", "label_claims"]

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from symattn.extract.place import Placement
from symattn.extract.scanner import Number

_BARE_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_CONTEXT = 60
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f\u2028\u2029]")


def comment(text: str) -> str:
    """Text fit for a TOML comment: control characters shown as U+FFFD."""
    return _CONTROL.sub("\ufffd", text)


def toml_value(value: Any) -> str:
    """A TOML value: numbers as printed stay bare, everything else quoted."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return value if _BARE_NUMBER.match(value) and not isinstance(value, _Quoted) \
            else json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


class _Quoted(str):
    """A string always written quoted (a printed number in a claim)."""


def _quoted(layout: Any) -> Any:
    if isinstance(layout, list):
        return [_quoted(v) for v in layout]
    return _Quoted(layout)


def toml_key(key: str) -> str:
    return key if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", key) else json.dumps(key,
                                                                             ensure_ascii=False)


@dataclass(frozen=True)
class Claimed:
    """A placement with the key it is written under (a label when printed again)."""

    key: str
    placement: Placement


def label_claims(placements: Sequence[Placement], line_word: str) -> list[Claimed]:
    """Keys for the placements: the first printing plain, later ones labelled by line."""
    seen: set[Any] = set()
    used: set[str] = set()
    claimed = []
    for placement in placements:
        key = placement.key
        if any(t in seen for t in placement.targets) or key in used:
            label = line_word.format(line=placement.line)
            key, count = f"{placement.key} @ {label}", 2
            while key in used:
                key, count = f"{placement.key} @ {label}, {count}", count + 1
        seen.update(placement.targets)
        used.add(key)
        claimed.append(Claimed(key, placement))
    return claimed


def _context(lines: Mapping[int, str], number: Number) -> str:
    text = lines.get(number.line, "").strip()
    if len(text) > _CONTEXT:
        column = max(0, number.column - 1 - (len(lines.get(number.line, "")) -
                                             len(lines.get(number.line, "").lstrip())))
        start = max(0, min(column - _CONTEXT // 2, len(text) - _CONTEXT))
        text = ("…" if start else "") + text[start:start + _CONTEXT] + "…"
    return comment(text)


def claims_table(claimed: Sequence[Claimed], unplaced: Sequence[Number],
                 lines: Mapping[int, str], cells: Mapping[int, str] | None = None) -> str:
    """The ``[claims]`` table with a comment per claim, then the numbers not placed;
    ``cells``: for a notebook, " (cell C, line L)" after each line number."""
    out = ["[claims]", "# In document order. Each claim: its line, the text around it, how sure "
           "the placement is", "# (certain / likely / guess) and why. Check the guesses."]
    for item in claimed:
        placement = item.placement
        first = placement.numbers[0]
        where = (cells or {}).get(first.line, "")
        out.append(comment(f"# line {first.line}{where}: {_context(lines, first)}"))
        out.append(comment(f"#   {placement.confidence}: {placement.why}"))
        out.append(f"{toml_key(item.key)} = {toml_value(_quoted(placement.layout))}")
    if unplaced:
        out.append("")
        out.append("# Numbers not placed (errors, or quantities outside this computation):")
        for number in unplaced:
            out.append(comment(f"#   line {number.line}{(cells or {}).get(number.line, '')}, "
                               f"column {number.column}: "
                               f"{number.printed}   | {_context(lines, number)}"))
    return "\n".join(out) + "\n"
