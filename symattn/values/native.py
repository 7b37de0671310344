"""Python values as entries: floats, Fractions, Decimals, SymPy and NumPy numbers.

The conversion rules (docs/python.md):

- ``int`` (not ``bool``): itself, written with no decimal places.
- ``float``: its shortest repr, so ``0.1`` is exactly 1/10 with one decimal place
  (``repr(0.1) == '0.1'``), not the binary double 3602879701896397/36028797018963968.
  ``-inf`` is a mask (scores only); ``nan`` and ``inf`` are refused.
- ``fractions.Fraction``: exactly p/q; ``decimal.Decimal``: its digits as written
  (``Decimal("0.40")`` is 2/5 with two places).
- NumPy integers as ``int``; NumPy floats by the shortest repr of their own type
  (``numpy.float32(0.1)`` is 1/10); NumPy booleans are refused.
- SymPy: integers and rationals exactly; a ``Float`` as the Python float it rounds
  to; symbols by name (they are read as real symbols); sums, products, whole powers
  from -64 to 64 and square roots (``sqrt(2)/2``) structurally; ``-oo`` as a mask.
  Anything else (``exp``, ``pi``, ``sin``) is refused with the reason.

Each value is written in symattn's own entry grammar (a SymPy value by walking
its expression tree) and then read by ``entries.parse_entry`` like any spec
entry; no text is ever handed to ``sympify``.

>>> from fractions import Fraction
>>> from decimal import Decimal
>>> native_text(0.1), native_text(Fraction(1, 3)), native_text(Decimal("0.40"))
('0.1', '1/3', '0.40')
"""

from __future__ import annotations

__all__ = ["native_text", "plain_lists"]

import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

from symattn.errors import InputError, Location

_IDENT = re.compile(r"[^\W\d]\w*")
_RESERVED = {"sqrt", "inf", "infinity", "oo", "nan"}
_MAX_EXPONENT = 64


def plain_lists(value: Any) -> Any:
    """A NumPy array or SymPy matrix as nested lists (``tolist()``), tuples as lists;
    anything else as it is."""
    if isinstance(value, str):
        return value
    module = _module(value)
    if module == "numpy" and getattr(value, "ndim", 0) > 0:
        # row by row, so the entries stay NumPy scalars and float32 keeps its own repr
        return [plain_lists(item) for item in value]
    if module == "sympy" and hasattr(value, "tolist") and hasattr(value, "shape"):
        return plain_lists(value.tolist())
    if isinstance(value, (list, tuple)):
        if all(issubclass(kind, str) for kind in set(map(type, value))):
            return list(value)      # a row of texts (or printed numbers): nothing to do
        return [plain_lists(item) for item in value]
    return value


def native_text(value: Any, location: Location | None = None) -> str:
    """A Python value written in the entry grammar, ready for ``parse_entry``."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        raise InputError(f"expected a number, got the boolean {value!r}", location)
    if _module(value) == "numpy":
        return _numpy_text(value, location)
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return _float_text(value, location)
    if isinstance(value, Fraction):
        return _ratio(value.numerator, value.denominator)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InputError(f"expected a finite number, got Decimal {str(value)!r}", location)
        return str(value)
    if _module(value) == "sympy":
        return _sympy_text(value, location, top=True)
    raise InputError(f"expected a number (int, float, Fraction, Decimal, a SymPy or NumPy "
                     f"number) or text, got {type(value).__name__} {_short(value)}", location)


def _module(value: Any) -> str:
    return type(value).__module__.partition(".")[0]


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _ratio(p: int, q: int) -> str:
    return str(p) if q == 1 else f"{p}/{q}"


def _float_text(value: float, location: Location | None) -> str:
    if math.isnan(value):
        raise InputError("expected a number, got nan", location)
    if math.isinf(value):
        if value < 0:
            return "-inf"
        raise InputError("only minus infinity (a masked score) is allowed, got inf", location)
    return repr(float(value))      # float(): a numpy.float64 is a float, with its own repr


def _numpy_text(value: Any, location: Location | None) -> str:
    import numpy

    if isinstance(value, numpy.bool_):
        raise InputError(f"expected a number, got the boolean {value!r}", location)
    if isinstance(value, numpy.integer):
        return str(int(value))
    if isinstance(value, numpy.floating):
        if not numpy.isfinite(value):
            return _float_text(float(value), location)
        return numpy.format_float_positional(value, unique=True, trim="-") \
            if abs(float(value)) >= 1e-4 or value == 0 else \
            numpy.format_float_scientific(value, unique=True, trim="-")
    raise InputError(f"expected a number, got the NumPy value {_short(value)}", location)


def _sympy_text(expr: Any, location: Location | None, top: bool = False) -> str:
    """A SymPy number, symbol or expression of +, *, whole powers and square roots."""
    import sympy

    if expr is sympy.S.NegativeInfinity and top:
        return "-inf"
    if isinstance(expr, sympy.Rational):       # Integer too
        text = _ratio(int(expr.p), int(expr.q))
        return text if top or (expr.q == 1 and expr.p >= 0) else f"({text})"
    if isinstance(expr, sympy.Float):
        text = _float_text(float(expr), location)
        return text if top or not text.startswith("-") else f"({text})"
    if isinstance(expr, sympy.Symbol):
        if not _IDENT.fullmatch(expr.name) or expr.name.lower() in _RESERVED:
            raise InputError(f"the symbol name {expr.name!r} is not an identifier symattn "
                             "reads (letters, digits, _)", location)
        return str(expr.name)
    if isinstance(expr, sympy.Add):
        text = " + ".join(_sympy_text(a, location) for a in expr.args)
        return text if top else f"({text})"
    if isinstance(expr, sympy.Mul):
        return "*".join(_sympy_text(a, location) for a in expr.args)
    if isinstance(expr, sympy.Pow):
        return _sympy_power(expr, location)
    if isinstance(expr, sympy.MatrixBase):
        raise InputError("expected a number, got a matrix inside a matrix", location)
    raise InputError(f"cannot use the SymPy value {_short(expr)}: symattn reads numbers, "
                     "symbols, sums, products, whole powers and square roots", location)


def _sympy_power(expr: Any, location: Location | None) -> str:
    import sympy

    base = _sympy_text(expr.base, location)
    if not (isinstance(expr.base, sympy.Symbol) or base.isdigit() or base.startswith("(")):
        base = f"({base})"
    exponent = expr.exp
    if isinstance(exponent, sympy.Integer) and abs(int(exponent)) <= _MAX_EXPONENT:
        return f"{base}^{int(exponent)}"
    if isinstance(exponent, sympy.Rational) and int(exponent.q) == 2 and \
            abs(int(exponent.p)) <= _MAX_EXPONENT:
        root = f"sqrt({base})"
        return root if exponent.p == 1 else f"{root}^{int(exponent.p)}"
    raise InputError(f"cannot use the power {_short(expr)}: exponents must be whole numbers "
                     f"from -{_MAX_EXPONENT} to {_MAX_EXPONENT} or halves (square roots)",
                     location)
