"""Judge a spec and each of its ``[[variants]]`` (``problem.variants``) in one run.

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"scores": [[1, 0]]}, "options": {"d_k": 1},
...     "variants": [{"name": "T = 2", "options": {"temperature": 2},
...                   "claims": {"weights[1,1]": "0.62"}}]})
>>> [(r.variant, r.verdicts[0].verdict) for r in check_all(problem)]
[('T = 2', 'ok')]
"""

from __future__ import annotations

__all__ = ["check_all"]

from symattn.derivation.pipeline import derive
from symattn.problem.problem import Problem
from symattn.problem.variants import variant_problem
from symattn.values.rounding import Rounding
from symattn.verify.checker import check
from symattn.verify.verdicts import Report


def check_all(problem: Problem, rounding: Rounding | str | None = None,
              working: bool = False) -> list[Report]:
    """The report of the spec's own claims (when it has some, or no variants), then one
    report per variant, in the order they are written."""
    reports = []
    if problem.claims or not problem.variants:
        reports.append(check(derive(problem), rounding, working))
    for variant in problem.variants:
        reports.append(check(derive(variant_problem(problem, variant)), rounding, working))
    return reports
