#!/usr/bin/env python
"""How well ``symattn extract`` places the numbers of outside documents.

    python -m benchmarks.corpus                    # the sources, every example
    python -m benchmarks.corpus --form pdf         # the PDF renderings
    python -m benchmarks.corpus --form all -v      # every form, one line per example
    python -m benchmarks.corpus --infer -v         # inputs inferred without a spec

It reads the development corpus in ``../shared/corpus`` (outside documents with
hand transcriptions; see its README) and, for each transcribed example, runs
``python -m symattn extract DOC --spec SLUG.inputs.toml`` on the document in the
chosen form, then scores the draft with the corpus's own ``score_extract.py``:
the transcribed numbers placed at their step and position, and the numbers put
on another step or position ("placed wrongly"). Nothing of the corpus is copied
into the project; without the corpus this prints so and exits with status 2.

``--infer`` measures ``extract DOC`` without a spec instead: for each transcribed
example, whether one of the drafts made from its document (``DRAFT.toml``,
``DRAFT-2.toml`` ...) is the same computation as ``SLUG.inputs.toml``: the same
attention weights and outputs, compared numerically.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"
FORMS = {"source": None, "mathjax": ".mathjax.html", "mathml": ".mathml.html", "pdf": ".pdf"}


@dataclass(frozen=True)
class Score:
    slug: str
    found: int
    total: int
    wrong_placed: int
    note: str = ""


def examples(corpus: Path) -> list[tuple[str, Path]]:
    """(slug, source document) of every transcribed example."""
    found = []
    for inputs in sorted(corpus.glob("*.inputs.toml")):
        match = re.search(r"^# Document: (\S+)", inputs.read_text(encoding="utf-8"), re.M)
        if match:
            found.append((inputs.name.removesuffix(".inputs.toml"), corpus / match.group(1)))
    return found


def document_in(form: str, source: Path) -> Path:
    suffix = FORMS[form]
    return source if suffix is None else source.parent / "rendered" / (source.stem + suffix)


def score_one(corpus: Path, slug: str, document: Path, work: Path) -> Score:
    draft = work / f"{slug}.toml"
    done = subprocess.run([sys.executable, "-m", "symattn", "extract", str(document), "--spec",
                           str(corpus / f"{slug}.inputs.toml"), "-o", str(draft)],
                          capture_output=True, text=True, cwd=ROOT)
    truth = corpus / "truth" / f"{slug}.toml"
    itself = _scored(corpus, truth, truth)
    if itself is None:
        return Score(slug, 0, 0, 0, "the truth is not scorable")
    if done.returncode != 0 or not draft.exists():
        last = (done.stderr.strip().splitlines() or ["no draft"])[-1]
        return Score(slug, 0, itself["total"], 0, f"extract: {last[:90]}")
    counts = _scored(corpus, draft, truth) or {"found": 0, "wrong_placed": 0}
    return Score(slug, counts["found"], itself["total"], counts["wrong_placed"])


def _scored(corpus: Path, draft: Path, truth: Path) -> dict[str, int] | None:
    """The scorer's counts, or None when it cannot score."""
    scored = subprocess.run([sys.executable, str(corpus / "score_extract.py"), str(draft),
                             str(truth), "--json"], capture_output=True, text=True)
    if scored.returncode != 0:
        return None
    counts: dict[str, int] = json.loads(scored.stdout.strip().splitlines()[-1])
    return counts


def _drafts(document: Path, work: Path) -> list[Path]:
    """The drafts ``extract DOC`` writes without a spec (none when it finds no inputs)."""
    out = work / (document.stem + ".draft.toml")
    subprocess.run([sys.executable, "-m", "symattn", "extract", str(document), "-o", str(out)],
                   capture_output=True, text=True, cwd=ROOT)
    found = [out] if out.exists() else []
    number = 2
    while (work / f"{document.stem}.draft-{number}.toml").exists():
        found.append(work / f"{document.stem}.draft-{number}.toml")
        number += 1
    return found


def _results(text: str) -> dict[str, list[list[float | None]]] | None:
    """The weights and outputs a spec computes (every head's), as floats."""
    sys.path.insert(0, str(ROOT))
    from symattn.derivation import pipeline
    from symattn.errors import SymattnError
    from symattn.extract.candidates import Candidates
    from symattn.problem import spec

    try:
        grid = Candidates(pipeline.derive(spec.loads(text))).grid
    except SymattnError:
        return None
    return {name: rows for name, rows in grid.items()
            if name.endswith("weights") or name.endswith("output")}


def _same(draft: dict[str, list[list[float | None]]],
          truth: dict[str, list[list[float | None]]]) -> bool:
    if not truth or set(truth) - set(draft):
        return False
    for name, rows in truth.items():
        other = draft[name]
        if len(rows) != len(other) or any(len(a) != len(b) for a, b in zip(rows, other)):
            return False
        for a, b in zip((x for r in rows for x in r), (x for r in other for x in r)):
            if (a is None) != (b is None) or a is not None and b is not None and \
                    abs(a - b) > 1e-9 * max(1.0, abs(a)):
                return False
    return True


def infer(corpus: Path, only: str, verbose: bool) -> int:
    """``--infer``: per example, the draft (if any) that is its computation."""
    with tempfile.TemporaryDirectory() as work:
        drafts: dict[Path, list[Path]] = {}
        matched = total = 0
        print(f"{'example':<28} {'drafts':>6}  matched by")
        for slug, source in examples(corpus):
            if only not in slug:
                continue
            if source not in drafts:
                drafts[source] = _drafts(source, Path(work))
            truth = _results((corpus / f"{slug}.inputs.toml").read_text(encoding="utf-8"))
            found = [k for k, path in enumerate(drafts[source], start=1)
                     if truth and (d := _results(path.read_text(encoding="utf-8"))) and
                     _same(d, truth)]
            total += 1
            matched += bool(found)
            if verbose:
                where = f"draft {found[0]}" if found else "-"
                print(f"  {slug:<26} {len(drafts[source]):>6}  {where}")
        share = f"{100 * matched / total:.1f}%" if total else "-"
        documents = len(drafts)
        made = sum(len(d) for d in drafts.values())
        print(f"inputs inferred: {matched}/{total} examples ({share}); "
              f"{made} drafts from {documents} documents")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--form", choices=[*FORMS, "all"], default="source")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--only", default="", help="only the examples whose slug contains this")
    parser.add_argument("-v", "--verbose", action="store_true", help="a line per example")
    parser.add_argument("--infer", action="store_true",
                        help="measure the inputs extract infers without a spec")
    args = parser.parse_args(argv)
    if not (args.corpus / "score_extract.py").exists():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    if args.infer:
        return infer(args.corpus, args.only, args.verbose)
    forms = list(FORMS) if args.form == "all" else [args.form]
    print(f"{'form':<8} {'placed':>13} {'placed wrongly':>15}")
    with tempfile.TemporaryDirectory() as work:
        for form in forms:
            scores = []
            for slug, source in examples(args.corpus):
                document = document_in(form, source)
                if args.only in slug and document.exists():
                    scores.append(score_one(args.corpus, slug, document, Path(work)))
            for score in scores if args.verbose else []:
                print(f"  {score.slug:<28} {score.found:>4}/{score.total:<4} "
                      f"wrong {score.wrong_placed:<3} {score.note}")
            found = sum(s.found for s in scores)
            total = sum(s.total for s in scores)
            wrong = sum(s.wrong_placed for s in scores)
            share = f"{100 * found / total:.1f}%" if total else "-"
            print(f"{form:<8} {found:>4}/{total:<4} {share:>6} {wrong:>15}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
