"""A class set's answers for learning platforms: Moodle XML, GIFT and QTI 2.1.

``questions`` turns every blank of every variant into a self-contained
question (HTML text, the answer with its tolerance); ``moodle``, ``gift`` and
``qti`` write them in each platform's format. ``FORMATS`` maps the
``--export`` names to (file suffix, writer).
"""

from __future__ import annotations

__all__ = ["FORMATS", "export"]

from typing import Callable, Sequence

from symattn.render.exports import gift, moodle, qti
from symattn.worksheets.sheet import Worksheet

Writer = Callable[[Sequence[Worksheet]], bytes]

FORMATS: dict[str, tuple[str, Writer]] = {
    "moodle": ("-moodle.xml", moodle.document),
    "gift": ("-gift.txt", gift.document),
    "qti": ("-qti.zip", qti.package),
}


def export(name: str, sheets: Sequence[Worksheet]) -> bytes:
    """The file of export ``name`` (moodle, gift, qti) for the class set ``sheets``."""
    return FORMATS[name][1](sheets)
