"""Test profiles (tests/suite_profile.py): ``pytest`` runs the quick one, ``pytest --full``
the full one; both with ``-n auto`` (pytest-xdist) to use every core.

A test marked ``slow`` (tens of seconds: a whole layer in exact arithmetic, a
1024-row page through TeX) runs in the full profile only."""

from __future__ import annotations

import os

import pytest

from suite_profile import PROFILE_VARIABLE


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--full", action="store_true",
                     help="symattn: the full test profile (every random case, clean tool caches)")


def pytest_configure(config: pytest.Config) -> None:
    # An environment variable, so that xdist's workers and the subprocesses some tests
    # start see the same profile.
    if config.getoption("--full"):
        os.environ[PROFILE_VARIABLE] = "full"
    else:
        os.environ.setdefault(PROFILE_VARIABLE, "quick")
    # Hundreds of tests start ``python -m symattn``; without bytecode each child compiles
    # the package again (0.4 s). Children keep compiled modules in the test cache folder,
    # never in the source tree, whatever PYTHONDONTWRITEBYTECODE says.
    if "PYTHONPYCACHEPREFIX" not in os.environ and not hasattr(config, "workerinput"):
        os.environ["PYTHONPYCACHEPREFIX"] = str(config.rootpath / ".pytest_cache" / "pycache")
        os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_report_header(config: pytest.Config) -> str:
    return f"symattn test profile: {os.environ.get(PROFILE_VARIABLE, 'quick')}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get(PROFILE_VARIABLE) == "full":
        return
    skip = pytest.mark.skip(reason="slow: runs in the full profile (pytest --full)")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)
