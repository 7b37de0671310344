"""Graded answers (``worksheets.grading.Grading``) laid out as text, CSV, JSON and HTML.

Every word is from the catalogs in the key's language (``[grade]``, and
``slip.<id>.name`` for a slip's name); the data are the grading's. One row per
student and blank: the answer as written, as read, the verdict, the slip (or
why it could not be read) and the rule applied; then the class summary: how
many answers of each verdict, and which slip how often.

>>> from symattn.worksheets.sheet import answers_document, build
>>> from symattn.worksheets.grade_key import read_key
>>> from symattn.worksheets.grade_input import read_table
>>> from symattn.worksheets.grading import Rule, grade
>>> key = read_key(answers_document(build(seed=7, kinds=("output_row",))), "k.json")
>>> grading = grade(key, read_table("s,1.a2\\nBo,0.254\\n", "c.csv", key), Rule())
>>> print(grade_text(grading).splitlines()[3])   # doctest: +NORMALIZE_WHITESPACE
Bo       T1       1.a2   0.254   0.254    slip     softmax over columns; Q and K swapped
rounds to 0.164 at 3 decimal places
>>> grade_csv(grading).splitlines()[1].split(",")[6:9]
['slip', 'column_softmax;qk_swapped', 'softmax over columns; Q and K swapped']
"""

from __future__ import annotations

__all__ = ["grade_text", "grade_csv", "grade_json", "grade_html", "slip_name", "rule_text"]

import csv
import io
import json
from typing import Any

from symattn import messages
from symattn._version import SCHEMA_VERSION, __version__
from symattn.render import prose
from symattn.render.text_table import aligned
from symattn.render.web.page import escape, page
from symattn.worksheets.grading import VERDICTS, Grading, Mark


def _catalog(grading: Grading) -> messages.Catalog:
    return messages.load(grading.key.language)


def slip_name(catalog: messages.Catalog, slip: str) -> str:
    """A slip's name in plain text."""
    return prose.plain(catalog.text(f"slip.{slip}.name"))


def rule_text(catalog: messages.Catalog, mark: Mark) -> str:
    """The rule an answer was graded by, in words ("" for an answer not compared)."""
    key, values = mark.rule
    if not key:
        return ""
    filled = dict(values)
    if key == "grade.rule_places":
        return prose.plain(catalog.count(key, int(filled["places"]), **filled))
    return prose.plain(catalog.fill(key, **filled))


def _because(catalog: messages.Catalog, mark: Mark) -> str:
    if mark.slips:
        return "; ".join(slip_name(catalog, slip) for slip in mark.slips)
    return prose.plain(catalog.text(mark.why)) if mark.why else ""


def _variant(student: Any) -> str:
    return student.code or (str(student.variant) if student.variant else "?")


def _rows(grading: Grading, catalog: messages.Catalog) -> list[list[str]]:
    rows = []
    for student in grading.students:
        for k, mark in enumerate(student.marks):
            rows.append([student.student if k == 0 else "", _variant(student) if k == 0 else "",
                         mark.blank, mark.answer.strip(), mark.reading,
                         catalog.text(f"grade.{mark.verdict}"), _because(catalog, mark),
                         rule_text(catalog, mark)])
    return rows


def _totals(grading: Grading, catalog: messages.Catalog) -> str:
    counts = grading.verdict_counts()
    return prose.plain(catalog.fill("grade.totals", **{v: str(counts[v]) for v in VERDICTS}))


def _notes(grading: Grading, catalog: messages.Catalog) -> list[str]:
    return [] if grading.key.rebuilt else [prose.plain(catalog.text("grade.not_rebuilt"))]


def grade_text(grading: Grading) -> str:
    """The graded answers and the class summary as aligned text tables."""
    catalog = _catalog(grading)
    header = [catalog.text(f"grade.{name}") for name in
              ("student", "variant", "blank", "answer", "reading", "verdict", "because", "rule")]
    lines = [catalog.text("grade.title"), ""]
    lines += aligned(header, _rows(grading, catalog))
    lines += ["", catalog.text("grade.summary"), _totals(grading, catalog), ""]
    slips = grading.slip_counts()
    if slips:
        lines += aligned([catalog.text("grade.slip"), catalog.text("grade.answers"),
                          catalog.text("grade.students")],
                         [[slip_name(catalog, s), str(n), str(m)] for s, n, m in slips],
                         right=(1, 2))
    else:
        lines.append(prose.plain(catalog.text("grade.no_slips")))
    notes = _notes(grading, catalog)
    return "\n".join(lines + ([""] + notes if notes else [])) + "\n"


def grade_csv(grading: Grading) -> str:
    """One row per student and blank (column names are data: the JSON's field names)."""
    catalog = _catalog(grading)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["student", "variant", "code", "blank", "answer", "reading", "verdict",
                     "slips", "slip_names", "reason", "rule"])
    for student in grading.students:
        for mark in student.marks:
            writer.writerow([student.student, student.variant or "", student.code, mark.blank,
                             mark.answer.strip(), mark.reading, mark.verdict,
                             ";".join(mark.slips),
                             "; ".join(slip_name(catalog, s) for s in mark.slips),
                             prose.plain(catalog.text(mark.why)) if mark.why else "",
                             rule_text(catalog, mark)])
    return out.getvalue()


def _mark_json(catalog: messages.Catalog, mark: Mark) -> dict[str, Any]:
    return {"blank": mark.blank, "answer": mark.answer, "reading": mark.reading,
            "verdict": mark.verdict, "slips": list(mark.slips),
            "slip_names": [slip_name(catalog, s) for s in mark.slips],
            "reason": mark.why.removeprefix("grade.why_") if mark.why else None,
            "rule": rule_text(catalog, mark) or None}


def _tolerance_text(tolerance: object) -> str | None:
    """``--tolerance`` as data: a decimal (0.0005), ``key``, or None."""
    if tolerance is None or isinstance(tolerance, str):
        return tolerance
    from flint import fmpq

    from symattn.values.exact import terminating_places
    from symattn.values.number_format import NumberFormat

    assert isinstance(tolerance, fmpq)
    places = terminating_places(tolerance)
    return NumberFormat(digits=None if places is not None else 20,
                        places=places).format(tolerance)


def grade_json(grading: Grading) -> str:
    """The grading as JSON (``symattn schema grade``)."""
    catalog = _catalog(grading)
    rule = grading.rule
    document = {
        "symattn": __version__, "schema_version": SCHEMA_VERSION,
        "key": grading.key.source, "language": grading.key.language,
        "rule": {"places": rule.places, "tolerance": _tolerance_text(rule.tolerance)},
        "slips_named": grading.key.rebuilt,
        "students": [{"student": s.student, "source": s.source, "line": s.line,
                      "variant": s.variant, "code": s.code,
                      "marks": [_mark_json(catalog, m) for m in s.marks]}
                     for s in grading.students],
        "summary": {"verdicts": grading.verdict_counts(),
                    "slips": [{"slip": s, "name": slip_name(catalog, s), "answers": n,
                               "students": m} for s, n, m in grading.slip_counts()]}}
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"


_STYLE = """\
.symattn .right { color: #1a7f37; }
.symattn .slip { color: #7d4e00; font-weight: bold; }
.symattn .unreadable { color: #57606a; }
"""
_CLASSES = {"right": "right", "slip": "slip", "wrong": "wrong", "unreadable": "unreadable"}


def _table(header: list[str], rows: list[list[str]], verdict_at: int | None = None) -> str:
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    body = []
    for row in rows:
        cells = []
        for c, cell in enumerate(row):
            css = f' class="{_CLASSES[row[-1]]}"' if c == verdict_at and row[-1] in _CLASSES \
                else ""
            cells.append(f"<td{css}>{escape(cell)}</td>")
        body.append("<tr>" + "".join(cells[:len(header)]) + "</tr>")
    return (f'<table class="report">\n<thead><tr>{head}</tr></thead>\n<tbody>\n'
            + "\n".join(body) + "\n</tbody>\n</table>")


def grade_html(grading: Grading, chart_svg: str = "") -> str:
    """The graded answers as a self-contained page (with the class chart, when given
    as SVG text)."""
    catalog = _catalog(grading)
    header = [catalog.text(f"grade.{name}") for name in
              ("student", "variant", "blank", "answer", "reading", "verdict", "because", "rule")]
    verdicts = [mark.verdict for student in grading.students for mark in student.marks]
    rows = [row + [verdict] for row, verdict in zip(_rows(grading, catalog), verdicts)]
    title = catalog.text("grade.title")
    parts = [f"<h1>{escape(title)}</h1>", _table(header, rows, verdict_at=5),
             f"<h2>{escape(catalog.text('grade.summary'))}</h2>",
             f"<p>{escape(_totals(grading, catalog))}</p>"]
    slips = grading.slip_counts()
    if slips:
        parts.append(_table([catalog.text("grade.slip"), catalog.text("grade.answers"),
                             catalog.text("grade.students")],
                            [[slip_name(catalog, s), str(n), str(m)] for s, n, m in slips]))
    else:
        parts.append(f"<p>{escape(prose.plain(catalog.text('grade.no_slips')))}</p>")
    if chart_svg:
        parts.append(f"<figure>{chart_svg}</figure>")
    parts += [f'<p class="note">{escape(note)}</p>' for note in _notes(grading, catalog)]
    return page(title, "\n".join(parts), grading.key.language, _STYLE)
