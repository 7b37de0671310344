"""Regenerate docs/worksheets/: page images of a sheet and of its answer key.

Run from the repository root (needs pdflatex and pdftoppm)::

    python -m tests.regen_worksheet_images

The sheets are ``symattn worksheet --seed 7`` (default exercises) in English,
Russian and Czech; the chosen pages are saved at 60 dpi.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "worksheets"
# (language, key?, page, file name)
PAGES = (("en", False, 1, "sheet-en-page1"), ("en", True, 1, "key-en-page1"),
         ("ru", False, 3, "sheet-ru-page3"), ("cs", True, 12, "key-cs-page12"))


def main() -> None:
    from symattn.worksheets import sheet as worksheet
    from symattn.render.pdf import compile_pdf
    from symattn.render.worksheet import key_latex, sheet_latex

    IMAGES.mkdir(parents=True, exist_ok=True)
    for language, key, page, name in PAGES:
        sheet = worksheet.build(seed=7, language=language)[0]
        pdf = compile_pdf(key_latex(sheet) if key else sheet_latex(sheet), reproducible=True)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "doc.pdf"
            path.write_bytes(pdf)
            subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", str(page), "-l", str(page),
                            "-singlefile", str(path), str(IMAGES / name)], check=True)
        print(f"wrote {IMAGES / name}.png")


if __name__ == "__main__":
    main()
