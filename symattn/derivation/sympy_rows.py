"""A softmax row of the SymPy path, built from its parts without simplifying.

A weight is ``E_j / (E_1 + ... + E_m)`` and an output entry is
``(v_1 E_1 + ... + v_m E_m) / (E_1 + ... + E_m)``, with ``E_j = exp(z_j)``
(``z_j`` itself when the rows are divided by their plain sums). Each piece is
made once per row: the exponentials, their sum and its reciprocal as SymPy
expressions (SymPy's own evaluation merges equal exponentials, so equal scores
give exactly ``1/m``), and their texts, written once and joined in key order
(``WrittenValue``). Nothing here calls ``simplify`` or ``powsimp``: at 16
tokens those took a minute on expressions the row already has in this form.

Exact values stay exact where they are: a row with a single open key, or
whose open keys have equal scores, has rational weights, and an output entry
is the common mean ``v`` when every group of equal scores has the same mean
of values (as on the rational path, ``softmax_grids.OutputGrid``).

The full derivation (``sympy_path``) and the KV cache (``explore.kvcache``)
both build their rows here, so the same row gives the same closed forms.

>>> import sympy
>>> from symattn.values.exact import exact_text
>>> T = sympy.Symbol("T", real=True)
>>> row = SoftmaxRow([2 / T, -1 / T, sympy.S.NegativeInfinity], softmax=True)
>>> row.total.text, [exact_text(w) for w in row.weights][1:]
('exp(2/T) + exp(-1/T)', ['exp(-1/T)/(exp(2/T) + exp(-1/T))', '0'])
>>> exact_text(row.output([sympy.Integer(1), sympy.Rational(-1, 2), sympy.Integer(7)]))
'(exp(2/T) - 1/2*exp(-1/T))/(exp(2/T) + exp(-1/T))'
>>> exact_text(SoftmaxRow([1 / T, 1 / T], softmax=True).weights[0])
'1/2'
"""

from __future__ import annotations

__all__ = ["SoftmaxRow", "joined"]

from functools import lru_cache
from typing import Sequence

import sympy
from flint import fmpq

from symattn.values.exact import Exact, rational_text
from symattn.values.symbolic import WrittenValue, sympy_to_exact


def joined(terms: Sequence[str]) -> str:
    """Terms added up as text: ``a - b`` for a term ``-b``.

    >>> joined(["exp(1)", "-1/2*exp(2)", "3"])
    'exp(1) - 1/2*exp(2) + 3'
    """
    out = terms[0] if terms else "0"
    for term in terms[1:]:
        out += f" - {term[1:]}" if term.startswith("-") else f" + {term}"
    return out


def _text(expr: sympy.Expr) -> str:
    """One piece (an exponential, a score, a value) as SymPy writes it."""
    if expr.is_Rational:
        return rational_text(fmpq(int(expr.p), int(expr.q)))
    return str(sympy.sstr(expr))


@lru_cache(maxsize=1 << 14)
def _product_text(value: sympy.Expr, numerator: sympy.Expr) -> str:
    """``_text(value * numerator)``, remembered: ``kvcache`` writes each decoded row's
    terms again for the full derivation's same row, and printing a product of
    positional values and an exponential is most of its time."""
    return _text(value * numerator)


class SoftmaxRow:
    """One row of softmax (or of division by the row sum) over its open keys.

    ``masked``: the row's masked scores, ``-oo`` for a masked key.
    ``numerators[j]`` is ``exp(z_j)`` (``z_j`` without softmax), 0 when masked;
    ``total`` their sum, ``weights`` the quotients. A row without an open key
    (or whose plain sum is 0) is left to the caller: ``open`` is empty or
    ``total_expr`` is 0.
    """

    def __init__(self, masked: Sequence[sympy.Expr], softmax: bool) -> None:
        self.open = [j for j, z in enumerate(masked) if z is not sympy.S.NegativeInfinity]
        self.numerators = [sympy.S.Zero] * len(masked)
        for j in self.open:
            self.numerators[j] = sympy.exp(masked[j]) if softmax else masked[j]
        self._texts = {j: _text(self.numerators[j]) for j in self.open}
        self.total_expr: sympy.Expr = sympy.Add(*(self.numerators[j] for j in self.open))
        self._total_text = joined([self._texts[j] for j in self.open])
        self._numeric = not self.total_expr.free_symbols
        self.total = _written(self.total_expr, self._total_text, self._numeric)
        self._reciprocal = sympy.Pow(self.total_expr, -1) if self.total_expr != 0 else None
        groups: dict[sympy.Expr, list[int]] = {}
        for j in self.open:   # equal scores: equal weights
            groups.setdefault(self.numerators[j], []).append(j)
        self._groups = list(groups.values())

    @property
    def weights(self) -> list[Exact]:
        """``E_j / sum``: 0 for a masked key, exact rationals where SymPy finds them."""
        reciprocal, total = self._reciprocal, self._total_text
        if reciprocal is None:
            raise ZeroDivisionError("a row of weights with a zero sum")
        weights: list[Exact] = [fmpq(0)] * len(self.numerators)
        for j in self.open:
            numerator = self.numerators[j]
            text = f"({self._texts[j]})" if numerator.is_Add else self._texts[j]
            weight = sympy.Mul(numerator, reciprocal)
            # a plain sum that adds up to a number (1 + a - a): no quotient to write
            weights[j] = _written(weight, _text(weight) if self.total_expr.is_Rational
                                  else f"{text}/({total})", self._numeric)
        return weights

    def output(self, values: Sequence[sympy.Expr]) -> Exact:
        """``sum_j v_j E_j / sum`` for one column ``v`` of V (entry j: key j)."""
        common = self._common_mean(values)
        if common is not None:
            return sympy_to_exact(common)
        kept = [j for j in self.open if values[j] != 0]
        terms = [self._term_text(values[j], j) for j in kept]
        numerator = joined(terms)
        if len(terms) > 1 or values[kept[0]].is_Add or self.numerators[kept[0]].is_Add:
            numerator = f"({numerator})"
        numbers, reciprocal = self.numerators, self._reciprocal

        def build() -> sympy.Expr:
            return sympy.Mul(sympy.Add(*(values[j] * numbers[j] for j in kept)), reciprocal)

        numeric = self._numeric and not any(values[j].free_symbols for j in kept)
        if self.total_expr.is_Rational:
            return _written(build(), _text(build()), numeric)
        text = f"{numerator}/({self._total_text})"
        return WrittenValue(build, lambda: text, numeric)

    def _term_text(self, value: sympy.Expr, j: int) -> str:
        """``v*E``: ``13/50*exp(x)``, ``exp(x)``, ``-exp(x)``; SymPy's text of the product
        for a symbolic ``v`` or a numerator that is not an exponential."""
        factor, numerator = self._texts[j], self.numerators[j]
        if not value.is_Rational or not isinstance(numerator, sympy.exp):
            return _product_text(value, numerator)
        if value == 1:
            return factor
        if value == -1:
            return f"-{factor}"
        return f"{_text(value)}*{factor}"

    def _common_mean(self, values: Sequence[sympy.Expr]) -> sympy.Expr | None:
        """The entry's value when every group of equal scores has the same mean of ``v``
        (weights within a group are equal, and the weights add up to 1); also when
        every kept value is 0."""
        common = None
        for group in self._groups:
            mean = values[group[0]] if len(group) == 1 else \
                sympy.Add(*(values[j] for j in group)) / len(group)
            if common is None:
                common = mean
            elif mean != common:
                return None
        return common


def _written(expr: sympy.Expr, text: str, numeric: bool) -> Exact:
    """A rational as such; otherwise the expression with its written text."""
    value = sympy_to_exact(expr)
    if isinstance(value, fmpq):
        return value
    return WrittenValue(lambda: expr, lambda: text, numeric)
