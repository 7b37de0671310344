"""A spec's mapping (as ``spec.read_mapping`` reads it) written back as TOML text.

``symattn serve`` writes the spec its form describes, so that the form and the
spec's text always say the same. Numbers stay as they were printed
(``PrintedNumber``: "0.30" stays "0.30"); comments of the original text are not
kept. Reading the text again gives the same mapping.

>>> print(dumps({"title": "a \\"b\\"", "inputs": {"Q": [[1, "1/2"]]},
...              "claims": {"weights[1,1]": "0.42"}}))
title = "a \\"b\\""
<BLANKLINE>
[inputs]
Q = [[1, "1/2"]]
<BLANKLINE>
[claims]
"weights[1,1]" = "0.42"
<BLANKLINE>
"""

from __future__ import annotations

__all__ = ["dumps"]

import json
import re
from typing import Any, Mapping

from symattn.problem.spec import PrintedNumber

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _value(value: Any) -> str:
    """A TOML value: an inline table or array, a number as printed, a quoted string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, PrintedNumber):
        return str(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):      # JSON's escapes are all TOML's basic-string escapes
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot write {type(value).__name__} as TOML")


def _table(mapping: Mapping[str, Any], path: tuple[str, ...], out: list[str]) -> None:
    """``mapping``'s values, then its sub-tables under their dotted headers."""
    if path:
        out += ["", "[" + ".".join(_key(k) for k in path) + "]"]
    tables = []
    for key, value in mapping.items():
        if isinstance(value, Mapping):
            tables.append((key, value))
        else:
            out.append(f"{_key(key)} = {_value(value)}")
    for key, value in tables:
        _table(value, (*path, key), out)


def dumps(mapping: Mapping[str, Any]) -> str:
    """``mapping`` as TOML text, its tables after its plain values."""
    out: list[str] = []
    _table(mapping, (), out)
    return "\n".join(out).lstrip("\n") + "\n"
