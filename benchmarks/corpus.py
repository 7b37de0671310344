#!/usr/bin/env python
"""How well ``symattn extract`` places the numbers of outside documents.

    python -m benchmarks.corpus                    # the sources, every example
    python -m benchmarks.corpus --form pdf         # the PDF renderings
    python -m benchmarks.corpus --form all -v      # every form, one line per example
    python -m benchmarks.corpus --infer -v         # inputs inferred without a spec
    python -m benchmarks.corpus --check -v         # false alarms and slips of check DOC

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

``--check`` runs ``python -m symattn check DOC --spec SLUG.inputs.toml -f json``
instead and compares its verdicts with the corpus's independent ones
(``truth/verdicts.json``), matching each reported number to a transcribed one by
step, position and printed text (labels differ): **false alarms** are numbers
reported wrong whose true verdict is ok or propagated, or that stand where the
transcription has no such number (a number put on a quantity it is not);
**slips found** are truly wrong numbers reported wrong or suspicious (a suspicious
number not placed counts at its nearest quantity); **slips missed** the others.
The goal: no false alarm, every slip found.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

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
    certain_wrong: int = 0      # of the numbers placed wrongly, those placed "certain"


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
    return Score(slug, counts["found"], itself["total"], counts["wrong_placed"],
                 certain_wrong=_certain_wrong(corpus, draft, truth))


def _certain_wrong(corpus: Path, draft: Path, truth: Path) -> int:
    """How many of the draft's claims placed wrongly the draft calls ``certain`` (its
    comment line before each claim says how sure it is)."""
    scored = subprocess.run([sys.executable, str(corpus / "score_extract.py"), str(draft),
                             str(truth), "-v"], capture_output=True, text=True)
    keys = {line.rsplit("(", 1)[-1].rstrip(")") for line in scored.stdout.splitlines()
            if line.strip().startswith("wrong-placed ")}
    sure = {}
    confidence = ""
    for line in draft.read_text(encoding="utf-8").splitlines():
        found = re.match(r"#\s+(certain|likely|guess):", line)
        if found:
            confidence = found.group(1)
        elif line and not line.startswith("#") and "=" in line:
            sure[line.split("=", 1)[0].strip().strip('"')] = confidence
    return sum(1 for key in keys if sure.get(key) == "certain")


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


@dataclass(frozen=True)
class CheckScore:
    slug: str
    false_alarms: int
    slips_found: int
    slips: int                 # the truly wrong numbers of the transcription
    suspicious: int            # numbers the report calls suspicious
    note: str = ""
    alarms: tuple[str, ...] = ()   # each false alarm, for -v


def scorer(corpus: Path) -> ModuleType:
    """The corpus's own ``score_extract.py``, read from the corpus (its key expansion
    and printed-text normalisation are the measure's)."""
    spec = importlib.util.spec_from_file_location("score_extract", corpus / "score_extract.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_POSITION = re.compile(r"^(?P<step>[^\[]+?)(?:\[(?P<row>\d+)(?:,(?P<column>\d+))?\])?"
                       r"(?:\.(?P<part>terms|sum)(?:\[(?P<term>\d+)\])?)?$")


def position_of(text: str) -> tuple[str, str, int, int, int] | None:
    """A report's position (``weights[3,1]``, ``scores[3,1].terms[2]``, ``weights[3].sum``,
    ``exp_sum[2]``, ``divisor``) as the scorer's (step, part, row, column, term)."""
    match = _POSITION.match(text)
    if match is None:
        return None
    step = match["step"]
    if step == "divisor":
        return (step, "divisor", 0, 0, 0)
    row, column = int(match["row"] or 1), int(match["column"] or 1)
    if match["part"] == "sum":
        return (step, "sum", row, 0, 0)
    if match["part"] == "terms":
        return (step, "term", row, column, int(match["term"] or 1))
    return (step, "entry", row, column, 0)


def truth_numbers(module: ModuleType, truth: dict[str, Any], verdicts: dict[str, Any]
                  ) -> list[tuple[tuple[str, str, int, int, int], str, str]]:
    """(position, printed text, true verdict) of every transcribed number."""
    claims, _ = module.expand(truth.get("claims") or {}, module.infer_shapes(truth),
                              module.query_positions(truth))
    found = []
    for claim in claims:
        step, part, row, column, term = claim.pos
        key = step + {"term": ".terms", "sum": ".sum"}.get(part, "") + \
            (f" @ {claim.label}" if claim.label else "")
        where = {"divisor": "1", "sum": f"{row}", "term": f"{row},{column},t{term}"}.get(
            part, f"{row},{column}")
        verdict = verdicts.get(key, {}).get(where)
        if verdict is not None:
            found.append((claim.pos, claim.text, verdict))
    return found


def _reported(module: ModuleType, report: dict[str, Any]
              ) -> list[tuple[tuple[str, str, int, int, int] | None, str, str, str]]:
    """(position, printed text, verdict, line) of every number the report judged; a
    suspicious number the report could not place stands at its nearest quantity."""
    found = []
    for claim in report.get("claims", []):
        found.append((position_of(claim["position"]), module.norm(claim["printed"]),
                      claim["verdict"], claim.get("line")))
    for number in report.get("suspicious", []):
        if not number.get("placed"):
            nearest = (number.get("nearest") or [{}])[0]
            found.append((position_of(nearest.get("position", "")),
                          module.norm(number["printed"]), "suspicious", number["line"]))
    return found


def _where(position: tuple[str, str, int, int, int] | None) -> str:
    if position is None:
        return "?"
    step, part, row, column, term = position
    return {"divisor": step, "sum": f"{step}[{row}].sum",
            "term": f"{step}[{row},{column}].terms[{term}]"}.get(part, f"{step}[{row},{column}]")


def check_one(corpus: Path, slug: str, document: Path, verdicts: dict[str, Any]) -> CheckScore:
    """``check DOC --spec`` of one example against the true verdicts."""
    module = scorer(corpus)
    done = subprocess.run([sys.executable, "-m", "symattn", "check", str(document), "--spec",
                           str(corpus / f"{slug}.inputs.toml"), "-f", "json"],
                          capture_output=True, text=True, cwd=ROOT)
    truth = truth_numbers(module, module.read_spec(str(corpus / "truth" / f"{slug}.toml")),
                          verdicts.get(slug, {}))
    slips = [t for t in truth if t[2] == "wrong"]
    if done.returncode not in (0, 1):
        last = (done.stderr.strip().splitlines() or ["no report"])[-1]
        return CheckScore(slug, 0, 0, len(slips), 0, f"check: {last[:90]}")
    reports = json.loads(done.stdout)["reports"]
    reported = [r for report in reports for r in _reported(module, report)]
    left = list(truth)            # matched one to one, in document order
    alarms, found, suspicious = [], 0, 0
    for position, text, verdict, line in reported:
        match = next((t for t in left if t[0] == position and t[1] == text), None)
        if match is not None:
            left.remove(match)
        suspicious += verdict == "suspicious"
        if match is not None and match[2] == "wrong" and verdict in ("wrong", "suspicious"):
            found += 1
        if verdict == "wrong" and (match is None or match[2] != "wrong"):
            truly = f"truly {match[2]}" if match else "not transcribed at that place"
            alarms.append(f"line {line}: {text} reported wrong at {_where(position)} "
                          f"({truly})")
    return CheckScore(slug, len(alarms), found, len(slips), suspicious, alarms=tuple(alarms))


def main_check(args: argparse.Namespace, forms: list[str]) -> int:
    """``--check``: false alarms and slips of ``check DOC --spec`` per form."""
    verdicts = json.loads((args.corpus / "truth" / "verdicts.json").read_text(encoding="utf-8"))
    print(f"{'form':<8} {'false alarms':>12} {'slips found':>12} {'missed':>7} "
          f"{'suspicious':>10}")
    for form in forms:
        scores = []
        for slug, source in examples(args.corpus):
            document = document_in(form, source)
            if args.only in slug and document.exists():
                scores.append(check_one(args.corpus, slug, document, verdicts))
        for score in scores if args.verbose else []:
            print(f"  {score.slug:<28} alarms {score.false_alarms:<3} slips "
                  f"{score.slips_found:>3}/{score.slips:<3} suspicious {score.suspicious:<3} "
                  f"{score.note}")
            for alarm in score.alarms:
                print(f"      {alarm}")
        slips = sum(s.slips for s in scores)
        found = sum(s.slips_found for s in scores)
        print(f"{form:<8} {sum(s.false_alarms for s in scores):>12} "
              f"{found:>7}/{slips:<4} {slips - found:>7} {sum(s.suspicious for s in scores):>10}")
    return 0


def unspecified_alarms(corpus: Path, source: Path, slugs: list[str],
                       verdicts: dict[str, Any]) -> list[str]:
    """``check DOC`` with no spec: each number it calls wrong whose printed text is no
    transcribed slip of the document (an upper bound on its false alarms, to read)."""
    module = scorer(corpus)
    done = subprocess.run([sys.executable, "-m", "symattn", "check", str(source), "-f", "json"],
                          capture_output=True, text=True, cwd=ROOT)
    if done.returncode not in (0, 1):
        return [f"check: {(done.stderr.strip().splitlines() or ['no report'])[-1][:90]}"]
    slips = {text for slug in slugs for _, text, verdict in truth_numbers(
        module, module.read_spec(str(corpus / "truth" / f"{slug}.toml")),
        verdicts.get(slug, {})) if verdict == "wrong"}
    return [f"line {line}: {text} reported wrong at {_where(position)}"
            for report in json.loads(done.stdout)["reports"]
            for position, text, verdict, line in _reported(module, report)
            if verdict == "wrong" and text not in slips]


def main_unspecified(args: argparse.Namespace) -> int:
    """``--check --no-spec``: what ``check DOC`` alone calls wrong that is no slip."""
    verdicts = json.loads((args.corpus / "truth" / "verdicts.json").read_text(encoding="utf-8"))
    by_source: dict[Path, list[str]] = {}
    for slug, source in examples(args.corpus):
        if args.only in slug:
            by_source.setdefault(source, []).append(slug)
    total = 0
    for source, slugs in by_source.items():
        alarms = unspecified_alarms(args.corpus, source, slugs, verdicts)
        total += len(alarms)
        print(f"  {source.name:<32} wrong and no slip: {len(alarms)}")
        for alarm in alarms if args.verbose else []:
            print(f"      {alarm}")
    print(f"check DOC without a spec: {total} numbers called wrong that are no transcribed slip")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--form", choices=[*FORMS, "all"], default="source")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--only", default="", help="only the examples whose slug contains this")
    parser.add_argument("-v", "--verbose", action="store_true", help="a line per example")
    parser.add_argument("--infer", action="store_true",
                        help="measure the inputs extract infers without a spec")
    parser.add_argument("--check", action="store_true",
                        help="run check DOC --spec and count false alarms and slips found "
                             "against truth/verdicts.json")
    parser.add_argument("--no-spec", action="store_true",
                        help="with --check: run check DOC without the inputs files")
    args = parser.parse_args(argv)
    if not (args.corpus / "score_extract.py").exists():
        print(f"no corpus at {args.corpus}", file=sys.stderr)
        return 2
    if args.infer:
        return infer(args.corpus, args.only, args.verbose)
    forms = list(FORMS) if args.form == "all" else [args.form]
    if args.check and args.no_spec:
        return main_unspecified(args)
    if args.check:
        return main_check(args, forms)
    print(f"{'form':<8} {'placed':>13} {'placed wrongly':>15} {'of them certain':>17}")
    with tempfile.TemporaryDirectory() as work:
        for form in forms:
            scores = []
            for slug, source in examples(args.corpus):
                document = document_in(form, source)
                if args.only in slug and document.exists():
                    scores.append(score_one(args.corpus, slug, document, Path(work)))
            for score in scores if args.verbose else []:
                print(f"  {score.slug:<28} {score.found:>4}/{score.total:<4} "
                      f"wrong {score.wrong_placed:<3} certain {score.certain_wrong:<3} "
                      f"{score.note}")
            found = sum(s.found for s in scores)
            total = sum(s.total for s in scores)
            wrong = sum(s.wrong_placed for s in scores)
            certain = sum(s.certain_wrong for s in scores)
            share = f"{100 * found / total:.1f}%" if total else "-"
            print(f"{form:<8} {found:>4}/{total:<4} {share:>6} {wrong:>15} {certain:>17}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
