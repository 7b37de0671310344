"""The rendered LaTeX and Markdown of one small example, line for line.

Regenerate after an intended change: ``python -m tests.regen_golden`` (see there).
"""

from __future__ import annotations

import pytest

from regen_golden import GOLDEN, rendered


@pytest.mark.parametrize("name", sorted(rendered()))
def test_matches_golden(name: str) -> None:
    text = rendered()[name]
    expected = (GOLDEN / name).read_text(encoding="utf-8")
    assert text.splitlines() == expected.splitlines(), (
        f"{name} differs from tests/golden/{name}; if the change is intended, run "
        "`python -m tests.regen_golden` and review the diff")
