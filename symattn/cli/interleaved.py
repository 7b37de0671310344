"""Spec files and ``--example`` names in any order: ``check a.toml --example 001 b.toml``.

argparse reads a ``FILE ...`` positional once, so a second group of files after an
option is refused as "unrecognized arguments". ``CommandParser`` reads the command
line first: it sets the files aside in their place among the ``--example`` names, hands
argparse the files together, and records the order given (``source_order``), which is
the order the reports come in.

>>> from symattn.cli.options import add_source
>>> parser = CommandParser(prog="check")
>>> add_source(parser, many=True)
>>> _ = parser.add_argument("--format", default="text")
>>> args = parser.parse_args(["a.toml", "--example", "001", "--format", "json", "b.toml"])
>>> args.files, args.example, args.format
(['a.toml', 'b.toml'], ['001'], 'json')
>>> args.source_order
[('file', 'a.toml'), ('example', '001'), ('file', 'b.toml')]
"""

from __future__ import annotations

__all__ = ["CommandParser"]

import argparse
from typing import Any, Sequence

# An option's values: how many tokens follow it (None: any number up to the next option).
_Count = int | None


class CommandParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose ``FILE ...`` positional may be split by options."""

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None,
                         ) -> tuple[argparse.Namespace, list[str]]:
        walked = _walk(self, list(args)) if args is not None and _takes_files(self) else None
        if walked is None:
            return super().parse_known_args(args, namespace)
        files, options, order = walked
        parsed, extras = super().parse_known_args(files + options, namespace)
        parsed.source_order = order
        return parsed, extras


def _takes_files(parser: argparse.ArgumentParser) -> bool:
    return any(action.dest == "files" and action.nargs == "*" for action in parser._actions)


def _walk(parser: argparse.ArgumentParser, tokens: list[str],
          ) -> tuple[list[str], list[str], list[tuple[str, str]]] | None:
    """The files, the options with their values, and the order of files and examples;
    None when the line is one argparse must read itself (``--``, an unknown option)."""
    files: list[str] = []
    options: list[str] = []
    order: list[tuple[str, str]] = []
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "--":
            return None
        if not _is_option(token):
            files.append(token)
            order.append(("file", token))
            index += 1
            continue
        found = _option(parser, token)
        if found is None:
            return None
        action, attached = found
        values = _values(tokens, index + 1, 0 if attached is not None else _count(action))
        options += tokens[index:index + 1 + len(values)]
        if action.dest == "example":
            order += [("example", value) for value in ([attached] if attached else values)]
        index += 1 + len(values)
    return files, options, order


def _is_option(token: str) -> bool:
    if not token.startswith("-") or token == "-":
        return False
    try:
        float(token)        # a negative number is a value, as argparse reads it
    except ValueError:
        return True
    return False


def _option(parser: argparse.ArgumentParser, token: str) -> tuple[Any, str | None] | None:
    """The action of ``token`` and a value attached to it (``--x=1``, ``-x1``), or None."""
    strings = parser._option_string_actions
    if token.startswith("--"):
        name, equals, value = token.partition("=")
        matches = [strings[name]] if name in strings else \
            list({id(a): a for s, a in strings.items() if s.startswith(name)}.values())
        return (matches[0], value if equals else None) if len(matches) == 1 else None
    if token in strings:
        return strings[token], None
    if token[:2] in strings and _count(strings[token[:2]]) != 0:
        return strings[token[:2]], token[2:].removeprefix("=")
    return None


def _count(action: argparse.Action) -> _Count:
    if action.nargs is None:
        return 1
    if action.nargs == argparse.OPTIONAL:
        return -1
    if isinstance(action.nargs, int):
        return action.nargs
    return None


def _values(tokens: list[str], start: int, count: _Count) -> list[str]:
    """The values of an option taking ``count`` of them (-1: at most one; None: any)."""
    if count is not None and count >= 0:
        return tokens[start:start + count]
    values: list[str] = []
    for token in tokens[start:]:
        if _is_option(token) or (count == -1 and values):
            break
        values.append(token)
    return values
