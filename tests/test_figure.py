"""The weights drawn as a heatmap (the ``plot`` extra): the numbers drawn are the
weights, the labels the tokens, the files real images, and without matplotlib a
clear error."""

from __future__ import annotations

import builtins
import math
from pathlib import Path
from typing import Any

import pytest

import symattn
from cli_support import run
from symattn.errors import FigureError
from symattn.render import figure

try:
    import matplotlib  # noqa: F401
    HAVE_MATPLOTLIB = True
except ImportError:
    HAVE_MATPLOTLIB = False
needs_matplotlib = pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="matplotlib is not installed")


def test_panels_hold_the_weights_and_the_tokens() -> None:
    derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
    panel = figure.weights_panels(derivation)[0]
    total = math.exp(10) + math.exp(2) + math.exp(1)
    expected = [math.exp(10) / total, math.exp(2) / total, math.exp(1) / total]
    assert panel.values[0] == pytest.approx(expected, rel=1e-5)
    problem = symattn.Problem.from_mapping({"tokens": ["kočka", "spí"],
                                            "inputs": {"scaled": [[0, 0], [1, 0]]}})
    panel = figure.weights_panels(symattn.derive(problem), locale="cs")[0]
    assert panel.rows == ("kočka", "spí") and panel.columns == ("kočka", "spí")
    assert panel.cells[0] == ("0,50", "0,50")
    assert panel.values[1][0] == pytest.approx(math.e / (math.e + 1), rel=1e-5)


def test_one_panel_per_head() -> None:
    derivation = symattn.derive(symattn.load_example("003-multi-head"))
    titles = [panel.title for panel in figure.weights_panels(derivation)]
    assert len(titles) >= 2 and all(titles)


@needs_matplotlib
@pytest.mark.parametrize("suffix, magic", [(".png", b"\x89PNG"), (".svg", b"<?xml"),
                                           (".pdf", b"%PDF")])
def test_images_are_written(tmp_path: Path, suffix: str, magic: bytes) -> None:
    derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
    path = tmp_path / f"weights{suffix}"
    figure.save_weights_figure(derivation, path, "pl")
    assert path.read_bytes().startswith(magic)


@needs_matplotlib
def test_markdown_links_the_figure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out, image = tmp_path / "page.md", tmp_path / "img" / "weights.png"
    image.parent.mkdir()
    status, _, err = run(capsys, "derive", "--example", "000-cat-chases-mouse", "--format",
                         "markdown", "--figure", str(image), "-o", str(out))
    assert status == 0, err
    assert out.read_text(encoding="utf-8").endswith("(img/weights.png)\n")
    assert image.read_bytes().startswith(b"\x89PNG")


def test_figure_needs_markdown_and_a_known_suffix(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "derive", "--example", "000-cat-chases-mouse", "--format",
                         "latex", "--figure", str(tmp_path / "w.png"))
    assert status == 2 and "--figure draws the weights for --format markdown" in err
    status, _, err = run(capsys, "derive", "--example", "000-cat-chases-mouse", "--format",
                         "markdown", "--figure", str(tmp_path / "w.gif"))
    assert status == 2 and ".png, .svg, .pdf" in err
    assert not (tmp_path / "w.gif").exists()


def test_without_matplotlib_the_error_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
    with pytest.raises(FigureError, match=r"pip install 'symattn\[plot\]'"):
        figure.weights_figure(derivation)
    status, _, err = run(capsys, "derive", "--example", "001-softmax-10-2-1", "--format",
                         "markdown", "--figure", str(tmp_path / "w.png"))
    assert status == 2 and "matplotlib" in err and "Traceback" not in err
