"""Read spec files (TOML or JSON) without losing how numbers were printed.

TOML and JSON floats are handed to symattn as their text (``PrintedNumber``),
never as binary floats, so ``0.40`` keeps its two places and ``0.855`` is the
rational 171/200. The mapping then goes to ``Problem.from_mapping``.

>>> problem = loads('[inputs]\\nscaled = [[0.40, 1]]\\n[options]\\nscale = "none"', "x.toml")
>>> problem.inputs["scaled"][0][0].places
2
"""

from __future__ import annotations

__all__ = ["PrintedNumber", "load", "loads", "read_mapping", "read_file", "claim_lines",
           "problem_of"]

import dataclasses
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable

from symattn.defaults import MAX_SPEC_BYTES
from symattn.errors import InputError, Location, argument, cut, visible
from symattn.problem.limits import DEFAULT, Limits
from symattn.problem.problem import Problem

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]  # only on 3.10


class PrintedNumber(str):
    """A number from a TOML or JSON file, kept exactly as it was printed."""

    __slots__ = ()


def _toml_float(text: str) -> PrintedNumber:
    # TOML allows digit separators (1_000.5); the digits are what was printed.
    return PrintedNumber(text.replace("_", ""))


def _json_constant(name: str) -> PrintedNumber:
    return PrintedNumber({"-Infinity": "-inf", "Infinity": "inf", "NaN": "nan"}[name])


PairsHook = Callable[[list[tuple[str, Any]]], dict[str, Any]]


class _Object(dict[str, Any]):
    """A JSON object; ``duplicate`` is a key it was given twice (the first such)."""

    duplicate: str | None = None


def _no_duplicates(seen: list[bool]) -> PairsHook:
    """A JSON object hook that notes a key given twice (``_located_problem`` names its
    place once the whole document is read: the hook sees an object before its parent)."""
    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        result = _Object()
        for key, value in pairs:
            if key in result and result.duplicate is None:
                result.duplicate = key
                seen[0] = True
            result[key] = value
        return result
    return hook


# A JSON escape of half a UTF-16 pair: "\ud800" alone is a string no output can write.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _located_problem(value: Any, where: Location, depth: int = 0) -> InputError | None:
    """The first duplicate key or lone surrogate in ``value``, located by its keys (and
    row and column in a matrix)."""
    if isinstance(value, dict):
        duplicate = getattr(value, "duplicate", None)
        if duplicate is not None:
            return InputError(f"duplicate key `{cut(visible(duplicate))}`", where.at(key=duplicate))
        for key, item in value.items():
            if _SURROGATE.search(key):
                return InputError("a key holds a lone UTF-16 surrogate (a \\ud800-\\udfff "
                                  f"escape without its pair): `{visible(cut(key))}`", where)
            found = _located_problem(item, where.at(key=key), depth)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value, start=1):
            inner = where.at(row=index) if depth == 0 else where.at(column=index)
            found = _located_problem(item, inner, depth + 1)
            if found is not None:
                return found
    elif isinstance(value, str) and _SURROGATE.search(value):
        return InputError("text with a lone UTF-16 surrogate (a \\ud800-\\udfff escape "
                          f"without its pair): {visible(cut(value))!r}", where)
    return None


_LONG_NUMBER = ("a whole number has more than 4,300 digits, which Python does not read; "
                "symattn reads entries of up to 2,000 characters")


def read_mapping(text: str, source: str, kind: str | None = None) -> dict[str, Any]:
    """Parse spec text as TOML or JSON (chosen by ``kind`` or the file name)."""
    if kind is None:
        suffix = Path(source).suffix.lower()
        kind = "json" if suffix == ".json" else "toml" if suffix == ".toml" else (
            "json" if text.lstrip().startswith("{") else "toml")
    where = Location(file=source)
    if kind == "json":
        seen = [False]
        try:
            data = json.loads(text, parse_float=PrintedNumber, parse_constant=_json_constant,
                              object_pairs_hook=_no_duplicates(seen))
        except json.JSONDecodeError as error:
            raise InputError(f"not valid JSON: {error.msg} (line {error.lineno}, column "
                             f"{error.colno})", where) from None
        except RecursionError:
            raise InputError("JSON nested too deeply", where) from None
        except ValueError:              # an integer of more than 4300 digits
            raise InputError(f"not valid JSON: {_LONG_NUMBER}", where) from None
        if not isinstance(data, dict):
            raise InputError("a JSON spec must be an object {...}", where)
        if seen[0] or _SURROGATE_ESCAPE.search(text):
            try:
                problem = _located_problem(data, where)
            except RecursionError:
                raise InputError("JSON nested too deeply", where) from None
            if problem is not None:
                raise problem
        return data
    try:
        # typed here: on Python 3.10 mypy sees tomli, which may not be installed
        table: dict[str, Any] = tomllib.loads(text, parse_float=_toml_float)
    except tomllib.TOMLDecodeError as error:
        hint = "; a key or table is given twice" if str(error).startswith(
            ("Cannot overwrite", "Cannot declare")) else ""
        raise InputError(f"not valid TOML: {error}{hint}", where) from None
    except RecursionError:
        raise InputError("TOML nested too deeply", where) from None
    except ValueError:              # an integer of more than 4300 digits
        raise InputError(f"not valid TOML: {_LONG_NUMBER}", where) from None
    return table


def loads(text: str, source: str = "<spec>", kind: str | None = None,
          limits: Limits = DEFAULT) -> Problem:
    """A Problem from spec text; ``kind``: "toml", "json" or None (from the name)."""
    if not isinstance(text, str):
        raise argument("loads", "text", f"expected the spec's text (str), got "
                       f"{type(text).__name__}; use symattn.load(path) for a file")
    if kind not in (None, "toml", "json"):
        raise argument("loads", "kind", f"kind must be \"toml\", \"json\" or None (from the "
                       f"file name), got {kind!r}")
    return problem_of(read_mapping(text, source, kind), text, source, limits)


def problem_of(mapping: Any, text: str, source: str, limits: Limits = DEFAULT) -> Problem:
    """The Problem of a spec's mapping, with the line of each claim in its ``text``."""
    problem = Problem.from_mapping(mapping, source=source, limits=limits)
    if not problem.claims:
        return problem
    return dataclasses.replace(problem, claim_lines=claim_lines(text))


_TOML_KEY = re.compile(r"""\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_\-]+)\s*=""")
_JSON_KEY = re.compile(r'"((?:[^"\\]|\\.)*)"\s*:')


def claim_lines(text: str) -> dict[str, int]:
    """The 1-based line of each key of the ``[claims]`` table (TOML) or ``"claims"``
    object (JSON), as reports name it.

    >>> claim_lines('title = "t"\\n[claims]\\n"weights[2,1]" = "0.35"\\nscaled = [[1]]')
    {'weights[2,1]': 3, 'scaled': 4}
    """
    lines: dict[str, int] = {}
    in_claims = False
    json_claims = text.lstrip().startswith("{")
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if json_claims:
            if not in_claims:
                in_claims = '"claims"' in stripped
                continue
            for match in _JSON_KEY.finditer(line):
                try:
                    lines.setdefault(json.loads(f'"{match.group(1)}"'), number)
                except ValueError:
                    continue
            continue
        if stripped.startswith("["):
            in_claims = stripped.split("#")[0].strip() == "[claims]"
            continue
        found = _TOML_KEY.match(line) if in_claims else None
        if found:
            key = found.group(1)
            key = key[1:-1] if key[0] == "'" else json.loads(key) if key[0] == '"' else key
            lines.setdefault(key, number)
    return lines


def load(path: str | Path, limits: Limits = DEFAULT) -> Problem:
    """A Problem from a spec file (``.toml`` or ``.json``)."""
    if not isinstance(path, (str, os.PathLike)):
        raise argument("load", "path", f"expected a file path, got {type(path).__name__}")
    return loads(read_file(path), str(path), limits=limits)


def read_file(path: str | Path) -> str:
    """The text of a spec file, read once: a pipe (``/dev/stdin``, ``<(...)``) works too.

    A name without ``.toml`` or ``.json`` is read as JSON when the text starts with
    ``{``, else as TOML.
    """
    path = Path(path)
    source = str(path)
    try:
        with path.open("rb") as stream:       # at most the limit: a device may never end
            raw = stream.read(MAX_SPEC_BYTES + 1)
    except FileNotFoundError:
        raise InputError("no such file", Location(file=source)) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a spec file", Location(file=source)) from None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", Location(file=source)) from None
    if len(raw) > MAX_SPEC_BYTES:
        raise InputError(f"larger than {MAX_SPEC_BYTES // 2**20} MiB: not a spec file",
                         Location(file=source))
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text (byte {error.start + 1} is 0x{raw[error.start]:02x}); "
                         "save the file as UTF-8", Location(file=source)) from None
    return text
