"""An output row written as its weights times the value vectors, one term a line:

    y₁ = 0.0 [1 2 3]
       + 0.5 [2 8 0]
       + 0.5 [2 6 3]

Each weight is placed on its own as it is read (``lines._weights``: its column
from the value vector it multiplies, its row by value). The weights of one sum
are one query's row, so the row is chosen again for them together: the row
whose weights fit most of them.
"""

from __future__ import annotations

__all__ = ["one_row_of_weights", "WEIGHT_OF_A_VALUE"]

import re

from symattn.extract.place import Placement, Placer
from symattn.verify.claims import Target

WEIGHT_OF_A_VALUE = "it multiplies a value vector"     # lines._weights says why so
_JOINED = re.compile(r"[^=≈]*\+[^=≈]*")   # one sum: a plus and no equals sign between


def one_row_of_weights(text: str, placer: Placer, placements: list[Placement]
                       ) -> list[Placement]:
    """The placements with the weights of each such sum moved onto one row."""
    weights = sorted((p for p in placements if p.why == WEIGHT_OF_A_VALUE),
                     key=lambda p: p.numbers[0].start)
    runs: list[list[Placement]] = []
    for placement in weights:
        if runs and _JOINED.fullmatch(text, runs[-1][-1].numbers[0].end,
                                      placement.numbers[0].start):
            runs[-1].append(placement)
        else:
            runs.append([placement])
    moved: dict[int, Placement] = {}
    for run in runs:
        moved.update(_on_one_row(placer, run))
    return [moved.get(p.numbers[0].start, p) for p in placements]


def _on_one_row(placer: Placer, run: list[Placement]) -> dict[int, Placement]:
    """The run's weights on the row that fits them best, by the start of each number."""
    targets = [p.targets[0] for p in run]
    columns = [t.column for t in targets]
    if len(run) < 2 or len(set(columns)) < len(columns) or len({t.step for t in targets}) > 1:
        return {}
    step = targets[0].step
    rows = range(placer.candidates.shapes[step][0])
    best = max(rows, key=lambda i: (sum(placer.score(p.numbers[0], Target(step, i, t.column))
                                        for p, t in zip(run, targets)), -i))
    moved = {}
    for placement, target in zip(run, targets):
        if target.row != best:
            again = placer.place_single(placement.numbers[0],
                                        must=Target(step, best, target.column),
                                        why=WEIGHT_OF_A_VALUE + ", in one sum with the others")
            if again is not None:
                moved[placement.numbers[0].start] = again
    return moved
