"""Which TeX engine sets a document, and what its preamble loads for the language.

pdflatex sets Latin (T1) and Cyrillic (T2A, babel russian/ukrainian) text
with the Latin Modern and CM-Super fonts; lualatex and xelatex set any
script with the system's OpenType fonts (fontspec). User text is escaped
once for all three (``latex.escape_text``): a character pdflatex has no font
for becomes ``\\symattnchar{03B3}`` (or ``\\symattncjk``, ``\\symattnsym``),
which pdflatex prints as its code, ``[U+03B3]``, and the Unicode engines as the
character in a font that has it (DejaVu Serif, WenQuanYi Micro Hei, Symbola).
The automatic choice is pdflatex unless the text has such characters.

>>> tex = "\\\\section*{\\\\symattnchar{03B3}}"
>>> needs_unicode(tex), choose("auto", tex), choose("xelatex", tex)
(True, 'lualatex', 'xelatex')
>>> setup("pdflatex", "uk").babel, setup("pdflatex", "uk").encodings
('ukrainian', 'T1,T2A')
>>> magic_engine("% !TEX program = lualatex\\n\\\\documentclass{article}")
'lualatex'
"""

from __future__ import annotations

__all__ = ["ENGINES", "AUTO", "TexSetup", "BABEL", "CYRILLIC_LANGUAGES", "needs_unicode",
           "char_macro", "choose", "setup", "magic_engine", "name_engine", "render_for_engine",
           "ENGINE_HELP", "FONTS", "FONT_PACKAGES"]

import re
from dataclasses import dataclass
from typing import Callable

ENGINES = ("pdflatex", "lualatex", "xelatex")
AUTO = "auto"
BABEL = {"en": "english", "pl": "polish", "cs": "czech", "ru": "russian", "uk": "ukrainian"}
CYRILLIC_LANGUAGES = ("ru", "uk")
# The fonts the Unicode engines use, and the Debian packages that ship them.
FONTS = {"wide": "DejaVu Serif", "cjk": "WenQuanYi Micro Hei", "sym": "Symbola"}
FONT_PACKAGES = "fonts-dejavu-core fonts-wqy-microhei fonts-symbola"
_UNSET = re.compile(r"\\symattn(?:char|cjk|sym)\{[0-9A-F]{4,6}\}")
_MAGIC = re.compile(r"^%[ \t]*!TEX[ \t]+(?:TS-)?program[ \t]*=[ \t]*(\w+)[ \t]*$", re.MULTILINE)


@dataclass(frozen=True)
class TexSetup:
    """What a document's preamble needs: the engine, babel's language, the
    font encodings (pdflatex) and whether Cyrillic text is set."""

    engine: str
    language: str
    babel: str
    encodings: str
    cyrillic: bool

    @property
    def unicode(self) -> bool:
        """True for lualatex and xelatex (fontspec, OpenType fonts)."""
        return self.engine != "pdflatex"


_CJK = ((0x1100, 0x11FF), (0x2E80, 0x2FDF), (0x3000, 0x9FFF), (0xA960, 0xA97F),
        (0xAC00, 0xD7FF), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0xFF00, 0xFFEF),
        (0x20000, 0x3FFFF))
_SYMBOLS = ((0x2190, 0x2BFF), (0xFE00, 0xFE0F), (0x1F000, 0x1FAFF))


def char_macro(code: int) -> str:
    """The macro that prints a character pdflatex cannot set: ``\\symattncjk`` for
    Chinese, Japanese and Korean, ``\\symattnsym`` for emoji and symbols, else
    ``\\symattnchar``.

    >>> char_macro(0x732B), char_macro(0x1F431), char_macro(0x03B3)
    ('\\\\symattncjk', '\\\\symattnsym', '\\\\symattnchar')
    """
    if any(low <= code <= high for low, high in _CJK):
        return r"\symattncjk"
    if any(low <= code <= high for low, high in _SYMBOLS):
        return r"\symattnsym"
    return r"\symattnchar"


def needs_unicode(tex: str) -> bool:
    """Whether ``tex`` has a character pdflatex cannot set (Greek, CJK, emoji, ...)."""
    return _UNSET.search(tex) is not None


def choose(engine: str | None, tex: str) -> str:
    """The engine for ``tex``: the one asked for, or (``auto``/None) lualatex when the
    text needs it, else pdflatex."""
    if engine is not None and engine != AUTO:
        if engine not in ENGINES:
            raise ValueError(f"unknown TeX engine {engine!r}; choose one of {', '.join(ENGINES)}")
        return engine
    return "lualatex" if needs_unicode(tex) else "pdflatex"


def setup(engine: str, language: str = "en", cyrillic: bool = False) -> TexSetup:
    """The preamble choices for ``engine`` and a document in ``language``
    (``cyrillic``: some text, e.g. a token name, is Cyrillic)."""
    language = language if language in BABEL else "en"
    own = language in CYRILLIC_LANGUAGES
    return TexSetup(engine, language, BABEL[language], "T1,T2A" if own else "T2A,T1",
                    own or cyrillic)


def magic_engine(tex: str) -> str | None:
    """The engine a document names in its ``% !TEX program = NAME`` line, if any."""
    match = _MAGIC.search(tex[:2000])
    if match is None or match.group(1) not in ENGINES:
        return None
    return match.group(1)


ENGINE_HELP = ("TeX engine for the PDF: pdflatex, lualatex or xelatex; auto (default): "
               "lualatex when the text needs it (Greek, CJK, emoji), else pdflatex")


def name_engine(tex: str, engine: str | None) -> str:
    """``tex`` with its ``% !TEX program`` and "Compile with" lines naming ``engine``
    (unchanged for None or ``auto``).

    >>> name_engine("% !TEX program = pdflatex\\n% Compile with pdflatex.\\n", "xelatex")
    '% !TEX program = xelatex\\n% Compile with xelatex.\\n'
    """
    if engine in (None, AUTO):
        return tex
    engine = choose(engine, "")
    head, newline, body = tex.partition("\\documentclass")
    head = _MAGIC.sub(f"% !TEX program = {engine}", head, count=1)
    head = re.sub(r"Compile with \w+\.", f"Compile with {engine}.", head, count=1)
    return head + newline + body


def render_for_engine(render: Callable[[TexSetup], str], engine: str | None,
                      language: str = "en", cyrillic: bool = False) -> str:
    """``render(setup)`` for the engine asked for, or for the one the text needs.

    The body is the same for every engine (only the preamble differs), so the
    automatic choice renders for pdflatex first and again for lualatex only when
    the first text has characters pdflatex cannot set.
    """
    first = choose(engine, "") if engine not in (None, AUTO) else "pdflatex"
    tex = render(setup(first, language, cyrillic))
    if engine in (None, AUTO) and needs_unicode(tex):
        tex = render(setup("lualatex", language, cyrillic))
    return tex
