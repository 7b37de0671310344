"""Permutation equivariance: permute the tokens, prove what happens to the output.

Self-attention without positions cannot tell the order of its tokens:
permuting the rows of X permutes the rows of the output, exactly
(``permutation_check`` proves it entry by entry). Positions break that
symmetry (``derive.positions``).
"""

from __future__ import annotations

__all__ = ['RowComparison', 'PermutationResult', 'parse_order', 'permute_problem',
           'permutation_check', 'TEXT_CHECK_TOKENS']

import dataclasses
from dataclasses import dataclass, field
from typing import Sequence

from flint import fmpq

from symattn.derivation.grids import Grid
from symattn.derivation.pipeline import derive
from symattn.derivation.steps import Derivation
from symattn.errors import InputError, cut
from symattn.explore.equality import proved_different, same_closed_form, same_exact
from symattn.explore.shared import attention_only
from symattn.problem.problem import Problem
from symattn.values.exact import Exact
from symattn.values.whole import ascii_whole


# ------------------------------------------------------ permutation equivariance
@dataclass(frozen=True)
class RowComparison:
    """Row ``row`` of the permuted problem against row ``source`` of the original.

    ``verdict`` is ``equal`` (proved exactly), ``differs`` (proved: certified
    balls apart) or ``undecided``. ``structural`` says the row sees the same
    (score, value) pairs as the original row, every one compared exactly;
    ``text_equal`` whether the exact closed forms agree (read back by SymPy),
    None when they could not be compared.
    """

    row: int                        # 1-based, in the permuted problem
    source: int                     # 1-based, in the original problem
    token: str
    verdict: str
    structural: bool
    text_equal: bool | None
    permuted: tuple[Exact, ...]     # exact values of the permuted problem's row
    original: tuple[Exact, ...]     # exact values of the original row ``source``


@dataclass(frozen=True)
class PermutationResult:
    """What permuting the tokens did to the output, proved entry by entry.

    ``order[i]`` (1-based) is the original token that row i + 1 of the
    permuted problem holds. ``scores`` and ``values`` count the entries
    S'[i, j] vs S[order[i], order[j]] and the rows V'[j] vs V[order[j]] that
    are (equal exactly, proved different, undecided); ``values`` is None
    without V.
    """

    order: tuple[int, ...]
    positions: str
    position_base: int
    mask: str
    step: str                                   # "output", or "weights" without V
    scores: tuple[int, int, int]
    values: tuple[int, int, int] | None
    rational: bool                              # every score compared is a rational
    rows: tuple[RowComparison, ...]
    notes: tuple[str, ...]
    original: Derivation = field(repr=False, compare=False)
    permuted: Derivation = field(repr=False, compare=False)

    @property
    def equivariant(self) -> bool:
        """Every row of the permuted problem equals the permuted original row exactly."""
        return all(row.verdict == "equal" for row in self.rows)

    @property
    def differing(self) -> tuple[int, ...]:
        """Rows (1-based, permuted problem) proved different from the permuted original."""
        return tuple(row.row for row in self.rows if row.verdict == "differs")


def parse_order(text: str) -> tuple[int, ...]:
    """``"3,1,2"`` as (3, 1, 2); a clear error for anything else.

    >>> parse_order(" 3, 1,2 ")
    (3, 1, 2)
    """
    numbers = []
    for part in text.split(","):
        number = ascii_whole(part)
        if number is None:
            raise InputError(f"--order: {cut(part.strip())!r} is not a token number; give the "
                             "original tokens' 1-based numbers in their new order, e.g. 3,1,2")
        numbers.append(number)
    return tuple(numbers)


def _validate_order(order: Sequence[int], n: int) -> tuple[int, ...]:
    order = tuple(int(k) for k in order)
    expected = ",".join(str(k) for k in range(1, n + 1))
    if len(order) != n or sorted(order) != list(range(1, n + 1)):
        given = ",".join(str(k) for k in order)
        raise InputError(f"order {given} is not a permutation of the {n} tokens: list each of "
                         f"{expected} exactly once")
    return tuple(k - 1 for k in order)


def _check_permutable(problem: Problem) -> tuple[int, int]:
    n, m = problem.score_shape()
    if "X_kv" in problem.inputs:
        raise InputError("permute needs self-attention: with X_kv the queries and the keys "
                         "come from two sequences")
    if n != m:
        raise InputError(f"permute needs self-attention: one token per query and per key, but "
                         f"there {'is 1 query' if n == 1 else f'are {n} queries'} and {m} keys")
    return n, m


def permute_problem(problem: Problem, order: Sequence[int]) -> Problem:
    """The same problem with its tokens in ``order`` (1-based original numbers).

    The rows of X, Q, K and V (and rows and columns of given scores) move with
    their tokens; the weights W, the options and any mask stay where they are.

    >>> p = Problem.from_mapping({"inputs": {"Q": [[1], [2]], "K": [[3], [4]]}})
    >>> [row[0].text for row in permute_problem(p, [2, 1]).inputs["K"]]
    ['4', '3']
    """
    n, _ = _check_permutable(problem)
    perm = _validate_order(order, n)
    inputs = dict(problem.inputs)
    for name in ("X", "Q", "K", "V"):
        if name in inputs:
            inputs[name] = tuple(inputs[name][k] for k in perm)
    for name in ("scores", "scaled"):
        if name in inputs:
            inputs[name] = tuple(tuple(inputs[name][a][b] for b in perm) for a in perm)
    # Token names and vocabulary ids move with their tokens when there is one per token.
    tokens = tuple(problem.tokens[k] for k in perm) if len(problem.tokens) == n \
        else problem.tokens
    sequence = tuple(problem.sequence[k] for k in perm) if len(problem.sequence) == n \
        else problem.sequence
    return dataclasses.replace(problem, inputs=inputs, tokens=tokens, sequence=sequence)


TEXT_CHECK_TOKENS = 16    # permute compares closed forms as text up to this many tokens

Pair = tuple[Exact, Exact]


def permutation_check(problem: Problem, order: Sequence[int]) -> PermutationResult:
    """Permute the tokens and compare every output row with the permuted original.

    Without positions and without a mask, row i of the permuted problem sees
    the scores S'[i, j] = S[order[i], order[j]] and the values V'[j] =
    V[order[j]], all compared exactly; its weights and output are functions of
    the multiset of (score, value) pairs, so O'[i] = O[order[i]] exactly (the
    exact closed forms are compared as a second check). With positions, or a
    mask (which stays with the positions), the rows are compared exactly where
    equal and proved different by certified balls where not.

    >>> p = Problem.from_mapping({"inputs": {"X": [[1, 0], [0, 1], [1, 1]], "W_Q": "identity",
    ...     "W_K": "identity", "W_V": "identity"}})
    >>> result = permutation_check(p, [3, 1, 2])
    >>> result.equivariant, result.scores
    (True, (9, 0, 0))
    >>> import dataclasses
    >>> permutation_check(dataclasses.replace(p, positions="sinusoidal"), [3, 1, 2]).differing
    (1, 2, 3)
    """
    n, _ = _check_permutable(problem)
    perm = _validate_order(order, n)
    base = attention_only(problem)
    permuted_problem = permute_problem(base, [k + 1 for k in perm])
    comparison = _Comparison(derive(base), derive(permuted_problem), perm)
    score_pairs = comparison.score_pairs()
    value_pairs = comparison.value_pairs()
    tokens = permuted_problem.tokens if len(permuted_problem.tokens) == n else ("",) * n
    rows = tuple(comparison.row(i, tokens[i]) for i in range(n))
    rational = all(isinstance(a, fmpq) and isinstance(b, fmpq) for a, b in score_pairs)
    return PermutationResult(tuple(k + 1 for k in perm), problem.positions,
                             problem.position_base, problem.mask.kind, comparison.step,
                             _tally(score_pairs), _value_rows(value_pairs, n) if value_pairs
                             else None, rational, rows, _notes(base), comparison.original,
                             comparison.permuted)


class _Comparison:
    """The original and the permuted derivation, compared entry by entry.

    ``perm[i]`` (0-based) is the original token at row i of the permuted problem.
    """

    def __init__(self, original: Derivation, permuted: Derivation, perm: tuple[int, ...]) -> None:
        self.original, self.permuted, self.perm = original, permuted, perm
        self.allowed = original.problem.allowed()
        self.allowed_p = permuted.problem.allowed()
        self.families = _families(original)
        self.step = "output" if "output" in original else "weights"

    def _scores(self, prefix: str) -> tuple[Grid, Grid]:
        name = _score_source(self.original, prefix)
        return self.original[name].value, self.permuted[name].value

    def score_pairs(self) -> list[Pair]:
        """S'[i, j] against S[perm[i], perm[j]], over every head."""
        n, perm = len(self.perm), self.perm
        pairs: list[Pair] = []
        for prefix in self.families:
            s, s_p = self._scores(prefix)
            pairs += [(s_p.exact(i, j), s.exact(perm[i], perm[j]))
                      for i in range(n) for j in range(n)]
        return pairs

    def value_pairs(self) -> list[list[Pair]]:
        """V'[j] against V[perm[j]], entry by entry, one list per head with V."""
        n, perm = len(self.perm), self.perm
        pairs = []
        for prefix in self.families:
            if prefix + "V" in self.original:
                v, v_p = self.original[prefix + "V"].value, self.permuted[prefix + "V"].value
                pairs.append([(v_p.exact(j, k), v.exact(perm[j], k))
                              for j in range(n) for k in range(v.shape[1])])
        return pairs

    def row(self, i: int, token: str) -> RowComparison:
        """Row i of the permuted problem against row perm[i] of the original."""
        step, src = self.step, self.perm[i]
        width = self.original[step].value.shape[1]
        # output columns are features; weights columns are tokens and move too
        columns_p = list(range(width))
        columns = columns_p if step == "output" else [self.perm[j] for j in columns_p]
        mine = _row_values(self.permuted, step, i, columns_p)
        theirs = _row_values(self.original, step, src, columns)
        structural = self.structural(i)
        # second check: the closed forms read back by SymPy (small problems only: a
        # closed form has a term per key)
        texts = [same_closed_form(a, b) for a, b in zip(mine, theirs)] \
            if len(self.perm) <= TEXT_CHECK_TOKENS else [None]
        text_equal = None if any(t is None for t in texts) else all(texts)
        if structural or text_equal or all(same_exact(a, b) for a, b in zip(mine, theirs)):
            verdict = "equal"
        elif any(proved_different(a, b) for a, b in zip(mine, theirs)):
            verdict = "differs"
        else:
            verdict = "undecided"
        return RowComparison(i + 1, src + 1, token, verdict, structural, text_equal, mine, theirs)

    def structural(self, i: int) -> bool:
        """Row i of the permuted problem sees exactly the (score, value) pairs of row perm[i].

        The open keys must correspond under the permutation, and for each open key
        the score and the value row must be equal exactly, in every head. (The
        scale, temperature and normalisation are the same options in both.)
        """
        if self.original.problem.positions != "none":
            return False
        perm, src = self.perm, self.perm[i]
        open_p = [j for j in range(len(perm)) if self.allowed_p[i][j]]
        if sorted(perm[j] for j in open_p) != [j for j in range(len(perm))
                                               if self.allowed[src][j]]:
            return False
        for prefix in self.families:
            s, s_p = self._scores(prefix)
            if not all(same_exact(s_p.exact(i, j), s.exact(src, perm[j])) for j in open_p):
                return False
            if prefix + "V" in self.original:
                v, v_p = self.original[prefix + "V"].value, self.permuted[prefix + "V"].value
                if not all(same_exact(v_p.exact(j, k), v.exact(perm[j], k))
                           for j in open_p for k in range(v.shape[1])):
                    return False
        return True


def _tally(pairs: Sequence[Pair]) -> tuple[int, int, int]:
    equal = differ = 0
    for a, b in pairs:
        if same_exact(a, b):
            equal += 1
        elif proved_different(a, b):
            differ += 1
    return equal, differ, len(pairs) - equal - differ


def _families(derivation: Derivation) -> list[str]:
    """Head prefixes: ``[""]`` for one head, ``["head1.", ...]`` for several."""
    names = derivation.names
    prefixes = [name[: -len("scaled")] for name in names if name.endswith("scaled")]
    return prefixes or [""]


def _score_source(derivation: Derivation, prefix: str) -> str:
    """The step the weights are a fixed function of: the raw scores (or given scaled)."""
    return prefix + ("scores" if prefix + "scores" in derivation else "scaled")


def _row_values(derivation: Derivation, step: str, row: int, columns: Sequence[int]
                ) -> tuple[Exact, ...]:
    grid = derivation[step].value
    return tuple(grid.exact(row, c) for c in columns)


def _value_rows(value_pairs: list[list[Pair]], n: int) -> tuple[int, int, int]:
    """Rows V'[j] vs V[order[j]] over all heads: (equal, different, undecided)."""
    equal = differ = total = 0
    for family in value_pairs:
        width = len(family) // n
        for j in range(n):
            pairs = family[j * width:(j + 1) * width]
            total += 1
            if all(same_exact(a, b) for a, b in pairs):
                equal += 1
            elif any(proved_different(a, b) for a, b in pairs):
                differ += 1
    return equal, differ, total - equal - differ


def _notes(problem: Problem) -> tuple[str, ...]:
    notes = []
    if problem.positions == "sinusoidal":
        notes.append(f"positions = sinusoidal (base {problem.position_base}): X_pos = X + PE "
                     "adds the encoding of the row's position, not of the token, so a token "
                     "moved to another position gets another encoding")
    elif problem.positions == "rope":
        notes.append(f"positions = rope (base {problem.position_base}): each query and key is "
                     "rotated by an angle proportional to its position, so a score depends on "
                     "how far apart the two tokens are")
    if problem.mask.kind != "none":
        notes.append(f"mask = {problem.mask.kind}: a mask belongs to positions, not tokens, and "
                     "stays in place; masks break permutation equivariance, so equal rows are "
                     "not expected")
    return tuple(notes)
