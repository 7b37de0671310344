"""Small PDF files written byte by byte for the PDF reader's tests (no TeX needed).

``simple_pdf(lines)`` writes one page of Helvetica text, one line per item;
``to_unicode`` maps character codes to other Unicode text (to make a glyph
that cannot be read); ``encrypted`` adds a standard security handler whose
password is not empty, so the file cannot be opened without it. ``pdflatex``
and ``chromium_pdf`` make PDFs as TeX and a browser set them.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def simple_pdf(lines: list[str], to_unicode: dict[str, str] | None = None,
               encrypted: bool = False, font: str = "Helvetica") -> bytes:
    """A one-page PDF showing ``lines`` (ASCII) in 12-point Helvetica (or ``font``, one
    of the standard fonts: ``Courier`` is monospaced)."""
    stream = "BT /F1 12 Tf 14 TL 72 720 Td " + " ".join(
        f"({_escape(line)}) Tj T*" for line in lines) + " ET"
    font_object = f"<< /Type /Font /Subtype /Type1 /BaseFont /{font}"
    objects = ["<< /Type /Catalog /Pages 2 0 R >>",
               "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
               "/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
               f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream"]
    if to_unicode:
        pairs = "".join(f"<{ord(code):02X}> <{ord(text):04X}>\n"
                        for code, text in to_unicode.items())
        cmap = ("/CIDInit /ProcSet findresource begin 12 dict begin begincmap "
                "/CMapName /Test def 1 begincodespacerange <00> <FF> endcodespacerange "
                f"{len(to_unicode)} beginbfchar\n{pairs}endbfchar endcmap "
                "CMapName currentdict /CMap defineresource pop end end")
        objects.append(font_object + " /ToUnicode 6 0 R >>")
        objects.append(f"<< /Length {len(cmap)} >>\nstream\n{cmap}\nendstream")
    else:
        objects.append(font_object + " >>")
    if encrypted:
        objects.append("<< /Filter /Standard /V 1 /R 2 /O <" + "11" * 32 + "> /U <" +
                       "22" * 32 + "> /P -4 >>")
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    trailer = f"<< /Size {len(objects) + 1} /Root 1 0 R"
    if encrypted:
        trailer += f" /Encrypt {len(objects)} 0 R /ID [<{'ab' * 16}> <{'ab' * 16}>]"
    out += f"trailer\n{trailer} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def pdflatex(tex: str, folder: Path, name: str = "doc") -> Path:
    """``tex`` compiled with pdflatex in ``folder``; the PDF's path."""
    source = folder / f"{name}.tex"
    source.write_text(tex, encoding="utf-8")
    subprocess.run([shutil.which("pdflatex") or "pdflatex", "-interaction=batchmode",
                    "-halt-on-error", source.name], cwd=folder, capture_output=True,
                   timeout=120, check=True)
    return folder / f"{name}.pdf"


def chromium_pdf(html: str, folder: Path, name: str = "page") -> Path:
    """``html`` printed to PDF by headless Chromium in ``folder``; the PDF's path."""
    page = folder / f"{name}.html"
    page.write_text(html, encoding="utf-8")
    out = folder / f"{name}.pdf"
    subprocess.run([shutil.which("chromium") or "chromium", "--headless=new", "--no-sandbox",
                    "--disable-gpu", "--no-pdf-header-footer", f"--print-to-pdf={out}",
                    page.as_uri()], cwd=folder, capture_output=True, timeout=120, check=True)
    return out
