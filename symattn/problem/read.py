"""A spec mapping to the fields of a ``Problem``, each value read and located.

``read_spec`` takes the plain mapping a spec file holds (numbers still as
their printed text) and returns the keyword arguments of ``Problem``, or
raises ``InputError`` naming the key, row and column at fault. Whether the
matrices fit together is for ``shapes``, once the ``Problem`` is built.

>>> fields = read_spec({"inputs": {"X": [[1, 0]], "W_Q": "identity"}}, Location())
>>> fields["inputs"]["W_Q"][1][1].value
1
"""

from __future__ import annotations

import re

__all__ = ["INPUT_NAMES", "TOP_LEVEL_NAMES", "DIAGNOSTICS", "INSIDE_INPUTS", "ProblemFields",
           "read_spec", "read_language", "read_prose", "uncatalogued_language"]

from typing import Any, Mapping, TypedDict

from flint import fmpq

from symattn.errors import InputError, Location, ShapeError, cut
from symattn.messages import LANGUAGES
from symattn.problem.comparisons import Comparison, read_compare
from symattn.problem.layer_config import (FeedForward, Readout, Vocabulary, read_feed_forward,
                                          read_readout, read_sequence, read_vocabulary)
from symattn.problem.limits import DEFAULT, Limits, check_raw_matrix
from symattn.problem.options import OPTION_NAMES, OptionFields, read_options
from symattn.problem.shapes import projection_source
from symattn.problem.variants import Variant, read_variants
from symattn.problem.printed_inputs import read_inputs_printed
from symattn.problem.symbols import SymbolQuestions, read_symbols, spec_symbols
from symattn.problem.tables import (EntryMatrix, check_keys, entry_values, read_bool,
                                    read_matrix)
from symattn.values.entries import Entry
from symattn.values.native import plain_lists
from symattn.values.exact import NEG_INF

INPUT_NAMES = ("sequence", "X", "X_kv", "X_q", "X_k", "X_v", "W_Q", "W_K", "W_V", "W_O", "Q", "K",
               "V", "scores", "scaled")
DIAGNOSTICS = ("entropy", "jacobian", "variance", "cosine")
TOP_LEVEL_NAMES = ("title", "description", "source", "language", "tokens", "inputs",
                   "options", "claims", "vocabulary", "ffn", "readout", "diagnostics",
                   "compare", "variants", "inputs_printed", "symbols", "labels")
# Top-level keys that may also stand inside [inputs] (written after the table's header)
INSIDE_INPUTS = ("inputs_printed",)
_WEIGHTS = ("W_Q", "W_K", "W_V", "W_O")


class LayerFields(TypedDict, total=False):
    """The ``Problem`` fields of the tables beyond attention; only those given are present."""

    vocabulary: Vocabulary
    sequence: tuple[int, ...]           # token ids when X comes from the vocabulary
    ffn: FeedForward
    readout: Readout
    diagnostics: tuple[str, ...]
    compare: tuple[Comparison, ...]
    variants: tuple[Variant, ...]
    symbols: SymbolQuestions


class _TextFields(TypedDict):
    title: str
    description: str
    prose: Mapping[str, Mapping[str, str]]
    labels: Mapping[str, Mapping[str, str]]
    language: str
    written_language: str
    tokens: tuple[str, ...]
    claims: Mapping[str, Any]


class ProblemFields(_TextFields, LayerFields, OptionFields):
    """Every ``Problem`` field a spec gives, by name (all but ``source``)."""

    inputs: dict[str, EntryMatrix]
    rounded_inputs: tuple[str, ...]


def read_spec(data: Mapping[str, Any], where: Location, limits: Limits = DEFAULT
              ) -> ProblemFields:
    """The fields of a spec mapping (as read from TOML or JSON), matrices within ``limits``."""
    # NumPy arrays and SymPy matrices as nested lists, so the limits see their size
    raw_inputs = {name: plain_lists(value) for name, value in _raw_inputs(data, where).items()}
    layer = _read_layer(data, where)
    if "sequence" in raw_inputs:
        if "X" in raw_inputs:
            raise InputError("give X or sequence, not both", where.at(key="inputs.X"))
        ids, embeddings = read_sequence(raw_inputs["sequence"], layer.get("vocabulary"),
                                        where.at(key="inputs.sequence"))
        layer["sequence"] = ids
        raw_inputs = {**{k: v for k, v in raw_inputs.items() if k != "sequence"},
                      "X": [[entry.text for entry in row] for row in embeddings]}
    options = data.get("options", {})
    if not isinstance(options, Mapping):
        raise InputError("[options] must be a table", where.at(key="options"))
    check_keys(options, OPTION_NAMES, where.at(key="options"))
    for name, value in raw_inputs.items():
        check_raw_matrix(value, limits, where.at(key=f"inputs.{name}"))
    inputs = _read_inputs(raw_inputs, where.at(key="inputs"))
    texts = _read_texts(data, where)
    inner = data["inputs"].get("inputs_printed", "exact")
    rounded = read_inputs_printed(data.get("inputs_printed", inner), tuple(inputs),
                                  where.at(key="inputs_printed" if "inputs_printed" in data
                                           else "inputs.inputs_printed"))
    read = read_options(options, where.at(key="options"))
    if "scaled" in raw_inputs:
        _check_scaled_options(read, "compare" in data, where)
    if "symbols" in data:
        known = spec_symbols(inputs, read.get("temperature"), read.get("scale"))
        layer["symbols"] = read_symbols(data["symbols"], known, where)
    return {"inputs": inputs, "rounded_inputs": rounded, **texts, **layer, **read}


def _check_scaled_options(read: OptionFields, comparing: bool, where: Location) -> None:
    """Options that change nothing when the scaled scores are given are errors, not
    silently ignored (a scale of 1, ``scale = "none"``, is what they already say)."""
    unused = [key for key in ("scale", "temperature") if read.get(key, 1) != 1]
    if "d_k" in read and not comparing:      # [compare] may use d_k
        unused.append("d_k")
    if unused:
        key = unused[0]
        raise InputError(f"{key} does not apply when inputs.scaled is given: those scores "
                         "are already scaled (and divided by the temperature); remove it, or "
                         "give inputs.scores instead", where.at(key=f"options.{key}"))


def _raw_inputs(data: Mapping[str, Any], where: Location) -> Mapping[str, Any]:
    """The ``[inputs]`` table of an attention spec, its keys known."""
    if not isinstance(data, Mapping):
        raise InputError("a spec must be a table of keys", where)
    if "sizes" in data and "inputs" not in data:
        raise InputError("this is a sizes spec ([sizes], no [inputs]): use `symattn check` "
                         "for its claims or `symattn sizes` for the table", where)
    check_keys(data, TOP_LEVEL_NAMES, where)
    raw_inputs = data.get("inputs")
    if not isinstance(raw_inputs, Mapping) or not raw_inputs:
        raise InputError("missing [inputs]: give X with W_Q, W_K, W_V, or Q, K, V, or "
                         "scores / scaled", where.at(key="inputs"))
    raw_inputs = {key: value for key, value in raw_inputs.items() if key not in INSIDE_INPUTS}
    check_keys(raw_inputs, INPUT_NAMES, where.at(key="inputs"))
    return raw_inputs


def _read_texts(data: Mapping[str, Any], where: Location) -> _TextFields:
    """Title, description, token names and the claims table (read later, by ``verify``)."""
    language = read_language(data.get("language", ""), where.at(key="language"))
    title, titles = read_prose(data, "title", where)
    description, descriptions = read_prose(data, "description", where)
    tokens = data.get("tokens", [])
    if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
        raise InputError("tokens must be a list of strings", where.at(key="tokens"))
    claims = data.get("claims", {})
    if not isinstance(claims, Mapping):
        raise InputError("[claims] must be a table", where.at(key="claims"))
    return {"title": title, "description": description, "language": language,
            "written_language": uncatalogued_language(data.get("language", "")),
            "prose": {"title": titles, "description": descriptions},
            "labels": read_labels(data, where),
            "tokens": tuple(str(t) for t in tokens), "claims": claims}


_LANGUAGE_TAG = re.compile(r"^[a-z]{2,3}(?:[-_][a-z0-9]{2,8})*$", re.IGNORECASE)


def read_prose(data: Mapping[str, Any], key: str, where: Location
               ) -> tuple[str, dict[str, str]]:
    """A spec's ``title`` or ``description`` (``key``): the spec's own text and every text
    by its language (also for specs read without ``read_spec``, such as size specs)."""
    language = read_language(data.get("language", ""), where.at(key="language")) or \
        uncatalogued_language(data.get("language", "")).lower()
    return _read_prose(data.get(key, ""), language, where.at(key=key))


def read_labels(data: Mapping[str, Any], where: Location) -> dict[str, dict[str, str]]:
    """The ``[labels]`` table: each label written after ``@`` in a claim key, with its
    text by language (``solutions = {en = "solutions", cs = "řešení"}``), so that a page
    in another language than the spec's can show it."""
    table = data.get("labels", {})
    here = where.at(key="labels")
    if not isinstance(table, Mapping):
        raise InputError("[labels] must be a table: a claim's label, then its text by "
                         "language (solutions = {en = \"solutions\", cs = \"řešení\"})", here)
    language = read_language(data.get("language", ""), where.at(key="language")) or \
        uncatalogued_language(data.get("language", "")).lower()
    labels: dict[str, dict[str, str]] = {}
    for label, value in table.items():
        _, texts = _read_prose(value, language, here.at(key=str(label)))
        labels[str(label).strip()] = texts
    return labels


def _read_prose(value: Any, language: str, where: Location) -> tuple[str, dict[str, str]]:
    """A title or description: text in the spec's ``language`` (of no known language when
    the spec names none), or a table of texts by language (``description.en``). Returns
    the text to keep as the spec's own and every text by its language ("" unknown)."""
    if isinstance(value, str):
        return value, ({language: value} if value else {})
    if not isinstance(value, Mapping):
        raise InputError("must be text, or a table of texts by language (en = \"...\")",
                         where)
    texts: dict[str, str] = {}
    for tag, text in value.items():
        if not isinstance(tag, str) or not _LANGUAGE_TAG.match(tag):
            raise InputError(f"{cut(str(tag))!r} is not a language tag (en, cs, pt-BR, ...)",
                             where.at(key=str(tag)))
        if not isinstance(text, str):
            raise InputError("must be text", where.at(key=tag))
        texts[tag.lower()] = text
    own = texts.get(language) or texts.get("en") or next(iter(texts.values()), "")
    return own, texts


def read_language(value: Any, where: Location) -> str:
    """The spec's ``language``: one of the catalogs' languages, or "" when not given or
    when symattn has no catalog for it (``pt``, ``zh-CN``: reports are then written in
    English, or in ``--language``, with a note; ``uncatalogued_language``)."""
    if value == "":
        return ""
    if isinstance(value, str) and value.strip().lower() in LANGUAGES:
        return value.strip().lower()
    if isinstance(value, str) and _LANGUAGE_TAG.match(value.strip()):
        return ""
    raise InputError(f"language must be a language code ({', '.join(LANGUAGES)} have "
                     f"catalogs; another, such as pt, is written in English), got {value!r}",
                     where)


def uncatalogued_language(value: Any) -> str:
    """The language a spec names when symattn has no catalog for it, else ""."""
    if isinstance(value, str) and value.strip().lower() not in LANGUAGES and \
            _LANGUAGE_TAG.match(value.strip()):
        return value.strip()
    return ""


def _read_layer(data: Mapping[str, Any], where: Location) -> LayerFields:
    layer: LayerFields = {}
    if "vocabulary" in data:
        layer["vocabulary"] = read_vocabulary(data["vocabulary"], where.at(key="vocabulary"))
    if "ffn" in data:
        layer["ffn"] = read_feed_forward(data["ffn"], where.at(key="ffn"))
    if "readout" in data:
        layer["readout"] = read_readout(data["readout"], where.at(key="readout"))
    if "diagnostics" in data:
        table, here = data["diagnostics"], where.at(key="diagnostics")
        if not isinstance(table, Mapping):
            raise InputError("[diagnostics] must be a table", here)
        check_keys(table, DIAGNOSTICS, here)
        layer["diagnostics"] = tuple(name for name in DIAGNOSTICS
                                     if name in table and read_bool(table[name],
                                                                    here.at(key=name)))
    if "compare" in data:
        layer["compare"] = read_compare(data["compare"], where.at(key="compare"))
    if "variants" in data:
        layer["variants"] = read_variants(data["variants"], where.at(key="variants"))
    return layer


def _read_inputs(raw: Mapping[str, Any], where: Location) -> dict[str, EntryMatrix]:
    """Each input matrix, in the order of ``INPUT_NAMES``."""
    inputs: dict[str, EntryMatrix] = {}
    for name in INPUT_NAMES:
        if name not in raw:
            continue
        value = raw[name]
        if isinstance(value, str) and value.strip().lower() == "identity":
            inputs[name] = _identity(name, raw, where)
        elif name in ("W_Q", "W_K", "W_V") and _is_per_head(value):
            inputs[name] = _per_head(name, value, where)
        else:
            inputs[name] = _read_input(name, value, where)
    return inputs


def _identity(name: str, raw: Mapping[str, Any], where: Location) -> EntryMatrix:
    """``W = "identity"``: the identity of the width of X (of X_kv for W_K and W_V)."""
    if name not in _WEIGHTS:
        raise InputError("only W_Q, W_K, W_V and W_O may be \"identity\"", where.at(key=name))
    source = projection_source(name[-1], raw) if name != "W_O" else "X"
    if source not in raw:
        raise InputError(f"\"identity\" needs {source} to know its size", where.at(key=name))
    size = len(read_matrix(raw[source], where.at(key=source))[0])
    return tuple(tuple(Entry(fmpq(int(i == j)), 0, str(int(i == j))) for j in range(size))
                 for i in range(size))


def _is_per_head(value: Any) -> bool:
    """A list of matrices (a 3-D list), one per head."""
    return isinstance(value, list) and bool(value) and all(
        isinstance(m, list) and m and all(isinstance(r, list) for r in m) for m in value)


def _per_head(name: str, value: list[Any], where: Location) -> EntryMatrix:
    """One matrix per head: their columns side by side make the full matrix."""
    blocks = [read_matrix(block, where.at(key=f"{name}[{h}]"))
              for h, block in enumerate(value, start=1)]
    if len({len(b) for b in blocks}) != 1 or len({len(b[0]) for b in blocks}) != 1:
        raise ShapeError("the per-head matrices must all have the same shape",
                         where.at(key=name))
    return tuple(tuple(e for block in blocks for e in block[r]) for r in range(len(blocks[0])))


def _read_input(name: str, value: Any, where: Location) -> EntryMatrix:
    """A matrix as written; -inf is a mask, so only the scores may hold it."""
    matrix = read_matrix(value, where.at(key=name))
    if name not in ("scores", "scaled") and id(NEG_INF) in set(map(id, entry_values(matrix))):
        for i, row in enumerate(matrix, start=1):
            for j, entry in enumerate(row, start=1):
                if entry.value is NEG_INF:
                    raise InputError("-inf is only allowed in scores or scaled (where it "
                                     "masks)", where.at(key=name, row=i, column=j))
    return matrix
