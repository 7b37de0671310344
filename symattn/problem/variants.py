"""Several settings of one example in one spec: the ``[[variants]]`` blocks.

A document often runs one example under several settings (temperatures 0.5,
1 and 2; with and without the scaling) and prints numbers for each. Each
block names its setting, changes some options and lists its own claims::

    [[variants]]
    name = "T = 2"
    options = { temperature = 2 }
    claims = { "weights[1]" = ["0.40", "0.33", "0.27"] }

The inputs are the spec's; a variant's options replace the spec's options of
the same name (the others stay). ``symattn check`` judges the spec's own
claims (if any) and each variant's, one report per variant, in one run
(``verify.variants``).

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"scores": [[1, 0]]}, "options": {"d_k": 1},
...     "variants": [{"name": "T = 2", "options": {"temperature": 2},
...                   "claims": {"weights[1,1]": "0.62"}}]})
>>> [v.name for v in problem.variants]
['T = 2']
"""

from __future__ import annotations

__all__ = ["Variant", "VARIANT_KEYS", "read_variants"]

from dataclasses import dataclass
from typing import Any, Mapping

from symattn.errors import InputError, Location
from symattn.problem.options import OPTION_NAMES, read_options
from symattn.problem.tables import check_keys, describe

VARIANT_KEYS = ("name", "options", "claims")


@dataclass(frozen=True)
class Variant:
    """One setting of the example: its name, the options it changes, its claims."""

    name: str
    options: Mapping[str, Any]
    claims: Mapping[str, Any]


def read_variants(raw: Any, where: Location) -> tuple[Variant, ...]:
    """The ``[[variants]]`` blocks, each checked: a unique name, known options, a claims
    table."""
    if isinstance(raw, Mapping):
        raw = [raw]
    if not isinstance(raw, list) or not raw:
        raise InputError("[[variants]] must be one or more tables", where)
    variants: list[Variant] = []
    for k, block in enumerate(raw, start=1):
        here = where.at(key=f"variants[{k}]")
        if not isinstance(block, Mapping):
            raise InputError(f"a variant must be a table, got {describe(block)}", here)
        check_keys(block, VARIANT_KEYS, here)
        name = block.get("name")
        if not isinstance(name, str) or not name.strip():
            raise InputError("a variant needs a name, e.g. name = \"T = 2\"", here.at(key="name"))
        if any(v.name == name.strip() for v in variants):
            raise InputError(f"two variants are named {name.strip()!r}", here.at(key="name"))
        options, claims = block.get("options", {}), block.get("claims", {})
        if not isinstance(options, Mapping):
            raise InputError("a variant's options must be a table", here.at(key="options"))
        if not isinstance(claims, Mapping):
            raise InputError("a variant's claims must be a table", here.at(key="claims"))
        check_keys(options, OPTION_NAMES, here.at(key="options"))
        read_options(options, here.at(key="options"))      # errors now, located
        variants.append(Variant(name.strip(), dict(options), dict(claims)))
    return tuple(variants)
