"""Helpers for the LaTeX tests: compile many documents at once, read PDFs as text.

Compiling is the slow part (about a second a document), so the tests compile
each document once, in parallel, and share the results.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from symattn.render.pdf import PdfError, compile_pdf

HAVE_PDFLATEX = shutil.which("pdflatex") is not None
HAVE_PDFTOTEXT = shutil.which("pdftotext") is not None
needs_pdflatex = pytest.mark.skipif(not HAVE_PDFLATEX, reason="pdflatex is not installed")
needs_pdftotext = pytest.mark.skipif(not (HAVE_PDFLATEX and HAVE_PDFTOTEXT),
                                     reason="pdflatex or pdftotext is not installed")


def compile_all(documents: dict[str, str]) -> dict[str, bytes | PdfError]:
    """Compile every document (name -> LaTeX); a failure is kept as its PdfError."""
    def one(tex: str) -> bytes | PdfError:
        try:
            return compile_pdf(tex)
        except PdfError as error:
            return error

    with ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(one, documents.values()))
    return dict(zip(documents, results))


def pdf_text(pdf: bytes) -> str:
    """The text of a PDF as pdftotext reads it (layout kept, one line per line)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "doc.pdf"
        path.write_bytes(pdf)
        result = subprocess.run(["pdftotext", "-enc", "UTF-8", str(path), "-"],
                                capture_output=True, check=True, timeout=60)
    return result.stdout.decode("utf-8")
