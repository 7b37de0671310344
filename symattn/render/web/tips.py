"""What a number shows on hover and keyboard focus: its exact form and certain digits.

>>> from symattn import messages
>>> number_tip("1/3", "0.333333333333333", messages.load("en"))
'exact: 1/3\\n15 significant digits, all certain: 0.333333333333333'
>>> number_tip("exp(" * 80, None, messages.load("en"))
'exact: a closed form of 320 characters (derive --format json writes it)'
"""

from __future__ import annotations

__all__ = ["number_tip", "certified", "certified_block", "CERTIFIED", "EXACT_SHOWN"]

from typing import Sequence

from symattn.messages import Catalog
from symattn.values.decimals import UndecidedError
from symattn.values.exact import Exact
from symattn.values.number_format import Block, NumberFormat

CERTIFIED = 15          # significant digits a number's tip shows, every one proved
EXACT_SHOWN = 200       # longer closed forms are left to derive --format json


def _certain(number_format: NumberFormat) -> NumberFormat:
    """``CERTIFIED`` significant digits, in the rounding and decimal mark of the page."""
    return NumberFormat(digits=CERTIFIED, rounding=number_format.rounding,
                        locale=number_format.locale)


def certified(value: Exact, number_format: NumberFormat) -> str | None:
    """A value's tip digits (None when it is too large to write out: the tip says less)."""
    try:
        return _certain(number_format).format(value)
    except UndecidedError:
        return None


def certified_block(grid: Block, rows: Sequence[int], columns: Sequence[int],
                    number_format: NumberFormat) -> tuple[tuple[str | None, ...], ...]:
    """The tip digits of a block of a grid (all None where one is undecidable)."""
    try:
        return _certain(number_format).format_block(grid, rows, columns)
    except UndecidedError:
        return tuple(tuple(None for _ in columns) for _ in rows)


def number_tip(exact: str | None, certified: str | None, catalog: Catalog,
               places: bool = False) -> str:
    """The tip of a number: its exact form (None: too long to write), then ``certified``
    (``CERTIFIED`` significant digits; ``places``: a decimal with more places than
    printed, as a report gives it)."""
    if exact is None:
        said = catalog.text("html.exact_omitted")
    elif len(exact) > EXACT_SHOWN:
        said = catalog.fill("html.exact_long", length=str(len(exact)))
    else:
        said = catalog.fill("html.exact", value=exact)
    if certified is not None and certified != exact:
        line = catalog.fill("html.more_places", value=certified) if places else \
            catalog.fill("html.certified", digits=str(CERTIFIED), value=certified)
        said += "\n" + line
    return said
