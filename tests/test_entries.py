"""The entry parser (symattn.values.entries): every form in docs/spec-format.md.

Expected values are written by hand or computed with fractions.Fraction and
decimal.Decimal, never taken from symattn.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest
import sympy
from flint import fmpq
from hypothesis import given, settings
from hypothesis import strategies as st

from symattn.values.entries import Entry, Symbolic, parse_entry, parse_number_literal
from symattn.errors import InputError, Location
from symattn.values.exact import NEG_INF, Surd
from suite_profile import examples

# When a property fails, Hypothesis's pytest plugin imports libcst (to offer a patch),
# which warns through mypy_extensions; under filterwarnings = error that would turn
# the failure report into an INTERNALERROR. Ignore just that warning.
pytestmark = pytest.mark.filterwarnings(
    "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning")


def frac(value) -> Fraction:
    """A Fraction from an fmpq (via its integer numerator and denominator)."""
    assert isinstance(value, fmpq), value
    return Fraction(int(value.p), int(value.q))


# ---------------------------------------------------------------- plain numbers
@pytest.mark.parametrize("text, value, places", [
    # integers
    ("3", Fraction(3), 0),
    ("-2", Fraction(-2), 0),
    ("+7", Fraction(7), 0),
    ("0", Fraction(0), 0),
    ("-0", Fraction(0), 0),
    # decimals keep their printed places
    ("0.2", Fraction(1, 5), 1),
    (".5", Fraction(1, 2), 1),
    ("0.40", Fraction(2, 5), 2),
    ("-0.125", Fraction(-1, 8), 3),
    ("0.855", Fraction(171, 200), 3),
    ("5.", Fraction(5), 0),
    ("1.000", Fraction(1), 3),
    ("  0.5  ", Fraction(1, 2), 1),
    # decimal comma
    ("0,309", Fraction(309, 1000), 3),
    ("-0,5", Fraction(-1, 2), 1),
    ("1,000", Fraction(1), 3),          # a lone comma is a decimal comma
    # digit grouping: comma together with a point, or spaces
    ("2,980.96", Fraction(298096, 100), 2),
    ("1,234,567.5", Fraction(2469135, 2), 1),
    ("33 554 432", Fraction(33554432), 0),
    ("-33 554 432", Fraction(-33554432), 0),
    ("1\u00a0000", Fraction(1000), 0),   # no-break space
    ("1\u202f000", Fraction(1000), 0),   # narrow no-break space
    # scientific
    ("1e-3", Fraction(1, 1000), 3),
    ("2.5E+4", Fraction(25000), -3),
    ("1.50e-3", Fraction(3, 2000), 5),
    ("1.5e-3", Fraction(3, 2000), 4),
    ("1e+3", Fraction(1000), -3),
    ("-4E2", Fraction(-400), -2),
    # Unicode minus sign
    ("\u22120.5", Fraction(-1, 2), 1),
    ("\u22120,5", Fraction(-1, 2), 1),
])
def test_plain_numbers(text, value, places):
    entry = parse_entry(text)
    assert isinstance(entry, Entry)
    assert frac(entry.value) == value
    assert entry.places == places
    assert entry.text == text


@pytest.mark.parametrize("raw", [3, -2, 0, 10**30])
def test_python_ints(raw):
    entry = parse_entry(raw)
    assert frac(entry.value) == Fraction(raw)
    assert entry.places == 0


def test_places_match_decimal_exponent_for_documented_examples():
    # the printed places are minus the exponent Decimal gives the same text
    for text in ("0.2", ".5", "0.40", "1e-3", "2.5E+4", "1.50e-3", "12"):
        assert parse_entry(text).places == -Decimal(text).as_tuple().exponent


@pytest.mark.parametrize("text, value", [
    ("1.50e-3", Fraction(3, 2000)),
    ("2.5E+4", Fraction(25000)),
    ("12", Fraction(12)),
    (".5", Fraction(1, 2)),
])
def test_parse_number_literal(text, value):
    parsed, places = parse_number_literal(text)
    assert frac(parsed) == value
    assert places == -Decimal(text).as_tuple().exponent


# --------------------------------------------------------- fractions and roots
@pytest.mark.parametrize("text, value", [
    ("1/3", Fraction(1, 3)),
    ("-2/6", Fraction(-1, 3)),
    ("1/2/3", Fraction(1, 6)),
    ("(1+2)*3", Fraction(9)),
    ("2^3", Fraction(8)),
    ("2**3", Fraction(8)),
    ("2^-1", Fraction(1, 2)),
    ("(2/3)^2", Fraction(4, 9)),
    ("--1", Fraction(1)),
    ("-(-1)", Fraction(1)),
    ("0.5 + 1/4", Fraction(3, 4)),
    ("2\u00d73", Fraction(6)),          # multiplication sign
    ("2\u00b73", Fraction(6)),          # middle dot
    ("sqrt(4)", Fraction(2)),
    ("sqrt(9/4)", Fraction(3, 2)),
    ("sqrt(2)*sqrt(2)", Fraction(2)),
    ("sqrt(2)^2", Fraction(2)),
    ("sqrt(8)^2/4", Fraction(2)),
])
def test_rational_expressions(text, value):
    entry = parse_entry(text)
    assert frac(entry.value) == value
    assert entry.places is None


@pytest.mark.parametrize("text, coefficient, radicand", [
    ("sqrt(2)", Fraction(1), 2),
    ("sqrt(8)/4", Fraction(1, 2), 2),       # 2*sqrt(2)/4
    ("2*sqrt(3)", Fraction(2), 3),
    ("-sqrt(2)", Fraction(-1), 2),
    ("sqrt(1/2)", Fraction(1, 2), 2),       # sqrt(2)/2
    ("sqrt(12)", Fraction(2), 3),
    ("sqrt(72)", Fraction(6), 2),
    ("1/sqrt(3)", Fraction(1, 3), 3),
    ("sqrt(2)^-1", Fraction(1, 2), 2),
    ("sqrt(2)^3", Fraction(2), 2),
    ("sqrt(2) + sqrt(8)", Fraction(3), 2),   # same radicand: still one root
    ("sqrt(0.5)", Fraction(1, 2), 2),
])
def test_roots(text, coefficient, radicand):
    entry = parse_entry(text)
    assert isinstance(entry.value, Surd)
    assert frac(entry.value.coefficient) == coefficient
    assert entry.value.radicand == radicand
    assert entry.places is None
    # the value really is that root, checked with SymPy on the text
    expected = sympy.Rational(coefficient.numerator, coefficient.denominator) * sympy.sqrt(radicand)
    assert sympy.simplify(sympy.sympify(text.replace("^", "**"), rational=True) - expected) == 0


# ---------------------------------------------------------------- minus infinity
@pytest.mark.parametrize("text", ["-inf", "\u2212inf", "-\u221e", "\u2212\u221e", "-Inf",
                                  "-infinity", "  -inf ", "- inf"])
def test_minus_infinity(text):
    entry = parse_entry(text)
    assert entry.value is NEG_INF
    assert entry.places is None


@pytest.mark.parametrize("text", ["inf", "+inf", "\u221e", "Infinity", "oo"])
def test_plus_infinity_is_refused(text):
    with pytest.raises(InputError, match="minus infinity"):
        parse_entry(text)


# ------------------------------------------------------------------ identifiers
@pytest.mark.parametrize("text, expected", [
    ("a", lambda a, b, w: a),
    ("w_11", lambda a, b, w: w),
    ("2*a + b", lambda a, b, w: 2 * a + b),
    ("a/2 - b^2", lambda a, b, w: a / 2 - b ** 2),
    ("sqrt(2)*a", lambda a, b, w: sympy.sqrt(2) * a),
    ("-(a + 1)", lambda a, b, w: -(a + 1)),
])
def test_identifiers_are_symbolic(text, expected):
    entry = parse_entry(text)
    assert isinstance(entry.value, Symbolic)
    assert entry.places is None
    assert entry.value.text == text
    a, b, w = (sympy.Symbol(name, real=True) for name in ("a", "b", "w_11"))
    assert sympy.simplify(entry.value.to_sympy() - expected(a, b, w)) == 0


def test_sums_of_different_roots_are_symbolic():
    entry = parse_entry("sqrt(2) + sqrt(3)")
    assert isinstance(entry.value, Symbolic)
    assert sympy.simplify(entry.value.to_sympy() - (sympy.sqrt(2) + sympy.sqrt(3))) == 0


# -------------------------------------------------------------------- rejected
@pytest.mark.parametrize("text", [
    "", "   ", "1/0", "0^-1", "sqrt(-1)", "sqrt(-2/3)", "nan", "NaN", "sqrt", "1e",
    "1.2.3", "abc(2)", "3a", "1,2,3", "12,34.5", "0x10", "1_000", "4 5", "1 2345",
    "2^65", "2^a", "2^0.5", "(1", "1)", "()", "*1", "1+", "1e10001", "1e-10001",
    "sqrt 2", "a b", "#1", "1;2", "'1'", "inf - 1", "-inf + 1",
    "(" * 150 + "1" + ")" * 150, "-" * 150 + "1", "1 " * 1001,
], ids=lambda text: text if len(text) < 30 else f"{text[:8]}...{len(text)}-chars")
def test_rejected_text(text):
    with pytest.raises(InputError):
        parse_entry(text)


@pytest.mark.parametrize("text", ["1" * 2001, "1" * 5000, "-" + "1" * 5000, "0." + "1" * 5000],
                         ids=["2001-digits", "5000-digits", "minus-5000-digits", "5000-places"])
def test_overlong_plain_numbers_are_refused_with_input_error(text):
    with pytest.raises(InputError, match="limit is 2000"):
        parse_entry(text)


@pytest.mark.parametrize("raw", [True, False, None, [1], {"a": 1}, b"1"])
def test_rejected_types(raw):
    # floats, Fractions, Decimals are read since Python-native inputs (tests/test_pyapi.py)
    with pytest.raises(InputError, match="expected a number"):
        parse_entry(raw)


@pytest.mark.parametrize("text", ["a/0", "a/(1-1)", "(a+1)/0.0"])
def test_symbolic_division_by_zero_is_rejected(text):
    with pytest.raises(InputError, match="divides by zero"):
        parse_entry(text)


def test_error_carries_location():
    where = Location(file="spec.toml", key="inputs.Q", row=2, column=3)
    with pytest.raises(InputError) as info:
        parse_entry("1..2", where)
    assert info.value.location == where
    message = str(info.value)
    for part in ("spec.toml", "inputs.Q", "row 2", "column 3", "'1..2'"):
        assert part in message
    assert "\n" not in message


def test_division_by_zero_message():
    with pytest.raises(InputError, match="divides by zero"):
        parse_entry("1/0")


def test_exponent_limit_message():
    with pytest.raises(InputError, match="exponent"):
        parse_entry("1e10001")


# ---------------------------------------------------------- property tests
_digits = st.text(alphabet="0123456789", min_size=1, max_size=12)


@st.composite
def decimal_strings(draw):
    sign = draw(st.sampled_from(["", "-", "+"]))
    whole = draw(st.one_of(st.just(""), _digits))
    fraction = draw(st.one_of(st.none(), st.text(alphabet="0123456789", max_size=12)))
    if not whole and not fraction:
        whole = draw(_digits)
    body = whole if fraction is None else f"{whole}.{fraction}"
    if body == ".":
        body = "0."
    exponent = draw(st.one_of(st.none(), st.integers(-40, 40)))
    if exponent is not None:
        letter = draw(st.sampled_from("eE"))
        plus = draw(st.sampled_from(["", "+"])) if exponent >= 0 else ""
        body += f"{letter}{plus}{exponent}"
    return sign + body


@settings(max_examples=examples(300), deadline=None)
@given(decimal_strings())
def test_random_decimal_strings_parse_exactly(text):
    entry = parse_entry(text)
    expected = Fraction(Decimal(text))
    assert frac(entry.value) == expected
    assert entry.places == -Decimal(text).as_tuple().exponent


@settings(max_examples=examples(150), deadline=None)
@given(st.integers(0, 10**9), st.integers(1, 10**6), st.integers(1, 9))
def test_random_decimal_comma_strings(whole, fraction, pad):
    text = f"{whole},{str(fraction).zfill(pad)}"
    entry = parse_entry(text)
    assert frac(entry.value) == Fraction(Decimal(text.replace(",", ".")))
    assert entry.places == len(str(fraction).zfill(pad))


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(1000, 10**15), st.integers(0, 999), st.sampled_from([",", " "]))
def test_random_grouped_numbers(number, cents, separator):
    grouped = f"{number:,}".replace(",", separator)
    text = f"{grouped}.{cents:03d}" if separator == "," else grouped
    entry = parse_entry(text)
    plain = text.replace(",", "").replace(" ", "")
    assert frac(entry.value) == Fraction(Decimal(plain))


@settings(max_examples=examples(100), deadline=None)
@given(st.integers(-10**6, 10**6), st.integers(1, 10**6))
def test_random_fractions(p, q):
    assert frac(parse_entry(f"{p}/{q}").value) == Fraction(p, q)


_grammar_alphabet = st.sampled_from(list("0123456789.,eE+-*/^() ab_") +
                                    ["sqrt(", "inf", "\u2212", "\u221e", "**", "1e9999", "nan"])


@settings(max_examples=examples(300), deadline=None)
@given(st.one_of(st.text(max_size=40),
                 st.lists(_grammar_alphabet, max_size=25).map("".join)))
def test_random_text_raises_only_input_error(text):
    try:
        entry = parse_entry(text)
    except InputError:
        return
    assert isinstance(entry, Entry)
