"""Read the ``[claims]`` table: the numbers a document printed, and where.

Each printed number becomes a ``Claim``: a ``Target`` (step, 0-based row and
column, and whether it is the entry itself, one printed term of a sum, the
printed row sum, or the divisor) plus the ``Printed`` number with its
precision as printed. The key syntax is documented in docs/spec-format.md::

    STEP | STEP[i] | STEP[:,j] | STEP[i,j] | STEP[i,j].terms | STEP[i].sum | divisor
    ... optionally followed by "@ label" for a repeated printing.

>>> from symattn.values.entries import parse_entry
>>> read_printed("83.83%").places, read_printed("83.83%").percent
(2, True)
>>> read_printed("~3.997").approximate
True
"""

from __future__ import annotations

__all__ = ["Printed", "Target", "Claim", "read_printed", "read_claims", "QUERY_ROW_STEPS"]

import re
from dataclasses import dataclass
from typing import Any, Mapping

from flint import fmpq

from symattn.values.entries import parse_entry
from symattn.errors import InputError, Location, counted
from symattn.values.exact import NEG_INF, NegInf, Surd
from symattn.derivation.names import base_name

# Steps whose rows are queries: with query_positions, their rows are named by position.
QUERY_ROW_STEPS = frozenset({"Q", "scores", "scaled", "mask", "masked", "exp", "exp_sum",
                             "weights", "output", "residual_1", "norm_1", "ffn_hidden",
                             "ffn_activated", "ffn", "residual_2", "norm_2", "concat",
                             "entropy", "entropy_max", "jacobian_norm",
                             "jacobian_norm_unscaled"})
# Steps that are one column (a value per query row): reported with one index.
COLUMN_STEPS = frozenset({"exp_sum", "entropy", "entropy_max", "jacobian_norm",
                          "jacobian_norm_unscaled"})
_KEY = re.compile(r"^\s*(?P<step>(?:head\d+\.)?[A-Za-z_]\w*)\s*(?:\[(?P<position>[^\]]*)\])?\s*"
                  r"(?:\.\s*(?P<part>terms|sum))?\s*(?:@\s*(?P<label>.*?))?\s*$")
_SKIP = ("?", "")


@dataclass(frozen=True)
class Printed:
    """A printed number: its value, its decimal places, and how it was marked.

    ``continues`` marks digits followed by an ellipsis (0.666...): the digits
    shown are the leading digits of the value, so cutting them off is right.
    ``exact`` marks a printed closed form (1/3, sqrt(2)/2), compared exactly.
    """

    text: str
    value: Any            # fmpq, NEG_INF, or a Surd for a printed root
    places: int
    percent: bool = False
    approximate: bool = False
    continues: bool = False
    exact: bool = False


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
    key: str             # the key as written in the spec
    label: str           # the text after "@", or ""
    target: Target
    printed: Printed
    order: int           # position in the spec, for stable reports

    @property
    def primary(self) -> bool:
        return not self.label


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_TIMES_TEN = re.compile(r"^(?P<mantissa>[+\-\u2212]?[0-9][0-9.,]*)\s*(?:[×x·*]|\\times|\\cdot)\s*"
                        r"10\s*(?:\^|\*\*)?\s*\{?\s*(?P<exponent>[+\-\u2212]?[0-9]+)\s*\}?$")
_ELLIPSIS = ("...", "\u2026")


def read_printed(raw: Any, location: Location | None = None) -> Printed | None:
    """Parse one printed number; None for a skipped entry ("?" or "").

    >>> read_printed("1.5 × 10⁻³").value, read_printed("0.666...").continues
    (3/2000, True)
    """
    if isinstance(raw, bool) or not isinstance(raw, (str, int)):
        raise InputError(f"a printed number must be a number or text, got {raw!r}", location)
    text = str(raw).strip()
    if text in _SKIP:
        return None
    body = text
    approximate = False
    if body[:1] in ("~", "\u2248"):
        approximate, body = True, body[1:].strip()
    percent = body.endswith("%")
    if percent:
        body = body[:-1].strip()
    continues = body.endswith(_ELLIPSIS)
    if continues:
        body = body.rstrip(".\u2026").strip()
    scientific = _TIMES_TEN.match(body.translate(_SUPERSCRIPTS))
    if scientific:   # 1.5 × 10^-3, 1.5·10⁻³, 1.5 \times 10^{-3}
        body = f"{scientific['mantissa']}e{scientific['exponent']}".replace("\u2212", "-")
    entry = parse_entry(body, location)
    if entry.value is NEG_INF:
        return Printed(text, NEG_INF, 0, percent, approximate)
    if entry.places is None and isinstance(entry.value, (fmpq, Surd)) and not continues:
        return Printed(text, entry.value, 0, percent, approximate, exact=True)
    if entry.places is None or not isinstance(entry.value, fmpq):
        raise InputError(f"{text!r} is not a printed number (write it as printed: 0.394, "
                         "83.83%, 0.666..., 1/3, sqrt(2)/2)", location)
    return Printed(text, entry.value, entry.places, percent, approximate, continues)


def _row_index(number: int, step: str, positions: tuple[int, ...] | None, rows: int,
               location: Location) -> int:
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
    text = text.strip()
    if not text.isdigit() or int(text) < 1:
        raise InputError(f"{what} {text!r} must be a whole number from 1 (positions are "
                         "1-based)", location)
    return int(text)


def read_claims(claims: Mapping[str, Any], shapes: Mapping[str, tuple[int, int]],
                query_positions: tuple[int, ...] | None, source: str | None = None
                ) -> list[Claim]:
    """All claims of a spec, validated against the derivation's step shapes."""
    where = Location(file=source, key="claims")
    result: list[Claim] = []
    for key, raw in claims.items():
        here = where.at(key=f'"{key}"' if not key.isidentifier() else key)
        match = _KEY.match(str(key))
        if not match:
            raise InputError("cannot read this claim key; write STEP, STEP[i], STEP[:,j], "
                             "STEP[i,j], STEP[i,j].terms, STEP[i].sum or divisor", here)
        step, position, part = match["step"], match["position"], match["part"]
        label = (match["label"] or "").strip()
        if step == "divisor":
            printed = read_printed(raw, here)
            if printed is not None:
                result.append(Claim(key, label, Target("divisor", part="divisor"), printed,
                                    len(result)))
            continue
        if step not in shapes:
            import difflib

            close = difflib.get_close_matches(step, list(shapes) + ["divisor"], n=1)
            hint = f"; did you mean `{close[0]}`?" if close else \
                f"; this derivation has {', '.join(shapes)}"
            raise InputError(f"no step named `{step}`{hint}", here)
        rows, columns = shapes[step]
        positions = query_positions if base_name(step) in QUERY_ROW_STEPS else None
        row_numbers = list(positions) if positions else list(range(1, rows + 1))

        def entry(row_number: int, column_number: int, value: Any, loc: Location) -> None:
            if not 1 <= column_number <= columns:
                raise InputError(f"column {column_number} is outside {step}, which has "
                                 f"{counted(columns, 'column')}", loc)
            printed = read_printed(value, loc)
            if printed is not None:
                row = _row_index(row_number, step, positions, rows, loc)
                result.append(Claim(key, label, Target(step, row, column_number - 1),
                                    printed, len(result)))

        def as_list(value: Any, length: int, what: str) -> list[Any]:
            if not isinstance(value, list):
                raise InputError(f"expected a list of {length} printed numbers for {what}", here)
            if len(value) != length:
                raise InputError(f"{what} has {counted(length, 'entry', 'entries')} but "
                                 f"{len(value)} {'was' if len(value) == 1 else 'were'} given",
                                 here)
            return value

        if position is None and part is None:
            if columns == 1 and isinstance(raw, list) and raw and not isinstance(raw[0], list):
                raw = [[v] for v in raw]           # a column vector written flat
            if rows == 1 and isinstance(raw, list) and raw and not isinstance(raw[0], list):
                raw = [raw]                        # a single row written flat
            if not isinstance(raw, list) and rows == columns == 1:
                raw = [[raw]]
            matrix = as_list(raw, len(row_numbers), f"{step} (rows)")
            for r, (number, row) in enumerate(zip(row_numbers, matrix), start=1):
                cells = as_list(row, columns, f"row {r} of {step}")
                for c, value in enumerate(cells, start=1):
                    entry(number, c, value, here.at(row=r, column=c))
            continue
        parts = [p.strip() for p in (position or "").split(",")]
        if part == "sum":
            if len(parts) != 1 or not parts[0]:
                raise InputError("a row sum is written STEP[i].sum", here)
            number = _index(parts[0], here, "row")
            printed = read_printed(raw, here)
            if printed is not None:
                row = _row_index(number, step, positions, rows, here)
                result.append(Claim(key, label, Target(step, row, 0, "sum"), printed,
                                    len(result)))
            continue
        if part == "terms":
            if columns == 1 and len(parts) == 1:
                parts.append("1")
            if len(parts) != 2:
                raise InputError("terms are written STEP[i,j].terms", here)
            number, column = _index(parts[0], here, "row"), _index(parts[1], here, "column")
            if base_name(step) not in ("scores", "output", "exp_sum"):
                raise InputError("terms can be given for scores (q_ik k_jk), output "
                                 "(w_ij v_jk) and exp_sum (the exponentials)", here)
            row = _row_index(number, step, positions, rows, here)
            if not 1 <= column <= columns:
                raise InputError(f"column {column} is outside {step}", here)
            prefix = step[: len(step) - len(base_name(step))]
            length = {"scores": shapes.get(prefix + "Q", (0, 0))[1],
                      "output": shapes.get(prefix + "weights", (0, 0))[1],
                      "exp_sum": shapes.get(prefix + "exp", (0, 0))[1]}[base_name(step)]
            if length == 0:
                raise InputError(f"this derivation has no terms for {step}", here)
            for t, value in enumerate(as_list(raw, length, "the terms"), start=0):
                printed = read_printed(value, here.at(column=t + 1))
                if printed is not None:
                    result.append(Claim(key, label, Target(step, row, column - 1, "term", t),
                                        printed, len(result)))
            continue
        if len(parts) == 1:
            if columns == 1:
                entry(_index(parts[0], here, "row"), 1, raw, here)
                continue
            number = _index(parts[0], here, "row")
            for c, value in enumerate(as_list(raw, columns, f"row {number} of {step}"), 1):
                entry(number, c, value, here.at(column=c))
            continue
        if len(parts) == 2 and parts[0] == ":":
            column = _index(parts[1], here, "column")
            for number, value in zip(row_numbers, as_list(raw, len(row_numbers),
                                                          f"column {column} of {step}")):
                entry(number, column, value, here.at(row=number))
            continue
        if len(parts) == 2 and parts[1] == ":":
            number = _index(parts[0], here, "row")
            for c, value in enumerate(as_list(raw, columns, f"row {number} of {step}"), 1):
                entry(number, c, value, here.at(column=c))
            continue
        if len(parts) == 2:
            entry(_index(parts[0], here, "row"), _index(parts[1], here, "column"), raw, here)
            continue
        raise InputError("a position is [i], [i,j], [:,j] or [i,:]", here)
    return result
