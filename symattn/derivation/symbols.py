"""What a reader asks of a symbol, answered by SymPy as steps after the weights.

The spec's ``[symbols]`` table (``problem.symbols``) asks for limits of the
attention weights (``T -> 0+``: the arg-max row, one-hot where the largest
score is unique; ``T -> oo``: the uniform row), their derivative with respect
to a symbol, and their values at a substituted number (certified decimals).
Each answer is a step of the derivation:

- ``weights_to_zero_T`` (``lim_{T -> 0+} A``), ``weights_to_infinity_T``;
- ``weights_derivative_T`` (``dA/dT``);
- ``weights_subs`` (``A`` at ``T = 1/2``, say).

>>> from symattn.problem.problem import Problem
>>> from symattn.derivation.pipeline import derive
>>> problem = Problem.from_mapping({"inputs": {"scores": [[2, 1, 0]]},
...     "options": {"scale": "none", "temperature": "T"},
...     "symbols": {"limits": ["T -> 0+", "T -> oo"], "subs": {"T": "1"}}})
>>> derivation = derive(problem)
>>> [str(derivation["weights_to_zero_T"].value.exact(0, j)) for j in range(3)]
['1', '0', '0']
>>> [str(derivation["weights_to_infinity_T"].value.exact(0, j)) for j in range(3)]
['1/3', '1/3', '1/3']
"""

from __future__ import annotations

__all__ = ["insert", "softmax_limit", "softmax_derivative"]

from typing import Sequence

import sympy
from flint import fmpq

from symattn.derivation.names import base_name, symbol_latex
from symattn.derivation.steps import Step
from symattn.derivation.sympy_grid import SympyGrid
from symattn.errors import InputError, Location
from symattn.problem.problem import Problem
from symattn.problem.symbols import Limit
from symattn.values.exact import Exact
from symattn.values.symbolic import value_to_sympy

def insert(problem: Problem, steps: Sequence[Step]) -> list[Step]:
    """``steps`` with the answers to ``problem.symbols`` right after the weights."""
    out = list(steps)
    asked = problem.symbols
    if not asked:
        return out
    where = Location(file=problem.source, key="symbols")
    at = next((k for k, s in enumerate(out) if base_name(s.name) == "weights" and
               s.name == "weights"), None)
    if at is None:
        raise InputError("[symbols] needs the attention weights of one head", where)
    weights = sympy.Matrix(out[at].value.shape[0], out[at].value.shape[1],
                           lambda i, j: value_to_sympy(out[at].value.exact(i, j)))
    symbols = {s.name: s for s in weights.free_symbols if isinstance(s, sympy.Symbol)}
    added = [_limit(weights, limit, symbols, where) for limit in asked.limits]
    if asked.derivative:
        added.append(_derivative(weights, asked.derivative, symbols))
    if asked.subs:
        added.append(_substituted(weights, asked.subs, symbols, where))
    return out[:at + 1] + added + out[at + 1:]


def _symbol(name: str, symbols: dict[str, sympy.Symbol]) -> sympy.Symbol:
    # A symbol the weights do not depend on (it cancelled) is constant: any will do.
    return symbols.get(name, sympy.Symbol(name, real=True))


def _limit(weights: sympy.Matrix, limit: Limit, symbols: dict[str, sympy.Symbol],
           where: Location) -> Step:
    symbol = _symbol(limit.symbol, symbols)
    point, side = (sympy.S.Zero, "+") if limit.to == "0+" else (sympy.oo, "-")

    def entry(expr: sympy.Expr) -> sympy.Expr:
        known = softmax_limit(expr, symbol, limit.to == "0+")
        value = known if known is not None else sympy.limit(expr, symbol, point, side)
        if value.has(sympy.Limit, sympy.zoo, sympy.nan):
            raise InputError(f"no limit of the weights as {limit.symbol} -> {limit.to} "
                             f"could be found", where.at(key="limits"))
        return value

    name = "zero" if limit.to == "0+" else "infinity"
    tex = symbol_latex(limit.symbol)
    to = "0^{+}" if limit.to == "0+" else "\\infty"
    return Step(f"weights_to_{name}_{limit.symbol}", f"A_{{{tex} \\to {to}}}",
                f"\\lim_{{{tex} \\to {to}}} A_{{ij}}", ("weights",),
                f"the attention weights as {limit.symbol} goes to {limit.to}",
                SympyGrid(weights.applyfunc(entry)))


_Term = tuple[sympy.Expr, sympy.Expr, sympy.Expr]   # c, r and exp(r/T) (1 for r = 0)


def _terms(expr: sympy.Expr, symbol: sympy.Symbol) -> list[_Term] | None:
    """``c exp(r/symbol)`` (or a number ``c``, r = 0) as ``(c, r, exp)``, c > 0, r numbers."""
    found = []
    for term in sympy.Add.make_args(expr):
        c, rest = term.as_coeff_Mul()
        if rest == 1:
            r = sympy.S.Zero
        elif isinstance(rest, sympy.exp):
            r = sympy.expand(rest.args[0] * symbol)
        else:
            return None
        if r.free_symbols or not c.is_positive:
            return None
        found.append((c, r, rest))
    return found


def _softmax_parts(expr: sympy.Expr, symbol: sympy.Symbol
                   ) -> tuple[_Term, list[_Term], sympy.Expr] | None:
    """A weight ``c exp(r/T) / sum_k c_k exp(r_k/T)`` as its numerator's term, the
    denominator's terms and the denominator; None for any other form."""
    factors = sympy.Mul.make_args(expr)
    sums = [f for f in factors if f.is_Pow and f.exp == -1 and f.base.is_Add]
    if len(sums) != 1:
        return None
    numerator = _terms(sympy.Mul(*(f for f in factors if f is not sums[0])), symbol)
    denominator = _terms(sums[0].base, symbol)
    if numerator is None or denominator is None or len(numerator) != 1:
        return None
    return numerator[0], denominator, sums[0].base


def softmax_limit(expr: sympy.Expr, symbol: sympy.Symbol, to_zero: bool) -> sympy.Expr | None:
    """The limit of a softmax weight ``c exp(r/T) / sum_k c_k exp(r_k/T)`` (r, r_k numbers)
    as T -> 0+ (the keys of the largest r share the weight) or T -> oo (the exponentials
    tend to 1); None for any other form (SymPy's ``limit`` then decides).

    >>> T = sympy.Symbol("T", real=True)
    >>> w = sympy.exp(2 / T) / (sympy.exp(2 / T) + 2 * sympy.exp(-1 / T) + 1)
    >>> softmax_limit(w, T, True), softmax_limit(w, T, False)
    (1, 1/4)
    """
    if not expr.has(symbol):
        return expr
    parts = _softmax_parts(expr, symbol)
    if parts is None:
        return None
    (c, r, _), denominator, _ = parts
    if not to_zero:
        return c / sympy.Add(*(c_k for c_k, _, _ in denominator))
    differences = [r_k - r for _, r_k, _ in denominator]
    if any(d.is_zero is None or d.is_positive is None for d in differences):
        return None      # a sign SymPy cannot decide
    if any(d.is_positive for d in differences):
        return sympy.S.Zero
    return c / sympy.Add(*(c_k for (c_k, _, _), d in zip(denominator, differences) if d.is_zero))


def softmax_derivative(expr: sympy.Expr, symbol: sympy.Symbol) -> sympy.Expr:
    """d/dT of a weight: for ``w_j = c exp(r/T) / S`` with ``S = sum_k c_k exp(r_k/T)``,
    ``c exp(r/T) sum_k c_k (r_k - r) exp(r_k/T) / (T^2 S^2)`` (each dz/dT = -r/T^2);
    ``together(diff(...))`` for any other form.

    >>> T = sympy.Symbol("T", real=True)
    >>> softmax_derivative(sympy.exp(2 / T) / (sympy.exp(2 / T) + 1), T)
    -2*exp(2/T)/(T**2*(exp(2/T) + 1)**2)
    """
    parts = _softmax_parts(expr, symbol) if expr.has(symbol) else None
    if parts is None:
        return sympy.together(sympy.diff(expr, symbol))
    (c, r, power), denominator, total = parts
    inner = sympy.Add(*(c_k * (r_k - r) * e_k for c_k, r_k, e_k in denominator))
    return c * power * inner / (symbol ** 2 * total ** 2)


def _derivative(weights: sympy.Matrix, name: str, symbols: dict[str, sympy.Symbol]) -> Step:
    symbol = _symbol(name, symbols)
    tex = symbol_latex(name)
    derivative = weights.applyfunc(lambda expr: softmax_derivative(expr, symbol))
    return Step(f"weights_derivative_{name}", f"\\frac{{\\partial A}}{{\\partial {tex}}}",
                f"\\frac{{\\partial A_{{ij}}}}{{\\partial {tex}}}", ("weights",),
                f"the derivative of each weight with respect to {name}", SympyGrid(derivative))


def _substituted(weights: sympy.Matrix, subs: tuple[tuple[str, Exact], ...],
                 symbols: dict[str, sympy.Symbol], where: Location) -> Step:
    pairs = [(_symbol(name, symbols), value_to_sympy(value)) for name, value in subs]
    values = weights.applyfunc(lambda expr: expr.subs(pairs))
    if any(value.has(sympy.zoo, sympy.nan, sympy.oo) for value in values):
        raise InputError("the weights have no value there (a division by zero)",
                         where.at(key="subs"))
    at = ", ".join(f"{symbol_latex(name)} = {_value_latex(value)}" for name, value in subs)
    return Step("weights_subs", f"A\\big|_{{{at}}}", f"A_{{ij}}\\big|_{{{at}}}", ("weights",),
                "the attention weights at the given value", SympyGrid(values))


def _value_latex(value: Exact) -> str:
    """A substituted number as the page writes it: ``1/2``, ``\\sqrt{2}``."""
    return str(value) if isinstance(value, fmpq) else sympy.latex(value_to_sympy(value))
