"""The project's own checks, run with the tests so that one command runs them all:
ruff (lint), mypy (types, strict) and import-linter (the stage order of docs/design.md).
Their settings are in pyproject.toml."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from suite_profile import full

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent


def _run(tool: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    executable = BIN / tool if (BIN / tool).exists() else shutil.which(tool)
    if executable is None:
        pytest.fail(f"{tool} is not installed: pip install '.[test]'")
    return subprocess.run([str(executable), *arguments], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)


def test_ruff_finds_nothing() -> None:
    result = _run("ruff", "check", "--no-cache", "symattn", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_mypy_strict_passes() -> None:
    # The full profile checks from nothing; the quick one keeps mypy's incremental
    # cache between runs (about 30 s the first time, a few seconds after).
    cache = "/dev/null" if full() else str(Path(tempfile.gettempdir()) / "symattn-mypy-cache")
    result = _run("mypy", f"--cache-dir={cache}")
    assert result.returncode == 0, result.stdout + result.stderr


def test_import_contract_is_kept() -> None:
    result = _run("lint-imports", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout
