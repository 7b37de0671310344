"""Every tensor's shape and every named quantity of one layer, exactly.

Two tables drive ``compute``: the tensors by their named dimensions, and the
quantities by their formulas. A formula is both what the report prints and
what is computed (``d_model x d_model + d_model``: operands and the operators
``x / + -`` separated by spaces, ``^`` for a power), so the two cannot drift
apart.

>>> s = compute(ModelShape(d_model=4096, heads=32, seq_len=1024, kv_heads=8))
>>> s["wk_params"], s["attention_params"], s["wo_share"]
(4194304, 41943040, Fraction(2, 5))
>>> s.quantity("wk_params").substituted
'4096 x 1024'
"""

from __future__ import annotations

__all__ = ["QUANTITY_NAMES", "compute"]

import operator
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping

from symattn.sizes.records import Quantity, Sizes, Tensor
from symattn.sizes.shape import DTYPE_GROUPS, ModelShape

# name, dimensions, what it is; a tensor with the dimension vocab exists only with a vocabulary
_TENSORS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("X", ("B", "T", "d_model"), "the layer's input (the residual stream)"),
    ("Q", ("B", "T", "d_model"), "X W_Q"),
    ("K", ("B", "T", "kv_heads*head_dim"), "X W_K"),
    ("V", ("B", "T", "kv_heads*head_dim"), "X W_V"),
    ("Q_heads", ("B", "heads", "T", "head_dim"), "Q split into heads"),
    ("K_heads", ("B", "kv_heads", "T", "head_dim"), "K split into heads"),
    ("V_heads", ("B", "kv_heads", "T", "head_dim"), "V split into heads"),
    ("scores", ("B", "heads", "T", "T"), "Q K^T / sqrt(head_dim), every head"),
    ("weights", ("B", "heads", "T", "T"), "softmax of the scores"),
    ("head_outputs", ("B", "heads", "T", "head_dim"), "weights V, every head"),
    ("concat", ("B", "T", "d_model"), "the heads side by side"),
    ("output", ("B", "T", "d_model"), "concat W_O"),
    ("ffn_hidden", ("B", "T", "d_ff"), "the feed-forward network's hidden layer"),
    ("W_Q", ("d_model", "d_model"), "query projection [in, out]"),
    ("W_K", ("d_model", "kv_heads*head_dim"), "key projection [in, out]"),
    ("W_V", ("d_model", "kv_heads*head_dim"), "value projection [in, out]"),
    ("W_O", ("d_model", "d_model"), "output projection [in, out]"),
    ("W_1", ("d_model", "d_ff"), "feed-forward, first matrix [in, out]"),
    ("W_2", ("d_ff", "d_model"), "feed-forward, second matrix [in, out]"),
    ("embedding", ("vocab", "d_model"), "token embeddings"),
    ("kv_cache", ("layers", "2", "B", "kv_heads", "T", "head_dim"),
     "cached K and V of every layer"),
)


@dataclass(frozen=True)
class _Definition:
    """How one quantity is computed: its formula, and the terms biases or a
    vocabulary add to it."""

    name: str
    kind: str
    formula: str
    description: str            # {dtype} stands for the shape's dtype
    with_bias: str = ""         # terms the bias vectors add
    with_vocab: str = ""        # terms the embedding adds
    needs_vocab: bool = False   # only with a vocabulary
    symbol: str = ""            # the name later formulas give it, if not its own

    def formula_for(self, shape: ModelShape) -> str:
        return (self.formula + (self.with_bias if shape.bias else "")
                + (self.with_vocab if shape.vocab is not None else ""))


_QUANTITIES = (
    _Definition("head_dim", "count", "d_model / heads", "width of one head (d_k)"),
    _Definition("kv_dim", "count", "kv_heads x head_dim", "width of K and V"),
    _Definition("wq_params", "params", "d_model x d_model", "parameters of W_Q",
                with_bias=" + d_model", symbol="W_Q"),
    _Definition("wk_params", "params", "d_model x kv_dim",
                "parameters of W_K (smaller with grouped-query attention)",
                with_bias=" + kv_dim", symbol="W_K"),
    _Definition("wv_params", "params", "d_model x kv_dim", "parameters of W_V",
                with_bias=" + kv_dim", symbol="W_V"),
    _Definition("wo_params", "params", "d_model x d_model", "parameters of W_O",
                with_bias=" + d_model", symbol="W_O"),
    _Definition("attention_params", "params", "W_Q + W_K + W_V + W_O",
                "attention parameters of one layer"),
    _Definition("wo_share", "ratio", "wo_params / attention_params",
                "W_O's share of the attention parameters"),
    _Definition("ffn_params", "params", "2 x d_model x d_ff",
                "feed-forward parameters of one layer (W_1, W_2)",
                with_bias=" + d_ff + d_model"),
    _Definition("layer_params", "params", "attention_params + ffn_params",
                "parameters of one layer (layer norms not counted)"),
    _Definition("embedding_params", "params", "vocab x d_model",
                "token embedding parameters (tied output)", needs_vocab=True),
    _Definition("total_params", "params", "layers x layer_params",
                "parameters of the model (layer norms, positions not counted)",
                with_vocab=" + embedding_params"),
    _Definition("score_elements", "elements", "batch x heads x seq_len^2",
                "numbers in the score matrix of one layer"),
    _Definition("score_bytes", "bytes", "score_elements x bytes",
                "memory of one layer's score matrix in {dtype}"),
    _Definition("score_bytes_all_layers", "bytes", "layers x score_bytes",
                "score matrices of every layer, if all were kept"),
    _Definition("kv_cache_bytes_per_token", "bytes", "2 x layers x kv_heads x head_dim x bytes",
                "KV cache per token (K and V, every layer)"),
    _Definition("kv_cache_bytes", "bytes", "kv_cache_bytes_per_token x seq_len x batch",
                "KV cache of the whole batch of sequences"),
    _Definition("kv_cache_bytes_mha", "bytes",
                "2 x layers x heads x head_dim x bytes x seq_len x batch",
                "the same KV cache without grouped-query attention"),
    _Definition("gqa_factor", "count", "heads / kv_heads",
                "how many times smaller grouped-query attention makes the KV cache"),
    _Definition("kv_cache_bytes_saved", "bytes", "kv_cache_bytes_mha - kv_cache_bytes",
                "KV cache memory saved by grouped-query attention"),
)
# The quantity names compute() can give, in its order (embedding_params only with vocab).
QUANTITY_NAMES = tuple(definition.name for definition in _QUANTITIES)

_Operator = Callable[[Fraction, Fraction], Fraction]
_PRODUCTS: dict[str, _Operator] = {"x": operator.mul, "/": operator.truediv}
_SUMS: dict[str, _Operator] = {"+": operator.add, "-": operator.sub}


def _operand(token: str, known: Mapping[str, int | Fraction]) -> Fraction:
    base, _, power = token.partition("^")
    value = Fraction(int(base)) if base.isdigit() else Fraction(known[base])
    return value ** int(power) if power else value


def _evaluate(formula: str, known: Mapping[str, int | Fraction]) -> Fraction:
    """A formula of the table, products before sums.

    >>> _evaluate("2 x a x b + b - 1", {"a": 3, "b": 4}), _evaluate("t^2 / a", {"t": 3, "a": 2})
    (Fraction(27, 1), Fraction(9, 2))
    """
    tokens = formula.split()
    total, pending, term = Fraction(0), _SUMS["+"], _operand(tokens[0], known)
    for symbol, token in zip(tokens[1::2], tokens[2::2]):
        if symbol in _PRODUCTS:
            term = _PRODUCTS[symbol](term, _operand(token, known))
        else:
            total, pending, term = pending(total, term), _SUMS[symbol], _operand(token, known)
    return pending(total, term)


def _substitute(formula: str, known: Mapping[str, int | Fraction]) -> str:
    """The formula with the numbers: ``seq_len^2`` becomes ``1024^2``."""
    def number(token: str) -> str:
        base, caret, power = token.partition("^")
        return f"{known[base]}{caret}{power}" if base in known else token

    return " ".join(number(token) for token in formula.split())


def _quantity(definition: _Definition, shape: ModelShape,
              known: Mapping[str, int | Fraction]) -> Quantity:
    formula = definition.formula_for(shape)
    value: int | Fraction = _evaluate(formula, known)
    if value.denominator == 1 and definition.kind != "ratio":
        value = int(value)
    return Quantity(definition.name, value, definition.kind, formula,
                    _substitute(formula, known),
                    definition.description.format(dtype=shape.dtype))


def _tensors(shape: ModelShape) -> tuple[Tensor, ...]:
    size = {"B": shape.batch, "T": shape.seq_len, "d_model": shape.d_model,
            "heads": shape.heads, "kv_heads": shape.kv, "head_dim": shape.head_dim,
            "kv_heads*head_dim": shape.kv * shape.head_dim, "d_ff": shape.ff,
            "vocab": shape.vocab or 0, "layers": shape.layers, "2": 2}
    return tuple(Tensor(name, dims, tuple(size[dim] for dim in dims), description)
                 for name, dims, description in _TENSORS
                 if "vocab" not in dims or shape.vocab is not None)


def compute(shape: ModelShape) -> Sizes:
    """Shapes of every tensor of one layer and every named quantity, exactly.

    >>> s = compute(ModelShape(d_model=768, heads=12, seq_len=1024, vocab=50257, bias=True))
    >>> s.quantity("total_params").formula, s["total_params"]
    ('layers x layer_params + embedding_params', 45682176)
    """
    known: dict[str, int | Fraction] = {
        "d_model": shape.d_model, "heads": shape.heads, "seq_len": shape.seq_len,
        "batch": shape.batch, "kv_heads": shape.kv, "d_ff": shape.ff, "layers": shape.layers,
        "bytes": shape.bytes_per_element}
    if shape.vocab is not None:
        known["vocab"] = shape.vocab
    quantities = []
    for definition in _QUANTITIES:
        if definition.needs_vocab and shape.vocab is None:
            continue
        quantity = _quantity(definition, shape, known)
        known[definition.name] = known[definition.symbol or definition.name] = quantity.value
        quantities.append(quantity)
    scores = int(known["score_elements"])
    by_dtype = tuple((name, scores * size) for name, size in DTYPE_GROUPS)
    return Sizes(shape, _tensors(shape), tuple(quantities), by_dtype)
