"""Shared helpers of the extract tests: where the seed documents are, and claims as pairs.

The seed documents live beside the project (``../shared/seeds``), not in it:
their prose may not be copied. Tests that need them skip when they are absent.
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from symattn.derivation import pipeline
from symattn.problem import spec
from symattn.verify.claims import read_claims

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "extract"
_PLACES = [Path(os.environ.get("SYMATTN_SEEDS", "")), ROOT.parent / "shared" / "seeds",
           ROOT.parent.parent / "shared" / "seeds", Path("/work/shared/seeds")]
SEEDS = next((p for p in _PLACES if str(p) not in ("", ".") and p.is_dir()), None)
SEED_FILES = {"000": "000_c028d74c44707e49.txt", "001": "001_2cdc8a83819aef53.txt",
              "003": "003_9d526887b076f2c6.txt", "004": "004_c80b224108531dcf.txt"}

Pair = tuple[str, int, int, str, int, str, int, bool]


def seed(number: str) -> Path | None:
    """The seed document's path, or None when the seeds are not beside the project."""
    return SEEDS / SEED_FILES[number] if SEEDS else None


def claim_pairs(spec_text: str, source: str = "<spec>") -> Counter[Pair]:
    """Every printed number of a spec's claims as (where, what was printed), labels dropped."""
    problem = spec.loads(spec_text, source)
    derivation = pipeline.derive(problem)
    shapes = {step.name: step.shape for step in derivation.steps}
    claims = read_claims(problem.claims, shapes, problem.query_positions, source)
    return Counter((c.target.step, c.target.row, c.target.column, c.target.part, c.target.term,
                    str(c.printed.number), c.printed.places, c.printed.percent)
                   for c in claims)


def computed(spec_text: str) -> dict[str, list[float]]:
    """The exact scores, weights and outputs of a spec as floats (to compare computations)."""
    from symattn.extract.candidates import Candidates

    found: dict[str, list[float]] = {}
    for candidate in Candidates(pipeline.derive(spec.loads(spec_text))).all:
        target = candidate.target
        if target.part == "entry" and target.step in ("scores", "weights", "output"):
            found.setdefault(target.step, []).append(round(candidate.value, 12))
    return found
