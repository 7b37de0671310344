"""Token names on a worksheet: ordinary words of the sheet's language, and a sheet that
names a token ("row 2 (token "dog")") lists every token as the sentence of the example.

The word lists are read here straight from ``symattn/worksheets/words.toml``.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

import symattn
from symattn import messages
from symattn.render.worksheet import key_latex, sheet_latex
from symattn.worksheets import sheet as worksheet
from symattn.worksheets.model import Exercise, Sentence, Text

WORDS = tomllib.loads((Path(__file__).resolve().parent.parent / "symattn" / "worksheets" /
                       "words.toml").read_text(encoding="utf-8"))
NAMING = ("scores_row", "weights_row", "output_row", "projection")
# The exercise names a token in its prompt by these quotes, per language.
QUOTES = {"en": ("“", "”"), "pl": ("„", "”"), "cs": ("„", "“"), "ru": ("«", "»"),
          "uk": ("«", "»")}
# Words a list must never hold: prepositions, articles, conjunctions, and the
# inflected adjectives the old sentences gave (czerwoną, зелёными, ...).
NOT_WORDS = {"en": {"the", "a", "on", "over", "at", "red", "warm", "green", "old", "my"},
             "pl": {"na", "nad", "po", "w", "czerwoną", "ciepłej", "zielonymi", "stare", "mój",
                    "nocą"},
             "cs": {"na", "nad", "po", "v", "červený", "teplé", "zelenými", "staré", "můj"},
             "ru": {"на", "над", "по", "красный", "тёплом", "зелёными", "старые", "мой"},
             "uk": {"на", "над", "по", "червоний", "теплому", "зеленими", "старі", "мій"}}


def _sentence(exercise: Exercise) -> tuple[str, ...] | None:
    for part in exercise.parts:
        if isinstance(part, Text) and part.message.id == "sheet_tokens.sentence":
            fragment = dict(part.message.params)["tokens"]
            assert isinstance(fragment, Sentence)
            return fragment.tokens
    return None


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_word_lists_are_ordinary_nouns_and_verbs_in_every_language(language: str) -> None:
    table = WORDS[language]
    nouns, verbs = table["nouns"], table["verbs"]
    assert len(set(nouns)) == len(nouns) >= 6 and len(set(verbs)) == len(verbs) >= 6
    assert not set(nouns) & set(verbs)
    for word in nouns + verbs:
        assert re.fullmatch(r"[^\W\d_]+", word), (language, word)     # one word, letters
        assert word not in NOT_WORDS[language], (language, word)


@pytest.mark.parametrize("language", messages.LANGUAGES)
def test_every_exercise_that_names_a_token_lists_the_sentence(language: str) -> None:
    table = WORDS[language]
    opening, closing = QUOTES[language]
    for seed in range(8):
        sheet = worksheet.build(seed=seed, language=language, kinds=NAMING)[0]
        tex = sheet_latex(sheet)
        for exercise in sheet.exercises:
            tokens = tuple(exercise.problems[0]["tokens"])
            assert _sentence(exercise) == tokens, (language, seed, exercise.kind)
            assert len(set(tokens)) == len(tokens)
            # a noun, a verb, a noun, ...: ordinary words of the sheet's language
            for k, token in enumerate(tokens):
                assert token in table["nouns" if k % 2 == 0 else "verbs"], (language, token)
        # In the LaTeX: every named token is one the sentence before it lists, numbered.
        for block in tex.split(r"\section*")[1:]:
            named = re.findall(re.escape(opening) + r"(?:\\symattncyr\{)?([^}" + closing +
                               r"]+)\}?" + re.escape(closing) + r"\)", block)
            assert named, (language, seed, block[:300])
            for token in named:
                number = re.search(re.escape(token) + r"\}?\$_\{ (\d) \}\$", block)
                assert number, (language, seed, token, block[:400])


def test_the_sentence_reads_in_the_sheets_language() -> None:
    sheet = worksheet.build(seed=3, language="pl", kinds=("output_row",))[0]
    tokens = _sentence(sheet.exercises[0])
    assert tokens is not None
    numbered = " ".join(f"{t}$_{{ {k} }}$" for k, t in enumerate(tokens, 1))
    expected = f"Przykład dotyczy zdania „{numbered}”: token~$i$ to wiersz~$i$ macierzy."
    assert expected in sheet_latex(sheet) and expected in key_latex(sheet)
    english = worksheet.build(seed=3, language="en", kinds=("output_row",))[0]
    assert "The example is about the sentence “" in sheet_latex(english)


def test_no_sentence_without_tokens_and_a_specs_own_tokens_listed() -> None:
    softmax = worksheet.build(seed=1, kinds=("softmax_table", "causal_mask"))[0]
    assert all(_sentence(e) is None for e in softmax.exercises)
    problem = symattn.load_example("000-cat-chases-mouse")
    sheet = worksheet.build(seed=1, problem=problem, kinds=("scores_row",))[0]
    assert _sentence(sheet.exercises[0]) == tuple(problem.tokens)


def test_next_token_offers_words_of_the_list() -> None:
    for language in messages.LANGUAGES:
        table = WORDS[language]
        exercise = worksheet.build(seed=2, language=language, kinds=("next_token",))[0] \
            .exercises[0]
        words = exercise.facts["words"]
        assert len(set(words)) == 4 and set(words) <= set(table["nouns"] + table["verbs"])


def test_exports_show_the_sentence() -> None:
    from symattn.render.exports import export

    sheets = worksheet.build(seed=5, kinds=("weights_row",))
    tokens = _sentence(sheets[0].exercises[0])
    assert tokens is not None
    gift = export("gift", sheets).decode("utf-8")
    assert "The example is about the sentence" in gift and tokens[0] in gift
