"""What a number shows on hover and keyboard focus: its exact form and certain digits.

>>> from symattn import messages
>>> number_tip("1/3", "0.333333333333333", messages.load("en"))
'exact: 1/3\\n15 significant digits, all certain: 0.333333333333333'
>>> number_tip("exp(" * 80, None, messages.load("en"))
'exact: a closed form of 320 characters (derive --format json writes it)'
"""

from __future__ import annotations

__all__ = ["number_tip", "CERTIFIED", "EXACT_SHOWN"]

from symattn.messages import Catalog

CERTIFIED = 15          # significant digits a number's tip shows, every one proved
EXACT_SHOWN = 200       # longer closed forms are left to derive --format json


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
