"""Exact sums of sines and cosines, for positions without SymPy.

Positional encodings and RoPE put sines and cosines of the angles
``p * base^(-2i/width)`` into attention. Every quantity built from rational
inputs by sums and products is then a ``TrigSum``: a rational plus a rational
combination of cos(t) and sin(t) over distinct positive angles t (products are
turned into sums, ``sin a sin b = (cos(a - b) - cos(a + b))/2``).

Angles are kept exactly. With ``base = a^m`` (``a`` not a perfect power) every
angle is a rational combination of ``a^(r/N)``, r = 0 .. N-1, and these are
linearly independent over the rationals (x^N - a is irreducible), so two
angles are equal exactly when their coefficient lists are: an ``Angle`` is
that list. By Lindemann-Weierstrass, 1 and e^(+-it) over distinct non-zero
algebraic t are linearly independent, so a ``TrigSum`` is rational exactly
when, written this way, it has no sine or cosine left: equal values have
equal forms, and ``sin(0) = 0``, ``cos(0) = 1`` are decided exactly.

>>> basis = RootBasis(10000, 4, 6)       # for widths 4 and 6
>>> omega = basis.frequency(1, 4)          # 10000^(-2/4) = 1/100
>>> basis.angle_text(omega), basis.angle_text(basis.frequency(1, 6))
('1/100', '10**(2/3)/100')
>>> s = TrigSum.trig(basis, omega, sine=True)          # sin(1/100)
>>> c = TrigSum.trig(basis, omega, sine=False)         # cos(1/100)
>>> (s * s + c * c).is_rational, (s * s + c * c).constant
(True, 1)
>>> (s * c).text()
'sin(1/50)/2'
"""

from __future__ import annotations

__all__ = ["Angle", "RootBasis", "TrigSum", "TrigValue"]

from dataclasses import dataclass, field
from math import gcd
from typing import Callable, Iterable, Union

from flint import arb, fmpq, fmpz

from symattn.values.exact import Irrational, Surd, rational_text, working_precision

# An exact angle: (r, numerator, denominator) triples, r ascending, numerators
# non-zero, fractions in lowest terms with positive denominators; the angle is
# sum(numerator / denominator * a^(r/N)). Python integers: they hash quickly.
Angle = tuple[tuple[int, int, int], ...]


def _fraction(num: int, den: int) -> tuple[int, int]:
    """num/den in lowest terms, den > 0."""
    g = gcd(num, den)
    if den < 0:
        g = -g
    return num // g, den // g


_GUARD = 16   # extra bits for the angles of a ball


def _perfect_root(base: int) -> tuple[int, int]:
    """(a, m) with base == a**m and m as large as possible."""
    for m in range(max(base.bit_length(), 1), 1, -1):
        a = int(fmpz(base).root(m))       # floor of the m-th root, exactly
        if a > 1 and a ** m == base:
            return a, m
    return base, 1


class RootBasis:
    """The numbers a^(r/N) that angles are written in, for one base and widths."""

    def __init__(self, base: int, *widths: int) -> None:
        self.base = base
        self.root, self.power = _perfect_root(base) if base > 1 else (1, 1)
        order = 1
        for width in widths:
            order = order * max(width, 1) // gcd(order, max(width, 1))
        self.order = order if self.root > 1 else 1
        self._signs: dict[Angle, tuple[Angle, int]] = {}
        self._balls: dict[tuple[int, int], arb] = {}

    def frequency(self, pair: int, width: int) -> Angle:
        """base^(-2 pair / width), the angle per position of column pair ``pair``."""
        if self.root == 1 or pair == 0:
            return ((0, 1, 1),)
        if self.order % width:
            raise ValueError(f"width {width} is not one of the basis's widths")
        # a^(-k/N) with k = 2 pair m N / width (an integer: N is a multiple of width)
        k = 2 * pair * self.power * self.order // width
        whole = -(-k // self.order)                # ceil(k / N)
        return ((whole * self.order - k, 1, self.root ** whole),)

    def root_ball(self, r: int, prec: int) -> arb:
        """A ball for a^(r/N) at ``prec`` bits."""
        key = (r, prec)
        ball = self._balls.get(key)
        if ball is None:
            num, den = r // gcd(r, self.order), self.order // gcd(r, self.order)
            with working_precision(prec):
                ball = arb(self.root).root(den) ** num if r else arb(1)
            self._balls[key] = ball
        return ball

    def angle_ball(self, angle: Angle, prec: int) -> arb:
        """A ball for the angle at ``prec`` bits."""
        with working_precision(prec):
            total = arb(0)
            for r, num, den in angle:
                total += arb(fmpq(num, den)) * self.root_ball(r, prec)
            return total

    def combine(self, left: Angle, right: Angle, sign: int) -> tuple[Angle, int]:
        """left + sign * right as a positive angle and its sign (0: the angle is 0)."""
        if len(left) == 1 and len(right) == 1 and left[0][0] == right[0][0]:
            (r, p1, q1), (_, p2, q2) = left[0], right[0]
            num, den = _fraction(p1 * q2 + sign * p2 * q1, q1 * q2)
            if num == 0:
                return (), 0
            return (((r, num, den),), 1) if num > 0 else (((r, -num, den),), -1)
        terms: dict[int, tuple[int, int]] = {r: (p, q) for r, p, q in left}
        for r, p2, q2 in right:
            p1, q1 = terms.get(r, (0, 1))
            terms[r] = _fraction(p1 * q2 + sign * p2 * q1, q1 * q2)
        angle = tuple(sorted((r, p, q) for r, (p, q) in terms.items() if p != 0))
        return self.positive(angle)

    def scaled(self, angle: Angle, factor: int) -> tuple[Angle, int]:
        """factor * angle (an integer factor, a position) as a positive angle and its sign."""
        if factor == 0 or not angle:
            return (), 0
        return self.positive(tuple((r,) + _fraction(p * factor, q) for r, p, q in angle))

    def positive(self, angle: Angle) -> tuple[Angle, int]:
        """The angle or its negative, whichever is positive, and the sign taken."""
        if not angle:
            return (), 0
        if all(p > 0 for _, p, _ in angle):
            return angle, 1
        if all(p < 0 for _, p, _ in angle):
            return tuple((r, -p, q) for r, p, q in angle), -1
        known = self._signs.get(angle)
        if known is None:
            prec = 64
            while True:   # a non-zero angle: some precision decides its sign
                ball = self.angle_ball(angle, prec)
                if not ball.contains(0):
                    break
                prec *= 2
            known = (angle, 1) if ball > 0 else (tuple((r, -p, q) for r, p, q in angle), -1)
            self._signs[angle] = known
        return known

    def angle_text(self, angle: Angle) -> str:
        """SymPy-readable text: ``1/100``, ``10**(2/3)/100``, ``1 - sqrt(10)/100``."""
        parts = []
        for r, p, q in angle:
            coefficient = fmpq(p, q)
            if r == 0:
                parts.append(rational_text(coefficient))
                continue
            num, den = r // gcd(r, self.order), self.order // gcd(r, self.order)
            power = f"sqrt({self.root})" if (num, den) == (1, 2) else f"{self.root}**({num}/{den})"
            parts.append(_times_text(coefficient, power))
        return _join(parts)


def _times_text(coefficient: fmpq, factor: str) -> str:
    """``coefficient*factor`` as SymPy prints it: ``3*x/100``, ``-x``, ``x/2``."""
    sign = "-" if coefficient < 0 else ""
    num, den = abs(int(coefficient.p)), int(coefficient.q)
    head = factor if num == 1 else f"{num}*{factor}"
    return f"{sign}{head}" if den == 1 else f"{sign}{head}/{den}"


def _join(parts: Iterable[str]) -> str:
    """Terms joined with `` + `` and `` - ``."""
    text = ""
    for part in parts:
        if not text:
            text = part
        elif part.startswith("-"):
            text += f" - {part[1:]}"
        else:
            text += f" + {part}"
    return text or "0"


class TrigSum:
    """``constant + sum(c_t cos(t) + s_t sin(t))`` over distinct positive angles t."""

    __slots__ = ("basis", "constant", "terms")

    def __init__(self, basis: RootBasis, constant: fmpq | int = 0,
                 terms: dict[Angle, list[fmpq]] | None = None) -> None:
        self.basis = basis
        self.constant = fmpq(constant)
        self.terms: dict[Angle, list[fmpq]] = terms if terms is not None else {}

    @classmethod
    def trig(cls, basis: RootBasis, angle: Angle, sine: bool, coefficient: fmpq | int = 1
             ) -> TrigSum:
        """coefficient * sin(angle) or coefficient * cos(angle), exactly (sin 0 = 0, cos 0 = 1)."""
        result = cls(basis)
        result.add_trig(angle, 1, sine, fmpq(coefficient))
        return result

    @property
    def is_rational(self) -> bool:
        return not self.terms

    @property
    def count(self) -> int:
        """How many sines and cosines the form writes out."""
        return sum((c != 0) + (s != 0) for c, s in self.terms.values())

    def add_trig(self, angle: Angle, sign: int, sine: bool, coefficient: fmpq) -> None:
        """Add coefficient * sin(sign * angle) (or cos), ``angle`` positive or empty."""
        if coefficient == 0:
            return
        if sign == 0 or not angle:
            if not sine:
                self.constant += coefficient   # cos 0 = 1; sin 0 = 0 adds nothing
            return
        pair = self.terms.get(angle)
        if pair is None:
            pair = self.terms[angle] = [fmpq(0), fmpq(0)]
        if sine:
            pair[1] += coefficient if sign > 0 else -coefficient
        else:
            pair[0] += coefficient
        if pair[0] == 0 and pair[1] == 0:
            del self.terms[angle]

    def add_scaled(self, other: TrigSum, factor: fmpq) -> None:
        """self += factor * other."""
        if factor == 0:
            return
        self.constant += factor * other.constant
        for angle, (c, s) in other.terms.items():
            self.add_trig(angle, 1, False, factor * c)
            self.add_trig(angle, 1, True, factor * s)

    def __add__(self, other: TrigSum) -> TrigSum:
        result = self.copy()
        result.add_scaled(other, fmpq(1))
        return result

    def __mul__(self, other: TrigSum) -> TrigSum:
        result = TrigSum(self.basis, self.constant * other.constant)
        for angle, (c, s) in other.terms.items():
            result.add_trig(angle, 1, False, self.constant * c)
            result.add_trig(angle, 1, True, self.constant * s)
        for angle, (c, s) in self.terms.items():
            result.add_trig(angle, 1, False, other.constant * c)
            result.add_trig(angle, 1, True, other.constant * s)
            for angle2, (c2, s2) in other.terms.items():
                result.add_product(angle, (c, s), angle2, (c2, s2))
        return result

    def add_product(self, a: Angle, left: tuple[fmpq, fmpq], b: Angle,
                    right: tuple[fmpq, fmpq]) -> None:
        """self += (c cos a + s sin a)(c2 cos b + s2 sin b), as sums of angles."""
        (c, s), (c2, s2) = left, right
        half = fmpq(1, 2)
        plus, plus_sign = self.basis.combine(a, b, 1)
        minus, minus_sign = self.basis.combine(a, b, -1)
        # cos a cos b = (cos(a-b) + cos(a+b))/2, sin a sin b = (cos(a-b) - cos(a+b))/2
        self.add_trig(minus, minus_sign, False, half * (c * c2 + s * s2))
        self.add_trig(plus, plus_sign, False, half * (c * c2 - s * s2))
        # sin a cos b = (sin(a+b) + sin(a-b))/2, cos a sin b = (sin(a+b) - sin(a-b))/2
        self.add_trig(plus, plus_sign, True, half * (s * c2 + c * s2))
        self.add_trig(minus, minus_sign, True, half * (s * c2 - c * s2))

    def copy(self) -> TrigSum:
        return TrigSum(self.basis, self.constant,
                       {angle: list(pair) for angle, pair in self.terms.items()})

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TrigSum):
            return NotImplemented
        return self.constant == other.constant and self.terms == other.terms

    __hash__ = None  # type: ignore[assignment]

    def ball(self, prec: int) -> arb:
        """A certified ball at ``prec`` bits."""
        work = prec + _GUARD
        with working_precision(work):
            total = arb(self.constant)
            for angle, (c, s) in self.terms.items():
                sine, cosine = self.basis.angle_ball(angle, work).sin_cos()
                total += arb(c) * cosine + arb(s) * sine
            return total

    def text(self) -> str:
        """SymPy-readable text: the constant, then cosines and sines by angle."""
        parts = [rational_text(self.constant)] if self.constant != 0 else []
        for angle in sorted(self.terms, key=_angle_order):
            c, s = self.terms[angle]
            inner = self.basis.angle_text(angle)
            for coefficient, name in ((c, "cos"), (s, "sin")):
                if coefficient != 0:
                    parts.append(_times_text(coefficient, f"{name}({inner})"))
        return _join(parts)


def _angle_order(angle: Angle) -> tuple[tuple[int, fmpq], ...]:
    """A fixed order of angles in a text: by their coefficients (not their size,
    which would need balls); rational angles from small to large."""
    return tuple((r, fmpq(p, q)) for r, p, q in angle)


@dataclass(frozen=True)
class TrigValue(Irrational):
    """An entry that is ``factor * form()``: an irrational sum of sines and cosines
    (times a square root after the scale), its form made when first asked for,
    so that renderers can lay it out (``render.trig_latex``)."""

    form: Callable[[], TrigSum] = field(default=lambda: TrigSum(RootBasis(1)), compare=False)
    factor: Union[fmpq, Surd] = field(default=fmpq(1), compare=False)
