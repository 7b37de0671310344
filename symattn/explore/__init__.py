"""Experiments on a derivation for teaching: temperature sweeps (``sweep``),
what-if variants (``whatif``), permutations of the tokens (``permute``) and
decoding with a KV cache (``kvcache``); ``shared`` and ``equality`` hold what
they have in common.
"""
