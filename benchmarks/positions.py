#!/usr/bin/env python
"""Benchmark rows for positions (sinusoidal, RoPE) on the fast position path.

    python benchmarks/positions.py            # every row, a text table
    python benchmarks/positions.py --quick    # the small rows only
    python benchmarks/positions.py --markdown

Each row draws seeded inputs (two-digit decimals in [-1, 1] for X, W_Q, W_K
and W_V, given as strings), builds the problem, derives it, writes the strings
of the text report (``render.view.build_view``: closed forms and certified
decimals of the rows on show) and then certifies every weight and output
entry (``NumberFormat.format_block``), the deliverable the other rows of
``bench.py`` time. Times are CPU seconds of this process (the steadier figure
on a shared machine) and wall seconds; the load average is printed with them.

For the table command: ``rows()`` returns ``PositionRow`` records (name,
target, CPU and wall seconds) and ``ROWS`` lists the cases with their targets.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from symattn.derivation.pipeline import derive  # noqa: E402
from symattn.problem.limits import Limits  # noqa: E402
from symattn.problem.problem import Problem  # noqa: E402
from symattn.render.view import build_view  # noqa: E402
from symattn.values.number_format import NumberFormat  # noqa: E402


@dataclass(frozen=True)
class PositionCase:
    name: str
    tokens: int
    width: int            # d_model (= d_k: square projections)
    kind: str             # sinusoidal | rope
    causal: bool
    target: float         # seconds (issue 18)


ROWS = (
    PositionCase("positions: sinusoidal 8 x 8, causal", 8, 8, "sinusoidal", True, 0.5),
    PositionCase("positions: rope 8 x 8, causal", 8, 8, "rope", True, 0.5),
    PositionCase("positions: sinusoidal 64 x 16", 64, 16, "sinusoidal", False, 3.0),
    PositionCase("positions: rope 64 x 16", 64, 16, "rope", False, 3.0),
    PositionCase("positions: sinusoidal 512 x 64, causal", 512, 64, "sinusoidal", True, 10.0),
)
QUICK = 3     # the first rows: a few seconds in all


@dataclass(frozen=True)
class PositionRow:
    case: PositionCase
    cpu: float           # derive + report strings + every weight and output certified
    wall: float
    derive: float        # CPU seconds of derive alone (building the problem included)


def _decimals(rng: random.Random, rows: int, columns: int) -> list[list[str]]:
    return [[f"{rng.randint(-99, 99) / 100}" for _ in range(columns)] for _ in range(rows)]


def position_spec(case: PositionCase, seed: int = 0) -> dict[str, Any]:
    """The spec mapping of a case: seeded X and projections, the positions, the mask."""
    rng = random.Random(seed)
    inputs = {"X": _decimals(rng, case.tokens, case.width)}
    for name in ("W_Q", "W_K", "W_V"):
        inputs[name] = _decimals(rng, case.width, case.width)
    options = {"positions": case.kind, "mask": "causal" if case.causal else "none"}
    return {"inputs": inputs, "options": options}


def time_case(case: PositionCase, seed: int = 0) -> PositionRow:
    """Build, derive, write the report strings, certify every weight and output entry."""
    spec = position_spec(case, seed)
    limits = Limits(max_position_tokens=max(case.tokens, Limits.max_position_tokens),
                    max_position_width=max(case.width, Limits.max_position_width))
    cpu0, wall0 = time.process_time(), time.perf_counter()
    derivation = derive(Problem.from_mapping(spec, limits=limits))
    cpu1 = time.process_time()
    build_view(derivation)
    fmt = NumberFormat()
    for name in ("weights", "output"):
        grid = derivation[name].value
        fmt.format_block(grid, grid.rows(), grid.columns())
    return PositionRow(case, time.process_time() - cpu0, time.perf_counter() - wall0,
                       cpu1 - cpu0)


def rows(quick: bool = False, seed: int = 0) -> list[PositionRow]:
    """Every row (or the quick ones), each timed once."""
    return [time_case(case, seed) for case in (ROWS[:QUICK] if quick else ROWS)]


def table(measured: Sequence[PositionRow], markdown: bool = False) -> str:
    header = ["case", "target s", "cpu s", "wall s", "derive s", "met"]
    body = [[row.case.name, f"{row.case.target:g}", f"{row.cpu:.2f}", f"{row.wall:.2f}",
             f"{row.derive:.2f}", "yes" if row.cpu <= row.case.target else "no"]
            for row in measured]
    if markdown:
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        return "\n".join(lines + ["| " + " | ".join(cells) + " |" for cells in body])
    widths = [max(len(r[k]) for r in [header] + body) for k in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths))
                     for r in [header] + body)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small rows only")
    parser.add_argument("--markdown", action="store_true", help="a Markdown table")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    measured = rows(args.quick, args.seed)
    print(f"load average {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    print(table(measured, args.markdown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
