"""Double-precision enclosures (symattn.values.enclosures) and their decimals
(symattn.values.enclosure_roundings, NumberFormat.format_block's numpy path).

Every expected number here is computed independently: exact ``Fraction``
scores from the input strings, then softmax and outputs with mpmath at 60
digits, and decimals from a small correctly rounded formatter written below.
Nothing expected is copied from symattn's output. Where two symattn paths are
compared (the enclosure path against the older ball path), the mpmath
reference is checked as well.
"""

from __future__ import annotations

import math
import random
from decimal import Context, Decimal
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symattn.values import enclosure_roundings as roundings_module
from symattn.values import number_format as formatting
from symattn.values.enclosure_roundings import enclosure_roundings
from symattn.values.enclosures import Enclosure
from symattn.derivation.pipeline import derive
from symattn.values.number_format import NumberFormat
from symattn.problem.problem import Problem
from symattn.values.rounding import Rounding
from suite_profile import examples

DPS = 60
BIG = 10 ** 12          # ENCLOSURE_MIN_ENTRIES for the ball-path reference


# ------------------------------------------------------------------ inputs
def decimal_text(rng: random.Random, bound: float, places: int | None = None) -> str:
    """A random decimal with 1-3 places (or ``places``), |value| <= bound."""
    k = places if places is not None else rng.randint(1, 3)
    limit = int(bound * 10 ** k)
    number = rng.randint(-limit, limit)
    sign = "-" if number < 0 else ""
    whole, fraction = divmod(abs(number), 10 ** k)
    return f"{sign}{whole}.{str(fraction).zfill(k)}"


def random_matrix(rng: random.Random, rows: int, columns: int, bound: float,
                  places: int | None = None) -> list[list[str]]:
    return [[decimal_text(rng, bound, places) for _ in range(columns)] for _ in range(rows)]


def frac(text: str) -> Fraction:
    return Fraction(text)


def common_integers(matrix: list[list[Fraction | None]]) -> tuple[list[list[int | None]], int]:
    """Integer numerators over one common denominator (None stays None)."""
    denominator = 1
    for row in matrix:
        for x in row:
            if x is not None:
                denominator = denominator * x.denominator // math.gcd(denominator, x.denominator)
    return [[None if x is None else int(x * denominator) for x in row] for row in matrix], \
        denominator


def scores_from_qk(Q: list[list[str]], K: list[list[str]]) -> tuple[list[list[int]], int]:
    """Exact integer scores N / D of Q K^T from the input strings."""
    q, qd = common_integers([[frac(x) for x in row] for row in Q])
    k, kd = common_integers([[frac(x) for x in row] for row in K])
    return [[sum(a * b for a, b in zip(qi, kj)) for kj in k] for qi in q], qd * kd


def scores_from_texts(S: list[list[str]]) -> tuple[list[list[int | None]], int]:
    return common_integers([[None if x == "-inf" else frac(x) for x in row] for row in S])


def mp_of(x) -> mpmath.mpf:
    """An mpf from a Fraction / int (exact up to the working precision), an mpf as is."""
    if isinstance(x, mpmath.mpf):
        return x
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def mp_factor(d_k: int | None = None, scale: Fraction | None = None,
              temperature: Fraction = Fraction(1), surd_scale: int | None = None) -> mpmath.mpf:
    """scale / T with scale 1/sqrt(d_k) by default, 1/sqrt(surd_scale), or rational."""
    with mpmath.workdps(DPS):
        if surd_scale is not None:
            base = 1 / mpmath.sqrt(surd_scale)
        elif scale is not None:
            base = mp_of(scale)
        else:
            base = 1 / mpmath.sqrt(d_k)
        return base / mp_of(temperature)


class Reference:
    """Softmax weights and outputs, exact where rational, else mpmath (60 digits).

    ``weights[i]`` is None for a fully masked row; entries are Fractions
    (masked: 0; a row of equal scores: 1/count) or mpf.
    """

    def __init__(self, numerators: list[list[int | None]], denominator: int,
                 factor: mpmath.mpf, allowed: list[list[bool]] | None = None,
                 V: list[list[str]] | None = None) -> None:
        n, m = len(numerators), len(numerators[0])
        self.weights: list[list | None] = []
        self.rational_rows: list[bool] = []
        with mpmath.workdps(DPS):
            step = factor / denominator
            for i in range(n):
                open_ = [j for j in range(m) if numerators[i][j] is not None and
                         (allowed is None or allowed[i][j])]
                if not open_:
                    self.weights.append(None)
                    self.rational_rows.append(True)
                    continue
                values = [numerators[i][j] for j in open_]
                top = max(values)
                row: list = [Fraction(0)] * m
                if all(v == top for v in values):
                    for j in open_:
                        row[j] = Fraction(1, len(open_))
                    self.rational_rows.append(True)
                else:
                    exps = [mpmath.exp(step * (v - top)) for v in values]
                    total = mpmath.fsum(exps)
                    for j, e in zip(open_, exps):
                        row[j] = e / total
                    self.rational_rows.append(False)
                self.weights.append(row)
            self.output: list[list | None] | None = None
            if V is not None:
                v = [[frac(x) for x in r] for r in V]
                vd = [[Decimal(x.numerator) / Decimal(x.denominator) for x in r] for r in v]
                self.output = []
                for i, row in enumerate(self.weights):
                    if row is None:
                        self.output.append(None)
                    elif self.rational_rows[i]:
                        self.output.append([sum((row[j] * v[j][k] for j in range(m)), Fraction(0))
                                            for k in range(len(v[0]))])
                    else:       # sum of weight x value in Python's decimal, to DPS + 10 digits
                        weights = [(_decimal(mp_of(row[j])), vd[j]) for j in range(m)
                                   if row[j] != 0]
                        self.output.append([mpmath.mpf(str(_dot(weights, k)))
                                            for k in range(len(v[0]))])


_SUMS = Context(prec=DPS + 10, Emax=10 ** 9, Emin=-10 ** 9)


def _dot(pairs: list[tuple[Decimal, list[Decimal]]], k: int) -> Decimal:
    """sum(w * v[k] for w, v in pairs), each step rounded to DPS + 10 digits."""
    total = Decimal(0)
    for weight, values in pairs:
        total = _SUMS.fma(weight, values[k], total)
    return total


# ------------------------------------------------------- reference decimals
# The reference carries 60 digits; a value closer than this (relative) to a
# rounding boundary is not trusted and the test stops instead of guessing.
TIE_GUARD = Decimal("1e-50")
# The reference's decimals: 120 digits, twice the 60 the mpf values carry, so that
# converting and scaling them moves nothing near the guard. Huge exponents allowed.
_EXACT = Context(prec=120, Emax=10 ** 9, Emin=-10 ** 9)


def _decimal(value: mpmath.mpf) -> Decimal:
    """An mpf (man * 2**exp) as a Decimal to 120 digits."""
    sign, man, exp, _ = value._mpf_
    converted = _EXACT.multiply(Decimal(man), _EXACT.power(Decimal(2), exp))
    return -converted if sign else converted


def _exponent(value: Fraction | mpmath.mpf, truncate: bool) -> int:
    """floor(log10 |value|), exactly for Fractions and for the mpf's binary value."""
    if isinstance(value, Fraction):
        value = abs(value)
        e = len(str(value.numerator)) - len(str(value.denominator))
        while Fraction(10) ** e > value:
            e -= 1
        while Fraction(10) ** (e + 1) <= value:
            e += 1
        return e
    x = abs(_decimal(value))
    e = x.adjusted()
    # Near a power of ten both candidate exponents round to the same text under
    # the half rules (0.99999... -> 1.00000); truncation needs the right side.
    assert not truncate or _EXACT.subtract(x.scaleb(-e, _EXACT), 1) > TIE_GUARD, \
        "reference too close to a power of ten"
    return e


def _round_abs(value: Fraction | mpmath.mpf, places: int, rule: Rounding) -> int:
    """round(|value| * 10**places) under ``rule`` (halves away from zero for HALF_UP)."""
    if isinstance(value, Fraction):
        scaled = abs(value) * Fraction(10) ** places
        whole = scaled.numerator // scaled.denominator
        rest = scaled - whole
        if rule is Rounding.TRUNCATE or rest < Fraction(1, 2):
            return whole
        if rest > Fraction(1, 2):
            return whole + 1
        return whole + 1 if rule is Rounding.HALF_UP or whole % 2 == 1 else whole
    scaled = abs(_decimal(value)).scaleb(places, _EXACT)
    whole = int(scaled)
    rest = _EXACT.subtract(scaled, Decimal(whole))
    guard = _EXACT.multiply(TIE_GUARD, max(Decimal(1), scaled))
    if rule is Rounding.TRUNCATE:
        assert guard < rest < 1 - guard, "reference too close to an integer"
        return whole
    assert abs(rest - Decimal("0.5")) > guard, "reference too close to a midpoint"
    return whole + 1 if rest > Decimal("0.5") else whole


def ref_text(value, *, digits: int | None = None, places: int | None = None,
             rule: Rounding = Rounding.HALF_UP, separator: str = ".") -> str:
    """The correctly rounded decimal NumberFormat should print (independent code).

    ``value`` None stands for nan. With ``digits``, a positional text longer
    than digits + 7 characters (sign not counted) is written d.ddde-XX.
    """
    if value is None:
        return "nan"
    if value == 0:
        return "0" if places is None else "0" + separator + "0" * places if places > 0 else "0"
    if places is not None:
        p = places
        rounded = _round_abs(value, p, rule)
    else:
        assert digits is not None
        p = digits - 1 - _exponent(value, rule is Rounding.TRUNCATE)
        rounded = _round_abs(value, p, rule)
        if rounded == 10 ** digits:      # 0.0099996 -> 0.0100 at 3 digits
            rounded //= 10
            p -= 1
        assert 10 ** (digits - 1) <= rounded < 10 ** digits
    sign = "-" if value < 0 and rounded != 0 else ""
    if places is None and abs(p) > 1000:    # far past the limit: scientific, no huge string
        body = "x" * (digits + 8)
    elif p <= 0:
        body = str(rounded * 10 ** (-p))
    else:
        s = str(rounded).rjust(p + 1, "0")
        body = f"{s[:-p]}{separator}{s[-p:]}"
    if places is None and len(body) > digits + 7:
        mantissa = str(rounded)
        exponent = digits - 1 - p
        tail = f"{separator}{mantissa[1:]}" if digits > 1 else ""
        return f"{sign}{mantissa[0]}{tail}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    return sign + body


def expected_block(values: list, fmt: NumberFormat, rows=None, columns=None) -> tuple:
    """The reference texts of a block (a None row: a fully masked row, "nan")."""
    rows = range(len(values)) if rows is None else rows
    if columns is None:
        columns = range(max(len(row) for row in values if row is not None))
    return tuple(tuple(ref_text(None if values[i] is None else values[i][j], digits=fmt.digits,
                                places=fmt.places, rule=fmt.rounding, separator=fmt.separator)
                       for j in columns) for i in rows)


def test_ref_text_self_check():
    """The reference formatter on hand-checked values (so it can be trusted)."""
    assert ref_text(Fraction(1, 8), digits=2) == "0.13"
    assert ref_text(Fraction(1, 8), digits=2, rule=Rounding.HALF_EVEN) == "0.12"
    assert ref_text(Fraction(-1, 8), digits=2) == "-0.13"
    assert ref_text(Fraction(3, 8), places=2, rule=Rounding.HALF_EVEN) == "0.38"
    assert ref_text(Fraction(99996, 10 ** 7), digits=3) == "0.0100"
    assert ref_text(Fraction(-1, 10 ** 5), places=2) == "0.00"
    assert ref_text(Fraction(0), digits=4) == "0"
    assert ref_text(Fraction(0), places=2, separator=",") == "0,00"
    assert ref_text(Fraction(15, 10 ** 7), digits=6) == "0.00000150000"
    assert ref_text(Fraction(95, 10 ** 8), digits=6) == "9.50000e-07"
    assert ref_text(Fraction(123456789), digits=6) == "123457000"
    assert ref_text(Fraction(-1234567, 10 ** 15), digits=3, separator=",") == "-1,23e-09"
    assert ref_text(Fraction(1999, 1000), digits=2, rule=Rounding.TRUNCATE) == "1.9"
    with mpmath.workdps(DPS):
        assert ref_text(mpmath.mpf(1) / 3, digits=4) == "0.3333"
        assert ref_text(mpmath.e, places=3, separator=",") == "2,718"


# ------------------------------------------------------------ problem tools
def build(inputs: dict, options: dict) -> tuple:
    derivation = derive(Problem.from_mapping({"inputs": inputs, "options": options}))
    weights = derivation["weights"].value
    output = derivation["output"].value if "output" in derivation else None
    return weights, output


def assert_contains(enclosure: Enclosure, values: list, allowed_rows: list[bool],
                    what: str, magnitudes: np.ndarray | None = None) -> None:
    """Every known row: |true - mid| <= rad; unknown rows only where expected; rad small."""
    known = enclosure.known.tolist()
    assert known == allowed_rows, f"{what}: known rows differ from the rows with an open entry"
    mid, rad = enclosure.mid, enclosure.rad
    assert (rad >= 0).all()
    bad = []
    with mpmath.workdps(DPS):
        for i, row in enumerate(values):
            if not known[i]:
                continue
            for j, true in enumerate(row):
                t = mp_of(true) if isinstance(true, Fraction) else true
                error = abs(t - mpmath.mpf(float(mid[i, j])))
                if error > mpmath.mpf(float(rad[i, j])) + abs(t) * mpmath.mpf(10) ** -45:
                    bad.append((i, j, mpmath.nstr(t, 20), float(mid[i, j]), float(rad[i, j]),
                                mpmath.nstr(error, 5)))
    assert not bad, f"{what}: true value outside mid +- rad at {bad[:5]} ({len(bad)} entries)"
    # The bound must be useful, not merely true.
    rows = np.array(known, dtype=bool)
    scale = np.abs(mid) if magnitudes is None else magnitudes
    slack = 1e-299 if magnitudes is None else 1e-289
    assert (rad[rows] <= 1e-12 * scale[rows] + slack).all(), \
        f"{what}: enclosure radius too wide: {float((rad[rows] / (scale[rows] + 1e-300)).max())}"


class Spy:
    """Which path each ``format_block`` call took: the numpy enclosure (its open entries
    then decided exactly, or by balls row by row) or the ball batch."""

    def __init__(self, monkeypatch) -> None:
        self.monkeypatch = monkeypatch
        self.enclosure_calls = 0
        self.ball_calls = 0
        real_roundings = roundings_module.enclosure_roundings
        real_balls = NumberFormat._format_balls

        def roundings(*args, **kwargs):
            self.enclosure_calls += 1
            return real_roundings(*args, **kwargs)

        def balls(fmt, *args, **kwargs):
            self.ball_calls += 1
            return real_balls(fmt, *args, **kwargs)

        monkeypatch.setattr(roundings_module, "enclosure_roundings", roundings)
        monkeypatch.setattr(NumberFormat, "_format_balls", balls)

    def format(self, fmt: NumberFormat, grid, rows, columns) -> tuple[tuple, str]:
        """The texts and the path: "enclosure", "balls" or "exact" (tiny blocks)."""
        before = (self.enclosure_calls, self.ball_calls)
        texts = fmt.format_block(grid, rows, columns)
        if self.enclosure_calls > before[0]:
            return texts, "enclosure"
        return texts, "balls" if self.ball_calls > before[1] else "exact"

    def ball_path(self, fmt: NumberFormat, grid, rows, columns) -> tuple:
        """The older ball batch, as the reference path."""
        with self.monkeypatch.context() as patch:
            patch.setattr(formatting, "ENCLOSURE_MIN_ENTRIES", BIG)
            texts, path = self.format(fmt, grid, rows, columns)
        assert path == "balls"
        return texts

    def enclosure_path(self, fmt: NumberFormat, grid, rows, columns) -> tuple:
        """The texts, which the enclosure path must have written (however many entries
        it leaves open)."""
        texts, path = self.format(fmt, grid, rows, columns)
        assert path == "enclosure"
        return texts


# ================================================== 1. enclosure soundness
SOUNDNESS_CASES = [
    # id, n, m, d, mask, options, bound of the entries, d_v
    ("20x20-d3-causal-T0.7-surd", 20, 20, 3, "causal", {"temperature": "0.7"}, 9.0, 4),
    ("45x45-d7-none-T2-surd", 45, 45, 7, "none", {"temperature": "2"}, 9.0, 5),
    ("70x70-d16-causal-scale0.3", 70, 70, 16, "causal", {"scale": "0.3"}, 3.0, 3),
    ("33x50-d10-none-T0.7-deep", 33, 50, 10, "none", {"temperature": "0.7"}, 99.0, 6),
    ("64x64-d5-causal-scale-1/sqrt(3)-T2", 64, 64, 5, "causal",
     {"scale": "1/sqrt(3)", "temperature": "2"}, 5.0, 7),
    ("30x30-d12-none-T3/7-tiny", 30, 30, 12, "none", {"temperature": "3/7"}, 0.05, 2),
    ("40x40-d3-causal-T-sqrt(2)", 40, 40, 3, "causal", {"temperature": "sqrt(2)"}, 9.0, 3),
]


def _case_factor(d: int, options: dict) -> mpmath.mpf:
    if options.get("temperature") == "sqrt(2)":
        with mpmath.workdps(DPS):
            return 1 / mpmath.sqrt(d) / mpmath.sqrt(2)
    temperature = Fraction(options.get("temperature", "1"))
    scale = options.get("scale")
    if scale == "1/sqrt(3)":
        return mp_factor(surd_scale=3, temperature=temperature)
    if scale is not None:
        return mp_factor(scale=Fraction(scale), temperature=temperature)
    return mp_factor(d_k=d, temperature=temperature)


@pytest.mark.parametrize("case", SOUNDNESS_CASES, ids=[c[0] for c in SOUNDNESS_CASES])
def test_enclosure_contains_true_values(case):
    name, n, m, d, mask, options, bound, d_v = case
    rng = random.Random(name)
    Q, K, V = random_matrix(rng, n, d, bound), random_matrix(rng, m, d, bound), \
        random_matrix(rng, m, d_v, 9.0)
    weights, output = build({"Q": Q, "K": K, "V": V}, {"mask": mask, **options})
    allowed = [[mask == "none" or j <= i for j in range(m)] for i in range(n)]
    numerators, denominator = scores_from_qk(Q, K)
    ref = Reference(numerators, denominator, _case_factor(d, options), allowed, V)
    enclosure = weights.enclosure()
    assert enclosure is not None
    assert_contains(enclosure, ref.weights, [True] * n, "weights")
    out = output.enclosure()
    assert out is not None
    v = np.array([[float(frac(x)) for x in row] for row in V])
    assert_contains(out, ref.output, [True] * n, "output",
                    magnitudes=np.abs(enclosure.mid) @ np.abs(v))
    # masked weights are exactly zero, with a zero radius
    masked = ~np.array(allowed)
    assert (enclosure.mid[masked] == 0).all() and (enclosure.rad[masked] == 0).all()


@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_enclosure_contains_true_values_random(data):
    """Small random heads with random 0/1 masks (fully masked rows: zeros)."""
    n = data.draw(st.integers(1, 9), label="n")
    m = data.draw(st.integers(1, 9), label="m")
    d = data.draw(st.integers(1, 6), label="d")
    entry = st.builds(lambda k, x: f"{Fraction(x, 10 ** k)}", st.integers(0, 3),
                      st.integers(-2000, 2000))
    Q = data.draw(st.lists(st.lists(entry, min_size=d, max_size=d), min_size=n, max_size=n))
    K = data.draw(st.lists(st.lists(entry, min_size=d, max_size=d), min_size=m, max_size=m))
    V = data.draw(st.lists(st.lists(entry, min_size=2, max_size=2), min_size=m, max_size=m))
    keep = data.draw(st.lists(st.lists(st.booleans(), min_size=m, max_size=m),
                              min_size=n, max_size=n))
    keep[0][0] = True      # a 0/1 mask needs a 1 (all zeros would read as additive)
    temperature = data.draw(st.sampled_from(["1", "0.7", "2", "3/7"]))
    scale = data.draw(st.sampled_from([None, "0.3", "5/4"]))
    options = {"mask": [[int(b) for b in row] for row in keep], "fully_masked": "zeros",
               "temperature": temperature}
    if scale is not None:
        options["scale"] = scale
    weights, output = build({"Q": Q, "K": K, "V": V}, options)
    numerators, denominator = scores_from_qk(Q, K)
    factor = mp_factor(d_k=d, scale=None if scale is None else Fraction(scale),
                       temperature=Fraction(temperature))
    ref = Reference(numerators, denominator, factor, keep, V)
    open_rows = [any(row) for row in keep]
    enclosure = weights.enclosure()
    assert_contains(enclosure, [r or [] for r in ref.weights], open_rows, "weights")
    v = np.array([[float(frac(x)) for x in row] for row in V])
    assert_contains(output.enclosure(), [r or [] for r in ref.output], open_rows, "output",
                    magnitudes=np.abs(enclosure.mid) @ np.abs(v))



@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_enclosure_with_long_decimals_contains_true_values(data):
    """Entries with up to 18 decimals: numerators past 2**52, so the scores and
    V are rounded to doubles with a bound (the inexact path) - still enclosed."""
    n = data.draw(st.integers(1, 8), label="n")
    d = data.draw(st.integers(1, 5), label="d")
    entry = st.integers(0, 18).flatmap(       # |entry| <= 2 with k decimals
        lambda k: st.integers(-2 * 10 ** k, 2 * 10 ** k).map(lambda x: str(Fraction(x, 10 ** k))))
    Q = data.draw(st.lists(st.lists(entry, min_size=d, max_size=d), min_size=n, max_size=n))
    K = data.draw(st.lists(st.lists(entry, min_size=d, max_size=d), min_size=n, max_size=n))
    V = data.draw(st.lists(st.lists(entry, min_size=2, max_size=2), min_size=n, max_size=n))
    temperature = data.draw(st.sampled_from(["1", "0.7", "3/7"]))
    weights, output = build({"Q": Q, "K": K, "V": V},
                            {"mask": "causal", "temperature": temperature})
    numerators, denominator = scores_from_qk(Q, K)
    allowed = [[j <= i for j in range(n)] for i in range(n)]
    ref = Reference(numerators, denominator,
                    mp_factor(d_k=d, temperature=Fraction(temperature)), allowed, V)
    enclosure = weights.enclosure()
    assert enclosure is not None
    assert_contains(enclosure, ref.weights, [True] * n, "weights")
    v = np.array([[float(frac(x)) for x in row] for row in V])
    assert_contains(output.enclosure(), ref.output, [True] * n, "output",
                    magnitudes=np.abs(enclosure.mid) @ np.abs(v))

# ============================================= 2. decimals: enclosure path
@pytest.fixture(scope="module")
def head70():
    rng = random.Random(2024)
    n, d, d_v = 70, 6, 64
    Q, K, V = random_matrix(rng, n, d, 3.0), random_matrix(rng, n, d, 3.0), \
        random_matrix(rng, n, d_v, 5.0)
    weights, output = build({"Q": Q, "K": K, "V": V}, {"mask": "causal", "temperature": "0.7"})
    numerators, denominator = scores_from_qk(Q, K)
    allowed = [[j <= i for j in range(n)] for i in range(n)]
    ref = Reference(numerators, denominator, mp_factor(d_k=d, temperature=Fraction(7, 10)),
                    allowed, V)
    return weights, output, ref


FORMATS = [NumberFormat(digits=6), NumberFormat(places=4),
           NumberFormat(digits=3, rounding=Rounding.HALF_EVEN, locale="pl")]


@pytest.mark.parametrize("fmt", FORMATS, ids=["digits6", "places4", "digits3-half-even-pl"])
@pytest.mark.parametrize("which", ["weights", "output"])
def test_format_block_enclosure_matches_ball_path_and_mpmath(monkeypatch, head70, fmt, which):
    weights, output, ref = head70
    grid, values = (weights, ref.weights) if which == "weights" else (output, ref.output)
    n, width = grid.shape
    blocks = [(list(range(n)), list(range(width)))]
    # an off-origin sub-block, still past ENCLOSURE_MIN_ENTRIES
    blocks.append((list(range(3, n)), list(range(width - 62, width))) if which == "weights"
                  else (list(range(4, n)), list(range(1, width))))
    spy = Spy(monkeypatch)
    for rows, columns in blocks:
        assert len(rows) * len(columns) >= formatting.ENCLOSURE_MIN_ENTRIES
        fast, path = spy.format(fmt, grid, rows, columns)
        assert path == "enclosure"
        assert fast == spy.ball_path(fmt, grid, rows, columns)
        assert fast == expected_block(values, fmt, rows, columns)


# ======================================================= 3. exact ties
@pytest.mark.parametrize("equal", ["Q-zero", "K-rows-equal"])
def test_exact_ties_are_never_decided_by_floats(monkeypatch, equal):
    rng = random.Random(equal)
    n, d, d_v = 70, 3, 64
    if equal == "Q-zero":
        Q = [["0"] * d for _ in range(n)]
        K = random_matrix(rng, n, d, 3.0)
    else:
        Q = random_matrix(rng, n, d, 3.0)
        K = [["0.3", "-1.7", "2.25"]] * n
    V = [[str(rng.randint(-9, 9)) for _ in range(d_v)] for _ in range(n)]
    weights, output = build({"Q": Q, "K": K, "V": V}, {"mask": "causal"})
    rows, columns = list(range(n)), list(range(d_v))
    spy = Spy(monkeypatch)
    for rule, eighth, sixteenth in ((Rounding.HALF_UP, "0.13", "0.063"),
                                    (Rounding.HALF_EVEN, "0.12", "0.062")):
        fmt = NumberFormat(digits=2, rounding=rule)
        got = spy.enclosure_path(fmt, weights, rows, rows)
        assert got == spy.ball_path(fmt, weights, rows, rows)
        # row 8 (count 8): exactly 1/8 = 0.125; count 16: 0.0625; count 40: 0.025
        assert got[7][:8] == (eighth,) * 8 and got[7][8] == "0"
        assert got[15][0] == sixteenth and got[39][0] == "0.025" and got[0][0] == "1.0"
        expected = tuple(tuple(ref_text(Fraction(1, i + 1) if j <= i else Fraction(0),
                                        digits=2, rule=rule) for j in rows) for i in rows)
        assert got == expected
    # Outputs: exact means of the first i+1 value rows, many of them exact halves.
    means = [[Fraction(sum(int(V[j][k]) for j in range(i + 1)), i + 1) for k in range(d_v)]
             for i in range(n)]
    for places in (1, 2):
        ties = sum((mean * 10 ** places).denominator == 2 for row in means for mean in row)
        assert ties > 50, "the test needs many exact halfway outputs"
    for fmt in (NumberFormat(places=1), NumberFormat(places=1, rounding=Rounding.HALF_EVEN),
                NumberFormat(places=2), NumberFormat(places=2, rounding=Rounding.HALF_EVEN),
                NumberFormat(digits=2), NumberFormat(digits=2, rounding=Rounding.HALF_EVEN)):
        expected = expected_block(means, fmt)
        assert spy.enclosure_path(fmt, output, rows, columns) == expected
        assert spy.ball_path(fmt, output, rows, columns) == expected
    # one half-way output checked by hand: row 2 is the mean of two integers
    a, b = int(V[0][0]), int(V[1][0])
    if (a + b) % 2:
        half = Fraction(a + b, 2)
        up = NumberFormat(places=0).format_block(output, rows, columns)[1][0]
        assert up == str(int(half + (Fraction(1, 2) if half > 0 else Fraction(-1, 2))))


# Near ties: a row of 8 equal scores with one moved by delta. The weights are
# 1/8 + 7 delta / 64 and 1/8 - delta / 64: within a few ulps of the halfway
# point 0.125 (digits=2), on a known side of it, so half-up and half-even must
# both round by the side - a float that lands on 0.125 must not decide them.
NEAR_TIES = ["0", "0.00000000000001", "-0.00000000000001", "0.00000000000003",
             "-0.00000000000007", "0.0000000000001", "-0.0000000000005", "0.000000000001",
             "-0.00000000001", "0.0000000001", "-0.000000001", "0.00000001"]


def test_near_ties_are_decided_by_their_side(monkeypatch):
    rng = random.Random(33)
    n = 70
    S = []
    for i in range(n):
        if i < 2 * len(NEAR_TIES):
            delta = NEAR_TIES[i % len(NEAR_TIES)]
            row = ["-inf"] * n
            start = i % (n - 8)
            for j in range(start, start + 8):
                row[j] = "0"
            row[start + (i // len(NEAR_TIES)) * 7] = delta   # first or last of the eight
        else:
            row = [decimal_text(rng, 4.0) for _ in range(n)]
        S.append(row)
    weights, _ = build({"scores": S}, {"scale": "1"})
    numerators, denominator = scores_from_texts(S)
    ref = Reference(numerators, denominator, mpmath.mpf(1))
    # the reference really is on the side the construction says
    for i, delta in enumerate(NEAR_TIES):
        start = i % (n - 8)
        moved = ref.weights[i][start]
        if delta != "0":
            assert (moved > mpmath.mpf(0.125)) == (Fraction(delta) > 0)
    rows = list(range(n))
    spy = Spy(monkeypatch)
    for fmt in (NumberFormat(digits=2), NumberFormat(digits=2, rounding=Rounding.HALF_EVEN),
                NumberFormat(places=2, locale="pl"),
                NumberFormat(places=2, rounding=Rounding.HALF_EVEN)):
        expected = expected_block(ref.weights, fmt)
        assert spy.enclosure_path(fmt, weights, rows, rows) == expected
        assert spy.ball_path(fmt, weights, rows, rows) == expected
    # by hand: delta = +1e-14 in row 2 -> the moved weight is above 0.125, the rest below
    up = NumberFormat(digits=2).format_block(weights, rows, rows)
    even = NumberFormat(digits=2, rounding=Rounding.HALF_EVEN).format_block(weights, rows, rows)
    assert up[1][1] == even[1][1] == "0.13"
    assert up[1][2:9] == even[1][2:9] == ("0.12",) * 7
    assert up[0][0:8] == ("0.13",) * 8 and even[0][0:8] == ("0.12",) * 8   # delta 0: ties


# ============================================================ 4. fallbacks
def test_sum_normalisation_has_no_enclosure(monkeypatch):
    rng = random.Random(4)
    n, d = 70, 3
    Q = [[decimal_text(rng, 2.0).lstrip("-") for _ in range(d)] for _ in range(n)]
    K = [[decimal_text(rng, 2.0).lstrip("-") for _ in range(d)] for _ in range(n)]
    Q[0] = ["1.5", "0.25", "1.125"]
    K[0] = ["1.5", "0.25", "1.125"]
    V = random_matrix(rng, n, 64, 5.0)
    weights, output = build({"Q": Q, "K": K, "V": V},
                            {"mask": "causal", "normalisation": "sum"})
    assert weights.enclosure() is None and output.enclosure() is None
    numerators, _ = scores_from_qk(Q, K)
    exact = [[Fraction(numerators[i][j], sum(numerators[i][:i + 1])) if j <= i else Fraction(0)
              for j in range(n)] for i in range(n)]
    v = [[frac(x) for x in row] for row in V]
    out = [[sum((exact[i][j] * v[j][k] for j in range(n)), Fraction(0)) for k in range(64)]
           for i in range(n)]
    spy = Spy(monkeypatch)
    for fmt in (NumberFormat(digits=6), NumberFormat(places=3, rounding=Rounding.HALF_EVEN)):
        assert spy.format(fmt, weights, range(n), range(n)) == (expected_block(exact, fmt),
                                                                "balls")
        assert spy.format(fmt, output, range(n), range(64)) == (expected_block(out, fmt),
                                                                "balls")


@pytest.mark.parametrize("kind", ["18-digit-numerators", "product-too-large", "huge-V"])
def test_large_numerators_take_the_inexact_enclosure(monkeypatch, kind):
    """Numerators past 2**52 (or products past it) are rounded to doubles with a
    bound instead of exactly; the enclosure must still hold and decide."""
    rng = random.Random(kind)
    n, d, d_v = 70, 4, 64
    if kind == "18-digit-numerators":       # Qn >= 2**52: rounded on conversion
        Q, K = random_matrix(rng, n, d, 1.0, 18), random_matrix(rng, n, d, 1.0, 2)
    elif kind == "product-too-large":       # each fits, d * max|Qn| * max|Kn| > 2**52
        Q, K = random_matrix(rng, n, d, 1.0, 9), random_matrix(rng, n, d, 1.0, 9)
    else:
        Q, K = random_matrix(rng, n, d, 2.0), random_matrix(rng, n, d, 2.0)
    if kind == "huge-V":                    # like 123456789.123456789
        V = [[f"{'-' if rng.random() < 0.5 else ''}{rng.randint(1, 999999999)}."
              f"{rng.randint(0, 999999999):09d}" for _ in range(d_v)] for _ in range(n)]
    else:
        V = random_matrix(rng, n, d_v, 5.0)
    weights, output = build({"Q": Q, "K": K, "V": V}, {"mask": "causal"})
    numerators, denominator = scores_from_qk(Q, K)
    allowed = [[j <= i for j in range(n)] for i in range(n)]
    ref = Reference(numerators, denominator, mp_factor(d_k=d), allowed, V)
    enclosure, out = weights.enclosure(), output.enclosure()
    assert enclosure is not None and out is not None
    assert_contains(enclosure, ref.weights, [True] * n, "weights")
    v = np.array([[float(frac(x)) for x in row] for row in V])
    assert_contains(out, ref.output, [True] * n, "output",
                    magnitudes=np.abs(enclosure.mid) @ np.abs(v))
    rows = list(range(n))
    spy = Spy(monkeypatch)
    for fmt in (NumberFormat(digits=6), NumberFormat(places=4)):
        got, path = spy.format(fmt, weights, rows, rows)
        assert got == expected_block(ref.weights, fmt) and path == "enclosure"
        balls = spy.ball_calls
        got, path = spy.format(fmt, output, rows, list(range(d_v)))
        assert got == expected_block(ref.output, fmt) and path == "enclosure"
        # Outputs near 1e9: 6 digits round to thousands (negative places, which
        # the double test does not take on), and 4 places need a bound below
        # 1e-5, about the double's own: the enclosure leaves them open and the
        # balls decide them, a row at a time (row 1, a rational row, exactly).
        assert (spy.ball_calls - balls > n // 2) == (kind == "huge-V")


def test_numerators_beyond_double_range_fall_back(monkeypatch):
    """A 160-digit numerator cannot even be a double: the ball path decides."""
    rng = random.Random(160)
    n, d, d_v = 70, 2, 64
    Q = random_matrix(rng, n, d, 1.0, 2)
    Q[5][1] = "0." + "3" * 159 + "7"
    K, V = random_matrix(rng, n, d, 1.0, 2), random_matrix(rng, n, d_v, 5.0)
    weights, output = build({"Q": Q, "K": K, "V": V}, {"mask": "causal"})
    assert weights.enclosure() is None and output.enclosure() is None
    numerators, denominator = scores_from_qk(Q, K)
    allowed = [[j <= i for j in range(n)] for i in range(n)]
    ref = Reference(numerators, denominator, mp_factor(d_k=d), allowed, V)
    spy = Spy(monkeypatch)
    fmt = NumberFormat(digits=6)
    rows = list(range(n))
    assert spy.format(fmt, weights, rows, rows) == (expected_block(ref.weights, fmt), "balls")
    assert spy.format(fmt, output, rows, list(range(d_v))) == \
        (expected_block(ref.output, fmt), "balls")


def test_truncation_takes_the_enclosure_and_many_digits_the_balls(monkeypatch, head70):
    weights, output, ref = head70
    n = weights.shape[0]
    spy = Spy(monkeypatch)
    fmt = NumberFormat(digits=4, rounding=Rounding.TRUNCATE)
    assert spy.format(fmt, weights, range(n), range(n)) == (expected_block(ref.weights, fmt),
                                                            "enclosure")
    assert spy.ball_path(fmt, weights, range(n), range(n)) == expected_block(ref.weights, fmt)
    fmt = NumberFormat(places=3, rounding=Rounding.TRUNCATE, locale="cs")
    assert spy.format(fmt, output, range(n), range(64)) == (expected_block(ref.output, fmt),
                                                            "enclosure")
    # more digits than a double can decide (ENCLOSURE_MAX_DIGITS): the ball path
    calls = spy.enclosure_calls
    for digits in (16, 20):
        fmt = NumberFormat(digits=digits)
        assert spy.format(fmt, weights, range(n), range(n)) == \
            (expected_block(ref.weights, fmt), "balls")
    assert spy.enclosure_calls == calls


@pytest.mark.parametrize("policy", ["nan", "zeros"])
def test_fully_masked_rows(monkeypatch, policy):
    rng = random.Random(policy)
    n, d, d_v = 70, 5, 64
    dead = {3, 10, 50, 69}
    keep = [[0 if i in dead else int(j <= i or rng.random() < 0.3) for j in range(n)]
            for i in range(n)]
    Q, K, V = random_matrix(rng, n, d, 3.0), random_matrix(rng, n, d, 3.0), \
        random_matrix(rng, n, d_v, 5.0)
    weights, output = build({"Q": Q, "K": K, "V": V},
                            {"mask": keep, "fully_masked": policy, "temperature": "2"})
    numerators, denominator = scores_from_qk(Q, K)
    ref = Reference(numerators, denominator, mp_factor(d_k=d, temperature=Fraction(2)),
                    [[bool(x) for x in row] for row in keep], V)
    live = [i not in dead for i in range(n)]
    enclosure, out = weights.enclosure(), output.enclosure()
    assert enclosure.known.tolist() == live and out.known.tolist() == live
    assert_contains(enclosure, [r or [] for r in ref.weights], live, "weights")
    if policy == "zeros":
        ref_w = [[Fraction(0)] * n if r is None else r for r in ref.weights]
        ref_o = [[Fraction(0)] * d_v if r is None else r for r in ref.output]
    else:
        ref_w, ref_o = ref.weights, ref.output     # None rows: "nan"
    rows, columns = list(range(n)), list(range(d_v))
    spy = Spy(monkeypatch)
    for fmt in (NumberFormat(digits=6), NumberFormat(places=4, locale="ru")):
        filler = "nan" if policy == "nan" else ref_text(Fraction(0), digits=fmt.digits,
                                                        places=fmt.places,
                                                        separator=fmt.separator)
        expected_w, expected_o = expected_block(ref_w, fmt), expected_block(ref_o, fmt)
        for i in dead:
            assert expected_w[i] == (filler,) * n and expected_o[i] == (filler,) * d_v
        got_w = spy.enclosure_path(fmt, weights, rows, rows)
        got_o = spy.enclosure_path(fmt, output, rows, columns)
        assert got_w == expected_w and got_o == expected_o
        assert spy.ball_path(fmt, weights, rows, rows) == expected_w
    # (the ball path of a nan output block goes entry by entry: slow, so once)
    fmt = NumberFormat(digits=6)
    assert spy.ball_path(fmt, output, rows, columns) == expected_block(ref_o, fmt)


# ==================================================== 5. scores with holes
def test_scores_with_minus_inf_holes(monkeypatch):
    rng = random.Random(5)
    n, d_v = 70, 64
    S = [[("-inf" if rng.random() < 0.25 else decimal_text(rng, 6.0)) for _ in range(n)]
         for _ in range(n)]
    for i in range(n):
        S[i][i] = decimal_text(rng, 6.0)      # every row keeps one score
    S[5] = ["-inf"] * n
    S[5][17] = "2.5"                          # a lone score: weight exactly 1
    V = random_matrix(rng, n, d_v, 5.0)
    weights, output = build({"scores": S, "V": V}, {"d_k": 7, "temperature": "0.7"})
    numerators, denominator = scores_from_texts(S)
    ref = Reference(numerators, denominator, mp_factor(d_k=7, temperature=Fraction(7, 10)),
                    None, V)
    enclosure = weights.enclosure()
    assert enclosure is not None
    assert_contains(enclosure, ref.weights, [True] * n, "weights")
    holes = np.array([[x == "-inf" for x in row] for row in S])
    assert (enclosure.mid[holes] == 0).all() and (enclosure.rad[holes] == 0).all()
    v = np.array([[float(frac(x)) for x in row] for row in V])
    assert_contains(output.enclosure(), ref.output, [True] * n, "output",
                    magnitudes=np.abs(enclosure.mid) @ np.abs(v))
    rows, columns = list(range(n)), list(range(d_v))
    spy = Spy(monkeypatch)
    for fmt in (NumberFormat(digits=6), NumberFormat(places=4),
                NumberFormat(digits=3, rounding=Rounding.HALF_EVEN, locale="pl")):
        got_w, path_w = spy.format(fmt, weights, rows, rows)
        got_o, path_o = spy.format(fmt, output, rows, columns)
        assert path_w == path_o == "enclosure"
        assert got_w == spy.ball_path(fmt, weights, rows, rows)
        assert got_o == spy.ball_path(fmt, output, rows, columns)
        assert got_w == expected_block(ref.weights, fmt)
        assert got_o == expected_block(ref.output, fmt)


# ================================================= 6. scientific notation
def _gap_for(weight: str) -> str:
    """g (13 places) with 1 / (1 + e^g) close to ``weight``: the row [0, -g]."""
    with mpmath.workdps(DPS):
        w = mpmath.mpf(weight)
        # 13 places keep every numerator of the score matrix below 2**52, so the
        # enclosure path is taken (more would send the block to the ball path).
        return str(Decimal(mpmath.nstr(mpmath.log(1 / w - 1), 30)).quantize(Decimal("1e-13")))


# (target weight, the text it should print at 6 digits)
BOUNDARY = [
    ("1.0000034e-6", "0.00000100000"),   # positional, exactly digits + 7 characters
    ("9.9999981e-7", "0.00000100000"),   # rounds up to 1.00000e-6: positional again
    ("9.9999949e-7", "9.99999e-07"),     # digits + 8 characters: scientific
    ("9.999934e-7", "9.99993e-07"),
    ("1.2345678e-12", "1.23457e-12"),
    ("1.2345678e-5", "0.0000123457"),
    ("9.9999951e-6", "0.0000100000"),    # carry to 1e-5
    ("9.9999949e-6", "0.00000999999"),   # 13 characters: positional
    ("5.4321e-9", "5.43210e-09"),
    ("3.3333333e-7", "3.33333e-07"),
]


def test_scientific_notation_rule(monkeypatch):
    rng = random.Random(6)
    n = 70
    S = []
    for i in range(n):
        if i < len(BOUNDARY):
            S.append(["0", "-" + _gap_for(BOUNDARY[i][0])] + ["-inf"] * (n - 2))
        else:   # graded gaps: weights from about 1e-5 down to 1e-13
            S.append(["0"] + [f"-{11 + 19 * j / n + rng.random() * 0.3:.6f}"
                              for j in range(1, n)])
    weights, _ = build({"scores": S}, {"scale": "1"})
    numerators, denominator = scores_from_texts(S)
    ref = Reference(numerators, denominator, mpmath.mpf(1))
    rows = list(range(n))
    fmt = NumberFormat(digits=6)
    for i, (_, text) in enumerate(BOUNDARY):   # the construction hit each boundary case
        assert ref_text(ref.weights[i][1], digits=6) == text
    spy = Spy(monkeypatch)
    got, path = spy.format(fmt, weights, rows, rows)
    assert path == "enclosure"
    for i, (_, text) in enumerate(BOUNDARY):
        assert got[i][1] == text, f"row {i + 1}"
    assert got == spy.ball_path(fmt, weights, rows, rows)
    assert got == expected_block(ref.weights, fmt)
    texts = [t for row in got[len(BOUNDARY):] for t in row[1:]]
    assert any("e-" in t for t in texts) and any(len(t) == 13 and "e" not in t for t in texts)
    for other in (NumberFormat(digits=2), NumberFormat(digits=3, locale="uk"),
                  NumberFormat(places=4)):
        got, path = spy.format(other, weights, rows, rows)
        assert path == "enclosure"
        assert got == spy.ball_path(other, weights, rows, rows)
        assert got == expected_block(ref.weights, other)


# ============================== 7. enclosure_roundings by hand and against Fractions
def enclose(mids, rads=None, known=None, neg_inf=None) -> Enclosure:
    mid = np.array(mids, dtype=np.float64)
    rad = np.full(mid.shape, 1e-15) if rads is None else np.array(rads, dtype=np.float64)
    k = np.ones(mid.shape[0], dtype=bool) if known is None else np.array(known, dtype=bool)
    return Enclosure(mid, rad, k, None if neg_inf is None else np.array(neg_inf, dtype=bool))


def proved(enclosure: Enclosure, places, digits=None, truncate=False) -> list[list]:
    """``enclosure_roundings`` as rows of (scaled, places) where proved, else None."""
    r = enclosure_roundings(enclosure, places, digits, truncate)
    assert r.scaled.shape == r.places.shape == r.proved.shape == enclosure.mid.shape
    return [[(int(v), int(p)) if ok else None for v, p, ok in zip(*row)]
            for row in zip(r.scaled, r.places, r.proved)]


def test_roundings_straddling_a_midpoint_are_open():
    # 0.1235 is the 3-digit midpoint between 0.123 and 0.124
    enclosure = enclose([[0.12349999, 0.12349, 0.1235, 0.5], [0.25, 0.75, 0.2, 0.3]],
                        [[1e-7, 1e-15, 1e-6, 0.0], [1e-15, 1e-15, 1e-15, 1e-15]])
    assert proved(enclosure, None, 3) == [[None, (123, 3), None, (500, 3)],
                                          [(250, 3), (750, 3), (200, 3), (300, 3)]]
    # just clear of the midpoint, with a radius that does not reach it: decided
    assert proved(enclose([[0.12350001, 0.12349999]], [[1e-12, 1e-12]]), None, 3) == \
        [[(124, 3), (123, 3)]]
    # 0.125 and -0.375 are doubles: true halfway cases, never decided by floats
    assert proved(enclose([[0.125, -0.375]], [[0.0, 0.0]]), None, 2) == [[None, None]]
    assert proved(enclose([[0.125, 2.5]], [[0.0, 0.0]]), 2) == [[None, (250, 2)]]
    assert proved(enclose([[0.5, -2.5]], [[0.0, 0.0]]), 0) == [[None, None]]


def test_truncation_is_open_beside_an_integer():
    # 0.12 is the double 0.11999999999999999556: it truncates to 0.11, not to 0.12,
    # although 0.12 * 100 is 12.0 in floating point
    assert Fraction(0.12) * 100 < 12
    enclosure = enclose([[0.125, 0.12, -0.129, 0.1299999]], [[0.0] * 4])
    assert proved(enclosure, 2, truncate=True) == [[(12, 2), None, (-12, 2), (12, 2)]]
    assert proved(enclose([[0.125]], [[0.0]]), None, 2, truncate=True) == [[(12, 2)]]
    # truncation never carries to the next power of ten
    assert proved(enclose([[0.99996, -9.99996]]), None, 3, truncate=True) == \
        [[(999, 3), (-999, 2)]]


def test_roundings_up_to_a_power_of_ten():
    # 0.0100, 1.00, 10.0, -0.0100, 0.00000100: the same number with one place fewer
    assert proved(enclose([[0.0099996, 0.99996, 9.9996, -0.0099996, 9.99996e-7]]), None, 3) \
        == [[(100, 4), (100, 2), (100, 1), (-100, 4), (100, 8)]]
    assert proved(enclose([[0.99996, 0.0099996]]), None, 4) == [[(1000, 3), (1000, 5)]]
    # 999999.6 at 6 digits is 1000000: no place left to drop, decided exactly
    assert proved(enclose([[999999.6]]), None, 6) == [[None]]


def test_roundings_negative_tiny_zero_and_places_win():
    assert proved(enclose([[-1e-5, -0.004999, -0.005001, 1e-9]]), 2) == \
        [[(0, 2), (0, 2), (-1, 2), (0, 2)]]
    r = enclosure_roundings(enclose([[0.0, 0.0, 0.0]], [[0.0, 0.0, 1e-20]]), None, 4)
    assert r.zero.tolist() == [[True, True, False]] and not r.proved.any()
    enclosure = enclose([[0.123456, -2.71828, 1.5e-9]])
    assert proved(enclosure, 2, 3) == [[(12, 2), (-272, 2), (0, 2)]]       # places win
    assert proved(enclosure, None, 3) == [[(123, 3), (-272, 2), (150, 11)]]


def test_roundings_of_unknown_rows_minus_inf_and_out_of_range():
    enclosure = enclose([[0.3, 0.4], [0.5, 0.0]], [[0.0, 0.0], [0.0, 0.0]],
                        known=[True, False], neg_inf=[[False, True], [False, False]])
    assert proved(enclosure, None, 3) == [[(300, 3), None], [None, None]]
    assert not enclosure_roundings(enclosure, None, 3).zero.any()   # an unknown row's 0
    assert proved(enclose([[123456.0, 123.456]]), None, 3) == [[None, (123, 0)]]
    assert proved(enclose([[1e17, 3.0]]), 0) == [[None, (3, 0)]]      # past 2**52
    assert proved(enclose([[1e-5]]), 300) == [[None]]                 # no such power
    assert proved(enclose([[0.25]], [[float("inf")]]), 1) == [[None]]
    with pytest.raises(ValueError):
        enclosure_roundings(enclose([[0.25]]), None, None)


def _fraction_rounding(value: Fraction, places: int | None, digits: int | None,
                       rule: str) -> tuple[int, int, bool]:
    """(signed value * 10**p rounded under ``rule``, p, exactly halfway) with Fractions:
    p = ``places``, or ``digits`` significant digits (one place fewer when rounding
    reaches the next power of ten)."""
    magnitude = abs(value)
    p = places if places is not None else digits - 1 - _exponent(magnitude, False)
    scaled = magnitude * Fraction(10) ** p
    whole = scaled.numerator // scaled.denominator
    rest = scaled - whole
    if rule == "truncate":
        result = whole
    elif rule == "half-up":
        result = whole + (rest >= Fraction(1, 2))
    else:
        result = whole + (rest > Fraction(1, 2) or (rest == Fraction(1, 2) and whole % 2))
    if places is None and result == 10 ** digits:
        result, p = result // 10, p - 1
    return (-result if value < 0 else result), p, rest == Fraction(1, 2)


def _values_at_and_beside_boundaries(rng: random.Random, count: int,
                                     places: int | None) -> tuple:
    """Doubles at rounding boundaries and a few ulps beside them, with radii from 0 to
    far wider than the gap: odd / 2**(p+1) (exactly halfway at p places, mostly at
    ``places``), the double nearest a decimal midpoint, values a hair under a power of
    ten, and random ones. Also, for each, the places it is exactly halfway at, or None."""
    mids, rads, ties = [], [], []
    for _ in range(count):
        kind = rng.randrange(4)
        p = places if places is not None and rng.random() < 0.7 else rng.randint(0, 6)
        if kind == 0:
            x = rng.randrange(1, 2 * 10 ** rng.randint(1, 5), 2) / 2 ** (p + 1)
        elif kind == 1:
            x = float(Fraction(2 * rng.randint(0, 10 ** 5) + 1, 2 * 10 ** p))
        elif kind == 2:
            x = float(10 ** rng.randint(-8, 5)) * (1 - 10.0 ** -rng.randint(3, 15))
        else:
            x = rng.uniform(0.1, 10) * 10.0 ** rng.randint(-12, 6)
        tie = kind == 0
        for _ in range(rng.choice([0, 0, 1, 2, 5])):     # a few ulps to one side
            x, tie = float(np.nextafter(x, rng.choice([-np.inf, np.inf]))), False
        x = -x if rng.random() < 0.5 else x
        rad = rng.choice([0.0, 0.0, abs(x) * 2.0 ** -53, abs(x) * 1e-15, abs(x) * 1e-9])
        mids.append(x)
        rads.append(rad)
        ties.append(p if tie and rad == 0 else None)
    return mids, rads, ties


@pytest.mark.parametrize("places, digits", [(0, None), (1, None), (2, None), (3, None),
                                            (5, None), (None, 1), (None, 2), (None, 3),
                                            (None, 6)])
@pytest.mark.parametrize("truncate", [False, True], ids=["nearest", "truncate"])
def test_roundings_against_fractions_at_and_beside_boundaries(places, digits, truncate):
    """Every proved entry: both ends of its interval, as exact Fractions, round to the
    proved number under every rule it stands for (half up and half even agree: no end
    is exactly halfway, and no midpoint lies between them); and an exact tie at the
    places asked is never proved under the half rules."""
    rng = random.Random(f"{places}-{digits}-{truncate}")
    mids, rads, ties = _values_at_and_beside_boundaries(rng, examples(6000, 5), places)
    r = enclosure_roundings(enclose([mids], [rads]), places, digits, truncate)
    rules = ("truncate",) if truncate else ("half-up", "half-even")
    for k, (mid, rad) in enumerate(zip(mids, rads)):
        if places is not None and ties[k] == places and not truncate:
            assert not r.proved[0, k], (mid, places)
        if not r.proved[0, k]:
            continue
        got = (int(r.scaled[0, k]), int(r.places[0, k]))
        for end in (Fraction(mid) - Fraction(rad), Fraction(mid) + Fraction(rad)):
            for rule in rules:
                value, p, halfway = _fraction_rounding(end, places, digits, rule)
                assert (value, p) == got, (mid, rad, places, digits, rule)
                assert truncate or not halfway, (mid, rad, places, digits)
    decided = int(r.proved.sum())
    assert 0.3 * len(mids) < decided < len(mids), decided    # both outcomes are exercised
    if places is not None and not truncate:
        assert sum(t == places for t in ties) > 10           # exact ties were offered


# ============================= 8. a large rational block, at and beside boundaries
def _boundary_values() -> list[Fraction]:
    """x.xxxxx5 exactly (a tie at 6 significant digits and at 5 places), 1e-30 and
    1e-12 on either side (the floats cannot or can decide them), both signs; values
    that round up to a power of ten, near the scientific boundary, that round to
    zero from below; and zero."""
    values: list[Fraction] = [Fraction(0)]
    for tie in (Fraction(1234565, 10 ** 6), Fraction(9999995, 10 ** 6), Fraction(5, 10 ** 6),
                Fraction(-4735, 10 ** 5) / 2, Fraction(123455, 10 ** 5), Fraction(25, 10),
                Fraction(125, 1000)):
        for offset in (0, Fraction(1, 10 ** 30), -Fraction(1, 10 ** 30),
                       Fraction(1, 10 ** 12), -Fraction(1, 10 ** 12)):
            values += [tie + offset, -(tie + offset)]
    values += [Fraction(99996, 10 ** 7), Fraction(9999996, 10 ** 6), Fraction(15, 10 ** 7),
               Fraction(95, 10 ** 8), Fraction(-123456789, 10 ** 17), Fraction(-4, 10 ** 4),
               Fraction(-1, 10 ** 9), -Fraction(1, 10 ** 30), Fraction(1, 3)]
    return values


@pytest.mark.parametrize("fmt", [
    NumberFormat(digits=6), NumberFormat(digits=6, rounding=Rounding.HALF_EVEN),
    NumberFormat(digits=3, locale="pl"), NumberFormat(digits=2, rounding=Rounding.TRUNCATE),
    NumberFormat(places=5), NumberFormat(places=5, rounding=Rounding.HALF_EVEN, locale="cs"),
    NumberFormat(places=3, rounding=Rounding.TRUNCATE), NumberFormat(places=0),
    NumberFormat(digits=4, places=2, rounding=Rounding.HALF_EVEN)],
    ids=["digits6", "digits6-even", "digits3-pl", "digits2-truncate", "places5",
         "places5-even-cs", "places3-truncate", "places0", "places-win"])
def test_large_rational_block_at_and_beside_boundaries(monkeypatch, fmt):
    """``format_block`` of rational grids past ENCLOSURE_MIN_ENTRIES: the enclosure decides
    what it can, the rest (the ties, the 1e-30 neighbours) is decided exactly."""
    from flint import fmpq, fmpq_mat

    from symattn.derivation.grids import RationalGrid

    values = _boundary_values()
    exact = [v for v in values if v.denominator < 10 ** 8]
    spy = Spy(monkeypatch)
    for row in (values, exact):      # 1e-30 offsets need 100-bit numerators; ties alone not
        rows = -(-formatting.ENCLOSURE_MIN_ENTRIES // len(row))
        grid = RationalGrid(fmpq_mat([[fmpq(v.numerator, v.denominator) for v in row]] * rows))
        expected = (tuple(ref_text(v, digits=fmt.digits, places=fmt.places, rule=fmt.rounding,
                                   separator=fmt.separator) for v in row),) * rows
        assert spy.enclosure_path(fmt, grid, range(rows), range(len(row))) == expected
        assert fmt.format_block(grid, range(1, rows), range(3, len(row))) == \
            tuple(line[3:] for line in expected[1:])
        decided = enclosure_roundings(grid.enclosure(), fmt.places, fmt.digits,
                                      fmt.rounding is Rounding.TRUNCATE).proved
        assert decided.any() and not decided.all()


def test_own_exponential_is_enclosed_over_its_whole_range():
    """symattn's e^x (range reduction + Taylor, not numpy's exp) against mpmath:
    every value within its bound, the bound tight, below -700 the [0, 1e-300] box."""
    from symattn.values.enclosures import _exp_nonpositive

    rng = np.random.default_rng(7)
    x = np.concatenate([-rng.uniform(0, 1, 2000), -rng.uniform(0, 50, 2000),
                        -rng.uniform(0, 745, 2000), [0.0, -1e-300, -0.34657359, -0.5,
                                                     -699.999, -700.0, -700.001, -744.0]])
    values, errors = _exp_nonpositive(x)
    with mpmath.workdps(40):
        for xi, value, error in zip(x.tolist(), values.tolist(), errors.tolist()):
            true = mpmath.exp(mpmath.mpf(xi))
            assert abs(true - mpmath.mpf(value)) <= mpmath.mpf(error), (xi, value, error)
            if xi >= -700:
                assert error <= 1e-12 * value, (xi, value, error)
            else:
                assert value == 0.0 and error == 1e-300
    assert values[x == 0.0].tolist() == [1.0]       # the row maximum is exactly 1
