"""Small structural checks of rendered Markdown, shared by the tests."""

from __future__ import annotations

import re


def math_is_balanced(text: str) -> bool:
    """Every $$ block closes, and every line has an even number of single $."""
    if text.count("$$") % 2:
        return False
    without_display = re.sub(r"\$\$.*?\$\$", "", text, flags=re.S)
    return all(line.count("$") % 2 == 0 for line in without_display.splitlines())
