"""The ``symattn worksheet`` command: exercise sheets and answer keys, in five languages.

A command module of ``symattn.cli.app`` (see ``_command_modules`` there): ``register`` adds the
parser and returns the handler. Only argparse is imported at module level.
Every answer of every key is judged by the checker before anything is
written; a bad option is a one-line error with exit status 2.

Files, in ``--output-dir`` (default: the current folder), for ``--name NAME``
(default ``worksheet``) and N variants (``-01``, ``-02``, ... when N > 1)::

    NAME-01.tex  NAME-01-key.tex  (with --pdf also NAME-01.pdf, NAME-01-key.pdf)
    NAME-01-key-short.tex         with --short-key: answers and one line of working
    NAME-answers.json             every blank of every variant (docs/worksheets.md)
    NAME-01-check/*.json          with --check-specs: the key's answers as claims,
                                  for `symattn check NAME-01-check/*.json`
    NAME-moodle.xml, NAME-gift.txt, NAME-qti.zip
                                  with --export: the answers for a learning platform

>>> import argparse
>>> commands = argparse.ArgumentParser(prog="symattn").add_subparsers(dest="command")
>>> sorted(register(commands))
['worksheet']
"""

from __future__ import annotations

__all__ = ["register", "run"]

import argparse
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from symattn.cli.options import EXIT_OK, Handler, Subparsers

if TYPE_CHECKING:
    from pathlib import Path

    from symattn.problem.problem import Problem
    from symattn.worksheets.sheet import Worksheet

EPILOG = """\
examples:
  symattn worksheet --seed 7                         one sheet and its key (English)
  symattn worksheet --seed 7 --variants 30 --language pl --pdf -o class-3b
  symattn worksheet --language cs --exercises softmax_table,find_error,sizes --pdf
  symattn worksheet my.toml --variants 5 --language ru     exercises on a spec's Q, K, V
  symattn worksheet --seed 7 --check-specs && symattn check worksheet-check/*.json
  symattn worksheet --preset lesson45 --language uk --short-key --pdf    a 45-minute lesson
  symattn worksheet --preset lesson45 --numbers calculator-free           no calculator
  symattn worksheet --seed 7 --variants 30 --export moodle,gift,qti    for a learning platform

exercise kinds: softmax_table, scores_row, weights_row, output_row, fill_matrix,
causal_mask, find_error, temperature, no_scaling, entropy, sizes, projection,
multi_head, kv_cache, next_token, stable_softmax, permutation, design (or all).
mistakes (find_error): no_scaling, column_softmax, kv_swapped, leaked_future,
rounded_carried. presets: lesson45, homework, exam. See docs/worksheets.md.
"""


def register(subparsers: Subparsers) -> dict[str, Handler]:
    """Add ``worksheet`` to the ``symattn`` subcommands; return {name: handler}."""
    parser = subparsers.add_parser(
        "worksheet", help="exercise sheets with answer keys (en, pl, cs, ru, uk)",
        description="Exercise sheets and matching answer keys as LaTeX (and PDF): numbers "
                    "pleasant by hand drawn from a seed, one variant per student, or a spec's "
                    "own matrices. Every answer of every key is checked before it is written.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="spec (.toml or .json) whose Q, K, V the exercises use "
                             "(default: generated numbers)")
    parser.add_argument("--example", "-e", metavar="NAME",
                        help="use a bundled example as the spec")
    _add_exercise_options(parser)
    _add_output_options(parser)
    return {"worksheet": run}


def _add_exercise_options(parser: argparse.ArgumentParser) -> None:
    """What the sheets hold: seed, variants, language, exercises, mistakes, places, d_k."""
    # Numbers are read here, not by argparse, so a bad value is one line (exit 2).
    parser.add_argument("--seed", default="1", metavar="N",
                        help="whole number >= 0; the same seed gives the same sheets (default 1)")
    parser.add_argument("--variants", "-n", default="1", metavar="N",
                        help="sheets with the same exercises and different numbers (default 1)")
    parser.add_argument("--language", "-l", default="en", metavar="LANG",
                        help="en (default), pl, cs, ru or uk")
    parser.add_argument("--exercises", "-x", metavar="KINDS",
                        help="comma-separated exercise kinds in order, or all (default: "
                             "softmax_table, scores_row, weights_row, causal_mask, output_row, "
                             "find_error, temperature, entropy, sizes)")
    parser.add_argument("--mistakes", metavar="LIST",
                        help="mistakes find_error may plant (default: all five)")
    parser.add_argument("--preset", metavar="NAME",
                        help="lesson45 (5 short exercises, about 24 blanks, room for working: "
                             "2 pages), homework (10 exercises) or exam (6, room for working)")
    parser.add_argument("--numbers", default="standard", metavar="MODE",
                        help="standard (default) or calculator-free (scores ln k: whole "
                             "exponentials, every answer a whole number or a fraction)")
    parser.add_argument("--places", default="3", metavar="N",
                        help="decimal places of rounded answers (default 3)")
    parser.add_argument("--d-k", default="4", metavar="N",
                        help="key dimension of generated problems (default 4; a perfect "
                             "square keeps the scaled scores short)")


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """Where the files go and what is made of them: folder, name, PDFs, check specs."""
    from symattn.render.reports.shared import add_engine_option

    parser.add_argument("--output-dir", "-o", default=".", metavar="DIR",
                        help="folder for the files (created if missing; default: here)")
    parser.add_argument("--name", default="worksheet", metavar="NAME",
                        help="file name prefix (default worksheet)")
    parser.add_argument("--pdf", action="store_true",
                        help="also compile every sheet and key to PDF (latexmk and --engine)")
    add_engine_option(parser)
    parser.add_argument("--short-key", action="store_true",
                        help="also write a short key (answers and one line of working each) "
                             "next to the full key: NAME-key-short.tex")
    parser.add_argument("--check-specs", action="store_true",
                        help="also write each key's answers as specs for `symattn check`")
    parser.add_argument("--export", metavar="FORMATS",
                        help="also write the answers for a learning platform: moodle (Moodle "
                             "XML), gift, qti (QTI 2.1 zip), or a comma list")
    parser.add_argument("--jobs", "-j", default="4", metavar="N",
                        help="PDFs compiled in parallel (default 4)")
    parser.add_argument("--template-dir", metavar="DIR",
                        help="templates in DIR override the bundled ones by name "
                             "(worksheet.tex.j2, _worksheet.tex.j2, ...; trusted code)")


def _whole(option: str, text: str, low: int, high: int) -> int:
    from symattn.errors import InputError, cut
    from symattn.values.whole import ascii_whole

    number = ascii_whole(str(text))
    if number is None or not low <= number <= high:
        raise InputError(f"--{option} must be a whole number from {low} to {high}, "
                         f"got {cut(str(text))!r}")
    return number


def _names(text: str | None) -> tuple[str, ...]:
    if text is None:
        return ()
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _spec(args: argparse.Namespace) -> tuple[Problem | None, dict[str, Any] | None]:
    """(attention Problem, size spec mapping) of FILE or --example; either may be None."""
    from symattn import sizes
    from symattn.problem import examples
    from symattn.errors import InputError

    if args.file and args.example:
        raise InputError("give a FILE or --example, not both")
    path = str(examples.path(args.example)) if args.example else args.file
    if path is None:
        return None, None
    loaded = sizes.load_any(path)       # read once: a spec on a pipe works
    if isinstance(loaded, dict):
        return None, loaded
    return loaded, None


def _exports(text: str | None) -> tuple[str, ...]:
    """The ``--export`` formats, checked before anything is built."""
    from symattn.errors import InputError
    from symattn.render.exports import FORMATS

    names = _names(text)
    for name in names:
        if name not in FORMATS:
            raise InputError(f"--export: unknown format {name!r} (known: "
                             f"{', '.join(FORMATS)})")
    if text is not None and not names:
        raise InputError(f"--export needs a format: {', '.join(FORMATS)}")
    return names


def _file_names(name: str, variants: int) -> list[str]:
    if variants == 1:
        return [name]
    width = max(2, len(str(variants)))
    return [f"{name}-{k:0{width}d}" for k in range(1, variants + 1)]


def _output_folder(args: argparse.Namespace, languages: tuple[str, ...]) -> Path:
    """The folder ``--output-dir`` names, after ``--language`` and ``--name`` are checked."""
    from pathlib import Path

    from symattn.errors import InputError, cut

    if args.language not in languages:
        raise InputError(f"--language must be one of {', '.join(languages)}, "
                         f"got {args.language!r}")
    if not args.name or any(c in args.name for c in "/\\\0") or args.name.startswith(".") \
            or any(not c.isprintable() for c in args.name):
        raise InputError("--name must be a plain file name prefix (no folders, no control "
                         f"characters or line breaks), got {cut(args.name)!r}")
    folder = Path(args.output_dir)
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--output-dir {folder}: not a folder")
    return folder


def _make_folder(folder: Path) -> None:
    from symattn.errors import InputError

    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"--output-dir {folder}: cannot create it: {error.strerror}") from None


def _check_spec_files(sheet: Worksheet) -> list[tuple[str, str]]:
    """A key's answers as specs for ``symattn check``: (file name, JSON) each."""
    import json

    return [(f"{name}.json", json.dumps(spec, ensure_ascii=False, indent=1) + "\n")
            for name, spec in sheet.answer_specs()]


def _export_files(name: str, formats: tuple[str, ...], sheets: list[Worksheet]
                  ) -> list[tuple[str, bytes]]:
    """(file name, content) of the answers in each platform format of ``formats``."""
    from symattn.render.exports import FORMATS, export

    return [(f"{name}{FORMATS[fmt][0]}", export(fmt, sheets)) for fmt in formats]


def run(args: argparse.Namespace) -> int:
    """The ``worksheet`` command; returns the exit status."""
    import sys

    from symattn.worksheets import sheet as worksheet

    seed = _whole("seed", args.seed, 0, 10 ** 12)
    variants = _whole("variants", args.variants, 1, worksheet.MAX_VARIANTS)
    places = _whole("places", args.places, 1, 6)
    d_k = _whole("d-k", args.d_k, 1, 16)
    jobs = _whole("jobs", args.jobs, 1, 64)
    folder = _output_folder(args, worksheet.LANGUAGES)
    exports = _exports(args.export)
    problem, sizes_spec = _spec(args)
    sheets = worksheet.build(seed=seed, variants=variants, language=args.language,
                             kinds=None if args.exercises is None else
                             worksheet.parse_kinds(args.exercises), places=places,
                             d_k=d_k, problem=problem, mistakes=_names(args.mistakes),
                             sizes_spec=sizes_spec, preset=args.preset, numbers=args.numbers)
    # A key with a number the checker does not confirm is a bug: nothing is written.
    confirmed = sum(worksheet.check_answers(sheet) for sheet in sheets)
    stems = _file_names(args.name, variants)
    documents: list[tuple[str, str]] = []
    written = _written(documents, list(zip(stems, sheets)), args)
    pdfs = _compile(written, jobs, args.engine) if args.pdf else []
    for _ in written:   # without --pdf, the documents alone (with it, none are left)
        pass
    exported = _export_files(args.name, exports, sheets)
    _make_folder(folder)
    checked = _write_set(folder, documents, pdfs, exported + [
        (f"{args.name}-answers.json", worksheet.answers_document(sheets))],
        list(zip(stems, sheets)) if args.check_specs else [], args.name)
    made = f"{len(documents)} .tex" + (f", {len(pdfs)} .pdf" if pdfs else "") + \
        f", {args.name}-answers.json" + (f", {checked} check specs" if checked else "") + \
        "".join(f", {file_name}" for file_name, _ in exported)
    print(f"symattn: wrote {variants} sheet{'s' if variants > 1 else ''} with answer keys to "
          f"{folder} ({made}); the checker confirmed all {confirmed} numeric answers",
          file=sys.stderr)
    return EXIT_OK


def _written(documents: list[tuple[str, str]], sheets: list[tuple[str, Worksheet]],
             args: argparse.Namespace) -> Iterator[str]:
    """The LaTeX of each sheet, key (and short key), appended to ``documents`` as
    (stem, LaTeX) and yielded as it is written, so that its PDF compiles while the next
    is written."""
    from symattn.render.engines import name_engine
    from symattn.render.worksheet import key_latex, sheet_latex
    from symattn.render.worksheet_short import short_key_latex

    for stem, sheet in sheets:
        kinds = [("", sheet_latex), ("-key", key_latex)] + \
            ([("-key-short", short_key_latex)] if args.short_key else [])
        for suffix, latex in kinds:
            documents.append((f"{stem}{suffix}",
                              name_engine(latex(sheet, args.template_dir), args.engine)))
            yield documents[-1][1]


def _stale(folder: Path, name: str, documents: list[tuple[str, str]], pdfs: list[bytes],
           others: list[tuple[str, str | bytes]], check_specs: list[tuple[str, Worksheet]]
           ) -> list[Path]:
    """Files of an earlier set of ``name`` that this set does not replace: NAME[-NN][-key
    [-short]].tex/.pdf, NAME[-NN]-check/ and NAME's exports."""
    import re

    from symattn.render.exports import FORMATS

    kept = {f"{stem}.tex" for stem, _ in documents} | \
        {f"{stem}.pdf" for (stem, _), _ in zip(documents, pdfs)} | \
        {file_name for file_name, _ in others} | {f"{stem}-check" for stem, _ in check_specs}
    ends = "|".join(re.escape(suffix) for suffix, _ in FORMATS.values())
    pattern = re.compile(rf"{re.escape(name)}(?:(?:-\d+)?(?:-key(?:-short)?)?\.(?:tex|pdf)"
                         rf"|(?:-\d+)?-check|{ends})")
    if not folder.is_dir():
        return []
    return sorted(path for path in folder.iterdir() if pattern.fullmatch(path.name)
                  and path.name not in kept and not path.is_symlink()
                  and (path.is_file() or path.name.endswith("-check") and path.is_dir()))


def _write_set(folder: Path, documents: list[tuple[str, str]], pdfs: list[bytes],
               others: list[tuple[str, str | bytes]],
               check_specs: list[tuple[str, Worksheet]], name: str) -> int:
    """Every file of the class set staged, then renamed into place in one pass (Ctrl-C
    and SIGTERM wait for it), and the files of an earlier set of ``name`` that this one
    does not replace taken away in the same pass: the folder holds the old set or the
    new, never a mix. Returns the number of check specs."""
    from symattn.render.files import OutputSet

    checked = 0
    with OutputSet() as files:
        for stale in _stale(folder, name, documents, pdfs, others, check_specs):
            files.remove(stale)
        for stem, tex in documents:
            files.add(folder / f"{stem}.tex", tex)
        for (stem, _), pdf in zip(documents, pdfs):
            files.add(folder / f"{stem}.pdf", pdf)
        for file_name, data in others:
            files.add(folder / file_name, data)
        for stem, sheet in check_specs:
            specs = _check_spec_files(sheet)
            checked += len(specs)
            files.add_folder(folder / f"{stem}-check", specs)
        files.commit()
    return checked


def _compile(documents: Iterable[str], jobs: int, engine: str | None = None) -> list[bytes]:
    """PDFs of the documents, compiled in parallel, in order (byte-identical runs), each
    started as soon as ``documents`` yields it; Ctrl-C or SIGTERM stops every TeX run at
    once."""
    from concurrent.futures import ThreadPoolExecutor

    from symattn.render import pdf

    def one(tex: str) -> bytes:   # one engine pass where one is enough (not latexmk's two)
        return pdf.compile_pdf(tex, engine=engine, direct=True)

    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        return list(pool.map(one, documents))
    except BaseException:
        pdf.stop_all()
        pool.shutdown(wait=True, cancel_futures=True)
        pdf.resume()
        raise
    finally:
        pool.shutdown(wait=True)
