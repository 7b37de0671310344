"""The worked examples of a document: where each is, its inputs and its options.

A document may work several examples, each with its own inputs, usually under
headings of their own (``symattn.extract.sections``). Section by section, the
inputs the section names are proposed (``symattn.extract.inputs``) under every
setting its text supports, and each candidate is scored by how many of the
section's printed numbers its steps confirm (the caller's ``Scorer``: the
placement engine itself, so no second matcher decides). A section whose
numbers the current example explains about as well as its own inputs would
continues that example; otherwise it starts a new one. When an example's
lines are known, its setting is chosen again over all of them.

>>> from symattn.extract.document import from_text
>>> from symattn.extract.scanner import scan
>>> doc = from_text("# A\\nQ = [[1, 0], [0, 1]]\\nK = [[1, 0], [0, 1]]\\nV = [[1, 0], [0, 1]]\\n"
...                 "# B\\nscores = [[2, 0]]\\n")
>>> def scorer(proposal, lines): return 1.0
>>> [(e.title, e.lines, sorted(e.proposal.inputs)) for e in find_examples(doc, scan(doc), scorer)]
[('A', (1, 4), ['K', 'Q', 'V']), ('B', (5, 6), ['scores'])]
"""

from __future__ import annotations

__all__ = ["other_settings", "Example", "Scorer", "find_examples", "within", "CONTINUES"]

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Iterator

from symattn.extract.document import Document
from symattn.extract.inputs import (Hints, Proposal, hints, option_sets, projected, propose,
                                    unnamed, with_mask)
from symattn.extract.scanner import Scanned
from symattn.extract.sections import Section, sections

# How well a proposal's steps fit the printed numbers of some lines (None: it cannot be
# derived); higher is better.
Scorer = Callable[[Proposal, tuple[int, int]], "float | None"]
CONTINUES = 0.7     # a section continues an example that explains this share of its score
UNNAMED_CONFIRMED = 2.0   # an example from an unnamed matrix or row: numbers it must confirm
MAX_PARTS = 300     # sections weighed one by one; a longer document's are taken a few at once


@dataclass
class Example:
    """One worked example: its title, its lines, the inputs and options chosen."""

    title: str
    lines: tuple[int, int]
    proposal: Proposal
    score: float
    named: bool          # its inputs are named in the document (not a first matrix or row)
    fresh: bool = False  # named in the section it was found in (not carried from before)
    found_in: tuple[int, int] = (0, 0)   # the lines of the section it was found in


def within(scanned: Scanned, lines: tuple[int, int]) -> Scanned:
    """The numbers and groups printed within some lines."""
    first, last = lines
    return Scanned([g for g in scanned.groups if first <= g.line <= last],
                   [n for n in scanned.singles if first <= n.line <= last], scanned.skipped)


def _normalized_lines(document: Document) -> list[tuple[int, str]]:
    """Each line of the normalized text with the document line it starts on."""
    found, offset = [], 0
    for text in document.text.split("\n"):
        found.append((document.where(offset)[0], text))
        offset += len(text) + 1
    return found


def _hints(printed: Hints, span: tuple[int, int]) -> Hints:
    """The settings printed within the span, else anywhere before its end."""
    inside = Hints([h for h in printed.d_k if span[0] <= h.line <= span[1]],
                   [h for h in printed.temperature if span[0] <= h.line <= span[1]])
    if inside.d_k or inside.temperature:
        return inside
    return Hints([h for h in printed.d_k if h.line <= span[1]],
                 [h for h in printed.temperature if h.line <= span[1]])


def _candidates(scanned: Scanned, printed: Hints, span: tuple[int, int],
                earlier: list[Example], guess: bool) -> Iterator[tuple[Proposal, bool, bool]]:
    """The section's own named inputs and the inputs of the examples before it, the
    latest first (under the section's settings); the section's first matrix and row
    when it names nothing. Each with whether it is named, and named in this section."""
    numbers = within(scanned, span)
    named = propose(numbers)
    before: list[tuple[Proposal, bool, bool]] = []
    for example in reversed(earlier):
        if all(example.proposal.inputs != p.inputs for p, _, _ in before):
            before.append((_bare(example.proposal), example.named, False))
    other = projected(numbers)    # inputs named otherwise than X: weighed as well
    bases = ([(named, True, True)] if named.found else []) + \
        ([(other, True, True)] if other.found and other.inputs != named.inputs else []) + before + \
        ([] if named.found or not guess else [(p, False, False) for p in unnamed(numbers)])
    found = _hints(printed, span)
    for base, is_named, fresh in bases:
        for proposal in option_sets(base, found):
            yield proposal, is_named, fresh


def _best(scanned: Scanned, printed: Hints, span: tuple[int, int],
          scorer: Scorer, title: str, earlier: list[Example], guess: bool) -> Example | None:
    best: Example | None = None
    for proposal, named, fresh in _candidates(scanned, printed, span, earlier, guess):
        score = scorer(proposal, span)
        if score is not None and (best is None or score > best.score):
            best = Example(title, span, proposal, score, named, fresh, span)
    if best is None or not best.named and best.score < UNNAMED_CONFIRMED:
        return None     # a first matrix or row that explains nothing is no example
    return best


_OPTION_NOTES = frozenset({"shape_scale", "d_k", "no_scale", "temperature"})


def _bare(proposal: Proposal) -> Proposal:
    """A proposal's inputs without the settings chosen for them (kept: positions, mask)."""
    return Proposal(proposal.inputs, {k: v for k, v in proposal.options.items()
                                      if k in ("query_positions", "mask")},
                    [n for n in proposal.notes if n[0] not in _OPTION_NOTES], proposal.used)


def _again(example: Example, scanned: Scanned, printed: Hints,
           scorer: Scorer) -> Example:
    """The example's setting chosen again over all its lines; for inputs that were not
    named, the other unnamed readings of its first section are weighed again too."""
    everything = within(scanned, example.lines)   # a -∞ anywhere in it: a causal mask
    bases = [with_mask(everything, _bare(example.proposal))]
    if not example.named:
        bases += [with_mask(everything, p) for p in unnamed(within(scanned, example.found_in))]
    best = example
    best.score = -1.0       # the setting chosen over all the lines, whatever it was before
    found = _hints(printed, example.lines)
    for proposal in (p for base in bases for p in option_sets(base, found)):
        score = scorer(proposal, example.lines)
        if score is not None and score > best.score:
            best = Example(example.title, example.lines, proposal, score, example.named,
                           example.fresh, example.found_in)
    return best


def _continues(current: Example, own: Example | None, explained: float) -> bool:
    """Whether a section whose best reading is ``own`` continues the current example,
    which explains ``explained`` of it."""
    if own is None or own.proposal.inputs == current.proposal.inputs and \
            own.proposal.options == current.proposal.options:
        return True
    # inputs named anew start an example unless the current one explains more
    fresh = own.fresh and own.proposal.inputs != current.proposal.inputs
    needed = own.score if fresh else CONTINUES * own.score
    return explained > needed or explained == needed and not own.fresh


def _assembled(document: Document, scanned: Scanned, scorer: Scorer,
               parts: list[Section], printed: Hints, guess: bool
               ) -> list[Example]:
    examples: list[Example] = []
    for section in parts:
        current = examples[-1] if examples else None
        own = _best(scanned, printed, section.lines, scorer, section.title, examples, guess)
        if current is not None:
            explained = scorer(current.proposal, section.lines) or 0.0
            if not _continues(current, own, explained):
                # before leaving it, the current example's reading over all its lines
                current = examples[-1] = _again(current, scanned, printed, scorer)
                own = _best(scanned, printed, section.lines, scorer, section.title, examples,
                            guess)
                explained = scorer(current.proposal, section.lines) or 0.0
            if _continues(current, own, explained):
                current.lines = (current.lines[0], section.end)
                current.score += explained
                continue
            assert own is not None
            if current.score <= 0 and own.proposal.inputs == current.proposal.inputs:
                # nothing confirmed the setting so far: the one these lines confirm
                current.proposal, current.score = own.proposal, own.score
                current.lines = (current.lines[0], section.end)
                continue
        if own is not None:
            examples.append(own)
    return examples


def _split_at_settings(parts: list[Section], printed: Hints) -> list[Section]:
    """Sections split where a line prints a setting (``If d_k = 4``, ``√64 = 8``,
    ``T = 2``): the same inputs under another setting may start an example there."""
    starts = sorted({h.line for h in printed.d_k + printed.temperature})
    result = []
    for part in parts:
        # a setting printed right under the heading is the section's own: no cut there
        inner = [n for n in starts if part.start + 1 < n <= part.end]
        for first, end in zip([part.start, *inner], [*(n - 1 for n in inner), part.end]):
            result.append(Section(part.title, first, end, part.level))
    return result


def _bounded(parts: list[Section]) -> list[Section]:
    """At most MAX_PARTS sections (neighbours merged): a bound on time for huge files."""
    if len(parts) <= MAX_PARTS:
        return parts
    size = -(-len(parts) // MAX_PARTS)
    return [Section(chunk[0].title, chunk[0].start, chunk[-1].end, chunk[0].level)
            for chunk in (parts[k:k + size] for k in range(0, len(parts), size))]


def other_settings(document: Document, temperature: Fraction, d_k: int | None = None
                   ) -> list[tuple[int, int]]:
    """The lines of the sections that print only settings other than a spec's: only
    temperatures other than ``temperature``, or only d_k other than ``d_k`` (0: the spec
    does not scale, and the section divides by a root), in a document that prints the
    spec's own setting in some section. They work the same inputs under another setting,
    which the spec is not about.

    >>> from symattn.extract.document import from_text
    >>> doc = from_text("# A\\nd_k = 4, so √4 = 2\\n[0.9, 0.1]\\n"
    ...                 "# B\\nd_k = 64: √64 = 8\\n[0.6, 0.4]\\n")
    >>> other_settings(doc, Fraction(1), 4), other_settings(doc, Fraction(1), 0)
    ([(4, 6)], [(1, 3), (4, 6)])
    """
    lines = _normalized_lines(document)
    printed = hints(lines)
    parts = _bounded(_split_at_settings(sections(document.raw), printed))
    found = _stating_other(parts, [(h.line, Fraction(h.value)) for h in printed.temperature],
                           temperature)
    unscaled = [(line, 0) for line, text in lines if _UNSCALED.search(text)]
    if d_k:
        found += _stating_other(parts, [(h.line, h.value) for h in printed.d_k] + unscaled,
                                d_k)
    elif d_k == 0:       # a root or a division says the scores are scaled there
        roots = [(h.line, h.value) for h in printed.d_k if not h.text.startswith("d")]
        found += [lines for lines in _stating_other(parts, roots, 0, require_own=False)
                  if lines not in found]
    return found


# a section about the scores before any scaling ("What happens without scaling?")
_UNSCALED = re.compile(r"\b(?:without|no|before)\s+scaling\b|\bunscaled\b|\bnot\s+scaled\b",
                       re.IGNORECASE)


def _stating_other(parts: list[Section], stated: list[tuple[int, object]], own: object,
                   require_own: bool = True) -> list[tuple[int, int]]:
    """The lines of the parts whose stated values are all other than ``own``, when some
    part states ``own`` (or whatever the others state, ``require_own`` False)."""
    values = [{value for line, value in stated if p.start <= line <= p.end} for p in parts]
    if require_own and not any(own in v for v in values):
        return []
    return [p.lines for p, v in zip(parts, values) if v and own not in v]


def find_examples(document: Document, scanned: Scanned, scorer: Scorer) -> list[Example]:
    """The document's worked examples in order (none when nothing gives inputs)."""
    printed = hints(_normalized_lines(document))     # every setting the text prints
    parts = _bounded(_split_at_settings(sections(document.raw), printed))
    # unnamed readings only in a document that names no inputs anywhere
    guess = not propose(scanned).found
    examples = _assembled(document, scanned, scorer, parts, printed, guess)
    if not examples and len(parts) > 1:    # the inputs spread over several sections
        whole = Section(parts[0].title, 1, parts[-1].end, 0)
        examples = _assembled(document, scanned, scorer, [whole], printed, guess)
    return [_again(example, scanned, printed, scorer) for example in examples]
