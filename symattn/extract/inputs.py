"""Inputs proposed from the named matrices and vectors of a document.

Without ``--spec``, the draft's ``[inputs]`` come from what the document
names: ``X`` (or ``E``) with ``W_Q``, ``W_K``, ``W_V``; else ``Q``, ``K``,
``V``; else the vectors ``q_i``, ``k_j``, ``v_j`` (only some queries: their
positions become ``options.query_positions``); else scores printed under
their name (``scores = [[...]]``, with ``V`` if it is named too). When nothing
is named, the first matrix printed is tried as ``Q = K = V`` and the first
row as scores (``unnamed``); ``W_Q``, ``W_K``, ``W_V`` with an input of another
name are tried with the matrix printed before them as ``X`` (``projected``). A
printed ``-∞`` in a row means a causal mask.

The options are not guessed once: ``option_sets`` lists every setting the
text of the example supports (``d_k = 4``, ``√4 = 2``, ``√d = 2``, scores
``/ 2``, ``T = 0.5``, ``temperature = 2``, no scaling) and the caller keeps
the one whose steps the printed numbers match best (``symattn.extract.examples``).
Each choice comes with a note (a message key of ``extract.infer`` and its
values), so it can be said in the reader's language.

>>> from symattn.extract.document import from_text
>>> from symattn.extract.scanner import scan
>>> text = "q₁ = [1, 0]\\nq₃ = [0, 1]\\nk₁ = [1, 1]\\nk₂ = [0, 2]\\nk₃ = [1, 0]\\n"
>>> proposal = propose(scan(from_text(text + "v₁ = [1, 0]\\nv₂ = [0, 1]\\nv₃ = [1, 1]")))
>>> proposal.inputs["Q"], proposal.options
([['1', '0'], ['0', '1']], {'query_positions': [1, 3]})
>>> [(hint.value, hint.line) for hint in hints([(7, "scores / 2 and √d_k = √4 = 2")]).d_k]
[(4, 7), (4, 7)]
"""

from __future__ import annotations

__all__ = ["Proposal", "Note", "Hint", "Hints", "propose", "projected", "unnamed", "from_scores",
           "hints", "option_sets", "note_text", "with_mask"]

import itertools
import math
import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Iterable

from symattn import messages
from symattn.extract.scanner import Group, Number, Scanned

_PROJECTIONS = {"W_Q": "W_Q", "WQ": "W_Q", "W_q": "W_Q", "W_K": "W_K", "WK": "W_K",
                "W_k": "W_K", "W_V": "W_V", "WV": "W_V", "W_v": "W_V"}
_EMBEDDINGS = ("X", "E", "x", "H", "embeddings", "inputs")
# Q, K and V also by their names spelled out (``queries = [[...]]``)
_SPELLED = {"query": "Q", "queries": "Q", "key": "K", "keys": "K", "value": "V", "values": "V"}
_VECTOR_NAME = re.compile(r"^(?P<letter>[qkvx])_?(?P<index>\d+)$")
_SCORE_NAMES = ("scores", "S", "scaled", "logits", "z")
MAX_OPTION_SETS = 16        # settings tried for one set of inputs

# (message key under extract.infer, its values): one thing inferred and where from
Note = tuple[str, tuple[tuple[str, str], ...]]


def _note(key: str, **values: Any) -> Note:
    return key, tuple((k, str(v)) for k, v in values.items())


def note_text(note: Note, language: str = "en") -> str:
    """A note in a language's words."""
    key, values = note
    return messages.load(language).fill(f"extract.infer.{key}", **dict(values))


@dataclass
class Proposal:
    """Proposed ``[inputs]`` and ``[options]``, and why (one note per choice)."""

    inputs: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    notes: list[Note] = field(default_factory=list)
    used: list[Group] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.inputs)

    @property
    def reasons(self) -> list[str]:
        """The notes in English (the draft's comments)."""
        return [note_text(note) for note in self.notes]


def _cells(group: Group) -> list[list[str]]:
    return [[_plain(n) for n in row] for row in group.rows]


def _plain(number: Number) -> str:
    if number.value is None:
        return "-inf"
    return str(number.value) if number.value.denominator == 1 else _decimal(number)


def _decimal(number: Number) -> str:
    text = number.text.replace(",", ".") if number.text.count(",") == 1 and "." not in \
        number.text else number.text.replace(",", "")
    return text.rstrip("%").strip()


def _lines(groups: Iterable[Group]) -> str:
    found = sorted({g.line for g in groups})
    return ", ".join(map(str, found))


def _named(scanned: Scanned) -> dict[str, Group]:
    """The first group printed under each name (matrices, then vectors); ``keys`` is
    ``K`` when ``K`` itself is not named."""
    named: dict[str, Group] = {}
    for group in scanned.groups:
        for name in group.names:
            named.setdefault(name, group)
    for spelled, letter in _SPELLED.items():
        for name in (spelled, spelled.capitalize()):
            if name in named:
                named.setdefault(letter, named[name])
    return named


def _minus_infinity(scanned: Scanned) -> Number | None:
    return next((n for g in scanned.groups for n in g.numbers if n.value is None), None)


def _from_projections(named: dict[str, Group], proposal: Proposal,
                      embedding: Group | None = None) -> bool:
    embedding = embedding or next((named[n] for n in _EMBEDDINGS
                                   if n in named and named[n].shape[0] > 1), None)
    projections = {_PROJECTIONS[n]: g for n, g in named.items() if n in _PROJECTIONS}
    if embedding is None or len(projections) < 3:
        return False
    columns = embedding.shape[1]
    if any(g.shape[0] != columns for g in projections.values()):
        return False
    proposal.inputs["X"] = _cells(embedding)
    for name in ("W_Q", "W_K", "W_V"):
        proposal.inputs[name] = _cells(projections[name])
    proposal.used.extend([embedding, *projections.values()])
    proposal.notes.append(_note("projections", lines=_lines(proposal.used)))
    return True


def _from_matrices(named: dict[str, Group], proposal: Proposal) -> bool:
    if not all(n in named for n in "QKV") or named["K"].shape[0] != named["V"].shape[0] or \
            named["Q"].shape[1] != named["K"].shape[1] or \
            named["Q"].shape[0] == named["K"].shape[0] == 1:
        return False
    for name in "QKV":
        proposal.inputs[name] = _cells(named[name])
        proposal.used.append(named[name])
    proposal.notes.append(_note("matrices", lines=_lines(proposal.used)))
    return True


def _from_vectors(named: dict[str, Group], proposal: Proposal) -> bool:
    vectors: dict[str, dict[int, Group]] = {"q": {}, "k": {}, "v": {}}
    for name, group in named.items():
        match = _VECTOR_NAME.match(name)
        if match and match["letter"] in vectors and group.shape[0] == 1:
            vectors[match["letter"]].setdefault(int(match["index"]), group)
    keys, values, queries = vectors["k"], vectors["v"], vectors["q"]
    count = len(keys)
    if not queries or not count or sorted(keys) != list(range(1, count + 1)) or \
            sorted(values) != sorted(keys):
        return False
    positions = sorted(p for p in queries if 1 <= p <= count)
    if not positions:
        return False
    proposal.inputs["Q"] = [_cells(queries[p])[0] for p in positions]
    proposal.inputs["K"] = [_cells(keys[j])[0] for j in sorted(keys)]
    proposal.inputs["V"] = [_cells(values[j])[0] for j in sorted(values)]
    proposal.used.extend([*(queries[p] for p in positions), *keys.values(), *values.values()])
    if positions != list(range(1, count + 1)):
        proposal.options["query_positions"] = positions
    proposal.notes.append(_note("vectors", queries=", ".join(map(str, positions)),
                                count=count, lines=_lines(proposal.used)))
    return True


def _from_named_scores(named: dict[str, Group], proposal: Proposal) -> bool:
    """Scores printed under their name (how they are scaled is an option set)."""
    group = next((named[n] for n in _SCORE_NAMES if n in named), None)
    if group is None:
        return False
    proposal.inputs["scores"] = _cells(group)
    proposal.used.append(group)
    proposal.notes.append(_note("scores", line=group.line))
    values = named.get("V")
    if values is not None and values.shape[0] == group.shape[1]:
        proposal.inputs["V"] = _cells(values)
        proposal.used.append(values)
        proposal.notes.append(_note("values", line=values.line))
    return True


def with_mask(scanned: Scanned, proposal: Proposal) -> Proposal:
    """The proposal with a causal mask when the numbers include a printed -∞."""
    if "mask" in proposal.options:
        return proposal
    infinity = _minus_infinity(scanned)
    if proposal.found and infinity is not None:
        proposal.options["mask"] = "causal"
        proposal.notes.append(_note("causal", line=infinity.line))
    return proposal


def from_scores(group: Group) -> Proposal:
    """A row of scores put through softmax as it is (no scaling)."""
    proposal = Proposal({"scaled": _cells(group)}, {"scale": "none"})
    proposal.used.append(group)
    proposal.notes.append(_note("side", line=group.line))
    return proposal


def _stacked_rows(scanned: Scanned) -> dict[str, list[Group]]:
    """The rows printed under ``Q``, ``K``, ``V`` (or their names spelled out), in order."""
    rows: dict[str, list[Group]] = {"Q": [], "K": [], "V": []}
    for group in scanned.groups:
        letters = {_SPELLED.get(n.lower(), n.upper()) for n in group.names}
        if group.shape[0] == 1 and len(letters & set(rows)) == 1:
            rows[(letters & set(rows)).pop()].append(group)
    return rows


def _from_token_rows(scanned: Scanned, proposal: Proposal) -> bool:
    """One line a token, each with its own query, key and value rows under the same names
    (``"The": Query = [...], Key = [...], Value = [...]``): the rows stacked in order."""
    rows = _stacked_rows(scanned)
    count = len(rows["K"])
    if count < 2 or any(len(found) != count for found in rows.values()) or \
            any(len({g.line for g in found}) != count or len({g.shape for g in found}) != 1
                for found in rows.values()) or rows["Q"][0].shape != rows["K"][0].shape:
        return False
    for name in "QKV":
        proposal.inputs[name] = [_cells(group)[0] for group in rows[name]]
        proposal.used.extend(rows[name])
    proposal.notes.append(_note("matrices", lines=_lines(proposal.used)))
    return True


def propose(scanned: Scanned) -> Proposal:
    """The inputs of the computation the named matrices make, or an empty proposal."""
    named = _named(scanned)
    proposal = Proposal()
    if not any(way(named, proposal) for way in (_from_projections, _from_matrices,
                                                 _from_vectors, _from_named_scores)) and \
            not _from_token_rows(scanned, proposal):
        return proposal
    return with_mask(scanned, proposal)


def projected(scanned: Scanned) -> Proposal:
    """``W_Q``, ``W_K``, ``W_V`` named with an input of another name (``S = [[...]]`` then
    ``Q = S @ W_q``): the last named matrix printed before them, as wide as they are high."""
    named = _named(scanned)
    projections = [g for n, g in named.items() if n in _PROJECTIONS]
    proposal = Proposal()
    if len(projections) < 3 or any(n in named for n in _EMBEDDINGS):
        return proposal
    first = min(g.start for g in projections)
    height = projections[0].shape[0]
    earlier = [g for n, g in named.items() if n not in _PROJECTIONS and g.end <= first and
               g.shape[0] > 1 and g.shape[1] == height and
               all(number.value is not None for number in g.numbers)]
    if earlier and _from_projections(named, proposal, max(earlier, key=lambda g: g.start)):
        return with_mask(scanned, proposal)
    return proposal


def unnamed(scanned: Scanned) -> list[Proposal]:
    """When nothing is named: the first matrix as ``Q = K = V`` (attention of the rows on
    each other); that matrix as keys and values with a row of its width printed after
    it as the query (a notebook printing its tensors); the first row of at least two
    numbers as scores."""
    found = []
    matrix = next((g for g in scanned.groups if 1 < g.shape[0] <= 64 and
                   all(n.value is not None for n in g.numbers)), None)
    if matrix is not None:
        cells = _cells(matrix)
        found.append(Proposal({"Q": cells, "K": cells, "V": cells}, {},
                              [_note("same", line=matrix.line)], [matrix]))
        query = next((g for g in scanned.groups if g.start > matrix.end and
                      g.shape == (1, matrix.shape[1]) and
                      all(n.value is not None for n in g.numbers)), None)
        if query is not None:
            found.append(Proposal({"Q": _cells(query), "K": cells, "V": cells}, {},
                                  [_note("query", line=query.line, keys=matrix.line)],
                                  [matrix, query]))
    row = next((g for g in scanned.groups if g.shape[0] == 1 and 2 <= g.shape[1] <= 64 and
                all(n.value is not None for n in g.numbers)), None)
    if row is not None:
        found.append(Proposal({"scores": _cells(row)}, {}, [_note("row", line=row.line)],
                              [row]))
    return [with_mask(scanned, p) for p in found]


# ----- options from the text -------------------------------------------------------------

@dataclass(frozen=True)
class Hint:
    """One setting the text prints: its value, its line and the text that says so."""

    value: Any
    line: int
    text: str


@dataclass
class Hints:
    d_k: list[Hint] = field(default_factory=list)
    temperature: list[Hint] = field(default_factory=list)


_DECIMAL = r"([0-9]+(?:[.,][0-9]+)?)"
_D_K_PRINTED = re.compile(r"\bd_?\{?k?\}?\s*=\s*([1-9][0-9]{0,5})(?![0-9]|[.,][0-9])")
_ROOT_OF_NUMBER = re.compile(r"√\s*\(?\s*([1-9][0-9]{0,5})\s*\)?\s*[=≈]\s*" + _DECIMAL)
_ROOT_OF_NAME = re.compile(r"(?:√\s*\(?\s*d(?:_?\{?k\}?)?\s*\)?|sqrt\(\s*d(?:_?k)?\s*\))\s*"
                           r"[=≈]\s*" + _DECIMAL)
_DIVIDED = re.compile(r"(?:\]|\bscores?|\bS|\bQK\^?T?|\bq\s*·\s*k)\s*/\s*" + _DECIMAL +
                      r"(?![0-9]|\s*[=≈]\s*[0-9])")
_TEMPERATURE = re.compile(r"(?:\bT|τ|\btemperature|\btemp)\s*=\s*" + _DECIMAL +
                          r"(?![0-9])", re.IGNORECASE)


def _number(text: str) -> Fraction:
    return Fraction(text.replace(",", "."))


def _square(root: Fraction) -> int | None:
    """The d_k whose square root is (about) the printed divisor."""
    d_k = round(root * root)
    if 1 <= d_k <= 100_000 and abs(math.sqrt(d_k) - float(root)) <= 0.0051 * float(root):
        return int(d_k)
    return None


def hints(lines: Iterable[tuple[int, str]]) -> Hints:
    """The settings printed in (normalized) lines, each given with its document line."""
    found = Hints()
    for number, line in lines:
        for match in _D_K_PRINTED.finditer(line):
            found.d_k.append(Hint(int(match[1]), number, match[0].strip()))
        for match in _ROOT_OF_NUMBER.finditer(line):
            if _square(_number(match[2])) == int(match[1]):
                found.d_k.append(Hint(int(match[1]), number, match[0].strip()))
        for pattern in (_ROOT_OF_NAME, _DIVIDED):
            for match in pattern.finditer(line):
                d_k = _square(_number(match[1]))
                if d_k is not None and d_k > 1:
                    found.d_k.append(Hint(d_k, number, match[0].strip()))
        for match in _TEMPERATURE.finditer(line):
            value = _number(match[1])
            if 0 < value <= 1000:
                found.temperature.append(Hint(match[1].replace(",", "."), number,
                                              match[0].strip()))
    return found


def _distinct(found: list[Hint]) -> list[Hint]:
    seen: set[Any] = set()
    kept = []
    for hint in found:
        if hint.value not in seen:
            seen.add(hint.value)
            kept.append(hint)
    return kept


def _scalings(proposal: Proposal, found: Hints) -> list[tuple[dict[str, Any], list[Note]]]:
    """How the scores may be scaled: as the inputs give it, by a printed d_k, or not."""
    raw_scores = "scores" in proposal.inputs
    ways: list[tuple[dict[str, Any], list[Note]]] = []
    if not raw_scores:
        ways.append(({}, [_note("shape_scale")]))
    for hint in _distinct(found.d_k):
        ways.append(({"d_k": hint.value},
                     [_note("d_k", value=hint.value, line=hint.line, text=hint.text)]))
    ways.append(({"scale": "none"}, [_note("no_scale")]))
    return ways


def option_sets(proposal: Proposal, found: Hints) -> list[Proposal]:
    """The proposal under every setting the text supports (at most MAX_OPTION_SETS),
    the plainest first: scaling as printed, then each temperature printed."""
    temperatures: list[tuple[dict[str, Any], list[Note]]] = [({}, [])]
    temperatures += [({"temperature": hint.value},
                      [_note("temperature", value=hint.value, line=hint.line, text=hint.text)])
                     for hint in _distinct(found.temperature)]
    sets = []
    for (scale, scale_notes), (heat, heat_notes) in itertools.product(
            _scalings(proposal, found), temperatures):
        sets.append(replace(proposal, options={**proposal.options, **scale, **heat},
                            notes=[*proposal.notes, *scale_notes, *heat_notes],
                            used=list(proposal.used)))
        if len(sets) == MAX_OPTION_SETS:
            break
    return sets
