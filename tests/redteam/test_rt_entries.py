"""Issue 19 item 1: a cost model for entries - every entry within the limits parses fast.

The documented bounds (literals up to e+-10000, exponents up to 64) did not
compose: ``(1e10000^64)^64`` (17 characters) ran for 77 s, and
``sqrt(1e10000^64)`` for minutes. Every number met while reading an entry is
now bounded before it is computed.
"""

from __future__ import annotations

import time

import pytest
from flint import fmpq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symattn.errors import InputError
from symattn.values.entries import MAX_ENTRY_DIGITS, parse_entry
from symattn.values.exact import Surd, squarefree_split
from suite_profile import examples


@pytest.mark.parametrize("text", ["(1e10000^64)^64", "((1e10000^64)^64)^64", "sqrt(1e10000^64)",
                                  "(a*1e10000^2)^64", "sqrt(sqrt(1e10000^64))",
                                  "((2^64)^64)^64", "((9^64)^64)^64"])
def test_composed_powers_are_refused_at_once(text: str) -> None:
    start = time.perf_counter()
    with pytest.raises(InputError, match="digits; the limit is"):
        parse_entry(text)
    assert time.perf_counter() - start < 0.5


def test_within_the_limit_still_exact() -> None:
    # 1e10000 squared: 20,001 digits, under the limit; the value checked with Fraction.
    assert parse_entry("(1e10000)^2").value == fmpq(10 ** 20000)
    assert parse_entry("(1e-5000)^4").value == fmpq(1, 10 ** 20000)
    assert parse_entry("sqrt(1e10000)").value == fmpq(10 ** 5000)
    assert parse_entry("sqrt(2e10000)").value == Surd(fmpq(10 ** 5000), 2)
    assert MAX_ENTRY_DIGITS >= 20_001


def test_squarefree_split_of_a_megabit_number_is_fast() -> None:
    n = 2 ** 400_001 * 3 ** 20_000 * 5 ** 3
    start = time.perf_counter()
    g, r = squarefree_split(n)
    assert time.perf_counter() - start < 1.0
    assert g == 2 ** 200_000 * 3 ** 10_000 * 5 and r == 10


def _literal() -> st.SearchStrategy[str]:
    mantissa = st.one_of(st.integers(0, 10 ** 30).map(str),
                         st.builds(lambda a, b: f"{a}.{b}", st.integers(0, 999),
                                   st.integers(0, 10 ** 6)))
    exponent = st.integers(-10_000, 10_000).map(lambda e: f"e{e}")
    return st.one_of(mantissa, st.builds(str.__add__, mantissa, exponent),
                     st.sampled_from(["a", "w_1", "x"]))


def _expression(depth: int) -> st.SearchStrategy[str]:
    if depth == 0:
        return _literal()
    inner = _expression(depth - 1)
    return st.one_of(
        inner,
        st.builds(lambda a, k: f"({a})^{k}", inner, st.integers(-64, 64)),
        st.builds(lambda a: f"sqrt({a})", inner),
        st.builds(lambda a, op, b: f"{a} {op} {b}", inner, st.sampled_from("+-*/"), inner))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_expression(4))
def test_random_entries_parse_in_under_a_second(text: str) -> None:
    start = time.perf_counter()
    try:
        parse_entry(text)
    except InputError:
        pass
    assert time.perf_counter() - start < 1.0, text
