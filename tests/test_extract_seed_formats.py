"""A seed document as a web page and as a Word file gives the verdicts its text gives.

The seed's text is written, line by line, into an HTML page (a paragraph per line,
its characters escaped) and into a .docx (a paragraph per line, made with
python-docx); each is checked with the bundled example's inputs, and every
verdict (entry, printed text, verdict) must be the same as from the text file.
The seeds live beside the project; without them the test is skipped.
"""

from __future__ import annotations

import html
from collections import Counter
from pathlib import Path

import pytest

from extract_support import ROOT, seed
from symattn.extract.checking import check_document
from symattn.extract.document import read_document

SPEC = ROOT / "symattn" / "examples" / "001-kocka-spi-venku.toml"


def _verdicts(path: Path) -> Counter[tuple[str, str, str]]:
    checked = check_document(read_document(path), SPEC.read_text(encoding="utf-8"), str(SPEC))
    return Counter((v.position, v.printed, v.verdict) for v in checked.report.verdicts)


@pytest.mark.skipif(seed("001") is None, reason="the seeds are not beside the project")
def test_seed_001_as_html_and_docx_gives_the_verdicts_of_its_text(tmp_path: Path) -> None:
    source = seed("001")
    assert source is not None
    lines = source.read_text(encoding="utf-8").splitlines()
    page = tmp_path / "seed.html"
    page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'></head><body>\n" +
                    "\n".join(f"<p>{html.escape(line)}</p>" for line in lines) +
                    "\n</body></html>\n", encoding="utf-8")
    docx = pytest.importorskip("docx")
    word = docx.Document()
    for line in lines:
        word.add_paragraph(line)
    word_path = tmp_path / "seed.docx"
    word.save(str(word_path))
    expected = _verdicts(source)
    assert sum(expected.values()) > 150 and any(v == "wrong" for _, _, v in expected)
    assert _verdicts(page) == expected
    assert _verdicts(word_path) == expected
