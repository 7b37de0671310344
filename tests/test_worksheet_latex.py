"""Worksheets and keys compile with pdflatex in every language, and read right.

Each language's sheet and key (every exercise kind) is compiled once, in
parallel, plus one English sheet from a spec whose tokens mix scripts.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from latex_support import compile_all, needs_pdflatex, needs_pdftotext, pdf_text
from suite_profile import languages
from symattn import messages
from symattn.worksheets import sheet as worksheet
from symattn.render.pdf import PdfError, compile_pdf
from symattn.render.worksheet import key_latex, sheet_latex

pytestmark = needs_pdflatex
LANGUAGES = languages(messages.LANGUAGES)    # all five in the full profile

WORDS = {"en": ("Exercise 1", "Answer key", "0.001"),
         "pl": ("Zadanie 1", "Klucz odpowiedzi", "0,001"),
         "cs": ("Úloha 1", "Klíč řešení", "0,001"), "ru": ("Задание 1", "Ответы", "0,001"),
         "uk": ("Завдання 1", "Відповіді", "0,001")}
# The Ukrainian і copies out of the PDF as the Cyrillic letter (not the Latin i of its T2A slot).
SPEC = ('title = "Smíšené písmo: кіт, łódź"\ntokens = ["кіт", "łódź", "žluťoučký"]\n'
        '[inputs]\nQ = [[1, 0], [0, 1], [1, 1]]\nK = [[1, 0], [0, 1], [1, 1]]\n'
        'V = [[1, 2], [3, 4], [5, 6]]\n')


@pytest.fixture(scope="module")
def documents() -> dict[str, str]:
    from symattn.problem import spec

    out = {}
    for language in LANGUAGES:
        sheet = worksheet.build(seed=21, language=language, kinds="all")[0]
        out[f"{language}-sheet"] = sheet_latex(sheet)
        out[f"{language}-key"] = key_latex(sheet)
    problem = spec.loads(SPEC, "mixed.toml")
    mixed = worksheet.build(problem=problem, language="en",
                            kinds=("scores_row", "weights_row", "output_row"))[0]
    out["mixed-sheet"], out["mixed-key"] = sheet_latex(mixed), key_latex(mixed)
    return out


@pytest.fixture(scope="module")
def pdfs(documents: dict[str, str]) -> dict[str, bytes | PdfError]:
    return compile_all(documents)


def test_every_language_compiles(pdfs: dict[str, bytes | PdfError]) -> None:
    failed = {name: str(pdf) for name, pdf in pdfs.items() if not isinstance(pdf, bytes)}
    assert not failed


@needs_pdftotext
@pytest.mark.parametrize("language", LANGUAGES)
def test_pdf_text_is_in_the_language_with_its_decimal_separator(
        pdfs: dict[str, bytes | PdfError], language: str) -> None:
    sheet, key = pdfs[f"{language}-sheet"], pdfs[f"{language}-key"]
    assert isinstance(sheet, bytes) and isinstance(key, bytes)
    sheet_text, key_text = pdf_text(sheet), pdf_text(key)
    exercise, heading, unit = WORDS[language]
    assert exercise in sheet_text and unit in sheet_text
    assert heading in key_text


@needs_pdftotext
def test_token_names_in_any_script_print(pdfs: dict[str, bytes | PdfError]) -> None:
    sheet = pdfs["mixed-sheet"]
    assert isinstance(sheet, bytes)
    text = pdf_text(sheet)
    assert "Smíšené písmo: кіт, łódź" in text
    tokens = ("кіт", "łódź", "žluťoučký")
    assert any(f"“{token}”" in text for token in tokens)


@pytest.mark.skipif(shutil.which("pdffonts") is None, reason="pdffonts is not installed")
def test_fonts_are_scalable(pdfs: dict[str, bytes | PdfError]) -> None:
    """With cm-super installed, Cyrillic (T2A) text uses Type 1 fonts, not bitmaps."""
    if subprocess.run(["kpsewhich", "sfrm1095.pfb"], capture_output=True).returncode != 0:
        pytest.skip("cm-super (scalable T2A fonts) is not installed")
    for name in ("ru-sheet", "uk-key", "uk-sheet", "cs-sheet", "pl-sheet"):
        if name not in pdfs:      # the quick profile compiles three languages
            continue
        pdf = pdfs[name]
        assert isinstance(pdf, bytes)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "doc.pdf"
            path.write_bytes(pdf)
            fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True,
                                   check=True).stdout
        assert "Type 3" not in fonts, (name, fonts)


def test_reproducible_pdfs_are_byte_identical(documents: dict[str, str]) -> None:
    tex = documents["en-sheet"]
    assert compile_pdf(tex, reproducible=True) == compile_pdf(tex, reproducible=True)
