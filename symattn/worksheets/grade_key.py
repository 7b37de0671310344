"""The key ``symattn grade`` grades against: a worksheet's answers JSON, its sheets rebuilt.

The answers file (``NAME-answers.json``, docs/worksheets.md) holds every blank
of every variant. A blank is named ``EXERCISE.BLANK`` (``1.e1``, ``3.a2``): the
answers file's ``exercise`` and ``blank``, as they are. To name the slip behind
a wrong answer, the sheets are rebuilt from the file's seed, preset, language,
places, numbers and exercises (``sheet.build``, which draws the same numbers
for the same seed) and every blank of the rebuilt sheets must equal the file's
(its exact value and its printed answer): then each blank's exact value and
the derivation its claim is on are the engine's own. A file the rebuild does not
reproduce (sheets made from a spec, or another ``--d-k``) is still graded, from
its exact values written to twenty digits, without slips (``Key.rebuilt`` False).

>>> from symattn.worksheets.sheet import answers_document, build
>>> key = read_key(answers_document(build(seed=7, kinds=("softmax_table",))), "k.json")
>>> key.rebuilt, [blank.id for blank in key.variants[0].blanks][:3]
(True, ['1.e1', '1.a1', '1.e2'])
>>> key.variants[0].blank("1.a1").target.describe(1)
'weights[1,1]'
"""

from __future__ import annotations

__all__ = ["Key", "KeyVariant", "KeyBlank", "read_key"]

import json
from dataclasses import dataclass, field
from typing import Any, Mapping

from flint import fmpq

from symattn.derivation.steps import Derivation
from symattn.errors import InputError, Location
from symattn.values.exact import exact_text
from symattn.verify.claims import Target, read_claims


@dataclass(frozen=True)
class KeyBlank:
    """One blank of one variant: its record in the answers file, its exact value, and
    (rebuilt) the derivation and entry its claim is on."""

    id: str                       # "1.e1"
    record: Mapping[str, Any]
    value: Any                    # exact: fmpq, an irrational, NEG_INF; or the option id
    derivation: Derivation | None = None
    target: Target | None = None

    @property
    def kind(self) -> str:
        return str(self.record.get("type", "number"))

    @property
    def places(self) -> int | None:
        places = self.record.get("places")
        return places if isinstance(places, int) else None


@dataclass(frozen=True)
class KeyVariant:
    variant: int
    code: str
    blanks: tuple[KeyBlank, ...]
    _by_id: dict[str, KeyBlank] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_id.update({blank.id: blank for blank in self.blanks})

    def blank(self, blank_id: str) -> KeyBlank | None:
        return self._by_id.get(blank_id)

    def ids(self) -> tuple[str, ...]:
        return tuple(blank.id for blank in self.blanks)


@dataclass(frozen=True)
class Key:
    source: str
    language: str
    places: int | None
    variants: tuple[KeyVariant, ...]
    rebuilt: bool

    def variant(self, number: int) -> KeyVariant | None:
        return next((v for v in self.variants if v.variant == number), None)

    def by_code(self, code: str) -> KeyVariant | None:
        wanted = code.strip().casefold()
        return next((v for v in self.variants if v.code.casefold() == wanted), None)

    def blank_ids(self) -> tuple[str, ...]:
        """Every variant's blank ids, in order (variants may differ: the cells a
        fill-in exercise leaves out)."""
        return tuple(dict.fromkeys(blank.id for variant in self.variants
                                   for blank in variant.blanks))

    def resolve(self, column: str) -> str | None:
        """A column name as a blank id: ``1.e1`` as it is, or a bare ``e1`` that only one
        exercise has."""
        text = column.strip()
        ids = self.blank_ids()
        if text in ids:
            return text
        found = [blank_id for blank_id in ids if blank_id.split(".", 1)[1] == text]
        return found[0] if len(found) == 1 else None


def read_key(text: str, source: str) -> Key:
    """The key of an answers file's text (``source`` names it in errors)."""
    where = Location(file=source)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(f"not JSON: {error.msg}", where.at(key=f"line {error.lineno}")) from None
    if not isinstance(document, dict) or not isinstance(document.get("variants"), list) \
            or not document["variants"]:
        raise InputError("not a worksheet answers file (no \"variants\"; see "
                         "docs/worksheets.md)", where)
    language = document.get("language") if document.get("language") in \
        ("en", "pl", "cs", "ru", "uk") else "en"
    records = [_variant_records(variant, where) for variant in document["variants"]]
    sheets = _rebuilt(document, records)
    variants = tuple(_variant(number, code, answers, sheets[k] if sheets else None)
                     for k, (number, code, answers) in enumerate(records))
    places = document.get("places") if isinstance(document.get("places"), int) else None
    return Key(source, str(language), places, variants, sheets is not None)


def _variant_records(variant: Any, where: Location
                     ) -> tuple[int, str, list[Mapping[str, Any]]]:
    if not isinstance(variant, dict) or not isinstance(variant.get("answers"), list) or \
            not isinstance(variant.get("variant"), int):
        raise InputError("a variant without \"variant\" and \"answers\"", where)
    answers = variant["answers"]
    for answer in answers:
        if not isinstance(answer, dict) or "exercise" not in answer or "blank" not in answer:
            raise InputError(f"variant {variant['variant']}: an answer without \"exercise\" "
                             "and \"blank\"", where)
    return variant["variant"], str(variant.get("code", "")), answers


def _blank_id(record: Mapping[str, Any]) -> str:
    return f"{record['exercise']}.{record['blank']}"


def _rebuilt(document: Mapping[str, Any], records: list[tuple[int, str, list[Any]]]
             ) -> list[Any] | None:
    """The sheets the file was written from, when a rebuild reproduces every blank."""
    from symattn.worksheets.sheet import build

    kinds = [str(e.get("kind")) for e in document.get("exercises", []) if isinstance(e, dict)]
    preset = document.get("preset") or None
    try:
        sheets = build(seed=int(document["seed"]), variants=len(records),
                       language=str(document.get("language", "en")),
                       kinds=None if preset else kinds, places=int(document["places"]),
                       preset=preset, numbers=str(document.get("numbers", "standard")))
    except (InputError, KeyError, TypeError, ValueError):
        return None
    for sheet, (number, _, answers) in zip(sheets, records):
        again = sheet.answers()
        if sheet.variant != number or len(again) != len(answers) or any(
                (a["exercise"], a["blank"], a["expected"], a.get("exact")) !=
                (b.get("exercise"), b.get("blank"), b.get("expected"), b.get("exact"))
                for a, b in zip(again, answers)):
            return None
    return sheets


def _variant(number: int, code: str, answers: list[Mapping[str, Any]], sheet: Any
             ) -> KeyVariant:
    if sheet is None:
        return KeyVariant(number, code, tuple(KeyBlank(_blank_id(r), r, _written_value(r))
                                              for r in answers))
    from symattn.worksheets.answers import derive_spec

    blanks = []
    records = iter(answers)
    for exercise in sheet.exercises:
        derivations: dict[int, Derivation] = {}
        for blank in exercise.blanks:
            record = next(records)
            derivation = target = None
            if blank.claim is not None and blank.kind == "number":
                index, claim = blank.claim
                if index not in derivations:
                    derivations[index] = derive_spec(exercise.problems[index])
                derivation = derivations[index]
                target = _target(derivation, claim)
            blanks.append(KeyBlank(_blank_id(record), record, blank.value, derivation, target))
    return KeyVariant(number, code, tuple(blanks))


def _target(derivation: Derivation, claim: str) -> Target | None:
    shapes = {step.name: step.shape for step in derivation.steps}
    try:
        claims = read_claims({claim: "0"}, shapes, derivation.problem.query_positions)
    except InputError:
        return None
    return claims[0].target if claims else None


def _written_value(record: Mapping[str, Any]) -> Any:
    """A blank's value from the file alone: the option id of a choice, else the exact
    value when it is a plain rational, else its twenty written digits."""
    if record.get("type") in ("choice", "design"):
        return record.get("exact")
    from symattn.values.entries import parse_entry

    for text in (record.get("exact"), record.get("value")):
        if isinstance(text, str):
            try:
                value: Any = parse_entry(text).value
            except InputError:
                continue
            if isinstance(value, fmpq) or exact_text(value) == "-inf":
                return value
    return None
