"""The records a worked-example template receives: strings, laid out in rows.

Built by ``symattn.render.worked.builder.build``. Every field a template prints is a string
(mathematics as LaTeX, prose already escaped for the output format); booleans
and tuples only steer ``if`` and ``for``. docs/templates.md lists every field.
"""

from __future__ import annotations

__all__ = ["LINE_WIDTH", "printed_width", "Shown", "Cell", "MatrixRows", "Matrix", "Line", "Value",
           "ClaimCell", "PrintedGroup", "ClaimRow", "StepClaims", "ScoreEntry", "ScoreRow",
           "ScaledEntry", "ScaledRow", "SoftmaxEntry", "SoftmaxRow", "OutputComponent",
           "OutputRow", "ProductEntry", "ProductRow", "Expansion", "HeatCell", "Heatmap",
           "StepModel", "Pair", "Summary", "CompareRow", "CompareModel", "Document"]

from dataclasses import dataclass, field
from typing import Mapping, Union


# A display line holds about this many characters of digits (10pt article);
# wider matrices are set in script size, wider pairs on two lines.
LINE_WIDTH = 68
# Script-size fonts are drawn wider than scaled-down text (cmr7 digits are 0.8
# of cmr10's, cmr5 0.68): a smallmatrix is about this fraction of a bmatrix.
SMALL_SCALE = 0.82


def printed_width(width: float) -> float:
    """The width a matrix of rough ``width`` takes once set (small when too wide)."""
    return width * SMALL_SCALE if width > LINE_WIDTH else width


@dataclass(frozen=True)
class Shown:
    """A number the page prints and where it stands, for the page's own check.

    ``step``, ``row`` and ``column`` (0-based) name the entry; ``part`` is
    "entry", "term" (term ``term`` of the entry's written-out sum) or "sum" (a
    row sum); ``label`` names the line or table it stands in ("" for a step's
    result), so that a number is followed from the numbers printed beside it.
    ``text`` is the number as printed, with a decimal point ("0.3557", "36%").
    """

    step: str
    row: int
    column: int
    text: str
    part: str = "entry"
    term: int = 0
    label: str = ""


@dataclass(frozen=True)
class Matrix:
    """Cells row by row (math strings, or ``ClaimCell``), elision marks included."""

    rows: MatrixRows
    shape: str                 # math, e.g. "3 \\times 3"
    exact: bool                # no entry is rounded
    elided: bool = False
    width: float = 0.0         # rough printed width in characters (latex.approx_width)
    # The rows for an array with two columns per entry, aligned on the decimal mark:
    # "0 & {,}33" (whole part right, fraction left), "\\multicolumn{2}{c}{\\cdots}"
    # for marks and entries that are not decimals; () when no entry is a number.
    aligned: tuple[tuple[str, ...], ...] = ()
    at: tuple[tuple[int, int, str], ...] = ()   # (row, column, cell) of each entry shown
    step: str = ""             # the step whose entries these are ("" for none)

    @property
    def small(self) -> bool:
        """Too wide for a line at full size: the template uses ``smallmatrix``."""
        return self.width > LINE_WIDTH

    def fits_beside(self, other: Matrix) -> bool:
        """Whether this matrix and ``other`` fit on one display line."""
        return self.printed_width + other.printed_width + 6 <= LINE_WIDTH

    @property
    def printed_width(self) -> float:
        return printed_width(self.width)


@dataclass(frozen=True)
class Line:
    relation: str              # "=" or "\\approx"
    matrix: Matrix


@dataclass(frozen=True)
class Value:
    """One number: exact form (when short), decimal, and both as an equation tail."""

    exact: str                 # math; "" when too long to show
    decimal: str               # math; "" when the value has free symbols
    chain: str                 # math: "= exact \\approx decimal", "= exact" or "\\approx decimal"
    is_exact: bool             # the chain involves no rounding
    inline: str = ""           # math: the exact form with slashes, for matrix cells


@dataclass(frozen=True)
class ClaimCell:
    printed: str               # math: the number as the document printed it
    verdict: str               # ok | propagated | wrong | undecided
    exact: str                 # math: the exact value rounded as printed ("" when ok)


# A matrix cell: math, or a printed number with its verdict; rows of them.
Cell = Union[str, ClaimCell]
MatrixRows = tuple[tuple[Cell, ...], ...]


@dataclass(frozen=True)
class PrintedGroup:
    label: str                 # text: "" for the main printing, else the label after @
    matrix: Matrix             # ClaimCell where printed, "" where not


@dataclass(frozen=True)
class ClaimRow:
    where: str                 # text, e.g. "weights[3,1] @ solutions"
    printed: str               # math
    verdict: str               # ok | propagated | wrong | undecided
    exact: str                 # math: exact value rounded as printed
    reason: str                # text
    flags: str                 # text, e.g. "approximate, near-tie"


@dataclass(frozen=True)
class StepClaims:
    groups: tuple[PrintedGroup, ...] = ()    # printings shaped like the step's matrix
    others: tuple[ClaimRow, ...] = ()        # terms, sums, divisor, entries not on show
    notes: tuple[ClaimRow, ...] = ()         # every printed number that is not ok

    @property
    def any(self) -> bool:
        return bool(self.groups or self.others)


@dataclass(frozen=True)
class ScoreEntry:
    lhs: str                   # s_{3,1}
    dot: str                   # q_{3} \cdot k_{1}
    symbolic: str              # q_{3,1} k_{1,1} + q_{3,2} k_{1,2}
    substituted: str           # 0.8 \cdot 1 + 0 \cdot 0.2
    terms: str                 # 0.8 + 0 ("" with a single term)
    relation: str              # "=" or "\\approx" before substituted and terms
    value: Value
    compact: bool = False      # short enough for one line
    shown: tuple[Shown, ...] = ()   # the numbers of the line, for the page's own check


@dataclass(frozen=True)
class ScoreRow:
    query: str                 # math row label, e.g. "3"
    token: str                 # text
    entries: tuple[ScoreEntry, ...]
    elided: bool               # some keys are not shown


@dataclass(frozen=True)
class ScaledEntry:
    lhs: str                   # \tilde{s}_{3,1}
    substituted: str           # \frac{0.8}{\sqrt{2}}
    value: Value
    masked: bool = False
    shown: tuple[Shown, ...] = ()


@dataclass(frozen=True)
class ScaledRow:
    query: str
    token: str
    entries: tuple[ScaledEntry, ...]
    elided: bool


@dataclass(frozen=True)
class SoftmaxEntry:
    key: str                   # math key label, e.g. "2"
    token: str                 # text
    score: Value               # z_{ij}
    exp: Value                 # e^{z_{ij}} (softmax) or z_{ij} (sum normalisation)
    weight: Value
    percent: str               # math, e.g. "36.3\\,\\%"
    masked: bool
    elision: bool = False      # a row standing for keys not shown


@dataclass(frozen=True)
class SoftmaxRow:
    query: str
    token: str
    entries: tuple[SoftmaxEntry, ...]
    total: Value               # the row sum of the exponentials (or of the scores)
    weight_total: str          # math: "1" (exactly), or NaN / 0 for a fully masked row
    percent_total: str         # math
    fully_masked: bool
    open_keys: str             # math, e.g. "1, 2" (the keys not masked)
    all_exact: bool = False    # every weight on show has a short exact form
    rounded_total: bool = False   # the printed weights add up to weight_total, not to 1
    shown: tuple[Shown, ...] = ()
    sum_shown: str = ""        # math: the table's sum of exponentials after its relation


@dataclass(frozen=True)
class OutputComponent:
    lhs: str                   # o_{3,1}
    symbolic: str              # a_{3,1} v_{1,1} + a_{3,2} v_{2,1} + ...
    substituted: str           # 0.3998 \cdot 1 + ...
    terms: str                 # 0.3998 + 0.0509 + ...
    relation: str              # "=" or "\\approx" before substituted and terms
    value: Value
    compact: bool = False      # short enough for one line
    shown: tuple[Shown, ...] = ()


@dataclass(frozen=True)
class OutputRow:
    query: str
    token: str
    vector: str                # math: a_{3,1} v_{1} + a_{3,2} v_{2} + ...
    components: tuple[OutputComponent, ...]
    masked_keys: str           # math: keys left out (weight exactly 0), "" if none
    fully_masked: bool


@dataclass(frozen=True)
class ProductEntry:
    """One entry of a product of matrices written out (the FFN, W_O, the logits)."""

    lhs: str                   # f_{3,1}
    symbolic: str              # o_{3,1} w_{1,1} + o_{3,2} w_{2,1} (+ b_{1})
    substituted: str           # the factors as printed: 0.48 \cdot 0.5 + ...
    terms: str                 # each product of the printed factors, rounded ("" if one term)
    relation: str              # "=" or "\approx" before the terms
    total: str                 # math: the printed terms added up
    total_relation: str        # "=" or "\approx" before the total
    compact: bool = False      # short enough for one line


@dataclass(frozen=True)
class ProductRow:
    query: str                 # math row label ("" for the single row of the logits)
    token: str                 # text
    entries: tuple[ProductEntry, ...]
    elided: bool               # some columns are not shown


# A query row written out entry by entry (rows.py, products.py), one record per kind of step.
Expansion = Union[ScoreRow, ScaledRow, SoftmaxRow, OutputRow, ProductRow]


@dataclass(frozen=True)
class Pair:
    label: str                 # text
    value: str                 # math


@dataclass(frozen=True)
class HeatCell:
    """An entry of a heatmap table, padded for alignment on the decimal mark."""

    entry: str                 # math: "0{,}33", "1\\phantom{{,}00}" (right-aligned)
    shade: str                 # "0" to "60": percent of the heat colour behind it; "" none


@dataclass(frozen=True)
class Heatmap:
    """A matrix as a table with its rows and columns labelled and each entry shaded."""

    columns: tuple[str, ...]   # text: the column labels (key tokens or k_j)
    rows: tuple[tuple[str, tuple[HeatCell, ...]], ...]   # (text label, cells) per row


@dataclass(frozen=True)
class StepModel:
    kind: str                  # template: step_<kind>.tex.j2 / step_<kind>.md.j2
    name: str                  # text: canonical step name (escaped), e.g. "W\\_Q"
    number: str                # "1", "2", ...
    heading: str               # text
    description: str           # text
    symbol: str                # math, e.g. "\\tilde{S}"
    formula: str               # math: right-hand side, e.g. "Q K^{\\top}"
    shape: str                 # math, e.g. "3 \\times 2"
    result: tuple[Line, ...]   # "= exact" and/or "\\approx decimals"
    operands: Mapping[str, Matrix]       # matrices to substitute, by name
    relation: str              # "=" or "\\approx": the substitution line
    info: Mapping[str, str]    # kind-specific strings (docs/templates.md)
    expansions: tuple[Expansion, ...]    # chosen rows written out entry by entry
    claims: StepClaims = field(default_factory=StepClaims)
    has_masked: bool = False   # some entry is -inf or comes from one
    heatmap: Heatmap | None = None       # the weights, labelled and shaded
    step: str = ""             # the canonical step name, unescaped
    shown: tuple[Shown, ...] = ()        # numbers of its text (the divisor), for the own check


@dataclass(frozen=True)
class Summary:
    total: str
    ok: str
    propagated: str
    wrong: str
    undecided: str
    rounding: str              # text: the rule the printed numbers are judged by


@dataclass(frozen=True)
class CompareRow:
    key: str                   # math key label
    token: str                 # text
    scores: tuple[str, str]    # math: the score fed to softmax on each side
    weights: tuple[str, str]   # math
    percents: tuple[str, str]  # math


@dataclass(frozen=True)
class CompareModel:
    """A comparison block laid out as the seeds lay it out: two tables side by side."""

    heading: str               # text
    intro: str                 # text (LaTeX text: may hold $...$)
    row: str                   # text: "Row 3 (venku)"
    labels: tuple[str, str]    # text: what each side is
    rows: tuple[CompareRow, ...]
    entropy: tuple[str, str]   # math, in bits
    entropy_max: str           # math
    note: str                  # text: the largest and the smallest weight, before and after


@dataclass(frozen=True)
class Document:
    title: str                 # text
    description: str           # text
    source: str                # text: the spec's file name
    tokens: str                # text: the token names, comma separated
    numbers: str               # text: how decimals are printed
    detail: str                # "full" or "summary"
    full: bool
    expanded: str              # text: which rows are expanded ("3", "1, 2, 3")
    setup: tuple[Pair, ...]    # n, m, d_k, scale, temperature, mask
    steps: tuple[StepModel, ...]
    summary: Summary | None    # None when the spec has no claims
    cyrillic: bool             # some text needs the T2A font encoding
    max_columns: str           # widest matrix, for amsmath's MaxMatrixCols
    language: str = "en"       # the language of the prose (messages.LANGUAGES)
    comparisons: tuple[CompareModel, ...] = ()   # shown after the attention weights
    method: bool = True        # the paragraph on how the steps and decimals are shown
    # the line saying the spec's language has no catalog ("pt"), so the page is in English
    no_catalog: str = ""
