"""A notebook executed by a real kernel and exported by nbconvert reads right offline:
the derivation's MathML, its report and its heatmap SVG are in the export with no
MathJax and nothing fetched, ``Derivation.figure()`` shows inline, a user's own
matplotlib plot after them still shows (symattn never switches the backend), and a
step and a bare matrix show as HTML too."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
nbconvert = pytest.importorskip("nbconvert")
pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parent.parent

CELLS = [
    "import symattn\n"
    "derivation = symattn.derive(symattn.load_example('001-softmax-10-2-1'), language='en')\n"
    "report = symattn.check(derivation)",
    "derivation",
    "derivation['weights']",
    "report",
    "derivation.figure()",
    "import matplotlib.pyplot as plt\n"
    "plt.plot([0, 1, 2], [0, 1, 4])\n"
    "plt.show()",
    "derivation['weights'].value",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> object:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    folder = tmp_path_factory.mktemp("notebook")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    os.environ.pop("MPLBACKEND", None)
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(folder)}})
    client.execute()
    return notebook


def _outputs(notebook: object, cell: int) -> list[dict[str, object]]:
    return list(notebook.cells[cell].outputs)      # type: ignore[attr-defined]


def test_no_cell_failed(executed: object) -> None:
    for k in range(len(CELLS)):
        assert not [o for o in _outputs(executed, k) if o["output_type"] == "error"], k


def test_the_export_reads_offline(executed: object) -> None:
    exporter = nbconvert.HTMLExporter(template_name="basic")
    body, _ = exporter.from_notebook_node(executed)
    # the symattn cells: MathML, the report table, the heatmap, in the export as HTML
    assert "<math" in body and '<table class="report">' in body
    assert '<svg class="heatmap"' in body
    assert "mathjax" not in body.lower() and "\\begin{" not in body
    assert not re.search(r"""(?:src|href)\s*=\s*["']?(?:https?:)?//""", body)


def test_the_figure_and_the_users_plot_show(executed: object) -> None:
    for cell in (4, 5):     # derivation.figure(), then the user's own plt.plot
        images = [o for o in _outputs(executed, cell)
                  if "image/png" in o.get("data", {})]        # type: ignore[operator]
        assert len(images) == 1, (cell, _outputs(executed, cell))


def test_a_step_shows_its_matrix(executed: object) -> None:
    data = [o for o in _outputs(executed, 2) if o["output_type"] == "execute_result"][0]
    html = data["data"]["text/html"]                       # type: ignore[index]
    import mpmath

    exps = [mpmath.e ** s for s in (10, 2, 1)]     # softmax(10, 2, 1), 6 digits
    assert html.count('class="num"') == 3
    whole, rest = mpmath.nstr(exps[0] / sum(exps), 6).split(".")     # lined up on the mark
    assert f">{whole}</span>.{rest}" in html


def test_a_bare_matrix_shows_as_html(executed: object) -> None:
    data = [o for o in _outputs(executed, 6) if o["output_type"] == "execute_result"][0]
    html = data["data"]["text/html"]                       # type: ignore[index]
    assert html.count('class="num"') == 3 and '<table class="matrix">' in html
    assert "exact: exp(10)/(exp(10) + exp(2) + exp(1))" in html
