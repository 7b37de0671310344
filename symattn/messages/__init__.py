"""Message catalogs: every fixed phrase of the worksheets and derivations, per language.

One TOML file per language ships in this folder (``en.toml``, ``pl.toml``,
``cs.toml``, ``ru.toml``, ``uk.toml``). A message is LaTeX text written by us
(trusted: it may contain ``$...$`` and ``~``), with placeholders ``{{name}}``
that ``fill`` replaces by strings the caller has already formatted or escaped.
Sections are TOML tables; a path joins them with dots.

>>> en = load("en")
>>> en.text("step.exp_sum")
'Each row of exponentials is added up; this sum is the softmax denominator.'
>>> load("pl").fill("step.row", query="3")
'Wiersz~3'
>>> en.fill("step.row", query="3", extra="x")
Traceback (most recent call last):
...
KeyError: 'message step.row has no placeholder {{extra}}'

Templates reach messages as attributes (``\\VAR{t.step.exp_sum}``) and fill them
with ``\\VAR{t.fill('step.row', query=row.query)}``; a missing message is an
error naming it, never an empty string.
"""

from __future__ import annotations

__all__ = ["LANGUAGES", "Catalog", "load", "placeholders", "interleaved"]

import builtins
import re
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Sequence

LANGUAGES = ("en", "pl", "cs", "ru", "uk")
_PLACEHOLDER = re.compile(r"\{\{([a-z_][a-z0-9_]*)\}\}")


def placeholders(message: str) -> set[str]:
    """The names of the placeholders in a message.

    >>> sorted(placeholders("{{a}} and {{b_2}} but not {a}"))
    ['a', 'b_2']
    """
    return set(_PLACEHOLDER.findall(message))


@lru_cache(maxsize=4096)
def _wanted(message: str) -> frozenset[str]:
    """``placeholders``, remembered: a report fills the same few messages thousands of times."""
    return frozenset(_PLACEHOLDER.findall(message))


def interleaved(texts: Sequence[str], values: Iterable[str]) -> str:
    """``texts[0] + values[0] + texts[1] + ...``: a message split at its placeholders,
    filled.

    >>> interleaved(("a ", " b ", ""), ("1", "2"))
    'a 1 b 2'
    """
    filled = [texts[0]]
    for value, text in zip(values, texts[1:]):
        filled += (value, text)
    return "".join(filled)


@lru_cache(maxsize=4096)
def _pieces(message: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The message's text around its placeholders, and their names in order:
    ``texts[0] + values[names[0]] + texts[1] + ...`` fills it."""
    parts = _PLACEHOLDER.split(message)
    return tuple(parts[0::2]), tuple(parts[1::2])


# (catalog data's id, path, placeholder names) -> the data itself (so that a reused id is
# never mistaken for it) and the message's pieces, checked once
_CHECKED: dict[tuple[object, ...],
               tuple[dict[str, Any], tuple[tuple[str, ...], tuple[str, ...]]]] = {}


class Catalog:
    """The messages of one language (or one section of them)."""

    __slots__ = ("language", "_data", "_path")

    def __init__(self, language: str, data: dict[str, Any], path: str = "") -> None:
        self.language = language
        self._data = data
        self._path = path

    def __repr__(self) -> str:
        return f"Catalog({self.language!r}, {self._path or 'all'})"

    def __contains__(self, path: object) -> bool:
        return isinstance(path, str) and self.get(path) is not None

    def __getitem__(self, key: str) -> Any:
        value = self._data[key]
        if isinstance(value, dict):
            return Catalog(self.language, value, f"{self._path}.{key}" if self._path else key)
        return value

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_"):
            raise AttributeError(key)
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"no message {self._path + '.' if self._path else ''}{key} "
                                 f"in the {self.language!r} catalog") from None

    def get(self, path: str) -> Any:
        """The message (text, list or section) at a dotted path, or None."""
        node: Any = self._data
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return Catalog(self.language, node, path) if isinstance(node, dict) else node

    def text(self, path: str) -> str:
        """The message at ``path``; KeyError (naming it) when there is none."""
        value = self.get(path)
        if not isinstance(value, str):
            raise KeyError(f"no message {path} in the {self.language!r} catalog")
        return value

    def list(self, path: str) -> list[str]:
        value = self.get(path)
        if not isinstance(value, list):
            raise KeyError(f"no list {path} in the {self.language!r} catalog")
        return list(value)

    def fill(self, path: str, **values: str) -> str:
        """The message with each ``{{name}}`` replaced by ``values[name]`` (strings only)."""
        texts, names = self.pieces(path, tuple(values))
        for name, value in values.items():
            if type(value) is not str and not isinstance(value, str):
                raise TypeError(f"message {path}: {name} must be text, got "
                                f"{type(value).__name__}")
        return interleaved(texts, [values[name] for name in names])

    def pieces(self, path: str, names: tuple[str, ...]
               ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The message at ``path`` split at its placeholders, which must be ``names``: the
        texts around them and the name at each, so that ``interleaved(texts, [values[n]
        for n in order])`` fills it (``fill`` does; a report fills the same few messages
        thousands of times, and the message is looked up and checked once).

        >>> load("en").pieces("verdict.ok", ())
        (('right',), ())
        """
        key = (id(self._data), path, *names)
        found = _CHECKED.get(key)
        if found is None or found[0] is not self._data:
            found = _CHECKED[key] = (self._data, self._checked_pieces(path, names))
        return found[1]

    def _checked_pieces(self, path: str, names: tuple[str, ...]
                        ) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``_pieces`` of the message at ``path`` once ``names`` are its placeholders."""
        message = self.text(path)
        wanted = _wanted(message)
        for name in names:
            if name not in wanted:
                raise KeyError(f"message {path} has no placeholder {{{{{name}}}}}")
        missing = wanted - set(names)
        if missing:
            raise KeyError(f"message {path} needs {', '.join(sorted(missing))}")
        return _pieces(message)

    def count(self, path: str, number: int, **values: str) -> str:
        """``fill`` with the plural form that goes with ``number``: ``path + "_one"`` for
        one, ``path + "_few"`` for the Slavic 2-4 (22-24, ...), else ``path`` itself.

        >>> load("cs").count("document.numbers_digits", 3, digits="3", rule="r")
        '3 platné číslice (r)'
        >>> load("cs").count("document.numbers_digits", 6, digits="6", rule="r")
        '6 platných číslic (r)'
        """
        form = _plural_form(self.language, number)
        chosen = f"{path}_{form}" if form and f"{path}_{form}" in self else path
        return self.fill(chosen, **values)

    def keys(self) -> builtins.list[str]:   # ``list`` here is the method above
        """Every dotted path to a message (text or list), sorted."""
        out: builtins.list[str] = []

        def walk(node: dict[str, Any], prefix: str) -> None:
            for key, value in node.items():
                path = f"{prefix}.{key}" if prefix else key
                if isinstance(value, dict):
                    walk(value, path)
                else:
                    out.append(path)
        walk(self._data, "")
        return sorted(out)


def _plural_form(language: str, number: int) -> str:
    """"one", "few" or "" (many) for ``number`` in ``language`` (CLDR's rules, integers)."""
    n = abs(number)
    if language == "en":
        return "one" if n == 1 else ""
    if language == "cs":
        return "one" if n == 1 else "few" if 2 <= n <= 4 else ""
    if language == "pl":
        return "one" if n == 1 else "few" if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14) \
            else ""
    # ru, uk
    if n % 10 == 1 and n % 100 != 11:
        return "one"
    return "few" if n % 10 in (2, 3, 4) and n % 100 not in (12, 13, 14) else ""


@lru_cache(maxsize=None)
def load(language: str) -> Catalog:
    """The catalog of ``language`` (one of ``LANGUAGES``)."""
    from symattn.errors import InputError

    if language not in LANGUAGES:
        raise InputError(f"unknown language {language!r}; known: {', '.join(LANGUAGES)}")
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]  # only on 3.10
    path = Path(__file__).resolve().parent / f"{language}.toml"
    with path.open("rb") as stream:
        return Catalog(language, tomllib.load(stream))
