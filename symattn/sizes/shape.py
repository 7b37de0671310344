"""The shape of a Transformer layer: the sizes that fix it, and its dtype.

>>> ModelShape(4096, 32, 1024, kv_heads=8, dtype="half").as_dict()["dtype"]
'fp16'
"""

from __future__ import annotations

__all__ = ["DTYPE_BYTES", "DTYPE_GROUPS", "FIELDS", "REQUIRED", "ModelShape"]

from dataclasses import dataclass, field
from symattn.errors import InputError, Location

# Bytes per stored number, by dtype name (lower case).
DTYPE_BYTES: dict[str, int] = {"fp64": 8, "fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2,
                               "fp8": 1, "int8": 1}
_DTYPE_ALIASES = {"float64": "fp64", "float32": "fp32", "float16": "fp16", "half": "fp16",
                  "bfloat16": "bf16", "float8": "fp8", "e4m3": "fp8", "e5m2": "fp8"}
# The dtypes by size, as the score matrix is reported in each.
DTYPE_GROUPS = (("fp32", 4), ("fp16/bf16", 2), ("fp8/int8", 1))

# The fields of a shape, as a spec's [sizes] table names them; the first three are required.
FIELDS = ("d_model", "heads", "seq_len", "batch", "kv_heads", "d_ff", "layers", "vocab",
          "dtype", "bias")
REQUIRED = ("d_model", "heads", "seq_len")
_LARGEST = 10 ** 30


def _positive(name: str, value: object, location: Location | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(f"{name} must be a positive whole number, got {value!r}", location)
    if value < 1:
        raise InputError(f"{name} must be a positive whole number, got {value}", location)
    if value > _LARGEST:
        raise InputError(f"{name} = {value} is larger than any model (the limit is 10^30)",
                         location)
    return value


def _dtype(value: object, location: Location | None = None) -> str:
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
        # the frozen dataclass keeps the dtype's canonical name (fp16 for "half")
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

    def as_dict(self) -> dict[str, int | str | bool | None]:
        """The fields in force (defaults resolved), for reports and JSON."""
        return {"d_model": self.d_model, "heads": self.heads, "kv_heads": self.kv,
                "head_dim": self.head_dim, "seq_len": self.seq_len, "batch": self.batch,
                "layers": self.layers, "d_ff": self.ff, "vocab": self.vocab,
                "dtype": self.dtype, "bytes_per_element": self.bytes_per_element,
                "bias": self.bias}
