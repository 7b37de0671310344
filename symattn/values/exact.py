"""Exact real numbers for the fast core, without SymPy.

Values in symattn are one of:

* ``fmpq`` (python-flint rational) - everything rational, including integers;
* ``NEG_INF`` - a masked score, exactly minus infinity;
* ``Surd`` - ``a * sqrt(b)`` with rational ``a`` and square-free integer ``b > 1``,
  the shape of every scaled score when the scale is ``1/sqrt(d_k)``;
* ``Irrational`` - a number known to be irrational (by construction, e.g. an
  exponential of a non-zero algebraic number), carried as its exact text and a
  function giving a certified ball at any precision;
* a ``ClosedForm`` - anything else a user may write (identifiers, sums of
  different roots), computed on the SymPy path (``derivation.sympy_path``) and
  carried as ``symbolic.SympyValue``; this module never imports SymPy.
"""

from __future__ import annotations

__all__ = ["terminating_places", "EXACT_ZERO", "NEG_INF", "NegInf", "NAN",
           "NotANumber", "working_precision", "Surd", "RationalOrSurd", "Irrational",
           "ClosedForm", "Exact",
           "to_ball", "rational_text", "rational_texts", "RationalTexts", "exact_text",
           "is_rational", "squarefree_split", "surd_sqrt", "make_surd", "reciprocal"]

from math import gcd, isqrt
from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence, Union, overload

from flint import arb, ctx, fmpq, fmpq_mat, fmpz

from symattn.values.rules import decimal_places_needed


class NegInf:
    """Minus infinity, the value of a masked score; exp(NEG_INF) is exactly 0."""

    _instance: NegInf | None = None

    def __new__(cls) -> NegInf:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NEG_INF"

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (NegInf, ())


NEG_INF = NegInf()


class NotANumber:
    """The result a fully masked row gets under the ``nan`` policy (as PyTorch)."""

    _instance: NotANumber | None = None

    def __new__(cls) -> NotANumber:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NAN"

    def __reduce__(self) -> tuple[type, tuple[()]]:
        return (NotANumber, ())


NAN = NotANumber()


def _remove(n: fmpz, p: int) -> tuple[fmpz, int]:
    """``n`` without its factors ``p``, and how many there were: O(log e) divisions by
    p, p^2, p^4, ... (dividing by p once per factor is quadratic on megabit numbers)."""
    if n % p:
        return n, 0
    powers = [fmpz(p)]
    while 2 * int(powers[-1].bit_length()) <= int(n.bit_length()) + 1 and \
            n % (powers[-1] ** 2) == 0:
        powers.append(powers[-1] ** 2)
    count = 0
    for level in range(len(powers) - 1, -1, -1):
        if n % powers[level] == 0:   # p^(2^(k+1)) does not divide n: at most once per level
            n //= powers[level]
            count += 1 << level
    return n, count


def squarefree_split(n: int) -> tuple[int, int]:
    """Write a positive integer as ``g**2 * r`` with ``r`` square-free; return (g, r).

    >>> squarefree_split(72), squarefree_split(10 ** 60)
    ((6, 2), (1000000000000000000000000000000, 1))
    """
    if n <= 0:
        raise ValueError("squarefree_split needs a positive integer")
    if n.bit_length() > 128:
        # Factoring a huge number could take minutes: take out small square
        # factors only. The radicand may then not be square-free, which costs
        # canonical forms (sqrt(8) stays apart from 2*sqrt(2)), never correctness.
        root, rest = fmpz(1), fmpz(n)     # flint: Python's own division is quadratic
        for p in _SMALL_PRIMES:
            rest, count = _remove(rest, p)
            root *= fmpz(p) ** (count // 2)
            rest *= p ** (count % 2)
        last = rest.isqrt()
        return (int(root * last), 1) if last * last == rest else (int(root), int(rest))
    g, r = 1, 1
    for prime, e in fmpz(n).factor():
        p = int(prime)
        g *= p ** (e // 2)
        if e % 2:
            r *= p
    return g, r


_SMALL_PRIMES = [p for p in range(2, 1000) if all(p % d for d in range(2, isqrt(p) + 1))]


@dataclass(frozen=True)
class Surd:
    """The number ``coefficient * sqrt(radicand)``: radicand square-free and > 1."""

    coefficient: fmpq
    radicand: int

    def ball(self, prec: int) -> arb:
        """A certified ball at ``prec`` bits."""
        with working_precision(prec):
            return arb(self.coefficient) * arb(self.radicand).sqrt()

    def __mul__(self, other: object) -> RationalOrSurd:
        if isinstance(other, fmpq):
            return make_surd(self.coefficient * other, self.radicand)
        if isinstance(other, Surd):
            g, r = squarefree_split(self.radicand * other.radicand)
            return make_surd(self.coefficient * other.coefficient * g, r)
        return NotImplemented

    __rmul__ = __mul__

    def reciprocal(self) -> Surd:
        # 1/(a sqrt(b)) = sqrt(b) / (a b)
        return Surd(1 / (self.coefficient * self.radicand), self.radicand)


# The numbers closed under the fast core's products: a rational or a single surd.
RationalOrSurd = Union[fmpq, Surd]


def make_surd(coefficient: fmpq, radicand: int) -> RationalOrSurd:
    """A ``Surd``, or the plain rational when the root disappears."""
    if radicand == 1 or coefficient == 0:
        return fmpq(coefficient)
    return Surd(fmpq(coefficient), radicand)


def surd_sqrt(q: fmpq) -> RationalOrSurd:
    """Exact square root of a non-negative rational, as rational or ``Surd``.

    >>> surd_sqrt(fmpq(1, 2))
    Surd(coefficient=1/2, radicand=2)
    """
    if q < 0:
        raise ValueError("square root of a negative number")
    if q == 0:
        return fmpq(0)
    p, d = int(q.p), int(q.q)
    # sqrt(p/d) = sqrt(p*d)/d
    g, r = squarefree_split(p * d)
    return make_surd(fmpq(g, d), r)


def reciprocal(value: RationalOrSurd) -> RationalOrSurd:
    """``1 / value`` for a non-zero rational or surd (ZeroDivisionError for 0).

    >>> reciprocal(fmpq(2, 3)), reciprocal(Surd(fmpq(1, 2), 2))
    (3/2, Surd(coefficient=1, radicand=2))
    """
    if isinstance(value, fmpq):
        if value == 0:
            raise ZeroDivisionError("the reciprocal of 0")
        return 1 / value
    return value.reciprocal()


# The longest closed form an Irrational keeps once written (characters).
_KEPT_TEXT = 8192


@dataclass(frozen=True)
class Irrational:
    """A number proved irrational, with its exact text and certified balls.

    ``describe`` is the SymPy-readable exact form, or a function making it:
    building the text of every entry of a large matrix would cost more than
    the arithmetic, so it is made only when someone reads it.
    """

    describe: str | Callable[[], str]
    evaluate: Callable[[int], arb]
    # For a value made by ``values.arith``: the values its closed form writes out, each
    # as often as it is written, and how many exponentials it writes besides theirs
    # (``values.written`` counts from them without writing the text).
    # (keyword-only: a subclass such as ``trig.TrigValue`` adds positional fields)
    parts: tuple[Exact, ...] = field(default=(), repr=False, compare=False, kw_only=True)
    own_exponentials: int = field(default=0, repr=False, compare=False, kw_only=True)

    @property
    def text(self) -> str:
        """The closed form; written once and kept when it is short (a value used as a part
        of many others, such as a head's output in every entry of ``concat W_O``, is
        written once, not once per use; a long one is written again rather than held)."""
        if isinstance(self.describe, str):
            return self.describe
        kept = self.__dict__.get("_text")
        if kept is not None:
            return str(kept)
        text = self.describe()
        if len(text) <= _KEPT_TEXT:
            object.__setattr__(self, "_text", text)    # frozen: a cache, not a field
        return text

    def ball(self, prec: int) -> arb:
        """A certified ball at ``prec`` bits."""
        return self.evaluate(prec)

    def __repr__(self) -> str:
        text = self.text
        return f"Irrational({text if len(text) <= 200 else text[:197] + '...'})"


class ClosedForm(Protocol):
    """An exact value known by its closed form: the SymPy path's ``symbolic.SympyValue``.

    Its SymPy-readable text, and a certified ball when it is a number (None
    when it has free symbols).
    """

    @property
    def text(self) -> str:
        """The exact, SymPy-readable form."""

    def ball(self, prec: int) -> arb | None:
        """A certified ball at ``prec`` bits, or None without a numeric value."""


Exact = Union[fmpq, NegInf, NotANumber, Surd, Irrational, ClosedForm]


def is_rational(value: Exact) -> bool:
    """True for a rational (``fmpq``), the one kind that is rounded exactly."""
    return isinstance(value, fmpq)


class working_precision:
    """Run arb arithmetic at ``bits`` of precision, restoring the old setting
    (``with working_precision(128): ...``). A class, not a generator: a layer's values
    enter it hundreds of thousands of times.

    >>> with working_precision(80):
    ...     ctx.prec
    80
    """

    __slots__ = ("bits", "old")

    def __init__(self, bits: int) -> None:
        self.bits = bits
        self.old = 0

    def __enter__(self) -> None:
        self.old = ctx.prec
        ctx.prec = self.bits

    def __exit__(self, *exception: object) -> None:
        ctx.prec = self.old   # the one place that sets flint's precision


@overload
def to_ball(value: fmpq | Surd | Irrational, prec: int) -> arb: ...


@overload
def to_ball(value: Exact, prec: int) -> arb | None: ...


def to_ball(value: Exact, prec: int) -> arb | None:
    """A certified ball for ``value`` at ``prec`` bits (None for -oo and nan)."""
    if isinstance(value, (NegInf, NotANumber)):
        return None
    if isinstance(value, fmpq):
        with working_precision(prec):
            return arb(value)
    return value.ball(prec)


def rational_text(q: fmpq) -> str:
    """SymPy-readable text for a rational: ``3``, ``-1/5``.

    >>> rational_text(fmpq(-2, 10))
    '-1/5'
    """
    return str(q.p) if q.q == 1 else f"{q.p}/{q.q}"


_STR_LIMIT = 10 ** 4000
_SEEN = 4096   # distinct values whose text RationalTexts keeps


def _decimal_text(number: int) -> str:
    """``str(number)`` at any length (Python refuses past 4,300 digits; flint does not)."""
    return str(number) if -_STR_LIMIT < number < _STR_LIMIT else str(fmpz(number))


class RationalTexts:
    """``rational_text`` of the entries of a rational matrix, a block at a time: one
    pass over the integer numerators of one common denominator, made once, and
    each distinct value written once.

    >>> RationalTexts(fmpq_mat([[fmpq(-2, 10), 3], [fmpq(1, 4), 0]])).block([0, 1], [0, 1])
    [('-1/5', '3'), ('1/4', '0')]
    """

    def __init__(self, matrix: fmpq_mat) -> None:
        numerators, common = matrix.numer_denom()
        self.denominator = int(common)
        self.width = matrix.ncols()
        self.numerators: list[fmpz] = numerators.entries()
        self._seen: dict[fmpz, str] = {}

    def block(self, rows: Sequence[int], columns: Sequence[int]) -> list[tuple[str, ...]]:
        entries, width, denominator, seen = self.numerators, self.width, self.denominator, \
            self._seen
        result = []
        for i in rows:
            row = []
            for j in columns:
                numerator = entries[i * width + j]
                text = seen.get(numerator)
                if text is None:
                    n = int(numerator)
                    g = gcd(n, denominator)
                    text = _decimal_text(n // g) if g == denominator \
                        else f"{_decimal_text(n // g)}/{_decimal_text(denominator // g)}"
                    if len(seen) < _SEEN:    # repeated inputs; not a million distinct scores
                        seen[numerator] = text
                row.append(text)
            result.append(tuple(row))
        return result


def rational_texts(matrix: fmpq_mat, rows: Sequence[int], columns: Sequence[int]
                   ) -> list[tuple[str, ...]]:
    """``rational_text`` of a block of a rational matrix (``RationalTexts`` once).

    >>> rational_texts(fmpq_mat([[fmpq(-2, 10), 3]]), [0], [0, 1])
    [('-1/5', '3')]
    """
    return RationalTexts(matrix).block(rows, columns)


def exact_text(value: Exact) -> str:
    """SymPy-readable exact text of any value.

    >>> exact_text(Surd(fmpq(71, 200), 2))
    '71*sqrt(2)/200'
    """
    if isinstance(value, NegInf):
        return "-oo"
    if isinstance(value, NotANumber):
        return "nan"
    if isinstance(value, fmpq):
        return rational_text(value)
    if isinstance(value, Surd):
        a = value.coefficient
        root = f"sqrt({value.radicand})"
        sign = "-" if a < 0 else ""
        num, den = abs(a.p), a.q   # flint integers: printed at any length
        head = root if num == 1 else f"{num}*{root}"
        return f"{sign}{head}" if den == 1 else f"{sign}{head}/{den}"
    return value.text


def terminating_places(q: fmpq) -> int | None:
    """Decimal places of a rational whose decimal expansion ends, else None.

    >>> terminating_places(fmpq(3, 8)), terminating_places(fmpq(1, 3)), terminating_places(fmpq(5))
    (3, None, 0)
    """
    return decimal_places_needed(int(q.q))


# An exact zero as a ball: decimals print it as 0 without a precision search.
EXACT_ZERO = arb(0)
