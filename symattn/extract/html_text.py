"""An HTML page as the plain text the number reader reads.

The page is parsed with the standard library's ``html.parser`` (event by
event: no tree of the page is built, so deep nesting costs no recursion) and
written out as text a source document would have:

- paragraphs, headings, list items and other blocks on lines of their own,
  their whitespace collapsed as a browser shows it; ``<br>`` a line break;
  ``<pre>`` and ``<code>`` verbatim, line by line;
- each table row ``<tr>`` one Markdown table row ``| a | b |`` (headings first,
  as the page has them);
- TeX left in the page (``\\( \\)``, ``\\[ \\]``, ``$$``, ``$``) as it is;
  MathML as linear text (``symattn.extract.mathml``), or its TeX annotation;
  MathJax v2 (``<script type="math/tex">``), MathJax v3 and KaTeX output by their
  TeX source (``data-latex``, ``alttext``, the annotation), their rendered
  glyphs dropped so no number is read twice;
- ``<script>``, ``<style>``, ``<template>``, ``<noscript>`` dropped, never run;
  comments dropped; entities decoded (an invalid one is U+FFFD); the ``alt``
  text of an image kept when it reads as a formula.

Every character written keeps the offset in the page it came from, so a
number is reported at its line and column in the HTML file.

>>> source = ("<p>q<sub>1</sub> = [1.5, &minus;2]</p><table><tr><th>a</th>"
...           "<th>b</th></tr><tr><td>0.5</td><td>0.25</td></tr></table>")
>>> page = html_text(source)
>>> page.text.splitlines()
['q_1 = [1.5, −2]', '| a | b |', '| 0.5 | 0.25 |']
>>> page.origin[page.text.index("0.5")] == source.index("<td>0.5") + len("<td>")
True
"""

from __future__ import annotations

__all__ = ["PageText", "html_text", "looks_like_html", "MAX_PIECES"]

import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser

from symattn.extract.math_addresses import MATH_ADDRESS
from symattn.extract.mathml import MAX_DEPTH, Mapped, MathNode, linear, tex_annotation

MAX_PIECES = 1_000_000      # tags, text pieces and entities of one page; more are refused
_DROPPED = frozenset({"script", "style", "template", "noscript", "svg", "canvas",
                      "object", "iframe", "select", "textarea", "button"})
_BLOCKS = frozenset({"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "li", "ul", "ol", "dl",
                     "dt", "dd", "blockquote", "section", "article", "header", "footer",
                     "main", "nav", "aside", "figure", "figcaption", "address", "details",
                     "summary", "caption", "table", "thead", "tbody", "tfoot", "form",
                     "fieldset", "hr", "body", "html", "center"})
_VOID = frozenset({"br", "img", "hr", "meta", "link", "input", "area", "base", "col",
                   "embed", "param", "source", "track", "wbr"})
_VERBATIM = frozenset({"pre", "code", "samp", "kbd", "tt", "listing", "xmp", "plaintext"})
_MATH_SCRIPT = re.compile(r"^\s*math/(?:tex|asciimath)(?P<display>\s*;\s*mode\s*=\s*display)?",
                          re.IGNORECASE)
_DISPLAY_CLASS = re.compile(r"\b(?:display|MathJax_Display|katex-display)\b")
# Rendered formula glyphs whose TeX or MathML is elsewhere in the page; and a notebook
# exported to HTML: its prompts ("In [3]:") and its code, skipped as in the notebook itself
_RENDERED_CLASS = re.compile(r"\b(?:katex-html|MathJax(?:_\w+)?|MJX_\w+|mjx-\w+|"
                             r"jp-InputArea|jp-InputPrompt|jp-OutputPrompt|input_area|"
                             r"input_prompt|output_prompt)\b")
_SPACE = re.compile(r"\s")
_ALT_MATH = re.compile(r"\d.*[=\\^_\[]|[=\\^_\[].*\d")
_HTML_START = re.compile(r"\A(?:\ufeff)?\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html[\s>])",
                         re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class PageText:
    """The text of a page, per character its offset in the page, and the page's title."""

    text: str
    origin: tuple[int, ...]
    title: str


def looks_like_html(text: str) -> bool:
    """Whether a text is an HTML page (it starts with a doctype or an ``<html>`` tag)."""
    return bool(_HTML_START.match(text[:4096]))


class _Reader(HTMLParser):
    """Writes the page's text as it is parsed (see the module docstring)."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=False)
        self.out = Mapped()
        self.starts = [0] + [m.end() for m in re.finditer("\n", source)]
        self.title: list[str] = []
        self.pieces = 0
        self.skip: tuple[str, int] | None = None     # (tag, open count) of a dropped subtree
        self.verbatim = 0
        self.cells = 0                # open table cells: text in them stays on one line
        self.row_open: list[bool] = []    # per open table: a cell of its row is open
        self.math: list[MathNode] = []    # the open elements of the formula being read
        self.script_tex: tuple[int, bool] | None = None   # (offset, display) in a math script
        self.in_title = False

    def counted(self) -> None:
        self.pieces += 1
        if self.pieces > MAX_PIECES:
            raise _TooLarge

    # where things are
    def here(self) -> int:
        line, column = self.getpos()
        return self.starts[min(line, len(self.starts)) - 1] + column

    # writing
    def newline(self, pos: int) -> None:
        if self.cells:
            self.space(pos)
        elif self.out.last() not in ("", "\n"):
            self.out.add("\n", pos)

    def space(self, pos: int) -> None:
        if self.out.last() not in ("", " ", "\n"):
            self.out.add(" ", pos)

    def write(self, text: str, pos: int, verbatim: bool) -> None:
        """Text from the page at ``pos``: kept as it is, or its whitespace collapsed."""
        if self.cells:
            text = text.replace("\n", " ")
        if verbatim or self.verbatim or not _SPACE.search(text):
            self.out.add(text, pos, verbatim=True)
            return
        for piece in re.finditer(r"\s+|\S+", text):
            if piece.group(0)[0].isspace():
                self.space(pos + piece.start())
            else:
                self.out.add(piece.group(0), pos + piece.start(), verbatim=True)

    def write_tex(self, tex: Mapped, pos: int, display: bool) -> None:
        if display:
            self.newline(pos)
        else:
            self.space(pos)
        text = tex.text.replace("\n", " ") if self.cells else tex.text
        if text:
            self.out.parts.append(text)     # the same length: the origins stay as they are
            self.out.origin.extend(tex.origin)
        if display:
            self.newline(pos)
        else:
            self.space(pos)

    # the parser's events
    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.counted()
        values = {k: v or "" for k, v in attrs}
        pos = self.here()
        if tag == "title" and self.skip is None and not self.math:
            self.in_title = True
        if self.skip is not None:
            if tag == self.skip[0] and tag not in _VOID:
                self.skip = (tag, self.skip[1] + 1)
            return
        if self.math:
            self.math_start(tag, values, pos)
            return
        math_script = _MATH_SCRIPT.match(values.get("type", "")) if tag == "script" else None
        if math_script:
            self.script_tex = (pos, bool(math_script["display"]))
            return
        if self.start_formula(tag, values, pos):
            return
        if tag in _DROPPED or _rendered(tag, values.get("class", "")):
            if tag not in _VOID:
                self.skip = (tag, 1)
            return
        self.block_start(tag, values, pos)

    def start_formula(self, tag: str, values: dict[str, str], pos: int) -> bool:
        """A formula: MathML to collect, or an element carrying its TeX (then dropped)."""
        tex = values.get("data-latex") or values.get("data-tex")
        display = values.get("display") == "block" or \
            bool(_DISPLAY_CLASS.search(values.get("class", "")))
        if tag == "math":
            self.math = [MathNode("math", pos, values)]
            return True
        if tex and tag not in _VOID:
            mapped = Mapped()
            mapped.add(tex, pos)         # html.parser has decoded its entities
            self.write_tex(mapped, pos, display)
            self.skip = (tag, 1)
            return True
        return False

    def block_start(self, tag: str, values: dict[str, str], pos: int) -> None:
        if tag == "br":
            self.newline(pos)
        elif tag in ("sub", "sup"):
            self.out.add("_" if tag == "sub" else "^", pos)
        elif tag in ("img", "embed", "object") and \
                MATH_ADDRESS.match(address := values.get("src") or values.get("data") or ""):
            # math as an image whose address carries its TeX (<img>, or <embed> as pandoc
            # writes an SVG): the address is written out, and reading the text decodes it
            # (symattn.extract.math_addresses)
            self.out.add(" " + address + " ", pos)
        elif tag == "img":
            alt = values.get("alt", "")
            if _ALT_MATH.search(alt) or re.search(r"math|latex|tex", values.get("class", "")):
                mapped = Mapped()
                mapped.add(alt, pos)
                self.write_tex(mapped, pos, display=False)
        elif tag == "table":
            self.newline(pos)
            self.row_open.append(False)
        elif tag == "tr" and self.row_open:
            self.close_cell(pos)
            self.newline(pos)
            self.out.add("|", pos)
        elif tag in ("td", "th") and self.row_open:
            self.close_cell(pos)
            self.out.add(" ", pos)
            self.row_open[-1] = True
            self.cells += 1
        elif tag in _VERBATIM:
            if tag == "pre":
                self.newline(pos)
            self.verbatim += 1
        elif tag in _BLOCKS:
            self.newline(pos)

    def close_cell(self, pos: int) -> None:
        if self.row_open and self.row_open[-1]:
            self.row_open[-1] = False
            self.cells -= 1
            self.space(pos)
            self.out.add("|", pos)

    def handle_endtag(self, tag: str) -> None:
        pos = self.here()
        if tag == "title":
            self.in_title = False
        if self.skip is not None:
            if tag == self.skip[0]:
                self.skip = (tag, self.skip[1] - 1) if self.skip[1] > 1 else None
            return
        if self.math:
            self.math_end(tag)
            return
        if tag == "script":
            self.script_tex = None
        elif tag in ("td", "th"):
            self.close_cell(pos)
        elif tag == "tr" and self.row_open:
            self.close_cell(pos)
            self.newline(pos)
        elif tag == "table" and self.row_open:
            self.close_cell(pos)
            self.row_open.pop()
            self.newline(pos)
        elif tag in _VERBATIM and self.verbatim:
            self.verbatim -= 1
            if tag == "pre":
                self.newline(pos)
        elif tag in _BLOCKS:
            self.newline(pos)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_data(self, data: str) -> None:
        self.counted()
        pos = self.here()
        if self.script_tex is not None:
            mapped = Mapped()
            mapped.add(data, pos, verbatim=True)
            self.write_tex(mapped, pos, self.script_tex[1])
        elif self.in_title:
            self.title.append(data)
        elif self.skip is not None:
            return
        elif self.math:
            self.math[-1].add_text(data, pos)
        else:
            self.write(data, pos, verbatim=False)

    def handle_entityref(self, name: str) -> None:
        self.entity(html.unescape(f"&{name};") if len(name) < 40 else "\ufffd")

    def handle_charref(self, name: str) -> None:
        # at most 8 digits: int() of a longer string is slow or refused
        digits = name.lstrip("0xX") if name[:1] in "xX" else name.lstrip("0")
        self.entity(html.unescape(f"&#{name};") if len(digits) <= 8 else "\ufffd")

    def entity(self, text: str) -> None:
        self.counted()
        text = text.replace("\x00", "\ufffd").replace("\r", "\n")
        pos = self.here()
        if self.skip is not None:
            return
        if self.math:
            self.math[-1].add_text(text, pos, verbatim=False)
        elif self.in_title:
            self.title.append(text)
        else:
            self.out.add(text.replace("\n", " ") if self.cells else text, pos)

    # formulas
    def math_start(self, tag: str, values: dict[str, str], pos: int) -> None:
        node = self.math[-1].add(MathNode(tag, pos, values))
        if tag not in _VOID and len(self.math) < MAX_DEPTH:
            self.math.append(node)

    def math_end(self, tag: str) -> None:
        for depth in range(len(self.math) - 1, -1, -1):
            if self.math[depth].tag == tag:
                break
        else:
            return          # a stray end tag inside a formula
        if depth == 0:
            self.formula_done()
        else:
            del self.math[depth:]

    def formula_done(self) -> None:
        root = self.math[0]
        self.math = []
        display = root.attrs.get("display") == "block"
        written = linear(root)
        alttext = root.attrs.get("alttext", "")
        if alttext and tex_annotation(root) is None:      # the page's own TeX of it
            written = Mapped()
            written.add(alttext, root.pos)
        self.write_tex(written, root.pos, display)

    def close(self) -> None:
        super().close()
        if self.math:
            self.formula_done()


def _rendered(tag: str, classes: str) -> bool:
    """Rendered formula glyphs (KaTeX's HTML, MathJax's output) whose source is kept apart."""
    if tag.startswith("mjx-"):        # MathJax v3: its MathML is in mjx-assistive-mml
        return tag not in ("mjx-container", "mjx-assistive-mml")
    return bool(_RENDERED_CLASS.search(classes))


class _TooLarge(Exception):
    """More pieces than MAX_PIECES."""


def _defused(source: str) -> str:
    """The page without the constructs that never close, of the same length up to where it
    ends. For each of those html.parser searches the rest of the page again (quadratic
    time): an unclosed comment runs to the end of the page, as a browser reads it (the page
    is cut there); a ``<`` after the last ``>`` and a ``<![`` after the last ``]]>`` are text.
    """
    closed = source.rfind("-->")
    unclosed = source.find("<!--", closed + 3 if closed >= 0 else 0)
    if unclosed >= 0:
        source = source[:unclosed]
    last = source.rfind(">") + 1
    source = source[:last] + source[last:].replace("<", "\u2039")
    last = source.rfind("]]>") + 1
    return source[:last] + source[last:].replace("<![", "\u2039![")


def html_text(source: str) -> PageText:
    """The text of an HTML page (see the module docstring); ``source`` has ``\\n`` line
    ends. Raises ``ValueError`` for a page of more than ``MAX_PIECES`` pieces."""
    source = _defused(source)
    reader = _Reader(source)
    try:
        reader.feed(source)
        reader.close()
    except _TooLarge:
        raise ValueError(f"the page has more than {MAX_PIECES:,} tags, entities and pieces "
                         "of text; a page that large is not read") from None
    title = " ".join("".join(reader.title).split())
    return PageText(reader.out.text, tuple(reader.out.origin), title)
