"""Office Math (OMML, the equations of a Word document) as linear TeX-like text.

Word keeps an equation as a tree (``m:oMath``): runs of text (``m:r``/``m:t``),
sub- and superscripts (``m:sSub``, ``m:sSup``, ``m:sSubSup``), fractions
(``m:f``), roots (``m:rad``), matrices (``m:m``, rows ``m:mr`` of cells
``m:e``), delimiters (``m:d``), n-ary operators (``m:nary``) and functions
(``m:func``). Each is written the way the document normaliser already reads
LaTeX: ``q_{1}``, ``e^{0.5}``, ``\\sqrt{4}``, ``a / b``, and a matrix as a
``\\begin{bmatrix} 1 & 2 \\\\ 3 & 4 \\end{bmatrix}`` that becomes one bracketed
group. Unknown elements give the text of their children.

>>> from lxml import etree
>>> xml = ('<m:oMath xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math">'
...        '<m:sSup><m:e><m:r><m:t>e</m:t></m:r></m:e><m:sup><m:r><m:t>0.5</m:t></m:r></m:sup>'
...        '</m:sSup><m:r><m:t>=1.649</m:t></m:r></m:oMath>')
>>> linear(etree.fromstring(xml))
'e^{0.5}=1.649'
"""

from __future__ import annotations

__all__ = ["linear", "MATH"]

import re
from typing import Any, Callable

MATH = "http://schemas.openxmlformats.org/officeDocument/2006/math"
_SIMPLE = re.compile(r"^(?:\\sqrt\{[\w.]+\}|[\w.,−\-]+)$")


def _tag(element: Any) -> str:
    tag = element.tag
    return tag.split("}", 1)[1] if isinstance(tag, str) and tag.startswith("{" + MATH) else ""


def _child(element: Any, name: str) -> Any:
    return element.find(f"{{{MATH}}}{name}")


def _text_of(element: Any) -> str:
    return "" if element is None else "".join(linear(child) for child in element)


def _property(element: Any, properties: str, name: str, default: str) -> str:
    found = element.find(f"{{{MATH}}}{properties}/{{{MATH}}}{name}")
    if found is None:
        return default
    return str(found.get(f"{{{MATH}}}val", default))


def _grouped(text: str) -> str:
    return text if _SIMPLE.match(text) else f"({text})"


def _fraction(element: Any) -> str:
    top, bottom = _text_of(_child(element, "num")), _text_of(_child(element, "den"))
    return f"{_grouped(top)} / {_grouped(bottom)}"


def _root(element: Any) -> str:
    degree = _text_of(_child(element, "deg"))
    body = _text_of(_child(element, "e"))
    return (f"{degree}" if degree else "") + "\\sqrt{" + body + "}"


def _matrix(element: Any) -> str:
    rows = [" & ".join(_text_of(cell) for cell in row.findall(f"{{{MATH}}}e"))
            for row in element.findall(f"{{{MATH}}}mr")]
    return "\\begin{bmatrix} " + " \\\\ ".join(rows) + " \\end{bmatrix}"


def _delimited(element: Any) -> str:
    parts = element.findall(f"{{{MATH}}}e")
    if len(parts) == 1 and len(parts[0]) == 1 and _tag(parts[0][0]) == "m":
        return _matrix(parts[0][0])          # a matrix in brackets: the bmatrix has them
    opening = _property(element, "dPr", "begChr", "(")
    closing = _property(element, "dPr", "endChr", ")")
    separator = _property(element, "dPr", "sepChr", "|")
    return opening + separator.join(_text_of(part) for part in parts) + closing


def _scripts(element: Any) -> str:
    base = _text_of(_child(element, "e"))
    sub, sup = _text_of(_child(element, "sub")), _text_of(_child(element, "sup"))
    return base + (f"_{{{sub}}}" if sub else "") + (f"^{{{sup}}}" if sup else "")


def _nary(element: Any) -> str:
    operator = _property(element, "naryPr", "chr", "∫")
    return operator + _scripts(element)


def _function(element: Any) -> str:
    return _text_of(_child(element, "fName")) + " " + _text_of(_child(element, "e"))


def _run(element: Any) -> str:
    return "".join(t.text or "" for t in element.iter(f"{{{MATH}}}t"))


_CONVERT: dict[str, Callable[[Any], str]] = {
    "r": _run, "f": _fraction, "rad": _root, "m": _matrix, "d": _delimited,
    "sSub": _scripts, "sSup": _scripts, "sSubSup": _scripts, "sPre": _scripts,
    "nary": _nary, "func": _function,
}
_SKIPPED = frozenset({"rPr", "ctrlPr", "fPr", "radPr", "mPr", "dPr", "sSubPr", "sSupPr",
                      "sSubSupPr", "naryPr", "funcPr", "oMathParaPr", "accPr", "barPr",
                      "boxPr", "groupChrPr", "limLowPr", "limUppPr", "eqArrPr", "borderBoxPr"})


def linear(element: Any) -> str:
    """The linear text of an OMML element (see the module docstring)."""
    tag = _tag(element)
    if tag in _SKIPPED:
        return ""
    if tag in _CONVERT:
        return _CONVERT[tag](element)
    if tag == "eqArr":       # equations stacked: one per line
        return "\n".join(_text_of(part) for part in element.findall(f"{{{MATH}}}e"))
    return "".join(linear(child) for child in element)
