"""``symattn extract``: a document's printed numbers as a draft spec; ``check DOC --spec``.

A command module of ``symattn.cli.app``: ``register(subparsers)`` adds the
parser and returns the handler. ``extract DOC`` writes the draft spec (the
main computation first; a row of scores put through softmax on the side is
a draft of its own, written to ``DRAFT-2.toml`` ... with ``-o DRAFT.toml``)
and says on stderr what it chose and how sure it is. ``check DOC --spec
INPUTS.toml`` (``run_check_documents``) extracts with the spec's inputs and
checks in one go, reporting every verdict at its document line.

>>> import argparse
>>> commands = argparse.ArgumentParser(prog="symattn").add_subparsers(dest="command")
>>> sorted(register(commands))
['extract']
"""

from __future__ import annotations

__all__ = ["register", "run", "run_check_documents", "run_check_inferred", "document_fails",
           "is_document", "draft_path"]

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from symattn.cli.options import (EXIT_INPUT, epilog, EXIT_OK, EXIT_WRONG, Handler, Subparsers,
                                 display_name, language_of, one_line, table_options,
                                 write_output)

if TYPE_CHECKING:
    from symattn.extract.checking import DocumentCheck
    from symattn.extract.inputs import Note
    from symattn.extract.pipeline import Draft, Extraction

_SPEC_SUFFIXES = (".toml", ".json")


EXTRACT_EPILOG = epilog("""\
  symattn extract chapter.md                    the draft spec on stdout
  symattn extract chapter.html -o draft.toml    draft.toml (+ draft-2.toml ... for each example)
  symattn extract chapter.pdf --spec inputs.toml  the numbers placed on your inputs
""")

def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``extract``; return its handler."""
    parser = subparsers.add_parser(
        "extract", help="read a document's printed numbers into a draft spec",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXTRACT_EPILOG,
        description="Read a document (text, Markdown, LaTeX, HTML in any encoding, a Jupyter "
                    "notebook: its Markdown cells and printed outputs; a PDF's text layer, a "
                    "Word .docx; nothing is run) and write a draft spec: "
                    "the inputs (from --spec, or proposed from the matrices the document names) "
                    "and every printed number placed on the step it belongs to, with its line "
                    "and how sure the placement is. Numbers not placed are listed at the end.")
    parser.add_argument("document", metavar="DOC", help="the document to read")
    parser.add_argument("--spec", metavar="INPUTS.toml",
                        help="take the inputs and options from this spec (its claims are "
                             "replaced)")
    parser.add_argument("--output", "-o", metavar="DRAFT.toml",
                        help="write the draft here (further drafts: DRAFT-2.toml, ...) "
                             "instead of stdout")
    return {"extract": run}


def is_document(source: str) -> bool:
    """A file ``check`` reads as a document rather than a spec: a document's suffix
    (``.md``, ``.pdf`` ...), or a file of another name whose text has no spec table
    (``[inputs]``, ``[sizes]``). A pipe (``-``, ``/dev/stdin``) is a spec: it can be read
    only once."""
    suffix = Path(source).suffix.lower()
    if source == "-" or suffix in _SPEC_SUFFIXES:
        return False          # (a spec is the daily case: the reader is not imported)
    import re

    from symattn.extract.document import DOCUMENT_SUFFIXES

    if suffix in DOCUMENT_SUFFIXES:
        return True
    path = Path(source)
    if not path.is_file():
        return False          # a pipe, or no such file: the spec reader says so
    with path.open("rb") as file:
        head = file.read(65536).decode("utf-8", errors="replace")
    return not re.search(r"(?m)^\s*\[\s*(?:inputs|sizes|options|claims)\s*\]", head)


def draft_path(output: str, number: int) -> str:
    """Where draft ``number`` (1-based) goes with ``-o output``: output, then output-2 ..."""
    if number == 1:
        return output
    path = Path(output)
    return str(path.with_name(f"{path.stem}-{number}{path.suffix}"))


def _read_spec(path: str) -> str:
    from symattn.problem.spec import read_file   # the one reader of spec files

    return read_file(path)


def _summary(extraction: Extraction) -> str:
    lines = []
    for number, draft in enumerate(extraction.drafts, start=1):
        counts = {c: sum(len(p.numbers) for p in draft.placements if p.confidence == c)
                  for c in ("certain", "likely", "guess")}
        first, last = draft.lines or (1, len(extraction.document.line_starts))
        whole = first == 1 and last >= len(extraction.document.line_starts) - 1
        where = "" if whole else f" (lines {first}-{last})"
        lines.append(f"draft {number}{where}: {sum(counts.values())} numbers placed "
                     f"({counts['certain']} certain, {counts['likely']} likely, "
                     f"{counts['guess']} guess), {len(draft.unplaced)} not placed")
        lines += [f"  inputs: {reason}" for reason in draft.reasons]
    if extraction.skipped:
        lines.append(f"{extraction.skipped} numbers past the first "
                     "50,000 were not read")
    return "\n".join(f"extract: {line}" for line in lines)


def run(args: argparse.Namespace) -> int:
    """The ``extract`` command; returns the exit status."""
    from symattn.errors import InputError, Location
    from symattn.extract.document import read_document
    from symattn.extract.pipeline import extract

    document = read_document(args.document)
    spec_text = _read_spec(args.spec) if args.spec else None
    extraction = extract(document, spec_text, args.spec or "<spec>")
    if not extraction.drafts:
        raise InputError("found no inputs: no X with W_Q, W_K, W_V, no Q, K, V, no vectors "
                         "q_i, k_j, v_j and no row of scores put through softmax; give the "
                         "inputs with --spec INPUTS.toml", Location(file=args.document))
    texts = [draft.text(document) for draft in extraction.drafts]
    if args.output and args.output != "-":
        for number, text in enumerate(texts, start=1):
            write_output(text, draft_path(args.output, number))
    else:
        write_output("\n".join(text if n == 1 else f"# ----- draft {n} -----\n{text}"
                               for n, text in enumerate(texts, start=1)), None)
    print(_summary(extraction), file=sys.stderr)
    return EXIT_OK


def _example_header(number: int, draft: Draft, language: str) -> list[str]:
    """What ``check DOC`` inferred for one example, in the reader's language."""
    from symattn import messages
    from symattn.extract.inputs import note_text

    catalog = messages.load(language)
    start, end = draft.lines or (1, 1)
    head = catalog.fill("extract.example", number=str(number), start=str(start),
                        end=str(end), title=draft.title)
    notes = "; ".join(note_text(note, language) for note in draft.notes)
    return [head, "  " + catalog.fill("extract.inputs", notes=notes)]


def _checked_examples(source: str, args: argparse.Namespace
                      ) -> list[tuple[int, Draft, DocumentCheck]]:
    """``check DOC`` without a spec: each worked example of the document, checked under
    the fail-safe rule (the other examples are where a number not placed may be near)."""
    from symattn.errors import SymattnError
    import functools

    from symattn.extract.checking import (Computation, check_draft, placed_once,
                                          side_computations)
    from symattn.extract.document import read_document
    from symattn.extract.pipeline import extract, guess_language

    document = read_document(source)
    drafts = extract(document).drafts

    @functools.cache
    def others() -> list[Computation]:      # made once, and only if a number needs them
        return side_computations(document, drafts)

    checked = []
    for number, draft in enumerate(drafts, start=1):
        try:
            checked.append((number, draft, check_draft(
                document, draft, source, args.rounding, args.working, args.language,
                others)))
        except SymattnError:     # a draft on which no printed number could be placed
            continue
    checked = [(number, draft, check) for (number, draft, _), check in
               zip(checked, placed_once([check for _, _, check in checked]))]
    if not checked:
        from symattn import messages

        catalog = messages.load(language_of(args, guess_language(document.raw)))
        print(f"symattn: {display_name(source)}: {catalog.text('extract.none')}",
              file=sys.stderr)
    return checked


def run_check_inferred(args: argparse.Namespace, sources: list[str]) -> int:
    """``check DOC ...`` without ``--spec``: each document's examples found, their inputs
    inferred and said, then checked (exit status as ``run_check_documents``)."""
    from symattn.cli.gates import fail_on
    from symattn.errors import SymattnError

    failing = fail_on(args.fail_on)
    found: list[tuple[int, Draft, DocumentCheck]] = []
    failed = 0
    for source in sources:
        try:
            found.extend(_checked_examples(source, args))
        except SymattnError as error:
            print(f"symattn: error: {one_line(str(error))}", file=sys.stderr)
            failed += 1
    checks = [check for _, _, check in found]
    if checks:
        write_output(_rendered_examples(found, args), args.output)
    if failed:
        return EXIT_INPUT
    return EXIT_WRONG if any(document_fails(c, failing) for c in checks) else EXIT_OK


def _rendered_examples(found: list[tuple[int, Draft, DocumentCheck]],
                       args: argparse.Namespace) -> str:
    """Each example's report after what was inferred for it (JSON: in ``example``)."""
    checks = [check for _, _, check in found]
    if args.format == "json":
        document = json.loads(_rendered(checks, args))
        for entry, (number, draft, _) in zip(document["reports"], found):
            entry["example"] = {"number": number, "lines": list(draft.lines or ()),
                                "title": draft.title,
                                "inferred": [_note_record(n) for n in draft.notes]}
        return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
    language = language_of(args, checks[0].report.language)
    if args.format == "html":         # one page, each example's lines heading its report
        from symattn.render.web.report_html import document_page

        return document_page(checks, language, getattr(args, "show", None) == "unplaced",
                             table_options(args),
                             [_example_header(number, draft, language)
                              for number, draft, _ in found])
    if args.format == "text":         # the example's line heads its report
        return "\n".join(_rendered([check], args, _example_header(number, draft, language))
                         for number, draft, check in found)
    return "\n".join("\n".join(_example_header(number, draft, language)) + "\n\n" +
                     _rendered([check], args) for number, draft, check in found)


def _note_record(note: Note) -> dict[str, str]:
    key, values = note
    return {"what": key, **dict(values)}


def _note_language(spec_text: str, args: argparse.Namespace) -> None:
    """A spec in a language without a catalog ("pt"): said once, in the report's language."""
    from symattn import messages
    from symattn.problem.read import uncatalogued_language
    from symattn.problem.spec import read_mapping

    written = uncatalogued_language(read_mapping(spec_text, args.spec).get("language"))
    if written:
        note = messages.load(args.language or "en").fill("catalog.missing", language=written)
        print(f"symattn: {display_name(args.spec)}: {note}", file=sys.stderr)


def run_check_documents(args: argparse.Namespace, sources: list[str]) -> int:
    """``check DOC ... --spec INPUTS.toml``: each document extracted and checked. Exit
    status 1 when a number is wrong on a certain place, or is of a kind ``--fail-on``
    names (``suspicious``: a wrong-looking number whose place is not certain)."""
    from symattn.cli.gates import fail_on
    from symattn.errors import InputError, Location, SymattnError
    from symattn.extract.checking import check_document
    from symattn.extract.document import read_document

    failing = fail_on(args.fail_on)
    for source in sources:
        if not is_document(source):
            raise InputError("with --spec, each FILE is a document; this is a spec (.toml or "
                             ".json)", Location(file=display_name(source)))
    spec_text = _read_spec(args.spec)
    _note_language(spec_text, args)
    checks, failed = [], 0
    for source in sources:
        try:
            checks.append(check_document(read_document(source), spec_text, args.spec,
                                         args.rounding, args.working, args.language))
        except SymattnError as error:
            print(f"symattn: error: {one_line(str(error))}", file=sys.stderr)
            failed += 1
    if checks:
        write_output(_rendered(checks, args), args.output)
    if failed:
        return EXIT_INPUT
    return EXIT_WRONG if any(document_fails(c, failing) for c in checks) else EXIT_OK


def document_fails(check: DocumentCheck, names: Sequence[str]) -> bool:
    """Whether a document's check gives exit status 1 under ``--fail-on names``: a verdict
    named (``cli.gates.fails``), or, with ``suspicious``, a suspicious number not placed."""
    from symattn.cli.gates import fails

    return fails(check.report, names) or ("suspicious" in names and bool(check.suspicious))


def _rendered(checks: list[DocumentCheck], args: argparse.Namespace,
              example: Sequence[str] = ()) -> str:
    """The document reports in ``--format`` (``--show unplaced``: with the numbers not
    placed; ``--summary``: the counts only); text: ``example``, the lines saying which
    example of the document it is, as the heading."""
    from symattn.render.reports import document

    summary = getattr(args, "summary", False)
    if args.format == "json":
        return document.document_json(checks, args.max_terms or None, claims=not summary)
    language = language_of(args, checks[0].report.language)
    if summary:
        return document.document_summary(checks, language, args.format == "markdown")
    unplaced = getattr(args, "show", None) == "unplaced"
    if args.format == "html":
        from symattn.render.web.report_html import document_page

        return document_page(checks, language, unplaced, table_options(args),
                             [example] if example else ())
    if args.format == "markdown":
        return document.document_markdown(checks, language, unplaced, table_options(args))
    return document.document_text(checks, language, unplaced, table_options(args), example)
