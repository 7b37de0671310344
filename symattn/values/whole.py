"""Whole numbers written as text: ASCII digits only, and a bounded length.

``str.isdigit`` accepts ``"²"`` and ``"①"``, which ``int`` then refuses, and
``int`` refuses more than 4,300 digits; every count, position and option a
person types goes through ``ascii_whole`` instead, which answers None for
anything that is not a short run of ASCII digits.

>>> ascii_whole("12"), ascii_whole(" 3 "), ascii_whole("²"), ascii_whole("①")
(12, 3, None, None)
>>> ascii_whole("1" * 40) is None
True
"""

from __future__ import annotations

__all__ = ["ascii_whole", "MAX_WHOLE_DIGITS"]

import re

# More digits than any count, position or seed can need (10**18 - 1 at most).
MAX_WHOLE_DIGITS = 18
_DIGITS = re.compile(r"[0-9]+")


def ascii_whole(text: object, max_digits: int = MAX_WHOLE_DIGITS) -> int | None:
    """The number ``text`` writes in ASCII digits (surrounding spaces allowed); None if
    it is anything else or has more than ``max_digits`` digits."""
    if not isinstance(text, str):
        return None
    stripped = text.strip()
    if not _DIGITS.fullmatch(stripped):
        return None
    digits = stripped.lstrip("0") or "0"
    if len(digits) > max_digits:
        return None
    return int(digits)
