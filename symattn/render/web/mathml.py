"""LaTeX formulas as MathML, which browsers lay out themselves (no MathJax, no network).

The formulas are the ones the LaTeX renderer writes (a step's symbol and
formula, the catalogs' words in ``\\text{...}``); ``latex2mathml`` converts
them. It copies the contents of ``\\text{...}`` into ``<mtext>`` as they are,
so those are taken out first and put back escaped.

>>> to_mathml(r"A = \\frac{E_{ij}}{\\Sigma_i}", block=True).startswith('<math display="block"')
True
>>> "&lt;b&gt;" in to_mathml(r"\\text{<b>} + 1")
True
>>> to_mathml("0{,}25"), to_mathml("1{,}000{.}5")
('<math><mrow><mn>0,25</mn></mrow></math>', '<math><mrow><mn>1,000.5</mn></mrow></math>')

>>> out = prose_html(r"Raw scores $q_i \\cdot k_j$ & more")
>>> out.startswith("Raw scores <math>"), "<msub><mi>q</mi><mi>i</mi></msub>" in out
(True, True)
"""

from __future__ import annotations

__all__ = ["to_mathml", "prose_html"]

import re

from latex2mathml.converter import convert

from symattn.render.web.page import escape, words

_MATH = re.compile(r"\$([^$]*)\$")     # a catalog message's math, as render.prose reads it
_TEXT = re.compile(r"\\text\{([^{}]*)\}")
_HOLE = "symattntext"
_XMLNS = ' xmlns="http://www.w3.org/1998/Math/MathML"'
# "0{,}25" and "0{.}25" (a decimal mark, or a thousands comma) convert to 0, 25
# with an operator's space: one number, as the digits are written
_MARKED_NUMBER = re.compile(
    r"<mn>([\d.,]+)</mn><mrow><mo>&#x0002([CE]);</mo></mrow><mn>(\d+)</mn>")
_MARKS = {"C": ",", "E": "."}


def _name(k: int) -> str:
    """The stand-in for the ``k``-th text: letters only, so that it stays one name."""
    return _HOLE + "".join(chr(ord("a") + int(d)) for d in str(k))


def to_mathml(latex: str, block: bool = False) -> str:
    """``latex`` as one ``<math>`` element (``block``: a displayed formula)."""
    words: list[str] = []

    def hole(match: re.Match[str]) -> str:
        words.append(match.group(1))
        return f"\\operatorname{{{_name(len(words) - 1)}}}"

    try:
        converted = convert(_TEXT.sub(hole, latex), display="block" if block else "inline")
    except Exception:   # a formula the converter cannot read: shown as LaTeX, not lost
        return f"<code>{escape(latex)}</code>"
    for k, word in enumerate(words):
        converted = converted.replace(f"<mo>{_name(k)}</mo>", f"<mtext>{escape(word)}</mtext>")
    merged = None
    while merged != converted:      # 1{,}000{,}5: each comma in turn
        merged, converted = converted, _MARKED_NUMBER.sub(
            lambda m: f"<mn>{m.group(1)}{_MARKS[m.group(2)]}{m.group(3)}</mn>", converted)
    # HTML parsers put <math> in the MathML namespace themselves
    return converted.replace(_XMLNS, "", 1).replace('<math display="inline"', "<math")


def prose_html(message: str) -> str:
    """A catalog message (never user text) as HTML: its ``$...$`` math as MathML, the
    rest as the text layout words it, escaped."""
    out, start = [], 0
    for match in _MATH.finditer(message):
        out += [words(message[start:match.start()]), to_mathml(match.group(1))]
        start = match.end()
    return "".join(out) + words(message[start:])
