"""Reading the ``[options]`` table: one reader per option, looked up by name.

Each reader takes the option's value and its location and returns the
``Problem`` fields it sets; an option left out keeps the ``Problem`` default.

>>> options = read_options({"mask": "causal", "normalization": "sum", "digits": 3}, Location())
>>> options["mask"].kind, options["normalisation"], options["digits"]
(<MaskKind.CAUSAL: 'causal'>, <Normalisation.SUM: 'sum'>, 3)
>>> read_options({"heads": 0}, Location(key="options"))
Traceback (most recent call last):
...
symattn.errors.InputError: options.heads: heads must be a positive whole number, got '0'
"""

from __future__ import annotations

__all__ = ["OPTION_NAMES", "OptionFields", "read_options"]

from typing import Any, Callable, Mapping, TypedDict

from flint import fmpq

from symattn.defaults import MAX_DIGITS
from symattn.errors import InputError, Location, did_you_mean
from symattn.problem.modes import FullyMasked, MaskKind, MaskSpec, Normalisation, Positions, \
    read_mode
from symattn.problem.tables import EntryMatrix, describe, literal, read_matrix
from symattn.values.entries import Entry, Symbolic, parse_entry
from symattn.values.exact import NEG_INF, Exact, Surd
from symattn.values.rules import Rounding, parse_rounding

OPTION_NAMES = ("d_k", "scale", "temperature", "mask", "normalisation", "normalization",
                "fully_masked", "query_positions", "digits", "rounding", "heads", "kv_heads",
                "positions", "position_base", "max_shift", "number_format", "order",
                "precision")


class OptionFields(TypedDict, total=False):
    """The ``Problem`` fields the options set; only those given are present."""

    d_k: int
    scale: Exact | Symbolic
    temperature: Exact | Symbolic
    mask: MaskSpec
    normalisation: Normalisation
    fully_masked: FullyMasked
    query_positions: tuple[int, ...]
    heads: int
    kv_heads: int
    position_base: int
    positions: Positions
    digits: int
    rounding: Rounding
    max_shift: bool | None
    number_format: str
    order: tuple[str, ...]
    precision: str


def _read_d_k(raw: Any, where: Location) -> OptionFields:
    return {"d_k": _positive_int(raw, where, "d_k")}


def _read_scale(raw: Any, where: Location) -> OptionFields:
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word in ("none", "1", "off"):
        return {"scale": fmpq(1)}
    if word == "default":
        return {}                       # 1/sqrt(d_k), as if not given
    return {"scale": _positive_value(raw, where, "scale")}


def _read_temperature(raw: Any, where: Location) -> OptionFields:
    return {"temperature": _positive_value(raw, where, "temperature")}


def _read_normalisation(raw: Any, where: Location) -> OptionFields:
    return {"normalisation": read_mode(raw, Normalisation, "normalisation", where)}


def _read_fully_masked(raw: Any, where: Location) -> OptionFields:
    return {"fully_masked": read_mode(raw, FullyMasked, "fully_masked policy", where)}


def _read_mask_option(raw: Any, where: Location) -> OptionFields:
    return {"mask": read_mask(raw, where)}


def _read_query_positions(raw: Any, where: Location) -> OptionFields:
    if not isinstance(raw, list) or not raw:
        raise InputError("query_positions must be a list of 1-based positions", where)
    return {"query_positions": tuple(_positive_int(position, where.at(column=k), "a position")
                                     for k, position in enumerate(raw, start=1))}


def _read_heads(raw: Any, where: Location) -> OptionFields:
    return {"heads": _positive_int(raw, where, "heads")}


def _read_kv_heads(raw: Any, where: Location) -> OptionFields:
    return {"kv_heads": _positive_int(raw, where, "kv_heads")}


def _read_position_base(raw: Any, where: Location) -> OptionFields:
    return {"position_base": _positive_int(raw, where, "position_base")}


def _read_positions(raw: Any, where: Location) -> OptionFields:
    return {"positions": read_mode(raw, Positions, "positions", where)}


def _read_digits(raw: Any, where: Location) -> OptionFields:
    digits = _positive_int(raw, where, "digits")
    if digits > MAX_DIGITS:
        raise InputError(f"digits must be between 1 and {MAX_DIGITS}, got {digits}", where)
    return {"digits": digits}


def _read_rounding(raw: Any, where: Location) -> OptionFields:
    try:
        return {"rounding": parse_rounding(str(raw))}
    except InputError as error:
        raise InputError(error.message, where) from None


def _read_max_shift(raw: Any, where: Location) -> OptionFields:
    """``max_shift``: "auto" (shift where an exponential would pass about 10^6), true, false."""
    if isinstance(raw, bool):
        return {"max_shift": raw}
    word = raw.strip().lower() if isinstance(raw, str) else None
    if word in ("auto", "on", "off", "true", "false"):
        return {"max_shift": None if word == "auto" else word in ("on", "true")}
    raise InputError(f"max_shift must be \"auto\", true or false, got {describe(raw)}", where)


def _read_number_format(raw: Any, where: Location) -> OptionFields:
    """``number_format``: how the document writes 1234.5 ("1,234.5", "1 234,5", "1.234,5")."""
    from symattn.values.number_reading import NUMBER_FORMATS

    text = raw.replace("\u00a0", " ").replace("\u202f", " ").replace("\u2009", " ") \
        if isinstance(raw, str) else raw
    if text not in NUMBER_FORMATS:
        raise InputError("number_format must be one of " + ", ".join(
            f'"{name}"' for name in NUMBER_FORMATS) + f", got {describe(raw)}"
                         + did_you_mean(text, NUMBER_FORMATS), where)
    return {"number_format": str(text)}


def _read_order(raw: Any, where: Location) -> OptionFields:
    """``order``: the operations on the raw scores in the document's order, a list (or
    comma-separated text) of "scale", "temperature", "mask" (``derivation.order``)."""
    items = [part.strip().lower() for part in raw.split(",")] if isinstance(raw, str) else raw
    known = ("scale", "temperature", "mask")
    if not isinstance(items, list) or not items or not all(
            isinstance(item, str) and item.strip().lower() in known for item in items):
        raise InputError("order must list \"scale\", \"temperature\" and \"mask\" in the "
                         f"order the document applies them, got {describe(raw)}", where)
    order = tuple(item.strip().lower() for item in items)
    if len(set(order)) != len(order):
        raise InputError(f"order names an operation twice: {describe(raw)}", where)
    if "mask" not in order:
        order += ("mask",)               # a mask left out is added last, as by default
    return {"order": order}
def _read_precision(raw: Any, where: Location) -> OptionFields:
    """``precision``: exact (the default) or the floating-point format a framework used."""
    from symattn.values.floats import PRECISIONS

    word = raw.strip().lower() if isinstance(raw, str) else None
    if word not in PRECISIONS:
        raise InputError(f"precision must be one of {', '.join(PRECISIONS)}, got "
                         f"{describe(raw)}{did_you_mean(raw, PRECISIONS)}", where)
    return {"precision": word}


OptionReader = Callable[[Any, Location], OptionFields]

# In the order they are read, which decides the error reported when several
# options are wrong. Each is read under the first of its spellings given.
_READERS: dict[tuple[str, ...], OptionReader] = {
    ("d_k",): _read_d_k, ("scale",): _read_scale, ("temperature",): _read_temperature,
    ("normalisation", "normalization"): _read_normalisation,
    ("fully_masked",): _read_fully_masked, ("mask",): _read_mask_option,
    ("query_positions",): _read_query_positions, ("heads",): _read_heads,
    ("kv_heads",): _read_kv_heads, ("position_base",): _read_position_base,
    ("positions",): _read_positions, ("digits",): _read_digits, ("rounding",): _read_rounding,
    ("max_shift",): _read_max_shift, ("number_format",): _read_number_format,
    ("order",): _read_order, ("precision",): _read_precision,
}


def read_options(raw: Mapping[str, Any], where: Location) -> OptionFields:
    """The fields set by an ``[options]`` table whose keys are known to be option names."""
    fields: OptionFields = {}
    for spellings, reader in _READERS.items():
        key = next((spelling for spelling in spellings if spelling in raw), None)
        if key is not None:
            fields.update(reader(raw[key], where.at(key=key)))
    return fields


_LARGEST_COUNT = 10 ** 9   # heads, d_k, positions: far beyond any model, far below overflow


def _positive_int(raw: Any, where: Location, what: str) -> int:
    """A whole number from 1 to a billion; ``what`` names it in the error."""
    entry = parse_entry(literal(raw), where)
    value = entry.value
    if not isinstance(value, fmpq) or value.q != 1 or value <= 0:
        raise InputError(f"{what} must be a positive whole number, got {entry.text!r}", where)
    if value > _LARGEST_COUNT:
        raise InputError(f"{what} must be at most {_LARGEST_COUNT:,}, got {entry.text!r}", where)
    return int(value.p)


def _positive_value(raw: Any, where: Location, what: str) -> Exact | Symbolic:
    entry = parse_entry(literal(raw), where)
    value = entry.value
    if isinstance(value, fmpq) and value <= 0 or isinstance(value, Surd) and value.coefficient <= 0:
        raise InputError(f"{what} must be positive, got {entry.text!r}", where)
    if isinstance(value, Symbolic) and _not_positive(value):
        raise InputError(f"{what} must be positive, got {entry.text!r}", where)
    if value is NEG_INF:
        raise InputError(f"{what} must be a positive number, got {entry.text!r}", where)
    return value


def _not_positive(value: Symbolic) -> bool:
    """Whether an expression is a number at most 0 (decided on balls); also one whose
    names cancel (``a - a`` is 0) or that is no number at all (``1/(a - a)``)."""
    import sympy

    from symattn.values.arith import sign
    from symattn.values.exact import Irrational
    from symattn.values.symbolic import to_ball

    expression = value.to_sympy()
    if expression.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo) or expression == 0:
        return True
    if _has_identifier(value.tree) and expression.free_symbols:
        return False
    return bool(expression.is_number) and sign(Irrational(value.text, lambda bits: to_ball(
        expression, bits))) <= 0


def _has_identifier(tree: tuple[Any, ...]) -> bool:
    if tree[0] == "sym":
        return True
    return any(isinstance(part, tuple) and _has_identifier(part) for part in tree[1:])


def read_mask(raw: Any, where: Location) -> MaskSpec:
    """``options.mask``: none, causal, padded key positions, or a 0/1 or 0/-inf matrix."""
    if isinstance(raw, str):
        kind = raw.strip().lower()
        if kind in (MaskKind.NONE, MaskKind.CAUSAL):
            return MaskSpec(kind=MaskKind(kind))
        raise InputError(f"unknown mask {raw!r}{did_you_mean(kind, ('none', 'causal'))}; use "
                         "\"none\", \"causal\", a list of padded "
                         "key positions, or a matrix of 0/1 or 0/-inf", where)
    if isinstance(raw, list) and raw and all(isinstance(r, list) for r in raw):
        return _mask_matrix(read_matrix(raw, where), where)
    if isinstance(raw, list):
        padded = [_positive_int(value, where.at(column=k), "a padded key position") - 1
                  for k, value in enumerate(raw, start=1)]
        return MaskSpec(kind=MaskKind.PADDING, padded_keys=tuple(sorted(set(padded))))
    raise InputError(f"unknown mask {describe(raw)}", where)


def _mask_matrix(matrix: EntryMatrix, where: Location) -> MaskSpec:
    values = [entry.value for row in matrix for entry in row]
    # With -inf (or only zeros) the mask is additive: 0 keeps, -inf masks.
    # Otherwise it is boolean: 1 keeps, 0 masks.
    additive = NEG_INF in values or all(v == 0 for v in values if isinstance(v, fmpq))
    keep, drop = (fmpq(0), NEG_INF) if additive else (fmpq(1), fmpq(0))
    allowed = tuple(tuple(_mask_entry(entry, keep, drop, where.at(row=i, column=j))
                          for j, entry in enumerate(row, start=1))
                    for i, row in enumerate(matrix, start=1))
    return MaskSpec(kind=MaskKind.MATRIX, allowed=allowed)


def _mask_entry(entry: Entry, keep: Exact, drop: Exact, where: Location) -> bool:
    """Whether a mask entry keeps its pair; ``keep`` and ``drop`` are its only values."""
    value = entry.value
    if value is keep or value is drop or (isinstance(value, fmpq) and value in (keep, drop)):
        return value is keep or value == keep
    kind = "0/-inf (additive)" if drop is NEG_INF else "0/1"
    raise InputError(f"this {kind} mask has the entry {entry.text!r}; use "
                     "either 0/1 or 0/-inf throughout", where)
