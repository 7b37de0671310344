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
from typing import TYPE_CHECKING, Callable, Protocol, Sequence

from flint import arb, fmpq

from symattn import progress
from symattn.defaults import DIGITS, ROUNDING
from symattn.errors import InputError, argument
from symattn.values.arith import NoFiniteValue
from symattn.values.decimal_arrays import (FAST_DIGITS, text_array_from_enclosure,
                                           texts_from_enclosure)
from symattn.values.decimals import (fixed_decimal, fixed_from_ball, float_decimal_from_ball,
                                     significant_decimal, significant_from_ball, to_scientific)
from symattn.values.enclosures import Enclosure
from symattn.values.exact import EXACT_ZERO, NAN, NEG_INF, Exact
from symattn.values.rounding import Rounding, format_scaled, ratio_decimal
from symattn.values.rules import parse_rounding
from symattn.values.text_arrays import TextArray, choose, from_rows

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    # a rational grid's int64 numerators, denominator and -oo entries (grid_arrays)
    Parts = tuple[NDArray[np.int64], int, NDArray[np.bool_] | None]

def _whole(value: object, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


# Positional notation is kept while it adds at most this many zeros to the digits.
SCIENTIFIC_BEYOND = 7
# Blocks at least this large are decided from a numpy enclosure first (importing
# numpy costs more than the ball path saves on a worked example's small matrices).
ENCLOSURE_MIN_ENTRIES = 4096
# Entries the enclosure leaves open are decided exactly one by one; past this
# share of the block (many digits, huge values) the ball batch is quicker.
UNDECIDED_SHARE = 0.01

# The decimals of the last two rational numerators written, with their format.
_LAST: list[tuple[object, NumberFormat, tuple[TextArray, NDArray[np.bool_]]]] = []

DECIMAL_SEPARATORS = {"en": ".", "pl": ",", "cs": ",", "ru": ",", "uk": ","}


class Block(Protocol):
    """What ``format_block`` reads: a grid's exact entries and certified balls
    (``derivation.grids.Grid``); a grid may also offer ``enclosure()``, a
    double-precision ``Enclosure`` of every entry, or None."""

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
        """Decimals of a block of a grid, evaluated as balls in one batch.

        Entries the batch cannot decide (an exact halfway case, a ball too
        wide) fall back to ``format``, which settles them exactly.
        """
        if len(rows) * len(columns) <= 16:
            return tuple(tuple(self.format(grid.exact(i, j)) for j in columns) for i in rows)
        target = self.places if self.places is not None else self.digits
        assert target is not None
        # A sum's decimal costs a row of terms by balls: the batch pays off sooner.
        cost = int(getattr(grid, "entry_cost", 1))
        if len(rows) * len(columns) * cost >= ENCLOSURE_MIN_ENTRIES:
            texts = self._format_enclosure(grid, rows, columns)
            if texts is not None:
                return texts
        with progress.task(len(rows), "decimals"):
            return self._format_balls(grid, rows, columns, target)

    def format_array(self, grid: Block, parts: Parts | None = None) -> TextArray:
        """``format_block`` of the whole grid as a ``TextArray``: from a rational grid's
        integer ``parts`` exactly (``ratio_arrays``), else from its enclosure, a whole
        matrix at once; entries either leaves open are decided one by one."""
        n, m = grid.shape
        rows, columns = range(n), range(m)
        if parts is not None:
            texts, open_ = self._ratio_decimals(parts)
            if parts[2] is not None:
                texts, open_ = choose(parts[2], b"-inf", texts), open_ & ~parts[2]
        else:
            found = self._enclosure_array(grid)
            if found is None:
                return from_rows(self.format_block(grid, rows, columns), m)
            texts, open_ = found
        where = open_.ravel().nonzero()[0].tolist()
        exact = self._ratio_format(grid) if len(where) > 1000 else \
            (lambda i, j: self.format(grid.exact(i, j)))
        return texts.replaced(where, [exact(k // m, k % m) for k in where])

    def _ratio_decimals(self, parts: Parts) -> tuple[TextArray, NDArray[np.bool_]]:
        """``ratio_arrays.ratio_decimals`` of the parts, kept for the next grid with the
        same numerators (the masked scores are the scaled ones with -oo)."""
        from symattn.values.ratio_arrays import ratio_decimals

        for index, (numerators, number_format, found) in enumerate(_LAST):
            if numerators is parts[0] and number_format == self:
                del _LAST[index]      # the masked scores are the last to ask
                return found
        found = ratio_decimals(parts[0], parts[1], self.places, self.digits, self.rounding,
                               self.separator, SCIENTIFIC_BEYOND)
        _LAST[:] = [*_LAST[-1:], (parts[0], self, found)]     # the mask comes in between
        return found

    def _enclosure_of(self, grid: Block) -> Enclosure | None:
        """The grid's double-precision enclosure, when this format can be read from one
        (not truncation, not more digits than doubles settle)."""
        enclosure: Callable[[], Enclosure | None] | None = getattr(grid, "enclosure", None)
        shown = self.places if self.places is not None else self.digits
        if enclosure is None or self.rounding is Rounding.TRUNCATE or \
                shown is None or shown > FAST_DIGITS:
            return None
        return enclosure()

    def _enclosure_array(self, grid: Block) -> tuple[TextArray, NDArray[np.bool_]] | None:
        """``_format_enclosure``'s numpy batch as a ``TextArray``, or None (no enclosure,
        or too many entries left open)."""
        whole = self._enclosure_of(grid)
        if whole is None:
            return None
        texts, open_ = text_array_from_enclosure(whole, self.places, self.digits,
                                                 self.separator, SCIENTIFIC_BEYOND)
        if open_[whole.known].sum() > UNDECIDED_SHARE * open_.size and \
                not getattr(grid, "all_rational", False):
            return None
        return texts, open_

    def _format_enclosure(self, grid: Block, rows: Sequence[int], columns: Sequence[int]
                          ) -> tuple[tuple[str | None, ...], ...] | None:
        """The numpy batch: decide the whole block from a double-precision
        enclosure; entries it leaves open are decided exactly, one by one."""
        whole = self._enclosure_of(grid)
        if whole is None:
            return None
        block = whole.block(rows, columns)
        texts, undecided = texts_from_enclosure(block, self.places, self.digits, self.separator,
                                                SCIENTIFIC_BEYOND)
        # Rows the enclosure does not cover (fully masked ones) are cheap exactly.
        # A grid of rationals (``all_rational``) decides its open entries (exact
        # halfway cases) as cheaply one by one as the ball batch would.
        if undecided[block.known].sum() > UNDECIDED_SHARE * undecided.size and \
                not getattr(grid, "all_rational", False):
            return None      # too many for one-by-one exact decisions: the ball batch
        exact = self._ratio_format(grid)
        for index in undecided.any(axis=1).nonzero()[0].tolist():
            i, row = rows[index], texts[index]
            texts[index] = [exact(i, j) if text is None else text
                            for j, text in zip(columns, row)]
        return tuple(map(tuple, texts))

    def _ratio_format(self, grid: Block) -> Callable[[int, int], str | None]:
        """Entry (i, j) decided exactly: from the grid's integer numerators over one
        common denominator where it has them (``ratio_parts``), else ``format``."""
        parts = getattr(grid, "ratio_parts", None)
        fallback = lambda i, j: self.format(grid.exact(i, j))   # noqa: E731
        if parts is None or not getattr(grid, "all_rational", False):
            return fallback
        numerators, denominator, width = parts()
        places, rule, separator = self.places, self.rounding, self.separator
        digits = self.digits if places is None else None     # fixed places win

        def exact(i: int, j: int) -> str | None:
            value = grid.exact(i, j)
            if not isinstance(value, fmpq) or (places is not None and abs(places) > 400):
                return self.format(value)
            text = ratio_decimal(int(numerators[i * width + j]), denominator, places, digits,
                                 rule, separator)
            return text if places is not None else self._notation(text)

        return exact

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

