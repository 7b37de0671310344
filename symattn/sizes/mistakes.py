"""What a wrong printed size does match: the slips a document makes with sizes.

Each entry of ``_MISTAKES`` looks for one slip (the other unit system, another
dtype, one layer instead of all ...) and names what the printed number is, in
the order the reasons list them: in English (the JSON reason) and as a message
of the catalogs' ``[sizes.reason]`` with its values (the reports in any language).
"""

from __future__ import annotations

__all__ = ["WrongNumber", "Match", "explain", "matches"]

import dataclasses
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterator

from symattn.sizes.printed import SizePrinted
from symattn.sizes.printing import BYTE_UNITS, COUNTERPART, bytes_text, unit_text
from symattn.sizes.quantities import compute
from symattn.sizes.records import Quantity, Sizes
from symattn.sizes.shape import DTYPE_GROUPS, ModelShape
from symattn.values.rules import Rounding, round_to_places

# Dtypes a wrong number is compared with ("matches the value in fp32"), first match only.
_OTHER_DTYPES = DTYPE_GROUPS + (("fp64", 8),)
# Quantities that grow with the layers, and those that grow with the batch.
_ALL_LAYERS = ("score_bytes_all_layers", "total_params")
_WHOLE_BATCH = ("kv_cache_bytes", "kv_cache_bytes_mha", "kv_cache_bytes_saved")


@dataclass(frozen=True)
class Match:
    """What a wrong number matches: in English, and as a catalog message with its values."""

    text: str
    key: str
    args: tuple[tuple[str, str], ...] = ()


def _match(text: str, key: str, **args: str) -> Match:
    return Match(text, key, tuple(args.items()))


@dataclass(frozen=True)
class WrongNumber:
    """A printed number that is not the quantity's, with what it was judged against."""

    sizes: Sizes
    quantity: Quantity
    printed: SizePrinted
    rule: Rounding

    @property
    def shape(self) -> ModelShape:
        return self.sizes.shape

    @property
    def exact(self) -> Fraction:
        return Fraction(self.quantity.value)

    def prints_as(self, value: Fraction, scale: Fraction | None = None,
                  rule: Rounding | None = None) -> bool:
        """Whether ``value`` (in the quantity's units) prints as the printed number,
        in its unit (or ``scale``) and places, rounded under ``rule``."""
        printed = self.printed
        in_unit = value / (printed.scale if scale is None else scale)
        if printed.places is None:
            return in_unit == printed.value
        return round_to_places(in_unit, printed.places, rule or self.rule) == \
            printed.value * Fraction(10) ** printed.places


def _other_unit_system(case: WrongNumber) -> Iterator[Match]:
    printed = case.printed
    other = COUNTERPART.get(printed.unit)
    if other and case.prints_as(case.exact, Fraction(BYTE_UNITS[other])):
        kind = "binary" if "i" in other else "decimal"
        power = unit_text(other)
        yield _match(f"the value in {other} ({kind} units: 1 {other} = {power} bytes) "
                     f"labelled {printed.unit}", f"match_{kind}", other=other,
                     exponent=power.partition("^")[2], unit=printed.unit)


def _other_dtype(case: WrongNumber) -> Iterator[Match]:
    if case.quantity.kind != "bytes" or not case.exact:
        return
    size = case.shape.bytes_per_element
    for dtype, other in _OTHER_DTYPES:
        if other != size and case.prints_as(case.exact * other / size):
            yield _match(f"the value in {dtype} ({bytes_text(other)} per number, "
                         f"not {bytes_text(size)} for {case.shape.dtype})", "match_dtype",
                         dtype=dtype, bytes=str(other), size=str(size), mine=case.shape.dtype)
            return


def _alternatives(shape: ModelShape) -> list[tuple[str, str, ModelShape]]:
    """Shapes a document may have used by mistake: in English, as a message, the shape."""
    found = []
    if shape.kv != shape.heads:
        found.append(("without grouped-query attention (kv_heads = heads)", "match_without_gqa",
                      dataclasses.replace(shape, kv_heads=None)))
    found.append(("without biases" if shape.bias else "with biases",
                  "match_without_biases" if shape.bias else "match_with_biases",
                  dataclasses.replace(shape, bias=not shape.bias)))
    return found


def _other_shape(case: WrongNumber) -> Iterator[Match]:
    for what, key, variant in _alternatives(case.shape):
        if case.prints_as(Fraction(compute(variant)[case.quantity.name])):
            yield _match(f"the value {what}", key)


def _one_layer(case: WrongNumber) -> Iterator[Match]:
    name, layers = case.quantity.name, case.shape.layers
    per_layer = name.startswith("kv_cache") or name in _ALL_LAYERS
    if layers > 1 and per_layer and case.prints_as(case.exact / layers):
        yield _match(f"the value for one layer (the spec has {layers})", "match_one_layer",
                     layers=str(layers))


def _one_sequence(case: WrongNumber) -> Iterator[Match]:
    name, batch = case.quantity.name, case.shape.batch
    batched = name.startswith("score") or name in _WHOLE_BATCH
    if batch > 1 and batched and case.prints_as(case.exact / batch):
        yield _match(f"the value for one sequence (the batch is {batch})",
                     "match_one_sequence", batch=str(batch))


def _half_cache(case: WrongNumber) -> Iterator[Match]:
    if case.quantity.name.startswith("kv_cache") and case.prints_as(case.exact / 2):
        yield _match("K alone or V alone (the cache holds both)", "match_half_cache")


def _other_quantity(case: WrongNumber) -> Iterator[Match]:
    quantity, printed = case.quantity, case.printed
    for other in case.sizes.quantities:
        if other.name == quantity.name or (other.kind == "bytes") != (quantity.kind == "bytes"):
            continue
        if printed.unit == "%" and other.kind != "ratio":
            continue
        if case.prints_as(Fraction(other.value)):
            yield _match(f"{other.name}, a different quantity", "match_quantity",
                         what=f"sizes.quantity.{other.name}")
            return


def _truncated(case: WrongNumber) -> Iterator[Match]:
    if case.printed.places is not None and case.rule is not Rounding.TRUNCATE and \
            case.prints_as(case.exact, rule=Rounding.TRUNCATE):
        yield _match("truncation instead of rounding", "match_truncation")


_MISTAKES: tuple[Callable[[WrongNumber], Iterator[Match]], ...] = (
    _other_unit_system, _other_dtype, _other_shape, _one_layer, _one_sequence, _half_cache,
    _other_quantity, _truncated)


def explain(case: WrongNumber) -> list[str]:
    """What the wrong printed number matches, if anything.

    >>> sizes = compute(ModelShape(4096, 32, 1024))
    >>> printed = SizePrinted("64 MB", Fraction(64), 0, "MB", Fraction(10 ** 6))
    >>> explain(WrongNumber(sizes, sizes.quantity("score_bytes"), printed, Rounding.HALF_UP))
    ['the value in MiB (binary units: 1 MiB = 2^20 bytes) labelled MB']
    """
    return [found.text for found in matches(case)]


def matches(case: WrongNumber) -> list[Match]:
    """What the wrong printed number matches, with the messages that say it.

    >>> sizes = compute(ModelShape(4096, 32, 1024, layers=2))
    >>> printed = SizePrinted("64 MiB", Fraction(64), 0, "MiB", Fraction(2 ** 20))
    >>> found = matches(WrongNumber(sizes, sizes.quantity("score_bytes_all_layers"), printed,
    ...                             Rounding.HALF_UP))
    >>> [match.key for match in found], found[1].args
    (['match_dtype', 'match_one_layer', 'match_quantity'], (('layers', '2'),))
    """
    return [found for mistake in _MISTAKES for found in mistake(case)]
