"""The modes a spec chooses by name, and the mask record.

Each mode is a ``TextEnum``: a member equals the text a spec writes and prints
as it, so comparisons with plain strings, reports and JSON read as before.

>>> read_mode(" SUM ", Normalisation, "normalisation", Location())
<Normalisation.SUM: 'sum'>
>>> read_mode("alibi", Positions, "positions", Location())
Traceback (most recent call last):
...
symattn.errors.InputError: unknown positions 'alibi'; use none, sinusoidal or rope
"""

from __future__ import annotations

__all__ = ["Normalisation", "FullyMasked", "Positions", "MaskKind", "MaskSpec", "read_mode",
           "listed"]

from dataclasses import dataclass
from typing import Any, TypeVar

from symattn.defaults import TextEnum
from symattn.errors import InputError, Location


class Normalisation(TextEnum):
    """How a row of scores becomes weights (``options.normalisation``)."""

    SOFTMAX = "softmax"   # exponentials over their sum
    SUM = "sum"           # the scores over their sum


class FullyMasked(TextEnum):
    """What a row with every key masked gives (``options.fully_masked``)."""

    ERROR = "error"       # refuse: the softmax of nothing is undefined
    NAN = "nan"           # as PyTorch returns
    ZEROS = "zeros"       # weights of zero, an output of zero


class Positions(TextEnum):
    """Where token positions enter (``options.positions``)."""

    NONE = "none"
    SINUSOIDAL = "sinusoidal"   # encodings added to X
    ROPE = "rope"               # queries and keys rotated


class MaskKind(TextEnum):
    """Which (query, key) pairs a mask closes; a spec names only none and causal."""

    NONE = "none"
    CAUSAL = "causal"     # a query sees its own position and those before
    PADDING = "padding"   # listed key positions are closed to every query
    MATRIX = "matrix"     # a 0/1 or 0/-inf matrix says pair by pair


@dataclass(frozen=True)
class MaskSpec:
    """Which (query, key) pairs may attend: ``kind`` is none, causal, padding or matrix."""

    kind: MaskKind = MaskKind.NONE
    padded_keys: tuple[int, ...] = ()          # 0-based key indices
    allowed: tuple[tuple[bool, ...], ...] | None = None

    def allowed_row(self, row: int, position: int, keys: int) -> list[bool]:
        """Whether query ``row`` (0-based, at 1-based ``position``) may see each key.

        >>> MaskSpec(MaskKind.CAUSAL).allowed_row(0, 2, 3)
        [True, True, False]
        """
        rule = _ROW_RULES.get(self.kind)
        return rule(self, row, position, keys) if rule else [True] * keys


def _causal_row(mask: MaskSpec, row: int, position: int, keys: int) -> list[bool]:
    seen = min(max(position, 0), keys)
    return [True] * seen + [False] * (keys - seen)


def _padding_row(mask: MaskSpec, row: int, position: int, keys: int) -> list[bool]:
    allowed = [True] * keys
    for key in mask.padded_keys:
        if 0 <= key < keys:
            allowed[key] = False
    return allowed


def _matrix_row(mask: MaskSpec, row: int, position: int, keys: int) -> list[bool]:
    return list(mask.allowed[row]) if mask.allowed is not None else [True] * keys


_ROW_RULES = {MaskKind.CAUSAL: _causal_row, MaskKind.PADDING: _padding_row,
              MaskKind.MATRIX: _matrix_row}

Mode = TypeVar("Mode", bound=TextEnum)


def listed(mode: type[TextEnum]) -> str:
    """The members' texts as a sentence lists them: ``error, nan or zeros``."""
    names = [str(member) for member in mode]
    return f"{', '.join(names[:-1])} or {names[-1]}"


def read_mode(raw: Any, mode: type[Mode], what: str, where: Location) -> Mode:
    """The member of ``mode`` that ``raw`` names (case and spaces ignored)."""
    try:
        return mode(str(raw).strip().lower())
    except ValueError:
        raise InputError(f"unknown {what} {raw!r}; use {listed(mode)}", where) from None
