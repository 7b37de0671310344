"""Step names: the head prefix of multi-head steps (``head2.scores``).

>>> split_name("head2.scores"), split_name("weights")
(('head2.', 'scores'), ('', 'weights'))
"""

from __future__ import annotations

__all__ = ["split_name", "base_name", "symbol_latex", "symbol_question"]

import re

_HEAD = re.compile(r"^(head\d+)\.(.+)$")


def split_name(name: str) -> tuple[str, str]:
    """The head prefix (with its dot, or "") and the step's own name."""
    match = _HEAD.match(name)
    return (f"{match[1]}.", match[2]) if match else ("", name)


def base_name(name: str) -> str:
    """The step's own name, without a head prefix."""
    return split_name(name)[1]


_QUESTIONS = ("to_zero", "to_infinity", "derivative")


def symbol_latex(name: str) -> str:
    """An identifier of the entry grammar in LaTeX: ``w_11`` is ``w_{11}``.

    >>> symbol_latex("w_11"), symbol_latex("T")
    ('w_{11}', 'T')
    """
    head, _, rest = name.partition("_")
    return f"{head}_{{{rest.replace('_', ',')}}}" if rest else head


def symbol_question(name: str, symbol: str) -> tuple[str, dict[str, str]] | None:
    r"""For a step answering ``[symbols]`` (``derivation.symbols``): its kind (to_zero,
    to_infinity, derivative, subs) and the LaTeX its words need; else None.

    >>> symbol_question("weights_to_zero_w_1", "")
    ('to_zero', {'symbol': 'w_{1}'})
    >>> symbol_question("weights_subs", "A\\big|_{T = 1/2}")
    ('subs', {'at': 'T = 1/2'})
    """
    if name == "weights_subs" and symbol.startswith("A\\big|_{"):
        return "subs", {"at": symbol[len("A\\big|_{"):-1]}
    for kind in _QUESTIONS:
        if name.startswith(f"weights_{kind}_"):
            return kind, {"symbol": symbol_latex(name[len(f"weights_{kind}_"):])}
    return None
