"""``check DOC --spec INPUTS``: extract and check in one go, verdicts against document lines.

The draft made from the document with the spec's inputs is checked like any
spec; each verdict is then tied back to the printed number it judges (its
line and column in the document), and labelled with its line in the report's
language (``weights[3,2] @ line 76``).

**The fail-safe rule.** A number is called wrong only when its place is
certain: its placement is anchored (a name with a position, or an equation
whose other parts are placed, fixes it; ``Placement.anchored``). A number the
checker finds wrong on a place found by its value alone is **suspicious**: it
keeps the checker's reason, is not counted as wrong, and is listed with its
line and the quantities nearest in value. A number not placed at all whose
value is a few units in its last place from a quantity - of this computation
or of a side calculation of the document (``[10, 2, 1] → softmax → [...]``) -
without rounding to any is suspicious too. The checker stays the one judge;
this layer only re-classifies.

>>> from symattn.extract.document import from_text
>>> spec = '[inputs]\\nscaled = [[0.0, 0.0]]\\n[options]\\nscale = "none"\\n'
>>> checked = check_document(from_text("softmax([0, 0]) = [0.5, 0.6]"), spec)
>>> [(v.position, v.verdict, where) for v, where in zip(checked.report.verdicts, checked.places)]
[('scaled[1,1]', 'ok', (1, 10)), ('scaled[1,2]', 'ok', (1, 13)), ('weights[1,1]', 'ok', (1, 20)), \
('weights[1,2]', 'suspicious', (1, 25))]
>>> checked.counts
{'placed': 4, 'suspicious': 1, 'unplaced': 0, 'unreadable': 0}
"""

from __future__ import annotations

__all__ = ["DocumentCheck", "Suspicious", "Near", "Computation", "NEAR_UNITS",
           "check_document", "check_draft", "side_computations", "placed_once"]

import dataclasses
import heapq
import math
from dataclasses import dataclass, field
from typing import Callable, Sequence, Union

from symattn import messages
from symattn.derivation import pipeline
from symattn.derivation.steps import Derivation
from symattn.errors import InputError, SymattnError
from symattn.extract.candidates import Candidate, Candidates
from symattn.extract.document import Document
from symattn.extract.draft import label_claims, toml_key
from symattn.extract.pipeline import Draft, extract
from symattn.extract.place import Placement
from symattn.extract.scanner import Number
from symattn.problem import spec
from symattn.verify import checker
from symattn.verify.claims import Target
from symattn.verify.verdicts import SUSPICIOUS, Reason, Report, Verdict, reason_text

# A number not placed is suspicious when a quantity is within this many units in its last
# printed place (0.9997 for 0.99954: 1.6 units; an earlier rounded number carried forward
# gives up to 1.5; two carried, more) and within NEAR_SHARE of it, and no quantity rounds to it.
NEAR_UNITS = 3
NEAR_SHARE = 0.01
_NEAREST = 2            # quantities named for a suspicious number
_MOST_SUSPICIOUS = 200  # unplaced numbers examined at most (a long document's tables)


@dataclass(frozen=True)
class Near:
    """A quantity near a suspicious number: its claim key, exact value (a float: shown
    to a few places), and the side calculation it belongs to ("" for the spec's own)."""

    position: str
    value: float
    computation: str = ""
    # what it is, for naming it in words (None: known by its key alone)
    target: Target | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Suspicious:
    """A wrong-looking number whose place is not certain: where it is printed, and the
    quantities nearest in value. ``claim``: the index of its verdict in the report (a
    number placed by value), None for a number not placed."""

    line: int
    column: int
    printed: str
    nearest: tuple[Near, ...]
    claim: int | None = None


@dataclass(frozen=True)
class Computation:
    """A computation the document's numbers may belong to: the spec's own, or a side
    calculation over some lines."""

    title: str
    candidates: Candidates
    lines: tuple[int, int] | None = None     # None: the whole document

    def covers(self, line: int) -> bool:
        return self.lines is None or self.lines[0] <= line <= self.lines[1]


# The other computations of a document, or a function that makes them when first needed.
Others = Union[Sequence[Computation], Callable[[], Sequence[Computation]]]


@dataclass(frozen=True)
class DocumentCheck:
    """A report on a document, with the (line, column) of every verdict's printed number."""

    report: Report
    places: tuple[tuple[int, int], ...]
    draft: str                      # the draft spec that was checked
    unplaced: tuple[tuple[int, int, str], ...]   # (line, column, printed) not placed
    cells: tuple[int | None, ...] = ()   # for a notebook (PDF, .docx): each verdict's cell
    suspicious: tuple[Suspicious, ...] = ()   # in document order
    unreadable: tuple[tuple[int, int, str], ...] = ()   # numbers with a glyph unread (PDF)
    part: str = "cell"                   # what ``cells`` count: "cell", "page", "paragraph"

    @property
    def counts(self) -> dict[str, int]:
        """The document's numbers: placed (judged), suspicious (placed or not), not
        placed, unreadable."""
        return {"placed": len(self.report.verdicts), "suspicious": len(self.suspicious),
                "unplaced": len(self.unplaced), "unreadable": len(self.unreadable)}

    @property
    def has_wrong(self) -> bool:
        """A number wrong on a certain place (what exit status 1 means)."""
        return self.report.has_wrong


def check_document(document: Document, spec_text: str, spec_name: str = "<spec>",
                   rounding: str | None = None, working: bool = False,
                   language: str | None = None) -> DocumentCheck:
    """Extract the document's numbers with the spec's inputs, then check them."""
    extraction = extract(document, spec_text, spec_name)
    draft = extraction.drafts[0]
    return check_draft(document, draft, spec_name, rounding, working, language,
                       lambda: side_computations(document))


def check_draft(document: Document, draft: Draft, spec_name: str = "<spec>",
                rounding: str | None = None, working: bool = False,
                language: str | None = None,
                others: Others = ()) -> DocumentCheck:
    """Check one draft of a document under the fail-safe rule.

    ``others``: the other computations of the document (or a function making them,
    called only when a number not placed needs them), where a number not placed may
    be near a quantity."""
    if language:   # labels of repeated printings in the reader's language
        draft = dataclasses.replace(draft, language=language)
    draft, text, derivation, report = _judged(document, draft, spec_name, rounding, working)
    word = messages.load(language or draft.language or "en").fill("extract.line",
                                                                   line="{line}")
    printed = [(n, c.placement) for c in label_claims(draft.placements, word)
               for n in c.placement.numbers]
    own = _Lazy(derivation)
    verdicts, places, suspicious = [], [], []
    for index, verdict in enumerate(report.verdicts):
        number, placement = printed[verdict.claim.order]
        places.append((number.line, number.column))
        claim = dataclasses.replace(verdict.claim, label=word.format(line=number.line))
        verdict = dataclasses.replace(verdict, claim=claim)
        if verdict.verdict == "wrong" and not placement.anchored:
            verdict = _suspicious(verdict)
            suspicious.append(Suspicious(number.line, number.column, number.printed,
                                         _nearest_of(number, placement, own(),
                                                     verdict.position), index))
        verdicts.append(verdict)
    suspicious += _unplaced_suspicious(draft.unplaced, own, others)
    suspicious.sort(key=lambda s: (s.line, s.column))
    report = dataclasses.replace(report, verdicts=tuple(verdicts), source=document.name)
    cells = tuple((document.cell_of(line) or (None, 0))[0] for line, _ in places)
    return DocumentCheck(report, tuple(places), text,
                         tuple((n.line, n.column, n.printed) for n in draft.unplaced), cells,
                         tuple(suspicious), document.unreadable, document.part)


def _judged(document: Document, draft: Draft, spec_name: str, rounding: str | None,
            working: bool) -> tuple[Draft, str, Derivation, Report]:
    """The draft (its text, derivation and the checker's report) once the checker reads
    it: a placement whose claim it refuses (a number that reads two ways, 22,026) is
    dropped and its numbers listed as not placed, so that one such number does not stop
    the check of the whole document."""
    while True:
        text = draft.text(document)
        try:
            problem = spec.loads(text, spec_name)
            if not problem.claims:
                raise InputError("no printed number of the document could be placed on "
                                 f"this computation ({spec_name})", None)
            derivation = pipeline.derive(problem)
            return draft, text, derivation, checker.check(derivation, rounding, working)
        except InputError as error:
            refused = _refused(draft, error)
            if refused is None:
                raise
            draft = dataclasses.replace(
                draft, placements=[p for p in draft.placements if p is not refused],
                unplaced=sorted([*draft.unplaced, *refused.numbers], key=lambda n: n.start))


def _refused(draft: Draft, error: InputError) -> Placement | None:
    """The placement whose claim ``error`` is about, if it is about one."""
    where = error.location.key if error.location else None
    if not where:
        return None
    word = messages.load(draft.language or "en").fill("extract.line", line="{line}")
    for claimed in label_claims(draft.placements, word):
        key = f"claims.{toml_key(claimed.key)}"
        if where == key or where.startswith((key + ".", key + "[")):
            return claimed.placement
    return None


class _Lazy:
    """The draft's own computation, its candidates indexed only when first needed."""

    def __init__(self, derivation: Derivation) -> None:
        self.derivation = derivation
        self.made: Computation | None = None

    def __call__(self) -> Computation:
        if self.made is None:
            self.made = Computation("", Candidates(self.derivation))
        return self.made


def _suspicious(verdict: Verdict) -> Verdict:
    """A wrong verdict on an uncertain place, re-classified: the checker's reason kept,
    a clause saying why it is not counted put first."""
    reasons = (Reason.of("suspicious"), *verdict.reasons)
    return dataclasses.replace(verdict, verdict=SUSPICIOUS, reasons=reasons,
                               reason=reason_text(reasons))


def placed_once(checks: Sequence[DocumentCheck]) -> list[DocumentCheck]:
    """The checks of one document's examples, each without the suspicious numbers it could
    not place that another example placed: their verdict is in that example's report."""
    placed = {place for check in checks for place in check.places}
    return [dataclasses.replace(check, suspicious=tuple(
        found for found in check.suspicious
        if found.claim is not None or (found.line, found.column) not in placed))
        for check in checks]


def side_computations(document: Document, drafts: Sequence[Draft] | None = None
                      ) -> list[Computation]:
    """The side calculations of a document (a row of scores put through softmax on the
    side), as ``extract`` without a spec finds them (``drafts``: its drafts, when the
    caller has extracted them already); [] when there are none."""
    if drafts is None:
        try:
            drafts = extract(document).drafts
        except SymattnError:
            return []
    found = []
    for draft in [d for d in drafts if d.lines is not None]:
        try:
            problem = spec.loads(draft.head, document.name + " (side calculation)")
            found.append(Computation(problem.title, Candidates(pipeline.derive(problem)),
                                     draft.lines))
        except SymattnError:
            continue
    return found


def _places(number: Number) -> int:
    return number.places + (2 if number.percent else 0)


def _doubtful(number: Number) -> bool:
    """A number that could be a slip worth naming: a finite decimal, not 0 or 1."""
    return number.value is not None and number.places > 0 and number.value not in (0, 1, -1)


def _fits(number: Number, computation: Computation) -> bool:
    """Some quantity of the computation rounds to the printed number."""
    return bool(computation.candidates.matching(number.magnitude, _places(number)))


def _unplaced_suspicious(unplaced: Sequence[Number], own: _Lazy,
                         others: Others) -> list[Suspicious]:
    """The numbers not placed that are near a quantity and round to none."""
    doubtful = [n for n in unplaced if _doubtful(n)][:_MOST_SUSPICIOUS]
    doubtful = [n for n in doubtful if not _fits(n, own())]
    if not doubtful:
        return []
    computations = [own(), *(others() if callable(others) else others)]
    found = []
    for number in doubtful:
        here = [c for c in computations if c.covers(number.line)]
        if any(_fits(number, c) for c in here):
            continue      # right for a quantity the spec's claims do not cover
        near = _nearest(number, here, _slip_of)
        if near and _close(number, near[0]):
            found.append(Suspicious(number.line, number.column, number.printed, near))
    return found


def _slip_of(candidate: Candidate, number: Number) -> bool:
    """A quantity a number not placed may be a slip of: not a row sum of the weights (1,
    which every printed sum of rounded weights is near), nor a value the number's places
    write exactly (0, 1, 0.5 are printed as such, not as 1.0000002)."""
    if candidate.target.part == "sum":
        return False
    scaled = candidate.value * 10.0 ** _places(number)
    return abs(scaled - round(scaled)) > 1e-9


def _close(number: Number, near: Near) -> bool:
    """Within ``NEAR_UNITS`` units in the number's last printed place and ``NEAR_SHARE``."""
    unit = 10.0 ** -_places(number)
    distance = abs(near.value - number.approximately)
    return distance <= NEAR_UNITS * unit * (1 + 1e-9) and \
        distance <= NEAR_SHARE * abs(near.value)


def _nearest_of(number: Number, placement: Placement, own: Computation, position: str
                ) -> tuple[Near, ...]:
    """The quantities nearest a placed number (the placement's own list when it has one
    and is of this number: a group's list is of its worst number); of two as near, the
    one it is placed on first."""
    if not placement.nearest or len(placement.numbers) > 1:
        return _nearest(number, [own], first=position)
    value = number.approximately
    listed = sorted((Near(key, near) for key, near in placement.nearest),
                    key=lambda n: (abs(n.value - value), n.position != position))
    return _first_and_close(number, listed)


def _nearest(number: Number, computations: Sequence[Computation],
             allowed: Callable[[Candidate, Number], bool] = lambda c, n: True,
             first: str = "") -> tuple[Near, ...]:
    """The quantities nearest in value to a printed number (written-out terms left out:
    they repeat other entries; and those not ``allowed``), nearest first (of two as near,
    the one whose claim key is ``first``)."""
    value = number.approximately
    if not math.isfinite(value):
        return ()
    pool = ((abs(c.value - value), n, c) for n, computation in enumerate(computations)
            for c in computation.candidates.all
            if c.target.part != "term" and math.isfinite(c.value) and allowed(c, number))
    nearest = [(distance, Near(computations[n].candidates.label(c.target), c.value,
                               computations[n].title, c.target))
               for distance, n, c in heapq.nsmallest(4 * _NEAREST, pool,
                                                     key=lambda t: (t[0], t[1]))]
    nearest.sort(key=lambda t: (t[0], t[1].position != first))
    found: list[Near] = []
    for _, near in nearest:
        if near not in found:
            found.append(near)
    return _first_and_close(number, found)


def _first_and_close(number: Number, nearest: Sequence[Near]) -> tuple[Near, ...]:
    """The nearest quantity always; the next ones only when they too are close."""
    return tuple([*nearest[:1], *(n for n in nearest[1:_NEAREST] if _close(number, n))])
