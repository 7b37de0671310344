"""Sizes of a Transformer layer: tensor shapes, parameter counts, memory.

Pure integer arithmetic (``fractions.Fraction`` where a ratio is needed): no
binary float decides anything, and nothing heavy is imported at module level.
``compute(ModelShape(...))`` lists every tensor's shape and every named
quantity; ``check_spec`` judges the sizes a document printed (a spec with a
``[sizes]`` table instead of ``[inputs]``; see docs/sizes.md).

Seed 001's exercise: d_model 4096, 32 heads, a 1024-token sequence, fp16.

>>> sizes = compute(ModelShape(d_model=4096, heads=32, seq_len=1024))
>>> sizes["head_dim"], sizes["score_elements"], format_bytes(sizes["score_bytes"])
(128, 33554432, '64 MiB')
>>> sizes["wo_share"], sizes.tensor("scores").sizes
(Fraction(1, 4), (1, 32, 1024, 1024))

Grouped-query attention: 8 K/V heads shrink the KV cache fourfold.

>>> gqa = compute(ModelShape(4096, 32, 4096, kv_heads=8, layers=32))
>>> format_bytes(gqa["kv_cache_bytes_per_token"]), gqa["gqa_factor"]
('128 KiB', 4)
>>> format_bytes(gqa["kv_cache_bytes"]), format_bytes(gqa["kv_cache_bytes_saved"])
('512 MiB', '1.5 GiB')
"""

from __future__ import annotations

__all__ = ["DTYPE_BYTES", "ModelShape", "Tensor", "Quantity", "Sizes", "compute",
           "format_bytes", "format_bytes_decimal", "format_count", "format_ratio",
           "group_digits", "SizePrinted", "read_size_printed", "is_sizes_spec",
           "shapes_of_spec", "check_spec", "read_spec", "QUANTITY_NAMES"]

import dataclasses
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Mapping

from symattn.defaults import ROUNDING
from symattn.errors import InputError, Location
from symattn.values.rules import (Interval, intervals_meet, parse_rounding, printed_interval,
                                    round_ratio)

# Bytes per stored number, by dtype name (lower case).
DTYPE_BYTES: dict[str, int] = {"fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2,
                               "fp8": 1, "int8": 1}
_DTYPE_ALIASES = {"float64": "fp64", "float32": "fp32", "float16": "fp16", "half": "fp16",
                  "bfloat16": "bf16", "float8": "fp8", "e4m3": "fp8", "e5m2": "fp8"}
# Dtypes a wrong number is compared with ("matches the value in fp32").
_OTHER_DTYPES = (("fp32", 4), ("fp16/bf16", 2), ("fp8/int8", 1), ("fp64", 8))

_BINARY_UNITS = (("PiB", 2 ** 50), ("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20),
                 ("KiB", 2 ** 10))
_DECIMAL_UNITS = (("PB", 10 ** 15), ("TB", 10 ** 12), ("GB", 10 ** 9), ("MB", 10 ** 6),
                  ("kB", 10 ** 3))
# Every byte unit a printed size may carry, and its counterpart in the other system.
BYTE_UNITS: dict[str, int] = {"B": 1, "byte": 1, "bytes": 1, "KB": 10 ** 3,
                              **dict(_BINARY_UNITS), **dict(_DECIMAL_UNITS)}
_COUNTERPART = {"KiB": "kB", "MiB": "MB", "GiB": "GB", "TiB": "TB", "PiB": "PB",
                "kB": "KiB", "KB": "KiB", "MB": "MiB", "GB": "GiB", "TB": "TiB", "PB": "PiB"}
_MAX_POWER = 4096       # "2^N" in a printed size: N at most this


# --------------------------------------------------------------------- the shape
def _positive(name: str, value: Any, location: Location | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} must be a positive whole number, got {value!r}", location)
    if value < 1:
        raise InputError(f"{name} must be a positive whole number, got {value}", location)
    if value > 10 ** 30:
        raise InputError(f"{name} = {value} is larger than any model (the limit is 10^30)",
                         location)
    return value


def _dtype(value: Any, location: Location | None = None) -> str:
    if not isinstance(value, str):
        raise InputError(f"dtype must be a name such as fp16, got {value!r}", location)
    name = value.strip().lower()
    name = _DTYPE_ALIASES.get(name, name)
    if name not in DTYPE_BYTES:
        raise InputError(f"unknown dtype {value!r}; use one of {', '.join(DTYPE_BYTES)}",
                         location)
    return name


@dataclass(frozen=True)
class ModelShape:
    """The sizes that fix a Transformer layer (validated on construction).

    ``kv_heads`` defaults to ``heads`` (no grouped-query attention), ``d_ff`` to
    ``4 * d_model``; ``layers`` multiplies the KV cache and the parameter total,
    ``vocab`` adds the embedding matrix. ``bias`` adds the bias vectors of the
    projections and of the feed-forward network.

    >>> ModelShape(768, 12, 1024).head_dim
    64
    >>> ModelShape(768, 10, 1024)
    Traceback (most recent call last):
    ...
    symattn.errors.InputError: heads (10) must divide d_model (768): 768 / 10 is not a whole number
    """

    d_model: int
    heads: int
    seq_len: int
    batch: int = 1
    kv_heads: int | None = None
    d_ff: int | None = None
    layers: int = 1
    vocab: int | None = None
    dtype: str = "fp16"
    bias: bool = False
    location: Location | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        where = self.location
        for name in ("d_model", "heads", "seq_len", "batch", "layers"):
            _positive(name, getattr(self, name), where)
        for name in ("kv_heads", "d_ff", "vocab"):
            if getattr(self, name) is not None:
                _positive(name, getattr(self, name), where)
        object.__setattr__(self, "dtype", _dtype(self.dtype, where))
        if not isinstance(self.bias, bool):
            raise InputError(f"bias must be true or false, got {self.bias!r}", where)
        if self.d_model % self.heads:
            raise InputError(f"heads ({self.heads}) must divide d_model ({self.d_model}): "
                             f"{self.d_model} / {self.heads} is not a whole number", where)
        kv = self.kv_heads
        if kv is not None and (kv > self.heads or self.heads % kv):
            raise InputError(f"kv_heads ({kv}) must divide heads ({self.heads}): each K/V "
                             "head serves the same number of query heads", where)

    @property
    def head_dim(self) -> int:
        return self.d_model // self.heads

    @property
    def kv(self) -> int:
        """The number of K/V heads in force (``heads`` without grouped-query attention)."""
        return self.heads if self.kv_heads is None else self.kv_heads

    @property
    def ff(self) -> int:
        """The feed-forward width in force (``4 * d_model`` unless given)."""
        return 4 * self.d_model if self.d_ff is None else self.d_ff

    @property
    def bytes_per_element(self) -> int:
        return DTYPE_BYTES[self.dtype]

    def as_dict(self) -> dict[str, Any]:
        """The fields in force (defaults resolved), for reports and JSON."""
        return {"d_model": self.d_model, "heads": self.heads, "kv_heads": self.kv,
                "head_dim": self.head_dim, "seq_len": self.seq_len, "batch": self.batch,
                "layers": self.layers, "d_ff": self.ff, "vocab": self.vocab,
                "dtype": self.dtype, "bytes_per_element": self.bytes_per_element,
                "bias": self.bias}


FIELDS = ("d_model", "heads", "seq_len", "batch", "kv_heads", "d_ff", "layers", "vocab",
          "dtype", "bias")
_REQUIRED = ("d_model", "heads", "seq_len")


# --------------------------------------------------------------------- results
@dataclass(frozen=True)
class Tensor:
    """One tensor: its dimensions by name and by size."""

    name: str
    dims: tuple[str, ...]
    sizes: tuple[int, ...]
    description: str

    @property
    def elements(self) -> int:
        return math.prod(self.sizes)

    def text(self) -> str:
        """The sizes in brackets.

        >>> Tensor("W_O", ("d_model", "d_model"), (4096, 4096), "").text()
        '[4096, 4096]'
        """
        return "[" + ", ".join(str(s) for s in self.sizes) + "]"


@dataclass(frozen=True)
class Quantity:
    """A named size: exact value (int, or Fraction for a ratio), kind and formula.

    Kinds: ``count`` (a dimension or factor), ``params``, ``elements``, ``bytes``,
    ``ratio`` (a share, printed as 25% or 0.25).
    """

    name: str
    value: int | Fraction
    kind: str
    formula: str            # in symbols
    substituted: str        # with the numbers
    description: str

    @property
    def exact(self) -> str:
        value = self.value
        if isinstance(value, Fraction) and value.denominator != 1:
            return f"{value.numerator}/{value.denominator}"
        return str(int(value))

    @property
    def integral(self) -> bool:
        return not isinstance(self.value, Fraction) or self.value.denominator == 1

    def human(self) -> str:
        """A readable form: ``64 MiB = 67.11 MB``, ``33.55 million``, ``25%``."""
        if self.kind == "bytes":
            binary, decimal = format_bytes(int(self.value)), format_bytes_decimal(
                int(self.value))
            return binary if binary == decimal else f"{binary} = {decimal}"
        if self.kind == "ratio":
            return format_ratio(Fraction(self.value))
        if self.kind in ("params", "elements") and self.value >= 10_000:
            return format_count(int(self.value))
        return ""


@dataclass(frozen=True)
class Sizes:
    """Everything ``compute`` found for one shape, in a stable order."""

    shape: ModelShape
    tensors: tuple[Tensor, ...]
    quantities: tuple[Quantity, ...]
    score_bytes_by_dtype: tuple[tuple[str, int], ...]

    def __getitem__(self, name: str) -> int | Fraction:
        return self.quantity(name).value

    def __contains__(self, name: object) -> bool:
        return any(q.name == name for q in self.quantities)

    def names(self) -> list[str]:
        return [q.name for q in self.quantities]

    def quantity(self, name: str) -> Quantity:
        for quantity in self.quantities:
            if quantity.name == name:
                return quantity
        raise KeyError(name)

    def tensor(self, name: str) -> Tensor:
        for tensor in self.tensors:
            if tensor.name == name:
                return tensor
        raise KeyError(name)


# The quantity names compute() can give, in its order (embedding_params only with vocab).
QUANTITY_NAMES = ("head_dim", "kv_dim", "wq_params", "wk_params", "wv_params", "wo_params",
                  "attention_params", "wo_share", "ffn_params", "layer_params",
                  "embedding_params", "total_params", "score_elements", "score_bytes",
                  "score_bytes_all_layers", "kv_cache_bytes_per_token", "kv_cache_bytes",
                  "kv_cache_bytes_mha", "gqa_factor", "kv_cache_bytes_saved")


def compute(shape: ModelShape) -> Sizes:
    """Shapes of every tensor of one layer and every named quantity, exactly.

    >>> s = compute(ModelShape(d_model=4096, heads=32, seq_len=1024, kv_heads=8))
    >>> s["wk_params"], s["attention_params"], s["wo_share"]
    (4194304, 41943040, Fraction(2, 5))
    """
    d, h, t, b = shape.d_model, shape.heads, shape.seq_len, shape.batch
    kv, hd, ff, n, size = shape.kv, shape.head_dim, shape.ff, shape.layers, \
        shape.bytes_per_element
    kv_dim = kv * hd
    bias = shape.bias

    def dims(*names: str) -> tuple[str, ...]:
        return names

    value = {"B": b, "T": t, "d_model": d, "heads": h, "kv_heads": kv, "head_dim": hd,
             "kv_heads*head_dim": kv_dim, "d_ff": ff, "vocab": shape.vocab or 0,
             "layers": n, "2": 2}
    specs = [
        ("X", dims("B", "T", "d_model"), "the layer's input (the residual stream)"),
        ("Q", dims("B", "T", "d_model"), "X W_Q"),
        ("K", dims("B", "T", "kv_heads*head_dim"), "X W_K"),
        ("V", dims("B", "T", "kv_heads*head_dim"), "X W_V"),
        ("Q_heads", dims("B", "heads", "T", "head_dim"), "Q split into heads"),
        ("K_heads", dims("B", "kv_heads", "T", "head_dim"), "K split into heads"),
        ("V_heads", dims("B", "kv_heads", "T", "head_dim"), "V split into heads"),
        ("scores", dims("B", "heads", "T", "T"), "Q K^T / sqrt(head_dim), every head"),
        ("weights", dims("B", "heads", "T", "T"), "softmax of the scores"),
        ("head_outputs", dims("B", "heads", "T", "head_dim"), "weights V, every head"),
        ("concat", dims("B", "T", "d_model"), "the heads side by side"),
        ("output", dims("B", "T", "d_model"), "concat W_O"),
        ("ffn_hidden", dims("B", "T", "d_ff"), "the feed-forward network's hidden layer"),
        ("W_Q", dims("d_model", "d_model"), "query projection [in, out]"),
        ("W_K", dims("d_model", "kv_heads*head_dim"), "key projection [in, out]"),
        ("W_V", dims("d_model", "kv_heads*head_dim"), "value projection [in, out]"),
        ("W_O", dims("d_model", "d_model"), "output projection [in, out]"),
        ("W_1", dims("d_model", "d_ff"), "feed-forward, first matrix [in, out]"),
        ("W_2", dims("d_ff", "d_model"), "feed-forward, second matrix [in, out]"),
    ]
    if shape.vocab is not None:
        specs.append(("embedding", dims("vocab", "d_model"), "token embeddings"))
    specs.append(("kv_cache", dims("layers", "2", "B", "kv_heads", "T", "head_dim"),
                  "cached K and V of every layer"))
    tensors = tuple(Tensor(name, names, tuple(value[x] for x in names), text)
                    for name, names, text in specs)

    quantities: list[Quantity] = []

    def add(name: str, result: int | Fraction, kind: str, formula: str, substituted: str,
            description: str) -> int | Fraction:
        if isinstance(result, Fraction) and result.denominator == 1 and kind != "ratio":
            result = int(result)
        quantities.append(Quantity(name, result, kind, formula, substituted, description))
        return result

    plus_b = " + d_model" if bias else ""
    add("head_dim", hd, "count", "d_model / heads", f"{d} / {h}", "width of one head (d_k)")
    add("kv_dim", kv_dim, "count", "kv_heads x head_dim", f"{kv} x {hd}",
        "width of K and V")
    wq = add("wq_params", d * d + (d if bias else 0), "params", "d_model x d_model" + plus_b,
             f"{d} x {d}" + (f" + {d}" if bias else ""), "parameters of W_Q")
    kv_b = " + kv_dim" if bias else ""
    wk = add("wk_params", d * kv_dim + (kv_dim if bias else 0), "params",
             "d_model x kv_dim" + kv_b, f"{d} x {kv_dim}" + (f" + {kv_dim}" if bias else ""),
             "parameters of W_K (smaller with grouped-query attention)")
    wv = add("wv_params", wk, "params", "d_model x kv_dim" + kv_b,
             f"{d} x {kv_dim}" + (f" + {kv_dim}" if bias else ""), "parameters of W_V")
    wo = add("wo_params", wq, "params", "d_model x d_model" + plus_b,
             f"{d} x {d}" + (f" + {d}" if bias else ""), "parameters of W_O")
    attention = add("attention_params", wq + wk + wv + wo, "params",
                    "W_Q + W_K + W_V + W_O", f"{wq} + {wk} + {wv} + {wo}",
                    "attention parameters of one layer")
    add("wo_share", Fraction(wo, attention), "ratio", "wo_params / attention_params",
        f"{wo} / {attention}", "W_O's share of the attention parameters")
    ffn = add("ffn_params", 2 * d * ff + ((ff + d) if bias else 0), "params",
              "2 x d_model x d_ff" + (" + d_ff + d_model" if bias else ""),
              f"2 x {d} x {ff}" + (f" + {ff} + {d}" if bias else ""),
              "feed-forward parameters of one layer (W_1, W_2)")
    layer = add("layer_params", attention + ffn, "params", "attention_params + ffn_params",
                f"{attention} + {ffn}", "parameters of one layer (layer norms not counted)")
    embedding = 0
    if shape.vocab is not None:
        embedding = add("embedding_params", shape.vocab * d, "params", "vocab x d_model",
                        f"{shape.vocab} x {d}", "token embedding parameters (tied output)")
    add("total_params", n * layer + embedding, "params",
        "layers x layer_params" + (" + embedding_params" if shape.vocab is not None else ""),
        f"{n} x {layer}" + (f" + {embedding}" if shape.vocab is not None else ""),
        "parameters of the model (layer norms, positions not counted)")
    scores = add("score_elements", b * h * t * t, "elements", "batch x heads x seq_len^2",
                 f"{b} x {h} x {t}^2", "numbers in the score matrix of one layer")
    add("score_bytes", scores * size, "bytes", "score_elements x bytes",
        f"{scores} x {size}", f"memory of one layer's score matrix in {shape.dtype}")
    add("score_bytes_all_layers", n * scores * size, "bytes", "layers x score_bytes",
        f"{n} x {scores * size}", "score matrices of every layer, if all were kept")
    per_token = add("kv_cache_bytes_per_token", 2 * n * kv * hd * size, "bytes",
                    "2 x layers x kv_heads x head_dim x bytes", f"2 x {n} x {kv} x {hd} x {size}",
                    "KV cache per token (K and V, every layer)")
    cache = add("kv_cache_bytes", per_token * t * b, "bytes",
                "kv_cache_bytes_per_token x seq_len x batch", f"{per_token} x {t} x {b}",
                "KV cache of the whole batch of sequences")
    mha = add("kv_cache_bytes_mha", 2 * n * h * hd * size * t * b, "bytes",
              "2 x layers x heads x head_dim x bytes x seq_len x batch",
              f"2 x {n} x {h} x {hd} x {size} x {t} x {b}",
              "the same KV cache without grouped-query attention")
    add("gqa_factor", h // kv, "count", "heads / kv_heads", f"{h} / {kv}",
        "how many times smaller grouped-query attention makes the KV cache")
    add("kv_cache_bytes_saved", mha - cache, "bytes", "kv_cache_bytes_mha - kv_cache_bytes",
        f"{mha} - {cache}", "KV cache memory saved by grouped-query attention")
    by_dtype = tuple((name, scores * bytes_) for name, bytes_ in
                     (("fp32", 4), ("fp16/bf16", 2), ("fp8/int8", 1)))
    return Sizes(shape, tensors, tuple(quantities), by_dtype)


# --------------------------------------------------------------------- formatting
def group_digits(value: int, separator: str = ",") -> str:
    """An integer with its digits grouped in threes.

    >>> group_digits(33554432), group_digits(2147483648, " "), group_digits(-1000)
    ('33,554,432', '2 147 483 648', '-1,000')
    """
    text = f"{abs(value):,}".replace(",", separator)
    return "-" + text if value < 0 else text


def _round(value: Fraction, places: int, rule: str = ROUNDING) -> int:
    """``value * 10**places`` rounded to an integer, exactly (no floats)."""
    scaled = value * Fraction(10) ** places
    return round_ratio(scaled.numerator, scaled.denominator, parse_rounding(rule))


def _places_text(scaled: int, places: int, grouped: bool = False) -> str:
    """The integer ``scaled`` / 10**places written with ``places`` decimals."""
    if places <= 0:
        whole = scaled * 10 ** -places
        return group_digits(whole) if grouped else str(whole)
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled)).rjust(places + 1, "0")
    head = group_digits(int(digits[:-places])) if grouped else digits[:-places]
    return f"{sign}{head}.{digits[-places:]}"


def _terminating_places(value: Fraction, limit: int) -> int | None:
    """The fewest places that write ``value`` exactly, if at most ``limit``."""
    for places in range(limit + 1):
        if (value * 10 ** places).denominator == 1:
            return places
    return None


def _short(value: Fraction, places: int = 2) -> str:
    """Exactly when it takes at most ``places`` decimals, else ``~`` and rounded."""
    exact = _terminating_places(value, places)
    if exact is not None:
        return _places_text(int(value * 10 ** exact), exact)
    return "~" + _places_text(_round(value, places), places)


def _shown(value: Fraction, places: int | None, extra: int = 4) -> str:
    """The value with a few more places than printed (digits grouped); ``...``
    when it goes on.

    >>> _shown(Fraction(67108864, 10 ** 6), 0), _shown(Fraction(1, 3), 2)
    ('67.108864', '0.333333...')
    """
    start = max(places or 0, 0)
    exact = _terminating_places(value, start + extra + 6)
    if exact is not None:
        return _places_text(int(value * 10 ** max(exact, start)), max(exact, start), True)
    return _places_text(_round(value, start + extra, "truncate"), start + extra, True) + "..."


def _in_units(value: int, units: Iterable[tuple[str, int]], places: int) -> str:
    for unit, size in units:
        if value >= size:
            return f"{_short(Fraction(value, size), places)} {unit}"
    return f"{value} B"


def format_bytes(value: int, places: int = 2) -> str:
    """Bytes in binary units (KiB = 2^10, MiB = 2^20 ...); exact, else ``~`` rounded.

    >>> format_bytes(67108864), format_bytes(2 ** 30), format_bytes(1536), format_bytes(1000)
    ('64 MiB', '1 GiB', '1.5 KiB', '1000 B')
    >>> format_bytes(10 ** 9)
    '~953.67 MiB'
    """
    return _in_units(value, _BINARY_UNITS, places)


def format_bytes_decimal(value: int, places: int = 2) -> str:
    """Bytes in decimal units (kB = 10^3, MB = 10^6, GB = 10^9 ...).

    >>> format_bytes_decimal(67108864), format_bytes_decimal(4 * 10 ** 9)
    ('~67.11 MB', '4 GB')
    """
    return _in_units(value, _DECIMAL_UNITS, places)


def format_count(value: int) -> str:
    """A large count in words: ``~33.55 million``, ``2.5 billion``.

    >>> format_count(33554432), format_count(2147483648), format_count(2_500_000_000)
    ('~33.55 million', '~2.15 billion', '2.5 billion')
    """
    for word, size in (("trillion", 10 ** 12), ("billion", 10 ** 9), ("million", 10 ** 6),
                       ("thousand", 10 ** 3)):
        if abs(value) >= size:
            return f"{_short(Fraction(value, size))} {word}"
    return str(value)


def format_ratio(value: Fraction) -> str:
    """A share as a percentage: ``25%``, ``~33.33%``.

    >>> format_ratio(Fraction(1, 4)), format_ratio(Fraction(1, 3))
    ('25%', '~33.33%')
    """
    return _short(value * 100) + "%"


# --------------------------------------------------------------------- printed sizes
_TRANSLATE = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2009": " ", "\u202f": " ",
                            "\u00a0": " ", "\u00d7": "x", "\u2248": "~"})
_UNIT = re.compile(r"^(?P<number>.*?)\s*(?P<unit>[KkMGTP]i?B|B|bytes?|%|x|times)$")
_FRACTION = re.compile(r"\d+/\d+")
_POWER = re.compile(r"(?P<base>\d+)\s*(?:\^|\*\*)\s*(?P<exponent>\d+)")
_SCIENTIFIC = re.compile(r"(?P<whole>\d+)(?:[.,](?P<fraction>\d+))?[eE](?P<exponent>[+-]?\d+)")
_SPACES = re.compile(r"\d{1,3}(?: \d{3})+(?:[.,]\d+)?")
_UNDERSCORES = re.compile(r"\d{1,3}(?:_\d{3})+")
_COMMAS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_POINTS = re.compile(r"\d{1,3}(?:\.\d{3}){2,}(?:,\d+)?")
_PLAIN = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class SizePrinted:
    """A printed size: the number as printed, in its unit, and its precision.

    ``places`` is the decimal places printed (negative for ``2e9``: rounded to
    10^9); None for an exact form (``1/4``, ``2^31``) that must equal the value.
    ``scale`` turns the printed unit into the quantity's own (2^20 for MiB,
    1/100 for %).
    """

    text: str
    value: Fraction
    places: int | None
    unit: str = ""
    scale: Fraction = Fraction(1)
    approximate: bool = False

    def base_value(self) -> Fraction:
        return self.value * self.scale


def _decimal(digits: str, fraction: str | None) -> tuple[Fraction, int]:
    fraction = fraction or ""
    return Fraction(int(digits + fraction), 10 ** len(fraction)), len(fraction)


def _read_number(body: str, decimal_comma: bool, text: str,
                 location: Location | None) -> tuple[Fraction, int | None]:
    if _FRACTION.fullmatch(body):
        numerator, denominator = (int(x) for x in body.split("/"))
        if denominator == 0:
            raise InputError(f"{text!r} divides by zero", location)
        return Fraction(numerator, denominator), None
    power = _POWER.fullmatch(body)
    if power:
        if int(power["exponent"]) > _MAX_POWER:
            raise InputError(f"{text!r}: exponents beyond {_MAX_POWER} are refused", location)
        return Fraction(int(power["base"]) ** int(power["exponent"])), None
    scientific = _SCIENTIFIC.fullmatch(body)
    if scientific:
        exponent = int(scientific["exponent"])
        if abs(exponent) > _MAX_POWER:
            raise InputError(f"{text!r}: exponents beyond {_MAX_POWER} are refused", location)
        mantissa, places = _decimal(scientific["whole"], scientific["fraction"])
        return mantissa * Fraction(10) ** exponent, places - exponent
    if _SPACES.fullmatch(body) or _UNDERSCORES.fullmatch(body):
        parts = re.split(r"[.,]", body.replace(" ", "").replace("_", ""))
        return _decimal(parts[0], parts[1] if len(parts) > 1 else None)
    if _COMMAS.fullmatch(body) and not (decimal_comma and "." not in body) and \
            not body.startswith("0,"):
        whole, _, fraction = body.replace(",", "").partition(".")
        return _decimal(whole, fraction or None)
    if _POINTS.fullmatch(body):
        whole, _, fraction = body.replace(".", "").partition(",")
        return _decimal(whole, fraction or None)
    if _PLAIN.fullmatch(body):
        whole, _, fraction = body.replace(",", ".").partition(".")
        return _decimal(whole, fraction or None)
    raise InputError(f"{text!r} is not a printed size; write the number as printed, with "
                     "its unit: 33 554 432, 2,147,483,648, 64 MiB, 67.1 MB, 25%, 1/4, 2^31, "
                     "~2e9 (words such as 'about a quarter' are not checked)", location)


def read_size_printed(raw: Any, kind: str = "bytes", decimal_comma: bool = False,
                      location: Location | None = None) -> SizePrinted | None:
    """Parse a printed size for a quantity of ``kind``; None for ``"?"`` or ``""``.

    Digit groups may be separated by spaces, commas, underscores or (two or
    more) points; ``1,024`` is one thousand and twenty-four unless the spec
    sets ``options.decimal_comma``. Units: B, KiB, MiB, GiB, TiB (binary),
    kB/KB, MB, GB, TB (decimal) for bytes; % for a ratio; x for a factor.

    >>> p = read_size_printed("64 MiB")
    >>> p.value, p.places, p.base_value()
    (Fraction(64, 1), 0, Fraction(67108864, 1))
    >>> read_size_printed("33 554 432", "elements").value
    Fraction(33554432, 1)
    >>> read_size_printed("2,147,483,648", "elements").value
    Fraction(2147483648, 1)
    >>> p = read_size_printed("25%", "ratio"); (p.value, p.places, p.base_value())
    (Fraction(25, 1), 0, Fraction(1, 4))
    >>> read_size_printed("~2e9", "elements").places
    -9
    """
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise InputError(f"a printed size must be text or a whole number, got {raw!r}",
                         location)
    text = str(raw).strip()
    if text in ("?", ""):
        return None
    body = text.translate(_TRANSLATE).strip()
    approximate = body.startswith("~")
    if approximate:
        body = body[1:].strip()
    unit = ""
    match = _UNIT.match(body)
    if match and match["number"]:
        unit, body = match["unit"], match["number"].strip()
    if unit == "times":
        unit = "x"
    scale = Fraction(1)
    if unit and unit not in BYTE_UNITS and unit not in ("%", "x"):
        raise InputError(f"{text!r}: unknown unit {unit!r}; bytes are written B, KiB, MiB, "
                         "GiB, TiB (binary) or kB, MB, GB, TB (decimal)", location)
    if unit in BYTE_UNITS:
        if kind != "bytes":
            raise InputError(f"{text!r}: a {kind} quantity has no byte unit", location)
        scale = Fraction(BYTE_UNITS[unit])
    elif unit == "%":
        if kind != "ratio":
            raise InputError(f"{text!r}: only a share (such as wo_share) is printed as a "
                             "percentage", location)
        scale = Fraction(1, 100)
    elif unit == "x" and kind not in ("count", "ratio"):
        raise InputError(f"{text!r}: only a factor (gqa_factor) is written with x", location)
    negative = body.startswith("-")
    if negative:
        body = body[1:].strip()
    value, places = _read_number(body, decimal_comma, text, location)
    return SizePrinted(text, -value if negative else value, places, unit, scale, approximate)


_SHAPE_SPLIT = re.compile(r"\s*(?:,|x|\*|by)\s*")


def _read_shape(raw: Any, location: Location | None) -> tuple[int, ...] | None:
    """A printed shape: ``4096 x 4096``, ``[1, 32, 1024, 1024]``, ``(12, 64)``."""
    if isinstance(raw, list):
        parts = [str(x) for x in raw]
    elif isinstance(raw, str):
        text = raw.translate(_TRANSLATE).strip()
        if text in ("?", ""):
            return None
        text = text.strip("[]() ")
        parts = _SHAPE_SPLIT.split(text)
    else:
        raise InputError(f"a printed shape is text such as '4096 x 4096' or a list of sizes, "
                         f"got {raw!r}", location)
    sizes = []
    for part in parts:
        digits = part.strip().replace(" ", "")
        if not digits.isdigit():
            raise InputError(f"{raw!r} is not a printed shape; write the sizes as numbers: "
                             "'4096 x 4096' or '[1, 32, 1024, 1024]'", location)
        sizes.append(int(digits))
    return tuple(sizes)


# --------------------------------------------------------------------- size specs
def is_sizes_spec(mapping: Any) -> bool:
    """True for a spec that describes a size exercise (a ``[sizes]`` table).

    >>> is_sizes_spec({"sizes": {"d_model": 768}}), is_sizes_spec({"inputs": {}})
    (True, False)
    """
    return isinstance(mapping, Mapping) and "sizes" in mapping


def read_spec(source: str) -> dict[str, Any] | None:
    """The mapping of a spec file when it is a size spec, else None (cheaply).

    A file that cannot be read, or does not mention ``sizes`` at all, gives
    None: the attention spec reader then reports on it as usual.
    """
    from pathlib import Path

    from symattn.problem import spec

    try:
        text = Path(source).read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    if "sizes" not in text:
        return None
    mapping = spec.read_mapping(text, source)
    return mapping if is_sizes_spec(mapping) else None


_TOP_LEVEL = ("title", "description", "language", "sizes", "claims", "options")
_OPTIONS = ("rounding", "decimal_comma")
_VARIANT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_CLAIM_KEY = re.compile(r"^\s*(?:(?P<variant>[A-Za-z0-9][A-Za-z0-9_-]*)\.)?"
                        r"(?P<name>[A-Za-z_]\w*)\s*(?:@\s*(?P<label>.*?))?\s*$")


def _hint(word: str, known: Iterable[str]) -> str:
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1)
    return f"; did you mean `{close[0]}`?" if close else ""


def _shape_from(fields: Mapping[str, Any], where: Location) -> ModelShape:
    missing = [name for name in _REQUIRED if name not in fields]
    if missing:
        raise InputError(f"missing {', '.join(missing)} (a shape needs d_model, heads and "
                         "seq_len)", where)
    for name, value in fields.items():
        if isinstance(value, str) and name not in ("dtype", "bias"):
            raise InputError(f"{name} must be a whole number, got {value!r}",
                             where.at(key=name))
    return ModelShape(**{k: v for k, v in fields.items()}, location=where)


def shapes_of_spec(mapping: Mapping[str, Any], source: str | None = None
                   ) -> dict[str, ModelShape]:
    """The shapes a size spec describes: ``""`` for ``[sizes]`` itself (when it
    has d_model, heads and seq_len) and one per variant table ``[sizes.NAME]``,
    which overrides the fields of ``[sizes]``.

    >>> shapes = shapes_of_spec({"sizes": {"d_model": 4096, "heads": 32, "seq_len": 1024,
    ...                                    "T8192": {"seq_len": 8192}}})
    >>> {name: shape.seq_len for name, shape in shapes.items()}
    {'': 1024, 'T8192': 8192}
    """
    where = Location(file=source, key="sizes")
    table = mapping.get("sizes")
    if not isinstance(table, Mapping):
        raise InputError("[sizes] must be a table of shape fields (d_model, heads, seq_len, "
                         "...)", where)
    base: dict[str, Any] = {}
    variants: dict[str, Mapping[str, Any]] = {}
    for key, value in table.items():
        if isinstance(value, Mapping):
            if not _VARIANT_NAME.fullmatch(key):
                raise InputError("a variant name is letters, digits, - and _", where.at(key=key))
            variants[key] = value
        elif key in FIELDS:
            base[key] = value
        else:
            raise InputError(f"unknown field `{key}`{_hint(key, FIELDS)}; the fields are "
                             f"{', '.join(FIELDS)}", where.at(key=key))
    shapes: dict[str, ModelShape] = {}
    if all(name in base for name in _REQUIRED) or not variants:
        shapes[""] = _shape_from(base, where)
    for name, overrides in variants.items():
        here = where.at(key=name)
        for key, value in overrides.items():
            if key not in FIELDS:
                nested = " (variants do not nest)" if isinstance(value, Mapping) else ""
                raise InputError(f"unknown field `{key}`{nested}{_hint(key, FIELDS)}",
                                 here.at(key=key))
        shapes[name] = _shape_from({**base, **overrides}, here)
    return shapes


@dataclass(frozen=True)
class _SizeClaim:
    key: str
    variant: str
    name: str
    label: str
    raw: Any
    order: int
    location: Location

    @property
    def position(self) -> str:
        return f"{self.variant}.{self.name}" if self.variant else self.name


def _read_claims(mapping: Mapping[str, Any], shapes: Mapping[str, ModelShape],
                 computed: Mapping[str, Sizes], where: Location) -> list[_SizeClaim]:
    table = mapping.get("claims", {})
    if not isinstance(table, Mapping):
        raise InputError("[claims] must be a table: QUANTITY = \"printed value\"", where)
    result = []
    for key, raw in table.items():
        here = where.at(key=f'"{key}"' if not str(key).isidentifier() else key)
        match = _CLAIM_KEY.match(str(key))
        if not match:
            raise InputError("cannot read this claim key; write QUANTITY, VARIANT.QUANTITY "
                             "or TENSOR, optionally followed by @ label", here)
        variant, name = match["variant"] or "", match["name"]
        if variant not in shapes:
            if not variant:
                raise InputError("[sizes] has no complete shape of its own (d_model, heads, "
                                 "seq_len); name the variant: "
                                 + ", ".join(f"{v}.{name}" for v in shapes), here)
            raise InputError(f"no variant named `{variant}`{_hint(variant, shapes)}; "
                             f"[sizes] has {', '.join(v or '(sizes)' for v in shapes)}", here)
        sizes = computed[variant]
        tensors = [t.name for t in sizes.tensors]
        if name not in sizes and name not in tensors:
            extra = " (it needs vocab)" if name in ("embedding_params", "embedding") else ""
            raise InputError(f"no quantity or tensor named `{name}`{extra}"
                             f"{_hint(name, sizes.names() + tensors)}; see docs/sizes.md",
                             here)
        result.append(_SizeClaim(str(key), variant, name, (match["label"] or "").strip(), raw,
                                 len(result), here))
    return result


class _Judge:
    """Verdicts on the claims of one size spec (ok / wrong; never propagated)."""

    def __init__(self, shapes: Mapping[str, ModelShape], computed: Mapping[str, Sizes],
                 rule: str, decimal_comma: bool) -> None:
        self.shapes, self.computed = shapes, computed
        self.rule, self.decimal_comma = rule, decimal_comma

    # ------------------------------------------------------------- numbers
    def number(self, claim: _SizeClaim, quantity: Quantity, printed: SizePrinted
               ) -> dict[str, Any]:
        exact = Fraction(quantity.value)
        unit = printed.unit if printed.unit in ("%", "x") else (
            f" {printed.unit}" if printed.unit else "")
        in_unit = exact / printed.scale
        places = printed.places
        shown = _shown(in_unit, places) + unit
        value_text = _shown(in_unit, 0) + unit          # the exact value, fewest places
        if in_unit.denominator != 1 and not value_text.endswith(("...", "..." + unit)) \
                and places is None:
            value_text = f"{in_unit.numerator}/{in_unit.denominator}{unit} = {value_text}"
        if printed.scale != 1 and quantity.kind == "bytes":
            value_text += f" = {group_digits(int(exact))} bytes"
        flags = ["approximate"] if printed.approximate else []
        if places is None:
            ok = in_unit == printed.value
            rounded_text = (group_digits(int(in_unit)) if in_unit.denominator == 1 else
                            f"{in_unit.numerator}/{in_unit.denominator}") + unit
            reason = f"exactly {value_text}" if ok else f"should be exactly {value_text}"
        else:
            rounded = _round(in_unit, places, self.rule)
            rounded_text = _places_text(rounded, places, True) + unit
            ok = rounded == printed.value * Fraction(10) ** places
            scaled = in_unit * Fraction(10) ** places
            if self.rule != "truncate" and (scaled - Fraction(1, 2)).denominator == 1:
                flags.append("tie")
            if in_unit == printed.value:
                reason = f"exactly {value_text}"
            elif ok:
                reason = f"exact {value_text} rounds {self.rule} to {rounded_text}"
                if "tie" in flags:
                    other = "half-even" if self.rule == "half-up" else "half-up"
                    reason += (f"; exactly halfway, so the rule decides ({other} gives "
                               f"{_places_text(_round(in_unit, places, other), places, True)}"
                               f"{unit})")
            else:
                if Fraction(rounded, 1) / Fraction(10) ** places == in_unit:
                    reason = f"should be exactly {value_text}"
                else:
                    reason = f"should be {rounded_text} (exact {value_text})"
        if not ok:
            matches = self._explain(claim, quantity, printed, rounded_text)
            if matches:
                reason += "; matches " + ", ".join(matches)
            if places is not None and abs(_round(in_unit, places, self.rule)
                                          - printed.value * Fraction(10) ** places) == 1:
                reason += "; off by one in the last digit"
        return dict(exact=quantity.exact, exact_decimal=shown, exact_rounded=rounded_text,
                    verdict="ok" if ok else "wrong", flags=tuple(flags), reason=reason)

    def _prints_as(self, value: Fraction, printed: SizePrinted, scale: Fraction | None = None,
                   rule: str | None = None) -> bool:
        in_unit = value / (printed.scale if scale is None else scale)
        if printed.places is None:
            return in_unit == printed.value
        return _round(in_unit, printed.places, rule or self.rule) == \
            printed.value * Fraction(10) ** printed.places

    def _explain(self, claim: _SizeClaim, quantity: Quantity, printed: SizePrinted,
                 rounded_text: str) -> list[str]:
        """What a wrong printed size does match, if anything."""
        shape, sizes = self.shapes[claim.variant], self.computed[claim.variant]
        exact = Fraction(quantity.value)
        found: list[str] = []
        other_unit = _COUNTERPART.get(printed.unit)
        if other_unit and self._prints_as(exact, printed, Fraction(BYTE_UNITS[other_unit])):
            kind = "binary" if "i" in other_unit else "decimal"
            found.append(f"the value in {other_unit} ({kind} units: 1 {other_unit} = "
                         f"{_unit_text(other_unit)} bytes) labelled {printed.unit}")
        name = quantity.name
        if quantity.kind == "bytes" and exact:
            size = shape.bytes_per_element
            for dtype, bytes_ in _OTHER_DTYPES:
                if bytes_ != size and self._prints_as(exact * bytes_ / size, printed):
                    found.append(f"the value in {dtype} ({_bytes_text(bytes_)} per number, "
                                 f"not {_bytes_text(size)} for {shape.dtype})")
                    break
        for what, variant in _alternatives(shape):
            if self._prints_as(Fraction(compute(variant)[name]), printed):
                found.append(f"the value {what}")
        per_layer = name.startswith("kv_cache") or name in ("score_bytes_all_layers",
                                                             "total_params")
        if shape.layers > 1 and per_layer and self._prints_as(exact / shape.layers, printed):
            found.append(f"the value for one layer (the spec has {shape.layers})")
        batched = name.startswith("score") or name in ("kv_cache_bytes", "kv_cache_bytes_mha",
                                                       "kv_cache_bytes_saved")
        if shape.batch > 1 and batched and self._prints_as(exact / shape.batch, printed):
            found.append(f"the value for one sequence (the batch is {shape.batch})")
        if name.startswith("kv_cache") and self._prints_as(exact / 2, printed):
            found.append("K alone or V alone (the cache holds both)")
        for other in sizes.quantities:
            if other.name == name or (other.kind == "bytes") != (quantity.kind == "bytes"):
                continue
            if printed.unit == "%" and other.kind != "ratio":
                continue
            if self._prints_as(Fraction(other.value), printed):
                found.append(f"{other.name}, a different quantity")
                break
        if printed.places is not None and self.rule != "truncate" and \
                self._prints_as(exact, printed, rule="truncate"):
            found.append("truncation instead of rounding")
        return found

    # ------------------------------------------------------------- shapes
    def shape(self, claim: _SizeClaim, tensor: Tensor, printed: tuple[int, ...]
              ) -> dict[str, Any]:
        sizes = self.computed[claim.variant]
        shape = self.shapes[claim.variant]
        text = " x ".join(str(s) for s in tensor.sizes)
        dims = "[" + ", ".join(tensor.dims) + "]"
        base = dict(exact=text, exact_decimal=text, exact_rounded=text, flags=())
        if printed == tensor.sizes:
            return dict(base, verdict="ok", reason=f"{dims} = {tensor.text()}")
        if len(tensor.sizes) == 2 and printed == tensor.sizes[::-1]:
            return dict(base, verdict="ok",
                        reason=f"{dims} = {tensor.text()} written [out, in], as "
                               "torch.nn.Linear stores it")
        if "B" in tensor.dims and shape.batch == 1 and tensor.dims[0] == "B" and \
                printed == tensor.sizes[1:]:
            return dict(base, verdict="ok",
                        reason=f"{dims} = {tensor.text()} with the batch dimension (1) "
                               "left out")
        reason = f"should be {text} {dims}"
        if tensor.dims[:1] == ("B",) and printed == tensor.sizes[1:]:
            reason += f"; matches the shape for one sequence (the batch is {shape.batch})"
        for other in sizes.tensors:
            forms = [other.sizes] + ([other.sizes[1:]] if other.dims[:1] == ("B",) and
                                     shape.batch == 1 else [])
            if other.name != tensor.name and printed in forms:
                reason += f"; matches the shape of {other.name}"
                break
        return dict(base, verdict="wrong", reason=reason)


def _bytes_text(count: int) -> str:
    return "1 byte" if count == 1 else f"{count} bytes"


def _alternatives(shape: ModelShape) -> list[tuple[str, ModelShape]]:
    """Shapes a document may have used by mistake, for "matches ..." in reasons."""
    found = []
    if shape.kv != shape.heads:
        found.append(("without grouped-query attention (kv_heads = heads)",
                      dataclasses.replace(shape, kv_heads=None)))
    found.append(("without biases" if shape.bias else "with biases",
                  dataclasses.replace(shape, bias=not shape.bias)))
    return found


def _unit_text(unit: str) -> str:
    size = BYTE_UNITS[unit]
    if "i" in unit:
        return f"2^{size.bit_length() - 1}"
    return f"10^{len(str(size)) - 1}"


def _interval(printed: SizePrinted, rule: str) -> Interval:
    """Values (in the quantity's units) that print as ``printed``: (low, closed,
    high, closed)."""
    value = printed.base_value()
    if printed.places is None:
        return value, True, value, True
    return printed_interval(value, Fraction(10) ** -printed.places * printed.scale,
                            parse_rounding(rule))


def _compatible(first: Any, second: Any, rule: str) -> bool:
    if not isinstance(first, SizePrinted) or not isinstance(second, SizePrinted):
        return first == second
    return intervals_meet(_interval(first, rule), _interval(second, rule))


def check_spec(mapping: Mapping[str, Any], source: str | None = None,
               rounding: str | None = None) -> Any:
    """Judge the printed sizes of a size spec; returns a ``checker.Report``.

    Each claim names a quantity (``score_bytes``) or a tensor (``W_O``), of
    ``[sizes]`` itself or of a variant (``T8192.score_elements``). A number is
    ok when the exact quantity, in the printed unit and rounded to the printed
    places, is the printed number ("64 MiB" is 64 x 2^20 bytes); a shape is ok
    when its sizes are the tensor's (a weight may be written transposed).

    >>> spec = {"sizes": {"d_model": 4096, "heads": 32, "seq_len": 1024},
    ...         "claims": {"score_elements": "33 554 432", "score_bytes": "64 MB"}}
    >>> report = check_spec(spec, "exercise.toml")
    >>> [(v.position, v.verdict) for v in report.verdicts]
    [('score_elements', 'ok'), ('score_bytes', 'wrong')]
    >>> for part in report.verdicts[1].reason.split("; "): print(part)
    should be 67 MB (exact 67.108864 MB = 67,108,864 bytes)
    matches the value in MiB (binary units: 1 MiB = 2^20 bytes) labelled MB
    """
    from flint import fmpq

    from symattn.verify.claims import Claim, Printed, Target
    from symattn.verify.checker import Report, Verdict

    where = Location(file=source)
    if not isinstance(mapping, Mapping):
        raise InputError("a spec must be a table of keys", where)
    for key in mapping:
        if key not in _TOP_LEVEL:
            also = "; a spec has either [inputs] (attention) or [sizes], not both" \
                if key in ("inputs", "layer", "heads") else _hint(key, _TOP_LEVEL)
            raise InputError(f"unknown top-level key `{key}` in a size spec{also}",
                             where.at(key=key))
    options = mapping.get("options", {})
    if not isinstance(options, Mapping):
        raise InputError("[options] must be a table", where.at(key="options"))
    for key in options:
        if key not in _OPTIONS:
            raise InputError(f"unknown option `{key}` for a size spec{_hint(key, _OPTIONS)}; "
                             f"the options are {', '.join(_OPTIONS)}",
                             where.at(key="options").at(key=key))
    rule = parse_rounding(rounding or str(options.get("rounding", ROUNDING)))
    decimal_comma = options.get("decimal_comma", False)
    if not isinstance(decimal_comma, bool):
        raise InputError("decimal_comma must be true or false",
                         where.at(key="options").at(key="decimal_comma"))
    shapes = shapes_of_spec(mapping, source)
    computed = {name: compute(shape) for name, shape in shapes.items()}
    claims = _read_claims(mapping, shapes, computed, where.at(key="claims"))
    judge = _Judge(shapes, computed, rule.value, decimal_comma)
    verdicts = []
    readings: list[Any] = []
    for claim in claims:
        sizes = computed[claim.variant]
        if claim.name in sizes:
            quantity = sizes.quantity(claim.name)
            printed = read_size_printed(claim.raw, quantity.kind, decimal_comma,
                                        claim.location)
            if printed is None:
                continue
            result = judge.number(claim, quantity, printed)
            value, places, text = printed.value, printed.places or 0, printed.text
            percent, approximate = printed.unit == "%", printed.approximate
            reading: Any = printed
        else:
            tensor = sizes.tensor(claim.name)
            shape_printed = _read_shape(claim.raw, claim.location)
            if shape_printed is None:
                continue
            result = judge.shape(claim, tensor, shape_printed)
            value, places, percent, approximate = Fraction(0), 0, False, False
            text = claim.raw if isinstance(claim.raw, str) else \
                "[" + ", ".join(str(x) for x in claim.raw) + "]"
            reading = shape_printed
        target = Target(claim.position)
        printed_record = Printed(text, fmpq(value.numerator, value.denominator), places,
                                 percent, approximate)
        record = Claim(claim.key, claim.label, target, printed_record, len(verdicts))
        verdicts.append(Verdict(claim=record, position=claim.position, printed=text,
                                recomputed=None, **result))
        readings.append(reading)
    verdicts = _flag_inconsistent(verdicts, readings, rule.value)
    return Report(str(mapping.get("title", "")), source, rule, tuple(verdicts))


def _flag_inconsistent(verdicts: list[Any], readings: list[Any], rule: str) -> list[Any]:
    """Flag printings of one quantity that no single value could share."""
    groups: dict[str, list[int]] = {}
    for index, verdict in enumerate(verdicts):
        groups.setdefault(verdict.position, []).append(index)
    result = list(verdicts)
    for indices in groups.values():
        for k in indices:
            clashes = [m for m in indices if m != k and not _compatible(
                readings[k], readings[m], rule)]
            if clashes:
                others = ", ".join(verdicts[m].printed + (f" ({verdicts[m].label})"
                                                          if verdicts[m].label else "")
                                   for m in clashes)
                result[k] = dataclasses.replace(
                    verdicts[k], flags=verdicts[k].flags + ("inconsistent",),
                    reason=verdicts[k].reason + f"; printed differently elsewhere: {others}")
    return result
