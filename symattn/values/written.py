"""What the closed form of a value would write, counted without writing it.

A value made by ``values.arith`` keeps its parts (``Irrational.parts``), and its
closed form repeats theirs: a LayerNorm entry repeats its row's mean in every
centred entry and every centred entry in the variance, so after two layers its
text runs to megabytes. ``exponentials`` and ``closed_form_terms`` count from the
parts, each part once (the count is kept on it), so that ``--max-terms`` leaves
such a closed form out before anything is written.
"""

from __future__ import annotations

__all__ = ["exponentials", "closed_form_terms", "writes", "written_texts", "TOO_LONG"]

from typing import Callable, Sequence

from flint import fmpq

from symattn.defaults import MAX_WRITTEN
from symattn.values.exact import NAN, NEG_INF, Exact, Irrational, Surd, exact_text


def exponentials(value: Exact) -> int:
    """How many exponentials (``exp(``) the closed form of ``value`` writes, counted
    without writing it: a value made by ``values.arith`` adds up its parts (each counted
    once and remembered), whose texts its own repeats. A LayerNorm entry of a layer
    over softmax rows repeats its row's mean in every centred entry and every centred
    entry in the variance: its text grows exponentially with the depth, the count
    costs one visit per part.

    >>> from symattn.values import arith
    >>> e = arith.exp(fmpq(1, 2))
    >>> exponentials(arith.add(arith.multiply(e, e), e)), exponentials(fmpq(3))
    (3, 0)
    """
    if isinstance(value, (fmpq, Surd)) or value is NEG_INF or value is NAN:
        return 0
    if not isinstance(value, Irrational):
        return exact_text(value).count("exp(")
    return _remembered(value, "_exponentials", lambda: value.text.count("exp(") if not
                       value.parts else value.own_exponentials +
                       sum(exponentials(part) for part in value.parts))


def _remembered(value: Irrational, slot: str, count: Callable[[], int]) -> int:
    """``count()``, made once per value and kept on it in ``slot`` (each part of a deep
    value is reached along many paths: it is counted once)."""
    counted = value.__dict__.get(slot)
    if counted is None:
        counted = count()
        object.__setattr__(value, slot, counted)    # frozen: a cache, not a field
    return int(counted)


# The terms counted for a closed form longer than ``defaults.MAX_WRITTEN`` characters:
# more than any --max-terms, so that it is left out unless every closed form is asked for.
TOO_LONG = 10 ** 9


def closed_form_terms(value: Exact) -> int:
    """``exponentials``, or ``TOO_LONG`` for a closed form that would be longer than
    ``defaults.MAX_WRITTEN`` characters whatever its exponentials (two LayerNorms over
    square roots and erf write megabytes with none), both counted without writing it.

    >>> from symattn.values import arith
    >>> deep = arith.add(arith.sqrt(fmpq(2)), arith.sqrt(fmpq(3)))
    >>> for _ in range(20):
    ...     deep = arith.multiply(arith.add(deep, arith.sqrt(fmpq(5))), deep)
    >>> closed_form_terms(deep) == TOO_LONG, closed_form_terms(arith.exp(fmpq(1)))
    (True, 1)
    """
    return TOO_LONG if _written_length(value) > MAX_WRITTEN else exponentials(value)


def writes(value: Exact, max_terms: int | None) -> bool:
    """Whether ``--max-terms`` (None: no bound) lets the closed form of ``value`` be
    written: ``closed_form_terms(value) <= max_terms``, its length measured only when its
    exponentials are few enough (most long ones are left out for those alone).

    >>> from symattn.values import arith
    >>> writes(arith.exp(fmpq(1)), 1), writes(arith.exp(fmpq(1)), None), writes(fmpq(2), 0)
    (True, True, True)
    """
    if max_terms is None:
        return True
    return exponentials(value) <= max_terms and _written_length(value) <= MAX_WRITTEN


def written_texts(exact: Callable[[int, int], Exact], rows: Sequence[int],
                  columns: Sequence[int], max_terms: int | None
                  ) -> list[tuple[str | None, ...]]:
    """The closed forms of a block of values made by ``values.arith`` (``exact(i, j)``),
    None where ``writes`` says ``--max-terms`` leaves one out: a grid's ``texts``."""
    block: list[tuple[str | None, ...]] = []
    for i in rows:
        values = [exact(i, j) for j in columns]
        block.append(tuple(exact_text(v) if writes(v, max_terms) else None for v in values))
    return block


# Characters an ``arith`` value writes around its parts, at most: its own text
# ("*(1 + erf(/sqrt(2)))/2") and, for each part, parentheses and a " + ".
_OWN_TEXT, _PER_PART = 24, 5


def _written_length(value: Exact) -> int:
    """The length of ``exact_text(value)``, at most (written for a value made without parts,
    counted from the parts, once each and remembered, for one made by ``values.arith``)."""
    if not isinstance(value, Irrational):
        return len(exact_text(value))
    return _remembered(value, "_length", lambda: len(value.text) if not value.parts else
                       _OWN_TEXT + sum(_PER_PART + _written_length(part)
                                       for part in value.parts))
