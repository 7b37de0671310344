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

__all__ = ["KINDS", "step_kind", "heading", "description", "sentence", "formula_words"]

import re

from symattn.derivation.names import base_name, split_name, symbol_question
from typing import Mapping, Protocol

from symattn.messages import Catalog
from symattn.render.reasons import head_label

class StepLike(Protocol):
    """What naming a step reads: a ``Step``, or a step's view in ``render.view``."""

    @property
    def name(self) -> str: ...
    @property
    def operands(self) -> tuple[str, ...]: ...
    @property
    def description(self) -> str: ...
    @property
    def symbol(self) -> str: ...


# Steps with a template of their own (docs/templates.md); the rest are "generic".
KINDS = ("scores", "scaled", "mask", "masked", "exp", "exp_sum", "weights", "output",
         "row_max", "shifted", "exp_shifted", "exp_shifted_sum", "variance")


# Catalog tables with headings of their own steps ([maxshift.heading], ...).
_TABLES = ("maxshift", "variance", "ffn", "docops")


def step_kind(step: StepLike) -> str:
    """The template a step is laid out with (docs/templates.md)."""
    prefix, base = split_name(step.name)
    if base in ("mask", "variance"):
        return base
    if getattr(step, "variant", "") == "reordered":   # options.order: laid out as written
        return "generic"
    if not step.operands:
        return "input"
    if base in ("Q", "K", "V"):
        return "generic" if prefix else "projection"
    if base == "scaled" and prefix:
        return "generic"              # a head's own scale is not the problem's
    if base == "output" and step.operands == ("concat", "W_O") or \
            base in ("ffn", "ffn_hidden", "logits") and len(step.operands) >= 2:
        return "product"              # a row times a matrix, written out (products.py)
    if base in ("concat", "probs"):
        return base
    if base == "output" and step.operands != (prefix + "weights", prefix + "V"):
        return "generic"              # e.g. multi-head: the concatenation without W_O
    return base if base in KINDS else "generic"


def sentence(text: str) -> str:
    """``text`` with a capital first letter.

    >>> sentence("raw scores q_i . k_j")
    'Raw scores q_i . k_j'
    """
    return text[:1].upper() + text[1:]


def description(step: StepLike, catalog: Catalog) -> str:
    """The step's description in the catalog's language (LaTeX); the engine's own
    (English) only for a step the catalogs do not know. ``[sheet_kinds]`` has those
    of worksheet problems that ``[description]`` lacks (the readout matrix ``U``)."""
    if getattr(step, "variant", "") == "raw":      # scores the spec says are used unscaled
        return str(catalog.text("raw.given" if not step.operands else "raw.unscaled"))
    # [symbols]: limits, derivative, substitution
    asked = symbol_question(step.name, getattr(step, "symbol", ""))
    if asked is not None:
        return catalog.fill(f"symbols.description.{asked[0]}", **asked[1])
    base = base_name(step.name)
    if getattr(step, "variant", "") == "reordered" and f"docops.description.{base}_after" in \
            catalog:                                  # options.order: from the step before
        return str(catalog.text(f"docops.description.{base}_after"))
    if base == "output" and step_kind(step) == "generic" and "description.output_multi" in catalog:
        base = "output_multi"
    elif base == "scaled" and not step.operands and "description.scaled_given" in catalog:
        base = "scaled_given"
    for table in ("description", "sheet_kinds", "docops.description"):
        translated = catalog.get(f"{table}.{base}")
        if isinstance(translated, str):
            return translated
    return step.description


def heading(step: StepLike, catalog: Catalog) -> str:
    """The step's heading (LaTeX): its own, "<heading> (head h)" for a head's step,
    else its description."""
    headings = catalog["heading"]
    prefix, base = split_name(step.name)
    if getattr(step, "variant", "") == "raw":      # scores the spec says are used unscaled
        return str(catalog.text("raw.heading" if not step.operands else "raw.heading_unscaled"))
    asked = symbol_question(step.name, getattr(step, "symbol", ""))
    if asked is not None:
        return catalog.fill(f"symbols.heading.{asked[0]}", **asked[1])
    key = "mixed" if base == "output" and step.operands == ("concat", "W_O") else base
    extra = next((catalog.text(f"{table}.heading.{key}") for table in _TABLES
                  if f"{table}.heading.{key}" in catalog), None)
    if extra is not None:
        return extra if not prefix else catalog.fill("heading.of_head", heading=extra,
                                                     head=head_label(prefix, catalog))
    if step.name in headings:
        return str(headings[step.name])
    if base in headings and step.operands:
        return catalog.fill("heading.of_head", heading=headings[base],
                            head=head_label(prefix, catalog))
    return sentence(description(step, catalog) or step.name)


_ROW_OF = re.compile(r"\\text\{row (\d+) of ([A-Za-z_][A-Za-z0-9_.]*)\}")


def formula_words(formula: str, symbols: Mapping[str, str], catalog: Catalog) -> str:
    """The engine's formula with its few words (``\\text{tokens}``, ``\\text{row 3 of
    ffn}``) in the catalog's language, a step named by its symbol (``symbols``: by name).

    >>> import symattn
    >>> from symattn import messages
    >>> derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
    >>> symbols = {step.name: step.symbol for step in derivation}
    >>> formula_words(derivation["h"].formula, symbols, messages.load("pl"))
    '\\\\text{wiersz 3 macierzy } F'
    """
    def row_of(match: re.Match[str]) -> str:
        source = match.group(2)
        symbol = symbols.get(source, source)
        return f"\\text{{{catalog.fill('formula.row_of', row=match.group(1))} }} {symbol}"

    words = formula.replace("\\text{tokens}", f"\\text{{{catalog.text('formula.tokens')}}}")
    words = words.replace("\\text{row } p", f"\\text{{{catalog.text('formula.row')} }} p")
    return _ROW_OF.sub(row_of, words)
