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


# ------------------------------------------------------------- the entropy matrix
def _matrix_digits(pdf: bytes) -> list[tuple[str, float, float, float, float]]:
    """The digits of the given matrix ``A = [...]`` on page 1, as (digit, left, bottom,
    right, top) in points (PDF coordinates: y grows upwards)."""
    import pypdfium2

    page = pypdfium2.PdfDocument(pdf)[0]
    text = page.get_textpage()
    chars = [(text.get_text_range(i, 1), *text.get_charbox(i)) for i in range(text.count_chars())]
    for k, (char, *box) in enumerate(chars[:-1]):
        following = [c for c in chars[k + 1:k + 4] if c[0].strip()]
        if char == "A" and following and following[0][0] == "=":
            middle = (box[1] + box[3]) / 2
            return [c for c in chars[k + 2:] if c[0].isdigit() and
                    abs((c[2] + c[4]) / 2 - middle) < 45]
    raise AssertionError("no matrix A on the page")


def _columns(digits: list[tuple[str, float, float, float, float]]
             ) -> list[list[tuple[str, float, float, float, float]]]:
    columns: list[list[tuple[str, float, float, float, float]]] = []
    for digit in sorted(digits, key=lambda d: d[1]):
        if columns and abs(digit[1] - columns[-1][-1][1]) < 4:
            columns[-1].append(digit)
        else:
            columns.append([digit])
    return columns


@pytest.mark.parametrize("language", ["en", "uk"])
def test_the_entropy_matrix_of_fractions_has_room_between_rows_and_columns(
        language: str) -> None:
    """With fractions (\\dfrac) in both rows, at least 1.3 digit heights lie between the
    first row's denominators and the second row's numerators (it was 1.0: cramped), and
    two digit heights between neighbouring columns (it was 1.75)."""
    for seed in range(40):
        sheet = worksheet.build(seed=seed, language=language, kinds=("entropy",))[0]
        rows = sheet.exercises[0].parts[1].items[0][1]       # the Given A: fragments
        if all(any("frac" in getattr(cell, "latex", "") for cell in row) for row in rows):
            break
    digits = _matrix_digits(compile_pdf(sheet_latex(sheet)))
    height = max(d[4] - d[2] for d in digits)
    middles = sorted((d[2] + d[4]) / 2 for d in digits)
    split = max(zip(middles, middles[1:]), key=lambda pair: pair[1] - pair[0])
    between = (split[0] + split[1]) / 2             # between the two rows of the matrix
    columns = _columns(digits)
    assert len(columns) == 4, columns
    for column in columns:
        upper = [d for d in column if (d[2] + d[4]) / 2 > between]
        lower = [d for d in column if (d[2] + d[4]) / 2 < between]
        assert upper and lower, column
        clearance = min(d[2] for d in upper) - max(d[4] for d in lower)
        assert clearance >= 1.3 * height, (language, seed, clearance / height, column)
    for left, right in zip(columns, columns[1:]):
        assert min(d[1] for d in right) - max(d[3] for d in left) >= 2 * height
