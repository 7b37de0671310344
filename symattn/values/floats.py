"""Binary floating-point formats, emulated exactly: float64, float32, float16, bfloat16.

A value of a format is held as a Python float (every value of these formats
is a double), ``inf``, ``-inf`` or ``nan`` included. ``round_to`` rounds an
exact rational to the nearest value of a format, ties to even, with
subnormals, overflow to infinity and underflow to zero exactly as IEEE 754
prescribes. ``bfloat16_bits`` is the other way of saying it for bfloat16: round
to nearest even on the float32 bits (what PyTorch does), tested to agree.

>>> round_to(fmpq(1, 3), FORMATS["float16"])
0.333251953125
>>> round_to(fmpq(65520), FORMATS["float16"]), round_to(fmpq(65519), FORMATS["float16"])
(inf, 65504.0)
>>> round_to(fmpq(1, 2 ** 25), FORMATS["float16"]), round_to(fmpq(3, 2 ** 26), FORMATS["float16"])
(0.0, 5.960464477539063e-08)
>>> round_to(fmpq(257), FORMATS["bfloat16"]), round_to(fmpq(259), FORMATS["bfloat16"])
(256.0, 260.0)
"""

from __future__ import annotations

__all__ = ["FloatFormat", "FORMATS", "PRECISIONS", "round_to", "round_float", "exact_of",
           "bfloat16_bits", "fused_multiply_add", "shortest", "exp_in"]

import math
import struct
from dataclasses import dataclass

import numpy as np
from flint import arb, ctx, fmpq


@dataclass(frozen=True)
class FloatFormat:
    """A binary format: ``bits`` of precision (the leading 1 included) and the
    exponent range of its normal numbers; ``accumulate`` is the format a
    framework adds and multiplies its values in (float32 for the half formats)."""

    name: str
    bits: int
    emin: int
    emax: int
    accumulate: str

    @property
    def largest(self) -> float:
        """The largest finite value (65504 for float16)."""
        return math.ldexp(2 ** self.bits - 1, self.emax - self.bits + 1)


FORMATS: dict[str, FloatFormat] = {
    "float64": FloatFormat("float64", 53, -1022, 1023, "float64"),
    "float32": FloatFormat("float32", 24, -126, 127, "float32"),
    "float16": FloatFormat("float16", 11, -14, 15, "float32"),
    "bfloat16": FloatFormat("bfloat16", 8, -126, 127, "float32"),
}
PRECISIONS = ("exact",) + tuple(FORMATS)


def round_to(value: fmpq, fmt: FloatFormat) -> float:
    """The value of ``fmt`` nearest to ``value`` (ties to even; inf past the largest)."""
    if value == 0:
        return 0.0
    sign = -1.0 if value < 0 else 1.0
    size = abs(value)
    p, q = int(size.p), int(size.q)
    exponent = p.bit_length() - q.bit_length()      # 2^exponent <= size < 2^(exponent + 2)
    if _below(p, q, exponent):
        exponent -= 1
    if not _below(p, q, exponent + 1):
        exponent += 1
    exponent = max(exponent, fmt.emin)              # subnormals: a fixed quantum
    quantum = exponent - fmt.bits + 1               # the value of the last bit
    numerator, denominator = (p, q << quantum) if quantum >= 0 else (p << -quantum, q)
    whole, rest = divmod(numerator, denominator)
    if 2 * rest > denominator or (2 * rest == denominator and whole % 2 == 1):
        whole += 1
    if whole == 0:
        return 0.0 * sign
    if quantum + whole.bit_length() - 1 > fmt.emax or \
            math.ldexp(whole, quantum) > fmt.largest:
        return math.inf * sign
    return math.ldexp(whole, quantum) * sign


def _below(p: int, q: int, exponent: int) -> bool:
    """Whether p/q < 2^exponent."""
    return p < (q << exponent) if exponent >= 0 else (p << -exponent) < q


def exact_of(value: float) -> fmpq:
    """A finite float as the rational it is."""
    numerator, denominator = value.as_integer_ratio()
    return fmpq(numerator, denominator)


def round_float(value: float, fmt: FloatFormat) -> float:
    """A double (inf and nan pass) rounded to ``fmt``."""
    if math.isnan(value) or math.isinf(value):
        return value
    return round_to(exact_of(value), fmt)


def fused_multiply_add(a: float, b: float, c: float, fmt: FloatFormat) -> float:
    """a * b + c with one rounding to ``fmt`` (what a BLAS kernel's FMA gives)."""
    if not all(math.isfinite(x) for x in (a, b, c)):
        return round_float(a * b + c, fmt)
    return round_to(exact_of(a) * exact_of(b) + exact_of(c), fmt)


def bfloat16_bits(value: float) -> float:
    """A float32 value (given as a double) rounded to bfloat16 on its bits, nearest even.

    >>> bfloat16_bits(257.0), bfloat16_bits(259.0), bfloat16_bits(3.4e38)
    (256.0, 260.0, inf)
    """
    if math.isnan(value):
        return value
    (bits,) = struct.unpack("<I", struct.pack("<f", value))   # a float32: packed exactly
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    (rounded,) = struct.unpack("<f", struct.pack("<I", bits))
    return float(rounded)


def shortest(value: float, fmt: FloatFormat) -> str:
    """The shortest decimal that reads back as ``value`` in ``fmt`` (how NumPy prints it).

    >>> shortest(round_to(fmpq(1, 3), FORMATS["float16"]), FORMATS["float16"])
    '0.3333'
    >>> shortest(math.inf, FORMATS["float32"]), shortest(math.nan, FORMATS["float16"])
    ('inf', 'nan')
    """
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if fmt.name in ("float16", "float32", "float64"):
        return str(np.dtype(fmt.name).type(value))
    for digits in range(1, 18):          # bfloat16: no NumPy type
        text = f"{value:.{digits}g}"
        if round_float(float(text), fmt) == value:
            return _plain(text)
    return repr(value)


def _plain(text: str) -> str:
    """'3e+02' -> '300.0', '0.5' -> '0.5' (NumPy's way of writing a whole float)."""
    number = float(text)
    if "e" in text and 1e-4 <= abs(number) < 1e16:
        text = repr(number)
    return text if any(c in text for c in ".en") else text + ".0"


def exp_in(value: float, fmt: FloatFormat) -> float:
    """e^value as a framework computes it: correctly rounded in the format it
    computes in (float32 for the half formats), then rounded to ``fmt``.

    >>> exp_in(800.0, FORMATS["float64"]), exp_in(709.0, FORMATS["float64"]) > 8e307
    (inf, True)
    >>> exp_in(12.0, FORMATS["float16"]), exp_in(11.0, FORMATS["float16"])
    (inf, 59872.0)
    """
    if math.isnan(value) or value == math.inf:
        return value
    if value == -math.inf or value < -1200:        # below half the least subnormal
        return 0.0
    if value > 1200:                                # beyond the largest double
        return math.inf
    wide = FORMATS[fmt.accumulate]
    exponent, bits = exact_of(value), 64
    while True:
        ball = _exp_ball(exponent, bits)
        low, high = round_to(_arb_end(ball, -1), wide), round_to(_arb_end(ball, 1), wide)
        if low == high:
            return round_float(low, fmt)
        if bits > 1 << 16:                          # never seen: e^x is never a midpoint
            raise ArithmeticError(f"exp({value}) could not be rounded")
        bits *= 2


def _exp_ball(exponent: fmpq, bits: int) -> arb:
    previous = ctx.prec
    ctx.prec = bits
    try:
        return arb(exponent).exp()
    finally:
        ctx.prec = previous


def _arb_end(ball: arb, side: int) -> fmpq:
    """The lower (side -1) or upper (side 1) end of a ball, as a rational."""
    return _exact(ball.mid()) + side * _exact(ball.rad())


def _exact(value: arb) -> fmpq:
    """An exact arb (a midpoint or a radius) as a rational."""
    mantissa, exponent = value.man_exp()
    return fmpq(int(mantissa)) * (fmpq(2) ** int(exponent) if exponent >= 0
                                  else fmpq(1, 2 ** int(-exponent)))
