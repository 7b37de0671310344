"""The report of ``check DOC``: the verdict table, the document's counts, its suspicious
numbers and (``--show unplaced``) the numbers not placed, as text, Markdown or JSON.

Under each report's summary: how many of the document's numbers were placed,
are suspicious, were not placed and could not be read. After the table, each
suspicious number not in the table with its line and column and the quantities nearest in value
(``line 60, column 35: 0.9997 is suspicious: near weights[1,1] of softmax [10, 2, 1]
= 0.999546…``), in the report's language.

JSON: each report of ``render.report.report_json`` with, per claim, ``line`` and
``column`` in the document (``cell`` in a notebook) and, for a suspicious one,
``nearest``; and per report ``document`` (the counts), ``suspicious`` (every
suspicious number: ``line``, ``column``, ``printed``, ``position``, the claim's,
or null when not placed, and ``nearest``) and ``not_placed``.
"""

from __future__ import annotations

__all__ = ["document_text", "document_markdown", "document_json", "document_summary",
           "counts_line", "document_lists"]

import dataclasses
from decimal import ROUND_DOWN, Decimal
from typing import Any, Sequence, cast

from symattn.extract.checking import DocumentCheck, Near, Suspicious
from symattn.render.reasons import NoteWriter
from symattn.render.markdown_document import escape_markdown
from symattn.render.text_table import fitted
from symattn.render.report import (PLAIN_TABLE, TableOptions, compact_json, report_document,
                                   report_markdown_lines, report_table, report_text_lines,
                                   report_writer)


def _shown(value: float, printed: str) -> str:
    """An exact value to two places more than the printed number, "..." when it has more."""
    body = printed.strip("~≈ ").rstrip("%")
    places = len(body.replace(",", ".").split(".")[1]) if "." in body.replace(",", ".") else 0
    places += 2 + (2 if printed.endswith("%") else 0)
    if value == 0:
        return "0"
    exact = Decimal(repr(value))   # its shortest digits, cut (not rounded) as "..." says
    text = str(exact.quantize(Decimal(1).scaleb(-places), rounding=ROUND_DOWN))
    if Decimal(text) == exact:     # all of it: without the zeros after it
        return text.rstrip("0").rstrip(".") if "." in text else text
    return text + "..."


def _near(near: Near, printed: str, notes: NoteWriter) -> str:
    position = notes.target(near.target, near.position) if near.target else \
        notes.escape(near.position)
    if near.computation:
        position = notes.say("extract.of", position=position,
                             computation=notes.escape(near.computation))
    return f"{position} = {notes.number(_shown(near.value, printed))}"


def _suspicious_line(found: Suspicious, notes: NoteWriter) -> str:
    where = notes.say("extract.at", line=str(found.line), column=str(found.column))
    nearest = ", ".join(_near(n, found.printed, notes) for n in found.nearest)
    return notes.say("extract.suspicious", where=where,
                     printed=notes.number(found.printed), nearest=nearest)


def _unplaced_line(number: tuple[int, int, str], notes: NoteWriter) -> str:
    line, column, printed = number
    return notes.say("extract.at", line=str(line), column=str(column)) + \
        f": {notes.number(printed)}"


def counts_line(check: DocumentCheck, notes: NoteWriter) -> str:
    """The document's counts: placed, suspicious, not placed, unreadable."""
    return notes.say("extract.counts", **{name: str(n) for name, n in check.counts.items()})


def document_lists(check: DocumentCheck, notes: NoteWriter, show_unplaced: bool
              ) -> list[tuple[str, list[str]]]:
    """(heading, lines) of the lists after the table: suspicious numbers, numbers not
    placed (with ``show_unplaced``)."""
    sections = []
    unplaced = [found for found in check.suspicious if found.claim is None]   # not in the table
    if unplaced:
        sections.append((notes.say("extract.suspicious_heading"),
                         [_suspicious_line(s, notes) for s in unplaced]))
    if show_unplaced and check.unplaced:
        sections.append((notes.say("extract.unplaced_heading"),
                         [_unplaced_line(n, notes) for n in check.unplaced]))
    return sections


def _options(check: DocumentCheck, options: TableOptions) -> TableOptions:
    """``options`` with the places of ``check``'s numbers."""
    return dataclasses.replace(options, places=(check.places, check.cells, check.part))


def document_text(checks: Sequence[DocumentCheck], language: str | None = None,
                  show_unplaced: bool = False, options: TableOptions = PLAIN_TABLE,
                  example: Sequence[str] = ()) -> str:
    """The reports as text: each one's table (laid out by ``options``), counts and
    lists; ``example``: the heading line and the lines under it of a report on one
    example of a document (its title, and its inputs as inferred)."""
    out = []
    for check in checks:
        notes = report_writer(check.report, language, "plain")
        out += report_text_lines(check.report, notes, [counts_line(check, notes)],
                                 dataclasses.replace(_options(check, options),
                                                     heading=tuple(example)))
        for heading, lines in document_lists(check, notes, show_unplaced):
            out += fitted([heading, *(f"  {line}" for line in lines)], options.width) + [""]
    return "\n".join(out)


def document_markdown(checks: Sequence[DocumentCheck], language: str | None = None,
                      show_unplaced: bool = False, options: TableOptions = PLAIN_TABLE
                      ) -> str:
    """The reports as Markdown: each one's table (laid out by ``options``), counts and
    lists."""
    out = []
    for check in checks:
        notes = report_writer(check.report, language, "markdown")
        out += report_markdown_lines(check.report, notes, [counts_line(check, notes)],
                                     _options(check, options))
        for heading, lines in document_lists(check, notes, show_unplaced):
            out += [f"**{heading}**", "", *(f"- {line}" for line in lines), ""]
    return "\n".join(out)


def _nearest_json(found: Suspicious) -> list[dict[str, str]]:
    return [{"position": n.position, "exact_decimal": _shown(n.value, found.printed),
             **({"computation": n.computation} if n.computation else {})}
            for n in found.nearest]


def document_summary(checks: Sequence[DocumentCheck], language: str | None = None,
                     markdown: bool = False) -> str:
    """``--summary``: each document's heading, its counts and the document's counts, one
    line each (a Markdown heading and paragraphs with ``markdown``)."""
    out = []
    for check in checks:
        heading, counts, _, _ = report_table(check.report, language)
        notes = report_writer(check.report, language, "markdown" if markdown else "plain")
        if markdown:
            out.append(f"## {escape_markdown(heading)}\n\n{escape_markdown(counts)}\n\n"
                       f"{counts_line(check, notes)}\n")
        else:
            out.append(f"{heading}: {counts} {counts_line(check, notes)}")
    return "\n".join(out) + "\n"


def document_json(checks: Sequence[DocumentCheck], max_terms: int | None,
                  claims: bool = True) -> str:
    """The reports as one JSON document (schemas/check.json); without ``claims``
    (``--summary``) each report has its counts and lists but no claims."""
    document = report_document([c.report for c in checks], max_terms, claims)
    entries = cast("list[dict[str, Any]]", document["reports"])
    for entry, check in zip(entries, checks):
        _document_entry(entry, check)
    return compact_json(document)


def _document_entry(entry: dict[str, Any], check: DocumentCheck) -> None:
    """A report's JSON entry with the document's places, counts and lists."""
    claims = entry.get("claims")
    if claims is not None:
        for claim, (line, column), cell in zip(claims, check.places,
                                               check.cells or [None] * len(check.places)):
            claim["line"], claim["column"] = line, column
            if cell is not None:   # a notebook, PDF or .docx: the cell, page or paragraph
                claim[check.part] = cell
    suspicious = []
    for found in check.suspicious:
        nearest = _nearest_json(found)
        if found.claim is not None and claims is not None:
            claims[found.claim]["nearest"] = nearest
        suspicious.append({"line": found.line, "column": found.column,
                           "printed": found.printed,
                           "position": None if found.claim is None else
                           check.report.verdicts[found.claim].position, "nearest": nearest})
    entry["summary"].setdefault("suspicious", 0)
    entry["document"] = check.counts
    entry["suspicious"] = suspicious
    entry["not_placed"] = [{"line": line, "column": column, "printed": printed}
                           for line, column, printed in check.unplaced]
