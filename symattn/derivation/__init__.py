"""A ``Problem`` to a ``Derivation``: the attention computation as named steps.

``steps`` holds the records; ``pipeline.derive`` is the one function that calls
every stage: the rational core (``attention`` over the grids of ``grids`` and
``softmax_grids``), the SymPy path (``sympy_path``, ``sympy_grid``, its softmax rows
in ``sympy_rows``), positions,
several heads (``multihead``), the rest of the layer and the diagnostics.
"""
