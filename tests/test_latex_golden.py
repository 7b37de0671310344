"""The rendered LaTeX and Markdown of one small example, line for line.

Regenerate after an intended change: ``python -m tests.regen_golden`` (see there).
"""

from __future__ import annotations

from functools import lru_cache

import pytest

from regen_golden import CASES, GOLDEN, rendered_case

_case = lru_cache(maxsize=None)(rendered_case)   # each case rendered once, when first asked


@pytest.mark.parametrize("example, language", CASES)
@pytest.mark.parametrize("suffix", ["tex", "md"])
def test_matches_golden(example: str, language: str, suffix: str) -> None:
    name = f"{example}.{language}.{suffix}"
    text = _case(example, language)[name]
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    assert text.splitlines() == expected.splitlines(), (
        f"{name} differs from tests/golden/{name}; if the change is intended, run "
        "`python -m tests.regen_golden` and review the diff")
