"""Spec text to a frozen, validated ``Problem``.

Spec files keep how each number was printed (``spec``); tables and matrices
are read with their locations (``tables``, ``layer_config``); sizes are bounded
(``limits``); bundled examples live in ``examples``.
"""
