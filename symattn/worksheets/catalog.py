"""Every exercise kind by name, and the kinds a worksheet has by default."""

from __future__ import annotations

__all__ = ["KINDS", "DEFAULT_KINDS", "build"]

import random

import symattn.worksheets.kinds as kinds
import symattn.worksheets.kinds_more as kinds_more
import symattn.worksheets.kinds_reason as kinds_reason
import symattn.worksheets.mistakes as mistakes
import symattn.worksheets.whatif as whatif
from symattn.worksheets.kinds import Builder, Setup
from symattn.worksheets.model import Exercise

KINDS: dict[str, Builder] = {
    "softmax_table": kinds.softmax_table,
    "scores_row": kinds.scores_row,
    "weights_row": kinds.weights_row,
    "output_row": kinds.output_row,
    "fill_matrix": kinds.fill_matrix,
    "causal_mask": kinds.causal_mask,
    "find_error": mistakes.find_error,
    "temperature": whatif.temperature,
    "no_scaling": whatif.no_scaling,
    "entropy": whatif.entropy,
    "sizes": whatif.sizes,
    **kinds_more.KINDS,          # projection, multi_head, kv_cache, next_token, stable_softmax
    **kinds_reason.KINDS,        # permutation, design
}
DEFAULT_KINDS = ("softmax_table", "scores_row", "weights_row", "causal_mask", "output_row",
                 "find_error", "temperature", "entropy", "sizes")


def build(kind: str, rng: random.Random, setup: Setup) -> Exercise:
    """One exercise of ``kind``."""
    return KINDS[kind](rng, setup)
