"""The one formatter for every number a reader sees.

``NumberFormat`` says how: fixed decimal places or significant digits, a named
rounding rule, and the decimal separator of a locale (a point for English, a
comma for Polish, Czech, Russian and Ukrainian). Trailing zeros are kept.

>>> from flint import fmpq
>>> NumberFormat(places=3).format(fmpq(1, 8))
'0.125'
>>> NumberFormat(digits=2, locale="cs").format(fmpq(1, 3))
'0,33'
"""

from __future__ import annotations

__all__ = ["NumberFormat", "DECIMAL_SEPARATORS"]

from dataclasses import dataclass
from typing import Protocol, Sequence

from flint import arb, fmpq

from symattn import progress
from symattn.defaults import DIGITS, ROUNDING
from symattn.errors import InputError, argument
from symattn.values.arith import NoFiniteValue
from symattn.values.decimals import (fixed_decimal, fixed_from_ball, float_decimal_from_ball,
                                     significant_decimal, significant_from_ball, to_scientific)
from symattn.values.enclosures import Enclosure
from symattn.values.exact import EXACT_ZERO, NAN, NEG_INF, Exact
from symattn.values.rounding import Rounding, format_scaled
from symattn.values.rules import parse_rounding


def _whole(value: object, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


# Positional notation is kept while it adds at most this many zeros to the digits.
SCIENTIFIC_BEYOND = 7
# Blocks at least this large are decided from the grid's numpy enclosure first
# (``enclosure_roundings``); below it, importing numpy costs more than it saves.
ENCLOSURE_MIN_ENTRIES = 4096
# Beyond about 15 significant digits a double cannot decide anything.
ENCLOSURE_MAX_DIGITS = 15
# The last large block decided from an enclosure of a grid ``shown_again`` (grid, rows,
# columns, format, texts), kept for the masked grid that follows (``_format_masked``).
_LAST: list[tuple[object, tuple[int, ...], tuple[int, ...], object,
                  tuple[tuple[str | None, ...], ...]]] = []

DECIMAL_SEPARATORS = {"en": ".", "pl": ",", "cs": ",", "ru": ",", "uk": ","}


class Block(Protocol):
    """What ``format_block`` reads: a grid's exact entries and certified balls
    (``derivation.grids.Grid``); a grid may also offer ``enclosure()``, a
    double-precision ``Enclosure`` of every entry, or None, and ``entry_cost``."""

    shape: tuple[int, int]

    def exact(self, i: int, j: int) -> Exact:
        """The exact value of entry (i, j)."""

    def balls(self, prec: int, rows: Sequence[int], columns: Sequence[int]
              ) -> Sequence[Sequence[arb | None]]:
        """Certified balls for a block of entries (None for -oo and nan)."""


def has_number(value: object) -> bool:
    """False for symbolic values with free symbols (they have no decimals)."""
    return bool(getattr(value, "is_numeric", True))


@dataclass(frozen=True)
class NumberFormat:
    """How to print numbers: ``places`` or ``digits`` (significant), rule, locale."""

    digits: int | None = DIGITS
    places: int | None = None
    rounding: Rounding = Rounding(ROUNDING)
    locale: str = "en"

    def __post_init__(self) -> None:
        if not isinstance(self.locale, str) or self.locale not in DECIMAL_SEPARATORS:
            raise argument("NumberFormat", "locale", f"unknown locale {self.locale!r}; "
                           f"known: {', '.join(DECIMAL_SEPARATORS)}")
        if self.places is None and self.digits is None:
            raise argument("NumberFormat", "digits", "give digits (significant) or places "
                           "(after the point)")
        if self.places is not None and not _whole(self.places, -100):
            raise argument("NumberFormat", "places", "places must be a whole number, -100 "
                           f"(hundreds of tens) or more, got {self.places!r}")
        if self.places is None and not _whole(self.digits, 1):
            raise argument("NumberFormat", "digits", "digits must be a whole number, 1 or "
                           f"more, got {self.digits!r}")
        rounding: object = self.rounding       # a rule's name is read too: "half-even"
        if isinstance(rounding, str) and not isinstance(rounding, Rounding):
            try:
                object.__setattr__(self, "rounding", parse_rounding(rounding))
            except InputError as error:
                raise argument("NumberFormat", "rounding", error.message) from None
        elif not isinstance(rounding, Rounding):
            raise argument("NumberFormat", "rounding", "rounding must be half-up, half-even "
                           f"or truncate, got {rounding!r}")

    @property
    def separator(self) -> str:
        return DECIMAL_SEPARATORS[self.locale]

    def format(self, value: Exact) -> str | None:
        """Decimal text of an exact value; None when it has free symbols."""
        if value is NEG_INF:
            return "-inf"
        if value is NAN:
            return "nan"
        if not has_number(value):
            return None
        try:
            if self.places is not None:
                return fixed_decimal(value, self.places, self.rounding, self.separator)
            assert self.digits is not None
            return self._notation(significant_decimal(value, self.digits, self.rounding,
                                                      self.separator))
        except NoFiniteValue:      # a sum or product with a free symbol in it
            return None

    def _notation(self, text: str) -> str:
        """Significant digits of very small or large numbers read better as 1.23e-30."""
        digits = self.digits
        if self.places is not None or digits is None or len(text) <= digits + SCIENTIFIC_BEYOND \
                or "e" in text or text in ("-inf", "nan"):
            return text
        body = text.lstrip("-")
        if len(body) > digits + SCIENTIFIC_BEYOND:   # many leading or trailing zeros
            return to_scientific(text, digits)
        return text

    def format_block(self, grid: Block, rows: Sequence[int], columns: Sequence[int]
                     ) -> tuple[tuple[str | None, ...], ...]:
        """Decimals of a block of a grid: a large block decided from the grid's numpy
        enclosure where it has one (``_format_large``), else evaluated as balls in one
        batch. Entries either cannot decide (an exact halfway case, a ball too wide)
        are settled exactly, as ``format`` settles them.
        """
        if len(rows) * len(columns) <= 16:
            return tuple(tuple(self.format(grid.exact(i, j)) for j in columns) for i in rows)
        target = self.places if self.places is not None else self.digits
        assert target is not None
        # A sum's decimal costs a row of terms by balls: the enclosure pays off sooner.
        cost = int(getattr(grid, "entry_cost", 1))
        if len(rows) * len(columns) * cost >= ENCLOSURE_MIN_ENTRIES:
            texts = self._format_large(grid, rows, columns, target)
            if texts is not None:
                return texts
        with progress.task(len(rows), "decimals"):
            return self._format_balls(grid, rows, columns, target)

    def _format_large(self, grid: Block, rows: Sequence[int], columns: Sequence[int],
                      target: int) -> tuple[tuple[str | None, ...], ...] | None:
        """A large block's decimals from the grid's enclosure (a masked grid's from its
        unmasked grid's); None when the grid has no enclosure or too many digits are
        asked for a double to decide."""
        if getattr(grid, "unmasked", None) is not None:
            return self._format_masked(grid, rows, columns)
        enclosure = getattr(grid, "enclosure", None)
        if target > ENCLOSURE_MAX_DIGITS or not callable(enclosure):
            return None
        whole = enclosure()
        if whole is None:
            return None
        texts = self._format_enclosure(grid, whole, rows, columns)
        if getattr(grid, "shown_again", False):
            _LAST[:] = [(grid, tuple(rows), tuple(columns), self, texts)]
        return texts

    def _format_masked(self, grid: Block, rows: Sequence[int], columns: Sequence[int]
                       ) -> tuple[tuple[str | None, ...], ...]:
        """A masked grid's decimals: its ``unmasked`` grid's (written just before, as a
        derivation's steps come: the scaled scores, the mask, the masked scores) with
        -inf: the exact ties of rational scores are decided once."""
        unmasked: Block = grid.unmasked    # type: ignore[attr-defined]
        key = (unmasked, tuple(rows), tuple(columns), self)
        kept = [last[4] for last in _LAST if last[:4] == key]
        texts = kept[0] if kept else self.format_block(unmasked, rows, columns)
        _LAST.clear()
        exact = grid.exact
        return tuple(tuple("-inf" if exact(i, j) is NEG_INF else text
                           for j, text in zip(columns, row)) for i, row in zip(rows, texts))

    def _format_enclosure(self, grid: Block, whole: Enclosure, rows: Sequence[int],
                          columns: Sequence[int]) -> tuple[tuple[str | None, ...], ...]:
        """The block's decimals from the grid's enclosure (``enclosure_roundings``), each
        written by ``format_scaled``, a few rows at a time (bounded temporaries); entries
        it leaves open are decided exactly."""
        step = max(1, ENCLOSURE_MIN_ENTRIES * 16 // max(len(columns), 1))
        texts: list[tuple[str | None, ...]] = []
        for first in range(0, len(rows), step):
            chunk = rows[first:first + step]
            texts += self._enclosure_rows(grid, whole.block(chunk, columns), chunk, columns)
        return tuple(texts)

    def _enclosure_rows(self, grid: Block, block: Enclosure, rows: Sequence[int],
                        columns: Sequence[int]) -> list[tuple[str | None, ...]]:
        """``_format_enclosure`` of a few rows."""
        from symattn.values.enclosure_roundings import enclosure_roundings

        rounded = enclosure_roundings(block, self.places, self.digits if self.places is None
                                      else None, self.rounding is Rounding.TRUNCATE)
        zero_text = "0" if self.places is None else format_scaled(0, self.places,
                                                                  self.separator)
        # exactly -oo (masked), written as ``format`` writes it; no such entry without a mask
        neg_inf = (block.neg_inf if block.neg_inf is not None else
                   rounded.zero & ~rounded.zero) & block.known[:, None]
        separator, notation = self.separator, self._notation
        texts = []
        for i, proved, scaled, places, zero, minus in zip(
                rows, rounded.proved, rounded.scaled, rounded.places, rounded.zero, neg_inf):
            row: list[str | None] = [None] * len(columns)
            where = proved.nonzero()[0]
            for j, digits, place in zip(where.tolist(), scaled[where].tolist(),
                                        places[where].tolist()):
                row[j] = notation(format_scaled(digits, place, separator))
            for j in zero.nonzero()[0].tolist():
                row[j] = zero_text
            for j in minus.nonzero()[0].tolist():
                row[j] = "-inf"
            texts.append(self._settled(grid, i, columns, row))
        return texts

    def _settled(self, grid: Block, i: int, columns: Sequence[int], row: list[str | None]
                 ) -> tuple[str | None, ...]:
        """Row ``i`` with the entries the enclosure left open decided: a rational (an
        exact tie, mostly) exactly at once, anything else by balls."""
        open_ = []
        for k, text in enumerate(row):
            if text is None:
                value = grid.exact(i, columns[k])
                if isinstance(value, fmpq):
                    row[k] = self.format(value)
                else:
                    open_.append(k)
        if open_:
            target = self.places if self.places is not None else self.digits
            assert target is not None
            with progress.task(1, "decimals"):     # a row of the caller's task, not one more
                decided = self._format_balls(grid, [i], [columns[k] for k in open_],
                                             target)[0]
            for k, text in zip(open_, decided):
                row[k] = text
        return tuple(row)

    def _format_balls(self, grid: Block, rows: Sequence[int], columns: Sequence[int],
                      target: int) -> tuple[tuple[str | None, ...], ...]:
        # A little over the digits asked for: the float fast path needs the ball
        # only a few digits narrower than the last place; the rest fall back.
        balls = grid.balls(max(64, int(target * 3.33) + 40), rows, columns)
        separator, rule, places = self.separator, self.rounding, self.places
        digits = self.digits if places is None else None   # fixed places win
        use_floats = rule is not Rounding.TRUNCATE
        zero_text = "0" if places is None else format_scaled(0, places, separator)
        result = []
        for i, ball_row in zip(rows, balls):
            progress.advance()
            row: list[str | None] = []
            for j, ball in zip(columns, ball_row):
                if ball is EXACT_ZERO:
                    row.append(zero_text)
                    continue
                text = None
                if use_floats:
                    text = float_decimal_from_ball(ball, places, digits, separator)
                if text is None:
                    text = fixed_from_ball(ball, places, rule, separator) if places is not None \
                        else significant_from_ball(ball, target, rule, separator)
                if text is None:
                    row.append(self.format(grid.exact(i, j)))
                else:
                    row.append(self._notation(text))
            result.append(tuple(row))
        return tuple(result)

