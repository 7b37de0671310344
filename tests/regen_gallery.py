"""Regenerate docs/gallery/: the first page of each bundled example's PDF.

Run from the repository root (needs pdflatex and pdftoppm)::

    python -m tests.regen_gallery

Each example is rendered with the defaults of ``symattn derive --format latex``,
compiled, and its first page saved as docs/gallery/NAME.png at 60 dpi.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GALLERY = ROOT / "docs" / "gallery"


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
        pdf = compile_pdf(render_latex(derivation))
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "doc.pdf"
            path.write_bytes(pdf)
            subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "1",
                            "-singlefile", str(path), str(GALLERY / name)], check=True)
        print(f"wrote {GALLERY / name}.png")


if __name__ == "__main__":
    main()
