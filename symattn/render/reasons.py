"""The checker's verdicts in words, in the reader's language.

A verdict's reason is data (``verify.verdicts.Reason``: a message key of the
catalogs' ``[reason]`` table and its numbers); here it becomes a sentence of
the catalog's language, its numbers written with the document's decimal mark
and every printed number it names called the way the page calls it ("the
weight of key 1 in row 2"), never by an internal position such as
``weights[2,1]``. ``NoteWriter`` writes LaTeX, Markdown or plain text.

>>> import symattn
>>> from symattn import messages
>>> from symattn.verify import checker
>>> derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
>>> report = checker.check(derivation)
>>> verdict = next(v for v in report.verdicts if v.verdict == "propagated")
>>> writer = NoteWriter(messages.load("en"), derivation, ".", mode="plain")
>>> writer.where(verdict)
'the weight of key 1 in row 2'
>>> print(writer.reason(verdict))  # doctest: +NORMALIZE_WHITESPACE
exact 0.355725… rounds to 0.36, but from the numbers the document printed
(the masked score of query 2 and key 1 = 0.14, the masked score of query 2 and key 2 = 0.74)
it comes out as 0.354344…, which rounds to 0.35
"""

from __future__ import annotations

__all__ = ["NoteWriter", "head_label"]

import re
from typing import Callable

from symattn.derivation.cosine import COSINE_STEP_INFO
from symattn.derivation.diagnostics import DIAGNOSTIC_STEP_INFO
from symattn.derivation.layer import LAYER_STEP_INFO
from symattn.derivation.names import split_name
from symattn.derivation.steps import STEP_INFO, Derivation
from symattn.messages import Catalog, interleaved
from symattn.render import latex, prose
from symattn.verify.claims import COLUMN_STEPS, Target
from symattn.verify.verdicts import (NUMBER_ARGS, RULE_ARGS, SLIP_ARGS, Named, Reason, Verdict,
                                     message_key)

_CLOSED_FORM = re.compile(r"(?:sqrt\(\d+\)|[0-9/+\-*(). ,^])+")
_ROW = re.compile(r"\[(\d+)")      # the page's row in a position text: weights[3,1] -> 3
# A number of a size: digits grouped by commas, and decimals ("67,108,864", "67.11").
_SIZE_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+")
ALL_STEP_INFO = {**STEP_INFO, **LAYER_STEP_INFO, **DIAGNOSTIC_STEP_INFO, **COSINE_STEP_INFO}
_MODES: dict[str, Callable[[str], str]] = {"latex": str, "markdown": prose.markdown,
                                          "plain": prose.plain}
# Steps named by a phrase of their own in [where] (the rest: "entry (i, j) of X").
_NAMED_STEPS = ("scores", "scaled", "masked", "exp", "exp_sum", "weights", "output")


def head_label(prefix: str, catalog: Catalog) -> str:
    """"head 2" for the prefix "head2." in the catalog's language.

    >>> from symattn import messages
    >>> head_label("head2.", messages.load("pl"))
    'głowica 2'
    """
    return catalog.fill("document.head", number=prefix.rstrip(".").removeprefix("head"))


_PLAIN_NUMBERS = frozenset(NUMBER_ARGS) - {"others"}   # "others" is a list in words
_TOKEN = re.compile("\x00([0-9]+)\x01")   # a placeholder kept by ``_message``


class NoteWriter:
    """Writes verdicts in one catalog's language and one output format.

    ``separator`` is the document's decimal mark; ``escape`` makes user text
    (labels) safe; ``convert`` turns the catalogs' LaTeX prose into the output
    format (``mode`` picks it: latex, markdown or plain).
    """

    def __init__(self, catalog: Catalog, derivation: Derivation | None, separator: str,
                 escape: Callable[[str], str] = latex.escape_text,
                 convert: Callable[[str], str] | None = None, mode: str = "latex") -> None:
        self.catalog = catalog
        self.derivation = derivation
        self.separator = separator
        self.escape = escape if mode != "plain" else str
        self.mode = mode
        self.convert: Callable[[str], str] = convert or _MODES[mode]
        # A message converted once per key and placeholder names: the same for every verdict.
        self._converted: dict[tuple[str, ...], str] = {}
        self._plans: dict[tuple[str, ...], tuple[tuple[str, ...], tuple[int, ...],
                                                  tuple[Callable[[str], str], ...]]] = {}
        # Numbers already written: a report shows most of them twice (column and reason).
        self._numbers: dict[str, str] = {}

    def _message(self, key: str, *names: str) -> str:
        """``convert(catalog.fill(key))`` with each placeholder kept as a token, cached."""
        cache_key = (key, *names)
        text = self._converted.get(cache_key)
        if text is None:
            protected = {name: f"\x00{k}\x01" for k, name in enumerate(names)}
            text = self._converted[cache_key] = self.convert(self.catalog.fill(key, **protected))
        return text

    # ------------------------------------------------------------------ numbers
    def number(self, text: str) -> str:
        """A number of a reason ("0.394", "39.4%", "-inf", "sqrt(2)/2") as the output shows it."""
        shown = self._numbers.get(text)
        if shown is None:
            shown = self._numbers[text] = self._number(text)
        return shown

    def _number(self, text: str) -> str:
        percent = text.endswith("%")
        body = text[:-1].rstrip() if percent else text
        more = body.endswith("...")
        body = body[:-3] if more else body
        if self.separator == "," and "," not in body:
            body = body.replace(".", ",")
        if self.mode == "plain":
            return body.replace("-inf", "−∞") + ("…" if more else "") + ("%" if percent else "")
        math = latex.printed_math(body)
        if math is None:
            if not _CLOSED_FORM.fullmatch(body):      # "32 MiB", "4096 x 1024": as text
                return self.escape(text)
            math = _closed_form_math(body)
        return "$" + math + (r"\ldots" if more else "") + (r"\,\%" if percent else "") + "$"

    def size(self, text: str) -> str:
        """A size as the size checker writes it ("67.108864 MB = 67,108,864 bytes",
        "1 x 32 x 1024") with the output's decimal mark, digit groups and symbols."""
        def digits(found: re.Match[str]) -> str:
            number = found.group()
            if self.separator != ",":
                return number
            group = "\\," if self.mode == "latex" else "\u00a0"
            return number.replace(",", "\x00").replace(".", ",").replace("\x00", group)

        local = _SIZE_NUMBER.sub(digits, text.replace("...", "\u2026"))
        local = re.sub(r"\bbytes?\b", "B", local).replace(" x ", " \u00d7 ")
        if self.mode == "plain":
            return local
        return self.escape(local.replace("\\,", "\x01")).replace("\x01", "\\,")

    def _numbers_in_text(self, text: str) -> str:
        """Text with numbers in it (other printings and their labels): numbers localised."""
        local = re.sub(r"(\d)\.(\d)", r"\1,\2", text) if self.separator == "," else text
        return self.escape(local)

    # ------------------------------------------------------------------ names
    def target(self, target: Target, position: str) -> str:
        """A printed number's target in words, as the page names it (in the output format);
        ``position`` is its position text (``weights[3,1]``), whose row is the page's."""
        return self.convert(self._target_latex(target, position))

    def _symbol(self, step: str) -> str:
        if self.derivation is not None and step in self.derivation:
            return self.derivation[step].symbol
        info = ALL_STEP_INFO.get(split_name(step)[1])
        return info.symbol if info is not None else latex.escape_text(step)

    def _target_latex(self, target: Target, position: str) -> str:
        c = self.catalog
        prefix, base = split_name(target.step)
        found = _ROW.search(position)
        row = found.group(1) if found else str(target.row + 1)
        column = str(target.column + 1)
        if target.part == "divisor":
            return c.text("where.divisor")
        if target.step == "scale":
            return c.text("docops.where_scale")
        symbol = self._symbol(target.step)
        if target.part == "sum":
            text = c.fill("where.weights_sum", row=row) if base == "weights" else \
                c.fill("where.row_sum", row=row, symbol=symbol)
        elif base in _NAMED_STEPS:
            text = c.fill(f"where.{base}", **({"row": row} if base == "exp_sum" else
                                               {"row": row, "column": column}))
        elif base in COLUMN_STEPS:
            text = c.fill("where.vector", row=row, symbol=symbol)
        else:
            text = c.fill("where.entry", row=row, column=column, symbol=symbol)
        if target.part == "term":
            text = c.fill("where.term", term=str(target.term + 1), entry=text)
        if prefix:
            text = c.fill("where.in_head", entry=text, head=head_label(prefix, c))
        return text

    def named(self, named: Named) -> str:
        """A printed number a reason names: "the weight of key 1 in row 2 = 0.35"."""
        text = self.target(named.target, named.position)
        if not named.printed:
            return text
        number = self.number(named.printed)
        return f"{text} = {number}" if self.mode == "plain" else f"{text} $= {number[1:]}"

    def where(self, verdict: Verdict) -> str:
        """The verdict's number in words."""
        return self.target(verdict.claim.target, verdict.position)

    # ------------------------------------------------------------------ reasons
    def reason(self, verdict: Verdict, brief: bool = False) -> str:
        """The verdict's reason in the catalog's language (clauses joined by "; ");
        ``brief``: a right number's rounding as "0.3945211… → 0.395", not a sentence, and
        a suspicious number without the sentence saying what suspicious means."""
        if not verdict.reasons:           # a verdict of the size checker: English text
            return self.escape(verdict.reason)
        if brief:        # a table says once what "suspicious" means (``suspicious_legend``)
            return "; ".join(self._brief(reason) if reason.key == "ok" else self.clause(reason)
                             for reason in verdict.reasons if reason.key != "suspicious")
        return "; ".join(self.clause(reason) for reason in verdict.reasons)

    def suspicious_legend(self) -> str:
        """What the verdict "suspicious" means, said once under a table of brief reasons."""
        return f"{self.verdict_word('suspicious')}: {self.clause(Reason('suspicious'))}"

    def _brief(self, reason: Reason) -> str:
        """The rounding of a right number as its two numbers: exact → rounded."""
        args = dict(reason.args)
        arrow = r" $\to$ " if self.mode == "latex" else " → "
        return self.number(args["exact"]) + arrow + self.number(args["rounded"])

    def clause(self, reason: Reason) -> str:
        """One reason in the catalog's language: its message filled with its placeholders
        as the output writes them (each placeholder's writer found once per message)."""
        names = tuple(name for name, _ in reason.args)
        if reason.entries:
            names += ("entries",)
        texts, places, writers = self._plan(message_key(reason), names)
        values = [write(value) for write, (_, value) in zip(writers, reason.args)]
        if reason.entries:
            values.append(", ".join(self.named(named) for named in reason.entries))
        return interleaved(texts, [values[k] for k in places])

    def _plan(self, key: str, names: tuple[str, ...]
              ) -> tuple[tuple[str, ...], tuple[int, ...], tuple[Callable[[str], str], ...]]:
        """``_message(key, *names)`` split at its placeholders (the texts around them),
        where among ``names`` the value of each placeholder is, and the writer of each
        name's value (``_writer``): made once per message and names, as a report fills
        the same few messages thousands of times."""
        cache_key = (key, *names)
        plan = self._plans.get(cache_key)
        if plan is None:
            parts = _TOKEN.split(self._message(key, *names))
            plan = self._plans[cache_key] = (tuple(parts[0::2]),
                                             tuple(int(k) for k in parts[1::2]),
                                             tuple(self._writer(n) for n in names))
        return plan

    def _writer(self, name: str) -> Callable[[str], str]:
        """How the value of the placeholder ``name`` is written in the output."""
        if name in _PLAIN_NUMBERS:
            return self.number
        if name in RULE_ARGS:
            return lambda value: self._message(f"rounding.{value}")
        if name in SLIP_ARGS:                 # a slip's id: its name or explanation
            return lambda value: self._message(f"slip.{value}.{SLIP_ARGS[name]}")
        if name.startswith("size_"):
            return self.size
        if name.startswith("math_"):          # symbols the code wrote (sizes.symbols)
            return lambda value: self.convert(f"${value}$")
        if name == "what":                    # a catalog message naming a quantity
            return lambda value: self.convert(self.catalog.text(value))
        if name == "others":
            return self._numbers_in_text
        return self.escape

    def flags(self, verdict: Verdict) -> str:
        """The verdict's flags in words, joined by commas."""
        if not verdict.flags:
            return ""
        # a flag its reason says already
        said = {reason.key.rpartition(".")[2] for reason in verdict.reasons}
        return ", ".join(self.convert(self.catalog.text(f"flag.{flag}"))
                         if f"flag.{flag}" in self.catalog else self.escape(flag)
                         for flag in verdict.flags if flag not in said)

    def verdict_word(self, verdict: str) -> str:
        return self._message(f"verdict.{verdict}")

    def say(self, key: str, **values: str) -> str:
        """A catalog message in the output format, its placeholders filled with ``values``
        as given (already written for the output: numbers, escaped user text)."""
        text = self._message(key, *values)
        filled = list(values.values())
        return _TOKEN.sub(lambda found: filled[int(found.group(1))], text)


def _closed_form_math(text: str) -> str:
    """A closed form as the checker writes it ("sqrt(2)/2", "1/3") in LaTeX math.

    >>> _closed_form_math("sqrt(2)/2"), _closed_form_math("3*sqrt(5)")
    ('\\\\sqrt{2}/2', '3 \\\\cdot \\\\sqrt{5}')
    """
    math = re.sub(r"sqrt\(([0-9]+)\)", r"\\sqrt{\1}", text)
    math = math.replace("*", " \\cdot ").replace("-inf", "-\\infty")
    return re.sub(r"[^0-9A-Za-z\\{}/ .,+\-()^]", "", math)
