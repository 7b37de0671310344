"""The closed forms of the softmax grids as text, each piece written once.

A softmax row's closed forms all repeat the row's exponentials: a weight is
``exp(x_j)/(exp(x_1) + ... + exp(x_m))`` and an output entry has the same
denominator. ``RowTexts`` writes each ``exp(...)`` and each row's sum once and
every entry of the row refers to the same strings, so writing a row of m
weights costs O(m) pieces joined, not O(m^2) numbers formatted.

>>> from flint import fmpq, fmpq_mat
>>> from symattn.derivation.grids import MaskedGrid, ScaledGrid
>>> texts = RowTexts(MaskedGrid(ScaledGrid(fmpq_mat([[0, 2]]), fmpq(1)), [[True, True]]))
>>> texts.exps(0), texts.sum(0)
(['1', 'exp(2)'], '1 + exp(2)')
"""

from __future__ import annotations

__all__ = ["RowTexts", "exp_text", "exp_texts"]

from functools import lru_cache
from typing import Callable, Sequence

from flint import fmpq_mat

from symattn.derivation.grids import MaskedGrid
from symattn.values.exact import NEG_INF, Exact, exact_text, rational_texts


def exp_text(argument: Exact) -> str:
    """``exp(x)``, or ``1`` for x = 0."""
    return "1" if argument == 0 else f"exp({exact_text(argument)})"


def exp_texts(masked: list[tuple[str | None, ...]]) -> list[tuple[str | None, ...]]:
    """The exponentials' texts from the masked scores' texts: -oo gives 0, 0 gives 1."""
    fixed = {exact_text(NEG_INF): "0", "0": "1"}
    return [tuple(fixed.get(text, f"exp({text})") if text is not None else None
                  for text in row) for row in masked]


class RowTexts:
    """The exponential texts of a row's open keys, written once per row and shared.

    A softmax row's closed forms all repeat the row's exponentials (a weight is
    ``exp(x_j)/(exp(x_1) + ... + exp(x_m))``, an output entry the same
    denominator): each ``exp(...)`` and the joined sum are made once for the
    row, and every entry of the row refers to them. Only the last few rows are
    kept, since renderers write a grid row by row.
    """

    def __init__(self, masked: MaskedGrid) -> None:
        self.masked = masked
        self.exps: Callable[[int], list[str]] = lru_cache(maxsize=4)(self._exps)
        self.sum: Callable[[int], str] = lru_cache(maxsize=4)(self._sum)
        self._values: list[tuple[str, ...]] | None = None   # V's entries, once

    def _exps(self, i: int) -> list[str]:
        """``exp(x_ic)`` (or ``1``) for every column c; masked columns as ``0``."""
        masked = self.masked
        texts = ["0"] * masked.shape[1]
        for c in masked.open_columns(i):
            texts[c] = exp_text(masked.exact(i, c))
        return texts

    def _sum(self, i: int) -> str:
        """The row's sum of exponentials: ``exp(x_1) + ... + exp(x_m)``."""
        exps = self.exps(i)
        return " + ".join(exps[c] for c in self.masked.open_columns(i))

    def weights(self, i: int, columns: Sequence[int]) -> tuple[str, ...]:
        """The softmax closed forms of row i: ``exp(x_j)/(sum)``, 0 where masked."""
        exps, total, allowed = self.exps(i), self.sum(i), self.masked.allowed[i]
        return tuple(f"{exps[j]}/({total})" if allowed[j] else "0" for j in columns)

    def output(self, i: int, k: int, values: fmpq_mat) -> str:
        """Output entry (i, k): ``(v_1k*exp(x_1) + ...)/(sum)``, terms of a zero v left
        out, no "1*" and no "*1"."""
        if self._values is None:
            self._values = rational_texts(values, range(values.nrows()), range(values.ncols()))
        texts, exps = self._values, self.exps(i)
        terms = []
        for c in self.masked.open_columns(i):
            value = texts[c][k]
            if value != "0":
                factor = exps[c]
                terms.append(factor if value == "1" else value if factor == "1"
                             else f"{value}*{factor}")
        numerator = " + ".join(terms)
        # a lone product needs no parentheses: a*b/c reads (a*b)/c
        return f"{numerator}/({self.sum(i)})" if " + " not in numerator \
            else f"({numerator})/({self.sum(i)})"
