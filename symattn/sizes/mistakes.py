"""What a wrong printed size does match: the slips a document makes with sizes.

Each entry of ``_MISTAKES`` looks for one slip (the other unit system, another
dtype, one layer instead of all ...) and names what the printed number is, in
the order the reasons list them.
"""

from __future__ import annotations

__all__ = ["WrongNumber", "explain"]

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


def _other_unit_system(case: WrongNumber) -> Iterator[str]:
    printed = case.printed
    other = COUNTERPART.get(printed.unit)
    if other and case.prints_as(case.exact, Fraction(BYTE_UNITS[other])):
        kind = "binary" if "i" in other else "decimal"
        yield (f"the value in {other} ({kind} units: 1 {other} = {unit_text(other)} bytes) "
               f"labelled {printed.unit}")


def _other_dtype(case: WrongNumber) -> Iterator[str]:
    if case.quantity.kind != "bytes" or not case.exact:
        return
    size = case.shape.bytes_per_element
    for dtype, other in _OTHER_DTYPES:
        if other != size and case.prints_as(case.exact * other / size):
            yield (f"the value in {dtype} ({bytes_text(other)} per number, "
                   f"not {bytes_text(size)} for {case.shape.dtype})")
            return


def _alternatives(shape: ModelShape) -> list[tuple[str, ModelShape]]:
    """Shapes a document may have used by mistake."""
    found = []
    if shape.kv != shape.heads:
        found.append(("without grouped-query attention (kv_heads = heads)",
                      dataclasses.replace(shape, kv_heads=None)))
    found.append(("without biases" if shape.bias else "with biases",
                  dataclasses.replace(shape, bias=not shape.bias)))
    return found


def _other_shape(case: WrongNumber) -> Iterator[str]:
    for what, variant in _alternatives(case.shape):
        if case.prints_as(Fraction(compute(variant)[case.quantity.name])):
            yield f"the value {what}"


def _one_layer(case: WrongNumber) -> Iterator[str]:
    name, layers = case.quantity.name, case.shape.layers
    per_layer = name.startswith("kv_cache") or name in _ALL_LAYERS
    if layers > 1 and per_layer and case.prints_as(case.exact / layers):
        yield f"the value for one layer (the spec has {layers})"


def _one_sequence(case: WrongNumber) -> Iterator[str]:
    name, batch = case.quantity.name, case.shape.batch
    batched = name.startswith("score") or name in _WHOLE_BATCH
    if batch > 1 and batched and case.prints_as(case.exact / batch):
        yield f"the value for one sequence (the batch is {batch})"


def _half_cache(case: WrongNumber) -> Iterator[str]:
    if case.quantity.name.startswith("kv_cache") and case.prints_as(case.exact / 2):
        yield "K alone or V alone (the cache holds both)"


def _other_quantity(case: WrongNumber) -> Iterator[str]:
    quantity, printed = case.quantity, case.printed
    for other in case.sizes.quantities:
        if other.name == quantity.name or (other.kind == "bytes") != (quantity.kind == "bytes"):
            continue
        if printed.unit == "%" and other.kind != "ratio":
            continue
        if case.prints_as(Fraction(other.value)):
            yield f"{other.name}, a different quantity"
            return


def _truncated(case: WrongNumber) -> Iterator[str]:
    if case.printed.places is not None and case.rule is not Rounding.TRUNCATE and \
            case.prints_as(case.exact, rule=Rounding.TRUNCATE):
        yield "truncation instead of rounding"


_MISTAKES: tuple[Callable[[WrongNumber], Iterator[str]], ...] = (
    _other_unit_system, _other_dtype, _other_shape, _one_layer, _one_sequence, _half_cache,
    _other_quantity, _truncated)


def explain(case: WrongNumber) -> list[str]:
    """What the wrong printed number matches, if anything.

    >>> sizes = compute(ModelShape(4096, 32, 1024))
    >>> printed = SizePrinted("64 MB", Fraction(64), 0, "MB", Fraction(10 ** 6))
    >>> explain(WrongNumber(sizes, sizes.quantity("score_bytes"), printed, Rounding.HALF_UP))
    ['the value in MiB (binary units: 1 MiB = 2^20 bytes) labelled MB']
    """
    return [found for mistake in _MISTAKES for found in mistake(case)]
