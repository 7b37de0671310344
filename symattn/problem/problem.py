"""A validated attention problem: input matrices and options, shapes checked.

``Problem.from_mapping`` takes the plain mapping a spec file holds (numbers
still as their printed text) and returns a frozen ``Problem``, or raises
``InputError`` naming the key, row and column at fault. The next stage is
``pipeline.derive``.

>>> problem = Problem.from_mapping({"inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1]],
...                                            "V": [[1], [2]]}})
>>> problem.shape("Q"), problem.d_k_value
((1, 2), 2)
"""

from __future__ import annotations

__all__ = ["Problem", "EntryMatrix", "MaskSpec", "INPUT_NAMES", "OPTION_NAMES"]

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from flint import fmpq

from symattn.values.entries import Entry, Symbolic, parse_entry
from symattn.errors import InputError, Location, ShapeError
from symattn.problem.limits import DEFAULT as DEFAULT_LIMITS
from symattn.problem.limits import Limits, check_problem, check_raw_matrix
from symattn.problem.layer_config import (FeedForward, Readout, Vocabulary, read_feed_forward,
                                  read_readout, read_sequence, read_vocabulary)
from symattn.problem.tables import EntryMatrix, _describe, _literal, check_keys, read_bool, read_matrix
from symattn.values.exact import NEG_INF, Exact, Surd, surd_sqrt

INPUT_NAMES = ("sequence", "X", "X_kv", "W_Q", "W_K", "W_V", "W_O", "Q", "K", "V", "scores",
               "scaled")
OPTION_NAMES = ("d_k", "scale", "temperature", "mask", "normalisation", "normalization",
                "fully_masked", "query_positions", "digits", "rounding", "heads", "kv_heads",
                "positions", "position_base")
POSITION_KINDS = ("none", "sinusoidal", "rope")
DIAGNOSTICS = ("entropy", "jacobian")
TOP_LEVEL_NAMES = ("title", "description", "source", "language", "tokens", "inputs",
                   "options", "claims", "vocabulary", "ffn", "readout", "diagnostics")
NORMALISATIONS = ("softmax", "sum")
FULLY_MASKED_POLICIES = ("error", "nan", "zeros")

@dataclass(frozen=True)
class MaskSpec:
    """Which (query, key) pairs may attend: ``kind`` is none, causal, padding or matrix."""

    kind: str = "none"
    padded_keys: tuple[int, ...] = ()          # 0-based key indices
    allowed: tuple[tuple[bool, ...], ...] | None = None


@dataclass(frozen=True)
class Problem:
    """Everything needed to derive one attention computation."""

    inputs: Mapping[str, EntryMatrix]
    title: str = ""
    description: str = ""
    tokens: tuple[str, ...] = ()
    d_k: int | None = None
    scale: Exact | Symbolic | None = None          # None: 1/sqrt(d_k)
    temperature: Exact | Symbolic = fmpq(1)
    mask: MaskSpec = MaskSpec()
    normalisation: str = "softmax"
    fully_masked: str = "error"
    query_positions: tuple[int, ...] | None = None  # 1-based positions of the query rows
    digits: int = 6
    rounding: str = "half-up"
    claims: Mapping[str, Any] = field(default_factory=dict)
    source: str | None = None
    vocabulary: Vocabulary | None = None
    sequence: tuple[int, ...] = ()          # token ids when X comes from the vocabulary
    ffn: FeedForward | None = None
    readout: Readout | None = None
    heads: int = 1
    kv_heads: int | None = None             # grouped-query attention: K/V heads shared
    positions: str = "none"                 # none | sinusoidal (added to X) | rope (rotates Q, K)
    position_base: int = 10000              # the 10000 in the sinusoid / RoPE frequencies
    diagnostics: tuple[str, ...] = ()       # extra steps: entropy, jacobian

    # ----------------------------------------------------------------- reading
    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str | None = None,
                     limits: Limits = DEFAULT_LIMITS) -> Problem:
        """Validate a spec mapping (as read from TOML or JSON) into a Problem."""
        where = Location(file=source)
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
        check_keys(raw_inputs, INPUT_NAMES, where.at(key="inputs"))
        layer = cls._read_layer(data, raw_inputs, where)
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
        inputs = cls._read_inputs(raw_inputs, where.at(key="inputs"))
        title = data.get("title", "")
        if not isinstance(title, str):
            raise InputError("title must be text", where.at(key="title"))
        tokens = data.get("tokens", [])
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise InputError("tokens must be a list of strings", where.at(key="tokens"))
        claims = data.get("claims", {})
        if not isinstance(claims, Mapping):
            raise InputError("[claims] must be a table", where.at(key="claims"))
        problem = cls(inputs=inputs, title=str(title),
                      description=str(data.get("description", "")),
                      tokens=tuple(str(t) for t in tokens), claims=claims, source=source,
                      **layer, **cls._read_options(options, where.at(key="options")))
        problem._check_shapes(where)
        problem._check_layer_shapes(where)
        n, m = problem.score_shape()
        check_problem(n, m, problem.heads, problem.is_symbolic, limits, where.at(key="inputs"))
        return problem

    @cached_property
    def is_symbolic(self) -> bool:
        """True when some input is not rational: the derivation takes the SymPy path."""
        if self.positions != "none" or isinstance(self.scale, Symbolic) or \
                isinstance(self.temperature, Symbolic):
            return True
        return any(isinstance(entry.value, (Symbolic, Surd)) for matrix in self.inputs.values()
                   for row in matrix for entry in row)

    @staticmethod
    def _read_layer(data: Mapping[str, Any], raw_inputs: Mapping[str, Any], where: Location
                    ) -> dict[str, Any]:
        layer: dict[str, Any] = {}
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
        return layer

    def _check_layer_shapes(self, where: Location) -> None:
        n, _ = self.score_shape()
        if not ("V" in self.inputs or "W_V" in self.inputs):
            if self.ffn or self.readout:
                raise InputError("the feed-forward and readout steps need V (or W_V)", where)
            return
        width = self.projected_shape("V")[1] if "scores" not in self.inputs and \
            "scaled" not in self.inputs else self.shape("V")[1]
        ffn = self.ffn
        if ffn is not None:
            if ffn.residual and ("X" not in self.inputs or self.shape("X")[1] != width):
                raise ShapeError(f"a residual connection adds X to the attention output, so X "
                                 f"must be given with {width} columns", where.at(key="ffn.residual"))
            first = ffn.W if ffn.W is not None else ffn.W_1
            assert first is not None
            if len(first) != width:
                name = "W" if ffn.W is not None else "W_1"
                raise ShapeError(f"the attention output has {width} columns, so ffn.{name} "
                                 f"needs {width} rows, but it has {len(first)}",
                                 where.at(key=f"ffn.{name}"))
            last = ffn.W if ffn.W is not None else ffn.W_2
            assert last is not None
            if ffn.residual and len(last[0]) != width:
                raise ShapeError(f"a residual connection needs the FFN to keep {width} columns",
                                 where.at(key="ffn"))
            width = len(last[0])
        readout = self.readout
        if readout is not None:
            if readout.position is not None:
                positions = self.query_positions or tuple(range(1, n + 1))
                if readout.position not in positions:
                    raise InputError(f"position {readout.position} is not a query position "
                                     f"({', '.join(map(str, positions))})",
                                     where.at(key="readout.position"))
            if readout.unembedding is None:
                if self.vocabulary is None:
                    raise InputError("a tied unembedding needs [vocabulary]; or give "
                                     "readout.unembedding", where.at(key="readout"))
                if self.vocabulary.d_model != width:
                    raise ShapeError(f"the tied unembedding has d_model "
                                     f"{self.vocabulary.d_model} but the layer output has "
                                     f"{width} columns", where.at(key="readout"))
            elif self.vocabulary is not None and \
                    len(readout.unembedding[0]) != self.vocabulary.size:
                raise ShapeError(f"unembedding has {len(readout.unembedding[0])} columns but "
                                 f"the vocabulary has {self.vocabulary.size} tokens",
                                 where.at(key="readout.unembedding"))
            elif len(readout.unembedding) != width:
                raise ShapeError(f"unembedding needs {width} rows (one per output column), "
                                 f"but it has {len(readout.unembedding)}",
                                 where.at(key="readout.unembedding"))

    @staticmethod
    def _read_inputs(raw: Mapping[str, Any], where: Location) -> dict[str, EntryMatrix]:
        inputs: dict[str, EntryMatrix] = {}
        for name in INPUT_NAMES:
            if name not in raw:
                continue
            value = raw[name]
            if isinstance(value, str) and value.strip().lower() == "identity":
                if name not in ("W_Q", "W_K", "W_V", "W_O"):
                    raise InputError("only W_Q, W_K, W_V and W_O may be \"identity\"",
                                     where.at(key=name))
                source = "X_kv" if name in ("W_K", "W_V") and "X_kv" in raw else "X"
                if source not in raw:
                    raise InputError(f"\"identity\" needs {source} to know its size",
                                     where.at(key=name))
                size = len(read_matrix(raw[source], where.at(key=source))[0])
                inputs[name] = tuple(tuple(Entry(fmpq(int(i == j)), 0, str(int(i == j)))
                                           for j in range(size)) for i in range(size))
                continue
            if name in ("W_Q", "W_K", "W_V") and _is_per_head(value):
                # One matrix per head: their columns side by side make the full matrix.
                blocks = [read_matrix(block, where.at(key=f"{name}[{h}]"))
                          for h, block in enumerate(value, start=1)]
                if len({len(b) for b in blocks}) != 1 or len({len(b[0]) for b in blocks}) != 1:
                    raise ShapeError("the per-head matrices must all have the same shape",
                                     where.at(key=name))
                inputs[name] = tuple(tuple(e for block in blocks for e in block[r])
                                     for r in range(len(blocks[0])))
                continue
            matrix = read_matrix(value, where.at(key=name))
            if name not in ("scores", "scaled"):
                for i, row in enumerate(matrix, start=1):
                    for j, entry in enumerate(row, start=1):
                        if entry.value is NEG_INF:
                            raise InputError("-inf is only allowed in scores or scaled "
                                             "(where it masks)", where.at(key=name, row=i,
                                                                          column=j))
            inputs[name] = matrix
        return inputs

    @staticmethod
    def _read_options(raw: Mapping[str, Any], where: Location) -> dict[str, Any]:
        result: dict[str, Any] = {}
        if "d_k" in raw:
            result["d_k"] = _positive_int(raw["d_k"], where.at(key="d_k"), "d_k")
        if "scale" in raw:
            value = raw["scale"]
            if isinstance(value, str) and value.strip().lower() in ("none", "1", "off"):
                result["scale"] = fmpq(1)
            elif isinstance(value, str) and value.strip().lower() == "default":
                pass
            else:
                result["scale"] = _positive_value(value, where.at(key="scale"), "scale")
        if "temperature" in raw:
            result["temperature"] = _positive_value(raw["temperature"],
                                                    where.at(key="temperature"), "temperature")
        norm_key = "normalisation" if "normalisation" in raw else "normalization"
        if norm_key in raw:
            result["normalisation"] = _choice(raw, norm_key, NORMALISATIONS, "normalisation",
                                              where)
        if "fully_masked" in raw:
            result["fully_masked"] = _choice(raw, "fully_masked", FULLY_MASKED_POLICIES,
                                             "fully_masked policy", where)
        if "mask" in raw:
            result["mask"] = _read_mask(raw["mask"], where.at(key="mask"))
        if "query_positions" in raw:
            positions = raw["query_positions"]
            if not isinstance(positions, list) or not positions:
                raise InputError("query_positions must be a list of 1-based positions",
                                 where.at(key="query_positions"))
            result["query_positions"] = tuple(
                _positive_int(p, where.at(key="query_positions", column=k), "a position")
                for k, p in enumerate(positions, start=1))
        for name in ("heads", "kv_heads", "position_base"):
            if name in raw:
                result[name] = _positive_int(raw[name], where.at(key=name), name)
        if "positions" in raw:
            result["positions"] = _choice(raw, "positions", POSITION_KINDS, "positions", where)
        if "digits" in raw:
            result["digits"] = _positive_int(raw["digits"], where.at(key="digits"), "digits")
            if result["digits"] > 10_000:      # the bound of --digits
                raise InputError(f"digits must be between 1 and 10000, got {result['digits']}",
                                 where.at(key="digits"))
        if "rounding" in raw:
            from symattn.values.rounding import parse_rounding

            try:
                result["rounding"] = parse_rounding(str(raw["rounding"])).value
            except InputError as error:
                raise InputError(error.message, where.at(key="rounding")) from None
        return result

    # ------------------------------------------------------------------ shapes
    def shape(self, name: str) -> tuple[int, int]:
        matrix = self.inputs[name]
        return len(matrix), len(matrix[0])

    def _check_shapes(self, where: Location) -> None:
        has = self.inputs.__contains__
        start = [n for n in ("scaled", "scores") if has(n)]
        if len(start) == 2:
            raise InputError("give scores or scaled, not both", where.at(key="inputs"))
        if start:
            for name in ("X", "W_Q", "W_K", "Q", "K"):
                if has(name):
                    raise InputError(f"{name} is not used when {start[0]} is given directly; "
                                     "remove one of them", where.at(key=f"inputs.{name}"))
            n, m = self.shape(start[0])
            if has("V") and self.shape("V")[0] != m:
                raise ShapeError(f"weights @ V needs V to have {m} rows (one per key), but V "
                                 f"is {_dims(self.shape('V'))}", where.at(key="inputs.V"))
            if start[0] == "scores" and self.scale is None and self.d_k is None:
                raise InputError("scores are given directly, so d_k is unknown: set "
                                 "options.d_k or options.scale", where.at(key="options"))
        else:
            for name in ("Q", "K", "V"):
                weight = f"W_{name}"
                if has(name) and (has(weight)):
                    raise InputError(f"give {name} directly or X with {weight}, not both",
                                     where.at(key=f"inputs.{weight}"))
                if not has(name) and not (has("X") and has(weight)):
                    if name == "V" and not has(weight):
                        continue  # no V: the derivation stops at the weights
                    missing = weight if has("X") else f"{name} (or X with {weight})"
                    raise InputError(f"missing input {missing}", where.at(key="inputs"))
            if has("X_kv") and not has("X"):
                raise InputError("X_kv (keys and values) needs X (queries) too",
                                 where.at(key="inputs"))
            if has("X"):
                for weight in ("W_Q", "W_K", "W_V"):
                    source = "X_kv" if weight != "W_Q" and has("X_kv") else "X"
                    x_shape = self.shape(source)
                    if has(weight) and self.shape(weight)[0] != x_shape[1]:
                        raise ShapeError(
                            f"{source} @ {weight} needs {weight} to have {x_shape[1]} rows "
                            f"({source} is {_dims(x_shape)}), but {weight} is "
                            f"{_dims(self.shape(weight))}", where.at(key=f"inputs.{weight}"))
            q, k = self.projected_shape("Q"), self.projected_shape("K")
            if q[1] != k[1] and self.heads == 1:
                raise ShapeError(f"Q @ K^T needs Q and K to have the same number of columns, "
                                 f"but Q is {_dims(q)} and K is {_dims(k)}",
                                 where.at(key="inputs"))
            if has("V") or has("W_V"):
                v = self.projected_shape("V")
                if v[0] != k[0]:
                    raise ShapeError(f"weights @ V needs V to have one row per key ({k[0]}), "
                                     f"but V is {_dims(v)}", where.at(key="inputs"))
        self._check_heads(where)
        n, m = self.score_shape()
        self._check_mask(n, m, where.at(key="options.mask"))
        if self.query_positions is not None and len(self.query_positions) != n:
            raise ShapeError(f"query_positions has {len(self.query_positions)} entries but "
                             f"there are {n} queries", where.at(key="options.query_positions"))
        if self.tokens and len(self.tokens) not in (n, m):
            raise ShapeError(f"tokens lists {len(self.tokens)} names but there are {n} "
                             f"queries and {m} keys", where.at(key="tokens"))

    def _check_heads(self, where: Location) -> None:
        heads, kv_heads = self.heads, self.kv_heads or self.heads
        multi = heads > 1 or "W_O" in self.inputs
        if not multi:
            if self.kv_heads not in (None, 1):
                raise InputError("kv_heads needs heads > 1", where.at(key="options.kv_heads"))
            return
        if "scores" in self.inputs or "scaled" in self.inputs:
            raise InputError("several heads need Q, K, V (or X and the W's), not scores",
                             where.at(key="options.heads"))
        if heads % kv_heads:
            raise InputError(f"kv_heads ({kv_heads}) must divide heads ({heads})",
                             where.at(key="options.kv_heads"))
        if not ("V" in self.inputs or "W_V" in self.inputs):
            raise InputError("several heads need V (or W_V)", where.at(key="inputs"))
        q, k, v = (self.projected_shape(n) for n in "QKV")
        if q[1] % heads:
            raise ShapeError(f"Q has {q[1]} columns, which do not split into {heads} heads",
                             where.at(key="options.heads"))
        d_k = q[1] // heads
        if k[1] != kv_heads * d_k:
            raise ShapeError(f"with {kv_heads} key/value head(s) of d_k = {d_k}, K needs "
                             f"{kv_heads * d_k} columns but has {k[1]}", where.at(key="inputs"))
        if v[1] % kv_heads:
            raise ShapeError(f"V has {v[1]} columns, which do not split into {kv_heads} "
                             "key/value heads", where.at(key="inputs"))
        if "W_O" in self.inputs:
            d_v = v[1] // kv_heads
            rows = self.shape("W_O")[0]
            if rows != heads * d_v:
                raise ShapeError(f"concat(heads) has {heads} x {d_v} = {heads * d_v} columns, "
                                 f"so W_O needs that many rows, but it has {rows}",
                                 where.at(key="inputs.W_O"))

    def projected_shape(self, name: str) -> tuple[int, int]:
        """Shape of Q, K or V, given directly or as X @ W (X_kv @ W for K and V)."""
        if name in self.inputs:
            return self.shape(name)
        source = "X_kv" if name in ("K", "V") and "X_kv" in self.inputs else "X"
        return self.shape(source)[0], self.shape(f"W_{name}")[1]

    def score_shape(self) -> tuple[int, int]:
        for name in ("scaled", "scores"):
            if name in self.inputs:
                return self.shape(name)
        return self.projected_shape("Q")[0], self.projected_shape("K")[0]

    def _check_mask(self, n: int, m: int, where: Location) -> None:
        mask = self.mask
        if mask.kind == "causal" and n != m and self.query_positions is None:
            raise ShapeError(f"a causal mask with {n} queries and {m} keys is ambiguous; set "
                             "options.query_positions (the 1-based position of each query)",
                             where)
        if mask.kind == "padding":
            for key in mask.padded_keys:
                if key >= m:
                    raise ShapeError(f"padded key position {key + 1} is beyond the {m} keys",
                                     where)
        if mask.kind == "matrix" and mask.allowed is not None:
            shape = (len(mask.allowed), len(mask.allowed[0]))
            if shape != (n, m):
                raise ShapeError(f"the mask is {_dims(shape)} but the scores are "
                                 f"{_dims((n, m))}", where)
        if self.query_positions is not None:
            for k, position in enumerate(self.query_positions, start=1):
                if position > m:
                    raise ShapeError(f"query position {position} is beyond the {m} keys",
                                     where.at(column=k))

    # -------------------------------------------------------------- properties
    @property
    def d_k_value(self) -> int | None:
        """d_k as used for the default scale (explicit, else the columns of K)."""
        if self.d_k is not None:
            return self.d_k
        if "scaled" in self.inputs or "scores" in self.inputs:
            return None
        return self.projected_shape("Q")[1] // self.heads

    @property
    def scale_value(self) -> Exact | Symbolic:
        if self.scale is not None:
            return self.scale
        d_k = self.d_k_value
        assert d_k is not None
        return surd_sqrt(fmpq(1, d_k))

    def allowed(self) -> list[list[bool]]:
        """For each query row and key column, whether attention is allowed."""
        n, m = self.score_shape()
        positions = self.query_positions or tuple(range(1, n + 1))
        mask = self.mask
        allowed = [[True] * m for _ in range(n)]
        for i in range(n):
            for j in range(m):
                if mask.kind == "causal":
                    allowed[i][j] = j + 1 <= positions[i]
                elif mask.kind == "padding":
                    allowed[i][j] = j not in mask.padded_keys
                elif mask.kind == "matrix" and mask.allowed is not None:
                    allowed[i][j] = mask.allowed[i][j]
        for name in ("scaled", "scores"):
            for i, row in enumerate(self.inputs.get(name, ())):
                for j, entry in enumerate(row):
                    if entry.value is NEG_INF:
                        allowed[i][j] = False
        return allowed



def _choice(raw: Mapping[str, Any], key: str, choices: tuple[str, ...], what: str,
            where: Location) -> str:
    """One of ``choices`` (case and spaces ignored), or an error listing them."""
    value = str(raw[key]).strip().lower()
    if value not in choices:
        listed = f"{', '.join(choices[:-1])} or {choices[-1]}"
        raise InputError(f"unknown {what} {raw[key]!r}; use {listed}", where.at(key=key))
    return value


def _has_identifier(tree: tuple[Any, ...]) -> bool:
    if tree[0] == "sym":
        return True
    return any(isinstance(part, tuple) and _has_identifier(part) for part in tree[1:])


def _is_per_head(value: Any) -> bool:
    """A list of matrices (a 3-D list), one per head."""
    return isinstance(value, list) and bool(value) and all(
        isinstance(m, list) and m and all(isinstance(r, list) for r in m) for m in value)


def _dims(shape: tuple[int, int]) -> str:
    return f"{shape[0]}x{shape[1]}"


_LARGEST_COUNT = 10 ** 9   # heads, d_k, positions: far beyond any model, far below overflow


def _positive_int(raw: Any, where: Location, what: str) -> int:
    entry = parse_entry(_literal(raw), where)
    value = entry.value
    if not isinstance(value, fmpq) or value.q != 1 or value <= 0:
        raise InputError(f"{what} must be a positive whole number, got {entry.text!r}", where)
    if value > _LARGEST_COUNT:
        raise InputError(f"{what} must be at most {_LARGEST_COUNT:,}, got {entry.text!r}", where)
    return int(value.p)


def _positive_value(raw: Any, where: Location, what: str) -> Exact | Symbolic:
    entry = parse_entry(_literal(raw), where)
    value = entry.value
    if isinstance(value, fmpq) and value <= 0 or isinstance(value, Surd) and value.coefficient <= 0:
        raise InputError(f"{what} must be positive, got {entry.text!r}", where)
    if isinstance(value, Symbolic) and not _has_identifier(value.tree):
        from symattn.values.arith import sign
        from symattn.values.exact import Irrational
        from symattn.values.symbolic import to_ball

        expression = value.to_sympy()
        if expression.is_number and sign(Irrational(value.text, lambda bits: to_ball(
                expression, bits))) <= 0:
            raise InputError(f"{what} must be positive, got {entry.text!r}", where)
    if value is NEG_INF:
        raise InputError(f"{what} must be a positive number, got {entry.text!r}", where)
    return value


def _read_mask(raw: Any, where: Location) -> MaskSpec:
    if isinstance(raw, str):
        kind = raw.strip().lower()
        if kind in ("none", "causal"):
            return MaskSpec(kind=kind)
        raise InputError(f"unknown mask {raw!r}; use \"none\", \"causal\", a list of padded "
                         "key positions, or a matrix of 0/1 or 0/-inf", where)
    if isinstance(raw, list) and raw and all(isinstance(r, list) for r in raw):
        matrix = read_matrix(raw, where)
        values = [entry.value for row in matrix for entry in row]
        # With -inf (or only zeros) the mask is additive: 0 keeps, -inf masks.
        # Otherwise it is boolean: 1 keeps, 0 masks.
        additive = NEG_INF in values or all(v == 0 for v in values if isinstance(v, fmpq))
        keep, drop = (fmpq(0), NEG_INF) if additive else (fmpq(1), fmpq(0))
        allowed = []
        for i, row in enumerate(matrix, start=1):
            allowed_row = []
            for j, entry in enumerate(row, start=1):
                value = entry.value
                if value is keep or value is drop or (
                        isinstance(value, fmpq) and value in (keep, drop)):
                    allowed_row.append(value is keep or value == keep)
                else:
                    kind = "0/-inf (additive)" if additive else "0/1"
                    raise InputError(f"this {kind} mask has the entry {entry.text!r}; use "
                                     "either 0/1 or 0/-inf throughout",
                                     where.at(row=i, column=j))
            allowed.append(tuple(allowed_row))
        return MaskSpec(kind="matrix", allowed=tuple(allowed))
    if isinstance(raw, list):
        padded = []
        for k, value in enumerate(raw, start=1):
            padded.append(_positive_int(value, where.at(column=k), "a padded key position") - 1)
        return MaskSpec(kind="padding", padded_keys=tuple(sorted(set(padded))))
    raise InputError(f"unknown mask {_describe(raw)}", where)
