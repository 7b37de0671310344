"""``check DOC --spec INPUTS``: extract and check in one go, verdicts against document lines.

The draft made from the document with the spec's inputs is checked like any
spec; each verdict is then tied back to the printed number it judges (its
line and column in the document), and labelled with its line in the report's
language (``weights[3,2] @ line 76``).

>>> from symattn.extract.document import from_text
>>> spec = '[inputs]\\nscaled = [[0.0, 0.0]]\\n[options]\\nscale = "none"\\n'
>>> checked = check_document(from_text("softmax([0, 0]) = [0.5, 0.6]"), spec)
>>> [(v.position, v.verdict, where) for v, where in zip(checked.report.verdicts, checked.places)]
[('scaled[1,1]', 'ok', (1, 10)), ('scaled[1,2]', 'ok', (1, 13)), ('weights[1,1]', 'ok', (1, 20)), \
('weights[1,2]', 'wrong', (1, 25))]
"""

from __future__ import annotations

__all__ = ["DocumentCheck", "check_document", "check_draft"]

import dataclasses
from dataclasses import dataclass

from symattn import messages
from symattn.derivation import pipeline
from symattn.errors import InputError
from symattn.extract.document import Document
from symattn.extract.draft import label_claims
from symattn.extract.pipeline import Draft, extract
from symattn.problem import spec
from symattn.verify import checker
from symattn.verify.verdicts import Report


@dataclass(frozen=True)
class DocumentCheck:
    """A report on a document, with the (line, column) of every verdict's printed number."""

    report: Report
    places: tuple[tuple[int, int], ...]
    draft: str                      # the draft spec that was checked
    unplaced: tuple[tuple[int, int, str], ...]   # (line, column, printed) not placed
    cells: tuple[int | None, ...] = ()   # for a notebook (PDF, .docx): each verdict's cell
    part: str = "cell"                   # what ``cells`` count: "cell", "page", "paragraph"
    unreadable: tuple[tuple[int, int, str], ...] = ()   # numbers with a glyph unread (PDF)


def check_document(document: Document, spec_text: str, spec_name: str = "<spec>",
                   rounding: str | None = None, working: bool = False,
                   language: str | None = None) -> DocumentCheck:
    """Extract the document's numbers with the spec's inputs, then check them."""
    extraction = extract(document, spec_text, spec_name)
    return check_draft(document, extraction.drafts[0], spec_name, rounding, working, language)


def check_draft(document: Document, draft: Draft, spec_name: str = "<spec>",
                rounding: str | None = None, working: bool = False,
                language: str | None = None) -> DocumentCheck:
    """Check one draft of a document (``check DOC`` checks each example's draft)."""
    if language:   # labels of repeated printings in the reader's language
        draft = dataclasses.replace(draft, language=language)
    text = draft.text(document)
    problem = spec.loads(text, spec_name)
    if not problem.claims:
        raise InputError("no printed number of the document could be placed on this "
                         f"computation ({spec_name})", None)
    report = checker.check(pipeline.derive(problem), rounding, working)
    word = messages.load(language or draft.language or "en").fill("extract.line",
                                                                   line="{line}")
    numbers = [n for c in label_claims(draft.placements, word) for n in c.placement.numbers]
    verdicts, places = [], []
    for verdict in report.verdicts:
        number = numbers[verdict.claim.order]
        places.append((number.line, number.column))
        claim = dataclasses.replace(verdict.claim, label=word.format(line=number.line))
        verdicts.append(dataclasses.replace(verdict, claim=claim))
    report = dataclasses.replace(report, verdicts=tuple(verdicts), source=document.name)
    cells = tuple((document.cell_of(line) or (None, 0))[0] for line, _ in places)
    return DocumentCheck(report, tuple(places), text,
                         tuple((n.line, n.column, n.printed) for n in draft.unplaced), cells,
                         document.part, document.unreadable)
