"""Checking a size spec: its claims read, judged, and gathered in a ``Report``.

The report is the verifier's (``symattn.verify.checker.Report``), so ``symattn
check`` prints size specs and attention specs alike. The verifier needs flint,
so it is imported only when a spec is checked: importing ``symattn.sizes``
stays light.
"""

from __future__ import annotations

__all__ = ["check_spec"]

import dataclasses
from typing import TYPE_CHECKING, Any, Mapping, TypeAlias

from symattn.errors import Location
from symattn.sizes.judge import Judgement, judge_number, judge_shape
from symattn.sizes.printed import SizePrinted, read_shape_printed, read_size_printed
from symattn.sizes.quantities import compute
from symattn.sizes.records import Sizes
from symattn.sizes.spec import SizeClaim, read_claims, read_options, shapes_of_spec
from symattn.values.rules import Rounding, intervals_meet

if TYPE_CHECKING:
    from symattn.verify.checker import Report, Verdict
    from symattn.verify.claims import Printed

# What a claim was read as: a printed number, or a printed shape.
Reading: TypeAlias = "SizePrinted | tuple[int, ...]"


def check_spec(mapping: Mapping[str, Any], source: str | None = None,
               rounding: str | None = None) -> Report:
    """Judge the printed sizes of a size spec; returns a ``checker.Report``.

    Each claim names a quantity (``score_bytes``) or a tensor (``W_O``), of
    ``[sizes]`` itself or of a variant (``T8192.score_elements``). A number is
    ok when the exact quantity, in the printed unit and rounded to the printed
    places, is the printed number ("64 MiB" is 64 x 2^20 bytes); a shape is ok
    when its sizes are the tensor's (a weight may be written transposed).

    >>> spec = {"sizes": {"d_model": 4096, "heads": 32, "seq_len": 1024},
    ...         "claims": {"score_elements": "33 554 432", "score_bytes": "64 MB"}}
    >>> report = check_spec(spec, "exercise.toml")
    >>> [(v.position, v.verdict) for v in report.verdicts]
    [('score_elements', 'ok'), ('score_bytes', 'wrong')]
    >>> for part in report.verdicts[1].reason.split("; "): print(part)
    should be 67 MB (exact 67.108864 MB = 67,108,864 bytes)
    matches the value in MiB (binary units: 1 MiB = 2^20 bytes) labelled MB
    """
    from symattn.problem.read import read_language, read_prose
    from symattn.verify.checker import Report

    where = Location(file=source)
    rule, decimal_comma = read_options(mapping, where, rounding)
    shapes = shapes_of_spec(mapping, source)
    computed = {name: compute(shape) for name, shape in shapes.items()}
    claims = read_claims(mapping, shapes, computed, where.at(key="claims"))
    verdicts: list[Verdict] = []
    readings: list[Reading] = []
    for claim in claims:
        judged = _judge(claim, computed[claim.variant], rule, decimal_comma)
        if judged is not None:
            printed, reading, judgement = judged
            verdicts.append(_verdict(claim, printed, judgement, len(verdicts)))
            readings.append(reading)
    verdicts = _flag_inconsistent(verdicts, readings, rule)
    language = read_language(mapping.get("language", ""), where.at(key="language"))
    title, titles = read_prose(mapping, "title", where)
    return Report(title, source, rule, tuple(verdicts), language, titles=titles)


def _judge(claim: SizeClaim, sizes: Sizes, rule: Rounding, decimal_comma: bool
           ) -> tuple[Printed, Reading, Judgement] | None:
    """The claim as the verifier records it, as read, and judged; None when skipped (``?``)."""
    from flint import fmpq

    from symattn.verify.claims import Printed

    if claim.name in sizes:
        quantity = sizes.quantity(claim.name)
        number = read_size_printed(claim.raw, quantity.kind, decimal_comma, claim.location)
        if number is None:
            return None
        value = number.value
        record = Printed(number.text, fmpq(value.numerator, value.denominator),
                         number.places or 0, number.unit == "%", number.approximate)
        return record, number, judge_number(sizes, quantity, number, rule)
    shape = read_shape_printed(claim.raw, claim.location)
    if shape is None:
        return None
    text = claim.raw if isinstance(claim.raw, str) else \
        "[" + ", ".join(str(x) for x in claim.raw) + "]"
    record = Printed(text, fmpq(0), 0, False, False)
    return record, shape, judge_shape(sizes, sizes.tensor(claim.name), shape)


def _verdict(claim: SizeClaim, printed: Printed, judgement: Judgement, order: int) -> Verdict:
    from symattn.verify.checker import Verdict
    from symattn.verify.claims import Claim, Target
    from symattn.verify.verdicts import Reason

    record = Claim(claim.key, claim.label, Target(claim.position), printed, order)
    return Verdict(claim=record, position=claim.position, printed=printed.text,
                   value=judgement.exact, exact_decimal=judgement.exact_decimal,
                   exact_rounded=judgement.exact_rounded, recomputed=None,
                   verdict=judgement.verdict, flags=judgement.flags, reason=judgement.reason,
                   reasons=tuple(Reason(key, args) for key, args in judgement.clauses))


def _compatible(first: Reading, second: Reading, rule: Rounding) -> bool:
    """Whether one value could print as both readings (two shapes: only when equal)."""
    if not isinstance(first, SizePrinted) or not isinstance(second, SizePrinted):
        return first == second
    return intervals_meet(first.interval(rule), second.interval(rule))


def _flag_inconsistent(verdicts: list[Verdict], readings: list[Reading], rule: Rounding
                       ) -> list[Verdict]:
    """Flag printings of one quantity that no single value could share."""
    from symattn.verify.verdicts import Reason

    groups: dict[str, list[int]] = {}
    for index, verdict in enumerate(verdicts):
        groups.setdefault(verdict.position, []).append(index)
    result = list(verdicts)
    for indices in groups.values():
        for k in indices:
            clashes = [m for m in indices if m != k and not _compatible(
                readings[k], readings[m], rule)]
            if clashes:
                others = ", ".join(verdicts[m].printed + (f" ({verdicts[m].label})"
                                                          if verdicts[m].label else "")
                                   for m in clashes)
                result[k] = dataclasses.replace(
                    verdicts[k], flags=verdicts[k].flags + ("inconsistent",),
                    reason=verdicts[k].reason + f"; printed differently elsewhere: {others}",
                    reasons=verdicts[k].reasons + (Reason.of("inconsistent", others=others),))
    return result
