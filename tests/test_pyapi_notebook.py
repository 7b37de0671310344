"""A notebook executed by a real Jupyter kernel (nbclient + ipykernel) shows a Report
and a Derivation as HTML, Markdown and LaTeX, and ``to_frame()`` has one row per claim."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parent.parent

CELLS = [
    "import symattn\n"
    "problem = symattn.load_example('000-cat-chases-mouse')\n"
    "derivation = symattn.derive(problem, language='en')\n"
    "report = symattn.check(derivation)",
    "report",
    "derivation",
    "derivation.display(places=2, language='cs', rows=2)",
    "frame = report.to_frame()\n"
    "print(frame.shape[0], len(report.verdicts), list(frame.columns)[:4])",
]


@pytest.fixture(scope="module")
def executed(tmp_path_factory: pytest.TempPathFactory) -> object:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    folder = tmp_path_factory.mktemp("notebook")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])])
    client = nbclient.NotebookClient(notebook, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(folder)}})
    client.execute()
    return notebook


def _data(notebook: object, cell: int) -> dict[str, str]:
    outputs = notebook.cells[cell].outputs      # type: ignore[attr-defined]
    results = [o for o in outputs if o.output_type == "execute_result"]
    assert len(results) == 1, outputs
    return dict(results[0].data)


def test_the_kernel_uses_this_symattn(executed: object) -> None:
    outputs = executed.cells[0].outputs          # type: ignore[attr-defined]
    assert not [o for o in outputs if o.output_type == "error"]


def test_a_report_shows_as_a_verdict_table(executed: object) -> None:
    data = _data(executed, 1)
    html, markdown = data["text/html"], data["text/markdown"]
    # a row per entry and judgement, under one heading row: the example prints 154
    # numbers, and the printings of one entry judged alike share a row
    import symattn

    records = symattn.check(symattn.load_example("000-cat-chases-mouse")).to_records()
    alike = {(r["position"], r["printed"], r["verdict"], r["reason"]) for r in records}
    assert len(records) == 154 and html.count("<tr>") == len(alike) + 1
    assert "propagated" not in html or "carried forward" in html
    assert "carried forward: 16" in html and "wrong: 0" in html
    assert markdown.count("\n| ") == len(alike) + 1     # the heading row and a row each
    assert data["text/plain"].startswith("<NotebookReport 'cat chases mouse': 154 claims")


def test_a_derivation_shows_as_the_worked_example(executed: object) -> None:
    data = _data(executed, 2)
    assert data["text/markdown"].startswith("## cat chases mouse")
    assert "\\begin" in data["text/latex"] and "\\documentclass" not in data["text/latex"]
    assert len(data["text/plain"]) < 400


def test_display_options_reach_the_page(executed: object) -> None:
    data = _data(executed, 3)
    english = _data(executed, 2)["text/markdown"]
    czech = data["text/markdown"]
    assert czech != english
    # the weights of row 3, softmax of (0.57, 0.11, 0.45) / sqrt(2) scaled as the spec
    # says: six digits in English by default, two places with a decimal comma in Czech
    assert "0.395408 & 0.251482 & 0.353110" in english
    assert "0{,}40 & \\cdots & 0{,}35" in czech       # rows=2: the middle column elided
    assert "Krok" in czech and "Krok" not in english


def test_to_frame_has_one_row_per_claim(executed: object) -> None:
    outputs = executed.cells[4].outputs          # type: ignore[attr-defined]
    text = "".join(o.text for o in outputs if o.output_type == "stream")
    assert text.strip() == "154 154 ['step', 'position', 'row', 'column']"
