"""How a page's decimals are printed, in words: one sentence for text, LaTeX and reports.

Kept apart from the worked-example modules, so that a text report does not load them.
"""

from __future__ import annotations

__all__ = ["numbers_text"]

from symattn.messages import Catalog
from symattn.values.number_format import NumberFormat


def numbers_text(number_format: NumberFormat, catalog: Catalog) -> str:
    """How the decimals are printed, in words.

    >>> from symattn import messages
    >>> numbers_text(NumberFormat(digits=None, places=3, locale="cs"), messages.load("en"))
    '3 decimal places (half up), with a decimal comma'
    """
    fmt = number_format
    rule = catalog.text(f"rounding.{fmt.rounding.value}")
    if fmt.places is not None:
        text = catalog.count("document.numbers_places", fmt.places, places=str(fmt.places),
                             rule=rule)
    else:
        digits = fmt.digits or 0
        text = catalog.count("document.numbers_digits", digits, digits=str(digits), rule=rule)
    english_mark = fmt.separator == "," and catalog.language == "en"
    return text + (catalog.text("document.numbers_comma") if english_mark else "")
