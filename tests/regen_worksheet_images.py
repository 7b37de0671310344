"""Regenerate docs/worksheets/: page images of lesson sheets and their short keys.

Run from the repository root (needs pdflatex and pdftoppm)::

    python -m tests.regen_worksheet_images

The sheets are ``symattn worksheet --preset lesson45 --seed 7 --language L``
in all five languages (both pages of the sheet and the short key's first
page), one calculator-free lesson in Polish, and the first page of an English
full key; every page is saved at 60 dpi.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "worksheets"
LANGUAGES = ("en", "pl", "cs", "ru", "uk")
# (file name, language, numbers, document: sheet / key / short, pages)
DOCUMENTS = tuple((f"lesson45-{language}", language, "standard", "sheet", (1, 2))
                  for language in LANGUAGES) + \
    tuple((f"lesson45-{language}-short-key", language, "standard", "short", (1,))
          for language in LANGUAGES) + \
    (("lesson45-pl-calculator-free", "pl", "calculator-free", "sheet", (1, 2)),
     ("lesson45-pl-calculator-free-short-key", "pl", "calculator-free", "short", (1,)),
     ("lesson45-en-key", "en", "standard", "key", (1,)))


def main() -> None:
    from symattn.worksheets import sheet as worksheet
    from symattn.render.pdf import compile_pdf
    from symattn.render.worksheet import key_latex, sheet_latex
    from symattn.render.worksheet_short import short_key_latex

    render = {"sheet": sheet_latex, "key": key_latex, "short": short_key_latex}
    IMAGES.mkdir(parents=True, exist_ok=True)
    for old in IMAGES.glob("*.png"):
        old.unlink()
    for name, language, numbers, document, pages in DOCUMENTS:
        sheet = worksheet.build(seed=7, language=language, preset="lesson45",
                                numbers=numbers)[0]
        pdf = compile_pdf(render[document](sheet), reproducible=True)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "doc.pdf"
            path.write_bytes(pdf)
            for page in pages:
                target = IMAGES / (f"{name}-page{page}" if len(pages) > 1 else name)
                subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", str(page), "-l",
                                str(page), "-singlefile", str(path), str(target)], check=True)
                print(f"wrote {target}.png")


if __name__ == "__main__":
    main()
