"""What ``compute`` finds: tensors, named quantities, and all of them for one shape."""

from __future__ import annotations

__all__ = ["Tensor", "Quantity", "Sizes"]

import math
from dataclasses import dataclass
from fractions import Fraction

from symattn.sizes.printing import format_bytes, format_bytes_decimal, format_count, format_ratio
from symattn.sizes.shape import ModelShape


@dataclass(frozen=True)
class Tensor:
    """One tensor: its dimensions by name and by size."""

    name: str
    dims: tuple[str, ...]
    sizes: tuple[int, ...]
    description: str

    @property
    def elements(self) -> int:
        return math.prod(self.sizes)

    def text(self) -> str:
        """The sizes in brackets.

        >>> Tensor("W_O", ("d_model", "d_model"), (4096, 4096), "").text()
        '[4096, 4096]'
        """
        return "[" + ", ".join(str(s) for s in self.sizes) + "]"


@dataclass(frozen=True)
class Quantity:
    """A named size: exact value (int, or Fraction for a ratio), kind and formula.

    Kinds: ``count`` (a dimension or factor), ``params``, ``elements``, ``bytes``,
    ``ratio`` (a share, printed as 25% or 0.25).

    >>> share = Quantity("wo_share", Fraction(1, 4), "ratio", "", "", "")
    >>> share.exact, share.integral, share.human()
    ('1/4', False, '25%')
    """

    name: str
    value: int | Fraction
    kind: str
    formula: str            # in symbols
    substituted: str        # with the numbers
    description: str

    @property
    def exact(self) -> str:
        value = self.value
        if isinstance(value, Fraction) and value.denominator != 1:
            return f"{value.numerator}/{value.denominator}"
        return str(int(value))

    @property
    def integral(self) -> bool:
        return not isinstance(self.value, Fraction) or self.value.denominator == 1

    def human(self) -> str:
        """A readable form: ``64 MiB = 67.11 MB``, ``33.55 million``, ``25%``."""
        if self.kind == "bytes":
            binary = format_bytes(int(self.value))
            decimal = format_bytes_decimal(int(self.value))
            return binary if binary == decimal else f"{binary} = {decimal}"
        if self.kind == "ratio":
            return format_ratio(Fraction(self.value))
        if self.kind in ("params", "elements") and self.value >= 10_000:
            return format_count(int(self.value))
        return ""


@dataclass(frozen=True)
class Sizes:
    """Everything ``compute`` found for one shape, in a stable order."""

    shape: ModelShape
    tensors: tuple[Tensor, ...]
    quantities: tuple[Quantity, ...]
    score_bytes_by_dtype: tuple[tuple[str, int], ...]

    def __getitem__(self, name: str) -> int | Fraction:
        return self.quantity(name).value

    def __contains__(self, name: object) -> bool:
        return any(q.name == name for q in self.quantities)

    def names(self) -> list[str]:
        return [q.name for q in self.quantities]

    def quantity(self, name: str) -> Quantity:
        for quantity in self.quantities:
            if quantity.name == name:
                return quantity
        raise KeyError(name)

    def tensor(self, name: str) -> Tensor:
        for tensor in self.tensors:
            if tensor.name == name:
                return tensor
        raise KeyError(name)
