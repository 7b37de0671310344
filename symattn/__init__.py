"""symattn: exact Transformer attention, step by step.

Load a spec, derive every step exactly, and read each step as data:

>>> import symattn
>>> problem = symattn.load_example("000-cat-chases-mouse")
>>> derivation = symattn.derive(problem)
>>> derivation["scores"].value.text(1, 1)
'26/25'
>>> symattn.NumberFormat(places=2).format(derivation["weights"].value.exact(2, 0))
'0.40'
"""

from __future__ import annotations

from symattn._version import __version__
from symattn.engine import Derivation, Step, derive
from symattn.errors import InputError, ShapeError, SymattnError
from symattn.formatting import NumberFormat
from symattn.problem import Problem
from symattn.rounding import Rounding
from symattn.spec import load, loads

__all__ = ["__version__", "derive", "load", "loads", "load_example", "Derivation", "Step",
           "Problem", "NumberFormat", "Rounding", "SymattnError", "InputError", "ShapeError"]


def load_example(name: str) -> Problem:
    """The Problem of a bundled example (see ``symattn examples``)."""
    from symattn import examples

    return load(examples.path(name))
