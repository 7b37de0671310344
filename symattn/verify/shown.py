"""The exact value as a check report shows it: a few more places than printed, in
e-notation when the document printed the number so."""

from __future__ import annotations

__all__ = ["SHOWN_EXTRA_PLACES", "shown_decimal", "scientific_decimal", "short_exponent"]

from flint import fmpq

from symattn.values.decimals import fixed_decimal, significant_decimal, to_scientific
from symattn.values.exact import Exact, terminating_places
from symattn.values.rounding import Rounding
from symattn.verify.printed import Printed

SHOWN_EXTRA_PLACES = 4


def scientific_decimal(value: Exact, digits: int) -> str:
    """The value in e-notation: all its digits when it ends within ``digits`` significant
    digits, else the first ``digits`` followed by "..."."""
    if isinstance(value, fmpq) and value != 0:
        places = terminating_places(value)
        if places is not None:
            text = fixed_decimal(value, places)
            significant = len(text.lstrip("-").replace(".", "").lstrip("0"))
            if significant <= digits:
                return short_exponent(to_scientific(text, max(significant, 1)))
    return short_exponent(to_scientific(significant_decimal(value, digits, Rounding.TRUNCATE),
                                         digits)) + "..."


def short_exponent(text: str) -> str:
    """The exponent as documents write it: ``2.06e-9``, ``1.0e5`` (not e-09, e+05)."""
    mantissa, _, exponent = text.partition("e")
    return f"{mantissa}e{int(exponent)}" if exponent else text


def shown_decimal(value: Exact, places: int, printed: Printed | None = None) -> str:
    """The value with a few more places than printed; exact digits when it terminates;
    in e-notation when the document printed the number so.

    >>> shown_decimal(fmpq(26, 25), 2), shown_decimal(fmpq(1, 3), 2)
    ('1.04', '0.333333...')
    >>> from symattn.verify.printed import read_printed
    >>> shown_decimal(fmpq(1, 3) / 10 ** 40, 42, read_printed("3.3e-41"))
    '3.33333e-41...'
    """
    if printed is not None and printed.scientific:
        return scientific_decimal(value, printed.digits + SHOWN_EXTRA_PLACES)
    extra = max(places, 0) + SHOWN_EXTRA_PLACES
    if isinstance(value, fmpq):
        for shown in range(max(places, 0), extra + 1):
            if (value * fmpq(10) ** shown).q == 1:
                return fixed_decimal(value, shown)
    return fixed_decimal(value, extra) + "..."
