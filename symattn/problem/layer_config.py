"""The spec tables for the rest of the layer: vocabulary, feed-forward, readout.

```toml
[vocabulary]
tokens = ["cat", "chases", "mouse", "quickly", "sleeping"]
W_vocab = [[1.0, 0.2, 0.8, 0.0, 0.0], [0.0, 1.0, 0.0, 0.5, 0.0]]
layout = "columns"            # each column is one token's embedding ("rows": each row)

[inputs]
sequence = ["cat", "chases", "mouse"]    # token names or 0-based ids: X is their embeddings

[ffn]
W = [[0.5, 1.0], [1.0, 0.5]]  # FFN(x) = x W; or W_1, b_1, activation, W_2, b_2
residual = false              # x + sublayer(x) around attention and around the FFN
layernorm = false             # LayerNorm after each residual (post-LN), epsilon = 0

[readout]
position = 3                  # the query row read out (1-based; default: the last)
unembedding = "tied"          # W_vocab again, or a d_model x vocabulary matrix
temperature = 1
```
"""

from __future__ import annotations

__all__ = ["Vocabulary", "FeedForward", "Readout", "read_vocabulary", "read_feed_forward",
           "read_readout", "read_sequence", "ACTIVATIONS", "VOCABULARY_KEYS", "FFN_KEYS",
           "READOUT_KEYS"]

from dataclasses import dataclass
from typing import Any, Mapping

from flint import fmpq

from symattn.values.entries import Entry, parse_entry
from symattn.errors import InputError, Location, ShapeError, did_you_mean
from symattn.values.exact import Exact
from symattn.problem.tables import EntryMatrix, check_keys, read_bool, read_choice, read_matrix

ACTIVATIONS = ("none", "relu", "gelu")
# The keys each table may hold (an unknown key is an error naming the closest one)
VOCABULARY_KEYS = ("tokens", "W_vocab", "layout")
FFN_KEYS = ("W", "W_1", "b_1", "W_2", "b_2", "activation", "residual", "layernorm", "epsilon")
READOUT_KEYS = ("position", "unembedding", "temperature")


@dataclass(frozen=True)
class Vocabulary:
    tokens: tuple[str, ...]
    matrix: EntryMatrix          # as written
    layout: str                  # "columns" (d_model x V) or "rows" (V x d_model)

    @property
    def size(self) -> int:
        return len(self.tokens)

    @property
    def d_model(self) -> int:
        return len(self.matrix) if self.layout == "columns" else len(self.matrix[0])

    def embedding(self, index: int) -> tuple[Entry, ...]:
        if self.layout == "columns":
            return tuple(row[index] for row in self.matrix)
        return self.matrix[index]


@dataclass(frozen=True)
class FeedForward:
    W: EntryMatrix | None = None           # single linear map
    W_1: EntryMatrix | None = None
    b_1: EntryMatrix | None = None
    W_2: EntryMatrix | None = None
    b_2: EntryMatrix | None = None
    activation: str = "relu"
    residual: bool = False
    layernorm: bool = False
    epsilon: Exact = fmpq(0)

    def linear_maps(self) -> tuple[tuple[str, EntryMatrix], ...]:
        """The weight matrices by name in the order they apply: W, or W_1 then W_2."""
        named = (("W", self.W), ("W_1", self.W_1), ("W_2", self.W_2))
        return tuple((name, matrix) for name, matrix in named if matrix is not None)

    def matrices(self) -> dict[str, EntryMatrix]:
        names = ("W", "W_1", "b_1", "W_2", "b_2")
        return {f"ffn.{n}": getattr(self, n) for n in names if getattr(self, n) is not None}


@dataclass(frozen=True)
class Readout:
    position: int | None = None            # 1-based
    unembedding: EntryMatrix | None = None # None: tied to the vocabulary
    temperature: Exact = fmpq(1)


def read_vocabulary(raw: Any, where: Location) -> Vocabulary:
    if not isinstance(raw, Mapping):
        raise InputError("[vocabulary] must be a table", where)
    check_keys(raw, VOCABULARY_KEYS, where)
    tokens = raw.get("tokens")
    if not isinstance(tokens, list) or not tokens or not all(isinstance(t, str) for t in tokens):
        raise InputError("tokens must be a list of token names", where.at(key="tokens"))
    if len(set(tokens)) != len(tokens):
        raise InputError("tokens has a name twice", where.at(key="tokens"))
    if "W_vocab" not in raw:
        raise InputError("missing W_vocab (the embedding matrix)", where)
    matrix = read_matrix(raw["W_vocab"], where.at(key="W_vocab"))
    layout = read_choice(raw.get("layout", "columns"), ("columns", "rows"), where.at(key="layout"))
    size = len(matrix[0]) if layout == "columns" else len(matrix)
    if size != len(tokens):
        raise ShapeError(f"W_vocab has {size} token {layout} but tokens lists {len(tokens)} "
                         "names", where.at(key="W_vocab"))
    return Vocabulary(tuple(tokens), matrix, layout)


def read_sequence(raw: Any, vocabulary: Vocabulary | None, where: Location
                  ) -> tuple[tuple[int, ...], EntryMatrix]:
    """Token ids of the sequence and the embedding matrix X they pick."""
    if vocabulary is None:
        raise InputError("sequence needs a [vocabulary] table to look the tokens up", where)
    if not isinstance(raw, list) or not raw:
        raise InputError("sequence must be a list of token names or ids", where)
    ids = []
    for k, token in enumerate(raw, start=1):
        here = where.at(column=k)
        if isinstance(token, str) and token in vocabulary.tokens:
            ids.append(vocabulary.tokens.index(token))
        elif isinstance(token, int) and not isinstance(token, bool) and \
                0 <= token < vocabulary.size:
            ids.append(token)
        else:
            raise InputError(f"{token!r} is not a token of the vocabulary (names, or ids 0 to "
                             f"{vocabulary.size - 1}){did_you_mean(token, vocabulary.tokens)}",
                             here)
    return tuple(ids), tuple(vocabulary.embedding(i) for i in ids)


def _value(raw: Any, where: Location, what: str, positive: bool = False,
           non_negative: bool = False) -> Exact:
    entry = parse_entry(raw if not isinstance(raw, str) else str(raw), where)
    value = entry.value
    if not isinstance(value, fmpq):
        raise InputError(f"{what} must be a rational number, got {entry.text!r}", where)
    if positive and value <= 0 or non_negative and value < 0:
        raise InputError(f"{what} must be {'positive' if positive else 'at least 0'}, got "
                         f"{entry.text!r}", where)
    return value


def read_feed_forward(raw: Any, where: Location) -> FeedForward:
    if not isinstance(raw, Mapping):
        raise InputError("[ffn] must be a table", where)
    check_keys(raw, FFN_KEYS, where)
    matrices = {name: read_matrix(raw[name], where.at(key=name))
                for name in ("W", "W_1", "b_1", "W_2", "b_2") if name in raw}
    if "W" in matrices and any(n in matrices for n in ("W_1", "W_2", "b_1", "b_2")):
        raise InputError("give W (one linear map) or W_1, b_1, W_2, b_2 (two layers), not "
                         "both", where)
    if "W" not in matrices and not ("W_1" in matrices and "W_2" in matrices):
        raise InputError("give W (one linear map) or W_1 and W_2 (two layers)", where)
    if "W_1" in matrices:
        hidden = len(matrices["W_1"][0])
        if len(matrices["W_2"]) != hidden:
            raise ShapeError(f"W_1 has {hidden} columns but W_2 has {len(matrices['W_2'])} "
                             "rows", where.at(key="W_2"))
        for bias, width in (("b_1", hidden), ("b_2", len(matrices["W_2"][0]))):
            if bias in matrices and (len(matrices[bias]) != 1 or len(matrices[bias][0]) != width):
                raise ShapeError(f"{bias} must be one row of {width} numbers",
                                 where.at(key=bias))
    return FeedForward(
        **matrices,
        activation=read_choice(raw.get("activation", "relu"), ACTIVATIONS,
                               where.at(key="activation")),
        residual=read_bool(raw.get("residual", False), where.at(key="residual")),
        layernorm=read_bool(raw.get("layernorm", False), where.at(key="layernorm")),
        epsilon=_value(raw.get("epsilon", 0), where.at(key="epsilon"), "epsilon",
                       non_negative=True))


def read_readout(raw: Any, where: Location) -> Readout:
    if not isinstance(raw, Mapping):
        raise InputError("[readout] must be a table", where)
    check_keys(raw, READOUT_KEYS, where)
    position = None
    if "position" in raw:
        value = _value(raw["position"], where.at(key="position"), "position", positive=True)
        if not isinstance(value, fmpq) or value.q != 1:
            raise InputError("position must be a whole number", where.at(key="position"))
        position = int(value.p)
    unembedding = None
    if "unembedding" in raw:
        value = raw["unembedding"]
        if not (isinstance(value, str) and value.strip().lower() == "tied"):
            unembedding = read_matrix(value, where.at(key="unembedding"))
    temperature = _value(raw.get("temperature", 1), where.at(key="temperature"), "temperature",
                         positive=True)
    return Readout(position, unembedding, temperature)
