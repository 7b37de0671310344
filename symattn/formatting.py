"""The one formatter for every number a reader sees.

``NumberFormat`` says how: fixed decimal places or significant digits, a named
rounding rule, and the decimal separator of a locale (a point for English, a
comma for Polish, Czech, Russian and Ukrainian). Trailing zeros are kept.

>>> from flint import fmpq
>>> NumberFormat(places=3).format(fmpq(1, 8))
'0.125'
>>> NumberFormat(digits=2, locale="cs").format(fmpq(1, 3))
'0,33'
"""

from __future__ import annotations

__all__ = ["NumberFormat", "DECIMAL_SEPARATORS"]

from dataclasses import dataclass
from typing import Any

from symattn.exact import NAN, NEG_INF
from symattn.numeric import fixed_decimal, significant_decimal
from symattn.rounding import Rounding

DECIMAL_SEPARATORS = {"en": ".", "pl": ",", "cs": ",", "ru": ",", "uk": ","}


def has_number(value: Any) -> bool:
    """False for symbolic values with free symbols (they have no decimals)."""
    return getattr(value, "is_numeric", True)


@dataclass(frozen=True)
class NumberFormat:
    """How to print numbers: ``places`` or ``digits`` (significant), rule, locale."""

    digits: int | None = 6
    places: int | None = None
    rounding: Rounding = Rounding.HALF_UP
    locale: str = "en"

    def __post_init__(self) -> None:
        if self.locale not in DECIMAL_SEPARATORS:
            raise ValueError(f"unknown locale {self.locale!r}; "
                             f"known: {', '.join(DECIMAL_SEPARATORS)}")

    @property
    def separator(self) -> str:
        return DECIMAL_SEPARATORS[self.locale]

    def format(self, value: Any) -> str | None:
        """Decimal text of an exact value; None when it has free symbols."""
        if value is NEG_INF:
            return "-inf"
        if value is NAN:
            return "nan"
        if not has_number(value):
            return None
        if self.places is not None:
            return fixed_decimal(value, self.places, self.rounding, self.separator)
        assert self.digits is not None
        return significant_decimal(value, self.digits, self.rounding, self.separator)
