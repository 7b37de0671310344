"""A ``Problem`` to a ``Derivation``: the attention computation as named steps.

``steps`` holds the records; ``pipeline.derive`` is the one function that calls
every stage: the rational core (``attention``, ``grids``), the SymPy path
(``sympy_path``), positions, several heads, the rest of the layer and the
diagnostics.
"""
