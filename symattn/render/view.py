"""Turn a derivation into strings, once, for every renderer.

A ``StepView`` holds only text: the step's name, symbol, formula, shape, and
for the rows and columns on show the exact form and the decimal. Renderers
(text, JSON, LaTeX, Markdown) lay these strings out; none of them computes or
rounds. Large matrices are elided: only the first and last rows and columns
are formatted at all, so a 1024 x 1024 step costs a few dozen entries.
"""

from __future__ import annotations

__all__ = ["StepView", "DerivationView", "build_view", "iter_step_views", "shown_indices",
           "MAX_TERMS"]

from dataclasses import dataclass
from typing import Callable, Iterator

from symattn import defaults, progress
from symattn.derivation.steps import Derivation, Step
from symattn.errors import Location
from symattn.values.number_format import NumberFormat
from symattn.values.decimals import UndecidedError

# A step's strings on show, row by row (None: no text, e.g. a closed form left out).
Cells = tuple[tuple[str | None, ...], ...]


# Closed forms with more exponentials than this are left out of views by default.
MAX_TERMS = defaults.MAX_TERMS


def shown_indices(count: int, limit: int | None) -> tuple[int, ...]:
    """Indices on show: all of them, or the first and last when there are too many.

    >>> shown_indices(10, 4)
    (0, 1, 8, 9)
    """
    if limit is None or count <= limit:
        return tuple(range(count))
    head = (limit + 1) // 2
    tail = limit - head
    return tuple(range(head)) + tuple(range(count - tail, count))


@dataclass(frozen=True)
class StepView:
    name: str
    symbol: str
    formula: str
    operands: tuple[str, ...]
    description: str
    shape: tuple[int, int]
    rows: tuple[int, ...]
    columns: tuple[int, ...]
    exact: Cells        # None: a closed form too long to write
    decimal: Cells
    max_terms: int | None = None
    variant: str = ""          # "raw": scores the spec says are used unscaled

    @property
    def omitted(self) -> int:
        """How many closed forms on show were too long to write (``max_terms``)."""
        return sum(text is None for row in self.exact for text in row)

    @property
    def elided(self) -> bool:
        return len(self.rows) < self.shape[0] or len(self.columns) < self.shape[1]


@dataclass(frozen=True)
class DerivationView:
    title: str
    description: str
    number_format: NumberFormat
    steps: tuple[StepView, ...]
    next_tokens: tuple[str, ...] = ()   # the most likely next token(s), when the spec reads out
    tokens: tuple[str, ...] = ()        # the spec's token names
    # the spec's title or description in a page language (Problem.prose_in); JSON keeps
    # the spec's own texts, a page shows only what is in its language
    prose_in: Callable[[str, str], str] | None = None
    written_language: str = ""          # the spec's language when it has no catalog ("pt")

    def shown(self, key: str, language: str) -> str:
        """The ``title`` or ``description`` a page in ``language`` shows."""
        return self.prose_in(key, language) if self.prose_in else str(getattr(self, key))


def step_view(step: Step, number_format: NumberFormat, limit: int | None,
              max_terms: int | None = MAX_TERMS) -> StepView:
    """The strings of one step: closed forms (up to ``max_terms``) and decimals on show."""
    grid = step.value
    rows = shown_indices(grid.shape[0], limit)
    columns = shown_indices(grid.shape[1], limit)
    # closed forms can be long (a softmax row has one term per key): a few rows at a time
    exact: list[tuple[str | None, ...]] = []
    for start in range(0, len(rows), 64):
        chunk = rows[start:start + 64]
        exact += grid.texts(chunk, columns, max_terms)
        progress.advance(len(chunk))
    try:
        decimal = number_format.format_block(grid, rows, columns)
    except UndecidedError as error:   # a number too large to write out: say which step
        raise type(error)(f"step {step.name}: {error.message}", error.location) from None
    progress.advance(len(rows))       # the decimals: the other half of the bar's total
    return StepView(step.name, step.symbol, step.formula, step.operands, step.description,
                    grid.shape, rows, columns, tuple(exact), decimal, max_terms, step.variant)


def build_view(derivation: Derivation, number_format: NumberFormat | None = None,
               limit: int | None = defaults.ROWS_SHOWN, steps: tuple[str, ...] | None = None,
               max_terms: int | None = MAX_TERMS) -> DerivationView:
    """Strings for every step (or the named ones), at ``number_format``.

    Closed forms of more than ``max_terms`` exponentials (None: no limit) are
    not written: at 1,024 keys every softmax weight would be a 30,000-character
    expression, and a million of them gigabytes.
    """
    number_format = number_format or NumberFormat()
    views = tuple(iter_step_views(derivation, number_format, limit, steps, max_terms))
    problem = derivation.problem
    return DerivationView(problem.title, problem.description, number_format, views,
                          _next_tokens(derivation), problem.tokens, problem.prose_in,
                          problem.written_language)


def iter_step_views(derivation: Derivation, number_format: NumberFormat,
                    limit: int | None = defaults.ROWS_SHOWN, steps: tuple[str, ...] | None = None,
                    max_terms: int | None = MAX_TERMS) -> Iterator[StepView]:
    """``build_view``'s steps one at a time, each made only when asked for: a
    writer that releases each step before the next (JSON) holds one at a time."""
    chosen = [s for s in derivation.steps if steps is None or s.name in steps]
    # One bar for the whole view: a row's closed forms, then its decimals.
    rows = sum(len(shown_indices(step.value.shape[0], limit)) for step in chosen)
    try:
        with progress.task(2 * rows, "writing"):
            for step in chosen:
                yield step_view(step, number_format, limit, max_terms)
    except UndecidedError as error:
        if error.location is not None:
            raise
        raise type(error)(error.message, Location(file=derivation.problem.source)) from None


def _next_tokens(derivation: Derivation) -> tuple[str, ...]:
    if "probs" not in derivation:
        return ()
    from symattn.derivation import layer

    return tuple(layer.most_likely_tokens(derivation))
