"""``derive(problem)``: the one function that calls every stage of the derivation.

Rational inputs take the fast exact core (``derivation.attention``), with
positions the fast position path (``derivation.positions``); inputs with
roots or identifiers take the SymPy path (``derivation.sympy_path``); then the
rest of the layer and the diagnostics.

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"Q": [[1, 0]], "K": [[1, 0], [0, 1]],
...                                            "V": [[1], [2]]}, "options": {"scale": "none"}})
>>> derivation = derive(problem)
>>> [step.name for step in derivation.steps]
['Q', 'K', 'V', 'scores', 'scaled', 'exp', 'exp_sum', 'weights', 'output']
>>> derivation["scores"].value.exact(0, 0)
1
"""

from __future__ import annotations

__all__ = ['derive']

from symattn.derivation.attention import rational_steps
from symattn.derivation.steps import Derivation
from symattn.errors import InputError, Location
from symattn.problem.problem import Problem


def derive(problem: Problem, *, sympy_positions: bool = False) -> Derivation:
    """All steps of the attention computation for ``problem``, exactly.

    ``sympy_positions`` sends positions through SymPy even with rational
    inputs (``explore.kvcache`` compares its SymPy rows with these).
    """
    try:
        return _derive(problem, sympy_positions)
    except InputError as error:
        if error.location is not None:
            raise
        # Problems found while computing (a fully masked row) still name the spec.
        raise type(error)(error.message, Location(file=problem.source)) from None


def _derive(problem: Problem, sympy_positions: bool = False) -> Derivation:
    from symattn.derivation import layer

    steps = layer.input_steps(problem)
    multi_head = problem.heads > 1 or "W_O" in problem.inputs
    if problem.order and (multi_head or problem.is_symbolic or "scaled" in problem.inputs):
        raise InputError("options.order needs one head, numeric inputs and the raw scores "
                         "(not scaled scores given directly)",
                         Location(file=problem.source, key="options.order"))
    fast_positions = False
    if problem.positions != "none":   # sines and cosines
        from symattn.derivation import positions   # without SymPy

        positions.check(problem)
        fast_positions = not sympy_positions and positions.applies(problem)
    if fast_positions:   # rational inputs: exact sines and cosines with certified balls
        from symattn.derivation import positions

        steps += positions.build_steps(problem)
    elif problem.is_symbolic:   # roots, identifiers, or positions with them
        if multi_head:
            raise InputError("several heads and W_O need numeric inputs (no symbols or roots)")
        from symattn.derivation import sympy_path

        steps += sympy_path.build_steps(problem)
    elif multi_head:
        from symattn.derivation import multihead

        steps += multihead.build_steps(problem)
    else:
        steps += rational_steps(problem)
    from symattn.derivation import compare, cosine, diagnostics, max_shift, variance

    steps = max_shift.apply(problem, steps)
    for stage in layer.STAGES + diagnostics.STAGES:
        steps += stage(problem, steps)
    steps = variance.insert(problem, steps)
    steps = cosine.insert(problem, steps)
    if problem.symbols:   # limits, derivative, substitution: SymPy, imported only then
        from symattn.derivation import symbols

        steps = symbols.insert(problem, steps)
    comparisons = compare.build(problem, _derive) if problem.compare else ()
    return Derivation(problem, tuple(steps), comparisons)
