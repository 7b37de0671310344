"""Any script compiles: the engine choice, Cyrillic under pdflatex, Greek and CJK
under lualatex/xelatex, and the text copied out of the PDF is the text put in.

Each document is compiled once by the module fixture; the engines that are not
installed are skipped.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import symattn
from symattn import messages
from latex_support import needs_pdftotext, pdf_text
from symattn.api import render_latex
from symattn.cli.app import main
from symattn.render import engines
from symattn.render import pdf
from symattn.render import worked
from symattn.render.pdf import PdfError, compile_pdf

GREEK, CHINESE = "γάτα", "猫吃鱼"
CYRILLIC = {"ru": "кошка", "uk": "кіт"}      # і: U+0456, not the Latin i
SCORES = [[1, 2, 3], [0, 1, "-inf"], [1, 1, 1]]


def _needs(engine: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(shutil.which(engine) is None or shutil.which("pdftotext") is None,
                              reason=f"{engine} or pdftotext is not installed")


def _spec(tokens: list[str], title: str) -> symattn.Problem:
    return symattn.Problem.from_mapping({"title": title, "tokens": tokens,
                                         "inputs": {"scaled": SCORES}})


@pytest.fixture(scope="module")
def scripts() -> str:
    """A derivation whose token names are Greek and Chinese."""
    return render_latex(symattn.derive(_spec([GREEK, CHINESE, "mouse"], f"{GREEK} {CHINESE}")))


@pytest.fixture(scope="module")
def cyrillic() -> dict[str, str]:
    """ru and uk derivations with Cyrillic token names, in their own language."""
    return {language: render_latex(symattn.derive(_spec([word, "b", "c"], word)),
                                   worked.Options(language=language))
            for language, word in CYRILLIC.items()}


# ----------------------------------------------------------------- the choice
def test_auto_chooses_lualatex_only_for_what_pdflatex_cannot_set(
        scripts: str, cyrillic: dict[str, str]) -> None:
    assert engines.magic_engine(scripts) == "lualatex"
    assert "Compile with lualatex." in scripts.split("\n", 1)[0]
    for tex in cyrillic.values():       # Cyrillic is pdflatex's (T2A)
        assert engines.magic_engine(tex) == "pdflatex"
    assert engines.choose("auto", "\\symattncyr{кіт} kočka") == "pdflatex"
    assert engines.choose("auto", "\\symattnsym{1F600}") == "lualatex"
    assert engines.choose("xelatex", "") == "xelatex"
    with pytest.raises(ValueError, match="unknown TeX engine"):
        engines.choose("context", "")


def test_the_language_sets_babel_and_the_font_encoding(cyrillic: dict[str, str]) -> None:
    assert "\\usepackage[T1,T2A]{fontenc}" in cyrillic["uk"]
    assert "\\usepackage[ukrainian]{babel}" in cyrillic["uk"]
    assert "\\usepackage[russian]{babel}" in cyrillic["ru"]
    assert "ActualText=0456" in cyrillic["uk"]


def test_an_engine_named_on_the_command_line_is_named_in_the_file(tmp_path: Path) -> None:
    out = tmp_path / "d.tex"
    assert main(["derive", "--example", "001-softmax-10-2-1", "--format", "latex",
                 "--engine", "xelatex", "-o", str(out)]) == 0
    head = out.read_text(encoding="utf-8").split("\\documentclass")[0]
    assert "% !TEX program = xelatex" in head and "Compile with xelatex." in head


def test_a_missing_engine_is_named_with_its_package(monkeypatch: pytest.MonkeyPatch,
                                                    scripts: str) -> None:
    monkeypatch.setattr(pdf.shutil, "which", lambda name: None if "lua" in name else name)
    with pytest.raises(PdfError) as error:
        compile_pdf(scripts)
    message = str(error.value)
    assert "lualatex is not installed" in message and "Greek, CJK or emoji" in message
    assert "texlive-luatex" in message and "fonts-wqy-microhei" in message
    monkeypatch.setattr(pdf.shutil, "which", lambda name: None)
    with pytest.raises(PdfError, match="xelatex is not installed.*texlive-xetex"):
        compile_pdf(scripts, engine="xelatex")


def test_missing_engine_on_the_command_line_exits_2(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path) -> None:
    monkeypatch.setattr(pdf.shutil, "which", lambda name: None)
    assert main(["derive", "--example", "001-softmax-10-2-1", "--pdf", "--engine", "lualatex",
                 "-o", str(tmp_path / "x.pdf")]) == 2
    err = capsys.readouterr().err
    assert "lualatex is not installed" in err and "Traceback" not in err


# ------------------------------------------------------------------ compiling
@pytest.mark.slow
@_needs("lualatex")
def test_greek_and_chinese_token_names_copy_out_of_the_pdf(scripts: str) -> None:
    text = pdf_text(compile_pdf(scripts))
    assert GREEK in text and CHINESE in text
    assert "[U+" not in text


@_needs("xelatex")
def test_xelatex_sets_them_too(scripts: str) -> None:
    text = pdf_text(compile_pdf(scripts, engine="xelatex"))
    assert GREEK in text and CHINESE in text


@needs_pdftotext
def test_pdflatex_names_the_characters_it_cannot_set(scripts: str) -> None:
    text = pdf_text(compile_pdf(scripts, engine="pdflatex"))
    assert "[U+03B3]" in text and "[U+732B]" in text


@needs_pdftotext
@pytest.mark.parametrize("language", sorted(CYRILLIC))
def test_russian_and_ukrainian_compile_and_copy_as_cyrillic(
        cyrillic: dict[str, str], language: str) -> None:
    text = pdf_text(compile_pdf(cyrillic[language]))
    word = CYRILLIC[language]
    assert word in text                  # кіт with the Cyrillic і (U+0456)
    heading = messages.load(language).fill("step.heading", number="1", heading="")
    assert heading.split("~")[0].split()[0] in text      # the catalog's word for "step"
    latin = word.replace("\u0456", "i")
    assert latin == word or latin not in text


def test_reports_and_worksheets_take_the_engine(tmp_path: Path) -> None:
    out = tmp_path / "sizes.tex"
    assert main(["sizes", "--d-model", "64", "--heads", "2", "--seq-len", "16", "--format",
                 "latex", "--engine", "lualatex", "-o", str(out)]) == 0
    assert "% !TEX program = lualatex" in out.read_text(encoding="utf-8")
    folder = tmp_path / "sheets"
    assert main(["worksheet", "--language", "uk", "--engine", "xelatex", "-o",
                 str(folder)]) == 0
    tex = (folder / "worksheet.tex").read_text(encoding="utf-8")
    assert "% !TEX program = xelatex" in tex and "\\usepackage[ukrainian]{babel}" in tex
