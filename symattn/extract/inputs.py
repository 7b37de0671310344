"""Inputs proposed from the named matrices and vectors of a document.

Without ``--spec``, the draft's ``[inputs]`` come from what the document
names: ``X`` (or ``E``) with ``W_Q``, ``W_K``, ``W_V``; else ``Q``, ``K``,
``V``; else the vectors ``q_i``, ``k_j``, ``v_j`` (only some queries: their
positions become ``options.query_positions``); else a row of scores put
through softmax (``softmax([...])``, ``[...] → softmax → [...]``, or the
scores whose exponentials are printed, ``exp(3.2) = 24.53``). A printed
``-∞`` in a row means a causal mask. Each choice comes with the reason.

>>> from symattn.extract.document import from_text
>>> from symattn.extract.scanner import scan
>>> text = "q₁ = [1, 0]\\nq₃ = [0, 1]\\nk₁ = [1, 1]\\nk₂ = [0, 2]\\nk₃ = [1, 0]\\n"
>>> proposal = propose(scan(from_text(text + "v₁ = [1, 0]\\nv₂ = [0, 1]\\nv₃ = [1, 1]")))
>>> proposal.inputs["Q"], proposal.options
([['1', '0'], ['0', '1']], {'query_positions': [1, 3]})
"""

from __future__ import annotations

__all__ = ["Proposal", "propose", "from_scores"]

import re
from dataclasses import dataclass, field
from typing import Any

from symattn.extract.scanner import Group, Number, Scanned

_PROJECTIONS = {"W_Q": "W_Q", "WQ": "W_Q", "W_q": "W_Q", "W_K": "W_K", "WK": "W_K",
                "W_k": "W_K", "W_V": "W_V", "WV": "W_V", "W_v": "W_V"}
_EMBEDDINGS = ("X", "E", "x", "H")
_VECTOR_NAME = re.compile(r"^(?P<letter>[qkvx])_?(?P<index>\d+)$")


@dataclass
class Proposal:
    """Proposed ``[inputs]`` and ``[options]``, and why (one reason per choice)."""

    inputs: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    reasons: list[str] = field(default_factory=list)
    used: list[Group] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return bool(self.inputs)


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


def _named(scanned: Scanned) -> dict[str, Group]:
    """The first group printed under each name (matrices, then vectors)."""
    named: dict[str, Group] = {}
    for group in scanned.groups:
        for name in group.names:
            named.setdefault(name, group)
    return named


def _causal(scanned: Scanned) -> bool:
    return any(n.value is None for g in scanned.groups for n in g.numbers)


def _from_projections(named: dict[str, Group], proposal: Proposal) -> bool:
    embedding = next((named[n] for n in _EMBEDDINGS if n in named and named[n].shape[0] > 1),
                     None)
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
    proposal.reasons.append(f"X and W_Q, W_K, W_V: the matrices named so (line "
                            f"{embedding.line} and on)")
    return True


def _from_matrices(named: dict[str, Group], proposal: Proposal) -> bool:
    if not all(n in named and named[n].shape[0] > 1 for n in "QKV"):
        return False
    for name in "QKV":
        proposal.inputs[name] = _cells(named[name])
        proposal.used.append(named[name])
    proposal.reasons.append(f"Q, K, V: the matrices named so (line {named['Q'].line} and on)")
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
    proposal.reasons.append(
        f"Q, K, V: the vectors q, k, v named with their token numbers (q at "
        f"{', '.join(map(str, positions))}; k and v at 1 to {count})")
    return True


def _from_named_scores(named: dict[str, Group], proposal: Proposal, d_k: int | None) -> bool:
    """Scores printed under their name: raw with the printed d_k, else taken as scaled."""
    group = next((named[n] for n in ("scores", "S", "scaled") if n in named), None)
    if group is None:
        return False
    if d_k and "scaled" not in named:
        proposal.inputs["scores"] = _cells(group)
        proposal.options["d_k"] = d_k
        proposal.reasons.append(f"scores: the matrix named so (line {group.line}), scaled by "
                                f"1/sqrt(d_k) with the printed d_k = {d_k}")
    else:
        proposal.inputs["scaled"] = _cells(group)
        proposal.options["scale"] = "none"
        proposal.reasons.append(f"scaled: the scores named so (line {group.line}); no d_k is "
                                "printed, so they are taken as they are")
    proposal.used.append(group)
    values = named.get("V")
    if values is not None and values.shape[0] == group.shape[1]:
        proposal.inputs["V"] = _cells(values)
        proposal.used.append(values)
        proposal.reasons.append(f"V: the matrix named so (line {values.line})")
    return True


def from_scores(group: Group) -> Proposal:
    """A row of scores put through softmax as it is (no scaling)."""
    proposal = Proposal({"scaled": _cells(group)}, {"scale": "none"})
    proposal.used.append(group)
    proposal.reasons.append(f"scaled: the row of scores put through softmax (line {group.line})")
    return proposal


def propose(scanned: Scanned, d_k: int | None = None) -> Proposal:
    """The inputs of the document's main computation, or an empty proposal;
    ``d_k``: the key dimension the document prints, if any (for raw scores)."""
    named = _named(scanned)
    proposal = Proposal()
    if not any(way(named, proposal) for way in (_from_projections, _from_matrices,
                                                 _from_vectors)):
        _from_named_scores(named, proposal, d_k)
    if proposal.found and _causal(scanned):
        proposal.options["mask"] = "causal"
        proposal.reasons.append("mask = causal: the document prints -∞ in a row of scores")
    return proposal
