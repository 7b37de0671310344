"""The form of ``symattn serve``: a spec's matrices and options as fields, and back.

``form_fields`` fills the fields from a spec's mapping (``Q``, ``K``, ``V`` or
``X``, ``W_Q``, ``W_K``, ``W_V`` as given; the tokens; ``d_k``, ``scale``,
``temperature``, the mask and ``digits``). ``spec_from_form`` puts the fields
into the mapping of the spec they came from and writes it as TOML text
(``problem.spec_toml``), so that the page's spec text says what was computed.
A field is read by the project's own readers (``tables.read_matrix``,
``options.read_options``: parsed, never evaluated); a bad field raises an
``InputError`` whose location is the field's name.

>>> from symattn.render.web.serve_page import FormFields
>>> text = spec_from_form(FormFields((("Q", "1 0\\n0, 1"),), temperature="1/2"),
...                       'title = "t"\\n[inputs]\\nQ = [[9]]\\nK = [[1, 0], [0, 1]]\\n')
>>> print(text.split("[options]")[0])
title = "t"
<BLANKLINE>
[inputs]
Q = [[1, 0], [0, 1]]
K = [[1, 0], [0, 1]]
<BLANKLINE>
<BLANKLINE>
>>> spec_from_form(FormFields((("K", "1 2)"),)), "[inputs]\\nK = [[1]]\\n")
Traceback (most recent call last):
...
symattn.errors.InputError: K, row 1, column 2: ...
"""

from __future__ import annotations

__all__ = ["MATRIX_FIELDS", "OPTION_FIELDS", "form_fields", "spec_from_form"]

import re
from typing import Any, Mapping

from symattn.errors import InputError, Location
from symattn.problem.options import read_options
from symattn.problem.spec import PrintedNumber, read_mapping
from symattn.problem.spec_toml import dumps
from symattn.problem.tables import read_matrix
from symattn.render.web.serve_page import FormFields

MATRIX_FIELDS = ("Q", "K", "V", "X", "W_Q", "W_K", "W_V")
OPTION_FIELDS = ("d_k", "scale", "temperature", "digits")
MASKS = ("none", "causal")
_SEPARATORS = re.compile(r"[\s,;]+")
_WHOLE = re.compile(r"[-+]?\d{1,100}")
_DECIMAL = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d{1,4})?|[-+]?\d+[eE][-+]?\d{1,4}")


def _cell_text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _matrix_text(value: Any) -> str | None:
    """A matrix of the spec as the field shows it (None: not a plain list of rows)."""
    if not isinstance(value, list) or not value:
        return None
    rows = value if all(isinstance(r, list) for r in value) else [value]
    if any(isinstance(c, (list, dict)) for row in rows for c in row):
        return None        # per-head blocks, identity tables: only the spec's text edits them
    return "\n".join(" ".join(_cell_text(c) for c in row) for row in rows)


def form_fields(mapping: Mapping[str, Any]) -> FormFields:
    """The fields of the spec ``mapping`` (as ``spec.read_mapping`` reads it)."""
    inputs = mapping.get("inputs", {})
    inputs = inputs if isinstance(inputs, dict) else {}
    matrices = tuple((name, text) for name in MATRIX_FIELDS
                     if (text := _matrix_text(inputs.get(name))) is not None)
    options = mapping.get("options", {})
    options = options if isinstance(options, dict) else {}
    tokens = mapping.get("tokens", [])
    mask = options.get("mask", "none")

    def option(name: str) -> str:
        value = options.get(name)
        return "" if value is None or isinstance(value, (list, dict)) else _cell_text(value)

    return FormFields(
        matrices, ", ".join(str(t) for t in tokens) if isinstance(tokens, list) else "",
        option("d_k"), option("scale"), option("temperature"), option("digits"),
        mask.strip().lower() if isinstance(mask, str) and mask.strip().lower() in MASKS
        else "")


def _entry(text: str) -> Any:
    """A cell as TOML would give it: a whole number, a decimal as printed, else text
    (a fraction, ``sqrt(2)``: read by ``parse_entry`` as the spec's strings are)."""
    if _WHOLE.fullmatch(text):
        return int(text)
    if _DECIMAL.fullmatch(text):
        return PrintedNumber(text)
    return text


def _matrix(name: str, text: str) -> list[list[Any]]:
    rows = [[_entry(c) for c in _SEPARATORS.split(line.strip()) if c]
            for line in text.splitlines() if line.strip()]
    read_matrix(rows, Location(key=name))      # its message names the field, row, column
    return rows


def _option(name: str, text: str) -> Any:
    value = _entry(text.strip())
    read_options({name: value}, Location(key=name))
    return value


def spec_from_form(form: FormFields, spec_text: str) -> str:
    """The spec ``spec_text`` with the fields of ``form`` put in, as TOML text."""
    mapping = read_mapping(spec_text, "spec", "toml")
    inputs = mapping.setdefault("inputs", {})
    if not isinstance(inputs, dict):
        raise InputError("[inputs] must be a table", Location(file="spec"))
    for name, text in form.matrices:
        if name not in MATRIX_FIELDS:
            continue
        inputs[name] = _matrix(name, text)
    tokens = [t.strip() for t in form.tokens.split(",") if t.strip()]
    if tokens:
        mapping["tokens"] = tokens
    else:
        mapping.pop("tokens", None)
    options = mapping.setdefault("options", {})
    if not isinstance(options, dict):
        raise InputError("[options] must be a table", Location(file="spec"))
    for name in OPTION_FIELDS:
        text = getattr(form, name)
        if text.strip():
            options[name] = _option(name, text)
        elif not isinstance(options.get(name), (list, dict)):   # those only the text edits
            options.pop(name, None)
    if form.mask in MASKS:
        options["mask"] = form.mask
    if not options:
        del mapping["options"]
    return dumps(mapping)
