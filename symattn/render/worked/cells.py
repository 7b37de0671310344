"""The numbers of a worked example: each entry exact (when short) and as a decimal.

An entry becomes a ``Value``: its exact LaTeX, its decimal in the document's
``NumberFormat`` and the two as the tail of an equation, ``= exact \\approx
decimal``. Irrational entries (exponentials and what is built from them)
are written from the step's definition: ``e^{10}``, a sum of those, a
quotient.

>>> from flint import fmpq
>>> value_of(fmpq(1, 3), r"\\frac{1}{3}", "1/3", NumberFormat(digits=3)).chain
'= \\\\frac{1}{3} \\\\approx 0.333'
>>> value_of(fmpq(1, 4), "0.25", None, NumberFormat(digits=3)).chain
'= 0.25'
"""

from __future__ import annotations

__all__ = ["Cells", "value_of", "after", "percent_format", "finer", "stands_for", "significant"]

from dataclasses import replace
from decimal import Decimal

from flint import fmpq

from symattn.derivation.names import split_name
from symattn.derivation.steps import Derivation
from symattn.render import latex
from symattn.render.worked.model import Value
from symattn.values.entries import Symbolic
from symattn.values.exact import NAN, NEG_INF, Exact, terminating_places
from symattn.values.number_format import NumberFormat


def _decimal_is_exact(raw: Exact, text: str | None) -> bool:
    """Whether the decimal ``text`` of ``raw`` shows every one of its places."""
    if not isinstance(raw, fmpq) or text is None:
        return False
    places = terminating_places(raw)
    if places is None or places > latex.MAX_EXACT_PLACES:
        return False
    shown = len(text.replace(",", ".").partition(".")[2])
    return places <= shown


def value_of(raw: Exact, exact: str | None, inline: str | None,
             number_format: NumberFormat) -> Value:
    """Exact form (if short), decimal, and the chain ``= exact \\approx decimal``."""
    decimal_text = number_format.format(raw)
    decimal = latex.math_decimal(decimal_text) if decimal_text is not None else ""
    if exact is not None and len(exact) > latex.SHORT and decimal:
        exact = None
    inline = inline if inline is not None and exact is not None else exact
    if raw is NEG_INF or raw is NAN or exact is not None and (
            not decimal or _decimal_is_exact(raw, decimal_text)):
        shown = exact if exact is not None else decimal
        return Value(shown, decimal, f"= {shown}", True, inline or shown)
    if exact is not None:
        return Value(exact, decimal, f"= {exact} \\approx {decimal}", False, inline or "")
    return Value("", decimal, f"\\approx {decimal}", False)


def after(relation: str, value: Value) -> Value:
    """``value`` as the end of a chain: after an approximation, only its decimal."""
    if relation == "=" or value.is_exact or not value.decimal:
        return value
    return Value("", value.decimal, f"\\approx {value.decimal}", False)


def percent_format(number_format: NumberFormat) -> NumberFormat:
    """Percentages: two places fewer than the weights when places are fixed.

    >>> percent_format(NumberFormat(digits=None, places=4)).places
    2
    """
    if number_format.places is None:
        return number_format
    return replace(number_format, digits=None, places=max(number_format.places - 2, 0))


def finer(number_format: NumberFormat, guard: int) -> NumberFormat:
    """``number_format`` with ``guard`` more digits (places or significant digits).

    >>> finer(NumberFormat(digits=None, places=2), 2).places
    4
    >>> finer(NumberFormat(digits=3), 1).digits
    4
    """
    if guard == 0:
        return number_format
    if number_format.places is not None:
        return replace(number_format, places=number_format.places + guard)
    assert number_format.digits is not None
    return replace(number_format, digits=number_format.digits + guard)


def stands_for(text: str) -> fmpq:
    """The number a decimal formatted by ``NumberFormat`` stands for, exactly.

    >>> stands_for("0,36"), stands_for("1.5e+3")
    (9/25, 1500)
    """
    numerator, denominator = Decimal(text.replace(",", ".")).as_integer_ratio()
    return fmpq(numerator, denominator)


def significant(text: str, digits: int | None) -> str:
    """A whole number printed to ``digits`` significant digits, its zeros past them
    marked as not significant (1386280 to 6 digits is 1.38628e6).

    >>> significant("1386280", 6), significant("1386282", 6), significant("0.25", 6)
    ('1.38628e6', '1386282', '0.25')
    """
    body = text.lstrip("-")
    if digits is None or not body.isdigit() or len(body) <= digits or \
            body[digits:].strip("0"):
        return text
    mantissa = body[0] + ("." + body[1:digits] if digits > 1 else "")
    return text[: len(text) - len(body)] + f"{mantissa}e{len(body) - 1}"


def _times(factor: str, power: str) -> str:
    """``factor`` times an exponential, as a term of a sum."""
    return {"1": power, "-1": f"-{power}"}.get(factor, f"{factor}\\, {power}")


class Cells:
    """Entries of a derivation as ``Value`` records; exact forms are cached."""

    def __init__(self, derivation: Derivation, number_format: NumberFormat) -> None:
        self.d = derivation
        self.fmt = number_format
        self.locale = number_format.locale
        self._exact: dict[tuple[str, int, int, bool], str | None] = {}

    def raw(self, name: str, i: int, j: int) -> Exact:
        """The exact entry (i, j) of step ``name``."""
        return self.d[name].value.exact(i, j)

    def exact(self, name: str, i: int, j: int, inline: bool = False) -> str | None:
        """Exact LaTeX of an entry (``inline``: fractions with a slash), None if unknown."""
        key = (name, i, j, inline)
        if key not in self._exact:
            text = latex.exact_latex(self.raw(name, i, j), self.locale, inline)
            self._exact[key] = text if text is not None else self._structural(name, i, j)
        return self._exact[key]

    def make_value(self, raw: Exact, exact: str | None, inline: str | None = None) -> Value:
        """``value_of`` in the document's number format."""
        return value_of(raw, exact, inline, self.fmt)

    def value(self, name: str, i: int, j: int) -> Value:
        """Entry (i, j) of step ``name`` as a ``Value``."""
        return self.make_value(self.raw(name, i, j), self.exact(name, i, j),
                               self.exact(name, i, j, inline=True))

    def factor(self, name: str, i: int, j: int) -> tuple[str, bool]:
        """An operand inside a substitution: exact when short and simple, else decimal."""
        value = self.value(name, i, j)
        if value.is_exact or value.exact and "e^" not in value.exact:
            return value.exact, True
        return value.decimal, False

    def percent_value(self, raw: Exact) -> Value:
        """A percentage, in ``percent_format`` of the document's format."""
        return value_of(raw, latex.exact_latex(raw, self.locale), None,
                        percent_format(self.fmt))

    def any_latex(self, value: Exact | Symbolic) -> str:
        """A problem's number (scale, temperature): exact, else as a decimal."""
        if isinstance(value, Symbolic):
            return latex.sympy_latex(value.to_sympy())
        text = latex.exact_latex(value, self.locale)
        return text if text is not None else latex.math_decimal(str(self.fmt.format(value)))

    # ------------------------------------------- irrational entries, by definition
    def _structural(self, name: str, i: int, j: int) -> str | None:
        """Exact LaTeX of an irrational entry from the step's definition."""
        prefix, base = split_name(name)
        if base in ("exp", "exp_shifted") and self.d[name].operands:
            argument = self.exact(self.d[name].operands[0], i, j, inline=True)
            return None if argument is None else latex.exp_latex(argument)
        if base == "exp_shifted_sum":
            return self._exponential_sum(prefix + "exp_shifted", i)
        if prefix + "exp" not in self.d:
            return None
        if base == "exp_sum":
            return self._exponential_sum(prefix + "exp", i)
        if base == "weights" or base == "output" and \
                self.d[name].operands == (prefix + "weights", prefix + "V"):
            return self._quotient(prefix, base, i, j)
        return None

    def _exponential_sum(self, exp: str, i: int) -> str | None:
        """Row i's sum of the exponentials ``exp``, the zero ones (masked keys) left out."""
        terms = []
        for c in self.d[exp].value.columns():
            if self.raw(exp, i, c) == 0:
                continue
            term = self.exact(exp, i, c)
            if term is None:
                return None
            terms.append(term)
        return latex.sum_latex(terms)

    def exponentials(self, prefix: str) -> tuple[str, str]:
        """The exponentials and row sums the weights divide: shifted ones when the
        softmax is max-shifted (``derivation.max_shift``), else exp and exp_sum."""
        weights = prefix + "weights"
        if weights in self.d and split_name(self.d[weights].operands[0] if
                                            self.d[weights].operands else "")[1] == "exp_shifted":
            return prefix + "exp_shifted", prefix + "exp_shifted_sum"
        return prefix + "exp", prefix + "exp_sum"

    def _quotient(self, prefix: str, base: str, i: int, j: int) -> str | None:
        """A weight e^z / sum, or an output entry (sum of v e^z) / sum."""
        exp, exp_sum = self.exponentials(prefix)
        if exp_sum not in self.d:
            return None
        denominator = self.exact(exp_sum, i, 0)
        numerator = self.exact(exp, i, j) if base == "weights" else \
            self._weighted_exponentials(prefix, exp, i, j)
        if numerator is None or denominator is None:
            return None
        return latex.frac_latex(numerator, denominator)

    def _weighted_exponentials(self, prefix: str, exp: str, i: int, j: int) -> str | None:
        """Component j of row i's sum of value rows times their exponentials."""
        values = prefix + "V"
        terms = []
        for c in self.d[exp].value.columns():
            if self.raw(exp, i, c) == 0 or self.raw(values, c, j) == 0:
                continue
            power, factor = self.exact(exp, i, c), self.exact(values, c, j)
            if power is None or factor is None:
                return None
            terms.append(_times(factor, power))
        return latex.sum_latex(terms)
