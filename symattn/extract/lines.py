"""The equation a single number stands in, read from its line.

Each line is reduced to a skeleton where every single number is ``n`` and
every printed vector or matrix is ``g``; patterns on the skeleton give the
numbers their roles:

    n×n + n×n + ... = n + n + ... = n    factors, terms and total of a written-out sum (or ≈)
    n×n + n×n + ... = n                  factors and total (the factors fix the entry)
    e^n = n, exp(n) = n                  a scaled score and its exponential
    n / n = n, n / n → n%                score / divisor = scaled; exp / sum = weight
    \frac{n}{n} = n                      the same in LaTeX
    √n = n, √n ≈ n                       the divisor
    g · g = n                            the score of two placed vectors (q_i · k_j)

Anything else is placed by value alone (a plain integer only right after
``=``, ``→`` or ``≈``: "step 3" and "4 × 4" are not claims).
"""

from __future__ import annotations

__all__ = ["place_line", "vector_sums"]

import dataclasses
import itertools
import math
import re
from typing import Sequence

from symattn.derivation.names import split_name
from symattn.derivation.terms import claim_term, term_count
from symattn.extract.place import CARRIED, Placement, Placer, entry_score, whole_numbers
from symattn.extract.scanner import Group, Number
from symattn.extract.weighted_sums import WEIGHT_OF_A_VALUE
from symattn.verify.claims import Target

N, G = "\ue000", "\ue001"
_TIMES = r"\s*[×*·x]\s*"
_SUM = re.compile(rf"(?:(?P<factors>(?:{N}{_TIMES}{N}\s*\+\s*)+{N}{_TIMES}{N})\s*[=≈]\s*)?"
                  rf"(?P<terms>(?:{N}\s*\+\s*)+{N})\s*[=≈]\s*{N}")
# the products written out and their total, no terms between: 0.3×0.1 + 0.4×0.3 = 0.15
_PRODUCTS = re.compile(rf"(?P<factors>(?:{N}{_TIMES}{N}\s*\+\s*)+{N}{_TIMES}{N})\s*[=≈]\s*{N}"
                       rf"(?!{_TIMES}|\s*[+\-−/^])")
_EXP = re.compile(rf"(?:e\^\(?\s*|exp\(\s*){N}\s*\)?\s*[=≈]\s*{N}")
# a / b, and LaTeX's \frac{a}{b}
_DIVISION = re.compile(rf"(?:{N}\s*/\s*{N}|\\[dt]?frac\s*\{{\s*{N}\s*\}}\s*\{{\s*{N}\s*\}})"
                       rf"(?:\s*(?:=|→|≈)\s*{N})?")
_SQRT = re.compile(rf"(?<!/)(?<!/\s)√\s*{N}\s*[=≈]\s*{N}")    # not 1/√2 ≈ 0.707: a scale
# [1,0]·[1,2] = 2, or written out first: = 1×1 + 0×2 = 2; the number after "=" that starts
# the products written out (the first 1 of "1×1") is no dot product
_DOT = re.compile(rf"{G}\s*[·×*]\s*{G}\s*=\s*"
                  rf"(?:{N}{_TIMES}{N}(?:\s*\+\s*{N}{_TIMES}{N})*\s*[=≈]\s*)?"
                  rf"(?:(?:{N}\s*\+\s*)+{N}\s*[=≈]\s*)?{N}(?!{_TIMES}|\s*[+\-−/^])")
_AFTER_SIGN = re.compile(r"[=→≈:][\s$*]*$")   # "= 5", "**Output**: $5$"
# A size, not an entry: d_model = 4, head_dim = 128, n_heads = 32, d_k = 512
# ... or an index running over a sum (sum_{j=1}^K), or a test in code (x % h == 0)
_SIZE = re.compile(r"(?:(?:\b[dn]_?\w*|\w*dim\w*|\w*heads?\w*|\b[hTBnmL]|"
                   r"(?:(?:sum|limits|prod)_|(?<![\w\\]))[ijkt])"
                   r"\s*=|==)\s*$")
# the number of a Markdown heading: "## 3.1 The problem with long sequences"
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+$")
# a whole number that starts a product after "=" is a factor: "= 1×1 + 0×0 = 1"
_FACTOR = re.compile(r"\s*[×*·]\s*[\d(]")
# a whole number mapped from a quoted key in a printed dict, no claim: a vocabulary's
# token ids ({'Life': 0, 'dessert': 1, ...}), a count
_MAPPED_WHOLE = re.compile(r"\{[^{}\n]*['\"]\s*:\s*$")
# a whole number as a keyword argument in code, no claim: axis=1, dim=-1, diagonal=1
_KEYWORD_ARGUMENT = re.compile(r"[(,]\s*[A-Za-z_]\w*=$")
# a weight times a value vector: 0.309 × v_1, 0.5 × [2, 8, 0], LaTeX's 0.5\begin{bmatrix}...
_WEIGHT = re.compile(rf"{N}(?=\s*[×·*]\s*(?:[vV]_?\d|{G})| ?{G})")
_EXPONENT = re.compile(r"(?:e\^\(?|exp\()\s*$")     # e^0.5 inside a fraction, no "=" after
_TERM_STEPS = frozenset({"scores", "output", "exp_sum"})


def _skeleton(text: str, base: int, items: Sequence[tuple[int, int, str]]) -> tuple[str, list[int]]:
    """The line with numbers and groups replaced; the skeleton index of each item."""
    pieces, where, last = [], [], base
    for start, end, mark in items:
        pieces.append(text[last - base:start - base])
        where.append(sum(len(p) for p in pieces))
        pieces.append(mark)
        last = end
    pieces.append(text[last - base:])
    return "".join(pieces), where


class _Line:
    """One line: its skeleton and which number stands where."""

    def __init__(self, text: str, base: int, singles: list[Number],
                 groups: list[tuple[Group, list[Placement]]]) -> None:
        items = sorted([(n.start, n.end, N) for n in singles] +
                       [(g.start, g.end, G) for g, _ in groups])
        self.skeleton, positions = _skeleton(text, base, items)
        self.at: dict[int, Number | tuple[Group, list[Placement]]] = {}
        numbers = iter(singles)
        group_list = iter(groups)
        for (_, _, mark), position in zip(items, positions):
            self.at[position] = next(numbers) if mark == N else next(group_list)
        self.done: set[int] = set()

    def numbers_in(self, start: int, end: int) -> list[Number]:
        return [v for k, v in sorted(self.at.items())
                if start <= k < end and isinstance(v, Number)]


_SPLIT_GROUP = re.compile(r",\s\d{3}(?![\d.,])")   # "22, 026": 22,026 set with a space


def _doubtful_grouping(text: str, base: int, placement: Placement) -> Placement:
    """A number followed by ``, ddd`` may be the first group of a thousands-grouped number
    (a PDF sets the math "22,026" as "22, 026"): its place is not certain."""
    if placement.anchored and any(_SPLIT_GROUP.match(text, n.end - base)
                                  for n in placement.numbers):
        return dataclasses.replace(placement, anchored=False)
    return placement


def place_line(placer: Placer, text: str, base: int, singles: list[Number],
               groups: list[tuple[Group, list[Placement]]], alone: bool = False
               ) -> tuple[list[Placement], list[Number]]:
    """Placements of the single numbers of one line, and the numbers left unplaced;
    ``alone``: the line is one number in a paragraph of its own, a printed result (a
    notebook's output ``927``), which is a claim where it is exactly a quantity."""
    line = _Line(text, base, singles, groups)
    placed: list[Placement] = []
    for pattern, rule in ((_SUM, _sums), (_DOT, _dots), (_PRODUCTS, _products), (_EXP, _exps),
                          (_DIVISION, _divisions), (_SQRT, _roots), (_WEIGHT, _weights)):
        for match in list(pattern.finditer(line.skeleton)):
            numbers = line.numbers_in(match.start(), match.end())
            if any(n.start in line.done for n in numbers):
                continue
            found = rule(placer, line, match, numbers)
            placed.extend(found)
            line.done.update(n.start for p in found for n in p.numbers)
            if rule is _divisions and len(numbers) == 2:   # "2/0.5": no weight, no score
                line.done.update(n.start for n in numbers)
    placed = [_doubtful_grouping(text, base, p) for p in placed]
    left = []
    for number in singles:
        if number.start in line.done:
            continue
        before = text[max(0, number.start - base - 12):number.start - base]
        if alone and number.places == 0 and not number.percent and number.value is not None:
            placement = placer.place_single(number, why="a result printed on its own")
            if placement is not None and placer.score(number, placement.targets[0]) == 1.0:
                placed.append(placement)
            else:
                left.append(number)
            continue
        if _no_claim(text, base, number, before):
            left.append(number)
            continue
        if _EXPONENT.search(before):    # an exponent is a scaled score, or nothing
            placement = placer.place_single(number, prefer=frozenset({"scaled", "masked"}),
                                            why="the exponent of an exponential")
            if placement is not None and \
                    split_name(placement.targets[0].step)[1] in ("scaled", "masked"):
                placed.append(placement)
            else:
                left.append(number)
            continue
        placement = placer.place_single(number)
        if placement is None:
            left.append(number)
        else:
            placed.append(placement)
    return sorted(placed, key=lambda p: p.numbers[0].start), left


def _no_claim(text: str, base: int, number: Number, before: str) -> bool:
    """A number of the line that is no claim: "-inf" in prose, "step 3", "4 × 4",
    "d_model = 4", a factor ("= 1×1 + 0×0"), "axis=1", a heading's "## 3.1", a token id
    in a printed dict ("{'cat': 0, 'sat': 1}")."""
    if number.value is None or _SIZE.search(before) or \
            _HEADING.match(text, 0, number.start - base):
        return True
    if number.places or number.percent:
        return False
    after = text[number.end - base:number.end - base + 12]
    call = text[max(0, number.start - base - 60):number.start - base]
    return not _AFTER_SIGN.search(before) or bool(_FACTOR.match(after)) or \
        bool(_KEYWORD_ARGUMENT.search(call)) or \
        bool(_MAPPED_WHOLE.search(text, 0, number.start - base))


def _term_score(placer: Placer, number: Number, target: Target) -> float:
    """How well a printed term fits: its exact value, or the value of the factors the
    document printed before (a term carried forward from rounded numbers)."""
    return placer.fit(number, target)


def _total_score(placer: Placer, total: Number, terms: Sequence[Number], target: Target
                 ) -> float:
    """How well a printed total fits: its exact value, or the sum of the printed terms
    (not for whole numbers: they add up exactly, and small ones fit many entries)."""
    score = placer.score(total, target)
    added = sum(t.approximately for t in terms)
    if score < 1.0 and not whole_numbers(terms) and entry_score(total, added) == 1.0:
        return CARRIED
    return score


def _sum_targets(placer: Placer, total: Number, terms: list[Number]) -> list[Target]:
    """Entries with as many terms as printed, best first (the total and the terms decide)."""
    shapes = placer.candidates.shapes
    scored: list[tuple[float, Target]] = []
    for step in shapes:
        if split_name(step)[1] not in _TERM_STEPS or term_count(step, shapes) != len(terms):
            continue
        rows, columns = shapes[step]
        for i in range(rows):
            for j in range(columns):
                target = Target(step, i, j)
                fits = [_term_score(placer, t, Target(step, i, j, "term", k))
                        for k, t in enumerate(terms)]
                fit = sum(fits)
                # the printed terms adding up to the total says nothing of which entry it
                # is: it counts only when every term fits this entry itself
                total_score = _total_score(placer, total, terms, target) \
                    if all(f >= 0.5 for f in fits) else placer.score(total, target)
                score = total_score * 2 + fit
                if placer.last_row == (step, i):
                    score += 0.3
                scored.append((score, target))
    scored.sort(key=lambda s: -s[0])
    return [t for s, t in scored if s >= len(terms) * 0.5 + 1]


def _sums(placer: Placer, line: _Line, match: re.Match[str], numbers: list[Number]
          ) -> list[Placement]:
    total = numbers[-1]
    terms = line.numbers_in(match.start("terms"), match.end("terms"))
    factors = line.numbers_in(match.start("factors"), match.end("factors")) \
        if match["factors"] else []
    targets = _sum_targets(placer, total, terms)
    if not targets:
        return []
    target = targets[0]
    factor_targets = _factor_targets(placer, target, len(factors) // 2)
    term_targets = tuple(Target(target.step, target.row, target.column, "term", k)
                         for k in range(len(terms)))
    # A part's place is fixed, whatever its value, by the other parts fitting exactly: the
    # factors fix the entry (a row of Q, a column of K); terms and total together fix it.
    factors_fit = bool(factors) and _all_fit(placer, factors, factor_targets)
    terms_fit = _all_fit(placer, terms, term_targets)
    total_fits = placer.score(total, target) == 1.0
    placements = []
    for number, factor in zip(factors, factor_targets):
        found = placer.place_single(number, must=factor, why="a factor of the sum written out",
                                    anchored=terms_fit and total_fits)
        if found:
            placements.append(found)
    scores = [_term_score(placer, t, k) for t, k in zip(terms, term_targets)]
    confidence = "certain" if all(s == 1.0 for s in scores) else \
        "likely" if sum(s >= 0.5 for s in scores) * 2 >= len(scores) else "guess"
    key = placer.candidates.label(target) + ".terms"
    placements.append(Placement(key, [t.printed for t in terms], tuple(terms), term_targets,
                                confidence, "the terms of the sum written out", factors_fit,
                                placer.nearest(terms[scores.index(min(scores))])))
    found = placer.place_single(total, must=target, why="the total of the sum written out",
                                anchored=factors_fit or terms_fit)
    if found is not None and found.confidence == "guess" and confidence != "guess" and \
            _total_score(placer, total, terms, target) == CARRIED:
        # the printed terms fit, and the total is their sum: carried forward, not a guess
        found = dataclasses.replace(found, confidence="likely",
                                    why=found.why + " (the sum of its printed terms)")
        placer.remember(found)
    return placements + ([found] if found else [])


def _factor_fits(placer: Placer, factors: Sequence[Number]
                 ) -> list[tuple[Target, list[Target]]]:
    """The entries whose terms are exactly the printed products, each with the places of
    the factors (a row of Q and a column of K; a weight and an entry of V)."""
    shapes = placer.candidates.shapes
    count = len(factors) // 2
    found = []
    for step in shapes:
        if split_name(step)[1] not in _TERM_STEPS or term_count(step, shapes) != count:
            continue
        rows, columns = shapes[step]
        for i, j in itertools.product(range(rows), range(columns)):
            targets = _factor_targets(placer, Target(step, i, j), count)
            if _all_fit(placer, factors, targets):
                found.append((Target(step, i, j), targets))
    return found


def _factor_targets(placer: Placer, entry: Target, count: int) -> list[Target]:
    """The places of the factors of an entry's first ``count`` terms, in order."""
    operands = placer.derivation_operands(entry.step)
    return [Target(f.step, f.row, f.column) for k in range(count)
            for f in claim_term(entry.step, entry.row, entry.column, k, operands)]


def _products(placer: Placer, line: _Line, match: re.Match[str], numbers: list[Number]
              ) -> list[Placement]:
    """``a×b + c×d = t``: the factors printed exactly fix the entry ``t`` is the total of
    (certain when one entry fits them, or the total fits the one chosen)."""
    factors, total = numbers[:-1], numbers[-1]
    fitting = _factor_fits(placer, factors)
    if not fitting:
        return []
    target, factor_targets = max(fitting, key=lambda f: placer.score(total, f[0]))
    sure = len(fitting) == 1 or placer.score(total, target) == 1.0
    placements = [found for number, factor in zip(factors, factor_targets)
                  if (found := placer.place_single(number, must=factor,
                                                   why="a factor of the sum written out"))]
    found = placer.place_single(total, must=target, why="the total of the products written out",
                                anchored=sure)
    return placements + ([found] if found else [])


def _all_fit(placer: Placer, numbers: Sequence[Number], targets: Sequence[Target]) -> bool:
    """Every number rounds the exact value of its target."""
    return len(numbers) == len(targets) and all(placer.score(n, t) == 1.0
                                                for n, t in zip(numbers, targets))


def _dots(placer: Placer, line: _Line, match: re.Match[str], numbers: list[Number]
          ) -> list[Placement]:
    groups = [v for k, v in sorted(line.at.items())
              if match.start() <= k < match.end() and not isinstance(v, Number)]
    rows: dict[str, int] = {}
    fixed = True     # both vectors named with their numbers, or fitting their rows exactly
    for _, placements in groups:
        for placement in placements:
            base = split_name(placement.targets[0].step)[1]
            if len(set(t.row for t in placement.targets)) == 1:
                rows.setdefault(base, placement.targets[0].row)
                fixed = fixed and (placement.anchored or _all_fit(
                    placer, placement.numbers, placement.targets))
    if "Q" not in rows or "K" not in rows or "scores" not in placer.candidates.shapes:
        return []
    found = placer.place_single(numbers[-1], must=Target("scores", rows["Q"], rows["K"]),
                                why="the dot product of the query and key printed before it",
                                anchored=fixed)
    return [found] if found else []


def _same_entry(target: Target, step: str) -> Target:
    prefix = target.step[:len(target.step) - len(split_name(target.step)[1])]
    return Target(prefix + step, target.row, target.column)


def _exps(placer: Placer, line: _Line, match: re.Match[str], numbers: list[Number]
          ) -> list[Placement]:
    argument, result = numbers[0], numbers[-1]
    first = placer.place_single(argument, prefer=frozenset({"scaled"}),
                                why="the exponent of an exponential")
    if first is None or split_name(first.targets[0].step)[1] != "scaled":
        first = placer.place_single(argument, prefer=frozenset({"masked"}),
                                    why="the exponent of an exponential")
    if first is None or split_name(first.targets[0].step)[1] not in ("scaled", "masked"):
        return []
    fixed = argument.value is not None and (
        first.anchored or placer.score(argument, first.targets[0]) == 1.0)
    second = placer.place_single(result, must=_same_entry(first.targets[0], "exp"),
                                 why=f"e to the power of {argument.printed}", anchored=fixed)
    if second is not None and second.confidence == "guess" and argument.value is not None \
            and argument.approximately < 700 and \
            entry_score(result, math.exp(argument.approximately)) == 1.0:
        second = dataclasses.replace(second, confidence="likely", why=second.why +
                                     " (what the printed exponent gives)")
        placer.remember(second)
    if argument.value is None:   # e^(-inf) = 0 holds for every masked entry: which one is a guess
        first, second = (dataclasses.replace(p, confidence="guess") if p else None
                         for p in (first, second))
    return [p for p in (first, second) if p]


def _division_sides(target: Target) -> tuple[Target, Target] | None:
    """What a quotient is made of: score / divisor = scaled, exp / exp_sum = weight."""
    base = split_name(target.step)[1]
    if base == "scaled":
        return _same_entry(target, "scores"), Target("divisor", part="divisor")
    if base == "weights":
        return _same_entry(target, "exp"), Target(_same_entry(target, "exp_sum").step,
                                                  target.row, 0)
    return None


def _divisions(placer: Placer, line: _Line, match: re.Match[str], numbers: list[Number]
               ) -> list[Placement]:
    if len(numbers) == 2:     # a / b alone: a numerator over a denominator, nothing else
        top = placer.place_single(numbers[0], prefer=frozenset({"exp", "scores"}))
        bottom = placer.place_single(numbers[1], prefer=frozenset({"exp_sum"}))
        return [p for p, steps in ((top, ("exp", "scores")), (bottom, ("exp_sum", "divisor")))
                if p and split_name(p.targets[0].step)[1] in steps]
    quotient, sides = numbers[2], numbers[:2]
    # the quotient's entry: among those its value fits, the one whose sides fit best, exactly
    # or as the document printed them before (2.034 / 5.068 = 0.401 with both printed)
    options = []
    for candidate in placer.value_candidates(quotient, frozenset({"scaled", "weights"})):
        pair = _division_sides(candidate.target)
        if pair is not None:
            fits = tuple(placer.fit(n, t) for n, t in zip(sides, pair))
            options.append((sum(fits), candidate.target, pair, fits))
    options.sort(key=lambda o: -o[0])
    if not options:
        return _quotient_by_sides(placer, quotient, sides)
    if all(f < 0.5 for f in options[0][3]):
        return []      # neither side fits: the quotient's value was a coincidence
    total, target, pair, fits = options[0]
    unique = len(options) == 1 or options[1][0] < total
    if not unique:     # the same sides fit several entries: the row being worked, and an
        # entry not printed yet before one printed already (a walk-through goes on)
        rows = sorted((o for o in options if o[0] == total),
                      key=lambda o: (placer.last_row != (o[1].step, o[1].row),
                                     o[1] in placer.printed))
        target, pair, fits = rows[0][1:]
    quotient_fits = placer.fit(quotient, target) >= 0.75
    parts = [placer.place_single(n, must=t, why="a side of the division",
                                 anchored=quotient_fits and unique)
             for n, t in zip(sides, pair)]
    result = placer.place_single(quotient, must=target, why="the quotient of the division",
                                 anchored=all(f >= 0.75 for f in fits) and unique)
    if result is not None and not unique and result.confidence == "certain":
        result = dataclasses.replace(result, confidence="likely")
    return [p for p in parts + [result] if p]


def _quotient_by_sides(placer: Placer, quotient: Number, sides: list[Number]
                       ) -> list[Placement]:
    """A quotient whose value fits nothing, placed by its sides when both fit one entry's
    numerator and denominator (exactly or as printed before): the equation fixes it,
    whatever the quotient's value (``22026.4658 / 22027.4725 = 0.9999545``)."""
    found = []
    for step, (rows, columns) in placer.candidates.shapes.items():
        if split_name(step)[1] not in ("weights", "scaled"):
            continue
        for target in (Target(step, i, j) for i in range(rows) for j in range(columns)):
            pair = _division_sides(target)
            if pair and all(placer.fit(n, t) >= CARRIED for n, t in zip(sides, pair)):
                found.append((target, pair))
    if len(found) != 1:
        return []      # no entry, or several: the sides do not settle it
    target, pair = found[0]
    parts = [placer.place_single(n, must=t, why="a side of the division")
             for n, t in zip(sides, pair)]
    result = placer.place_single(quotient, must=target, why="the quotient of its sides",
                                 anchored=True)
    return [p for p in parts + [result] if p]


def _roots(placer: Placer, line: _Line, match: re.Match[str], numbers: list[Number]
           ) -> list[Placement]:
    divisor = Target("divisor", part="divisor")
    if divisor not in placer.candidates.by_target:
        return []
    square = placer.candidates.by_target[divisor].value ** 2
    found = placer.place_single(numbers[-1], must=divisor, why="the square root printed",
                                anchored=entry_score(numbers[0], square) == 1.0)
    return [found] if found else []



def _weights(placer: Placer, line: _Line, match: re.Match[str], numbers: list[Number]
             ) -> list[Placement]:
    """A number times a value vector (``0.309 × v₁``, ``0.5 × [2, 8, 0]``): a weight; when
    the vector is placed as row j of V, the weight is in column j."""
    after = [v for k, v in sorted(line.at.items()) if k > match.start()]
    value_row = None
    if after and not isinstance(after[0], Number):
        rows = {(split_name(p.targets[0].step)[1], p.targets[0].row) for p in after[0][1]
                if len({t.row for t in p.targets}) == 1}
        if len(rows) == 1 and next(iter(rows))[0] == "V":
            value_row = next(iter(rows))[1]
    found = placer.place_single(numbers[0], prefer=frozenset({"weights"}),
                                why=WEIGHT_OF_A_VALUE, column=value_row)
    return [found] if found else []


_PLUS = re.compile(r"\s*\+\s*")
_EQUALS = re.compile(r"\s*[=≈]\s*")


def vector_sums(text: str, placer: Placer, groups: Sequence[Group],
                placements: list[Placement]) -> list[Placement]:
    """``[0, 1.0] + [0.25, 0.25] + [0.50, 0] = [0.75, 1.25]`` (on one line or several):
    once the total is placed as a row of a sum step (an output row), the vectors are the
    terms of its entries, column by column (output[3,1].terms = [0, 0.25, 0.50])."""
    first = {p.numbers[0].start: p for p in placements}
    index = 0
    while index < len(groups):
        run = [groups[index]]
        while index + len(run) < len(groups) and \
                _PLUS.fullmatch(text[run[-1].end:groups[index + len(run)].start]):
            run.append(groups[index + len(run)])
        after = index + len(run)
        if len(run) == 1 and after < len(groups) and "+" in text[run[0].start:run[0].end]:
            run = _summed_cells(text, run[0])      # [0 + 0.20 + 0.80, 0.80 + 0.20 + 0]
        if len(run) >= 2 and after < len(groups) and \
                _EQUALS.fullmatch(text[groups[after - 1].end:groups[after].start]):
            found = _vector_terms(placer, run, first.get(groups[after].numbers[0].start))
            if found:
                mine = {n.start for g in run for n in g.numbers}
                placements = [p for p in placements
                              if not {n.start for n in p.numbers} & mine] + found
        index = after
    return placements


def _summed_cells(text: str, group: Group) -> list[Group]:
    """A vector whose every entry is a sum written out, as one vector per term (the
    columns of the sums), or [] when its entries are not sums of as many terms."""
    inner = text[group.start + 1:group.end - 1]
    cells, offset = [], group.start + 1
    for cell in inner.split(","):
        cells.append((offset, offset + len(cell), "+" in cell))
        offset += len(cell) + 1
    terms = [[n for n in group.numbers if a <= n.start < b] for a, b, _ in cells]
    if not all(plus for _, _, plus in cells) or len({len(t) for t in terms}) != 1 or \
            len(terms[0]) < 2:
        return []
    return [Group((tuple(t[k] for t in terms),), group.start, group.end, ())
            for k in range(len(terms[0]))]


def _vector_terms(placer: Placer, run: list[Group], total: Placement | None
                  ) -> list[Placement]:
    """The term placements of each entry of a placed row, from the vectors added up."""
    if total is None or len({t.row for t in total.targets}) != 1 or \
            any(g.shape != (1, len(total.targets)) for g in run):
        return []
    step, row = total.targets[0].step, total.targets[0].row
    if split_name(step)[1] not in _TERM_STEPS or \
            term_count(step, placer.candidates.shapes) != len(run):
        return []
    # the total's place fixes the terms' place when the structure or every entry fixes it
    fixed = total.anchored or _all_fit(placer, total.numbers, total.targets)
    found = []
    for target in total.targets:
        terms = tuple(g.numbers[target.column] for g in run)
        term_targets = tuple(Target(step, row, target.column, "term", k)
                             for k in range(len(run)))
        fits = [placer.fit(n, t) for n, t in zip(terms, term_targets)]
        confidence = "certain" if all(f == 1.0 for f in fits) else \
            "likely" if all(f >= 0.5 for f in fits) else "guess"
        found.append(Placement(placer.candidates.label(Target(step, row, target.column)) +
                               ".terms", [n.printed for n in terms], terms, term_targets,
                               confidence, "the vectors added up to the row after them",
                               fixed, placer.nearest(terms[fits.index(min(fits))])))
    return found
