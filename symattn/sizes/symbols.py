"""How a page writes the sizes' names: dimensions, quantities and tensors as mathematics.

The code and the JSON name quantities ``kv_cache_bytes_per_token``; a page
writes a symbol (``m_{\\mathrm{KV}}``) beside the catalog's words for it. The
reports (``render.reports.sizes_view``) and the size checker's reasons use
these tables, so a note and the report name a thing alike.

>>> DIMENSIONS["d_model"], SYMBOLS["kv_cache_bytes"], TENSOR_SYMBOLS["scores"]
('d_{\\\\mathrm{model}}', 'M_{\\\\mathrm{KV}}', 'S')
>>> dims_math(("B", "T", "d_model"))
'B \\\\times T \\\\times d_{\\\\mathrm{model}}'
"""

from __future__ import annotations

__all__ = ["DIMENSIONS", "SYMBOLS", "TENSOR_SYMBOLS", "dims_math", "tensor_math"]

# The named dimensions of a tensor.
DIMENSIONS = {"B": "B", "T": "T", "d_model": r"d_{\mathrm{model}}", "heads": "h",
              "kv_heads": r"h_{\mathrm{kv}}", "head_dim": "d_k",
              "kv_heads*head_dim": r"h_{\mathrm{kv}} d_k", "d_ff": r"d_{\mathrm{ff}}",
              "vocab": r"N_{\mathrm{voc}}", "layers": "L", "2": "2"}
# The operands of the formulas: the shape's values and the quantities.
SYMBOLS = {
    "d_model": r"d_{\mathrm{model}}", "heads": "h", "seq_len": "T", "batch": "B",
    "kv_heads": r"h_{\mathrm{kv}}", "d_ff": r"d_{\mathrm{ff}}", "layers": "L", "bytes": "b",
    "vocab": r"N_{\mathrm{voc}}", "head_dim": "d_k", "kv_dim": r"d_{\mathrm{kv}}",
    "wq_params": "P_Q", "W_Q": "P_Q", "wk_params": "P_K", "W_K": "P_K",
    "wv_params": "P_V", "W_V": "P_V", "wo_params": "P_O", "W_O": "P_O",
    "attention_params": r"P_{\mathrm{A}}", "wo_share": "s_O", "ffn_params": r"P_{\mathrm{F}}",
    "layer_params": "P_1", "embedding_params": "P_E", "total_params": "P",
    "score_elements": "N_S", "score_bytes": "M_S", "score_bytes_all_layers": "M_S^{(L)}",
    "kv_cache_bytes_per_token": r"m_{\mathrm{KV}}", "kv_cache_bytes": r"M_{\mathrm{KV}}",
    "kv_cache_bytes_mha": r"M_{\mathrm{KV}}^{(h)}", "gqa_factor": "g",
    "kv_cache_bytes_saved": r"\Delta M_{\mathrm{KV}}"}
# Tensors whose name is not already their symbol (W_Q, X, Q ... are).
TENSOR_SYMBOLS = {"Q_heads": "Q^{(i)}", "K_heads": "K^{(i)}", "V_heads": "V^{(i)}",
                  "scores": "S", "weights": "A", "head_outputs": "O^{(i)}", "concat": "C",
                  "output": "O", "ffn_hidden": "H", "embedding": "E", "kv_cache": "(K, V)"}


def dims_math(dims: tuple[str, ...]) -> str:
    """A tensor's dimensions as a product of symbols."""
    return r" \times ".join(DIMENSIONS[d] for d in dims)


def tensor_math(name: str) -> str:
    """A tensor's symbol."""
    return TENSOR_SYMBOLS.get(name, name)
