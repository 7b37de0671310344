"""Regenerate docs/gallery/: the first page of each bundled example's PDF.

Run from the repository root (needs pdflatex and pdftoppm)::

    python -m tests.regen_gallery

Each example is rendered with the defaults of ``symattn derive --format latex``,
compiled, and its first page saved as docs/gallery/NAME.png at 60 dpi, in the
example's own language; 001-kocka-spi-venku also in English (NAME.en.png).
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GALLERY = ROOT / "docs" / "gallery"
ENGLISH = "001-kocka-spi-venku"      # the example also rendered in English


def main() -> None:
    import symattn
    from symattn.problem import examples
    from symattn.render.pdf import compile_pdf
    from symattn.api import render_latex

    GALLERY.mkdir(parents=True, exist_ok=True)
    for name in examples.names():
        try:
            derivation = symattn.derive(symattn.load_example(name))
        except symattn.SymattnError as error:
            print(f"skipped {name}: {error}")
            continue
        _page(compile_pdf(render_latex(derivation)), name)
    # The seeds' examples are in their own languages; one is shown in English too.
    english = symattn.derive(symattn.load_example(ENGLISH))
    _page(compile_pdf(render_latex(english, language="en")), f"{ENGLISH}.en")


def _page(pdf: bytes, stem: str) -> None:
    """The first page of ``pdf`` as docs/gallery/STEM.png at 60 dpi."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "doc.pdf"
        path.write_bytes(pdf)
        subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "1",
                        "-singlefile", str(path), str(GALLERY / stem)], check=True)
    print(f"wrote {GALLERY / stem}.png")


if __name__ == "__main__":
    main()
