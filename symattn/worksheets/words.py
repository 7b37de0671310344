"""The words a worksheet names its tokens by, and the sentence it draws from them.

The words are data: ``words.toml`` in this folder holds, per language, ordinary
nouns and verbs in their base forms. A sheet's tokens are one sentence of
different words, a noun, a verb, a noun, ... (``draw_sentence``); it need not be
grammatical. The sheet prints that sentence with every token numbered
(``model.Sentence``), so that "row 2 (token "dog")" points at a word the
student can see.

>>> words = load("pl")
>>> "kot" in words.nouns and "jeść" in words.verbs
True
>>> import random
>>> sentence = draw_sentence(random.Random(1), load("en"), 4)
>>> len(set(sentence)), sentence[0] in load("en").nouns, sentence[1] in load("en").verbs
(4, True, True)
"""

from __future__ import annotations

__all__ = ["Words", "load", "draw_sentence", "vocabulary"]

import random
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_FILE = Path(__file__).resolve().parent / "words.toml"


@dataclass(frozen=True)
class Words:
    """The nouns and verbs of one language, in the order the data file lists them."""

    nouns: tuple[str, ...]
    verbs: tuple[str, ...]


@lru_cache(maxsize=None)
def load(language: str) -> Words:
    """The words of ``language`` (a language of the message catalogs)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]  # only on 3.10
    with _FILE.open("rb") as stream:
        table = tomllib.load(stream)[language]
    return Words(tuple(table["nouns"]), tuple(table["verbs"]))


def draw_sentence(rng: random.Random, words: Words, n: int) -> tuple[str, ...]:
    """n different words: a noun, a verb, a noun, a verb, ..."""
    nouns = rng.sample(words.nouns, (n + 1) // 2)
    verbs = rng.sample(words.verbs, n // 2)
    return tuple(nouns[k // 2] if k % 2 == 0 else verbs[k // 2] for k in range(n))


def vocabulary(rng: random.Random, words: Words, size: int) -> tuple[str, ...]:
    """``size`` different words, nouns and verbs alike (the next-token exercise's)."""
    return tuple(rng.sample(words.nouns + words.verbs, size))
