"""Large derivations stay on the page: wide matrices are set small or split,
long written-out sums show fewer terms or wrap. Checked with a real TeX run:
the log may not report a single overfull line."""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest

from latex_support import needs_pdflatex
from symattn.cli.app import main


def _spec(path: Path, n: int, d: int, projections: bool) -> Path:
    rng = random.Random(n * 100 + d)

    def matrix(rows: int, columns: int) -> str:
        return "[" + ", ".join("[" + ", ".join(str(rng.randint(-99, 99) / 100)
                                               for _ in range(columns)) + "]"
                               for _ in range(rows)) + "]"

    if projections:
        inputs = (f"X = {matrix(n, d)}\nW_Q = {matrix(d, d)}\nW_K = {matrix(d, d)}\n"
                  f"W_V = {matrix(d, d)}\n")
    else:
        inputs = f"Q = {matrix(n, d)}\nK = {matrix(n, d)}\nV = {matrix(n, d)}\n"
    path.write_text(f'title = "large"\n[inputs]\n{inputs}[options]\nmask = "causal"\n',
                    encoding="utf-8")
    return path


@needs_pdflatex
@pytest.mark.parametrize("n, d, projections", [
    (120, 16, True), pytest.param(1024, 16, False, marks=pytest.mark.slow),
    (200, 8, False), (5, 4, False)])
def test_large_derivations_have_no_overfull_lines(tmp_path, capsys, n, d, projections):
    spec = _spec(tmp_path / "large.toml", n, d, projections)
    tex = tmp_path / "large.tex"
    assert main(["derive", str(spec), "--format", "latex", "-o", str(tex)]) == 0
    capsys.readouterr()
    source = tex.read_text(encoding="utf-8")
    # at 6 digits the larger weights matrices are wider than a line; 5 x 5 is not
    assert ("smallmatrix" in source) == (n > 100)
    subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name],
                   cwd=tmp_path, capture_output=True, timeout=300, check=True)
    log = (tmp_path / "large.log").read_text(encoding="latin-1")
    overfull = re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)
    assert overfull == [], f"{len(overfull)} overfull lines, widest {max(overfull)}pt"


def test_short_sums_are_never_cut(tmp_path, capsys):
    # d = 4 fits the default 8 terms: every product is written out, none elided.
    spec = _spec(tmp_path / "small.toml", 5, 4, False)
    assert main(["derive", str(spec), "--format", "latex"]) == 0
    out = capsys.readouterr().out
    assert "q_{5,1} k_{5,1} + q_{5,2} k_{5,2} + q_{5,3} k_{5,3} + q_{5,4} k_{5,4}" in out
    # the five-term output sums are wrapped onto a second line, never elided
    assert "a_{5,1} v_{1,1} + a_{5,2} v_{2,1} + a_{5,3} v_{3,1} + a_{5,4} v_{4,1} + " \
        "a_{5,5} v_{5,1}" in out
