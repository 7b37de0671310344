"""The README's test command is the one .ci/run runs, and the profiles differ as
the README says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from suite_profile import PROFILE_VARIABLE, examples, one_per_seed

ROOT = Path(__file__).resolve().parent.parent


def _readme_test_command() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```", readme, re.S | re.M)
    commands = [line for block in blocks for line in block.splitlines() if "pytest" in line]
    return commands[0]


def test_ci_runs_the_readmes_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()
    assert ci[-1] == _readme_test_command()
    assert "--full" in ci[-1] and "-n auto" in ci[-1]


def test_profiles_scale_the_random_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(PROFILE_VARIABLE, "full")
    assert (examples(4000), examples(25)) == (4000, 25)
    monkeypatch.setenv(PROFILE_VARIABLE, "quick")
    assert (examples(4000), examples(25), examples(5)) == (400, 10, 5)


def test_the_quick_profile_compiles_one_example_per_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["000-a", "001-b", "001-c", "003-d", "015-e", "015-f"]
    monkeypatch.setenv(PROFILE_VARIABLE, "quick")
    assert one_per_seed(names) == ["000-a", "001-b", "003-d", "015-e"]
    monkeypatch.setenv(PROFILE_VARIABLE, "full")
    assert one_per_seed(names) == names
