"""Every exercise kind by name, and the kinds a worksheet has by default."""

from __future__ import annotations

__all__ = ["KINDS", "DEFAULT_KINDS", "build"]

import random

import symattn.worksheets.attention_steps as attention_steps
import symattn.worksheets.mistakes as mistakes
import symattn.worksheets.reasoning as reasoning
import symattn.worksheets.transformer as transformer
import symattn.worksheets.whatif as whatif
from symattn.worksheets.model import Builder, Exercise, Setup

# The order of `--exercises all` and of the kinds an unknown kind's message lists.
KINDS: dict[str, Builder] = {
    "softmax_table": attention_steps.softmax_table,
    "scores_row": attention_steps.scores_row,
    "weights_row": attention_steps.weights_row,
    "output_row": attention_steps.output_row,
    "fill_matrix": attention_steps.fill_matrix,
    "causal_mask": attention_steps.causal_mask,
    "find_error": mistakes.find_error,
    "temperature": whatif.temperature,
    "no_scaling": whatif.no_scaling,
    "entropy": whatif.entropy,
    "sizes": whatif.sizes,
    "projection": attention_steps.projection,
    "multi_head": transformer.multi_head,
    "kv_cache": transformer.kv_cache,
    "next_token": transformer.next_token,
    "stable_softmax": attention_steps.stable_softmax,
    "permutation": reasoning.permutation,
    "design": reasoning.design,
}
DEFAULT_KINDS = ("softmax_table", "scores_row", "weights_row", "causal_mask", "output_row",
                 "find_error", "temperature", "entropy", "sizes")


def build(kind: str, rng: random.Random, setup: Setup) -> Exercise:
    """One exercise of ``kind``."""
    return KINDS[kind](rng, setup)
