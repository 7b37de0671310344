"""The page shell every HTML output shares: head, style sheet, print sheet, language.

A page is one self-contained file: no script, no font, no image or style sheet
from anywhere else, so it reads the same offline, printed, or saved from a
course site. Every user string goes through ``escape`` (the standard
``html.escape``, quotes included), the one escaping of HTML text in symattn's
pages. The style sheet is scoped under ``.symattn`` so that a notebook cell
(``fragment``) carries the same look without touching the notebook's own.

>>> escape('<script>alert("1")</script> & co')
'&lt;script&gt;alert(&quot;1&quot;)&lt;/script&gt; &amp; co'
>>> "<html lang=\\"pl\\">" in page("Tytuł", "<p>x</p>", "pl")
True
"""

from __future__ import annotations

__all__ = ["escape", "words", "filled", "page", "fragment", "numbered", "tipped", "tip_span",
           "tip_ids",
           "STYLE"]

import hashlib
import html
import itertools
import re

from symattn._version import __version__
from symattn.messages import Catalog
from symattn.render import prose

# Verdict colours have a contrast of at least 4.5:1 on white; a symbol and a word
# always stand beside them, so that colour is never the only sign.
STYLE = """\
.symattn { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  line-height: 1.45; color: #1f2328; max-width: 60rem; }
.symattn h1 { font-size: 1.6rem; margin: 0.2rem 0 0.6rem; }
.symattn h2 { font-size: 1.2rem; margin: 1.6rem 0 0.4rem; border-bottom: 1px solid #d0d7de; }
.symattn h3 { font-size: 1.05rem; margin: 1.2rem 0 0.3rem; }
.symattn .formula { margin: 0.5rem 0; font-size: 1.1rem; }
.symattn .formula math { display: inline math; }
.symattn table { border-collapse: collapse; margin: 0.4rem 0; }
.symattn table.report th, .symattn table.report td { text-align: left; padding: 0.2rem 0.5rem;
  border-bottom: 1px solid #d0d7de; vertical-align: top; }
.symattn table.report td.i, .symattn table.report th.i { text-align: right; padding-right: 0; }
.symattn table.report td.f { text-align: left; padding-left: 0; }
.symattn .num { font-variant-numeric: tabular-nums; white-space: nowrap; }
.symattn .num .w { display: inline-block; text-align: right; }
.symattn table.matrix { border-left: 2px solid #1f2328; border-right: 2px solid #1f2328;
  display: inline-table; vertical-align: middle;
  background: linear-gradient(#1f2328, #1f2328) top left / 0.4rem 2px no-repeat,
    linear-gradient(#1f2328, #1f2328) bottom left / 0.4rem 2px no-repeat,
    linear-gradient(#1f2328, #1f2328) top right / 0.4rem 2px no-repeat,
    linear-gradient(#1f2328, #1f2328) bottom right / 0.4rem 2px no-repeat; }
.symattn table.matrix td { padding: 0.1rem 0.45rem; text-align: left; }
.symattn table.matrix td.i { text-align: right; padding-right: 0; }
.symattn table.matrix td.f { text-align: left; padding-left: 0; }
.symattn .worked p.row { font-weight: 600; margin: 0.9rem 0 0.3rem; }
.symattn table.chain td { padding: 0.1rem 0.25rem; vertical-align: baseline; }
.symattn table.chain td.lhs { text-align: right; }
.symattn table.softmax th, .symattn table.softmax td { text-align: right;
  padding: 0.15rem 0.6rem; border-bottom: 1px solid #d0d7de; }
.symattn table.softmax td:nth-child(2), .symattn table.softmax th:nth-child(2) {
  text-align: left; }
.symattn table.softmax tr.sum td { border-top: 2px solid #1f2328; }
.symattn .matrices { display: flex; flex-wrap: wrap; gap: 0.6rem 1.6rem; margin: 0.3rem 0; }
.symattn figure.matrix { margin: 0; }
.symattn figure.matrix figcaption { font-size: 0.9rem; color: #57606a; margin-bottom: 0.2rem; }
.symattn .eq { display: flex; align-items: center; gap: 0.6rem; flex-wrap: wrap; }
.symattn [aria-describedby] { position: relative; cursor: help; }
.symattn [aria-describedby]:hover, .symattn [aria-describedby]:focus { background: #fff8c5;
  outline: 2px solid #9a6700; }
.symattn td[aria-describedby]:hover + td.f, .symattn td[aria-describedby]:focus + td.f {
  background: #fff8c5; }
.symattn .tip { position: absolute; width: 1px; height: 1px; overflow: hidden;
  clip-path: inset(50%); white-space: pre; }
.symattn :hover > .tip, .symattn :focus > .tip { width: auto; height: auto; overflow: visible;
  clip-path: none; left: 0; top: 100%; z-index: 2; background: #1f2328; color: #ffffff;
  padding: 0.2rem 0.4rem; border-radius: 3px; font-size: 0.8rem; font-weight: normal;
  font-family: ui-monospace, monospace; text-align: left; }
.symattn table.report td:last-child { min-width: 14rem; }
.symattn .ok { color: #1a7f37; }
.symattn .propagated { color: #7d4e00; }
.symattn .wrong { color: #cf222e; font-weight: bold; }
.symattn .undecided { color: #57606a; }
.symattn .note { color: #57606a; font-size: 0.9rem; }
.symattn svg.heatmap text { font-family: inherit; }
.symattn figure { margin: 0.8rem 0; }
.symattn pre { background: #f6f8fa; padding: 0.6rem; overflow-x: auto; }
@media print {
  .symattn { max-width: none; color: #000000; font-size: 10.5pt; }
  .symattn h2 { break-after: avoid; }
  .symattn section.step, .symattn svg, .symattn table { break-inside: avoid; }
  .symattn .tip { display: none; }
  .symattn [aria-describedby]:hover, .symattn [aria-describedby]:focus { background: none;
    outline: none; }
  .symattn .note.screen { display: none; }
}
"""


def escape(text: object) -> str:
    """User or catalog text as HTML shows it literally (quotes too: safe in attributes)."""
    return html.escape(str(text), quote=True)


def words(message: str) -> str:
    """A catalog message (its math in Unicode, as the text layout shows it) as HTML."""
    return escape(prose.plain(message))


def filled(catalog: Catalog, key: str, **values: str) -> str:
    """A catalog message with user ``values`` put in, as HTML: the message's math in
    Unicode, the values as they are (escaped, never read as math)."""
    holes = {name: f"\x00{k}\x00" for k, name in enumerate(values)}
    said = words(catalog.fill(key, **holes))
    for name, hole in holes.items():
        said = said.replace(hole, escape(values[name]))
    return said


_TIP_ID = "\x00tip\x00"           # a tip's id until the page numbers them (``tip_ids``)
_TIP_IDS = re.compile(re.escape(_TIP_ID) + r"(\d+)")
_tip_numbers = itertools.count(1)   # unique within a process; renumbered per page


def tip_span(tip: str) -> tuple[str, str]:
    """The attributes of a focusable element that a ``tip`` describes, and the tip's own
    span to put inside it: hidden, but read as the element's description by a screen
    reader (``aria-describedby``) and shown on hover and keyboard focus (the style sheet)."""
    ident = f"{_TIP_ID}{next(_tip_numbers)}"
    return (f' tabindex="0" aria-describedby="{ident}"',
            f'<span class="tip" id="{ident}" aria-hidden="true">{escape(tip)}</span>')


def tipped(shown: str, tip: str, css: str = "num") -> str:
    """``shown`` (HTML) as a focusable span of class ``css`` that ``tip`` describes."""
    attributes, span = tip_span(tip)
    return f'<span class="{css}"{attributes}>{shown}{span}</span>'


def tip_ids(body: str) -> str:
    """The tips' ids numbered in page order, each prefixed by a digest of the content
    (so that two notebook cells on one page never share an id)."""
    prefix = "tip-" + hashlib.sha1(body.encode("utf-8")).hexdigest()[:6] + "-"
    order: dict[str, str] = {}

    def name(match: re.Match[str]) -> str:
        return prefix + order.setdefault(match.group(1), str(len(order) + 1))

    return _TIP_IDS.sub(name, body)


def numbered(text: str, tip: str = "") -> str:
    """A decimal as two table cells, whole part and the rest, so that a column of them
    lines up on the decimal mark ("0,36" -> whole "0", rest ",36"); with a ``tip``, the
    number can be focused and shows it (``tip_span``)."""
    cut = next((k for k, char in enumerate(text) if char in ".,"), None)
    if cut is None:   # an integer, "-inf", a closed form: the whole cell right-aligned
        cut = len(text)
    focus, span = tip_span(tip) if tip and text else ("", "")
    return (f'<td class="i num"{focus}>{escape(text[:cut])}{span}</td>'
            f'<td class="f num">{escape(text[cut:])}</td>')


def fragment(body: str, language: str) -> str:
    """``body`` as a notebook cell shows it: the style sheet and the content, in
    ``language``."""
    return (f'<div class="symattn" lang="{escape(language)}">\n<style>\n{STYLE}</style>\n'
            f"{tip_ids(body)}\n</div>")


def page(title: str, body: str, language: str, style: str = "") -> str:
    """A whole HTML document: ``title`` (plain text, escaped here), ``body`` (HTML) in
    ``language``; ``style``: more CSS of the page's own, after the shared sheet."""
    return (f'<!DOCTYPE html>\n<html lang="{escape(language)}">\n<head>\n'
            '<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta name="generator" content="symattn {escape(__version__)}">\n'
            f"<title>{escape(title)}</title>\n<style>\nbody {{ margin: 1.5rem; }}\n{STYLE}"
            f'{style}</style>\n</head>\n<body>\n<main class="symattn">\n{tip_ids(body)}\n'
            "</main>\n</body>\n</html>\n")
