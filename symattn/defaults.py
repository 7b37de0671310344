"""The defaults written in more than one place, and the base of text-valued choices.

A spec, an option and the command line share these numbers; each is written
here once. ``TextEnum`` is the base of every choice a spec spells as text
(rounding rules, normalisations, masks, positions): a member equals its text
and prints as it, so reports and JSON stay as they were when these were strings.

>>> class Colour(TextEnum):
...     RED = "red"
>>> Colour.RED == "red", str(Colour.RED), f"{Colour.RED:>5}", Colour("red") is Colour.RED
(True, 'red', '  red', True)
>>> import json
>>> json.dumps({"colour": Colour.RED})
'{"colour": "red"}'
"""

from __future__ import annotations

__all__ = ["TextEnum", "DIGITS", "MAX_DIGITS", "ROUNDING", "ROWS_SHOWN", "MAX_TERMS",
           "POSITION_BASE", "MAX_ENTRIES", "MAX_WRITTEN", "TEMPLATE_MAX_DIGITS",
           "TEMPLATE_MAX_LENGTH", "TEMPLATE_MAX_ITERATIONS", "TEMPLATE_MAX_OUTPUT",
           "TEMPLATE_MAX_SECONDS"]

from enum import Enum

DIGITS = 6                  # significant digits of every printed decimal
MAX_DIGITS = 10_000         # the largest --digits, --places and options.digits
ROUNDING = "half-up"        # the rounding rule, by name (symattn.values.rules.Rounding)
ROWS_SHOWN = 8              # rows and columns of a matrix shown before the middle is elided
MAX_TERMS = 64              # closed forms of more exponentials are left out (--max-terms)
MAX_WRITTEN = 100_000       # ... and, under --max-terms, closed forms longer than this
POSITION_BASE = 10_000      # the 10000 in the sinusoid and RoPE frequencies
MAX_ENTRIES = 2048 * 2048   # entries of any one matrix, scores included (--max-size)
MAX_SPEC_BYTES = 256 * 2**20   # a spec file larger is refused (/dev/zero is endless)
# What one document template (``symattn render``, the MkDocs plugin) may compute:
TEMPLATE_MAX_DIGITS = 1000          # digits of an integer (--template-max-digits)
TEMPLATE_MAX_LENGTH = 1_000_000     # a string's or list's length, a repetition count
TEMPLATE_MAX_ITERATIONS = 100_000  # loop iterations and calls, all loops together
TEMPLATE_MAX_OUTPUT = 100_000_000   # characters printed (--template-max-output)
TEMPLATE_MAX_SECONDS = 60.0         # seconds of one render (--template-max-seconds)

# The calculator page's sliders (symattn calculator): T from 0.1 to 3 in steps of 0.1,
# d_k over powers of two (the spec's own d_k is added); and symattn serve's bounds.
CALCULATOR_TEMPERATURES = ",".join(f"{i // 10}.{i % 10}" if i % 10 else str(i // 10)
                                   for i in range(1, 31))
CALCULATOR_D_KS = (1, 2, 4, 8, 16, 32, 64)
SERVE_ENTRIES = 400          # entries of any one matrix (20 x 20) on the served page
SERVE_SECONDS = 30           # seconds one request may compute


class TextEnum(str, Enum):
    """An enum whose members are their text: equal to it, printed as it.

    ``(str, Enum)`` alone formats as ``Class.MEMBER`` on Python 3.11 and later;
    ``enum.StrEnum`` fixes that but needs 3.11, and 3.10 is supported.
    """

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, format_spec: str) -> str:
        return str.__format__(str.__str__(self), format_spec)
