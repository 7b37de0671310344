"""The records of a check: a ``Verdict`` per printed number, a ``Report`` per spec.

>>> from symattn.values.rounding import Rounding
>>> Report("empty", None, Rounding.HALF_UP, ()).counts
{'ok': 0, 'propagated': 0, 'wrong': 0, 'undecided': 0}
"""

from __future__ import annotations

__all__ = ["VERDICTS", "FLAGS", "Verdict", "Report", "Reason", "Named", "reason_text",
           "reason_writer", "message_key", "Failed"]

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Union

from symattn import messages
from symattn.errors import ArgumentError, Location
from symattn.values.rounding import Rounding
from symattn.verify.claims import Claim, Target

_POSITION = re.compile(r"[^\[]*\[(?P<row>[0-9]+)(?:,(?P<column>[0-9]+))?\]")
VERDICTS = ("ok", "propagated", "wrong", "undecided")
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
        if reason.entries:
            values["entries"] = ", ".join(
                named.position + (f" = {named.printed}" if named.printed else "")
                for named in reason.entries)
        # ``catalog.fill`` (a value not text fails in the join), pieces found once a message
        texts, order = catalog.pieces(message_key(reason), tuple(values))
        parts.append(_plain(messages.interleaved(texts, [values[name] for name in order])))
    return "; ".join(parts)


def reason_writer(key: str, *names: str) -> Callable[..., str]:
    """``reason_text`` of one reason ``key`` without entries, as a function of its
    placeholders' values in the order of ``names``: the message looked up once for a
    clause written thousands of times.

    >>> reason_writer("wrong", "rounded", "exact")("0.35", "0.3478")
    'should be 0.35 (exact 0.3478)'
    """
    texts, order = messages.load("en").pieces(message_key(Reason(key)), names)
    places = [names.index(name) for name in order]

    def write(*values: str) -> str:
        return _plain(messages.interleaved(texts, [values[k] for k in places]))
    return write


def _plain(text: str) -> str:
    """A [reason] message without its little LaTeX: the ASCII the reports have used."""
    if "$" not in text and "~" not in text:
        return text
    text = text.replace("$-\\infty$", "-inf").replace("$1/\\sqrt{d_k}$", "1/sqrt(d_k)")
    return re.sub(r"[$~]", lambda m: "" if m.group() == "$" else " ", text)


# A text field given as its text or as the function that writes it when first read.
TextOrLater = Union[str, Callable[[], str]]


class _Deferred:
    """A text field of a frozen dataclass that may be given as a function of no
    arguments: the text is written when the field is first read (and kept). A check of
    thousands of numbers writes closed forms and English reasons only for the reports
    that show them (JSON shows them all, the text tables none of the closed forms)."""

    def __set_name__(self, owner: type, name: str) -> None:
        self._slot = "_" + name

    def __get__(self, instance: object, owner: type | None = None) -> str:
        if instance is None:      # a dataclass asking for a default: there is none
            raise AttributeError(self._slot[1:])
        value: TextOrLater = instance.__dict__[self._slot]
        if not isinstance(value, str):
            value = value()
            instance.__dict__[self._slot] = value
        return value

    def __set__(self, instance: object, value: TextOrLater) -> None:
        instance.__dict__[self._slot] = value


@dataclass(frozen=True)
class Verdict:
    """The judgement on one printed number (all fields are plain text; ``later`` makes
    one whose ``exact`` and ``reason`` are written when first read)."""

    claim: Claim
    position: str                 # 1-based, e.g. "weights[3,1]"
    printed: str
    if TYPE_CHECKING:             # text to every reader (``later`` gives functions)
        exact: str
    else:
        exact: _Deferred = _Deferred()      # exact closed form
    exact_decimal: str            # exact value with a few more places than printed
    exact_rounded: str            # exact value rounded as the document should print it
    recomputed: str | None        # from the document's own numbers, same places
    verdict: str                  # ok | propagated | wrong | undecided
    flags: tuple[str, ...]
    if TYPE_CHECKING:
        reason: str
    else:
        reason: _Deferred = _Deferred()     # in English (``reason_text`` of ``reasons``)
    carried_from: tuple[str, ...] = ()
    reasons: tuple[Reason, ...] = ()   # the reason as data, for rendering in any language
    # The printed numbers it was carried from that are themselves wrong ("weights[2,1] = 0.37").
    carried_wrong: tuple[str, ...] = ()
    # The printed numbers a propagated verdict was carried from (the claims themselves).
    used: tuple[Claim, ...] = field(default=(), compare=False, repr=False)

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

    @classmethod
    def later(cls, exact: TextOrLater, reason: TextOrLater, **fields: Any) -> Verdict:
        """A verdict whose ``exact`` and ``reason`` may be functions writing them, called
        when the field is first read (``fields``: the other fields, by name)."""
        if not _REQUIRED <= fields.keys():
            missing = _REQUIRED - fields.keys()
            raise TypeError(f"Verdict.later needs {', '.join(sorted(missing))}")
        verdict = object.__new__(cls)   # frozen: its fields set at once (``printed.made``)
        state = verdict.__dict__
        state.update(_DEFAULTS)         # the defaults, then the fields given
        state.update(fields)
        state["_exact"], state["_reason"] = exact, reason
        return verdict

    def __getstate__(self) -> dict[str, object]:
        """Pickled (``check --jobs``) with its texts written."""
        return {"_exact": self.exact, "_reason": self.reason,
                **{k: v for k, v in self.__dict__.items() if k not in ("_exact", "_reason")}}

    def __repr__(self) -> str:
        label = f" @{self.label}" if self.label else ""
        return f"<Verdict {self.position}{label} printed {self.printed}: {self.verdict}>"

    @property
    def label(self) -> str:
        return self.claim.label


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

    @property
    def counts(self) -> dict[str, int]:
        counts = {name: 0 for name in VERDICTS}
        for verdict in self.verdicts:
            counts[verdict.verdict] += 1
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


# The fields ``Verdict.later`` needs, and the defaults of the others.
_REQUIRED = frozenset({"claim", "position", "printed", "exact_decimal", "exact_rounded",
                       "recomputed", "verdict", "flags"})
_DEFAULTS: dict[str, object] = {"carried_from": (), "reasons": (), "carried_wrong": (),
                                "used": ()}

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
            "carried_wrong": list(v.carried_wrong)}

@dataclass(frozen=True)
class Failed:
    """A spec that gave no report: its name, the one-line error and the exit status it
    stands for (2 unusable input, 3 a bug in symattn)."""

    source: str
    error: str
    status: int = 2
