"""Sheets for a real lesson: presets and calculator-free numbers.

A preset chooses the exercises, how long each is and how much room the sheet
leaves for working:

* ``lesson45``: 5 exercises (a softmax table of 3 scores, missing scores, an
  output row, find the error, entropy), about 24 blanks and at most 6
  exponentials, room for working under each exercise: two pages;
* ``homework``: 10 exercises (every kind but ``fill_matrix``), no room (own
  paper);
* ``exam``: 6 exercises (softmax table, a row of weights, an output row, find
  the error, entropy, sizes), about 30 blanks, room for working.

In a lesson the find-the-error exercise plants a mistake whose correct row
needs no exponential (not ``rounded_carried``). ``numbers="calculator-free"``
makes every answer exact and short (a whole number, a fraction, 0.5, 1.75):
softmax scores are ``ln k`` (``worksheets.calcfree``), d_k is a perfect
square, and find-the-error plants only ``no_scaling``, ``kv_swapped`` or
``leaked_future`` with d_k = 4; kinds with no calculator-free form are left
out of a preset and refused when asked for by name.

>>> plan = resolve("lesson45", None, (), "standard")
>>> plan.kinds, plan.compact
(('softmax_table', 'fill_matrix', 'output_row', 'find_error', 'entropy'), True)
>>> resolve("exam", None, (), "calculator-free").kinds
('softmax_table', 'output_row', 'find_error', 'entropy', 'sizes')
"""

from __future__ import annotations

__all__ = ["PRESETS", "NUMBERS", "Preset", "Plan", "resolve", "builder", "space_of",
           "CALCULATOR_FREE_KINDS"]

from dataclasses import dataclass
from typing import Sequence

from symattn.errors import InputError
import symattn.worksheets.calcfree as calcfree
from symattn.worksheets.catalog import DEFAULT_KINDS, KINDS
from symattn.worksheets.model import Builder

NUMBERS = ("standard", "calculator-free")
LESSON_MISTAKES = ("no_scaling", "column_softmax", "kv_swapped", "leaked_future")
FREE_MISTAKES = ("no_scaling", "kv_swapped", "leaked_future")
# Kinds whose answers are whole numbers or short decimals as they are, and the
# calculator-free forms of the others.
_FREE_AS_IS = ("scores_row", "fill_matrix", "find_error", "entropy", "sizes")
_FREE_FORMS: dict[str, Builder] = {"softmax_table": calcfree.softmax_table,
                                   "output_row": calcfree.output_row}
CALCULATOR_FREE_KINDS = tuple(k for k in KINDS if k in _FREE_AS_IS or k in _FREE_FORMS)


@dataclass(frozen=True)
class Preset:
    """The exercises of a kind of sheet and the room it leaves for working."""

    kinds: tuple[str, ...]
    space: str = ""                      # LaTeX length under each exercise ("" none)
    compact: bool = False                # shorter exercises (``Setup.compact``)
    mistakes: tuple[str, ...] = ()       # find_error: what may be planted (all)


PRESETS = {
    "lesson45": Preset(("softmax_table", "fill_matrix", "output_row", "find_error", "entropy"),
                       "2cm", True, LESSON_MISTAKES),
    "homework": Preset(tuple(DEFAULT_KINDS[:-2]) + ("no_scaling", "entropy", "sizes")),
    "exam": Preset(("softmax_table", "weights_row", "output_row", "find_error", "entropy",
                    "sizes"), "2cm", True, LESSON_MISTAKES),
}


@dataclass(frozen=True)
class Plan:
    """What ``sheet.build`` makes: kinds in order, the mistakes, compact exercises."""

    kinds: tuple[str, ...]
    mistakes: tuple[str, ...]
    compact: bool
    numbers: str


def space_of(preset: str) -> str:
    """The room for working under each exercise of a ``preset`` sheet ("" none)."""
    return PRESETS[preset].space if preset in PRESETS else ""


def resolve(preset: str | None, kinds: Sequence[str] | None, mistakes: Sequence[str],
            numbers: str) -> Plan:
    """The kinds, mistakes and length of a sheet from a preset, ``--exercises``,
    ``--mistakes`` and ``--numbers`` (explicit choices win over the preset's)."""
    if numbers not in NUMBERS:
        raise InputError(f"unknown numbers {numbers!r}; known: {', '.join(NUMBERS)}")
    if preset is not None and preset not in PRESETS:
        raise InputError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
    chosen = PRESETS[preset] if preset is not None else None
    free = numbers == "calculator-free"
    if kinds is not None:
        out = tuple(kinds)
        refused = [k for k in out if free and k not in CALCULATOR_FREE_KINDS]
        if refused:
            raise InputError(f"{', '.join(refused)}: no calculator-free form (calculator-free "
                             f"kinds: {', '.join(CALCULATOR_FREE_KINDS)})")
    elif chosen is not None:
        out = tuple(k for k in chosen.kinds if not free or k in CALCULATOR_FREE_KINDS)
    else:
        out = tuple(k for k in DEFAULT_KINDS if not free or k in CALCULATOR_FREE_KINDS)
    planted = tuple(mistakes) or (FREE_MISTAKES if free else
                                  chosen.mistakes if chosen is not None else ())
    wrong = [m for m in planted if free and m not in FREE_MISTAKES]
    if wrong:
        raise InputError(f"{', '.join(wrong)}: not a calculator-free mistake (choose from "
                         f"{', '.join(FREE_MISTAKES)})")
    return Plan(out, planted, chosen.compact if chosen is not None else False, numbers)


def builder(kind: str, numbers: str) -> Builder:
    """The builder of ``kind`` for ``numbers``."""
    if numbers == "calculator-free" and kind in _FREE_FORMS:
        return _FREE_FORMS[kind]
    return KINDS[kind]
