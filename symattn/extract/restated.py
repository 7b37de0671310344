"""Numbers a page prints again: a row printed again, percentages that restate a number.

Prose retells what a formula or a print showed: "the row for *studying*
([0.45, 0.18, 0.37]) takes 45% from *I*, 18% from *am* and 37% from
*studying*"; "0.0000003 ≈ 0.0003%"; "the vector for *studying*, [1.53, -0.02,
0.60], is ...". Such a number is the quantity the number it restates was placed
on, whatever its value, so a slip in the retelling is found where the retold
number was found, and is as sure as that number's place.

>>> from symattn.extract.document import from_text
>>> from symattn.extract.scanner import scan
>>> found = scan(from_text("w = [0.25, 0.75]: 25% and 75%"))
>>> [[n.text for n in run] for run in percent_runs(found.singles)]
[['25%', '75%']]
"""

from __future__ import annotations

__all__ = ["restated", "repeated_rows", "percent_runs"]

import bisect
import re
from typing import Sequence

from symattn.derivation.names import split_name
from symattn.extract.place import Placement, Placer, sums_to_one
from symattn.extract.scanner import Group, Number
from symattn.verify.claims import Target

RETOLD_WITHIN = 6      # a row is retold in percentages on its line or the 6 after it
_EQUALS_BEFORE = re.compile(r"[\s$]*[=≈][\s$~]*$")


def percent_runs(numbers: Sequence[Number], text: str = "") -> list[list[Number]]:
    """The percentages of each line of ``text`` (a paragraph an HTML page wraps over
    several source lines is one), in order, as one run per line."""
    newlines = [m.start() for m in re.finditer("\n", text)]
    runs: dict[int, list[Number]] = {}
    for number in numbers:
        if number.percent and number.value is not None:
            runs.setdefault(bisect.bisect(newlines, number.start), []).append(number)
    return [runs[line] for line in sorted(runs)]


def restated(text: str, placer: Placer, placements: list[Placement],
             unplaced: Sequence[Number]) -> list[Placement]:
    """Placements of the unplaced percentages that restate placed numbers: one printed
    right after a placed number and ``=`` or ``≈``, and a line's run of two or more that
    repeats, in order, consecutive entries of a row placed on that line or just above;
    else a line's percentages that make a row of weights (``_distribution``), those placed
    by their value alone among them. They take the place of any earlier placement of
    the same numbers."""
    found: list[Placement] = []
    ends = {n.end: (p, k) for p in placements for k, n in enumerate(p.numbers)}
    left = []
    for number in (n for n in unplaced if n.percent and n.value is not None):
        before = _retold_single(text, ends, number)
        if before is None:
            left.append(number)
        else:
            found += _same_place(placer, [number], [before[1]], before[0])
    for run in percent_runs(left, text):
        retold = _retold_row(placements, run)
        if retold is not None:
            placement, start = retold
            found += _same_place(placer, run, range(start, start + len(run)), placement)
    # what is left, with the percentages placed by their value alone: rows of weights
    done = {n.start for p in found for n in p.numbers}
    by_value = [p.numbers[0] for p in placements if len(p.numbers) == 1 and
                p.numbers[0].percent and not p.anchored]
    for run in percent_runs([n for n in left if n.start not in done] + by_value, text):
        if any(n.start in done for n in run):
            continue
        found += _distribution(placer, sorted(run, key=lambda n: n.start))
    return found


def _retold_row(placements: list[Placement], run: list[Number]
                ) -> tuple[Placement, int] | None:
    """The placement (and where in it) whose row ``run`` retells, if any."""
    for placement in reversed(placements):
        if run[0].line - RETOLD_WITHIN <= placement.line <= run[0].line and \
                len(placement.numbers) >= len(run) >= 2:
            start = _run_in(placement, run)
            if start is not None:
                return placement, start
    return None


def _distribution(placer: Placer, run: list[Number]) -> list[Placement]:
    """A line's percentages that add up to 100% (as printed, each rounded) and are as
    many as a row of weights has: a row of weights in prose ("22% and 78%, and 0%"),
    on the row they fit best. Only the values say which row, so the place is never
    certain: a slip there is suspicious, not wrong."""
    if len(run) < 2 or not sums_to_one(run):
        return []
    rows = [(step, i) for step, (count, columns) in placer.candidates.shapes.items()
            if split_name(step)[1] == "weights" and columns == len(run)
            for i in range(count)]
    if not rows:
        return []
    step, i = max(rows, key=lambda r: sum(placer.score(n, Target(r[0], r[1], j))
                                          for j, n in enumerate(run)))
    return _on_targets(placer, run, [Target(step, i, j) for j in range(len(run))],
                       "percentages that add up to 100%, a row of weights", False)


def _retold_single(text: str, ends: dict[int, tuple[Placement, int]], number: Number
                   ) -> tuple[Placement, int] | None:
    """The placed number that ``number`` follows after ``=`` or ``≈`` (its placement and
    its index there), if any."""
    sign = _EQUALS_BEFORE.search(text, max(0, number.start - 40), number.start)
    return ends.get(sign.start()) if sign else None


def _run_in(placement: Placement, run: list[Number]) -> int | None:
    """Where ``run`` repeats consecutive entries of one row of ``placement`` (their
    values, a percentage as its hundredth), or None."""
    values = [n.magnitude for n in placement.numbers]
    wanted = [n.magnitude for n in run]
    for start in range(len(values) - len(run) + 1):
        targets = placement.targets[start:start + len(run)]
        if values[start:start + len(run)] == wanted and len({t.row for t in targets}) == 1 \
                and len({t.step for t in targets}) == 1:
            return start
    return None


def _same_place(placer: Placer, numbers: Sequence[Number], indexes: Sequence[int],
                source: Placement) -> list[Placement]:
    """``numbers`` on the targets ``indexes`` of ``source``, as anchored as it is."""
    found = []
    for number, index in zip(numbers, indexes):
        found += _on_targets(placer, [number], [source.targets[index]],
                             f"restates {source.numbers[index].printed} (line {source.line})",
                             source.anchored)
    return found


def _on_targets(placer: Placer, numbers: Sequence[Number], targets: Sequence[Target],
                why: str, anchored: bool) -> list[Placement]:
    """Each number placed on its target, for ``why``."""
    placed = (placer.place_single(n, must=t, why=why, anchored=anchored)
              for n, t in zip(numbers, targets))
    return [p for p in placed if p is not None]


def repeated_rows(placer: Placer, groups: Sequence[Group], placements: list[Placement],
                  taken: set[int]) -> list[Placement]:
    """Placements of the unplaced rows that print, number for number, a row placed
    before them (the same printed text in the same order)."""
    rows: dict[tuple[str, ...], tuple[Placement, int]] = {}
    ordered = sorted(placements, key=lambda p: p.numbers[0].start)
    found: list[Placement] = []
    index = 0
    for group in sorted(groups, key=lambda g: g.start):
        while index < len(ordered) and ordered[index].numbers[0].start < group.start:
            _remember_rows(rows, ordered[index])
            index += 1
        if group.shape[0] != 1 or group.shape[1] < 2 or \
                any(n.start in taken for n in group.numbers):
            continue
        source = rows.get(tuple(n.text for n in group.numbers))
        if source is not None:
            placement, start = source
            found += _same_place(placer, group.numbers,
                                 range(start, start + len(group.numbers)), placement)
    return found


def _remember_rows(rows: dict[tuple[str, ...], tuple[Placement, int]],
                   placement: Placement) -> None:
    """Each whole row of entries a placement holds, by its printed texts."""
    by_row: dict[tuple[str, int], list[int]] = {}
    for k, target in enumerate(placement.targets):
        if target.part == "entry":
            by_row.setdefault((target.step, target.row), []).append(k)
    for indexes in by_row.values():
        if len(indexes) >= 2 and indexes == list(range(indexes[0], indexes[-1] + 1)):
            texts = tuple(placement.numbers[k].text for k in indexes)
            rows[texts] = (placement, indexes[0])
