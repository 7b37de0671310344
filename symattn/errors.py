"""The few exceptions symattn raises.

Verdicts about printed numbers are data (see ``verify``); exceptions are only
for input that cannot be used. Every message says where the problem is (file,
key, row, column), what was found and what was expected, so the command line
can print it on one line and exit with status 2.
"""

from __future__ import annotations

__all__ = ["Error", "ArgumentError", "StepNotFoundError", "PositionError",
           "SymattnError", "InputError", "ShapeError", "FullyMaskedRowError", "UndecidedError",
           "OutOfRangeError", "TemplateError", "PdfError", "FigureError", "Location", "counted",
           "visible", "visible_lines", "cut", "did_you_mean"]

import difflib
import re
from dataclasses import dataclass, replace
from typing import Iterable


@dataclass(frozen=True)
class Location:
    """Where in a spec a value came from; rows and columns are 1-based."""

    file: str | None = None
    key: str | None = None
    row: int | None = None
    column: int | None = None

    def at(self, *, key: str | None = None, row: int | None = None,
           column: int | None = None) -> Location:
        """Return a copy pointing further in (a sub-key, a row, a column)."""
        new_key = self.key if key is None else (f"{self.key}.{key}" if self.key else key)
        return replace(self, key=new_key,
                       row=self.row if row is None else row,
                       column=self.column if column is None else column)

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.key:
            parts.append(cut(self.key, 200))
        if self.row is not None:
            parts.append(f"row {self.row}")
        if self.column is not None:
            parts.append(f"column {self.column}")
        return ", ".join(parts)


class SymattnError(Exception):
    """Base class: anything symattn refuses, with a message fit for a user."""

    def __init__(self, message: str, location: Location | None = None) -> None:
        self.message = message
        self.location = location
        super().__init__(f"{location}: {message}" if location and str(location) else message)


class InputError(SymattnError, ValueError):
    """A spec, entry or option that cannot be read or makes no sense."""


class ShapeError(InputError):
    """Matrices whose shapes do not fit the product or step that needs them."""


class FullyMaskedRowError(InputError):
    """Softmax of a row whose every score is -oo is 0/0."""


class UndecidedError(SymattnError):
    """The rounding could not be decided within the precision cap."""


class OutOfRangeError(UndecidedError):
    """A number too large to write out in decimals (or too small for significant digits)."""


class TemplateError(SymattnError):
    """A template that cannot be loaded or rendered; the message names it and the line."""


class PdfError(SymattnError):
    """No TeX installed, or the document did not compile."""


class FigureError(SymattnError):
    """No matplotlib installed (the ``plot`` extra), or the figure cannot be written."""


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """``count`` and the noun in the right number, for messages.

    >>> counted(1, "row"), counted(3, "row"), counted(2, "query", "queries")
    ('1 row', '3 rows', '2 queries')
    """
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


# Characters a terminal acts on (C0 and C1 controls, DEL), bidirectional overrides that
# reorder what is shown, and lone surrogates, which no output encoding can write.
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069"
                        "\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def visible(text: str) -> str:
    """``text`` with every control character as a visible escape (``\\x1b``, ``\\n``).

    >>> visible("a\\x1b[2Jb\\n")
    'a\\\\x1b[2Jb\\\\n'
    """
    if text.isprintable():     # no control, format or surrogate character: as it is
        return text

    def escape(match: re.Match[str]) -> str:
        char = match.group()
        return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100
                                    else f"\\u{ord(char):04x}")

    return _INVISIBLE.sub(escape, text)


def cut(text: str, limit: int = 80) -> str:
    """``text`` shortened to about ``limit`` characters for a message, saying how long it was.

    >>> cut("abc"), cut("x" * 200, 10)
    ('abc', 'xxxxxxxxxx... (200 characters)')
    """
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def did_you_mean(word: object, known: Iterable[str]) -> str:
    """The hint after an unknown name or value: ``; did you mean `causal`?``, or "".

    A word that differs only in case is surely the one meant (W_q for W_Q); otherwise
    the closest known word, if one is close. A very long word is not matched.

    >>> did_you_mean("casual", ["none", "causal"]), did_you_mean("W_q", ["W_Q", "W_K"])
    ('; did you mean `causal`?', '; did you mean `W_Q`?')
    >>> did_you_mean("zzz", ["none", "causal"])
    ''
    """
    text, choices = str(word), [str(k) for k in known]
    close = [k for k in choices if k.lower() == text.lower()]
    if not close and len(text) <= 100:
        close = difflib.get_close_matches(text, choices, n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""


def visible_lines(text: str) -> str:
    """``visible`` line by line: the line breaks of a listing stay, every other control
    character in it (a title's escape sequence) is shown as an escape."""
    return "\n".join(visible(line) for line in text.split("\n"))


# The Python API's argument errors (docs/errors.md, "Python API"). ``Error`` is the
# one base to catch; each subclass is also the built-in exception Python code
# would expect there, so ``except KeyError`` keeps working for ``derivation["x"]``.
Error = SymattnError


class ArgumentError(InputError):
    """An argument of a public function of the wrong type or out of range; the
    location's key names the function and parameter (``NumberFormat.digits``)."""


class StepNotFoundError(InputError, KeyError):
    """``derivation[name]`` for a step the derivation does not have."""

    def __str__(self) -> str:       # KeyError would print the message in quotes
        return str(self.args[0]) if self.args else ""


class PositionError(InputError, IndexError):
    """A row or column outside a step's grid (0-based ``exact(i, j)``, 1-based ``at(r, c)``)."""


def argument(function: str, parameter: str, message: str) -> ArgumentError:
    """The ``ArgumentError`` of ``function``'s ``parameter``."""
    return ArgumentError(message, Location(key=f"{function}.{parameter}"))
