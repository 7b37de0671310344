"""Exercises as data: what a worksheet asks, what it gives, and every answer, exactly.

An ``Exercise`` is language-free: prose is a message id of the catalogs
(``symattn/messages``), numbers are exact values with the places they are to
be printed with, user text (token names) is kept raw. ``worksheet``
turns it into LaTeX in one language; ``sheet`` turns its blanks into the
answers (JSON) and into specs whose claims ``symattn check`` judges.

Layout parts, in order: ``Text`` (a paragraph), ``Given`` (matrices shown as
given), ``Blanks`` (``label = ____`` in a line), ``Grid`` (a matrix with some
cells blank), ``Table`` (a table with blank cells) and ``Choice`` (tick one).
An exercise kind is a ``Builder``: a seeded generator and the sheet's ``Setup``
in, an ``Exercise`` out.

>>> from flint import fmpq
>>> blank = Blank("w1", "a_{1}", fmpq(1, 3), places=3, claim=(0, "weights[1,1]"))
>>> blank.expected("en"), blank.expected("pl"), blank.tolerance_text()
('0.333', '0,333', '0.0005')
>>> spec_number(fmpq(-3, 4)), spec_number(fmpq(1, 3))
('-0.75', '1/3')
"""

from __future__ import annotations

__all__ = ["Num", "Math", "Msg", "User", "Sentence", "Fragment", "Blank", "Text", "Given", "Blanks",
           "Grid", "Table", "Choice", "Part", "KeyStep", "Note", "Exercise", "Setup", "Builder",
           "spec_number", "spec_matrix", "num_rows", "token_text", "sentence_parts",
           "decimal_value",
           "is_fraction", "fraction_text", "half_ulp", "unit_of", "tolerance_for",
           "CHOICE_LETTERS"]

import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence, Union

from flint import fmpq

from symattn.values.exact import NEG_INF
from symattn.values.number_format import NumberFormat
from symattn.values.exact import terminating_places
from symattn.worksheets.numbers import Attention
from symattn.worksheets.words import Words
from symattn.worksheets.words import load as load_words

CHOICE_LETTERS = "ABCDEFGH"


# ------------------------------------------------------------------ fragments
@dataclass(frozen=True)
class Num:
    """A number shown in math: exact (``places=None``) or rounded to ``places``."""

    value: Any
    places: int | None = None


@dataclass(frozen=True)
class Math:
    """Language-free LaTeX math written by symattn (no user text)."""

    latex: str


@dataclass(frozen=True)
class Msg:
    """A catalog message, its placeholders filled with fragments."""

    id: str
    params: tuple[tuple[str, Any], ...] = ()

    @staticmethod
    def of(message_id: str, **params: Any) -> Msg:
        return Msg(message_id, tuple(sorted(params.items())))


@dataclass(frozen=True)
class User:
    """Text from a spec or a word list (escaped when rendered)."""

    text: str


@dataclass(frozen=True)
class Sentence:
    """The tokens of an example as the sentence they make, each token numbered (its row)."""

    tokens: tuple[str, ...]


Fragment = Union[Num, Math, Msg, User, Sentence, str]


def num_rows(matrix: Sequence[Sequence[Any]]) -> tuple[tuple[Num, ...], ...]:
    """A matrix of exact values as rows of numbers (a ``Given`` item)."""
    return tuple(tuple(Num(x) for x in row) for row in matrix)


def token_text(tokens: Sequence[str], i: int) -> Any:
    """``(the token "cat")`` for query ``i`` of a prompt, or nothing without tokens."""
    return Msg.of("sheet.token", token=User(tokens[i])) if tokens else ""


# --------------------------------------------------------------------- blanks
@dataclass(frozen=True)
class Blank:
    """One answer a student writes: its exact value and how the key prints it.

    ``kind`` is ``number`` (an exact value: rational, irrational or -inf),
    ``fraction`` (a rational written as a fraction in lowest terms, ``2/9``),
    ``size`` (an integer, with ``unit``: bytes in ``KiB``, ... or a count) or
    ``choice`` (``value`` is the option id; ``options`` the ids in order) or
    ``design`` (any answer that meets a pattern is right; ``value`` is a reference
    answer, a tuple of whole numbers, and the exercise's ``facts["check"]`` the
    pattern, graded by ``reasoning.check_design``).
    ``claim`` is (problem index, claim key) when ``symattn check`` can judge
    the printed answer; ``carried`` is how far an answer computed from the
    student's own correctly rounded earlier answers may be from the exact value.
    """

    id: str
    label: str                         # math, e.g. "a_{2,3}"
    value: Any
    places: int | None = None          # None: printed exactly
    claim: tuple[int, str] | None = None
    kind: str = "number"
    unit: str = ""
    options: tuple[str, ...] = ()
    carried: fmpq = fmpq(0)
    marks: str = CHOICE_LETTERS        # how options are named: A, B, ... or 1, 2, ...

    def mark(self, index: int, language: str = "en") -> str:
        """The name of option ``index``: letters of the sheet's alphabet (А, Б, В, ...
        in Russian and Ukrainian), or the blank's own marks (step numbers)."""
        if self.marks != CHOICE_LETTERS:
            return self.marks[index]
        from symattn.messages import load

        return load(language).text("sheet_lesson.letters")[index]

    def expected(self, locale: str = "en") -> str:
        """The answer as the key prints it (plain text, the locale's separator);
        an exact value that is not a short decimal prints as a fraction, ``2/9``."""
        if self.kind == "choice":
            return self.mark(self.options.index(self.value), locale)
        if self.kind == "size":
            return f"{self.value} {self.unit}".strip()
        if self.kind == "fraction":
            return fraction_text(self.value)
        if self.kind == "design":          # a reference answer: whole numbers
            return "(" + "; ".join(str(int(x)) for x in self.value) + ")"
        if self.value is NEG_INF:
            return "-inf"
        if self.places is None and is_fraction(self.value):
            return f"{int(self.value.p)}/{int(self.value.q)}"
        places = self.places if self.places is not None else exact_places(self.value)
        text = NumberFormat(digits=None, places=places, locale=locale).format(self.value)
        assert text is not None
        return text

    def tolerance(self) -> fmpq:
        """How far a right answer may be from the exact value (0: exactly)."""
        if self.kind != "number" or self.places is None or self.value is NEG_INF:
            return fmpq(0)
        return half_ulp(self.places) + self.carried

    def tolerance_text(self) -> str:
        tolerance = self.tolerance()
        places = terminating_places(tolerance)
        assert places is not None
        return NumberFormat(digits=None, places=places).format(tolerance) or "0"


def fraction_text(value: Any) -> str:
    """A rational in lowest terms as a student writes it: ``2/9``, ``-1/2``, ``3``."""
    value = value if isinstance(value, fmpq) else fmpq(int(value))
    return str(int(value.p)) if value.q == 1 else f"{int(value.p)}/{int(value.q)}"


def is_fraction(value: Any) -> bool:
    """An exact rational without a finite decimal expansion (1/3, 2/9)."""
    return isinstance(value, fmpq) and terminating_places(value) is None


def exact_places(value: Any) -> int:
    """Places of an exact terminating decimal (the key prints it in full)."""
    if not isinstance(value, fmpq):
        value = fmpq(int(value))
    places = terminating_places(value)
    if places is None:
        raise ValueError(f"{value} has no finite decimal expansion; give places")
    return places


def unit_of(places: int) -> Num:
    """The rounding unit of ``places`` decimal places, as a number: 0.001 for 3."""
    return Num(fmpq(1, 10 ** places))


def half_ulp(places: int) -> fmpq:
    return fmpq(1, 2) / fmpq(10) ** places


def decimal_value(value: Any, places: int) -> fmpq:
    """The value rounded half-up to ``places`` as a rational (what a student writes)."""
    text = NumberFormat(digits=None, places=places).format(value)
    assert text is not None
    sign = -1 if text.startswith("-") else 1
    whole, _, fraction = text.lstrip("-").partition(".")
    return sign * fmpq(int(whole + fraction), 10 ** len(fraction))


def tolerance_for(exact: Any, carried: fmpq, places: int) -> fmpq:
    """|carried - exact|, rounded up to a tenth of a unit in the last place.

    ``carried`` is the value computed from correctly rounded earlier answers.
    """
    deviation = abs(carried - decimal_value(exact, places + 6))
    step = fmpq(1, 10 ** (places + 1))
    units = -((-deviation * 10 ** (places + 1)).floor())    # ceiling
    return fmpq(int(units)) * step


# ---------------------------------------------------------------------- parts
@dataclass(frozen=True)
class Text:
    message: Msg


def sentence_parts(tokens: Sequence[str]) -> tuple[Text, ...]:
    """The paragraph that lists an exercise's tokens as its sentence (none without
    tokens): every exercise that names a token ("row 2 (token "dog")") starts with it."""
    if not tokens:
        return ()
    return (Text(Msg.of("sheet_tokens.sentence", tokens=Sentence(tuple(tokens)))),)


@dataclass(frozen=True)
class Given:
    """Matrices given on the sheet: (label math, rows of fragments), with a caption."""

    items: tuple[tuple[str, tuple[tuple[Fragment, ...], ...]], ...]
    caption: Msg | None = None


@dataclass(frozen=True)
class Blanks:
    """``label = ____`` for each blank, in one line."""

    blanks: tuple[Blank, ...]
    caption: Msg | None = None


@dataclass(frozen=True)
class Grid:
    """A matrix ``label = [...]`` whose cells are fragments or blanks."""

    label: str
    rows: tuple[tuple[Any, ...], ...]
    caption: Msg | None = None


@dataclass(frozen=True)
class Table:
    """A table: a header of fragments, rows of fragments or blanks."""

    header: tuple[Fragment, ...]
    rows: tuple[tuple[Any, ...], ...]
    caption: Msg | None = None


@dataclass(frozen=True)
class Choice:
    """Tick one option: ``blank.options`` ids, each with a label (a message or math)."""

    blank: Blank
    labels: tuple[Fragment, ...]
    caption: Msg | None = None


Part = Union[Text, Given, Blanks, Grid, Table, Choice]


@dataclass(frozen=True)
class KeyStep:
    """Steps of problem ``problem`` the answer key derives, rows written out."""

    problem: int
    steps: tuple[str, ...]
    rows: tuple[int, ...] = ()          # 1-based query rows expanded
    places: int = 3
    caption: Msg | None = None


@dataclass(frozen=True)
class Note:
    """A remark in the key only (e.g. which mistake was planted where)."""

    message: Msg


@dataclass(frozen=True)
class Exercise:
    """One exercise of a sheet; ``problems`` are spec mappings (no claims)."""

    kind: str
    parts: tuple[Part, ...]
    problems: tuple[Mapping[str, Any], ...] = ()
    key_steps: tuple[KeyStep, ...] = ()
    notes: tuple[Note, ...] = ()
    sizes: tuple[str, ...] = ()          # size quantities the key lists (sizes kind)
    facts: Mapping[str, Any] = field(default_factory=dict)   # kind-specific data for tests

    @property
    def blanks(self) -> tuple[Blank, ...]:
        out: list[Blank] = []
        for part in self.parts:
            if isinstance(part, Blanks):
                out.extend(part.blanks)
            elif isinstance(part, Choice):
                out.append(part.blank)
            elif isinstance(part, (Grid, Table)):
                out.extend(c for row in part.rows for c in row if isinstance(c, Blank))
        return tuple(out)


# ------------------------------------------------------------------- building
@dataclass(frozen=True)
class Setup:
    """What every exercise of a sheet shares."""

    places: int = 3                      # decimal places of rounded answers
    d_k: int = 4                         # key dimension of generated problems
    words: Words = field(default_factory=lambda: load_words("en"))   # token names to draw
    base: Attention | None = None        # the spec's own Q, K, V (a worksheet from a spec)
    mistakes: tuple[str, ...] = ()       # find_error: which mistakes may be planted (all)
    shape: Mapping[str, Any] | None = None   # sizes: d_model, heads, seq_len, layers, dtype
    # Lesson presets (worksheets.presets): shorter exercises, calculator-free numbers.
    compact: bool = False                # softmax over 3 scores, 3 x 3 score matrices
    numbers: str = "standard"            # or "calculator-free" (worksheets.calcfree)


# The builder of one exercise kind (``catalog.KINDS``): its seeded generator and the setup.
Builder = Callable[[random.Random, Setup], Exercise]


# ------------------------------------------------------------------ spec text
def spec_number(value: Any) -> str:
    """An exact value as spec text: a decimal when it terminates, else ``p/q``."""
    if value is NEG_INF:
        return "-inf"
    if not isinstance(value, fmpq):
        value = fmpq(int(value))
    places = terminating_places(value)
    if places is not None:
        text = NumberFormat(digits=None, places=places).format(value)
        assert text is not None
        return text
    return f"{int(value.p)}/{int(value.q)}"


def spec_matrix(rows: Sequence[Sequence[Any]]) -> list[list[str]]:
    return [[spec_number(x) for x in row] for row in rows]
