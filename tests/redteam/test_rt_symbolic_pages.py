"""Issue 30 item 5: a symbolic page compiles whatever its steps hold.

A step with no result line (the output of a symbolic derivation with V) once left an
empty line inside its ``align*``, which TeX reads as a paragraph end: "Paragraph ended
before \\align* was complete". Every display environment must hold no blank line.
"""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest

import symattn
from cli_support import run
from symattn.render.templating import closed_displays

needs_tex = pytest.mark.skipif(shutil.which("pdflatex") is None, reason="needs pdflatex")
DISPLAY = re.compile(r"\\begin\{(align\*?|equation\*?|gather\*?|multline\*?)\}(.*?)\\end\{\1\}",
                     re.S)


def symbolic_specs(count: int, seed: int = 30) -> list[dict[str, object]]:
    """Small specs with one symbol in Q, K or V, with and without a causal mask."""
    rng = random.Random(seed)
    specs = []
    for number in range(count):
        n, d = rng.randint(2, 3), rng.randint(1, 2)
        inputs = {name: [[rng.randint(-2, 2) for _ in range(d)] for _ in range(n)]
                  for name in ("Q", "K", "V")}
        where = rng.choice(("Q", "K", "V"))
        inputs[where][rng.randrange(n)][rng.randrange(d)] = rng.choice(("a", "b", "x_1"))
        options = {"mask": "causal"} if number % 2 else {}
        specs.append({"inputs": inputs, "options": options})
    specs.append({"inputs": {"Q": [["a", 1], [0, 1]], "K": [[1, 0], [0, 1]],
                             "V": [[1], [2]]}})          # the case the red team found
    return specs


def blank_lines_in_displays(tex: str) -> list[str]:
    return [match.group(1) for match in DISPLAY.finditer(tex)
            if re.search(r"\n[ \t]*\n", match.group(2))]


def test_closed_displays_removes_only_blank_lines_inside_displays() -> None:
    tex = ("Text\n\n\\begin{align*}\nx &= 1\n  \n \\\\ &= 2\n\n\\end{align*}\n\n"
           "\\begin{equation*}\ny\n\n\\end{equation*}\nMore\n\nEnd")
    assert closed_displays(tex) == ("Text\n\n\\begin{align*}\nx &= 1\n \\\\ &= 2\n"
                                    "\\end{align*}\n\n\\begin{equation*}\ny\n"
                                    "\\end{equation*}\nMore\n\nEnd")


@pytest.mark.parametrize("spec", symbolic_specs(12), ids=lambda spec: str(spec["inputs"]))
def test_no_display_of_a_symbolic_page_holds_a_blank_line(spec: dict[str, object]) -> None:
    derivation = symattn.derive(symattn.Problem.from_mapping(spec))
    for fragment in (False, True):
        tex = symattn.render_latex(derivation, fragment=fragment)
        assert blank_lines_in_displays(tex) == []


@needs_tex
def test_the_symbolic_output_step_compiles(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text('[inputs]\nQ = [["a", 1], [0, 1]]\nK = [[1, 0], [0, 1]]\n'
                    'V = [[1], [2]]\n', encoding="utf-8")
    status, _, err = run(capsys, "derive", str(spec), "--format", "latex", "--pdf",
                         "-o", str(tmp_path / "s.tex"))
    assert status == 0, err
    assert (tmp_path / "s.pdf").read_bytes().startswith(b"%PDF")


@needs_tex
@pytest.mark.slow
@pytest.mark.parametrize("number", range(6))
def test_random_symbolic_specs_compile(number: int, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    import json

    spec = tmp_path / "s.json"
    spec.write_text(json.dumps(symbolic_specs(6, seed=31)[number]), encoding="utf-8")
    status, _, err = run(capsys, "derive", str(spec), "--format", "latex", "--pdf",
                         "-o", str(tmp_path / "s.tex"))
    assert status == 0, err
    assert (tmp_path / "s.pdf").read_bytes().startswith(b"%PDF")
