"""The catalogs' prose (LaTeX text with a little math) for Markdown and plain text.

Messages are written once, as LaTeX (``symattn/messages``): ``$...$`` math,
``~`` for a non-breaking space, ``\\texttt{...}``. A LaTeX document prints
them as they are; ``markdown`` keeps the math for MathJax and KaTeX and turns
the rest into Markdown; ``plain`` writes the math in Unicode for a terminal.
``ProseCatalog`` is a catalog whose messages come out already converted, for
the Markdown templates and the text reports.

>>> markdown(r"Row~2 uses $\\sqrt{d_k}$ and \\texttt{x}.")
'Row\\xa02 uses $\\\\sqrt{d_k}$ and `x`.'
>>> plain(r"scores $s_{ij} = q_i \\cdot k_j$ over $\\sqrt{d_k}$, $-\\infty$, $\\tilde{S}$")
'scores s_ij = q_i · k_j over √d_k, −∞, S̃'
>>> plain(r"$H_{\\max} = \\log_2 k_i$ and $e^{z_{1j}}$; $QK^{\\top}$")
'H_max = log₂ k_i and e^z_1j; QKᵀ'
"""

from __future__ import annotations

__all__ = ["markdown", "plain", "ProseCatalog"]

import re
from typing import Any, Callable

from symattn.messages import Catalog

_PLACEHOLDER = re.compile(r"\{\{([a-z_][a-z0-9_]*)\}\}")
_MATH = re.compile(r"\$([^$]*)\$")
_NBSP = "\u00a0"

# LaTeX commands of the catalogs' math, in Unicode (longest first where one is a prefix).
_SYMBOLS = (
    (r"\infty", "∞"), (r"\cdot", "·"), (r"\times", "×"), (r"\approx", "≈"), (r"\le", "≤"),
    (r"\ge", "≥"), (r"\ne", "≠"), (r"\to", "→"), (r"\Rightarrow", "⇒"), (r"\Sigma", "Σ"),
    (r"\sum", "Σ"), (r"\max", "max"), (r"\min", "min"), (r"\log_2", "log₂"), (r"\log", "log"),
    (r"\ln", "ln"), (r"\exp", "exp"), (r"\top", "ᵀ"), (r"\ldots", "…"), (r"\dots", "…"),
    (r"\cdots", "⋯"), (r"\quad", " "), (r"\,", " "), (r"\;", " "), (r"\ ", " "), (r"\!", ""),
    (r"\%", "%"), (r"\{", "{"), (r"\}", "}"), (r"\phi", "φ"), (r"\mid", "|"), (r"\|", "‖"),
    (r"\Delta", "Δ"), (r"\cos", "cos "), (r"\theta", "θ"),
    (r"\mathrm", ""), (r"\operatorname", ""), (r"\text", ""), (r"\left", ""), (r"\right", ""),
)


def _plain_math(math: str) -> str:
    """One formula of the catalogs in Unicode (what a terminal can show)."""
    text = re.sub(r"\\sqrt\{([^{}]*)\}", lambda m: "√" + (m.group(1) if len(m.group(1)) < 2
                                                         or "_" in m.group(1)
                                                         else f"({m.group(1)})"), math)
    text = re.sub(r"\\tilde\{([^{}]*)\}", lambda m: m.group(1) + "\u0303", text)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", text)
    text = text.replace("^{\\top}", "\\top").replace("^{\\prime}", "′")
    for command, symbol in sorted(_SYMBOLS, key=lambda pair: -len(pair[0])):
        text = text.replace(command, symbol)
    text = text.replace("-∞", "−∞").replace("~", " ")
    text = re.sub(r"([_^])\{([^{}]*)\}", r"\1\2", text)
    return re.sub(" {2,}", " ", text.replace("{", "").replace("}", ""))


def plain(text: str) -> str:
    """A catalog message as plain text: math in Unicode, no LaTeX left."""
    text = _MATH.sub(lambda m: _plain_math(m.group(1)), text)
    text = re.sub(r"\\(?:texttt|textbf|emph|textit)\{([^{}]*)\}", r"\1", text)
    return text.replace("~", _NBSP).replace("\\,", " ")


def markdown(text: str) -> str:
    """A catalog message as Markdown: math kept for MathJax, the rest in Markdown."""
    pieces = []
    last = 0
    for match in _MATH.finditer(text):
        pieces.append(_markdown_text(text[last:match.start()]))
        pieces.append(match.group())
        last = match.end()
    pieces.append(_markdown_text(text[last:]))
    return "".join(pieces)


def _markdown_text(text: str) -> str:
    text = re.sub(r"\\texttt\{([^{}]*)\}", r"`\1`", text)
    text = re.sub(r"\\textbf\{([^{}]*)\}", r"**\1**", text)
    text = re.sub(r"\\(?:emph|textit)\{([^{}]*)\}", r"*\1*", text)
    return text.replace("~", _NBSP).replace("\\,", " ")


class ProseCatalog:
    """A catalog whose messages come out converted by ``convert`` (``markdown``, ``plain``).

    It answers like a ``Catalog``: attributes and items (sections stay wrapped),
    ``text``, ``fill``, ``get`` and ``list``.
    """

    __slots__ = ("catalog", "convert", "language")

    def __init__(self, catalog: Catalog, convert: Callable[[str], str]) -> None:
        self.catalog = catalog
        self.convert = convert
        self.language = catalog.language

    def _wrap(self, value: Any) -> Any:
        if isinstance(value, Catalog):
            return ProseCatalog(value, self.convert)
        if isinstance(value, str):
            return self.convert(value)
        if isinstance(value, list):
            return [self.convert(v) if isinstance(v, str) else v for v in value]
        return value

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_"):
            raise AttributeError(key)
        return self._wrap(getattr(self.catalog, key))

    def __getitem__(self, key: str) -> Any:
        return self._wrap(self.catalog[key])

    def __contains__(self, path: object) -> bool:
        return path in self.catalog

    def get(self, path: str) -> Any:
        return self._wrap(self.catalog.get(path))

    def text(self, path: str) -> str:
        return self.convert(self.catalog.text(path))

    def list(self, path: str) -> list[str]:
        return [self.convert(item) for item in self.catalog.list(path)]

    def fill(self, path: str, **values: str) -> str:
        """The message converted, then filled (the values are text of the output format)."""
        self.catalog.fill(path, **{name: "" for name in values})   # the names are checked
        protected = _PLACEHOLDER.sub(lambda m: f"\x00{m.group(1)}\x01",
                                     self.catalog.text(path))
        return re.sub("\x00([a-z0-9_]+)\x01", lambda m: values[m.group(1)],
                      self.convert(protected))
