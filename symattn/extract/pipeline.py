"""``extract``: from a document to draft specs - documents -> numbers -> placed claims.

With a spec (``--spec``), its inputs and options are the computation and one
draft is made: the spec's own text with a new ``[claims]`` table. Without
one, the document's worked examples are found (``symattn.extract.examples``:
section by section, the inputs each names under the setting its printed
numbers confirm), each a draft placed over its own lines, and every row of
scores the document puts through softmax on the side (``[10, 2, 1] → softmax →
[...]``) is a draft of its own, placed over the lines that follow it.

>>> from symattn.extract.document import from_text
>>> text = "q₁ = [1.0, 0.0]\\nk₁ = [1.0, 0.0]\\nv₁ = [0.5, 0.5]\\nq₁ · k₁ = 1.0\\n"
>>> extraction = extract(from_text(text + "1.0 / 1.414 = 0.707\\nout₁ = [0.5, 0.5]"))
>>> [(p.key, p.layout, p.confidence) for p in extraction.drafts[0].placements][-2:]
[('scaled[1,1]', '0.707', 'certain'), ('output[1]', ['0.5', '0.5'], 'certain')]
"""

from __future__ import annotations

__all__ = ["Draft", "Extraction", "extract", "SIDE_LINES"]

import bisect
import dataclasses
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Mapping

from symattn import messages
from symattn.derivation import pipeline as derivation_pipeline
from symattn.derivation.names import split_name
from symattn.errors import SymattnError
from symattn.extract.candidates import Candidates
from symattn.extract.document import Document
from symattn.extract.draft import claims_table, comment, label_claims, toml_key, toml_value
from symattn.extract.examples import Example, find_examples, other_settings
from symattn.extract.inputs import Note, Proposal, from_scores
from symattn.extract.lines import place_line, vector_sums
from symattn.extract.place import Placement, Placer
from symattn.extract.restated import repeated_rows, restated
from symattn.extract.weighted_sums import one_row_of_weights
from symattn.extract.scanner import Group, Number, Scanned, scan
from symattn.extract.structure import continued, table_columns
from symattn.problem import spec as spec_reader
from symattn.problem.problem import Problem
from symattn.verify.claims import read_claims

SIDE_LINES = 20            # a side calculation is placed over its line and the 20 after it
_SOFTMAX_AFTER = re.compile(r"^[^\n\[]{0,40}softmax[^\n\[]{0,40}$", re.IGNORECASE)
# ... or a test case's input, a quoted key: Input: {"scores": [0, 10, 0]}, then Expected: [...]
_SIDE_INTRO = re.compile(r"(?:softmax\s*\(\s*$|\b(?:для|for|pro|dla|для)\s+\w+\s*$|"
                         r"[\"'](?:scores|logits)[\"']\s*:\s*$)", re.IGNORECASE)


@dataclass
class Draft:
    """One computation of the document: its spec text (without claims) and placements."""

    head: str                          # the spec text before [claims]
    placements: list[Placement]
    unplaced: list[Number]
    reasons: list[str]
    language: str
    lines: tuple[int, int] | None = None   # the document lines it was placed over
    title: str = ""                        # the example's section, or the side row
    notes: tuple[Note, ...] = ()           # what was inferred, and from which lines

    def text(self, document: Document) -> str:
        """The whole draft spec as TOML."""
        word = messages.load(self.language or "en").fill("extract.line", line="{line}")
        claimed = label_claims(self.placements, word)
        lines = {n: document.original_line(n) for n in
                 {n.line for p in self.placements for n in p.numbers} |
                 {n.line for n in self.unplaced}}
        cells = {n: f" ({document.part} {where[0]}, line {where[1]})" for n in lines
                 if (where := document.cell_of(n)) is not None}
        return self.head.rstrip("\n") + "\n\n" + claims_table(claimed, self.unplaced, lines,
                                                              cells)

    def claim_keys(self) -> list[str]:
        word = messages.load(self.language or "en").fill("extract.line", line="{line}")
        return [c.key for c in label_claims(self.placements, word)]


@dataclass
class Extraction:
    """Every draft made from one document (the main computation first)."""

    document: Document
    drafts: list[Draft] = field(default_factory=list)
    skipped: int = 0                   # numbers past the reading limit


def guess_language(text: str) -> str:
    """The document's language from its letters (en when nothing says otherwise)."""
    sample = text[:200_000]
    if re.search("[ієїґ]", sample, re.IGNORECASE):
        return "uk"
    if re.search("[а-яё]", sample, re.IGNORECASE):
        return "ru"
    if re.search("[ěřůčšž]", sample, re.IGNORECASE):
        return "cs"
    if re.search("[ąęłńśźż]", sample, re.IGNORECASE):
        return "pl"
    return "en"


def _title(document: Document) -> str:
    if document.title:
        return document.title[:80]
    for line in document.raw.splitlines():
        if line.strip("#*= \t"):
            return line.strip("#*= \t")[:80]
    return document.name


def _head(title: str, language: str, proposal: Proposal) -> str:
    out = [comment(f"# Draft spec from {title!r}: written by symattn extract; read it "
                   "before use."),
           *(comment(f"# {reason}") for reason in proposal.reasons),
           f"title = {toml_value(title)}", f"language = {toml_value(language)}", "", "[inputs]"]
    out += [f"{toml_key(k)} = {toml_value(v)}" for k, v in proposal.inputs.items()]
    if proposal.options:
        out += ["", "[options]"]
        out += [f"{toml_key(k)} = {toml_value(v)}" for k, v in proposal.options.items()]
    return "\n".join(out) + "\n"


_CLAIMS_TABLE = re.compile(r"^\s*\[claims\]\s*(?:#.*)?$", re.MULTILINE)
_NEXT_TABLE = re.compile(r"^\s*\[\[?[A-Za-z_]", re.MULTILINE)


def spec_head(spec_text: str) -> str:
    """A TOML spec's text without its ``[claims]`` table."""
    match = _CLAIMS_TABLE.search(spec_text)
    if not match:
        return spec_text
    after = _NEXT_TABLE.search(spec_text, match.end())
    return spec_text[:match.start()] + (spec_text[after.start():] if after else "")


def _place(document: Document, scanned: Scanned, placer: Placer,
           lines: tuple[int, int] | None, others: list[tuple[int, int]]
           ) -> tuple[list[Placement], list[Number]]:
    """Place every group and single number (within ``lines``), line by line; within
    ``others`` (examples under other settings) only what the values settle for certain."""
    newlines = [m.start() for m in re.finditer("\n", document.text)]
    by_line: dict[int, tuple[list[Group], list[Number]]] = {}

    def line_of(start: int) -> int:
        return bisect.bisect_left(newlines, start)

    for group in table_columns(document.text, scanned.groups):
        if lines is None or lines[0] <= group.line <= lines[1]:
            by_line.setdefault(line_of(group.start), ([], []))[0].append(group)
    for number in scanned.singles:
        if lines is None or lines[0] <= number.line <= lines[1]:
            by_line.setdefault(line_of(number.start), ([], []))[1].append(number)
    placements: list[Placement] = []
    unplaced: list[Number] = []
    elsewhere = False      # in another example: after its own inputs, before ours again
    restricted: set[int] = set()    # the lines of other examples and other settings
    in_order: list[Group] = []
    for index in sorted(by_line):
        groups, singles = by_line[index]
        groups = [continued(document.text, g) for g in groups]
        in_order.extend(groups)
        fits = {placer.input_fit(g) for g in groups} - {None}
        # an input printed with other values starts another example, even beside an input
        # that both share ("Case 2: Q = [[1, 0]], K = [[1, 0], [0, 1]], V = [[10, 20], ...]")
        elsewhere = elsewhere and True not in fits or False in fits
        start = newlines[index - 1] + 1 if index else 0
        end = newlines[index] if index < len(newlines) else len(document.text)
        found = _place_line(document.text, placer, groups, singles, (start, end))
        line = (groups or singles)[0].line      # in the document (an HTML page's own lines)
        if elsewhere or any(first <= line <= last for first, last in others):
            # only what its values settle beyond doubt belongs to this computation
            found = [p for p in found if p.confidence == "certain"]
            restricted.add(index)
        placements.extend(found)
        unplaced.extend(_unplaced_of(groups, singles, found))
    placements = _spread_products(document.text, placer, in_order, placements)
    placements = vector_sums(document.text, placer, in_order, placements)
    placements = one_row_of_weights(document.text, placer, placements)
    # what another example prints again is its own: nothing restated is placed there
    ours = [g for g in in_order if line_of(g.start) not in restricted]
    taken = {n.start for p in placements for n in p.numbers}
    placements += repeated_rows(placer, ours, placements, taken)
    taken = {n.start for p in placements for n in p.numbers}
    again = restated(document.text, placer, placements,
                     [n for n in unplaced if n.start not in taken and
                      line_of(n.start) not in restricted])
    mine = {n.start for p in again for n in p.numbers}
    placements = [p for p in placements if not {n.start for n in p.numbers} & mine] + again
    taken = {n.start for p in placements for n in p.numbers}
    unplaced = [n for n in unplaced if n.start not in taken]
    placements.sort(key=lambda p: p.numbers[0].start)
    return placements, sorted(unplaced, key=lambda n: n.start)


_PRODUCT_SIGNS = re.compile(r"[\s·×*]*")
_EQUALS = re.compile(r"\s*=\s*")


def _written_as_product(text: str, a: Group, b: Group, c: Group) -> bool:
    """``A B = C``: nothing but product signs between A and B, and ``=`` before C."""
    return bool(_PRODUCT_SIGNS.fullmatch(text, a.end, b.start)) and \
        bool(_EQUALS.fullmatch(text, b.end, c.start))


def _spread_products(text: str, placer: Placer, groups: list[Group],
                     placements: list[Placement]) -> list[Placement]:
    """``A B = C`` written over several lines (``QK^T`` then ``= [Q]``, ``[K^T]``, ``= [S]``
    one under the other): once C is placed, A and B are its factors (B may be transposed);
    with A and B placed, C is their product."""
    first = {p.numbers[0].start: p for p in placements}
    for a, b, c in zip(groups, groups[1:], groups[2:]):
        if "\n" not in text[a.start:c.start] or not _written_as_product(text, a, b, c):
            continue
        product = first.get(c.numbers[0].start)
        if product is None:       # the factors may say what C is
            found = _as_product(placer, c, [first.get(g.numbers[0].start) for g in (a, b)])
            placements += found
            first.update((p.numbers[0].start, p) for p in found)
            continue
        factors = _FACTORS.get(split_name(product.targets[0].step)[1])
        if factors is None:
            continue
        for group, factor in zip((a, b), factors):
            found = placer.place_group(group, only=factor, transposed=factor == "K")
            if found:
                mine = {n.start for n in group.numbers}
                placements = [p for p in placements
                              if not {n.start for n in p.numbers} & mine] + found
    return placements


def _place_line(text: str, placer: Placer, groups: list[Group], singles: list[Number],
                span: tuple[int, int]) -> list[Placement]:
    """The placements of one line's groups and single numbers."""
    placed_groups = []
    singles = list(singles)
    for group in groups:
        if group.shape == (1, 1):
            singles.append(group.numbers[0])
            continue
        times = re.search(r"\d\s*[×·*]\s*$", text[max(0, group.start - 6):group.start])
        # a weight times a printed vector: the vector is a row of V
        placed_groups.append((group, times and placer.place_group(group, only="V") or
                              placer.place_group(group)))
    placed_groups = _products(text, placer, placed_groups)
    found = [p for _, placements in placed_groups for p in placements]
    singles.sort(key=lambda n: n.start)
    found_singles, _ = place_line(placer, text[span[0]:span[1]], span[0], singles,
                                  placed_groups, _alone(text, span, singles))
    return found + found_singles


_BLANK_AROUND = re.compile(r"(?:^|\n[ \t]*\n)$")


def _alone(text: str, span: tuple[int, int], singles: list[Number]) -> bool:
    """The line is one number and nothing else, a paragraph of its own (a blank line or
    the text's edge before and after it): how notebooks and consoles print a result."""
    if len(singles) != 1 or text[span[0]:span[1]].strip() != singles[0].text.strip():
        return False
    after = text[span[1]:span[1] + 200]
    return bool(_BLANK_AROUND.search(text, max(0, span[0] - 200), span[0])) and \
        (not after.strip() or bool(re.match(r"\n[ \t]*\n", after)))


def _unplaced_of(groups: list[Group], singles: list[Number], found: list[Placement]
                 ) -> list[Number]:
    """The numbers of a line that no placement took."""
    taken = {n.start for p in found for n in p.numbers}
    numbers = [n for g in groups for n in g.numbers] + list(singles)
    return [n for n in numbers if n.start not in taken]


_FACTORS = {"scores": ("Q", "K"), "output": ("weights", "V"), "Q": ("X", "W_Q"),
            "K": ("X", "W_K"), "V": ("X", "W_V")}


_PRODUCTS = {factors: product for product, factors in _FACTORS.items()}


def _as_product(placer: Placer, group: Group, factors: list[Placement | None]
                ) -> list[Placement]:
    """C of ``A B = C`` when A and B are placed as the factors of a step (weights and V):
    placed on that step by the structure, whatever its values (a product worked from
    rounded or wrong factors), and as sure of its place as both factors are."""
    if group.names or any(f is None for f in factors):
        return []
    steps = [split_name(f.targets[0].step) for f in factors if f is not None]
    product = _PRODUCTS.get((steps[0][1], steps[1][1]))
    if product is None or steps[0][0] or steps[1][0]:     # (a head's product: not read)
        return []
    sure = all(f is not None and f.anchored for f in factors)
    return [dataclasses.replace(p, anchored=p.anchored and sure)
            for p in placer.place_group(dataclasses.replace(group, names=(product,)))]


def _products(text: str, placer: Placer, placed: list[tuple[Group, list[Placement]]]
              ) -> list[tuple[Group, list[Placement]]]:
    """``A B = C`` printed with both factors: A and B are the factors of C's step, and C
    is the product of A's and B's steps."""
    result = list(placed)
    for k in range(len(placed) - 1):
        (a, _), (b, _) = placed[k:k + 2]
        if a.shape[0] == b.shape[0] == 1 and re.fullmatch(r"\s*[·×*]\s*", text[a.end:b.start]) \
                and re.match(r"\s*=\s*\d", text[b.end:b.end + 12]):   # q_i · k_j = 10
            result[k] = (a, placer.place_group(a, only="Q") or result[k][1])
            result[k + 1] = (b, placer.place_group(b, only="K") or result[k + 1][1])
    for k in range(len(placed) - 2):
        (a, _), (b, _), (c, found) = placed[k:k + 3]
        if not _written_as_product(text, a, b, c):
            continue
        if not found:             # the factors may say what C is
            firsts = [placements[0] if placements else None
                      for placements in (result[k][1], result[k + 1][1])]
            result[k + 2] = (c, _as_product(placer, c, firsts))
            continue
        factors = _FACTORS.get(split_name(found[0].targets[0].step)[1])
        if factors:
            result[k] = (a, placer.place_group(a, only=factors[0]) or result[k][1])
            result[k + 1] = (b, placer.place_group(b, only=factors[1]) or result[k + 1][1])
    return result


def _valid(placements: list[Placement], candidates: Candidates) -> list[Placement]:
    """Only placements whose claim key the checker reads (a safety net)."""
    try:
        read_claims({f"{p.key} @ {k}": p.layout for k, p in enumerate(placements)},
                    candidates.shapes, candidates.problem.query_positions)
        return placements
    except SymattnError:
        pass
    kept = []
    for placement in placements:
        try:
            read_claims({placement.key: placement.layout}, candidates.shapes,
                        candidates.problem.query_positions)
        except SymattnError:
            continue
        kept.append(placement)
    return kept


def _settings(problem: Problem) -> tuple[Fraction, int | None]:
    """A spec's temperature (1 when it is not a rational number) and its d_k when it says
    one (0: it does not scale the scores; None: it scales some other way)."""
    try:
        temperature = Fraction(str(problem.temperature))
    except (ValueError, ZeroDivisionError):
        temperature = Fraction(1)
    if problem.scale is None:
        return temperature, problem.d_k
    return temperature, 0 if problem.scale == 1 else None


def _draft(document: Document, scanned: Scanned, head: str, language: str,
           reasons: list[str], lines: tuple[int, int] | None = None,
           source: str | None = None, spec_settings: bool = False) -> Draft:
    """``spec_settings``: the spec's setting tells which sections work the same inputs
    under another one (only what their values settle beyond doubt is placed there)."""
    problem = spec_reader.loads(head, source or document.name + " (draft)")
    candidates = Candidates(derivation_pipeline.derive(problem))
    others = other_settings(document, *_settings(problem)) if spec_settings else []
    placements, unplaced = _place(document, scanned, Placer(candidates), lines, others)
    return Draft(head, _valid(placements, candidates), unplaced, reasons, language, lines)


def _side_rows(document: Document, scanned: Scanned, used: list[Group]) -> list[Group]:
    """Rows of scores put through softmax on the side: ``[10, 2, 1] → softmax → [...]``."""
    found = []
    for group in scanned.groups:
        if group.shape[0] != 1 or group.shape[1] < 2 or group in used:
            continue
        after = document.text[group.end:document.text.find("[", group.end)]
        before = document.text[max(0, group.start - 40):group.start]
        line_before = before.split("\n")[-1]
        if _SOFTMAX_AFTER.match(after) or _SIDE_INTRO.search(line_before):
            found.append(group)
    return found


def _scorer(document: Document, scanned: Scanned, language: str
            ) -> Callable[[Proposal, tuple[int, int]], float | None]:
    """How many printed numbers within some lines a proposal's steps confirm (its own
    input numbers left out): each placed number whose quantity rounds to it counts 1,
    one that is close (carried forward) a half. Confirmation, not the placement's
    confidence, decides: without scaling the scores and the scaled scores are the same
    numbers, which makes every placement on them ambiguous but no less confirmed."""
    derived: dict[str, Candidates | None] = {}
    group_lines = [g.line for g in scanned.groups]      # in document order: sorted
    single_lines = [n.line for n in scanned.singles]

    def within(lines: tuple[int, int]) -> Scanned:
        """The numbers of some lines (a long document has many sections to try)."""
        first, last = lines
        return Scanned(scanned.groups[bisect.bisect_left(group_lines, first):
                                      bisect.bisect_right(group_lines, last)],
                       scanned.singles[bisect.bisect_left(single_lines, first):
                                       bisect.bisect_right(single_lines, last)],
                       scanned.skipped)

    def score(proposal: Proposal, lines: tuple[int, int]) -> float | None:
        head = _head("", language, proposal)
        if head not in derived:
            try:
                problem = spec_reader.loads(head, document.name + " (candidate)")
                derived[head] = Candidates(derivation_pipeline.derive(problem))
            except (SymattnError, ArithmeticError):
                derived[head] = None
        candidates = derived[head]
        if candidates is None:
            return None
        placer = Placer(candidates)
        placements, _ = _place(document, within(lines), placer, lines, [])
        inputs = {n.start for g in proposal.used for n in g.numbers}
        fits = (placer.score(n, t) for p in placements for n, t in zip(p.numbers, p.targets)
                if n.start not in inputs)
        return sum(fit for fit in fits if fit >= 0.5)

    return score


def _example_draft(document: Document, scanned: Scanned, language: str,
                   example: Example) -> Draft | None:
    head = _head(example.title or _title(document), language, example.proposal)
    try:
        draft = _draft(document, scanned, head, language, example.proposal.reasons,
                       example.lines)
    except SymattnError:   # the named matrices do not fit together
        return None
    return dataclasses.replace(draft, title=example.title, notes=tuple(example.proposal.notes))


def extract(document: Document, spec_text: str | None = None,
            spec_name: str = "<spec>") -> Extraction:
    """Draft specs for a document: one from ``spec_text`` if given, else proposed."""
    scanned = scan(document)
    extraction = Extraction(document, skipped=scanned.skipped)
    language = guess_language(document.raw)
    if spec_text is not None:
        mapping: Mapping[str, Any] = spec_reader.read_mapping(spec_text, spec_name)
        spoken = mapping.get("language") if mapping.get("language") in messages.LANGUAGES \
            else None   # a language without a catalog ("pt"): the document's guess
        head = spec_head(spec_text)
        extraction.drafts.append(_draft(document, scanned, head, spoken or language,
                                        [f"inputs from {spec_name}"], source=spec_name,
                                        spec_settings=True))
        return extraction
    examples = find_examples(document, scanned, _scorer(document, scanned, language))
    if examples:   # what comes before the first example belongs to it
        examples[0].lines = (1, examples[0].lines[1])
    sides: list[Draft] = []
    for group in _side_rows(document, scanned, [g for e in examples for g in e.proposal.used]):
        side = from_scores(group)
        title = "softmax [" + ", ".join(n.printed for n in group.numbers) + "]"
        try:
            sides.append(dataclasses.replace(
                _draft(document, scanned, _head(title, language, side), language,
                       side.reasons, (group.line, min(group.line + SIDE_LINES,
                                                      len(document.line_starts)))),
                title=title, notes=tuple(side.notes)))
        except SymattnError:   # not a computation symattn can do (say, a huge exponent)
            continue
    taken = {n.start for draft in sides for p in draft.placements for n in p.numbers
             if p.confidence != "guess"}   # what a side calculation's numbers settle
    rest = Scanned([g for g in scanned.groups if g.start not in taken and
                    not any(n.start in taken for n in g.numbers)],
                   [n for n in scanned.singles if n.start not in taken], scanned.skipped)
    for example in examples:
        draft = _example_draft(document, rest, language, example)
        if draft is not None:
            extraction.drafts.append(draft)
    extraction.drafts.extend(sides)
    return extraction
