"""Property: any argument to the public API either works or raises a ``symattn.Error``
(never AttributeError, KeyError, IndexError, TypeError or AssertionError)."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import symattn
from symattn.problem.problem import Problem

_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-10**6, 10**6), st.floats(allow_nan=True),
    st.text(max_size=12), st.binary(max_size=4), st.fractions(max_denominator=50),
    st.decimals(allow_nan=True, places=3), st.just(object()), st.just(math.inf),
    st.sampled_from(["000-cat-chases-mouse", "en", "cs", "xx", "half-even", "bogus", "-inf",
                     "causal", "", "weights", "scores", "[inputs]\nQ = [[1]]"]),
)
ANY = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=4), inner, max_size=2),
    st.tuples(inner, inner)), max_leaves=8)
MATRIX = st.one_of(ANY, st.lists(st.lists(st.one_of(
    st.integers(-3, 3), st.floats(-2, 2, allow_nan=False), st.fractions(max_denominator=9),
    st.sampled_from(["0.5", "a", "-inf", "sqrt(2)"])), min_size=1, max_size=2),
    min_size=1, max_size=2))


@pytest.fixture(scope="module")
def cat() -> Any:
    return symattn.derive(symattn.load_example("001-softmax-10-2-1"))


def _works_or_refuses(call: Callable[[], object]) -> None:
    try:
        call()
    except symattn.Error as error:
        assert str(error)
        assert not isinstance(error, AssertionError)


SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@SETTINGS
@given(value=ANY, other=ANY)
def test_reading_and_deriving(value: Any, other: Any) -> None:
    _works_or_refuses(lambda: symattn.derive(value))
    _works_or_refuses(lambda: symattn.check(value))
    _works_or_refuses(lambda: symattn.load_example(value))
    _works_or_refuses(lambda: symattn.loads(value, kind=other))
    _works_or_refuses(lambda: symattn.loads("[inputs]\nQ = [[1]]\nK = [[1]]\nV = [[1]]",
                                            kind=value))


@SETTINGS
@given(digits=ANY, places=ANY, rounding=ANY, locale=ANY)
def test_number_formats(digits: Any, places: Any, rounding: Any, locale: Any) -> None:
    _works_or_refuses(lambda: symattn.NumberFormat(digits=digits, places=places,
                                                   rounding=rounding, locale=locale))
    _works_or_refuses(lambda: symattn.NumberFormat(digits=digits))
    _works_or_refuses(lambda: symattn.NumberFormat(digits=None, places=places))


@SETTINGS
@given(q=MATRIX, k=MATRIX, v=MATRIX, option=ANY, name=st.sampled_from(
    ["mask", "temperature", "scale", "d_k", "tokens", "title", "claims", "digits", "nosuch"]))
def test_problems_from_python_values(q: Any, k: Any, v: Any, option: Any, name: str) -> None:
    def build() -> None:
        problem = Problem.from_arrays(Q=q, K=k, V=v, **{name: option})
        symattn.check(problem)
    _works_or_refuses(build)
    _works_or_refuses(lambda: Problem.from_arrays(Q=np.array(q, dtype=object)
                                                  if isinstance(q, list) else q, K=k, V=v))
    _works_or_refuses(lambda: Problem.from_mapping({"inputs": {"Q": q, "K": k, "V": v}}))


@SETTINGS
@given(i=ANY, j=ANY, key=ANY, language=ANY, number=ANY)
def test_reading_results(cat: Any, i: Any, j: Any, key: Any, language: Any,
                         number: Any) -> None:
    grid = cat["weights"].value
    _works_or_refuses(lambda: grid.exact(i, j))
    _works_or_refuses(lambda: grid.at(i, j))
    _works_or_refuses(lambda: grid[i, j])
    _works_or_refuses(lambda: grid[i])
    _works_or_refuses(lambda: cat[key])
    _works_or_refuses(lambda: cat.display(places=number, language=language, rows=i))
    _works_or_refuses(lambda: cat.to_dict(digits=number))
    _works_or_refuses(lambda: symattn.render_text(cat, places=number, language=language,
                                                  max_rows=i, max_terms=j))
    _works_or_refuses(lambda: symattn.render_markdown(key, language=language))
    _works_or_refuses(lambda: symattn.render_latex(cat, language=language))
    _works_or_refuses(lambda: symattn.report_json(key))
    _works_or_refuses(lambda: symattn.report_text(symattn.check(cat), language=language))
    _works_or_refuses(lambda: symattn.check(cat, rounding=key, working=number))
    _works_or_refuses(lambda: symattn.derive(cat.problem, language=language))


def test_native_values_in_a_spec_mapping_are_read_too() -> None:
    problem = Problem.from_mapping({"inputs": {"Q": [[Fraction(1, 2), Decimal("0.25")]],
                                               "K": [[1, 0], [0, 1]], "V": [[1.5], [2]]}})
    assert str(problem.inputs["Q"][0][1].value) == "1/4"
    assert str(problem.inputs["V"][0][0].value) == "3/2"
