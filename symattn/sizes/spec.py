"""Size specs: a ``[sizes]`` table (and its variants), ``[claims]`` and ``[options]``.

See docs/sizes.md. Every unusable key or value is an ``InputError`` that
names the file and the key, and suggests the closest known name.
"""

from __future__ import annotations

__all__ = ["is_sizes_spec", "read_spec", "load_any", "shapes_of_spec", "SizeClaim", "read_claims",
           "read_options"]

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from symattn.defaults import ROUNDING
from symattn.errors import InputError, Location, did_you_mean
from symattn.problem.limits import DEFAULT, Limits
from symattn.sizes.records import Sizes
from symattn.sizes.shape import FIELDS, REQUIRED, ModelShape
from symattn.values.rules import Rounding, parse_rounding

if TYPE_CHECKING:
    from symattn.problem.problem import Problem

_TOP_LEVEL = ("title", "description", "language", "sizes", "claims", "options")
_ATTENTION_KEYS = ("inputs", "layer", "heads")
_OPTIONS = ("rounding", "decimal_comma")
_VARIANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_CLAIM_KEY = re.compile(r"^\s*(?:(?P<variant>[A-Za-z0-9][A-Za-z0-9_-]*)\.)?"
                        r"(?P<name>[A-Za-z_]\w*)\s*(?:@\s*(?P<label>.*?))?\s*$")


def is_sizes_spec(mapping: object) -> bool:
    """True for a spec that describes a size exercise (a ``[sizes]`` table).

    >>> is_sizes_spec({"sizes": {"d_model": 768}}), is_sizes_spec({"inputs": {}})
    (True, False)
    """
    return isinstance(mapping, Mapping) and "sizes" in mapping


def read_spec(source: str) -> dict[str, Any] | None:
    """The mapping of a spec file when it is a size spec, else None (cheaply).

    A file that cannot be read, or does not mention ``sizes`` at all, gives
    None: the attention spec reader then reports on it as usual.
    """
    # the attention spec reader needs flint: imported only when a file is read
    from symattn.problem import spec as attention_spec

    try:
        text = Path(source).read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    if "sizes" not in text:
        return None
    mapping = attention_spec.read_mapping(text, source)
    return mapping if is_sizes_spec(mapping) else None


def load_any(source: str, limits: Limits = DEFAULT) -> dict[str, Any] | Problem:
    """A spec file read once: the mapping of a size spec, else the attention ``Problem``
    (so a spec on a pipe, ``/dev/stdin`` or ``<(...)``, works)."""
    from symattn.problem import spec as attention_spec

    text = attention_spec.read_file(source)
    mapping = attention_spec.read_mapping(text, source)
    if is_sizes_spec(mapping):
        return mapping
    return attention_spec.problem_of(mapping, text, source, limits)


def read_options(mapping: object, where: Location,
                 rounding: str | None = None) -> tuple[Rounding, bool]:
    """Check the top-level keys and ``[options]``; the rounding rule (``rounding``
    overrides the spec's) and whether a lone comma is a decimal comma."""
    if not isinstance(mapping, Mapping):
        raise InputError("a spec must be a table of keys", where)
    for key in mapping:
        if key not in _TOP_LEVEL:
            also = "; a spec has either [inputs] (attention) or [sizes], not both" \
                if key in _ATTENTION_KEYS else did_you_mean(key, _TOP_LEVEL)
            raise InputError(f"unknown top-level key `{key}` in a size spec{also}",
                             where.at(key=key))
    options = mapping.get("options", {})
    if not isinstance(options, Mapping):
        raise InputError("[options] must be a table", where.at(key="options"))
    for key in options:
        if key not in _OPTIONS:
            hint = did_you_mean(key, _OPTIONS)
            raise InputError(f"unknown option `{key}` for a size spec{hint}; "
                             f"the options are {', '.join(_OPTIONS)}",
                             where.at(key="options").at(key=key))
    rule = parse_rounding(rounding or str(options.get("rounding", ROUNDING)))
    decimal_comma = options.get("decimal_comma", False)
    if not isinstance(decimal_comma, bool):
        raise InputError("decimal_comma must be true or false",
                         where.at(key="options").at(key="decimal_comma"))
    return rule, decimal_comma


def _shape_from(fields: Mapping[str, Any], where: Location) -> ModelShape:
    missing = [name for name in REQUIRED if name not in fields]
    if missing:
        raise InputError(f"missing {', '.join(missing)} (a shape needs d_model, heads and "
                         "seq_len)", where)
    for name, value in fields.items():
        if isinstance(value, str) and name not in ("dtype", "bias"):
            raise InputError(f"{name} must be a whole number, got {value!r}",
                             where.at(key=name))
    return ModelShape(**fields, location=where)


def _split_sizes_table(table: Mapping[str, Any], where: Location
                       ) -> tuple[dict[str, Any], dict[str, Mapping[str, Any]]]:
    """The fields of ``[sizes]`` itself, and its variant tables by name."""
    base: dict[str, Any] = {}
    variants: dict[str, Mapping[str, Any]] = {}
    for key, value in table.items():
        if isinstance(value, Mapping):
            if not _VARIANT_NAME.fullmatch(key):
                raise InputError("a variant name is letters, digits, - and _", where.at(key=key))
            variants[key] = value
        elif key in FIELDS:
            base[key] = value
        else:
            raise InputError(f"unknown field `{key}`{did_you_mean(key, FIELDS)}; the fields are "
                             f"{', '.join(FIELDS)}", where.at(key=key))
    return base, variants


def shapes_of_spec(mapping: Mapping[str, Any], source: str | None = None
                   ) -> dict[str, ModelShape]:
    """The shapes a size spec describes: ``""`` for ``[sizes]`` itself (when it
    has d_model, heads and seq_len) and one per variant table ``[sizes.NAME]``,
    which overrides the fields of ``[sizes]``.

    >>> shapes = shapes_of_spec({"sizes": {"d_model": 4096, "heads": 32, "seq_len": 1024,
    ...                                    "T8192": {"seq_len": 8192}}})
    >>> {name: shape.seq_len for name, shape in shapes.items()}
    {'': 1024, 'T8192': 8192}
    """
    where = Location(file=source, key="sizes")
    table = mapping.get("sizes")
    if not isinstance(table, Mapping):
        raise InputError("[sizes] must be a table of shape fields (d_model, heads, seq_len, "
                         "...)", where)
    base, variants = _split_sizes_table(table, where)
    shapes: dict[str, ModelShape] = {}
    if all(name in base for name in REQUIRED) or not variants:
        shapes[""] = _shape_from(base, where)
    for name, overrides in variants.items():
        here = where.at(key=name)
        for key, value in overrides.items():
            if key not in FIELDS:
                nested = " (variants do not nest)" if isinstance(value, Mapping) else ""
                raise InputError(f"unknown field `{key}`{nested}{did_you_mean(key, FIELDS)}",
                                 here.at(key=key))
        shapes[name] = _shape_from({**base, **overrides}, here)
    return shapes


@dataclass(frozen=True)
class SizeClaim:
    """One ``[claims]`` entry: which quantity or tensor of which shape, and the
    value as written (text, a number, or a list for a shape)."""

    key: str
    variant: str
    name: str
    label: str
    raw: Any
    order: int
    location: Location

    @property
    def position(self) -> str:
        return f"{self.variant}.{self.name}" if self.variant else self.name


def _unknown_variant(variant: str, name: str, shapes: Mapping[str, ModelShape],
                     here: Location) -> InputError:
    if not variant:
        return InputError("[sizes] has no complete shape of its own (d_model, heads, "
                          "seq_len); name the variant: "
                          + ", ".join(f"{v}.{name}" for v in shapes), here)
    return InputError(f"no variant named `{variant}`{did_you_mean(variant, shapes)}; "
                      f"[sizes] has {', '.join(v or '(sizes)' for v in shapes)}", here)


def read_claims(mapping: Mapping[str, Any], shapes: Mapping[str, ModelShape],
                computed: Mapping[str, Sizes], where: Location) -> list[SizeClaim]:
    """The claims of a size spec, in order, each naming something ``computed`` has."""
    table = mapping.get("claims", {})
    if not isinstance(table, Mapping):
        raise InputError("[claims] must be a table: QUANTITY = \"printed value\"", where)
    result: list[SizeClaim] = []
    for key, raw in table.items():
        here = where.at(key=f'"{key}"' if not str(key).isidentifier() else key)
        match = _CLAIM_KEY.match(str(key))
        if not match:
            raise InputError("cannot read this claim key; write QUANTITY, VARIANT.QUANTITY "
                             "or TENSOR, optionally followed by @ label", here)
        variant, name = match["variant"] or "", match["name"]
        if variant not in shapes:
            raise _unknown_variant(variant, name, shapes, here)
        sizes = computed[variant]
        tensors = [t.name for t in sizes.tensors]
        if name not in sizes and name not in tensors:
            extra = " (it needs vocab)" if name in ("embedding_params", "embedding") else ""
            raise InputError(f"no quantity or tensor named `{name}`{extra}"
                             f"{did_you_mean(name, sizes.names() + tensors)}; see docs/sizes.md",
                             here)
        result.append(SizeClaim(str(key), variant, name, (match["label"] or "").strip(), raw,
                                len(result), here))
    return result
