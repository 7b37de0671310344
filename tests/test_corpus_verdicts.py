"""The fail-safe rule on outside documents: ``check DOC``, with ``--spec`` and without it,
calls no correct number of the corpus wrong, and ``extract`` places no number wrongly with
confidence ``certain``.

The corpus (``../shared/corpus``, beside the project) holds documents other people
published, with hand transcriptions and verdicts computed independently with mpmath;
``benchmarks.corpus`` compares symattn's reports with them. Skipped without the corpus.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks import corpus

EXAMPLES = corpus.examples(corpus.CORPUS) if corpus.CORPUS.is_dir() else []
needs_corpus = pytest.mark.skipif(not EXAMPLES, reason="the corpus is not beside the project")


@needs_corpus
@pytest.mark.parametrize("slug,source", EXAMPLES, ids=[slug for slug, _ in EXAMPLES])
def test_no_correct_number_of_an_outside_document_is_called_wrong(slug: str,
                                                                   source: Path) -> None:
    verdicts = json.loads((corpus.CORPUS / "truth" / "verdicts.json").read_text("utf-8"))
    score = corpus.check_one(corpus.CORPUS, slug, source, verdicts)
    assert not score.note, score.note
    assert score.alarms == ()


@needs_corpus
@pytest.mark.parametrize("slug,source", EXAMPLES, ids=[slug for slug, _ in EXAMPLES])
def test_no_number_is_placed_wrongly_for_certain(slug: str, source: Path,
                                                 tmp_path: Path) -> None:
    score = corpus.score_one(corpus.CORPUS, slug, source, tmp_path)
    assert score.certain_wrong == 0


SOURCES = sorted({source for _, source in EXAMPLES})


@needs_corpus
@pytest.mark.parametrize("source", SOURCES, ids=[s.name for s in SOURCES])
def test_without_a_spec_nothing_but_a_transcribed_slip_is_called_wrong(source: Path) -> None:
    verdicts = json.loads((corpus.CORPUS / "truth" / "verdicts.json").read_text("utf-8"))
    slugs = [slug for slug, s in EXAMPLES if s == source]
    assert corpus.unspecified_alarms(corpus.CORPUS, source, slugs, verdicts) == []
