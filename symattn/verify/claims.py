"""Read the ``[claims]`` table: the numbers a document printed, and where.

Each printed number becomes a ``Claim``: a ``Target`` (step, 0-based row and
column, and whether it is the entry itself, one printed term of a sum, the
printed row sum, or the divisor) plus the ``Printed`` number with its
precision as printed. The key syntax is documented in docs/spec-format.md::

    STEP | STEP[i] | STEP[:,j] | STEP[i,j] | STEP[i,j].terms | STEP[i].sum | divisor
    scores[i,j].factors  (the printed cosine, |q_i| and |k_j| of a score)
    ... optionally followed by "@ label" for a repeated printing.

>>> read_printed("83.83%").places, read_printed("83.83%").percent
(2, True)
>>> read_printed("~3.997").approximate
True
"""

from __future__ import annotations

__all__ = ["Printed", "Target", "Claim", "read_printed", "read_claims", "row_index",
           "QUERY_ROW_STEPS"]

import re
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Mapping

from symattn.derivation.names import base_name
from symattn.derivation.terms import PRINTABLE_TERMS, term_count
from symattn.errors import InputError, Location, counted, cut, did_you_mean
from symattn.values.number_reading import uses_points
from symattn.values.whole import ascii_whole
from symattn.verify.printed import Printed, read_printed

# Steps whose rows are queries: with query_positions, their rows are named by position.
QUERY_ROW_STEPS = frozenset({"Q", "scores", "scaled", "mask", "masked", "exp", "exp_sum",
                             "weights", "output", "residual_1", "norm_1", "ffn_hidden",
                             "ffn_activated", "ffn", "residual_2", "norm_2", "concat",
                             "entropy", "entropy_max", "jacobian_norm",
                             "jacobian_norm_unscaled", "row_max", "shifted", "exp_shifted",
                             "exp_shifted_sum", "q_norm", "cosine", "tempered"})
# Steps that are one column (a value per query row): reported with one index.
COLUMN_STEPS = frozenset({"exp_sum", "entropy", "entropy_max", "jacobian_norm",
                          "jacobian_norm_unscaled", "row_max", "exp_shifted_sum", "q_norm",
                          "k_norm"})
_KEY = re.compile(r"^\s*(?P<step>(?:head\d+\.)?[A-Za-z_]\w*)\s*(?:\[(?P<position>[^\]]*)\])?\s*"
                  r"(?:\.\s*(?P<part>terms|sum|factors))?\s*(?:@\s*(?P<label>.*?))?\s*$")


@dataclass(frozen=True)
class Target:
    """What a claim is about. Rows and columns are 0-based matrix indices."""

    step: str
    row: int = 0
    column: int = 0
    part: str = "entry"          # entry | term | sum | divisor
    term: int = 0                # which term (0-based) for part == "term"

    def describe(self, row_label: int) -> str:
        """1-based position text for reports, e.g. ``weights[3,1]``."""
        if self.part == "divisor":
            return "divisor"
        if self.step == "scale":       # a single number (derivation.cosine)
            return "scale"
        base = f"{self.step}[{row_label},{self.column + 1}]"
        if base_name(self.step) in COLUMN_STEPS:   # a column vector: one index
            base = f"{self.step}[{row_label}]"
        if self.part == "sum":
            return f"{self.step}[{row_label}].sum"
        if self.part == "term":
            return f"{base}.terms[{self.term + 1}]"
        return base

    @property
    def entry(self) -> Target:
        """The entry this target belongs to (itself for an entry)."""
        return Target(self.step, self.row, self.column)


@dataclass(frozen=True)
class Claim:
    """One printed number of a spec's ``[claims]``: where it stands and what was printed."""

    key: str             # the key as written in the spec
    label: str           # the text after "@", or ""
    target: Target
    printed: Printed
    order: int           # position in the spec, for stable reports

    @property
    def primary(self) -> bool:
        return not self.label


def row_index(number: int, step: str, positions: tuple[int, ...] | None, rows: int,
              location: Location | None = None) -> int:
    """The 0-based row of the 1-based row ``number`` of ``step`` as claims, reports and
    templates name it: a query row by its token position when only some queries are
    computed (``query_positions``), else by its place."""
    if positions is not None and base_name(step) in QUERY_ROW_STEPS:
        if number not in positions:
            raise InputError(f"row {number} is not one of the query positions "
                             f"{list(positions)}", location)
        return positions.index(number)
    if not 1 <= number <= rows:
        raise InputError(f"row {number} is outside {step}, which has {counted(rows, 'row')}",
                         location)
    return number - 1


def _index(text: str, location: Location, what: str) -> int:
    number = ascii_whole(text)
    if number is None or number < 1:
        raise InputError(f"{what} {cut(text.strip())!r} must be a whole number from 1 "
                         "(positions are 1-based)", location)
    return number


@dataclass(frozen=True)
class _ClaimKey:
    """One key of the ``[claims]`` table, read against the step it names."""

    key: str                              # as written in the spec
    label: str                            # the text after "@", or ""
    step: str
    position: str | None                  # the text inside [...], if any
    part: str | None                      # "terms", "sum" or None
    here: Location
    shape: tuple[int, int]
    positions: tuple[int, ...] | None     # the query positions naming its rows, if any
    shapes: Mapping[str, tuple[int, int]]  # of every step, for the operands of terms

    @property
    def rows(self) -> int:
        return self.shape[0]

    @property
    def columns(self) -> int:
        return self.shape[1]

    @property
    def row_numbers(self) -> list[int]:
        """The 1-based row numbers a document uses, in order."""
        return list(self.positions) if self.positions else list(range(1, self.rows + 1))

    @property
    def indices(self) -> list[str]:
        """The comma-separated parts of the position, stripped ([""] without one)."""
        return [p.strip() for p in (self.position or "").split(",")]

    def row(self, number: int, location: Location) -> int:
        """The 0-based row of a 1-based row number (or query position)."""
        return row_index(number, self.step, self.positions, self.rows, location)

    def as_list(self, value: Any, length: int, what: str) -> list[Any]:
        """``value`` as a list of ``length`` printed numbers, or an error saying why not."""
        if not isinstance(value, list):
            raise InputError(f"expected a list of {length} printed numbers for {what}",
                             self.here)
        if len(value) != length:
            raise InputError(f"{what} has {counted(length, 'entry', 'entries')} but "
                             f"{len(value)} {'was' if len(value) == 1 else 'were'} given",
                             self.here)
        return value


class _Claims:
    """The claims read so far, each numbered by its place in the spec; ``number_format``
    and ``points`` say how printed numbers are read (``values.number_reading``)."""

    def __init__(self, number_format: str = "", points: bool = False) -> None:
        self.claims: list[Claim] = []
        self.number_format = number_format
        self.points = points

    def printed(self, raw: Any, location: Location) -> Printed | None:
        """One printed number, read under the document's number format."""
        return read_printed(raw, location, self.number_format, self.points)

    def add(self, key: _ClaimKey, target: Target, printed: Printed | None) -> None:
        if printed is not None:   # a skipped entry ("?") is no claim
            self.claims.append(Claim(key.key, key.label, target, printed, len(self.claims)))

    def entry(self, key: _ClaimKey, row_number: int, column_number: int, raw: Any,
              location: Location) -> None:
        """One printed entry at a 1-based row number and column."""
        if not 1 <= column_number <= key.columns:
            raise InputError(f"column {column_number} is outside {key.step}, which has "
                             f"{counted(key.columns, 'column')}", location)
        printed = self.printed(raw, location)
        if printed is not None:
            row = key.row(row_number, location)
            self.add(key, Target(key.step, row, column_number - 1), printed)


def read_claims(claims: Mapping[str, Any], shapes: Mapping[str, tuple[int, int]],
                query_positions: tuple[int, ...] | None, source: str | None = None,
                number_format: str = "") -> list[Claim]:
    """All claims of a spec, validated against the derivation's step shapes.

    ``number_format`` is options.number_format; without it, a printed "22,026" is
    refused when other claims are printed with decimal points (``values.number_reading``).

    >>> [c.target.describe(c.target.row + 1) for c in read_claims(
    ...     {"weights[2]": ["0.4", "?"], "divisor": "1.41"}, {"weights": (2, 2)}, None)]
    ['weights[2,1]', 'divisor']
    """
    where = Location(file=source, key="claims")
    points = not number_format and uses_points(_leaves(claims.values()))
    read = _Claims(number_format, points)
    for key, raw in claims.items():
        here = where.at(key=f'"{key}"' if not key.isidentifier() else key)
        claim_key = _read_key(str(key), here, shapes, query_positions)
        _reader(claim_key)(claim_key, raw, read)
    return read.claims


def _leaves(values: Iterable[Any]) -> Iterator[Any]:
    """Every printed value of the claims, lists opened."""
    for value in values:
        if isinstance(value, list):
            yield from _leaves(value)
        else:
            yield value


def _read_key(key: str, here: Location, shapes: Mapping[str, tuple[int, int]],
              query_positions: tuple[int, ...] | None) -> _ClaimKey:
    """The key read against the step shapes (the divisor is no step)."""
    match = _KEY.match(key)
    if not match:
        raise InputError("cannot read this claim key; write STEP, STEP[i], STEP[:,j], "
                         "STEP[i,j], STEP[i,j].terms, STEP[i].sum, scores[i,j].factors "
                         "or divisor", here)
    step, label = match["step"], (match["label"] or "").strip()
    if step == "divisor":
        return _ClaimKey(key, label, step, None, None, here, (1, 1), None, shapes)
    if step not in shapes:
        hint = did_you_mean(step, [*shapes, "divisor"]) or \
            f"; this derivation has {', '.join(shapes)}"
        raise InputError(f"no step named `{step}`{hint}", here)
    positions = query_positions if base_name(step) in QUERY_ROW_STEPS else None
    return _ClaimKey(key, label, step, match["position"], match["part"], here, shapes[step],
                     positions, shapes)


def _reader(key: _ClaimKey) -> _Reader:
    """How the value of this key is read: by its step, position and part."""
    if key.step == "divisor":
        return _read_divisor
    if key.position is None and key.part is None:
        return _read_matrix
    return _PART_READERS.get(key.part or "", _read_position)


def _read_divisor(key: _ClaimKey, raw: Any, read: _Claims) -> None:
    """divisor = the printed sqrt(d_k) (any position or part after it is ignored)."""
    read.add(key, Target("divisor", part="divisor"), read.printed(raw, key.here))


def _read_matrix(key: _ClaimKey, raw: Any, read: _Claims) -> None:
    """STEP = the whole matrix (a single row or column may be written flat)."""
    if key.columns == 1 and isinstance(raw, list) and raw and not isinstance(raw[0], list):
        raw = [[v] for v in raw]           # a column vector written flat
    if key.rows == 1 and isinstance(raw, list) and raw and not isinstance(raw[0], list):
        raw = [raw]                        # a single row written flat
    if not isinstance(raw, list) and key.rows == key.columns == 1:
        raw = [[raw]]
    matrix = key.as_list(raw, len(key.row_numbers), f"{key.step} (rows)")
    for r, (number, row) in enumerate(zip(key.row_numbers, matrix), start=1):
        cells = key.as_list(row, key.columns, f"row {r} of {key.step}")
        for c, value in enumerate(cells, start=1):
            read.entry(key, number, c, value, key.here.at(row=r, column=c))


def _read_sum(key: _ClaimKey, raw: Any, read: _Claims) -> None:
    """STEP[i].sum = the printed sum of row i."""
    parts = key.indices
    if len(parts) != 1 or not parts[0]:
        raise InputError("a row sum is written STEP[i].sum", key.here)
    number = _index(parts[0], key.here, "row")
    printed = read.printed(raw, key.here)
    if printed is not None:
        read.add(key, Target(key.step, key.row(number, key.here), 0, "sum"), printed)


def _read_terms(key: _ClaimKey, raw: Any, read: _Claims) -> None:
    """STEP[i,j].terms = the printed terms of the entry's written-out sum."""
    parts = key.indices
    if key.columns == 1 and len(parts) == 1:
        parts.append("1")
    if len(parts) != 2:
        raise InputError("terms are written STEP[i,j].terms", key.here)
    number, column = _index(parts[0], key.here, "row"), _index(parts[1], key.here, "column")
    if base_name(key.step) not in PRINTABLE_TERMS:
        raise InputError("terms can be given for scores (q_ik k_jk), output "
                         "(w_ij v_jk) and exp_sum (the exponentials)", key.here)
    row = key.row(number, key.here)
    if not 1 <= column <= key.columns:
        raise InputError(f"column {column} is outside {key.step}", key.here)
    length = term_count(key.step, key.shapes)
    if length == 0:
        raise InputError(f"this derivation has no terms for {key.step}", key.here)
    for t, value in enumerate(key.as_list(raw, length, "the terms"), start=0):
        read.add(key, Target(key.step, row, column - 1, "term", t),
                 read.printed(value, key.here.at(column=t + 1)))


def _read_position(key: _ClaimKey, raw: Any, read: _Claims) -> None:
    """STEP[i] (a row, or an entry of a column vector), STEP[:,j], STEP[i,:], STEP[i,j]."""
    parts, here = key.indices, key.here
    if len(parts) == 1 and key.columns == 1:
        read.entry(key, _index(parts[0], here, "row"), 1, raw, here)
    elif len(parts) == 1:
        _read_row(key, parts[0], raw, read)
    elif len(parts) == 2 and parts[0] == ":":
        _read_column(key, parts[1], raw, read)
    elif len(parts) == 2 and parts[1] == ":":
        _read_row(key, parts[0], raw, read)
    elif len(parts) == 2:
        read.entry(key, _index(parts[0], here, "row"), _index(parts[1], here, "column"), raw,
                   here)
    else:
        raise InputError("a position is [i], [i,j], [:,j] or [i,:]", here)


def _read_row(key: _ClaimKey, row: str, raw: Any, read: _Claims) -> None:
    number = _index(row, key.here, "row")
    for c, value in enumerate(key.as_list(raw, key.columns, f"row {number} of {key.step}"), 1):
        read.entry(key, number, c, value, key.here.at(column=c))


def _read_column(key: _ClaimKey, column_text: str, raw: Any, read: _Claims) -> None:
    column = _index(column_text, key.here, "column")
    for number, value in zip(key.row_numbers, key.as_list(raw, len(key.row_numbers),
                                                          f"column {column} of {key.step}")):
        read.entry(key, number, column, value, key.here.at(row=number))


def _read_factors(key: _ClaimKey, raw: Any, read: _Claims) -> None:
    """scores[i,j].factors = the printed cos(theta_ij), |q_i| and |k_j| whose product the
    document wrote for the score: each is a claim on its own step (``derivation.cosine``)."""
    parts = key.indices
    if key.step != "scores" or len(parts) != 2:
        raise InputError("factors are written scores[i,j].factors = [cosine, |q_i|, |k_j|]",
                         key.here)
    number, column = _index(parts[0], key.here, "row"), _index(parts[1], key.here, "column")
    row = key.row(number, key.here)
    if not 1 <= column <= key.columns:
        raise InputError(f"column {column} is outside {key.step}", key.here)
    targets = (Target("cosine", row, column - 1), Target("q_norm", row, 0),
               Target("k_norm", column - 1, 0))
    for t, (target, value) in enumerate(zip(targets, key.as_list(raw, 3, "the factors"))):
        read.add(key, target, read.printed(value, key.here.at(column=t + 1)))


_Reader = Callable[[_ClaimKey, Any, _Claims], None]

# The readers of a key with a part after the position; any other is a position.
_PART_READERS: dict[str, _Reader] = {
    "sum": _read_sum, "terms": _read_terms, "factors": _read_factors,
}
