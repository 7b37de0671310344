"""Step names: the head prefix of multi-head steps (``head2.scores``).

>>> split_name("head2.scores"), split_name("weights")
(('head2.', 'scores'), ('', 'weights'))
"""

from __future__ import annotations

__all__ = ["split_name", "base_name"]

import re

_HEAD = re.compile(r"^(head\d+)\.(.+)$")


def split_name(name: str) -> tuple[str, str]:
    """The head prefix (with its dot, or "") and the step's own name."""
    match = _HEAD.match(name)
    return (f"{match[1]}.", match[2]) if match else ("", name)


def base_name(name: str) -> str:
    """The step's own name, without a head prefix."""
    return split_name(name)[1]
