"""Judge a spec and each of its ``[[variants]]`` (``problem.variants``) in one run.

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"scores": [[1, 0]]}, "options": {"d_k": 1},
...     "variants": [{"name": "T = 2", "options": {"temperature": 2},
...                   "claims": {"weights[1,1]": "0.62"}}]})
>>> [(r.variant, r.verdicts[0].verdict) for r in check_all(problem)]
[('T = 2', 'ok')]
>>> one = variant_problem(problem, problem.variants[0])
>>> one.temperature, dict(one.claims), one.title
(2, {'weights[1,1]': '0.62'}, 'T = 2')
"""

from __future__ import annotations

__all__ = ["check_all", "variant_problem"]

import dataclasses
from typing import Any

from symattn.derivation.pipeline import derive
from symattn.errors import Location
from symattn.problem import shapes
from symattn.problem.options import read_options
from symattn.problem.problem import Problem
from symattn.problem.variants import Variant
from symattn.values.rounding import Rounding
from symattn.verify.checker import check
from symattn.verify.verdicts import Report


def check_all(problem: Problem, rounding: Rounding | str | None = None,
              working: bool = False, precision: str | None = None) -> list[Report]:
    """The report of the spec's own claims (when it has some, or no variants), then one
    report per variant, in the order they are written."""
    reports = []
    if problem.claims or not problem.variants:
        reports.append(check(derive(problem), rounding, working, precision))
    for variant in problem.variants:
        reports.append(check(derive(variant_problem(problem, variant)), rounding, working,
                             precision))
    return reports


def variant_problem(problem: Problem, variant: Variant) -> Problem:
    """The spec's problem under the variant's options, with the variant's claims."""
    where = Location(file=problem.source, key=f"variants.{variant.name}")
    changed: dict[str, Any] = dict(read_options(variant.options, where.at(key="options")))
    if str(variant.options.get("scale", "")).strip().lower() == "default":
        changed["scale"] = None                    # back to 1/sqrt(d_k)
    title = f"{problem.title} ({variant.name})" if problem.title else variant.name
    titles = {language: f"{text} ({variant.name})"
              for language, text in problem.prose.get("title", {}).items()}
    one = dataclasses.replace(problem, **changed, claims=variant.claims, variants=(),
                              variant=variant.name, title=title,
                              prose={**problem.prose, "title": titles or {"": title}})
    shapes.check_queries(one.mask, one.query_positions, one.tokens, one.score_shape(), where)
    return one
