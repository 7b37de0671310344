"""Seed 003's argument for the 1/sqrt(d_k): the variance of q . k is d_k.

If the d_k entries of a query q and a key k are independent, with mean 0 and
variance 1, each product q_t k_t has mean 0 and variance E[q_t^2] E[k_t^2] = 1,
and the d_k products are uncorrelated, so

    Var(q . k) = sum_t Var(q_t k_t) = d_k,    Var(q . k / sqrt(d_k)) = 1.

Asked for by ``variance = true`` in ``[diagnostics]``; the step ``variance``
(1 x 2: the two variances) stands right after the scaling, where the page
divides by sqrt(d_k). A document's printed "variance d_k" is a claim on
``variance[1,1]``.

>>> from symattn.problem.problem import Problem
>>> from symattn.derivation.pipeline import derive
>>> derivation = derive(Problem.from_mapping({"inputs": {"Q": [[1, 0, 0, 0]],
...     "K": [[1, 0, 0, 0]]}, "diagnostics": {"variance": True}}))
>>> derivation.names
('Q', 'K', 'scores', 'scaled', 'variance', 'exp', 'exp_sum', 'weights')
>>> [derivation["variance"].value.exact(0, j) for j in range(2)]
[4, 1]
"""

from __future__ import annotations

__all__ = ["insert"]

from typing import Sequence

from flint import fmpq

from symattn.derivation import grids
from symattn.derivation.names import base_name
from symattn.derivation.steps import Step
from symattn.errors import InputError, Location
from symattn.problem.problem import Problem


def insert(problem: Problem, steps: Sequence[Step]) -> list[Step]:
    """``steps`` with the variance step after the (first) scaling, if the spec asks."""
    out = list(steps)
    if "variance" not in problem.diagnostics:
        return out
    d_k = problem.d_k_value
    if d_k is None:
        raise InputError("the variance of q . k needs d_k: set options.d_k",
                         Location(file=problem.source, key="diagnostics.variance"))
    step = Step("variance", "\\operatorname{Var}", "\\operatorname{Var}(q \\cdot k)", (),
                "variance of a dot product of random unit-variance vectors, before and after "
                "the division by sqrt(d_k)", grids.ValueGrid([[fmpq(d_k), fmpq(1)]]))
    after = next((k for k, s in enumerate(out) if base_name(s.name) == "scaled"),
                 next((k for k, s in enumerate(out) if base_name(s.name) == "scores"),
                      len(out) - 1))
    out.insert(after + 1, step)
    return out
