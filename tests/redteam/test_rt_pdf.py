"""Issue 19 item 11: ``--pdf`` on valid specs that TeX used to refuse.

Symbols SymPy prints with a macro of a package the documents do not load
(``xscr`` -> ``\\mathscr``) or as bare underscores (``_``, ``__``); a claim label
of 3,500 characters in math ("Dimension too large"); a line longer than TeX's
buffer (a 256 x 256 matrix on one line), which TeX reports without an error line.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from cli_support import run
from symattn.errors import PdfError
from symattn.render.pdf import compile_pdf
from symattn.render.templating import break_long_lines

needs_tex = pytest.mark.skipif(shutil.which("pdflatex") is None, reason="needs pdflatex")


def _spec(tmp_path: Path, text: str) -> str:
    path = tmp_path / "s.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@needs_tex
def test_symbols_sympy_would_print_with_unloaded_macros(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = _spec(tmp_path, '[inputs]\nQ = [["xscr", "_"], ["__", "a__b"]]\n'
                           'K = [[1, 0], [0, 1]]\nV = [[1, 2], [3, 4]]\n')
    status, _, err = run(capsys, "derive", spec, "--format", "latex", "--pdf",
                         "-o", str(tmp_path / "s.tex"))
    assert status == 0, err
    assert (tmp_path / "s.pdf").read_bytes().startswith(b"%PDF")


@needs_tex
def test_a_long_claim_label(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Q = K = I, d_k = 2: weight (1,1) = e^(1/sqrt 2) / (e^(1/sqrt 2) + 1) = 0.66976...
    label = "x" * 3500
    spec = _spec(tmp_path, '[inputs]\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1]]\n'
                           f'V = [[1, 2], [3, 4]]\n[claims]\n"weights[1,1] @ {label}" = '
                           '"0.6698"\n"weights[1,2] @ ' + "y " * 700 + '" = "0.3302"\n')
    status, _, err = run(capsys, "derive", spec, "--format", "latex", "--pdf",
                         "-o", str(tmp_path / "s.tex"))
    assert status == 0, err
    tex = (tmp_path / "s.tex").read_text(encoding="utf-8")
    assert tex.count("x\\allowbreak{}") == 39            # 39 characters and an ellipsis
    assert "y " * 21 not in tex


def _document(line: str) -> str:
    return "\\documentclass{article}\n\\begin{document}\n" + line + "\n\\end{document}\n"


def test_long_lines_are_broken_at_spaces() -> None:
    line = " ".join(f"w{k}" for k in range(100_000))
    broken = break_long_lines(_document(line))
    assert max(len(part) for part in broken.split("\n")) <= 2000
    assert broken.split() == _document(line).split()      # the same words, the same order
    commented = "% " + "x " * 2000
    assert break_long_lines(commented) == commented          # a comment stays one line


@needs_tex
def test_a_line_longer_than_tex_reads(tmp_path: Path) -> None:
    line = " ".join(["word"] * 60_000)                        # 300,000 characters
    with pytest.raises(PdfError) as raised:
        compile_pdf(_document(line))
    assert "no error message" not in str(raised.value)
    assert compile_pdf(break_long_lines(_document(line))).startswith(b"%PDF")


SYMBOLIC = {
    "projections": '[inputs]\nX = [[1, 0], [0, 1]]\nW_Q = [["a", 0], [0, 1]]\n'
                   'W_K = [[1, 0], [0, "b"]]\nW_V = [[1, 2], [3, 4]]\n',
    "one query": '[inputs]\nQ = [["a"]]\nK = [["b"], ["c"]]\nV = [[1], [2]]\n',
    "symbolic V": '[inputs]\nQ = [["a", "b"]]\nK = [["c", "d"]]\nV = [["v"]]\n',
    "square": '[inputs]\nQ = [["a", "b"], ["c", "d"]]\nK = [["e", "f"], ["g", "h"]]\n'
              'V = [["v", 2], [3, 4]]\n',
}


@pytest.mark.parametrize("name", sorted(SYMBOLIC))
def test_no_empty_line_inside_an_alignment(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                           name: str) -> None:
    """An empty line inside align* is a paragraph break TeX refuses there."""
    import re

    spec = _spec(tmp_path, SYMBOLIC[name])
    status, _, err = run(capsys, "derive", spec, "--format", "latex", "-o",
                         str(tmp_path / "s.tex"))
    assert status == 0, err
    tex = (tmp_path / "s.tex").read_text(encoding="utf-8")
    blocks = re.findall(r"\\begin\{(align\*?|aligned)\}(.*?)\\end\{\1\}", tex, re.S)
    assert blocks
    assert not [body for _, body in blocks if re.search(r"\n[ \t]*\n", body)]
