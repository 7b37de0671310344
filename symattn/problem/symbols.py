"""What a reader asks of a symbol: the spec's ``[symbols]`` table and the CLI's
``--limit``, ``--derivative`` and ``--subs``.

A small grammar of its own, never SymPy's parser: a limit is ``NAME -> 0+`` or
``NAME -> oo`` (also ``inf``, the arrow ``→`` and ``∞``), a derivative is a
symbol's name, a substitution is ``NAME = VALUE`` with the value read by the
entry parser (``values.entries.parse_entry``), a number without symbols. The
names must be symbols of the spec.

>>> from symattn.errors import Location
>>> asked = read_symbols({"limits": ["T -> 0+", "T->oo"], "derivative": "T",
...                       "subs": {"T": "0.5"}}, ("T",), Location())
>>> asked.limits, asked.derivative, [(name, str(value)) for name, value in asked.subs]
(((T, 0+), (T, oo)), 'T', [('T', '1/2')])
"""

from __future__ import annotations

__all__ = ["SYMBOL_KEYS", "Limit", "SymbolQuestions", "read_symbols", "parse_limit", "parse_subs",
           "parse_subs_text", "symbol_names", "spec_symbols", "with_options"]

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from symattn.errors import InputError, Location
from symattn.values.entries import Symbolic, parse_entry
from symattn.values.exact import Exact

SYMBOL_KEYS = ("limits", "derivative", "subs")
_LIMIT = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:->|→)\s*(0\s*\+|0\^\+|oo|inf|\+inf|∞)\s*$")
_SUBS = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_]*)\s*=\s*(.+?)\s*$")


@dataclass(frozen=True)
class Limit:
    """``symbol -> 0+`` (``to`` = "0+") or ``symbol -> oo`` (``to`` = "oo")."""

    symbol: str
    to: str

    def __repr__(self) -> str:
        return f"({self.symbol}, {self.to})"


@dataclass(frozen=True)
class SymbolQuestions:
    """The limits, the derivative and the substitution asked for."""

    limits: tuple[Limit, ...] = ()
    derivative: str = ""
    subs: tuple[tuple[str, Exact], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.limits or self.derivative or self.subs)


def symbol_names(values: Iterable[object]) -> tuple[str, ...]:
    """The identifiers in these values (``Symbolic`` entries), in order of first use."""
    names: list[str] = []

    def walk(tree: tuple[Any, ...]) -> None:
        if tree[0] == "sym":
            if tree[1] not in names:
                names.append(tree[1])
            return
        for part in tree[1:]:
            if isinstance(part, tuple):
                walk(part)

    for value in values:
        if isinstance(value, Symbolic):
            walk(value.tree)
    return tuple(names)


def _known(name: str, known: tuple[str, ...], where: Location) -> str:
    if name not in known:
        have = ", ".join(known) if known else "none"
        raise InputError(f"{name!r} is not a symbol of this spec (its symbols: {have})", where)
    return name


def parse_limit(text: object, known: tuple[str, ...], where: Location) -> Limit:
    """``T -> 0+`` or ``T -> oo``."""
    match = _LIMIT.match(text) if isinstance(text, str) else None
    if match is None:
        raise InputError(f"a limit is written NAME -> 0+ or NAME -> oo, got {text!r}", where)
    to = "0+" if match[2].startswith("0") else "oo"
    return Limit(_known(match[1], known, where), to)


def parse_subs(name: str, raw: object, known: tuple[str, ...], where: Location
               ) -> tuple[str, Exact]:
    """One substitution: a symbol of the spec and a number (no symbols) for it."""
    _known(name, known, where)
    value = parse_entry(raw if isinstance(raw, (str, int)) else str(raw), where).value
    if isinstance(value, Symbolic):
        raise InputError(f"the value substituted for {name} must be a number, got "
                         f"{value.text!r}", where)
    return name, value


def parse_subs_text(text: str, known: tuple[str, ...], where: Location
                    ) -> tuple[tuple[str, Exact], ...]:
    """``T=0.5`` (several separated by ``;``), as ``--subs`` gives them."""
    pairs = []
    for part in text.split(";"):
        match = _SUBS.match(part)
        if match is None:
            raise InputError(f"a substitution is written NAME=VALUE, got {part!r}", where)
        pairs.append(parse_subs(match[1], match[2], known, where))
    return tuple(pairs)


def read_symbols(table: object, known: tuple[str, ...], where: Location) -> SymbolQuestions:
    """The ``[symbols]`` table: ``limits`` (a list), ``derivative`` (a name), ``subs``
    (a table of name = value)."""
    if not isinstance(table, Mapping):
        raise InputError("[symbols] must be a table", where)
    for key in table:
        if key not in SYMBOL_KEYS:
            raise InputError(f"unknown key {key!r}; known: {', '.join(SYMBOL_KEYS)}",
                             where.at(key=f"symbols.{key}"))
    raw_limits = table.get("limits", [])
    if isinstance(raw_limits, str):
        raw_limits = [raw_limits]
    if not isinstance(raw_limits, list):
        raise InputError("limits must be a list such as [\"T -> 0+\", \"T -> oo\"]",
                         where.at(key="symbols.limits"))
    limits = tuple(parse_limit(text, known, where.at(key="symbols.limits", column=k))
                   for k, text in enumerate(raw_limits, start=1))
    derivative = table.get("derivative", "")
    if not isinstance(derivative, str):
        raise InputError("derivative must be the name of a symbol",
                         where.at(key="symbols.derivative"))
    if derivative:
        _known(derivative.strip(), known, where.at(key="symbols.derivative"))
    raw_subs = table.get("subs", {})
    if not isinstance(raw_subs, Mapping):
        raise InputError("subs must be a table such as {T = \"0.5\"}",
                         where.at(key="symbols.subs"))
    subs = tuple(parse_subs(str(name), value, known, where.at(key=f"symbols.subs.{name}"))
                 for name, value in raw_subs.items())
    return SymbolQuestions(limits, derivative.strip(), subs)


def spec_symbols(inputs: Mapping[str, Any], temperature: object, scale: object
                 ) -> tuple[str, ...]:
    """The symbols of a spec: those of its input matrices, temperature and scale."""
    return symbol_names([entry.value for matrix in inputs.values() for row in matrix
                         for entry in row] + [temperature, scale])


def with_options(asked: SymbolQuestions, known: tuple[str, ...], limits: Iterable[str] = (),
                 derivative: str | None = None, subs: str | None = None) -> SymbolQuestions:
    """The spec's questions with the command line's added: ``--limit`` (each one more
    limit), ``--derivative`` and ``--subs`` (in place of the spec's)."""
    where = Location()
    added = tuple(parse_limit(text, known, where.at(key="--limit")) for text in limits)
    return SymbolQuestions(
        asked.limits + tuple(limit for limit in added if limit not in asked.limits),
        _known(derivative.strip(), known, where.at(key="--derivative")) if derivative
        else asked.derivative,
        parse_subs_text(subs, known, where.at(key="--subs")) if subs else asked.subs)
