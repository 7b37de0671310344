"""The steps a name written before a printed block names: symbols, and words in every
language symattn has a catalog for.

English words are listed here (``Attention Weights``, ``softmax``,
``context_vectors``); the other languages' words come from the catalogs' own
headings of the steps (``Wagi uwagi``, ``Váhy pozornosti``, ``Веса внимания``),
whole or by a word that only one step's heading has in that language (``wagi``,
``váhy``, ``веса``). A word the headings of the raw, scaled and masked scores
share (``skóre``, ``оценки``) names the raw scores; the masked scores are named by
their whole heading only (its other words are prepositions: ``после``, ``po``).

>>> step_named("Attention_weights"), step_named("Веса"), step_named("Surowe_wyniki")
('weights', 'weights', 'scores')
>>> step_named("Оценки_внимания"), step_named("výstup"), step_named("Output_shape")
('scores', 'output', None)
"""

from __future__ import annotations

__all__ = ["STEP_SYMBOLS", "step_words", "step_named"]

import functools
import re

from symattn import messages

STEP_SYMBOLS = {"Q": "Q", "K": "K", "V": "V", "X": "X", "E": "X", "W_Q": "W_Q", "WQ": "W_Q",
                "W_K": "W_K", "WK": "W_K", "W_V": "W_V", "WV": "W_V", "scores": "scores",
                "weights": "weights", "output": "output"}
# Names of a step in English words, any case: "Attention Weights", "softmax(...)"
_ENGLISH = {"scores": "scores", "score": "scores", "attn_scores": "scores",
            "attention_scores": "scores", "qk^t": "scores", "scaled": "scaled",
            "scaled_scores": "scaled", "weights": "weights", "attn_weights": "weights",
            "attention_weights": "weights", "alpha": "weights", "softmax": "weights",
            "output": "output", "outputs": "output", "context": "output",
            "context_vectors": "output", "attention": "output", "z": "output",
            "masked_scores": "masked", "raw_scores": "scores", "attention_output": "output",
            "scaled_attention_scores": "scaled", "softmax_weights": "weights",
            "probs": "weights", "probabilities": "weights", "softmax_output": "weights",
            "softmax_outputs": "weights", "softmax_result": "weights",
            "softmax_values": "weights", "attention_probabilities": "weights",
            "attention_probs": "weights", "query": "Q", "queries": "Q", "key": "K",
            "keys": "K", "value": "V", "values": "V"}
# the steps named by words, and the step a word shared within a family names
_FAMILIES = {"scores": "scores", "scaled": "scores", "masked": "scores",
             "weights": "weights", "output": "output"}
_LETTERS = re.compile(r"[^\W\d_]{4,}")


def _catalog_words() -> dict[str, str]:
    """Each language's headings of the steps, whole, and their words that name one step
    (or one family of steps) in that language."""
    found: dict[str, str] = {}
    for language in messages.LANGUAGES:
        catalog = messages.load(language)
        words: dict[str, set[str]] = {}
        for step in _FAMILIES:
            heading = catalog.text(f"heading.{step}").lower()
            found["_".join(_LETTERS.findall(heading))] = step
            for word in _LETTERS.findall(heading):
                words.setdefault(word, set()).add(step)
        for word, steps in words.items():
            families = {_FAMILIES[s] for s in steps}
            if steps == {"masked"}:
                continue     # "после", "po": what the mask's heading adds is no noun
            if len(steps) == 1:
                found.setdefault(word, next(iter(steps)))
            elif len(families) == 1:
                found.setdefault(word, families.pop())
    return found


@functools.cache
def step_words() -> dict[str, str]:
    """Every word and heading that names a step, English first (read from the catalogs
    when a name is first looked up, not when extract is imported)."""
    return {**_catalog_words(), **_ENGLISH}


def step_named(name: str) -> str | None:
    """The step a name written before a matrix names (None for other names). Of several
    words, the last two or the last say in English ("the scaled scores", "Final
    Weights"); in the languages whose nouns come first ("Оценки внимания"), the first."""
    words_of_steps = step_words()
    found = STEP_SYMBOLS.get(name) or words_of_steps.get(name.lower())
    words = name.lower().split("_")
    if found is not None or len(words) < 2 or \
            not all(w.isalpha() and len(w) > 1 for w in words):
        return found
    tried = ["_".join(words[-2:]), words[-1]]
    if not name.isascii():
        tried = ["_".join(words[:2]), words[0]] + tried
    return next((words_of_steps[w] for w in tried if w in words_of_steps), None)
