"""A derivation as Markdown with $...$ and $$...$$ math (notebooks, MkDocs).

The same records as the LaTeX document (``worked.build``), laid out by
``templates/*.md.j2``; prose is escaped for Markdown, mathematics is the same
LaTeX, which MathJax and KaTeX render.

>>> escape_markdown("a_b *c* [x](y) <b> | $5")
'a&#95;b &#42;c&#42; &#91;x&#93;(y) &lt;b&gt; &#124; &#36;5'
"""

from __future__ import annotations

__all__ = ["render_markdown", "escape_markdown"]

import re
from pathlib import Path

from symattn import messages
from symattn.render import prose, templating
from symattn.render import worked
from symattn._version import __version__
from symattn.derivation.steps import Derivation
from symattn.verify.checker import Report
from symattn.render.latex_document import options_in

# HTML character references, not backslashes: Jupyter and MkDocs read \( \[ \$ as math.
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "\\": "&#92;", "`": "&#96;", "*": "&#42;",
             "_": "&#95;", "{": "&#123;", "}": "&#125;", "[": "&#91;", "]": "&#93;",
             "#": "&#35;", "|": "&#124;", "$": "&#36;", "~": "&#126;", "^": "&#94;"}
_LINE_START = {"-": "&#45;", "+": "&#43;", "=": "&#61;", "!": "&#33;", ":": "&#58;"}
_LIST_START = re.compile(r"^(\d+)([.)])")


def escape_markdown(text: str) -> str:
    """Text Markdown prints literally: no emphasis, links, HTML, math, tables or lists."""
    out = []
    for char in str(text):
        if char in "\r\n\t" or ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F:
            out.append(" ")
        else:
            out.append(_ENTITIES.get(char, char))
    escaped = "".join(out)
    if escaped[:1] in _LINE_START:
        escaped = _LINE_START[escaped[0]] + escaped[1:]
    return _LIST_START.sub(lambda m: m.group(1) + ("&#46;" if m.group(2) == "." else "&#41;"),
                           escaped)


def render_markdown(derivation: Derivation, options: worked.Options | None = None, *,
                    template_dir: str | Path | None = None, report: Report | None = None,
                    language: str | None = None) -> str:
    """Markdown for ``derivation``, with the verdicts of ``report`` on its printed numbers,
    in ``language`` (default: the options', else the spec's, else English)."""
    options = options_in(derivation, options, language)
    document = worked.build(derivation, report, options, escape_markdown, prose.markdown)
    catalog = prose.ProseCatalog(messages.load(options.language or "en"), prose.markdown)
    return templating.render("document.md.j2", template_dir, messages=catalog, doc=document,
                             version=__version__)
