"""Shapes of a problem's matrices, and the checks that they fit together.

Each check takes the inputs and the options it needs and raises ``ShapeError``
(or ``InputError`` for a missing or surplus matrix) naming the product that
does not fit. ``Problem.from_mapping`` runs them in order: the inputs, the
heads, the queries (mask, positions, tokens), then the rest of the layer.

>>> from symattn.values.entries import parse_entry
>>> row = tuple(parse_entry(text) for text in ("1", "0"))
>>> inputs = {"Q": (row,), "K": (row, row, row)}
>>> score_shape(inputs), projected_shape(inputs, "K")
((1, 3), (3, 2))
>>> check_inputs(inputs, 1, False, Location(file="x.toml"))
"""

from __future__ import annotations

__all__ = ["Inputs", "matrix_shape", "projection_source", "projected_shape", "score_shape",
           "dims", "check_inputs", "check_heads", "check_queries", "check_layer"]

from typing import Container, Mapping

from symattn.errors import InputError, Location, ShapeError
from symattn.problem.layer_config import FeedForward, Readout, Vocabulary
from symattn.problem.modes import MaskKind, MaskSpec
from symattn.problem.tables import EntryMatrix

Inputs = Mapping[str, EntryMatrix]


def matrix_shape(inputs: Inputs, name: str) -> tuple[int, int]:
    """(rows, columns) of the input ``name``."""
    matrix = inputs[name]
    return len(matrix), len(matrix[0])


def projection_source(name: str, inputs: Container[str]) -> str:
    """The input Q, K or V is projected from: its own X_q, X_k or X_v if given, else
    X_kv for keys and values, else X.

    >>> projection_source("K", {"X", "X_kv"}), projection_source("V", {"X", "X_v"})
    ('X_kv', 'X_v')
    """
    own = f"X_{name.lower()}"
    if own in inputs:
        return own
    return "X_kv" if name in ("K", "V") and "X_kv" in inputs else "X"


def projected_shape(inputs: Inputs, name: str) -> tuple[int, int]:
    """Shape of Q, K or V, given directly or as X @ W (X_kv, X_q, X_k, X_v: see
    ``projection_source``)."""
    if name in inputs:
        return matrix_shape(inputs, name)
    source = projection_source(name, inputs)
    return matrix_shape(inputs, source)[0], matrix_shape(inputs, f"W_{name}")[1]


def score_shape(inputs: Inputs) -> tuple[int, int]:
    """(queries, keys): the shape of the scores, given or computed."""
    for name in ("scaled", "scores"):
        if name in inputs:
            return matrix_shape(inputs, name)
    return projected_shape(inputs, "Q")[0], projected_shape(inputs, "K")[0]


def dims(shape: tuple[int, int]) -> str:
    """A shape as messages write it: ``2x3``."""
    return f"{shape[0]}x{shape[1]}"


def check_inputs(inputs: Inputs, heads: int, scale_set: bool, where: Location) -> None:
    """The inputs name one way to the scores, and their products fit.

    ``scale_set``: options.scale or options.d_k is given, which scores given
    directly need (their d_k cannot be read off K).
    """
    start = [name for name in ("scaled", "scores") if name in inputs]
    if len(start) == 2:
        raise InputError("give scores or scaled, not both", where.at(key="inputs"))
    if start:
        _check_given_scores(inputs, start[0], scale_set, where)
    else:
        _check_sources(inputs, where)
        _check_products(inputs, heads, where)


def _check_given_scores(inputs: Inputs, start: str, scale_set: bool, where: Location) -> None:
    for name in ("X", "W_Q", "W_K", "Q", "K"):
        if name in inputs:
            raise InputError(f"{name} is not used when {start} is given directly; "
                             "remove one of them", where.at(key=f"inputs.{name}"))
    m = matrix_shape(inputs, start)[1]
    if "V" in inputs and matrix_shape(inputs, "V")[0] != m:
        raise ShapeError(f"weights @ V needs V to have {m} rows (one per key), but V "
                         f"is {dims(matrix_shape(inputs, 'V'))}", where.at(key="inputs.V"))
    if start == "scores" and not scale_set:
        raise InputError("scores are given directly, so d_k is unknown: set "
                         "options.d_k or options.scale", where.at(key="options"))


def _check_sources(inputs: Inputs, where: Location) -> None:
    """Q, K and V each given directly or as X with its W, not both; V may be left out."""
    for name in ("Q", "K", "V"):
        weight = f"W_{name}"
        if name in inputs and weight in inputs:
            raise InputError(f"give {name} directly or X with {weight}, not both",
                             where.at(key=f"inputs.{weight}"))
        source = projection_source(name, inputs)
        if source != "X" and source != "X_kv" and weight not in inputs:
            raise InputError(f"{source} needs {weight} (or give {name} directly)",
                             where.at(key=f"inputs.{source}"))
        if name not in inputs and not (source in inputs and weight in inputs):
            if name == "V" and weight not in inputs:
                continue  # no V: the derivation stops at the weights
            missing = weight if source in inputs else f"{name} (or X with {weight})"
            raise InputError(f"missing input {missing}", where.at(key="inputs"))
    if "X_kv" in inputs and "X" not in inputs:
        raise InputError("X_kv (keys and values) needs X (queries) too", where.at(key="inputs"))


def check_sources_used(inputs: Inputs, keeps_x: bool, where: Location) -> None:
    """Every X given feeds something: an X beside Q, K and V given directly would be an
    unused step and a sign that the spec says two things (``keeps_x``: a residual or
    positions use X itself).

    >>> check_sources_used({"X": [[1]], "Q": [[1]], "K": [[1]]}, False, Location())
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: inputs.X: X is given, but Q and K are given directly, ...
    """
    for source in ("X", "X_kv", "X_q", "X_k", "X_v"):
        if source not in inputs or (source == "X" and keeps_x):
            continue
        fed = [name for name in ("Q", "K", "V") if projection_source(name, inputs) == source]
        if fed and not any(f"W_{name}" in inputs for name in fed):
            direct = [name for name in fed if name in inputs]
            names = _listed(direct or fed)
            weights = _listed([f"W_{name}" for name in (direct or fed)])
            raise InputError(f"{source} is given, but {names} "
                             f"{'are' if len(direct) > 1 else 'is'} given directly, so {source} "
                             f"is not used; remove {source}, or give {weights} instead of "
                             f"{names}", where.at(key=f"inputs.{source}"))


def _listed(names: list[str]) -> str:
    """``Q, K and V``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _check_products(inputs: Inputs, heads: int, where: Location) -> None:
    """X @ W, Q @ K^T and weights @ V have matching inner dimensions."""
    for weight in ("W_Q", "W_K", "W_V"):
        source = projection_source(weight[-1], inputs)
        if source in inputs and weight in inputs:
            x_shape = matrix_shape(inputs, source)
            if matrix_shape(inputs, weight)[0] != x_shape[1]:
                raise ShapeError(
                    f"{source} @ {weight} needs {weight} to have {x_shape[1]} rows "
                    f"({source} is {dims(x_shape)}), but {weight} is "
                    f"{dims(matrix_shape(inputs, weight))}", where.at(key=f"inputs.{weight}"))
    q, k = projected_shape(inputs, "Q"), projected_shape(inputs, "K")
    if q[1] != k[1] and heads == 1:
        raise ShapeError(f"Q @ K^T needs Q and K to have the same number of columns, "
                         f"but Q is {dims(q)} and K is {dims(k)}", where.at(key="inputs"))
    if "V" in inputs or "W_V" in inputs:
        v = projected_shape(inputs, "V")
        if v[0] != k[0]:
            raise ShapeError(f"weights @ V needs V to have one row per key ({k[0]}), "
                             f"but V is {dims(v)}", where.at(key="inputs"))


def check_heads(inputs: Inputs, heads: int, kv_heads: int | None, where: Location) -> None:
    """Q, K, V (and W_O) split evenly into ``heads`` query and ``kv_heads`` key/value heads."""
    kv = kv_heads or heads
    if not (heads > 1 or "W_O" in inputs):
        if kv_heads not in (None, 1):
            raise InputError("kv_heads needs heads > 1", where.at(key="options.kv_heads"))
        return
    if "scores" in inputs or "scaled" in inputs:
        raise InputError("several heads need Q, K, V (or X and the W's), not scores",
                         where.at(key="options.heads"))
    if heads % kv:
        raise InputError(f"kv_heads ({kv}) must divide heads ({heads})",
                         where.at(key="options.kv_heads"))
    if not ("V" in inputs or "W_V" in inputs):
        raise InputError("several heads need V (or W_V)", where.at(key="inputs"))
    q, k, v = (projected_shape(inputs, name) for name in "QKV")
    if q[1] % heads:
        raise ShapeError(f"Q has {q[1]} columns, which do not split into {heads} heads",
                         where.at(key="options.heads"))
    d_k = q[1] // heads
    if k[1] != kv * d_k:
        raise ShapeError(f"with {kv} key/value head(s) of d_k = {d_k}, K needs "
                         f"{kv * d_k} columns but has {k[1]}", where.at(key="inputs"))
    if v[1] % kv:
        raise ShapeError(f"V has {v[1]} columns, which do not split into {kv} "
                         "key/value heads", where.at(key="inputs"))
    if "W_O" in inputs:
        d_v = v[1] // kv
        rows = matrix_shape(inputs, "W_O")[0]
        if rows != heads * d_v:
            raise ShapeError(f"concat(heads) has {heads} x {d_v} = {heads * d_v} columns, "
                             f"so W_O needs that many rows, but it has {rows}",
                             where.at(key="inputs.W_O"))


def check_queries(mask: MaskSpec, query_positions: tuple[int, ...] | None,
                  tokens: tuple[str, ...], scores: tuple[int, int], where: Location) -> None:
    """The mask, the query positions and the token names fit the ``scores`` shape."""
    n, m = scores
    _check_mask(mask, query_positions, n, m, where.at(key="options.mask"))
    if query_positions is not None and len(query_positions) != n:
        raise ShapeError(f"query_positions has {len(query_positions)} entries but "
                         f"there are {n} queries", where.at(key="options.query_positions"))
    if tokens and len(tokens) not in (n, m):
        raise ShapeError(f"tokens lists {len(tokens)} names but there are {n} "
                         f"queries and {m} keys", where.at(key="tokens"))


def _check_mask(mask: MaskSpec, query_positions: tuple[int, ...] | None, n: int, m: int,
                where: Location) -> None:
    if mask.kind == MaskKind.CAUSAL and n != m and query_positions is None:
        raise ShapeError(f"a causal mask with {n} queries and {m} keys is ambiguous; set "
                         "options.query_positions (the 1-based position of each query)",
                         where)
    if mask.kind == MaskKind.PADDING:
        for key in mask.padded_keys:
            if key >= m:
                raise ShapeError(f"padded key position {key + 1} is beyond the {m} keys",
                                 where)
    if mask.kind == MaskKind.MATRIX and mask.allowed is not None:
        shape = (len(mask.allowed), len(mask.allowed[0]))
        if shape != (n, m):
            raise ShapeError(f"the mask is {dims(shape)} but the scores are "
                             f"{dims((n, m))}", where)
    for k, position in enumerate(query_positions or (), start=1):
        if position > m:
            raise ShapeError(f"query position {position} is beyond the {m} keys",
                             where.at(column=k))


def check_layer(inputs: Inputs, ffn: FeedForward | None, readout: Readout | None,
                vocabulary: Vocabulary | None, query_positions: tuple[int, ...] | None,
                where: Location) -> None:
    """The feed-forward maps and the readout fit the attention output."""
    if not ("V" in inputs or "W_V" in inputs):
        if ffn or readout:
            raise InputError("the feed-forward and readout steps need V (or W_V)", where)
        return
    given_scores = "scores" in inputs or "scaled" in inputs
    width = matrix_shape(inputs, "V")[1] if given_scores else projected_shape(inputs, "V")[1]
    if ffn is not None:
        x_width = matrix_shape(inputs, "X")[1] if "X" in inputs else None
        width = _check_feed_forward(ffn, x_width, width, where)
    if readout is not None:
        n = score_shape(inputs)[0]
        _check_readout(readout, vocabulary, query_positions or tuple(range(1, n + 1)), width,
                       where)


def _check_feed_forward(ffn: FeedForward, x_width: int | None, width: int,
                        where: Location) -> int:
    """The FFN takes ``width`` columns (and keeps them around a residual); its output width."""
    if ffn.residual and x_width != width:
        raise ShapeError(f"a residual connection adds X to the attention output, so X "
                         f"must be given with {width} columns", where.at(key="ffn.residual"))
    maps = ffn.linear_maps()
    (name, first), (_, last) = maps[0], maps[-1]
    if len(first) != width:
        raise ShapeError(f"the attention output has {width} columns, so ffn.{name} "
                         f"needs {width} rows, but it has {len(first)}",
                         where.at(key=f"ffn.{name}"))
    if ffn.residual and len(last[0]) != width:
        raise ShapeError(f"a residual connection needs the FFN to keep {width} columns",
                         where.at(key="ffn"))
    return len(last[0])


def _check_readout(readout: Readout, vocabulary: Vocabulary | None,
                   query_positions: tuple[int, ...], width: int, where: Location) -> None:
    if readout.position is not None and readout.position not in query_positions:
        raise InputError(f"position {readout.position} is not a query position "
                         f"({', '.join(map(str, query_positions))})",
                         where.at(key="readout.position"))
    unembedding = readout.unembedding
    if unembedding is None:
        if vocabulary is None:
            raise InputError("a tied unembedding needs [vocabulary]; or give "
                             "readout.unembedding", where.at(key="readout"))
        if vocabulary.d_model != width:
            raise ShapeError(f"the tied unembedding has d_model {vocabulary.d_model} but the "
                             f"layer output has {width} columns", where.at(key="readout"))
    elif vocabulary is not None and len(unembedding[0]) != vocabulary.size:
        raise ShapeError(f"unembedding has {len(unembedding[0])} columns but "
                         f"the vocabulary has {vocabulary.size} tokens",
                         where.at(key="readout.unembedding"))
    elif len(unembedding) != width:
        raise ShapeError(f"unembedding needs {width} rows (one per output column), "
                         f"but it has {len(unembedding)}", where.at(key="readout.unembedding"))
