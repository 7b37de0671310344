"""Verdicts on printed sizes: ok or wrong (a size is never propagated).

A number is ok when the exact quantity, in the printed unit and rounded to
the printed places, is the printed number; an exact form (``1/4``, ``2^31``)
must equal it. A shape is ok when its sizes are the tensor's, also written
transposed ``[out, in]`` or without a batch of 1.

A reason is written twice: in English (``Judgement.reason``, what the JSON
says) and as clauses, each a message of the catalogs' ``[sizes.reason]`` (or
``[reason]``, for a key without a dot there) with its values, which the reports
write in the reader's language. Values named ``size_*`` are sizes as written
here ("67.108864 MB = 67,108,864 bytes"), ``math_*`` are symbols
(``symattn.sizes.symbols``), ``what`` is the catalog key of a quantity's name.
"""

from __future__ import annotations

__all__ = ["Clause", "Judgement", "judge_number", "judge_shape"]

from dataclasses import dataclass
from fractions import Fraction

from symattn.sizes.mistakes import WrongNumber, matches
from symattn.sizes.printed import SizePrinted
from symattn.sizes.printing import group_digits, places_text, shown_decimal
from symattn.sizes.records import Quantity, Sizes, Tensor
from symattn.sizes.symbols import dims_math, tensor_math
from symattn.values.rules import Rounding, round_to_places

# At a tie, the rule a document following the other half rule would have used.
_OTHER_HALF = {Rounding.HALF_UP: Rounding.HALF_EVEN, Rounding.HALF_EVEN: Rounding.HALF_UP}
# One clause of a reason: a message key and its values.
Clause = tuple[str, tuple[tuple[str, str], ...]]


def _clause(key: str, **args: str) -> Clause:
    return key if "." in key or key in ("off_by_one", "match_truncation") else \
        f"sizes.reason.{key}", tuple(args.items())


@dataclass(frozen=True)
class Judgement:
    """The verdict on one printed size, with the texts a report shows."""

    exact: str              # the exact value
    exact_decimal: str      # in the printed unit, a few places beyond the printed ones
    exact_rounded: str      # as the document should have printed it
    verdict: str            # ok | wrong
    flags: tuple[str, ...]
    reason: str
    clauses: tuple[Clause, ...] = ()


def _unit_suffix(unit: str) -> str:
    """How the unit follows a number: ``25%``, ``4x``, ``64 MiB``."""
    return unit if unit in ("%", "x") else (f" {unit}" if unit else "")


def _fraction_text(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


def _value_text(quantity: Quantity, printed: SizePrinted) -> str:
    """The exact value in the printed unit, fewest places (``1/3 = 0.3333...``
    for an exact form), and in bytes when the unit is not bytes."""
    exact = Fraction(quantity.value)
    in_unit, unit = exact / printed.scale, _unit_suffix(printed.unit)
    text = shown_decimal(in_unit, 0) + unit
    if in_unit.denominator != 1 and not text.endswith(("...", "..." + unit)) \
            and printed.places is None:
        text = f"{_fraction_text(in_unit)}{unit} = {text}"
    if printed.scale != 1 and quantity.kind == "bytes":
        text += f" = {group_digits(int(exact))} bytes"
    return text


def _exact_form(in_unit: Fraction, printed: SizePrinted, value_text: str
                ) -> tuple[bool, str, str, list[Clause]]:
    """ok, the value as it should be written, and the reason, for an exact form."""
    ok = in_unit == printed.value
    whole = group_digits(int(in_unit)) if in_unit.denominator == 1 else _fraction_text(in_unit)
    reason = f"exactly {value_text}" if ok else f"should be exactly {value_text}"
    clause = _clause("exactly" if ok else "should_exactly", size_value=value_text)
    return ok, whole + _unit_suffix(printed.unit), reason, [clause]


def _rounded(in_unit: Fraction, printed: SizePrinted, places: int, rule: Rounding,
             value_text: str) -> tuple[bool, str, str, list[Clause], bool]:
    """ok, the value as it should be printed, the reason, and whether the rule
    (not the value) decided the last digit, for a number printed to ``places``."""
    unit = _unit_suffix(printed.unit)
    rounded = round_to_places(in_unit, places, rule)
    rounded_text = places_text(rounded, places, True) + unit
    ok = rounded == printed.value * Fraction(10) ** places
    tie = rule is not Rounding.TRUNCATE and (in_unit * Fraction(10) ** places).denominator == 2
    clauses: list[Clause] = []
    if in_unit == printed.value:
        reason = f"exactly {value_text}"
        clauses.append(_clause("exactly", size_value=value_text))
    elif ok:
        reason = f"exact {value_text} rounds {rule.value} to {rounded_text}"
        clauses.append(_clause("rounds", size_value=value_text, rule=rule.value,
                               size_rounded=rounded_text))
        if tie:
            other = _OTHER_HALF[rule]
            other_text = places_text(round_to_places(in_unit, places, other), places, True)
            reason += (f"; exactly halfway, so the rule decides ({other.value} gives "
                       f"{other_text}{unit})")
            clauses.append(_clause("tie", other_rule=other.value, size_other=other_text + unit))
    elif Fraction(rounded) / Fraction(10) ** places == in_unit:
        reason = f"should be exactly {value_text}"
        clauses.append(_clause("should_exactly", size_value=value_text))
    else:
        reason = f"should be {rounded_text} (exact {value_text})"
        clauses.append(_clause("should_be", size_rounded=rounded_text, size_value=value_text))
    return ok, rounded_text, reason, clauses, tie


def judge_number(sizes: Sizes, quantity: Quantity, printed: SizePrinted,
                 rule: Rounding) -> Judgement:
    """The verdict on a printed number of ``quantity`` (one of ``sizes``).

    >>> from symattn.sizes.quantities import compute
    >>> from symattn.sizes.shape import ModelShape
    >>> sizes = compute(ModelShape(4096, 32, 1024))
    >>> printed = SizePrinted("67.1 MB", Fraction(671, 10), 1, "MB", Fraction(10 ** 6))
    >>> judge_number(sizes, sizes.quantity("score_bytes"), printed, Rounding.HALF_UP).reason
    'exact 67.108864 MB = 67,108,864 bytes rounds half-up to 67.1 MB'
    """
    in_unit = Fraction(quantity.value) / printed.scale
    places = printed.places
    value_text = _value_text(quantity, printed)
    flags: tuple[str, ...] = ("approximate",) if printed.approximate else ()
    if places is None:
        ok, rounded_text, reason, clauses = _exact_form(in_unit, printed, value_text)
    else:
        ok, rounded_text, reason, clauses, tie = _rounded(in_unit, printed, places, rule,
                                                          value_text)
        flags += ("tie",) if tie else ()
    if not ok:
        found = matches(WrongNumber(sizes, quantity, printed, rule))
        if found:
            reason += "; matches " + ", ".join(match.text for match in found)
            clauses += [_clause(match.key, **dict(match.args)) for match in found]
        if places is not None and abs(round_to_places(in_unit, places, rule)
                                      - printed.value * Fraction(10) ** places) == 1:
            reason += "; off by one in the last digit"
            clauses.append(_clause("off_by_one"))
    return Judgement(quantity.exact, shown_decimal(in_unit, places) + _unit_suffix(printed.unit),
                     rounded_text, "ok" if ok else "wrong", flags, reason, tuple(clauses))


def _sizes_forms(tensor: Tensor, batch: int) -> list[tuple[int, ...]]:
    """How a tensor's shape may be printed: as it is, and without a batch of 1."""
    return [tensor.sizes] + ([tensor.sizes[1:]] if tensor.dims[:1] == ("B",) and
                             batch == 1 else [])


def judge_shape(sizes: Sizes, tensor: Tensor, printed: tuple[int, ...]) -> Judgement:
    """The verdict on a printed shape of ``tensor`` (one of ``sizes``).

    >>> from symattn.sizes.quantities import compute
    >>> from symattn.sizes.shape import ModelShape
    >>> sizes = compute(ModelShape(4096, 32, 1024))
    >>> judge_shape(sizes, sizes.tensor("W_O"), (4096, 4096)).reason
    '[d_model, d_model] = [4096, 4096]'
    """
    batch = sizes.shape.batch
    text = " x ".join(str(s) for s in tensor.sizes)
    dims = "[" + ", ".join(tensor.dims) + "]"
    values = {"math_dims": dims_math(tensor.dims), "shape": tensor.text()}

    def judged(verdict: str, reason: str, *clauses: Clause) -> Judgement:
        return Judgement(text, text, text, verdict, (), reason, clauses)

    if printed == tensor.sizes:
        return judged("ok", f"{dims} = {tensor.text()}", _clause("shape_ok", **values))
    if len(tensor.sizes) == 2 and printed == tensor.sizes[::-1]:
        return judged("ok", f"{dims} = {tensor.text()} written [out, in], as "
                            "torch.nn.Linear stores it", _clause("shape_transposed", **values))
    if "B" in tensor.dims and batch == 1 and tensor.dims[0] == "B" and \
            printed == tensor.sizes[1:]:
        return judged("ok", f"{dims} = {tensor.text()} with the batch dimension (1) left out",
                      _clause("shape_no_batch", **values))
    reason = f"should be {text} {dims}"
    clauses = [_clause("shape_wrong", **values)]
    if tensor.dims[:1] == ("B",) and printed == tensor.sizes[1:]:
        reason += f"; matches the shape for one sequence (the batch is {batch})"
        clauses.append(_clause("shape_one_sequence", batch=str(batch)))
    for other in sizes.tensors:
        if other.name != tensor.name and printed in _sizes_forms(other, batch):
            reason += f"; matches the shape of {other.name}"
            clauses.append(_clause("shape_other", math_tensor=tensor_math(other.name)))
            break
    return judged("wrong", reason, *clauses)
