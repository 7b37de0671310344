"""The records of a check: a ``Verdict`` per printed number, a ``Report`` per spec.

>>> from symattn.values.rounding import Rounding
>>> Report("empty", None, Rounding.HALF_UP, ()).counts
{'ok': 0, 'propagated': 0, 'wrong': 0, 'undecided': 0}
"""

from __future__ import annotations

__all__ = ["VERDICTS", "SUSPICIOUS", "FLAGS", "Verdict", "Report", "Reason", "Named", "reason_text",
           "message_key", "Failed", "SLIP_ARGS", "SLIP_REASONS"]

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Mapping

from symattn import messages
from symattn.errors import ArgumentError, Location
from symattn.problem.problem import prose_for
from symattn.values.exact import Exact, exact_text
from symattn.values.rounding import Rounding
from symattn.verify.claims import Claim, Target

_POSITION = re.compile(r"[^\[]*\[(?P<row>[0-9]+)(?:,(?P<column>[0-9]+))?\]")
VERDICTS = ("ok", "propagated", "wrong", "undecided")
# Given by ``check DOC`` (extract.checking), never by the checker: a number the checker
# finds wrong on a place not certain (found by its value alone). Not counted as wrong.
SUSPICIOUS = "suspicious"
_PROBLEM_FLAGS = frozenset({"inconsistent", "carried_wrong"})
FLAGS = ("tie", "near-tie", "inconsistent", "approximate", "carried_wrong", "input_rounding",
         "framework_precision")


@dataclass(frozen=True)
class Named:
    """A printed number a reason names: what it is (``target``, ``position`` as in
    reports, e.g. ``weights[3,1]``) and how it was printed ("" when not printed)."""

    target: Target
    position: str
    printed: str = ""


@dataclass(frozen=True)
class Reason:
    """One clause of a verdict's reason, as data: the message ``reason.<key>`` of the
    catalogs (the message ``key`` itself when it has a dot: ``sizes.reason.exactly``)
    with its placeholders. Numbers in ``args`` are plain decimals with a
    point ("0.394", "39.4%"), rule names as ``Rounding`` values ("half-up"); the
    numbers a clause names are ``entries`` (its ``{{entries}}``)."""

    key: str
    args: tuple[tuple[str, str], ...] = ()
    entries: tuple[Named, ...] = ()

    @staticmethod
    def of(key: str, entries: tuple[Named, ...] = (), **args: str) -> Reason:
        return Reason(key, tuple(args.items()), entries)


def message_key(reason: Reason) -> str:
    """The catalog message of a reason.

    >>> message_key(Reason("wrong")), message_key(Reason("sizes.reason.exactly"))
    ('reason.wrong', 'sizes.reason.exactly')
    """
    return reason.key if "." in reason.key else f"reason.{reason.key}"


# Placeholders of the [reason] messages that hold numbers (the renderers format them).
NUMBER_ARGS = ("exact", "rounded", "other", "shown", "recomputed", "printed", "others")
# Placeholders that hold a rounding rule's name (the [rounding] messages).
RULE_ARGS = ("rule", "other_rule")
# Placeholders that hold a slip's id (verify.slips), written as its name or explanation.
SLIP_ARGS = {"slip": "name", "slip_explain": "explain"}
# The reasons that name a slip (verify.hints.slip_reason).
SLIP_REASONS = ("slip.match", "slip.match_entries")


def reason_text(reasons: tuple[Reason, ...]) -> str:
    """The reasons in plain English, as the JSON and text reports have always shown them:
    entries by their positions (``weights[3,1] = 0.35``), clauses joined by "; ".

    >>> reason_text((Reason.of("wrong", rounded="0.35", exact="0.3478"),
    ...              Reason.of("off_by_one")))
    'should be 0.35 (exact 0.3478); off by one in the last digit'
    """
    catalog = messages.load("en")
    parts = []
    for reason in reasons:
        values = dict(reason.args)      # rule names stay as the options spell them
        for name, part in SLIP_ARGS.items():
            if name in values:
                values[name] = catalog.text(f"slip.{values[name]}.{part}")
        if reason.entries:
            values["entries"] = ", ".join(
                named.position + (f" = {named.printed}" if named.printed else "")
                for named in reason.entries)
        # ``catalog.fill`` (a value not text fails in the join), pieces found once a message
        texts, order = catalog.pieces(message_key(reason), tuple(values))
        parts.append(_plain(messages.interleaved(texts, [values[name] for name in order])))
    return "; ".join(parts)


def _plain(text: str) -> str:
    """A [reason] message without its little LaTeX: the ASCII the reports have used."""
    if "$" not in text and "~" not in text:
        return text
    text = text.replace("$-\\infty$", "-inf").replace("$1/\\sqrt{d_k}$", "1/sqrt(d_k)")
    for latex, ascii_text in _PLAIN_MATH:
        text = latex.sub(ascii_text, text)
    return re.sub(r"[$~]", lambda m: "" if m.group() == "$" else " ", text)


# The little math of the [slip] messages, as ASCII (\sqrt{d_k} -> sqrt(d_k), A^{\top} -> A^T).
_PLAIN_MATH = ((re.compile(r"_\{\\mathrm\{(\w+)\}\}"), r"_\1"),
               (re.compile(r"\\sqrt\{([^}]*)\}"), r"sqrt(\1)"),
               (re.compile(r"\^\{\\top\}"), "^T"),
               (re.compile(r"\\(ln|log)\b"), r"\1"),
               (re.compile(r"\\log_2"), "log2"))


@dataclass(frozen=True)
class Verdict:
    """The judgement on one printed number: its texts, and its reason as data
    (``reasons``) and in English (``reason``). ``exact``, the exact closed form, is
    written from ``value`` when first read: a check of thousands of numbers writes
    only the closed forms a report shows (the JSON report leaves out long ones)."""

    claim: Claim
    position: str                 # 1-based, e.g. "weights[3,1]"
    printed: str
    value: Exact | str = field(compare=False, repr=False)   # the exact value (or its text)
    exact_decimal: str            # exact value with a few more places than printed
    exact_rounded: str            # exact value rounded as the document should print it
    recomputed: str | None        # from the document's own numbers, same places
    verdict: str                  # ok | propagated | wrong | undecided (| suspicious)
    flags: tuple[str, ...]
    reason: str                   # in English (``reason_text`` of ``reasons``)
    carried_from: tuple[str, ...] = ()
    reasons: tuple[Reason, ...] = ()   # the reason as data, for rendering in any language
    # The printed numbers it was carried from that are themselves wrong ("weights[2,1] = 0.37").
    carried_wrong: tuple[str, ...] = ()
    # The printed numbers a propagated verdict was carried from (the claims themselves).
    used: tuple[Claim, ...] = field(default=(), compare=False, repr=False)

    @cached_property
    def exact(self) -> str:
        """The exact closed form (``values.exact.exact_text`` of ``value``)."""
        return self.value if isinstance(self.value, str) else exact_text(self.value)

    def __getstate__(self) -> dict[str, object]:
        """Pickled (``check --jobs``) with the closed form written: an exact value may
        keep functions that write its parts, which do not pickle."""
        return {**self.__dict__, "value": self.exact}

    @property
    def step(self) -> str:
        return self.claim.target.step

    @property
    def row_column(self) -> tuple[int | None, int | None]:
        """The 1-based row and column of ``position`` (``weights[3,1]`` -> (3, 1);
        ``exp_sum[2]`` -> (2, None); the divisor -> (None, None))."""
        match = _POSITION.match(self.position)
        if match is None:
            return None, None
        column = match.group("column")
        return int(match.group("row")), int(column) if column else None

    def __repr__(self) -> str:
        label = f" @{self.label}" if self.label else ""
        return f"<Verdict {self.position}{label} printed {self.printed}: {self.verdict}>"

    @property
    def label(self) -> str:
        return self.claim.label

    @property
    def slips(self) -> tuple[str, ...]:
        """The ids of the slips (``verify.slips``) that give this wrong number, in the
        catalogue's order; () for a number no slip gives, and for every right number."""
        return tuple(dict(reason.args)["slip"] for reason in self.reasons
                     if reason.key in SLIP_REASONS)

    @property
    def is_problem(self) -> bool:
        """What an author has to look at (``check --show problems``): a number not right,
        or right but printed differently elsewhere or carried from a wrong number."""
        return self.verdict != "ok" or bool(_PROBLEM_FLAGS & set(self.flags))


@dataclass(frozen=True)
class Report:
    """All verdicts of one spec, in the order the claims were written."""

    title: str
    source: str | None
    rounding: Rounding
    verdicts: tuple[Verdict, ...]
    language: str = ""            # the spec's language (messages.LANGUAGES), "" if unset
    variant: str = ""             # the [[variants]] block judged, "" for the spec itself
    # the 1-based spec line of each claim key (``Problem.claim_lines``); {} when unknown
    lines: Mapping[str, int] = field(default_factory=dict, compare=False, repr=False)
    # how many exponentials each verdict's exact closed form writes out (in the order of
    # ``verdicts``; () when not counted): ``to_records(max_terms)`` leaves the long ones out
    exact_terms: tuple[int, ...] = field(default=(), compare=False, repr=False)
    # the title by language ("" for a title of no known language; Problem.prose)
    titles: Mapping[str, str] | None = field(default=None, compare=False, repr=False)
    # each claim label by language ([labels], Problem.labels): a page in another language
    # than the spec's shows the label's text in its own (render.printings.labels_in)
    labels: Mapping[str, Mapping[str, str]] = field(default_factory=dict, compare=False,
                                                    repr=False)
    # the spec's language when symattn has no catalog for it ("pt"): the report says so
    written_language: str = field(default="", compare=False, repr=False)

    def title_in(self, language: str) -> str:
        """The title a report in ``language`` shows ("" when the spec has none in it)."""
        if self.titles is None:
            return self.title
        return prose_for(self.titles, language)

    @property
    def counts(self) -> dict[str, int]:
        counts = {name: 0 for name in VERDICTS}
        for verdict in self.verdicts:   # a document check's "suspicious" when it has one
            counts[verdict.verdict] = counts.get(verdict.verdict, 0) + 1
        return counts

    @property
    def has_wrong(self) -> bool:
        return any(v.verdict == "wrong" for v in self.verdicts)

    def __repr__(self) -> str:
        counts = ", ".join(f"{n} {name}" for name, n in self.counts.items())
        title = f" {self.title!r}" if self.title else ""
        return f"<{type(self).__name__}{title}: {len(self.verdicts)} claims, {counts}>"

    def to_records(self, max_terms: int | None = None) -> list[dict[str, object]]:
        """One plain dict per claim (the fields of the JSON report's claims; ``row`` and
        ``column`` 1-based, None where the claim has none). With ``max_terms``, ``exact``
        is None where the closed form writes more exponentials (it is not even made)."""
        return [verdict_record(v, self.lines, not self.writes_exact(k, max_terms))
                for k, v in enumerate(self.verdicts)]

    def writes_exact(self, index: int, max_terms: int | None) -> bool:
        """Whether verdict ``index``'s closed form has at most ``max_terms`` exponentials
        (None: any number)."""
        terms = self.exact_terms
        return max_terms is None or index >= len(terms) or terms[index] <= max_terms

    def exact_omitted(self, max_terms: int | None) -> int:
        """How many closed forms ``to_records(max_terms)`` leaves out."""
        return 0 if max_terms is None else sum(t > max_terms for t in self.exact_terms)

    def to_frame(self) -> Any:
        """``to_records()`` as a pandas DataFrame, one row per claim (needs pandas:
        ``pip install 'symattn[frame]'``)."""
        try:
            import pandas  # type: ignore[import-untyped, unused-ignore]
        except ImportError:
            raise ArgumentError("Report.to_frame needs pandas: pip install 'symattn[frame]'",
                                Location(key="Report.to_frame")) from None
        return pandas.DataFrame.from_records(self.to_records(), columns=list(RECORD_FIELDS))


RECORD_FIELDS = ("step", "position", "row", "column", "line", "label", "printed", "exact",
                 "exact_decimal", "exact_rounded", "recomputed", "verdict", "flags", "reason",
                 "carried_from", "carried_wrong")


def verdict_record(v: Verdict, lines: Mapping[str, int], omit_exact: bool = False
                   ) -> dict[str, object]:
    """A verdict as plain data: the claim fields of the JSON report (``lines``: the spec
    line of each claim key, ``Report.lines``; ``omit_exact``: ``exact`` is None)."""
    row, column = v.row_column
    return {"step": v.step, "position": v.position, "row": row, "column": column,
            "line": lines.get(v.claim.key), "label": v.label, "printed": v.printed,
            "exact": None if omit_exact else v.exact,
            "exact_decimal": v.exact_decimal, "exact_rounded": v.exact_rounded,
            "recomputed": v.recomputed, "verdict": v.verdict, "flags": list(v.flags),
            "reason": v.reason, "carried_from": list(v.carried_from),
            "carried_wrong": list(v.carried_wrong), **_slip_field(v)}


def _slip_field(v: Verdict) -> dict[str, object]:
    """``slip`` of a claim's record: the id of the slip that gives the wrong number, a list
    when several give it; no field when none does."""
    slips = v.slips
    if not slips:
        return {}
    return {"slip": slips[0] if len(slips) == 1 else list(slips)}

@dataclass(frozen=True)
class Failed:
    """A spec that gave no report: its name, the one-line error and the exit status it
    stands for (2 unusable input, 3 a bug in symattn)."""

    source: str
    error: str
    status: int = 2
