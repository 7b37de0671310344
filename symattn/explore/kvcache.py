"""KV cache: causal self-attention decoded one token at a time, proved exact.

A decoder generating token t needs only the new query q_t against the keys
and values of tokens 1..t. Under a causal mask the keys and values of earlier
tokens never change (a token's k and v depend on that token alone, and on its
position), so they are computed once and kept: the cache. Step t

* computes q_t, k_t, v_t from the new token only (x_t W_Q, x_t W_K, x_t W_V;
  with positions, x_t + PE_t, or the RoPE rotation at position t),
* appends k_t, v_t to the cache, which then holds K[:t], V[:t],
* computes the t scores q_t . k_j, the weights and the output row.

``decode(problem)`` does exactly that, then proves each step's output equal to
row t of the full causal computation (``pipeline.derive``): the t scores are
compared exactly (as rationals, or as exact SymPy forms), the full row masks
every later key (weight exactly 0), the cached value rows equal V's rows, and
the output is a function of those (score, value) pairs alone; the exact closed
forms of the two output rows are compared as text as a second check.

The work saved: with the cache each step produces one K row and one V row
(2n for n tokens); recomputing K and V for the whole prefix at every step
produces 2t rows at step t, n(n + 1) in all.

>>> from symattn.problem.problem import Problem
>>> problem = Problem.from_mapping({"inputs": {"X": [[1, 0], [0, 1], [1, 1]],
...     "W_Q": "identity", "W_K": "identity", "W_V": "identity"},
...     "options": {"mask": "causal"}})
>>> steps = decode(problem)
>>> [len(step.cached_keys) for step in steps]
[1, 2, 3]
>>> steps[1].scores, all(step.equal for step in steps)
((0, 1), True)
>>> work_saved(steps)
(6, 12)
"""

from __future__ import annotations

__all__ = ["DecodingStep", "decode", "work_saved", "check_decodable"]

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, Sequence

from flint import fmpq, fmpq_mat

from symattn.derivation import grids
from symattn.derivation.attention import rational_matrix
from symattn.derivation.pipeline import derive
from symattn.errors import InputError, Location
from symattn.explore.shared import attention_only
from symattn.problem.problem import MaskSpec, Problem
from symattn.values.entries import Entry
from symattn.values.exact import Exact, exact_text, rational_text

if TYPE_CHECKING:
    import sympy

Row = tuple[Exact, ...]
# What one step of attention gives: scores, scaled, weights, output, the output's exact texts
Attended = tuple[Row, Row, Row, Row, tuple[str, ...]]


@dataclass(frozen=True)
class DecodingStep:
    """Step ``position`` (1-based) of incremental decoding, with its proof.

    ``query`` is the vector the scores use (after RoPE when positions = rope);
    ``cached_keys`` / ``cached_values`` are the cache after k_t, v_t were
    appended. ``full_scores`` is row t of the full causal scores (keys 1..t).
    """

    position: int
    token: str
    query: Row
    key: Row
    value: Row
    cached_keys: tuple[Row, ...]
    cached_values: tuple[Row, ...]
    scores: Row
    scaled: Row
    weights: Row
    output: Row
    full_scores: Row
    full_output: Row
    scores_equal: int          # how many of the t scores equal the full row's exactly
    masked_after: bool         # the full row masks keys t+1..n: their weights are exactly 0
    values_equal: bool         # the cached value rows are V's rows 1..t exactly
    text_equal: bool           # the exact closed forms of the two output rows are identical
    kv_rows: int = 2           # K and V rows computed at this step with the cache
    kv_rows_without: int = 0   # ... and without it (the whole prefix again: 2t)
    texts: tuple[str, ...] = field(default=(), repr=False)   # exact forms of the output

    @property
    def output_equal(self) -> bool:
        """The output row equals row t of the full computation, proved exactly.

        Same scores on the same open keys (the scale and normalisation are the
        same options) and the same value rows: the same weighted mean.
        """
        return self.scores_equal == self.position and self.masked_after and self.values_equal

    @property
    def equal(self) -> bool:
        return self.output_equal and self.text_equal


def work_saved(steps: Sequence[DecodingStep]) -> tuple[int, int]:
    """K/V rows computed (with the cache, without it) over all steps."""
    return sum(s.kv_rows for s in steps), sum(s.kv_rows_without for s in steps)


def _where(problem: Problem, key: str = "options") -> Location:
    return Location(file=problem.source, key=key)


def check_decodable(problem: Problem) -> None:
    """Refuse, with a clear message, a problem that is not causal self-attention."""
    inputs = problem.inputs
    for name in ("scores", "scaled"):
        if name in inputs:
            raise InputError(f"kvcache computes keys and values token by token: give X with "
                             f"W_Q, W_K, W_V (or Q, K, V), not {name}", _where(problem, "inputs"))
    if "X_kv" in inputs:
        raise InputError("kvcache needs self-attention: with X_kv the keys and values come "
                         "from another sequence, whose cache is filled once, not grown",
                         _where(problem, "inputs.X_kv"))
    if problem.heads > 1 or "W_O" in inputs:
        raise InputError("kvcache decodes one head; remove heads and W_O",
                         _where(problem, "options.heads"))
    if "V" not in inputs and "W_V" not in inputs:
        raise InputError("kvcache needs values: give V or W_V", _where(problem, "inputs"))
    if problem.mask.kind != "causal":
        raise InputError("kvcache decodes causal self-attention: set options.mask = "
                         "\"causal\" (each token attends to itself and the tokens before it)",
                         _where(problem, "options.mask"))
    n, m = problem.score_shape()
    if n != m or (problem.query_positions is not None and
                  problem.query_positions != tuple(range(1, n + 1))):
        raise InputError("kvcache decodes every token in turn: give one query per key "
                         "(no query_positions)", _where(problem, "options.query_positions"))
    if problem.positions != "none":
        from symattn.derivation import positions

        positions.check(problem)


def decode(problem: Problem) -> list[DecodingStep]:
    """Decode the problem token by token with a KV cache; prove each row exact."""
    from symattn.explore.equality import same_exact

    check_decodable(problem)
    base = attention_only(problem)
    # Its rows with positions are SymPy's: so is the full derivation they are compared with.
    full = derive(base, sympy_positions=base.positions != "none")
    rows: _Rows = _SympyRows(base) if base.is_symbolic else _RationalRows(base)
    n = base.score_shape()[0]
    allowed = base.allowed()
    full_scores, full_weights = full["scores"].value, full["weights"].value
    full_v, full_output = full["V"].value, full["output"].value
    keys: list[Row] = []
    values: list[Row] = []
    steps = []
    for t in range(n):
        q, k, v = rows.new(t)
        keys.append(k)
        values.append(v)
        scores, scaled, weights, output, texts = rows.attend(q, keys, values)
        full_row = tuple(full_scores.exact(t, j) for j in range(t + 1))
        scores_equal = sum(same_exact(a, b) for a, b in zip(scores, full_row))
        masked_after = all(not allowed[t][j] and full_weights.exact(t, j) == 0
                           for j in range(t + 1, n)) and all(allowed[t][: t + 1])
        values_equal = all(same_exact(values[j][c], full_v.exact(j, c))
                           for j in range(t + 1) for c in range(full_v.shape[1]))
        full_texts = tuple(full_output.text(t, c) for c in range(full_output.shape[1]))
        token = base.tokens[t] if len(base.tokens) == n else ""
        steps.append(DecodingStep(
            t + 1, token, q, k, v, tuple(keys), tuple(values), scores, scaled, weights, output,
            full_row, tuple(full_output.exact(t, c) for c in range(full_output.shape[1])),
            scores_equal, masked_after, values_equal, texts == full_texts,
            kv_rows=2, kv_rows_without=2 * (t + 1), texts=texts))
    return steps


class _Rows(Protocol):
    """How one decoding step computes its rows: on the fast rational core or in SymPy."""

    def new(self, t: int) -> tuple[Row, Row, Row]:
        """q_t, k_t and v_t from token t (0-based) alone."""

    def attend(self, q: Row, keys: list[Row], values: list[Row]) -> Attended:
        """q against the cached keys and values."""


class _RationalRows:
    """Rational inputs: rows as fmpq; each step's attention by the fast exact core."""

    def __init__(self, problem: Problem) -> None:
        self.problem = problem
        inputs = problem.inputs
        self.given = {name: rational_matrix(inputs[name]) for name in ("Q", "K", "V")
                      if name in inputs}
        self.weights = {name: rational_matrix(inputs[f"W_{name}"]) for name in ("Q", "K", "V")
                        if f"W_{name}" in inputs}
        self.x = rational_matrix(inputs["X"]) if "X" in inputs else None

    def _row(self, name: str, t: int) -> Row:
        if name in self.given:
            matrix = self.given[name]
            return tuple(matrix[t, c] for c in range(matrix.ncols()))
        if self.x is None:
            raise InputError(f"kvcache needs {name} or X with W_{name}")
        x_t = fmpq_mat(1, self.x.ncols(), [self.x[t, c] for c in range(self.x.ncols())])
        product = x_t * self.weights[name]       # one row: the new token only
        return tuple(product[0, c] for c in range(product.ncols()))

    def new(self, t: int) -> tuple[Row, Row, Row]:
        return self._row("Q", t), self._row("K", t), self._row("V", t)

    def attend(self, q: Row, keys: list[Row], values: list[Row]) -> Attended:
        """q against the cache, as a 1 x t attention problem on the fast exact core."""
        problem = self.problem
        sub = dataclasses.replace(
            problem, inputs={"Q": _entries([q]), "K": _entries(keys), "V": _entries(values)},
            mask=MaskSpec(), query_positions=None, tokens=(), vocabulary=None, sequence=(),
            d_k=problem.d_k_value if problem.scale is None else problem.d_k)
        derivation = derive(sub)
        t = len(keys)
        row = {name: tuple(derivation[name].value.exact(0, j) for j in range(t))
               for name in ("scores", "scaled", "weights")}
        output = derivation["output"].value
        width = output.shape[1]
        return (row["scores"], row["scaled"], row["weights"],
                tuple(output.exact(0, c) for c in range(width)),
                tuple(output.text(0, c) for c in range(width)))


def _entries(rows: Sequence[Row]) -> tuple[tuple[Entry, ...], ...]:
    """Rational rows as the entries of a spec (their exact text as written)."""
    return tuple(tuple(Entry(_rational(x), None, rational_text(_rational(x))) for x in row)
                 for row in rows)


def _rational(value: Exact) -> fmpq:
    if not isinstance(value, fmpq):
        raise TypeError(f"the rational core's rows hold rationals, not {value!r}")
    return value


class _SympyRows:
    """Roots, symbols or positions: rows and attention as exact SymPy expressions.

    The formulas are those of ``sympy_path.build_steps`` applied to one query
    row, so equal values come out as identical expressions.
    """

    def __init__(self, problem: Problem) -> None:
        from symattn.derivation.sympy_grid import scale_factor_sympy, sympy_matrix

        self.problem = problem
        inputs = problem.inputs
        self.given = {name: sympy_matrix(inputs[name]) for name in ("Q", "K", "V")
                      if name in inputs}
        self.weights = {name: sympy_matrix(inputs[f"W_{name}"]) for name in ("Q", "K", "V")
                        if f"W_{name}" in inputs}
        self.x = sympy_matrix(inputs["X"]) if "X" in inputs else None
        self.factor = scale_factor_sympy(problem)

    def _row(self, name: str, t: int) -> sympy.Matrix:
        import sympy

        problem = self.problem
        if name in self.given:
            row = self.given[name][t, :]
        elif self.x is None:
            raise InputError(f"kvcache needs {name} or X with W_{name}")
        else:
            x_t = self.x[t, :]
            if problem.positions == "sinusoidal":
                from symattn.derivation.sympy_positions import sinusoidal_entry

                x_t = x_t + sympy.Matrix([[sinusoidal_entry(t, c, x_t.cols,
                                                            problem.position_base)
                                           for c in range(x_t.cols)]])
            row = (x_t * self.weights[name]).applyfunc(sympy.expand)
        if problem.positions == "rope" and name in ("Q", "K"):
            from symattn.derivation.sympy_positions import rotate

            row = rotate(row, problem.position_base, first_position=t)
        return row

    def new(self, t: int) -> tuple[Row, Row, Row]:
        q, k, v = (_exact(self._row(name, t)) for name in "QKV")
        return q, k, v

    def attend(self, q: Row, keys: list[Row], values: list[Row]) -> Attended:
        import sympy

        from symattn.derivation.sympy_rows import SoftmaxRow
        from symattn.values.symbolic import value_to_sympy

        problem = self.problem
        query = [value_to_sympy(x) for x in q]
        scores = []
        for key in keys:
            score = sympy.expand(sum((a * value_to_sympy(b) for a, b in zip(query, key)),
                                     sympy.S.Zero))
            if problem.positions != "none":
                from symattn.derivation.sympy_positions import linearise

                score = linearise(score)
            scores.append(score)
        scaled = [sympy.expand(s * self.factor) for s in scores]
        # the full derivation's rows are made by the same code (sympy_rows): same closed forms
        row = SoftmaxRow(scaled, softmax=problem.normalisation == "softmax")
        if row.total_expr == 0:
            raise grids.zero_row_sum(len(keys) - 1)
        width = len(values[0])
        out = tuple(row.output([value_to_sympy(v[c]) for v in values]) for c in range(width))
        return (_exact(scores), _exact(scaled), tuple(row.weights), out,
                tuple(exact_text(x) for x in out))


def _exact(items: Sequence[sympy.Expr] | sympy.Matrix) -> Row:
    """SymPy results as exact values (rationals as such, the rest as SympyValue)."""
    from symattn.values.symbolic import sympy_to_exact

    return tuple(sympy_to_exact(x) for x in items)
