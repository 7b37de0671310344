"""Placing printed numbers on the quantities of a derivation.

A printed vector or matrix is matched as a whole against every row, column
and matrix of the derivation of the same length or shape: the candidate
whose exact values round to most of the printed entries wins, a name written
before it (``q₃ = [...]``, ``Q = ...``) and document order (the steps come in
order) break ties. A single number is matched by value, with the equation it
stands in (``symattn.extract.lines``) naming the steps it can be and the
quantities it must be (the right side of ``e^0.445 =`` is an exponential,
whatever its value).

Every placement has a confidence: ``certain`` (every entry rounds to the
quantity, and the name or uniqueness settles which quantity), ``likely``
(most entries do, or the equation settles it), ``guess`` (the structure
alone, or a value shared by several quantities). Independently of the value,
``anchored`` says whether the structure fixes the place (a name with its
position, a step's name on its whole matrix, an equation whose other parts
fit), and ``nearest`` what the worst-fitting number is closest to. A number
not placed is listed at the end of the draft with its line.
"""

from __future__ import annotations

__all__ = ["Placement", "Placer", "CONFIDENCES", "entry_score", "heading_step", "sums_to_one",
           "whole_numbers", "CARRIED"]

import bisect
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from symattn.derivation.names import split_name
from symattn.derivation.terms import claim_term, term_count
from symattn.extract.candidates import Candidate, Candidates, exact_tolerance
from symattn.extract.scanner import Group, Number
from symattn.extract.step_words import STEP_SYMBOLS, step_named
from symattn.verify.claims import Target
from symattn.verify.targets import row_label

CONFIDENCES = ("certain", "likely", "guess")
_AMBIGUOUS_COMMA = re.compile(r"^-?\d{1,3},\d{3}$")
CARRIED = 0.75     # the fit of a number that is what the document's own printed numbers give
_ROW_NAME = re.compile(r"^(?P<letter>[qkvxoyz]|out)_?(?P<index>\d+)$")
# The max-shift working (the same numbers as exp and weights): chosen only when nothing else fits.
# steps whose rows are not (only) queries: a row of K is a key
_INPUTS = frozenset({"Q", "K", "V", "X", "W_Q", "W_K", "W_V"})
_SIDE_STEPS = frozenset({"row_max", "shifted", "exp_shifted", "exp_shifted_sum"})
# y_i, z_i: the usual names of an output row (y_1 = sum_j alpha_1j v_j, z_1 = ...)
_ROW_STEPS = {"q": "Q", "k": "K", "v": "V", "x": "X", "o": "output", "out": "output",
              "y": "output", "z": "output"}


@dataclass(frozen=True)
class Placement:
    """Printed numbers placed on a claim key, with how sure and why."""

    key: str                       # the claim key without a label
    layout: Any                    # a printed string, a list, or a list of rows
    numbers: tuple[Number, ...]    # in the order the claim reads them
    targets: tuple[Target, ...]    # one per number
    confidence: str
    why: str
    # The document's structure fixes the place whatever the value: a name with a position
    # (q_3 = [...], out_3 = [...]), a whole matrix under its step's name, or an equation
    # whose other parts are placed (e^0.445 = 1.561 with the exponent placed). A number
    # placed only because its value is near an entry is not anchored.
    anchored: bool = False
    # Up to 3 quantities nearest in value to the number that fits worst (the only number of
    # a single placement): (claim key, exact value), nearest first; what a doubtful number
    # may be instead ("near weights[1,1] = 0.99954...").
    nearest: tuple[tuple[str, float], ...] = ()

    @property
    def line(self) -> int:
        return self.numbers[0].line


# A table's column heading: the first of these words it contains names the column's step
_HEADING_WORDS = (("scaled", "scaled"), ("exp", "exp"), ("e^", "exp"), ("weight", "weights"),
                  ("softmax", "weights"), ("prob", "weights"), ("attention", "weights"),
                  ("score", "scores"), ("logit", "scores"), ("dot", "scores"),
                  ("output", "output"), ("context", "output"))


def heading_step(heading: str) -> str | None:
    """The step a table column holds, from its heading (``Weight``, ``e^x``, ``Score``)."""
    lowered = heading.lower()
    return next((step for word, step in _HEADING_WORDS if word in lowered), None)


# Symbols that name the weights only when what they name reads as probabilities (P: a
# positional matrix elsewhere, p_i: any row).
_PROBABILITY_SYMBOLS = frozenset({"P", "p"})


def probability_rows(group: Group) -> bool:
    """Every row of ``group`` is a distribution as printed: no negative entry, and a sum
    that its entries' rounding can make 1 (half a unit in the last place each).

    >>> from symattn.extract.document import from_text
    >>> from symattn.extract.scanner import scan
    >>> [probability_rows(g) for g in scan(from_text("[0.71, 0.23, 0.06] [0.5, 0.7]")).groups]
    [True, False]
    """
    return all(sums_to_one(row) for row in group.rows)


def sums_to_one(row: Sequence[Number]) -> bool:
    """A distribution as printed: no negative number, and a sum that their rounding can
    make 1 (half a unit in the last place each; a percentage as its hundredth)."""
    values = [v for n in row if (v := n.magnitude) is not None and v >= 0]
    if len(values) < len(row):
        return False
    slack = sum(Fraction(1, 2 * 10 ** (n.places + 2 * n.percent)) for n in row)
    return abs(sum(values, Fraction(0)) - 1) <= slack


def entry_score(number: Number, value: float) -> float:
    """1 when the exact value rounds to the printed number, 0.5 when close, else a little."""
    magnitude = number.approximately
    if magnitude == -math.inf or value == -math.inf:
        return 1.0 if magnitude == value else 0.0
    places = number.places + (2 if number.percent else 0)
    distance = abs(value - magnitude)
    if places == 0 and distance > 1e-9 * max(1.0, abs(value)):
        return 0.5 if distance <= 0.5 else 0.1 * math.exp(-distance / max(abs(value), 1.0))
    if distance <= exact_tolerance(places):
        return 1.0
    if distance <= 3 * exact_tolerance(places):
        return 0.5
    scale = max(abs(value), abs(magnitude), 1e-9)
    return 0.1 * math.exp(-distance / scale)


def _trivial(numbers: Sequence[Number]) -> bool:
    return all(n.value is None or n.value in (0, 1) for n in numbers)


def whole_numbers(numbers: Sequence[Number]) -> bool:
    """Every number a whole number (``2``, ``8.0000``): toy examples print many such rows,
    so their values alone do not settle which quantity a row is."""
    return all(n.value is not None and n.value.denominator == 1 for n in numbers)


@dataclass(frozen=True)
class _Option:
    kind: str          # matrix | columns | row | column | terms
    step: str
    index: int
    targets: tuple[Target, ...]
    score: float       # mean entry score
    exact: float       # fraction of entries that round exactly


class Placer:
    """Places groups and single numbers in document order, remembering where it is."""

    def __init__(self, candidates: Candidates) -> None:
        self.candidates = candidates
        self.problem = candidates.problem
        self.last_order = -1
        self.last_row: tuple[str, int] | None = None
        self.placements: list[Placement] = []
        # the latest printed value of each entry placed so far: what the document's later
        # numbers are computed from when it carries its own rounded numbers forward
        self.printed: dict[Target, float] = {}
        # the same by (step, exact value): "e^0.71 = 2.034 (for the 1st and 3rd elements)"
        # prints one number for every entry of the step with that exact value
        self.printed_alike: dict[tuple[str, float | None], float] = {}

    def nearest(self, number: Number, count: int = 3) -> tuple[tuple[str, float], ...]:
        """The ``count`` quantities nearest in value to a printed number: (claim key, exact
        value), nearest first; written-out terms left out (they repeat other entries)."""
        if number.value is None:
            return tuple((self.candidates.label(c.target), c.value)
                         for c in self.candidates.negative_infinity[:count])
        value = number.approximately
        keys, finite = self.candidates.sorted_values()
        middle = bisect.bisect_left(keys, value)
        window = [c for c in finite[max(0, middle - 4 * count):middle + 4 * count]
                  if c.target.part != "term"]
        window.sort(key=lambda c: abs(c.value - value))
        found: list[tuple[str, float]] = []
        for candidate in window:
            key = self.candidates.label(candidate.target)
            if all(key != k for k, _ in found):
                found.append((key, candidate.value))
            if len(found) == count:
                break
        return tuple(found)

    def _worst_nearest(self, numbers: Sequence[Number], targets: Sequence[Target]
                       ) -> tuple[tuple[str, float], ...]:
        scores = [self.score(n, t) for n, t in zip(numbers, targets)]
        return self.nearest(numbers[scores.index(min(scores))]) if scores else ()

    def derivation_operands(self, step: str) -> tuple[str, ...]:
        """The operand steps of a step (what its written-out terms multiply)."""
        return tuple(self.candidates.derivation[step].operands)

    # ----- groups -----------------------------------------------------------------------

    def _options(self, group: Group, transposed: bool = False) -> list[_Option]:
        """Every layout of the group on a step of its size; ``transposed``: a square
        matrix may be printed transposed too (the K^T of a product Q K^T)."""
        rows, columns = group.shape
        numbers = group.numbers
        options = []
        for step, (step_rows, step_columns) in self.candidates.shapes.items():
            layouts: list[tuple[str, int, tuple[Target, ...]]] = []
            if rows > 1 and (step_rows, step_columns) == (rows, columns):
                layouts.append(("matrix", 0, tuple(Target(step, i, j) for i in range(rows)
                                                   for j in range(columns))))
            if rows > 1 and (step_rows, step_columns) == (columns, rows) and \
                    (rows != columns or transposed):
                layouts.append(("columns", 0, tuple(Target(step, j, i) for i in range(rows)
                                                    for j in range(columns))))
            if rows == 1 and step_columns == columns:
                layouts.extend(("row", i, tuple(Target(step, i, j) for j in range(columns)))
                               for i in range(step_rows))
            if rows == 1 and step_rows == columns and columns > 1 and step_columns > 1:
                layouts.extend(("column", j, tuple(Target(step, i, j) for i in range(columns)))
                               for j in range(step_columns))
            layouts += self._term_layouts(step, group.shape)
            for kind, index, targets in layouts:
                scores = [self.fit(n, t) for n, t in zip(numbers, targets)]
                options.append(_Option(kind, step, index, targets, sum(scores) / len(scores),
                                       sum(s == 1.0 for s in scores) / len(scores)))
        return options

    def _term_layouts(self, step: str, shape: tuple[int, int]
                      ) -> list[tuple[str, int, tuple[Target, ...]]]:
        """A matrix of one row's terms before they are added up: the weighted values
        (``weights[:, None] * V``, a row per key) or the products of q and k, printed as
        they are summed (a row per term) or transposed (a row per entry)."""
        count = term_count(step, self.candidates.shapes)
        rows, columns = shape
        step_rows, step_columns = self.candidates.shapes[step]
        if count < 2 or rows < 2:
            return []
        layouts: list[tuple[str, int, tuple[Target, ...]]] = []
        for i in range(step_rows):
            if (rows, columns) == (count, step_columns):
                layouts.append(("terms", i, tuple(Target(step, i, j, "term", t)
                                                  for t in range(rows) for j in range(columns))))
            if (rows, columns) == (step_columns, count):
                layouts.append(("terms", i, tuple(Target(step, i, j, "term", t)
                                                  for j in range(rows) for t in range(columns))))
        return layouts

    def score(self, number: Number, target: Target) -> float:
        """How well a printed number fits a quantity (``entry_score``; 0 if there is none)."""
        if target.part == "entry":
            grid = self.candidates.grid.get(target.step)   # None: a step this one lacks
            value = grid[target.row][target.column] if grid else None
            return entry_score(number, value) if value is not None else 0.0
        candidate = self.candidates.by_target.get(target)
        return entry_score(number, candidate.value) if candidate else 0.0

    def _named(self, group: Group, option: _Option) -> bool:
        for name in group.names:
            step = step_named(name) or (
                "weights" if name in _PROBABILITY_SYMBOLS and probability_rows(group) else None)
            if step == option.step and option.kind in ("matrix", "row"):
                return option.kind == "matrix" or group.shape[0] == 1
            match = _ROW_NAME.match(name)
            if match and _ROW_STEPS[match["letter"]] == option.step and option.kind == "row":
                label = row_label(self.problem, Target(option.step, option.index, 0))
                return label == int(match["index"])
        return False

    def input_fit(self, group: Group) -> bool | None:
        """For a group named as one of the spec's inputs (``Q = [...]``, ``k_2 = [...]``):
        whether it prints that input (every entry exact); None for any other group. An
        input printed with other values or another shape, or a matrix under the symbol of
        one of our steps (``Q``, ``K``) in a shape it does not have, starts another example
        (False). Words (``weights``, ``softmax``) do not: a row printed in part is common."""
        inputs = set(self.problem.inputs)
        steps = {_ROW_STEPS[m["letter"]] if (m := _ROW_NAME.match(name)) else
                 step_named(name) for name in group.names}
        symbols = {STEP_SYMBOLS.get(name) for name in group.names}
        ours = group.shape[0] > 1 and bool(symbols & set(self.candidates.shapes) - inputs)
        if not ours and not steps & inputs:
            return None     # (most groups: no name of ours, no layout worth computing)
        options = self._options(group)
        if ours and not any(self._named(group, o) for o in options):
            return False    # a matrix of ours by its symbol, in a shape it does not have
        if not steps & inputs:
            return None
        return any(o.exact == 1.0 and self._named(group, o) and o.step in inputs
                   for o in options)

    def _names_absent(self, group: Group) -> bool:
        """Named after a step this derivation does not have (x_1 when X is not an input)."""
        for name in group.names:
            match = _ROW_NAME.match(name)
            step = _ROW_STEPS[match["letter"]] if match else step_named(name)
            if step is not None and step not in self.candidates.shapes:
                return True
        return False

    def _rank(self, group: Group, option: _Option, exact_elsewhere: bool = False) -> float:
        """``exact_elsewhere``: another quantity fits every entry; a name that does not
        (``Masked Scores`` read as ``Scores``) then does not outweigh it."""
        order = self.candidates.order.get(option.step, 0)
        forward = 0.05 if order >= self.last_order else 0.0
        side = 0.1 if split_name(option.step)[1] in _SIDE_STEPS or \
            option.step in self.candidates.repeats else 0.0
        named = self._named(group, option) and (option.exact == 1.0 or not exact_elsewhere)
        return option.score + (1.0 if named else 0.0) + forward - \
            0.002 * abs(order - self.last_order) - side

    def place_group(self, group: Group, only: str | None = None, transposed: bool = False
                    ) -> list[Placement]:
        """The placements of one printed vector or matrix (several for ``Q = K = V = ...``);
        ``only``: the step it must be (a factor of a product printed as ``A B = C``);
        ``transposed``: it may be printed transposed even when square (K^T in Q K^T)."""
        if self._names_absent(group) and only is None:
            return []
        options = [o for o in self._options(group, transposed)
                   if o.exact >= 0.5 or o.score >= 0.6 or
                   self._named(group, o)]   # a name fixes the place, whatever the values
        if only is not None:
            options = [o for o in options if split_name(o.step)[1] == only]
        # an input is printed as given: a block only close to one is something else
        options = [o for o in options if split_name(o.step)[1] not in _INPUTS or
                   o.exact == 1.0 or self._named(group, o) or only is not None]
        options = [o for o in options if o.exact == 1.0 or self._named(group, o) or
                   any(n.value is None or n.value not in (0, 1)
                       for n, t in zip(group.numbers, o.targets)
                       if self.fit(n, t) >= CARRIED)]   # 0s and 1s alone settle nothing
        if not options:
            return []
        exact_elsewhere = not whole_numbers(group.numbers) and \
            any(o.exact == 1.0 and not self._named(group, o) for o in options)
        ranked = sorted(options, key=lambda o: -self._rank(group, o, exact_elsewhere))
        named = [o for o in ranked if self._named(group, o) and o.exact == 1.0]
        chosen = named if len(named) > 1 else ranked[:1]
        placements: list[Placement] = []
        for option in chosen:
            rivals = [o for o in ranked if o is not option and o.exact >= option.exact and
                      (split_name(o.step)[1] not in _SIDE_STEPS or
                       split_name(option.step)[1] in _SIDE_STEPS) and
                      [self.score(n, t) for n, t in zip(group.numbers, o.targets)] ==
                      [self.score(n, t) for n, t in zip(group.numbers, option.targets)]]
            confidence = self._group_confidence(group, option, rivals)
            if option.kind == "columns":   # a transposed matrix (K^T): its rows are columns
                placements.extend(self._columns(group, option, confidence))
            elif option.kind == "terms":
                placements.extend(self._terms(group, option, confidence))
            else:
                placements.append(self._group_placement(group, option, confidence))
        return placements

    def _columns(self, group: Group, option: _Option, confidence: str) -> list[Placement]:
        columns = group.shape[1]
        self.last_order = max(self.last_order, self.candidates.order.get(option.step, 0))
        anchored = self._anchored(group, option)
        self._remember(group.numbers, option.targets, confidence, anchored)
        placements = []
        for i, row in enumerate(group.rows):
            targets = option.targets[i * columns:(i + 1) * columns]
            placements.append(Placement(
                f"{option.step}[:,{i + 1}]", [n.printed for n in row], row, targets,
                confidence, f"{option.exact:.0%} of the entries round the exact values "
                "(printed transposed)", anchored, self._worst_nearest(row, targets)))
        return placements

    def _terms(self, group: Group, option: _Option, confidence: str) -> list[Placement]:
        """A matrix of terms as the terms of each entry of one row (``output[1,2].terms``)."""
        self.last_order = max(self.last_order, self.candidates.order.get(option.step, 0))
        entries: dict[int, list[tuple[Number, Target]]] = {}
        for number, target in zip(group.numbers, option.targets):
            entries.setdefault(target.column, []).append((number, target))
        placements = []
        for column, pairs in sorted(entries.items()):
            pairs.sort(key=lambda pair: pair[1].term)
            numbers = tuple(n for n, _ in pairs)
            targets = tuple(t for _, t in pairs)
            key = self.candidates.label(Target(option.step, option.index, column)) + ".terms"
            placements.append(Placement(
                key, [n.printed for n in numbers], numbers, targets, confidence,
                f"{option.exact:.0%} of the entries round the exact terms (a matrix of terms)",
                False, self._worst_nearest(numbers, targets)))
        return placements

    def _anchored(self, group: Group, option: _Option) -> bool:
        """A name that fixes the place: a row name with its number, or a step's name on the
        whole matrix (or on the only row of a one-row step)."""
        if not self._named(group, option):
            return False
        if option.exact < 1.0 and any(other.exact > max(option.exact, 0.5)
                                      for other in self._options(group)):
            return False    # the values say another quantity (raw scores + mask called
            #                 "masked" where the mask comes after the scale): the name is doubtful
        rows = self.candidates.shapes[option.step][0]
        return option.kind in ("matrix", "columns") or any(
            _ROW_NAME.match(name) for name in group.names) or rows == 1

    def _group_confidence(self, group: Group, option: _Option, rivals: list[_Option]) -> str:
        named = self._named(group, option)
        if option.exact == 1.0 and (named or not rivals) and \
                (named or not whole_numbers(group.numbers)):
            return "certain"
        if option.exact >= 0.5 and (named or not rivals):
            return "likely"
        return "guess"

    def _group_placement(self, group: Group, option: _Option, confidence: str) -> Placement:
        step, numbers = option.step, group.numbers
        self.last_order = max(self.last_order, self.candidates.order.get(step, 0))
        self._remember(numbers, option.targets, confidence, self._anchored(group, option))
        printed = [[n.printed for n in row] for row in group.rows]
        why = f"{option.exact:.0%} of the entries round the exact values"
        layout: list[list[str]] | list[str]
        if option.kind == "matrix":
            key, layout = step, printed
        elif option.kind == "row":
            key, layout = self.candidates.row_key(step, option.index), printed[0]
            self.last_row = (step, option.index)
        else:
            key, layout = f"{step}[:,{option.index + 1}]", printed[0]
        if self._named(group, option):
            why += f", named {', '.join(group.names)}"
        return Placement(key, layout, tuple(numbers), option.targets, confidence, why,
                         self._anchored(group, option),
                         self._worst_nearest(numbers, option.targets))

    # ----- single numbers --------------------------------------------------------------

    def place_single(self, number: Number, prefer: frozenset[str] = frozenset(),
                     must: Target | None = None, why: str = "", anchored: bool = False,
                     column: int | None = None) -> Placement | None:
        """One number: on ``must`` when the equation says so, else by value; ``anchored``:
        the equation's other parts fix ``must`` whatever this number's value; ``column``:
        the structure fixes the entry's column (0-based), the value picks the row."""
        if must is not None and must in self.candidates.by_target:
            score = self.score(number, must)
            confidence = "certain" if score == 1.0 else "likely" if score == 0.5 else "guess"
            return self._single(number, must, confidence, why or "the equation it stands in",
                                anchored)
        matches = [c for c in self._value_matches(number, prefer)
                   if column is None or c.target.column == column and c.target.part == "entry"]
        if not matches:
            return None
        best = max(matches, key=lambda c: self._single_rank(number, c, prefer))
        exact = [c for c in matches if entry_score(number, c.value) == 1.0]
        plain = number.value is not None and len(number.text.strip("-0.,%~ ")) >= 3
        if best not in exact:
            confidence = "likely" if self.last_row == (best.target.step, best.target.row) \
                else "guess"
        elif len(exact) == 1 and plain:
            confidence = "certain"
        else:
            confidence = "likely" if len(exact) <= 2 or prefer else "guess"
        return self._single(number, best.target, confidence,
                            why or ("its value" if best in exact else "close to its value"))

    def value_candidates(self, number: Number, prefer: frozenset[str] = frozenset()
                         ) -> list[Candidate]:
        """The quantities a single number's value fits (those of ``prefer`` steps first)."""
        return self._value_matches(number, prefer)

    def fit(self, number: Number, target: Target) -> float:
        """``score``, or 0.75 when the number is what the document's own printed numbers
        give: the entry printed before with this value (or an entry of its step with the
        same exact value), or a term carried from printed factors."""
        score = self.score(number, target)
        if score == 1.0:
            return score
        if target.part == "term":
            value = self.carried(target)
        elif target.part == "entry":
            value, printed = self._printed_or_exact(target)
            value = value if printed else self.carried(target)
        else:
            value = self.printed.get(target)
        if value is not None and entry_score(number, value) == 1.0:
            return CARRIED
        return score

    def _value_matches(self, number: Number, prefer: frozenset[str]) -> list[Candidate]:
        places = number.places + (2 if number.percent else 0)
        found = [c for c in self.candidates.matching(number.magnitude, places, near=True)
                 if c.target.part != "term" and entry_score(number, c.value) >= 0.5]
        if number.percent:
            found = [c for c in found if split_name(c.target.step)[1] in ("weights", "probs")
                     and c.target.part == "entry"]
        if prefer:
            found = [c for c in found if split_name(c.target.step)[1] in prefer] or found
        # an input is printed as given: a number only close to one is something else
        found = [c for c in found if split_name(c.target.step)[1] not in _INPUTS or
                 entry_score(number, c.value) == 1.0]
        if not prefer or number.places == 0:
            exact = [c for c in found if entry_score(number, c.value) == 1.0]
            rows = {(c.target.step, c.target.row) for c in exact}
            near = [c for c in found if c not in exact and number.places > 0]
            found = exact + [c for c in near if self.last_row == (c.target.step, c.target.row)
                             and self.last_row not in rows] if exact else near
        return found

    def _single_rank(self, number: Number, candidate: Candidate, prefer: frozenset[str]
                     ) -> float:
        target = candidate.target
        rank = 0.25 if entry_score(number, candidate.value) == 1.0 else 0.0
        if prefer and split_name(target.step)[1] in prefer:
            rank += 1.0
        if self.last_row and (target.step, target.row) == self.last_row:
            rank += 0.3
        elif self.last_row and target.row == self.last_row[1] and target.part == "entry" and \
                not {split_name(target.step)[1], split_name(self.last_row[0])[1]} & _INPUTS:
            rank += 0.2     # the same query's row of the next step (e^x of the row's scores)
        if target in self.printed:
            rank -= 0.02    # a walk-through prints each quantity once before it repeats
        if target.part == "entry":
            rank += 0.1
        if split_name(target.step)[1] in _SIDE_STEPS or target.step in self.candidates.repeats:
            rank -= 0.1
        if candidate.order >= self.last_order:
            rank += 0.05
        return rank - 0.002 * abs(candidate.order - self.last_order)

    def _remember(self, numbers: Sequence[Number], targets: Sequence[Target], confidence: str,
                  anchored: bool = False) -> None:
        if confidence == "guess" and not anchored:   # a guessed place carries nothing on
            return
        for number, target in zip(numbers, targets):
            if target.part == "divisor" and number.value is not None:
                self.printed[target] = number.approximately
            if target.part == "entry" and number.value is not None:
                self.printed[target] = number.approximately
                exact = self.candidates.grid[target.step][target.row][target.column]
                self.printed_alike[(target.step, exact)] = number.approximately

    def remember(self, placement: Placement) -> None:
        """Keep a placement's printed values as operands of later numbers (a placement
        whose confidence was raised after it was made)."""
        self._remember(placement.numbers, placement.targets, placement.confidence,
                       placement.anchored)

    def carried(self, target: Target) -> float | None:
        """A value from the document's own printed numbers: a written-out term from its
        printed factors (``2.034`` printed for exp[1,1] makes term 1 of exp_sum[1] 2.034),
        an entry of a sum step (scores, output, exp_sum) from the printed factors of all its
        terms (the output from the weights as printed); None when nothing of it was
        printed."""
        if target.part == "term":
            return self._term_value(target.step, target.row, target.column, target.term)[0]
        count = term_count(target.step, self.candidates.shapes)
        if target.part != "entry" or not count:
            return None
        terms = [self._term_value(target.step, target.row, target.column, t)
                 for t in range(count)]
        if not any(printed for _, printed in terms) or any(v is None for v, _ in terms):
            return None
        return math.fsum(v for v, _ in terms if v is not None)

    def _term_value(self, step: str, row: int, column: int, term: int
                    ) -> tuple[float | None, bool]:
        """A term's value from printed factors where printed (None if none was), and
        whether any was printed."""
        operands = self.derivation_operands(step)
        factors = [Target(f.step, f.row, f.column)
                   for f in claim_term(step, row, column, term, operands)]
        values = [self._printed_or_exact(f) for f in factors]
        printed = any(p for _, p in values)
        if not printed or any(v is None for v, _ in values):
            return None, printed
        return math.prod(v for v, _ in values if v is not None), printed

    def _printed_or_exact(self, target: Target) -> tuple[float | None, bool]:
        """An entry's printed value (of it, or of an entry of its step with the same exact
        value) and True; else its exact value and False."""
        grid = self.candidates.grid.get(target.step)
        exact = grid[target.row][target.column] if grid else None
        if target in self.printed:
            return self.printed[target], True
        if (target.step, exact) in self.printed_alike:
            return self.printed_alike[(target.step, exact)], True
        return exact, False

    def _single(self, number: Number, target: Target, confidence: str, why: str,
                anchored: bool = False) -> Placement:
        if target.part != "divisor":
            self.last_row = (target.step, target.row)
            self.last_order = max(self.last_order, self.candidates.order.get(target.step, 0))
        if anchored and _AMBIGUOUS_COMMA.search(number.text) and self.score(number, target) < 1:
            anchored = False   # "22,026": read as 22.026, it may be twenty-two thousand
        self._remember((number,), (target,), confidence, anchored)
        key = self.candidates.label(target)
        if target.part == "term":
            key = f"{key}.terms[{target.term + 1}]"
        return Placement(key, number.printed, (number,), (target,), confidence, why, anchored,
                         self.nearest(number))
