"""``inputs_printed``: which input matrices a document printed rounded.

``inputs_printed = "rounded"`` says every input entry is a rounded print of a
number the document computed with (a notebook printing float32 weights to 4
places); a table says it per matrix::

    [inputs_printed]
    W_Q = "rounded"
    X = "exact"

Each entry of a rounded matrix then stands for the interval of numbers that
print as it: half a unit in its last printed place either side (0.4123 for
[0.41225, 0.41235]). The checker uses them (``verify.input_rounding``).

>>> read_inputs_printed("rounded", ("X", "W_Q"), Location())
('X', 'W_Q')
>>> read_inputs_printed({"W_Q": "rounded", "X": "exact"}, ("X", "W_Q"), Location())
('W_Q',)
>>> read_inputs_printed({"W_K": "rounded"}, ("X", "W_Q"), Location(key="inputs_printed"))
Traceback (most recent call last):
...
symattn.errors.InputError: inputs_printed.W_K: there is no input W_K (the inputs are X, W_Q)
"""

from __future__ import annotations

__all__ = ["read_inputs_printed"]

from typing import Any, Mapping

from symattn.errors import InputError, Location
from symattn.problem.tables import describe

_WORDS = ("rounded", "exact")


def read_inputs_printed(raw: Any, names: tuple[str, ...], where: Location) -> tuple[str, ...]:
    """The names (in input order) of the matrices printed rounded."""
    if isinstance(raw, Mapping):
        chosen = set()
        for name, value in raw.items():
            here = where.at(key=str(name))
            if name not in names:
                raise InputError(f"there is no input {name} (the inputs are "
                                 f"{', '.join(names)})", here)
            if _word(value, here) == "rounded":
                chosen.add(name)
        return tuple(name for name in names if name in chosen)
    return names if _word(raw, where) == "rounded" else ()


def _word(raw: Any, where: Location) -> str:
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word not in _WORDS:
        raise InputError(f"inputs_printed must be \"rounded\" or \"exact\" (or a table of "
                         f"them per matrix), got {describe(raw)}", where)
    return word
