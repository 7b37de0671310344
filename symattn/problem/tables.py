"""Reading the tables of a spec: keys, matrices, entries with their locations.

Shared by the problem and the layer configuration; nothing here knows what a
matrix is for.
"""

from __future__ import annotations

__all__ = ["EntryMatrix", "entry_values", "check_keys", "read_matrix", "read_bool",
           "read_choice", "literal", "describe"]

from itertools import chain
from operator import attrgetter
from typing import Any, Callable, Iterator, Mapping, Sequence, cast

from symattn.values.entries import Entry, parse_entry
from symattn.errors import InputError, Location, ShapeError, counted, cut, did_you_mean
from symattn.values.native import plain_lists

EntryMatrix = tuple[tuple[Entry, ...], ...]


def entry_values(matrix: EntryMatrix) -> Iterator[Any]:
    """Every entry's value, row by row (iterated in C: a large matrix has many)."""
    return map(attrgetter("value"), chain.from_iterable(matrix))


_LONG_KEY = 100   # characters: a longer key is echoed once, cut, and not matched


def _unknown_key(key: str, known: tuple[str, ...], location: Location) -> InputError:
    hint = did_you_mean(key, known) or f"; known keys: {', '.join(known)}"
    return InputError(f"unknown key `{cut(key, _LONG_KEY)}`{hint}", location)


def check_keys(mapping: Mapping[str, Any], known: tuple[str, ...], location: Location) -> None:
    for key in mapping:
        if key not in known:
            text = str(key)
            raise _unknown_key(text, known, location.at(key=text) if len(text) <= _LONG_KEY
                               else location)


def read_matrix(raw: Any, location: Location) -> EntryMatrix:
    """A list of rows (or one flat list, read as a single row) of entries; a NumPy
    array or SymPy matrix is read as its ``tolist()``."""
    raw = plain_lists(raw)
    if isinstance(raw, str) or not isinstance(raw, (list, tuple)):
        raise InputError(f"expected a matrix (a list of rows), got {describe(raw)}", location)
    if not raw:
        raise InputError("the matrix is empty", location)
    rows = raw if all(isinstance(r, (list, tuple)) for r in raw) else None
    if rows is None:
        if any(isinstance(r, (list, tuple)) for r in raw):
            raise InputError("mixes rows (lists) and single numbers", location)
        rows = [raw]
    width = len(rows[0])
    matrix = []
    read = _reader()
    for i, row in enumerate(rows, start=1):
        if len(row) == 0:
            raise InputError("row is empty", location.at(row=i))
        if len(row) != width:
            raise ShapeError(f"ragged matrix: row {i} has {counted(len(row), 'entry', 'entries')}"
                             f" but row 1 has {width}", location.at(row=i))
        try:
            matrix.append(read(row))
        except InputError:
            # Parse again, entry by entry, only to say exactly where the bad one is
            # (building a location for every entry would cost more than parsing).
            for j, value in enumerate(row, start=1):
                parse_entry(literal(value), location.at(row=i, column=j))
            raise
    return tuple(matrix)


def _reader() -> Callable[[Sequence[Any]], tuple[Entry, ...]]:
    """A row's ``parse_entry(literal(value))``, each distinct text read once: a large
    matrix of short decimals repeats a few hundred texts (an entry is immutable, so
    shared), and a row of texts all seen before is looked up without a Python loop."""
    seen: dict[str, Entry] = {}

    def read(value: Any) -> Entry:
        if type(value) is str:
            found = seen.get(value)
            if found is None:
                found = parse_entry(value)
                if len(seen) < 65536:
                    seen[value] = found
            return found
        return parse_entry(literal(value))

    def read_row(row: Sequence[Any]) -> tuple[Entry, ...]:
        try:
            known = tuple(map(seen.get, row))    # only str keys: anything else is not found
        except TypeError:                        # a list or dict: refused entry by entry
            return tuple(map(read, row))
        return cast("tuple[Entry, ...]", known) if all(known) else tuple(map(read, row))

    return read_row


def literal(value: Any) -> Any:
    """A spec value as ``parse_entry`` takes it: a printed number as plain text."""
    # Spec loaders hand numbers over as their printed text (a str subclass).
    return str(value) if isinstance(value, str) else value


def describe(value: Any) -> str:
    """A value as an error message names it: ``the text 'x'``, ``int 3``."""
    if isinstance(value, str):
        return f"the text {str(value)!r}"
    return f"{type(value).__name__} {value!r}"


def read_bool(raw: Any, location: Location) -> bool:
    if isinstance(raw, bool):
        return raw
    raise InputError(f"expected true or false, got {describe(raw)}", location)


def read_choice(raw: Any, choices: tuple[str, ...], location: Location) -> str:
    text = str(raw).strip().lower() if isinstance(raw, str) else None
    if text not in choices:
        raise InputError(f"expected one of {', '.join(choices)}, got {describe(raw)}", location)
    return text
