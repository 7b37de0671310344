"""The terms of written-out sums: which entries multiply, and their exact product.

Documents (and the worked example) write some entries out as sums::

    a score            S[i,j]     = sum_t Q[i,t] K[j,t]     (Q_rot, K_rot with rotary positions)
    an output entry    O[i,j]     = sum_t A[i,t] V[t,j]
    a row sum          Sigma_i    = sum_t E[i,t]
    a projection       (X W)[i,j] = sum_k X[i,k] W[k,j]

A term is the tuple of its factors, each one entry of an operand step; inside
a head the operands carry the head's prefix (``head2.Q``, see ``names``).
The checker follows these terms along a document's printed numbers and the
worked example writes them out, so both read them from here. ``product`` and
``total`` combine values of every kind exactly: rationals, surds and
irrationals through ``values.arith``, SymPy values through SymPy (imported
only when one is met, so the rational path never loads it).

>>> score_term("head2.Q", "head2.K", 0, 1, 2)
(Factor(step='head2.Q', row=0, column=2), Factor(step='head2.K', row=1, column=2))
>>> [factor.step for factor in claim_term("head1.output", 0, 1, 2)]
['head1.weights', 'head1.V']
>>> term_count("exp_sum", {"exp": (3, 4)}), term_count("weights", {"exp": (3, 4)})
(4, 0)
>>> from flint import fmpq
>>> product(fmpq(1, 2), fmpq(2, 3)), total([fmpq(1, 2), fmpq(1, 3)])
(1/3, 5/6)
"""

from __future__ import annotations

__all__ = ["Factor", "Term", "Value", "score_term", "output_term", "row_sum_term",
           "projection_term", "PRINTABLE_TERMS", "claim_term", "term_count", "product",
           "total"]

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Union

from flint import fmpq

from symattn.derivation.names import split_name
from symattn.values import arith
from symattn.values.exact import Exact, Irrational, NegInf, NotANumber, Surd

if TYPE_CHECKING:   # the SymPy bridge is imported only when a SymPy value is met
    import sympy

    from symattn.values.symbolic import SympyValue

# An entry of any path: the exact core's kinds, or a SymPy value on the symbolic path.
Value = Union[Exact, "SympyValue"]

_EXACT_KINDS = (fmpq, NegInf, NotANumber, Surd, Irrational)


@dataclass(frozen=True)
class Factor:
    """One factor of a term: entry (row, column), 0-based, of an operand step."""

    step: str
    row: int
    column: int


Term = tuple[Factor, ...]


def score_term(queries: str, keys: str, i: int, j: int, t: int) -> Term:
    """Term t of the score S[i,j] = sum_t Q[i,t] K[j,t]: query i and key j, dimension t."""
    return (Factor(queries, i, t), Factor(keys, j, t))


def output_term(weights: str, values: str, i: int, j: int, t: int) -> Term:
    """Term t of the output O[i,j] = sum_t A[i,t] V[t,j]: weight (i, t) times value (t, j)."""
    return (Factor(weights, i, t), Factor(values, t, j))


def row_sum_term(exponentials: str, i: int, t: int) -> Term:
    """Term t of the row sum Sigma_i = sum_t E[i,t]: one exponential."""
    return (Factor(exponentials, i, t),)


def projection_term(source: str, weight: str, i: int, j: int, k: int) -> Term:
    """Term k of the projection (X W)[i,j] = sum_k X[i,k] W[k,j]."""
    return (Factor(source, i, k), Factor(weight, k, j))


# The sums a document may print term by term (``STEP[i,j].terms``), by step
# name without its head prefix: the operand whose columns number the terms.
PRINTABLE_TERMS: dict[str, str] = {"scores": "Q", "output": "weights", "exp_sum": "exp"}

# Their terms, from the head prefix, the entry (i, j), the term t and the
# step's operands. A score's terms are those of the matrices it multiplies:
# Q and K, or Q_rot and K_rot with rotary positions.
def _score_of(prefix: str, i: int, j: int, t: int, operands: tuple[str, ...]) -> Term:
    left, right = operands if len(operands) == 2 else ("Q", "K")
    return score_term(prefix + split_name(left)[1], prefix + split_name(right)[1], i, j, t)


_PRINTED_TERM: dict[str, Callable[[str, int, int, int, tuple[str, ...]], Term]] = {
    "scores": _score_of,
    "output": lambda prefix, i, j, t, _: output_term(prefix + "weights", prefix + "V", i, j, t),
    "exp_sum": lambda prefix, i, j, t, _: row_sum_term(prefix + "exp", i, t),
}


def claim_term(step: str, i: int, j: int, t: int, operands: tuple[str, ...] = ()) -> Term:
    """Term t of entry (i, j) of a step whose terms a document may print;
    ``operands``: the step's own (a score of rotated queries and keys is
    read as Q_rot . K_rot).

    >>> claim_term("scores", 2, 0, 1)
    (Factor(step='Q', row=2, column=1), Factor(step='K', row=0, column=1))
    >>> claim_term("scores", 0, 1, 0, ("Q_rot", "K_rot"))[1]
    Factor(step='K_rot', row=1, column=0)
    """
    prefix, base = split_name(step)
    return _PRINTED_TERM[base](prefix, i, j, t, operands)


def term_count(step: str, shapes: Mapping[str, tuple[int, int]]) -> int:
    """How many terms an entry of ``step`` has when printed term by term (0: none)."""
    prefix, base = split_name(step)
    counted_by = PRINTABLE_TERMS.get(base)
    return 0 if counted_by is None else shapes.get(prefix + counted_by, (0, 0))[1]


def product(left: Value, right: Value) -> Value:
    """The exact product of two entries (through SymPy when either is a SymPy value)."""
    if isinstance(left, _EXACT_KINDS) and isinstance(right, _EXACT_KINDS):
        return arith.multiply(left, right)
    return _from_sympy(_to_sympy(left) * _to_sympy(right))


def total(values: Iterable[Value]) -> Value:
    """The exact sum of entries (through SymPy when any is a SymPy value)."""
    listed = list(values)
    exact = [value for value in listed if isinstance(value, _EXACT_KINDS)]
    if len(exact) == len(listed):
        return arith.total(exact)
    return _from_sympy(sum(_to_sympy(value) for value in listed))


def _to_sympy(value: Value) -> sympy.Expr:
    from symattn.values.symbolic import value_to_sympy

    return value_to_sympy(value)


def _from_sympy(expr: sympy.Expr) -> Value:
    from symattn.values.symbolic import sympy_to_exact

    value: Value = sympy_to_exact(expr)
    return value
