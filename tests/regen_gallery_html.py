"""Regenerate docs/gallery/html/: each bundled example as an HTML page, and its picture.

Run from the repository root (needs Chromium, chromium-driver and selenium)::

    python -m tests.regen_gallery_html

Every example is written with ``symattn derive --format html`` in its own
language (NAME.derive.html), and an example with printed numbers also with
``symattn check --format html`` (NAME.check.html; a size spec has only that);
``EXPLORE`` names the example each explore report is shown with
(NAME.COMMAND.html). Each page is photographed in headless Chromium, 1000
pixels wide: a derivation at its heatmap (the softmax tables of the weights
above it), a report at its top (the problems first), stored in 64 colours.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from tests.browser_support import chromium

ROOT = Path(__file__).resolve().parent.parent
GALLERY = ROOT / "docs" / "gallery" / "html"
WIDTH, HEIGHT = 1000, 760
EXPLORE = (("sweep", "003-entropy-temperature"), ("whatif", "000-cat-chases-mouse"),
           ("permute", "000-cat-chases-mouse"), ("kvcache", "000-cat-chases-mouse"))


def main() -> None:
    import symattn
    from symattn.cli.app import main as cli
    from symattn.problem import examples

    GALLERY.mkdir(parents=True, exist_ok=True)
    pages = []
    for name in examples.names():
        try:
            commands = ("derive", "check") if symattn.load_example(name).claims else \
                ("derive",)
        except symattn.SymattnError:        # a size spec: its report only
            commands = ("check",)
        for command in commands:
            target = GALLERY / f"{name}.{command}.html"
            status = cli([command, "--example", name, "-f", "html", "-o", str(target)])
            if status not in (0, 1):
                print(f"skipped {name} {command}: status {status}")
                continue
            pages.append(target)
    for command, name in EXPLORE:
        target = GALLERY / f"{name}.{command}.html"
        assert cli([command, "--example", name, "-f", "html", "-o", str(target)]) == 0
        pages.append(target)
    with chromium(WIDTH, HEIGHT) as browser:
        for page in pages:
            _picture(browser, page)


def _picture(browser: Any, page: Path) -> None:
    from PIL import Image

    browser.get(page.as_uri())
    # the heatmap at the bottom, the weights' softmax tables above it
    browser.execute_script("const f = document.querySelector('figure.heatmap');"
                           "if (f) f.scrollIntoView({block: 'end'});")
    image = Image.open(io.BytesIO(browser.get_screenshot_as_png())).convert("RGB")
    small = image.quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    target = page.with_suffix(".png")
    small.save(target, optimize=True)
    print(f"wrote {target.relative_to(ROOT)} ({target.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
