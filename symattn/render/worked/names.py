"""What a step is called in a worked example: its template, heading and description.

Headings and the translations of step descriptions come from the message
catalog of the document's language (``symattn/messages/*.toml``); the
engine's own descriptions are English.

>>> import symattn
>>> from symattn import messages
>>> derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
>>> [step_kind(step) for step in derivation]
['input', 'exp', 'exp_sum', 'weights']
>>> heading(derivation["weights"], messages.load("cs"))
'Váhy pozornosti'
"""

from __future__ import annotations

__all__ = ["KINDS", "step_kind", "heading", "description", "sentence"]

from symattn.derivation.names import base_name, split_name
from symattn.derivation.steps import Step
from symattn.messages import Catalog

# Steps with a template of their own (docs/templates.md); the rest are "generic".
KINDS = ("scores", "scaled", "mask", "masked", "exp", "exp_sum", "weights", "output")


def step_kind(step: Step) -> str:
    """The template a step is laid out with (docs/templates.md)."""
    prefix, base = split_name(step.name)
    if base == "mask":
        return "mask"
    if not step.operands:
        return "input"
    if base in ("Q", "K", "V"):
        return "generic" if prefix else "projection"
    if base == "scaled" and prefix:
        return "generic"              # a head's own scale is not the problem's
    if base == "output" and step.operands != (prefix + "weights", prefix + "V"):
        return "generic"              # e.g. multi-head: Concat(heads) W_O
    return base if base in KINDS else "generic"


def sentence(text: str) -> str:
    """``text`` with a capital first letter.

    >>> sentence("raw scores q_i . k_j")
    'Raw scores q_i . k_j'
    """
    return text[:1].upper() + text[1:]


def description(step: Step, catalog: Catalog) -> str:
    """The step's description in the catalog's language (the engine's is English);
    ``[sheet_kinds]`` has those of the multi-head concat and the readout."""
    for table in ("description", "sheet_kinds"):
        translated = catalog.get(f"{table}.{base_name(step.name)}")
        if isinstance(translated, str):
            return translated
    return step.description


def _head(prefix: str, catalog: Catalog) -> str:
    """``head1.`` as the catalog writes it (``head 1``, ``głowica 1``, ...)."""
    number = prefix.rstrip(".")[len("head"):]
    if number.isdigit() and isinstance(catalog.get("sheet_kinds.head"), str):
        return catalog.fill("sheet_kinds.head", number=number)
    return prefix.rstrip(".")


def heading(step: Step, catalog: Catalog) -> str:
    """The step's heading: its own, "<heading> (head h)" for a head's step, else
    its description."""
    headings = catalog["heading"]
    prefix, base = split_name(step.name)
    if step.name in headings:
        return str(headings[step.name])
    if base in headings and step.operands:
        return catalog.fill("heading.of_head", heading=headings[base], head=_head(prefix, catalog))
    return sentence(description(step, catalog) or step.name)
