"""The document's own path: a number recomputed from the numbers it printed.

Every operand the document printed is taken as printed (rounded), every other
operand is itself recomputed that way, down to the inputs. How an entry
follows from its operands is a table, step name -> rule: the written-out sums
(projections, scores, outputs, row sums of exponentials) take their terms
from ``derivation.terms``; a step that carries its own entry rule (the layer
and diagnostic steps, the heads' concatenation) is recomputed by that rule.
A value comes back with the printed claims it used (``Traced``).

>>> import symattn
>>> from symattn.verify.claims import Target, read_claims
>>> derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
>>> problem = derivation.problem
>>> shapes = {step.name: step.shape for step in derivation}
>>> path = DocumentPath(derivation, read_claims(problem.claims, shapes, None))
>>> value, used = path.recompute(Target("output", 2, 1))
>>> value, sorted({claim.key for claim in used})
(1/4, ['V', 'weights'])
"""

from __future__ import annotations

__all__ = ["Traced", "DocumentPath"]

from functools import reduce
from typing import Callable, Iterable

from flint import fmpq

from symattn.derivation.attention import scale_factor
from symattn.derivation.names import split_name
from symattn.derivation.steps import Derivation, EntryRule
from symattn.derivation.grids import Grid
from symattn.derivation.terms import (Term, claim_term, output_term, projection_term,
                                      row_sum_term, score_term, term_count)
from symattn.values import arith
from symattn.values.exact import NEG_INF, Exact, Surd
from symattn.verify.claims import Claim, Target
from symattn.verify.targets import exact_value, has_divisor

# A value from the document's own numbers, with the printed claims it used.
Traced = tuple[Exact, frozenset[Claim]]

_NOTHING_PRINTED: frozenset[Claim] = frozenset()


class DocumentPath:
    """Recomputes targets from a document's printed numbers (each result memoised).

    Where several printings of one quantity exist, the unlabelled one is read;
    a number printed under a label (``@ label``) is followed first from the
    numbers printed under the same label: the line or table it stands in.
    """

    def __init__(self, derivation: Derivation, claims: Iterable[Claim]) -> None:
        self.derivation = derivation
        self.problem = derivation.problem
        self.shapes = {step.name: step.shape for step in derivation}
        self.printed: dict[Target, Claim] = {}
        self.labelled: dict[tuple[Target, str], Claim] = {}
        self.primary: dict[Target, Claim] = {}
        for claim in sorted(claims, key=lambda c: (not c.primary, c.order)):
            self.printed.setdefault(claim.target, claim)
            if claim.label:
                self.labelled.setdefault((claim.target, claim.label), claim)
            else:
                self.primary.setdefault(claim.target, claim)
        self.memo: dict[tuple[Target, str], Traced] = {}
        self.label = ""

    # ----------------------------------------------------------- the operands
    def has(self, name: str) -> bool:
        return name in self.derivation

    def grid(self, name: str) -> Grid:
        return self.derivation[name].value

    def operands(self, step: str) -> tuple[str, ...]:
        return self.derivation[step].operands if self.has(step) else ()

    def operand(self, step: str, i: int, j: int) -> Traced:
        """An entry as the document printed it, else recomputed (a printed -inf is no number)."""
        target = Target(step, i, j)
        claim = self.printed_claim(target)
        if claim is None or claim.printed.value is NEG_INF and not claim.printed.percent:
            return self.recompute(target)
        return claim.printed.number, frozenset({claim})

    def allowed(self, prefix: str, i: int, j: int) -> bool:
        """Whether key j is open to query i (no mask, or not masked there)."""
        return not self.has(prefix + "mask") or \
            self.grid(prefix + "mask").exact(i, j) is not NEG_INF

    def open_columns(self, prefix: str, i: int) -> list[int]:
        return [c for c in self.grid(prefix + "weights").columns()
                if self.allowed(prefix, i, c)]

    def printed_claim(self, target: Target) -> Claim | None:
        """The printing of ``target`` read on the way: under the label being
        followed, else the unlabelled one; without a label, the unlabelled one,
        else the first labelled one."""
        if self.label:
            claim = self.labelled.get((target, self.label))
            return claim if claim is not None else self.primary.get(target)
        return self.printed.get(target)

    # --------------------------------------------------------- recomputation
    def recompute(self, target: Target, label: str | None = None) -> Traced:
        """The target from the document's printed numbers (``label``: first from
        those printed under it); raises ValueError or ZeroDivisionError where
        they give no finite value (a printed zero sum)."""
        outer = self.label
        self.label = outer if label is None else label
        try:
            key = (target, self.label)
            if key not in self.memo:
                self.memo[key] = _BY_PART[target.part](self, target)
            return self.memo[key]
        finally:
            self.label = outer

    def traced_term(self, term: Term) -> Traced:
        """The product of a term's factors, as the document gives them."""
        factors = [self.operand(f.step, f.row, f.column) for f in term]
        value = reduce(arith.multiply, (value for value, _ in factors))
        return value, _NOTHING_PRINTED.union(*(used for _, used in factors))

    def traced_sum(self, terms: Iterable[Term]) -> Traced:
        """The sum of the terms' products, as the document gives them."""
        values: list[Exact] = []
        used = _NOTHING_PRINTED
        for term in terms:
            value, claims = self.traced_term(term)
            values.append(value)
            used |= claims
        return arith.total(values), used

    def exact(self, target: Target) -> Traced:
        """The exact value, where the document's numbers give no other path."""
        return exact_value(self.derivation, target), _NOTHING_PRINTED

    def by_entry_rule(self, rule: EntryRule, i: int, j: int) -> Traced:
        used: set[Claim] = set()

        def operand(name: str, row: int, column: int) -> Exact:
            value, claims = self.operand(name, row, column)
            used.update(claims)
            return value

        return rule(operand, i, j), frozenset(used)

    def printed_terms(self, target: Target) -> list[Claim] | None:
        """The printed terms of an entry's sum, if the document printed all of them."""
        count = term_count(target.step, self.shapes)
        terms = [self.printed_claim(Target(target.step, target.row, target.column, "term", t))
                 for t in range(count)]
        printed = [term for term in terms if term is not None]
        return printed if count and len(printed) == count else None


def _row_sum(path: DocumentPath, target: Target) -> Traced:
    """STEP[i].sum: the printed (or recomputed) entries of the row, added."""
    step, i = target.step, target.row
    return path.traced_sum(row_sum_term(step, i, c) for c in path.grid(step).columns())


def _term(path: DocumentPath, target: Target) -> Traced:
    """One printed term: the product of its factors as printed."""
    return path.traced_term(claim_term(target.step, target.row, target.column, target.term,
                                       path.operands(target.step)))


def _entry(path: DocumentPath, target: Target) -> Traced:
    """An entry: from its printed terms, else by its step's own rule, else by the table."""
    printed_terms = path.printed_terms(target)
    if printed_terms is not None:
        return arith.total(t.printed.value for t in printed_terms), frozenset(printed_terms)
    step, i, j = target.step, target.row, target.column
    rule = path.derivation[step].entry if path.has(step) else None
    if rule is not None:
        return path.by_entry_rule(rule, i, j)
    by_step = _ENTRY_OF_STEP.get(split_name(step)[1])
    traced = by_step(path, step, i, j) if by_step is not None else None
    return traced if traced is not None else path.exact(target)


_BY_PART: dict[str, Callable[[DocumentPath, Target], Traced]] = {
    "divisor": DocumentPath.exact, "sum": _row_sum, "term": _term, "entry": _entry,
}


# ------------------------------------------- how each step's entry follows
# Each rule gets the path, the step (with its head prefix) and the entry; None
# means the document's numbers give no path here and the exact value stands.
_EntryOfStep = Callable[[DocumentPath, str, int, int], "Traced | None"]


def _projection(path: DocumentPath, step: str, i: int, j: int) -> Traced | None:
    """Q, K, V = X W_Q, ... (a head's block of them is no such product)."""
    operands = path.operands(step)
    if split_name(step)[0] or len(operands) != 2:
        return None
    source, weight = operands
    inner = path.grid(source).shape[1]
    return path.traced_sum(projection_term(source, weight, i, j, k) for k in range(inner))


def _scores(path: DocumentPath, step: str, i: int, j: int) -> Traced | None:
    """S = Q K^T (or Q_rot K_rot^T); cos(theta) |q| |k| where the document printed those."""
    prefix, operands = split_name(step)[0], path.operands(step)
    factors = _printed_factors(path, step, i, j)
    if factors is not None:
        return factors
    if not operands:
        return None
    left, right = (prefix + split_name(o)[1] for o in operands)
    inner = path.grid(left).shape[1]
    return path.traced_sum(score_term(left, right, i, j, t) for t in range(inner))


def _printed_factors(path: DocumentPath, step: str, i: int, j: int) -> Traced | None:
    """The score as the product of its printed cosine and lengths (``derivation.cosine``),
    when the document printed all three; None otherwise."""
    if step != "scores" or not path.has("cosine"):
        return None
    claims = [path.printed_claim(target) for target in (
        Target("cosine", i, j), Target("q_norm", i, 0), Target("k_norm", j, 0))]
    printed = [claim for claim in claims if claim is not None]
    if len(printed) != 3 or any(claim.printed.value is NEG_INF for claim in printed):
        return None
    value = reduce(arith.multiply, (claim.printed.number for claim in printed))
    return value, frozenset(printed)


def _scaled(path: DocumentPath, step: str, i: int, j: int) -> Traced | None:
    """S / the printed divisor, else S times the scale (none when the scale is symbolic)."""
    if not path.operands(step):
        return None
    score, used = path.operand(split_name(step)[0] + "scores", i, j)
    divisor = path.printed_claim(Target("divisor", part="divisor"))
    if divisor is not None:
        return arith.divide(score, divisor.printed.value), used | {divisor}
    if not has_divisor(path.derivation):
        return None
    scale = path.printed_claim(Target("scale", 0, 0)) if path.has("scale") else None
    temperature = path.problem.temperature
    if scale is not None and isinstance(temperature, (fmpq, Surd)):
        # the document's printed multiplier, then the temperature
        return arith.divide(arith.multiply(score, scale.printed.number), temperature), \
            used | {scale}
    return arith.multiply(score, scale_factor(path.problem)), used


def _masked(path: DocumentPath, step: str, i: int, j: int) -> Traced | None:
    prefix = split_name(step)[0]
    if path.grid(prefix + "mask").exact(i, j) is NEG_INF:
        return NEG_INF, _NOTHING_PRINTED
    return path.operand(prefix + "scaled", i, j)


def _exp(path: DocumentPath, step: str, i: int, j: int) -> Traced | None:
    prefix = split_name(step)[0]
    operands = path.operands(step)
    source = operands[0] if len(operands) == 1 and path.problem.order else \
        prefix + ("masked" if path.has(prefix + "masked") else "scaled")
    value, used = path.operand(source, i, j)
    return arith.exp(value), used


def _exp_sum(path: DocumentPath, step: str, i: int, j: int) -> Traced | None:
    exp = split_name(step)[0] + "exp"
    return path.traced_sum(row_sum_term(exp, i, c) for c in path.grid(exp).columns())


def _weights(path: DocumentPath, step: str, i: int, j: int) -> Traced | None:
    """E / Sigma (softmax), or the score over the row's sum (normalisation "sum")."""
    prefix = split_name(step)[0]
    if not path.allowed(prefix, i, j) or not path.open_columns(prefix, i):
        return None
    if path.problem.normalisation == "sum":
        source = prefix + ("masked" if path.has(prefix + "masked") else "scaled")
        value, used = path.operand(source, i, j)
        row, row_used = path.traced_sum(row_sum_term(source, i, c)
                                        for c in path.open_columns(prefix, i))
        return arith.divide(value, row), used | row_used
    exp, exp_sum = ("exp_shifted", "exp_shifted_sum") if _printed_shifted(path, prefix, i) \
        else ("exp", "exp_sum")
    numerator, used = path.operand(prefix + exp, i, j)
    denominator, denominator_used = path.operand(prefix + exp_sum, i, 0)
    return arith.divide(numerator, denominator), used | denominator_used


def _printed_shifted(path: DocumentPath, prefix: str, i: int) -> bool:
    """Whether the document printed row i's max-shifted exponentials (or their sum):
    its weights then follow from those (``derivation.max_shift``)."""
    if not path.has(prefix + "exp_shifted"):
        return False
    return any(target.row == i and target.step in (prefix + "exp_shifted",
                                                   prefix + "exp_shifted_sum")
               for target in path.printed)


def _output(path: DocumentPath, step: str, i: int, j: int) -> Traced | None:
    """O = A V."""
    prefix = split_name(step)[0]
    weights, values = prefix + "weights", prefix + "V"
    if not path.has(values) or not path.has(weights):
        return None
    return path.traced_sum(output_term(weights, values, i, j, t)
                           for t in path.grid(weights).columns())


_ENTRY_OF_STEP: dict[str, _EntryOfStep] = {
    "Q": _projection, "K": _projection, "V": _projection, "scores": _scores,
    "scaled": _scaled, "masked": _masked, "exp": _exp, "exp_sum": _exp_sum,
    "weights": _weights, "output": _output,
}
