"""Worksheets with answer keys: build a class set, render it, grade against it.

``build`` makes one ``Worksheet`` per variant (student): the same exercise
kinds in the same order, different numbers, all drawn from ``seed`` (or taken
from a spec's problem). A sheet gives its LaTeX (``sheet_latex``,
``key_latex``), its answers as data (``answers``: exercise, blank, exact
value, the printed answer, the tolerance) and specs whose claims are those
printed answers (``answer_specs``), which ``checker`` judges: every answer of a
key must be ``ok``, or the key is not written.

>>> sheets = build(seed=7, variants=2, language="cs", kinds=("softmax_table", "sizes"))
>>> [len(sheet.exercises) for sheet in sheets]
[2, 2]
>>> answers = sheets[0].answers()
>>> answers[0]["exercise"], answers[0]["blank"], answers[0]["expected"], answers[0]["tolerance"]
('1', 'e1', '7,389', '0.0005')
>>> all(verdict.verdict == "ok" for report in sheets[0].verify() for verdict in report.verdicts)
True
>>> build(seed=7, language="de")
Traceback (most recent call last):
...
symattn.errors.InputError: unknown language 'de'; known: en, pl, cs, ru, uk
"""

from __future__ import annotations

__all__ = ["Worksheet", "build", "answers_document", "check_answers", "KINDS",
           "DEFAULT_KINDS", "LANGUAGES", "parse_kinds", "MAX_VARIANTS"]

import json
import random
from dataclasses import dataclass
from typing import Any, Sequence

from symattn.errors import (InputError, Location, PositionError, StepNotFoundError, cut,
                            did_you_mean)
from symattn.values.exact import NEG_INF, exact_text
from symattn.worksheets.model import Exercise, Setup
import symattn.worksheets.presets as presets
from symattn.worksheets.catalog import DEFAULT_KINDS, KINDS
from symattn.values.number_format import NumberFormat
from symattn.messages import LANGUAGES
from symattn.worksheets.numbers import from_problem, is_square, variant_random
from symattn.worksheets.words import load as load_words

MAX_VARIANTS = 500


@dataclass(frozen=True)
class Worksheet:
    """One student's sheet: its exercises, in its language."""

    seed: int
    variant: int                 # 1-based
    variants: int
    language: str
    places: int
    exercises: tuple[Exercise, ...]
    title: str = ""              # the spec's title, or "" for the catalog's
    preset: str = ""             # lesson45, homework, exam (worksheets.presets) or ""
    numbers: str = "standard"    # or "calculator-free"

    @property
    def code(self) -> str:
        """The neutral code the sheet shows (``B7``): a letter drawn from the seed and
        the variant number; only the key and the answers file say which seed it is."""
        return sheet_code(self.seed, self.variant)

    def answers(self) -> list[dict[str, Any]]:
        """Every blank: where, its exact value, the printed answer and the tolerance."""
        out = []
        for number, exercise in enumerate(self.exercises, 1):
            for blank in exercise.blanks:
                record: dict[str, Any] = {
                    "variant": self.variant, "exercise": str(number), "kind": exercise.kind,
                    "blank": blank.id, "label": blank.label, "type": blank.kind,
                    "expected": blank.expected(self.language),
                    "tolerance": blank.tolerance_text()}
                if blank.kind in ("number", "fraction"):
                    record["exact"] = exact_text(blank.value)
                    record["value"] = _decimal(blank.value)
                    record["places"] = blank.places
                elif blank.kind == "size":
                    record["exact"] = str(blank.value)
                    record["value"] = str(blank.value)
                    record["unit"] = blank.unit
                elif blank.kind == "design":
                    record["exact"] = [str(x) for x in blank.value]
                    record["check"] = exercise.facts["check"]
                else:
                    record["exact"] = blank.value
                    record["options"] = [{"mark": blank.mark(k, self.language), "id": option}
                                         for k, option in enumerate(blank.options)]
                record["claim"] = blank.claim[1] if blank.claim else None
                out.append(record)
        return out

    def answer_specs(self) -> list[tuple[str, dict[str, Any]]]:
        """(name, spec) per problem: the answers of the key as ``[claims]``."""
        specs = []
        for number, exercise in enumerate(self.exercises, 1):
            for index, problem in enumerate(exercise.problems):
                claims = {blank.claim[1]: blank.expected(self.language)
                          for blank in exercise.blanks
                          if blank.claim is not None and blank.claim[0] == index}
                if not claims:
                    continue
                title = f"worksheet variant {self.variant}, exercise {number} ({exercise.kind})"
                spec = {"title": title, **{k: v for k, v in problem.items() if k != "title"},
                        "claims": claims}
                suffix = f"-{index + 1}" if len(exercise.problems) > 1 else ""
                specs.append((f"exercise-{number}{suffix}", spec))
        return specs

    def verify(self) -> list[Any]:
        """``symattn check`` on every answer of the key: one report per answer spec."""
        from symattn import sizes
        from symattn.verify import checker
        from symattn.derivation.pipeline import derive
        from symattn.problem.problem import Problem

        reports = []
        for name, spec in self.answer_specs():
            if sizes.is_sizes_spec(spec):
                reports.append(sizes.check_spec(spec, name))
            else:
                reports.append(checker.check(derive(Problem.from_mapping(spec, source=name))))
        return reports


CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ"       # no I or O (they read as 1 and 0)


def sheet_code(seed: int, variant: int) -> str:
    """``B7``: a letter that depends on the seed (not the seed itself) and the variant.

    >>> sheet_code(7, 1) == sheet_code(7, 1), sheet_code(7, 12)[1:]
    (True, '12')
    """
    import hashlib

    digest = hashlib.sha256(f"symattn-worksheet-code/{seed}".encode()).digest()
    return f"{CODE_LETTERS[digest[0] % len(CODE_LETTERS)]}{variant}"


def _decimal(value: Any) -> str:
    if value is NEG_INF:
        return "-inf"
    text = NumberFormat(digits=20).format(value)
    return text if text is not None else ""


def check_answers(sheet: Worksheet) -> int:
    """Refuse a key with an answer the checker does not confirm (a bug in symattn);
    return how many answers the checker judged (all ok)."""
    claimed = sum(1 for e in sheet.exercises for b in e.blanks if b.claim is not None)
    verdicts = [v for report in sheet.verify() for v in report.verdicts]
    bad = [f"{v.position} = {v.printed}: {v.verdict} ({v.reason})" for v in verdicts
           if v.verdict != "ok"]
    if bad or len(verdicts) != claimed:
        raise AssertionError(f"variant {sheet.variant}: the answer key has numbers the checker "
                             f"does not confirm: {'; '.join(bad) or 'answers not checked'}")
    return len(verdicts)


def parse_kinds(text: str | Sequence[str] | None) -> tuple[str, ...]:
    """Exercise kinds: ``all``, a comma list, or None for the default sheet.

    >>> parse_kinds("softmax_table, sizes"), len(parse_kinds("all")) == len(KINDS)
    (('softmax_table', 'sizes'), True)
    """
    if text is None:
        return DEFAULT_KINDS
    parts = [p.strip() for p in text.split(",")] if isinstance(text, str) else list(text)
    if parts == ["all"]:
        return tuple(KINDS)
    if "all" in parts:
        raise InputError(f"'all' stands alone (every kind once), got {cut(','.join(parts))!r}; "
                         "write all, or a list of kinds")
    for part in parts:
        if part not in KINDS:
            raise InputError(f"unknown exercise kind {cut(part)!r}{did_you_mean(part, KINDS)} "
                             f"(known: {', '.join(KINDS)}, or all)")
    if not parts:
        raise InputError("no exercise kinds given")
    return tuple(parts)


def build(seed: int = 1, variants: int = 1, language: str = "en",
          kinds: Sequence[str] | None = None, places: int = 3, d_k: int = 4,
          problem: Any = None, mistakes: Sequence[str] = (),
          sizes_spec: Any = None, preset: str | None = None,
          numbers: str = "standard") -> list[Worksheet]:
    """``variants`` sheets of the exercise ``kinds``, drawn from ``seed``.

    With a ``problem`` (a spec's ``Problem``), the exercises on Q, K and V
    (scores_row, weights_row, output_row, fill_matrix, and find_error when there
    are as many queries as keys, at most 4) use its matrices; variants then
    differ in the rows, cells and mistakes chosen. With a ``sizes_spec`` (the
    mapping of a ``[sizes]`` spec), the sizes exercise uses its d_model, heads,
    seq_len, layers and dtype. A ``preset`` (``lesson45``, ``homework``, ``exam``)
    chooses the kinds (unless ``kinds`` is given) and their length; ``numbers``
    ``"calculator-free"`` makes every answer exact and short (whole, a fraction, 0.5)
    (``worksheets.presets``).
    """
    from symattn.worksheets.mistakes import MISTAKES

    if language not in LANGUAGES:
        raise InputError(f"unknown language {language!r}; known: {', '.join(LANGUAGES)}")
    if not isinstance(seed, int) or seed < 0:
        raise InputError(f"the seed must be a whole number >= 0, got {seed!r}")
    if not 1 <= variants <= MAX_VARIANTS:
        raise InputError(f"variants must be between 1 and {MAX_VARIANTS}, got {variants}")
    if not 1 <= places <= 6:
        raise InputError(f"places must be between 1 and 6, got {places}")
    if not 1 <= d_k <= 16:
        raise InputError(f"d_k must be between 1 and 16, got {d_k}")
    for mistake in mistakes:
        if mistake not in MISTAKES:
            raise InputError(f"unknown mistake {mistake!r} (known: {', '.join(MISTAKES)})")
    if numbers == "calculator-free" and not is_square(d_k):
        raise InputError(f"calculator-free numbers need d_k a perfect square (1, 4, 9, 16), "
                         f"got {d_k}")
    plan = presets.resolve(preset, None if kinds is None else parse_kinds(kinds), mistakes,
                           numbers)
    base = from_problem(problem) if problem is not None else None
    setup = Setup(places=places, d_k=d_k, words=load_words(language),
                  base=base, mistakes=plan.mistakes, shape=_shape(sizes_spec),
                  compact=plan.compact, numbers=numbers)
    title = problem.prose_in("title", language) if problem is not None else ""
    sheets = []
    for variant in range(1, variants + 1):
        exercises = tuple(_exercise(kind, numbers, variant_random(seed, variant, slot, kind),
                                    setup, problem)
                          for slot, kind in enumerate(plan.kinds, 1))
        sheets.append(Worksheet(seed, variant, variants, language, places, exercises, title,
                                preset or "", numbers))
    return sheets


def _exercise(kind: str, numbers: str, rng: random.Random, setup: Setup,
              problem: Any) -> Exercise:
    """One exercise; from a spec's matrices, one line saying why this spec cannot make
    it (one query, one key, a number with no finite decimal) rather than a crash."""
    if problem is None:
        return presets.builder(kind, numbers)(rng, setup)
    try:
        return presets.builder(kind, numbers)(rng, setup)
    except InputError as error:
        # A step or entry the exercise looks up and this spec has not (one token: no
        # masked scores) is the spec's limit; any other input error is the spec's own.
        if not isinstance(error, (StepNotFoundError, PositionError)):
            raise
        raise _cannot(kind, problem, error) from None
    except (LookupError, ArithmeticError, ValueError) as error:
        raise _cannot(kind, problem, error) from None


def _cannot(kind: str, problem: Any, error: Exception) -> InputError:
    """The one line that says why this spec cannot make exercise ``kind``."""
    return InputError(f"this spec cannot make the exercise {kind}: {_why(problem, error)}; "
                      "leave it out with -x (--exercises)",
                      Location(file=getattr(problem, "source", None)))


def _why(problem: Any, error: Exception) -> str:
    """What about a spec stops an exercise, in words."""
    queries, keys = problem.score_shape()
    if queries == 1:
        return "it has one query (token); the exercise needs at least two"
    if keys == 1:
        return "it has one key; the exercise needs at least two"
    if "no finite decimal" in str(error):
        return ("a number in it has no finite decimal expansion (such as 1/3), and the "
                "exercise asks for the decimals")
    return f"its matrices do not fit the exercise ({type(error).__name__}: {cut(str(error))})"


def _shape(mapping: Any) -> dict[str, Any] | None:
    """The fields of a size spec's (first) shape that the sizes exercise asks about."""
    if mapping is None:
        return None
    from symattn.sizes import shapes_of_spec

    shape = next(iter(shapes_of_spec(mapping).values()))
    return {"d_model": shape.d_model, "heads": shape.heads, "seq_len": shape.seq_len,
            "layers": shape.layers, "dtype": shape.dtype}


def answers_document(sheets: Sequence[Worksheet]) -> str:
    """The answers of a class set as JSON (stable; docs/worksheets.md)."""
    from symattn._version import SCHEMA_VERSION, __version__

    first = sheets[0]
    variants = []
    for sheet in sheets:
        answers = sheet.answers()
        for answer in answers:
            del answer["variant"]
        variants.append({"variant": sheet.variant, "code": sheet.code, "answers": answers})
    document = {"symattn": __version__, "schema_version": SCHEMA_VERSION, "seed": first.seed,
                "language": first.language, "places": first.places, "preset": first.preset or None,
                "numbers": first.numbers,
                "exercises": [{"exercise": str(k), "kind": e.kind}
                              for k, e in enumerate(first.exercises, 1)],
                "variants": variants}
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
