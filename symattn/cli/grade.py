"""The ``symattn grade`` command: students' answers against a worksheet's proved key.

A command module of ``symattn.cli.app``: ``register`` adds the parser and returns the
handler. The answers come as a CSV of student x blank, a Moodle responses
report (CSV), or a folder of typed answer files (``worksheets.grade_input``);
the key is the worksheet's answers file (``--answers``). The grading is
``worksheets.grading``, its layouts ``render.grading`` and the class chart
``render.grade_chart``. A bad file is a one-line error naming it and the line
(exit status 2); a malformed answer is graded ``unreadable``, never an error.

>>> import argparse
>>> commands = argparse.ArgumentParser(prog="symattn").add_subparsers(dest="command")
>>> sorted(register(commands))
['grade']
"""

from __future__ import annotations

__all__ = ["register", "run"]

import argparse
from typing import TYPE_CHECKING

from symattn.cli.options import EXIT_OK, Handler, Subparsers, epilog

if TYPE_CHECKING:
    from flint import fmpq

    from symattn.worksheets.grade_input import Submission
    from symattn.worksheets.grade_key import Key

FORMATS = ("text", "csv", "json", "html")
FORMS = ("auto", "table", "moodle", "folder")


def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``grade``; return its handler."""
    parser = subparsers.add_parser(
        "grade", help="grade students' answers against a worksheet's key, naming each slip",
        description="Grade students' answers against a worksheet's answers file: each "
                    "answer right, wrong, a named slip (the mistake that gives that number) "
                    "or unreadable, with the rule applied, and a class summary of the slips.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=epilog("""\
  symattn grade class.csv --answers worksheet-answers.json
  symattn grade responses.csv --answers worksheet-answers.json --format html -o grades.html
  symattn grade typed/ --answers worksheet-answers.json --chart slips.png
  symattn grade class.csv --answers worksheet-answers.json --tolerance key --format csv

Answers: a CSV (first column the student, a header of blank ids such as 1.e1, and a
column variant or code); a Moodle responses report (CSV); or a folder of files of
"blank_id = answer" lines. See docs/grading.md.
"""))
    parser.add_argument("source", metavar="ANSWERS",
                        help="a CSV of student x blank, a Moodle responses report (CSV), or "
                             "a folder of typed answer files")
    parser.add_argument("--answers", "-a", required=True, metavar="KEY",
                        help="the worksheet's answers file (NAME-answers.json)")
    parser.add_argument("--form", choices=FORMS, default="auto",
                        help="how ANSWERS is written (default: a folder is typed files, a "
                             "CSV with a 'Response 1' column a Moodle report, else a table)")
    parser.add_argument("--places", metavar="N",
                        help="grade every number by rounding to N places (default: each "
                             "blank's own places in the key)")
    parser.add_argument("--tolerance", metavar="T",
                        help="grade every number as right within T of the exact value; "
                             "'key' for each blank's tolerance in the answers file")
    parser.add_argument("--format", "-f", choices=FORMATS, default="text",
                        help="text (default), csv, json or html")
    parser.add_argument("--output", "-o", metavar="OUT", help="write to OUT instead of stdout")
    parser.add_argument("--chart", metavar="FILE",
                        help="also draw the class chart of slips: FILE.png or FILE.svg "
                             "(needs matplotlib: pip install 'symattn[plot]')")
    parser.add_argument("--language", "-l", choices=("en", "pl", "cs", "ru", "uk"),
                        help="the language of the report (default: the key's)")
    return {"grade": run}


def _read(path: str) -> str:
    from pathlib import Path

    from symattn.errors import Location
    from symattn.extract.document import decode_text, read_bytes

    where = Location(file=path)
    return decode_text(read_bytes(Path(path), where, what="file"), where)


def _submissions(args: argparse.Namespace, key: Key) -> list[Submission]:
    from pathlib import Path

    from symattn.errors import InputError, Location
    from symattn.worksheets import grade_input

    source = Path(args.source)
    form = args.form
    if form == "auto":
        form = "folder" if source.is_dir() else "moodle" if \
            grade_input.is_moodle(_read(args.source)) else "table"
    if form == "folder":
        if not source.is_dir():
            raise InputError("is not a folder of typed answer files", Location(file=args.source))
        files = sorted(p for p in source.iterdir() if p.is_file() and not p.name.startswith("."))
        if not files:
            raise InputError("holds no answer files", Location(file=args.source))
        return [grade_input.read_typed(_read(str(p)), str(p), key) for p in files]
    text = _read(args.source)
    reader = grade_input.read_moodle if form == "moodle" else grade_input.read_table
    return reader(text, args.source, key)


def _tolerance(text: str | None) -> fmpq | str | None:
    from symattn.errors import InputError
    from symattn.worksheets.grading import read_answer

    if text is None or text.strip() == "key":
        return None if text is None else "key"
    from flint import fmpq

    reading = read_answer(text)
    value = reading.number if reading is not None else None
    if not isinstance(value, fmpq) or value < 0:
        raise InputError(f"--tolerance must be a number of 0 or more, or key; got {text!r}")
    return value


def run(args: argparse.Namespace) -> int:
    """The ``grade`` command."""
    import dataclasses

    from symattn.cli.options import read_whole, write_output
    from symattn.render import grading as layouts
    from symattn.render.files import check_not_input, write_atomically
    from symattn.worksheets.grade_key import read_key
    from symattn.worksheets.grading import Rule, grade

    places = read_whole(args.places, "--places", 0, 12) if args.places is not None else None
    rule = Rule(places, _tolerance(args.tolerance))
    check_not_input(args.output, [args.answers, args.source])
    check_not_input(args.chart, [args.answers, args.source])
    chart_format = _chart_format(args.chart)
    key = read_key(_read(args.answers), args.answers)
    if args.language:
        key = dataclasses.replace(key, language=args.language)
    grading = grade(key, _submissions(args, key), rule)
    chart = None
    if chart_format is not None:
        from symattn.render.grade_chart import slip_chart

        chart = slip_chart(grading, chart_format)
    if args.format == "html":     # an SVG chart is also drawn in the page
        svg = chart.decode("utf-8") if chart is not None and chart_format == "svg" else ""
        text = layouts.grade_html(grading, svg[svg.find("<svg"):] if svg else "")
    else:
        text = {"text": layouts.grade_text, "csv": layouts.grade_csv,
                "json": layouts.grade_json}[args.format](grading)
    write_output(text, args.output)
    if chart is not None:
        write_atomically(args.chart, chart)
    return EXIT_OK


def _chart_format(path: str | None) -> str | None:
    from pathlib import PurePath

    from symattn.errors import InputError

    if path is None:
        return None
    suffix = PurePath(path).suffix.lower().lstrip(".")
    if suffix not in ("png", "svg"):
        raise InputError(f"--chart must name a .png or .svg file, got {path!r}")
    return suffix
