"""The golden files: one derivation per language, rendered as LaTeX and Markdown.

tests/test_latex_golden.py compares the renderers' output with the files in
tests/golden/. After an intended change of the output, regenerate them from
the repository root and review the diff (and the compiled PDF) by eye::

    python -m tests.regen_golden
    git diff tests/golden/
"""

from __future__ import annotations

from pathlib import Path

GOLDEN = Path(__file__).resolve().parent / "golden"
# (example, language): each seed's own example in its language, and English.
CASES = (("001-softmax-10-2-1", "en"), ("000-cat-chases-mouse", "pl"),
         ("001-kocka-spi-venku", "cs"), ("003-positions-sinusoidal", "ru"),
         ("004-cat-eats-fish", "uk"))


def rendered_case(example: str, language: str) -> dict[str, str]:
    """File name -> expected text of one case (the version number replaced by VERSION)."""
    import symattn
    from symattn._version import __version__
    from symattn.api import render_latex
    from symattn.api import render_markdown

    derivation = symattn.derive(symattn.load_example(example))
    stem = f"{example}.{language}"
    texts = {f"{stem}.tex": render_latex(derivation, language=language),
             f"{stem}.md": render_markdown(derivation, language=language)}
    return {name: text.replace(f"symattn {__version__}", "symattn VERSION")
            for name, text in texts.items()}


def rendered() -> dict[str, str]:
    """File name -> expected text of every case."""
    return {name: text for example, language in CASES
            for name, text in rendered_case(example, language).items()}


def main() -> None:
    GOLDEN.mkdir(exist_ok=True)
    for name, text in rendered().items():
        (GOLDEN / name).write_text(text, encoding="utf-8")
        print(f"wrote {GOLDEN / name}")


if __name__ == "__main__":
    main()
