"""Experiments on a derivation for teaching: temperature sweeps, what-if
variants, permutations of the tokens, and decoding with a KV cache.
"""
