"""The two test profiles: quick (the default, for the edit-test loop) and full.

Both run every test. The quick profile tries fewer random cases in the property
tests (hypothesis examples, random seeds) and compiles one bundled example per
seed where a test compiles every example through TeX, and compiles worksheets in three
languages of the five (English; Polish for the Latin-2 letters and the decimal comma;
Ukrainian for Cyrillic); the full profile (``pytest
--full``, the README's test command and ``.ci/run``) tries them all. ``conftest.py`` sets
the profile before any test module is imported, so module-level settings see it.
"""

from __future__ import annotations

import os

PROFILE_VARIABLE = "SYMATTN_TEST_PROFILE"


def full() -> bool:
    """True under ``pytest --full`` (or SYMATTN_TEST_PROFILE=full)."""
    return os.environ.get(PROFILE_VARIABLE, "quick") == "full"


def examples(count: int, quick_share: int = 10) -> int:
    """How many random cases a property test tries: ``count`` in the full profile,
    a tenth of it (at least 10, at most ``count``) in the quick one."""
    return count if full() else min(count, max(10, count // quick_share))


def one_per_seed(names: list[str]) -> list[str]:
    """Every example name in the full profile; in the quick one, the first of each
    seed (the three digits its name starts with)."""
    if full():
        return list(names)
    return list({name[:3]: name for name in reversed(names)}.values())[::-1]


# English, a Latin-2 language with the decimal comma, and a Cyrillic one (T2A fonts).
QUICK_LANGUAGES = ("en", "pl", "uk")


def languages(every: tuple[str, ...]) -> list[str]:
    """Every language in the full profile; in the quick one, ``QUICK_LANGUAGES`` (those
    that compile differently), where a test compiles a PDF for each."""
    return list(every) if full() else [language for language in every
                                       if language in QUICK_LANGUAGES]
