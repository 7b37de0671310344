"""What makes ``symattn check`` fail in CI, and its summary-only output.

``--fail-on wrong,propagated`` names the verdicts (and the ``inconsistent``
flag) that give exit status 1 (``suspicious``: a document's number that looks wrong on
a place that is not certain, ``check DOC --spec``); ``--summary`` prints one line of counts per spec
(text), a table of counts (Markdown) or the reports without their claims (JSON).
docs/ci.md shows both in a pipeline.

>>> fail_on("wrong, inconsistent")
('wrong', 'inconsistent')
>>> fail_on("ok")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
symattn.errors.InputError: --fail-on: unknown 'ok'; use wrong, propagated, ... separated by commas
"""

from __future__ import annotations

__all__ = ["FAIL_ON", "add_gate_options", "fail_on", "fails"]

import argparse
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from symattn.verify.verdicts import Report

FAIL_ON = ("wrong", "propagated", "inconsistent", "undecided", "suspicious")


def add_gate_options(parser: argparse.ArgumentParser) -> None:
    """``--fail-on LIST`` and ``--summary``."""
    parser.add_argument("--fail-on", default="wrong", metavar="LIST",
                        help="verdicts that make the exit status 1, separated by commas: "
                             "wrong (default), propagated, inconsistent (the flag), undecided, "
                             "suspicious (check DOC --spec: a number that looks wrong where "
                             "its place is not certain)")
    parser.add_argument("--summary", action="store_true",
                        help="only the counts of each spec's verdicts, not every claim")


def fail_on(text: str) -> tuple[str, ...]:
    """The ``--fail-on`` list, checked."""
    from symattn.errors import InputError

    names = tuple(part.strip().lower() for part in text.split(",") if part.strip())
    for name in names:
        if name not in FAIL_ON:
            raise InputError(f"--fail-on: unknown {name[:40]!r}; use wrong, propagated, "
                             "inconsistent, undecided or suspicious, separated by commas")
    if not names:
        raise InputError("--fail-on: name at least one of wrong, propagated, inconsistent, "
                         "undecided, suspicious")
    return names


def fails(report: Report, names: Sequence[str]) -> bool:
    """Whether a verdict of ``report`` is one of ``names`` (``inconsistent``: the flag)."""
    return any(v.verdict in names or ("inconsistent" in names and "inconsistent" in v.flags)
               for v in report.verdicts)


def summary_text(reports: Sequence[Report], language: str | None,
                 markdown: bool = False) -> str:
    """Each spec's heading and its counts, in ``language`` (else each spec's own): one
    line each, or a Markdown heading and paragraph each with ``markdown``."""
    from symattn.render.markdown_document import escape_markdown
    from symattn.render.report import report_table

    out = []
    for report in reports:
        heading, counts, _, _ = report_table(report, language)
        out.append(f"## {escape_markdown(heading)}\n\n{escape_markdown(counts)}\n" if markdown
                   else f"{heading}: {counts}")
    return "\n".join(out) + "\n"
