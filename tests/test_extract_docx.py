"""Reading Word documents (.docx): paragraphs, tables, Office Math equations, locations,
hostile files and the optional extra. The documents are made here with python-docx,
the equations written as OMML XML."""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_support import run
from symattn.errors import InputError
from symattn.extract.checking import check_document
from symattn.extract.docx_text import read_docx
from symattn.extract.document import read_document
from symattn.extract.scanner import scan
from test_extract_pdf import EXPECTED, MARKDOWN, SPEC

docx = pytest.importorskip("docx")
from docx.oxml import parse_xml  # noqa: E402

_M = 'xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/math"'


def _r(text: str) -> str:
    return f"<m:r><m:t>{text}</m:t></m:r>"


def _matrix(rows: list[list[str]]) -> str:
    body = "".join("<m:mr>" + "".join(f"<m:e>{_r(c)}</m:e>" for c in row) + "</m:mr>"
                   for row in rows)
    return ('<m:d><m:dPr><m:begChr m:val="["/><m:endChr m:val="]"/></m:dPr><m:e><m:m>'
            f"{body}</m:m></m:e></m:d>")


def _math(paragraph: object, inner: str) -> None:
    paragraph._p.append(parse_xml(f"<m:oMath {_M}>{inner}</m:oMath>"))  # type: ignore[attr-defined]


def worked_example(path: Path) -> Path:
    """The worked example of tests/test_extract_pdf.py as Word writes it."""
    document = docx.Document()
    document.add_heading("A worked example", 1)
    paragraph = document.add_paragraph("With ")
    _math(paragraph, f"<m:sSub><m:e>{_r('d')}</m:e><m:sub>{_r('k')}</m:sub></m:sSub>{_r('=2')}")
    paragraph.add_run(" the scaled score is ")
    _math(paragraph, f"<m:f><m:num>{_r('1')}</m:num><m:den>{_r('1.414')}</m:den></m:f>"
          f"{_r('=0.707')}")
    paragraph.add_run(", and ")
    _math(paragraph, f"<m:sSup><m:e>{_r('e')}</m:e><m:sup>{_r('0.707')}</m:sup></m:sSup>"
          f"{_r('=2.128')}")
    paragraph.add_run(".")
    _math(document.add_paragraph(), _r("weights=") + _matrix([["0.670", "0.330"],
                                                             ["0.330", "0.670"]]))
    _math(document.add_paragraph(), _r("output=") + _matrix([["1.660", "−0.019"],
                                                            ["2.340", "2.019"]]))
    document.save(str(path))
    return path


def test_the_worked_example_as_docx_gives_the_verdicts_of_its_markdown(tmp_path: Path) -> None:
    markdown = tmp_path / "example.md"
    markdown.write_text(MARKDOWN, encoding="utf-8")
    expected = [(v.position, v.verdict) for v in
                check_document(read_document(markdown), SPEC).report.verdicts]
    word = read_document(worked_example(tmp_path / "example.docx"))
    got = [(v.position, v.verdict) for v in check_document(word, SPEC).report.verdicts]
    assert EXPECTED <= set(got)
    assert got == expected


def test_equations_become_linear_tex_and_matrices_groups(tmp_path: Path) -> None:
    document = read_document(worked_example(tmp_path / "example.docx"))
    lines = document.raw.splitlines()
    assert lines[1] == "With d_{k}=2 the scaled score is 1 / 1.414=0.707, and e^{0.707}=2.128."
    groups = scan(document).groups
    output = next(g for g in groups if g.names == ("output",))
    assert [[n.text for n in row] for row in output.rows] == [["1.660", "-0.019"],
                                                               ["2.340", "2.019"]]


def test_roots_fractions_and_scripts(tmp_path: Path) -> None:
    document = docx.Document()
    _math(document.add_paragraph(),
          '<m:rad><m:radPr><m:degHide m:val="1"/></m:radPr><m:deg/>'
          f"<m:e>{_r('4')}</m:e></m:rad>{_r('=2, ')}"
          f"<m:sSubSup><m:e>{_r('W')}</m:e><m:sub>{_r('1')}</m:sub><m:sup>{_r('Q')}</m:sup>"
          f"</m:sSubSup>{_r(', ')}<m:f><m:num>{_r('a+b')}</m:num><m:den>{_r('2')}</m:den></m:f>")
    path = tmp_path / "math.docx"
    document.save(str(path))
    text = read_document(path)
    assert text.raw.splitlines()[0] == "\\sqrt{4}=2, W_{1}^{Q}, (a+b) / 2"
    assert text.text.splitlines()[0] == "√4=2, W_1^Q, (a+b) / 2"


def test_a_table_is_one_markdown_row_per_row_and_located_by_paragraph(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Weights of the first query:")
    table = document.add_table(rows=3, cols=3)
    for i, row in enumerate([["token", "score", "weight"], ["cat", "0.5", "0.3"],
                             ["dog", "1.5", "0.7"]]):
        for j, value in enumerate(row):
            table.cell(i, j).text = value
    document.add_paragraph("After the table: 2.5")
    path = tmp_path / "table.docx"
    document.save(str(path))
    read = read_document(path)
    assert read.raw.splitlines() == ["Weights of the first query:", "| token | score | weight |",
                                     "| cat | 0.5 | 0.3 |", "| dog | 1.5 | 0.7 |",
                                     "After the table: 2.5"]
    assert [[n.text for n in g.numbers] for g in scan(read).groups] == [["0.5", "0.3"],
                                                                        ["1.5", "0.7"]]
    assert read.part == "paragraph"
    assert read.cell_of(3) == (2, 2)     # the table is the second block, its second row
    assert read.cell_of(5) == (3, 1)


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


@pytest.mark.parametrize("data, says", [
    (b"PK\x03\x04 but not really a zip", "not a zip file"),
    (b"plain words", "not a zip file"),
    (_zip({"word/other.xml": b"<x/>"}), "no word/document.xml"),
    (_zip({"word/document.xml": b" " * 5_000_000}), "zip bomb"),
    (_zip({"word/document.xml": b"<w:document"}), "cannot read the .docx"),
])
def test_a_bad_docx_is_a_one_line_error_naming_the_file(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, data: bytes, says: str) -> None:
    path = tmp_path / "bad.docx"
    path.write_bytes(data)
    status, _, err = run(capsys, "extract", str(path))
    assert status == 2
    assert "bad.docx" in err and says in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_large_unpacked_size_is_refused_before_parsing(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    import symattn.extract.docx_text as docx_text

    data = worked_example(tmp_path / "example.docx").read_bytes()
    monkeypatch.setattr(docx_text, "MAX_UNPACKED", 1000)
    with pytest.raises(InputError, match="unpacks to"):
        read_docx(data, "big.docx")


def test_an_external_entity_is_never_resolved(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("0.123456", encoding="utf-8")
    data = worked_example(tmp_path / "example.docx").read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members["word/document.xml"] = members["word/document.xml"].replace(
        b"<w:document ", f'<!DOCTYPE w:document [<!ENTITY x SYSTEM "file://{secret}">]>'
        "<w:document ".encode(), 1).replace(b"With ", b"With &x; ", 1)
    try:
        text, _ = read_docx(_zip(members), "entity.docx")
    except InputError:
        return
    assert "0.123456" not in text


def test_without_the_extra_a_docx_names_the_extra(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str],
                                                   tmp_path: Path) -> None:
    path = worked_example(tmp_path / "example.docx")
    monkeypatch.setitem(sys.modules, "docx", None)           # the import fails
    status, _, err = run(capsys, "extract", str(path))
    assert status == 2
    assert "pip install 'symattn[docx]'" in err and "example.docx" in err


_SEED: list[bytes] = []


def _seed() -> bytes:
    if not _SEED:
        out = io.BytesIO()
        document = docx.Document()
        document.add_paragraph("q = [1.0, 0.5]")
        document.save(out)
        _SEED.append(out.getvalue())
    return _SEED[0]


@settings(max_examples=40, deadline=3000, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 40_000), st.integers(0, 255)), max_size=6),
       st.floats(0.05, 1.0))
def test_mutated_docx_bytes_give_a_document_or_an_input_error(
        changes: list[tuple[int, int]], keep: float) -> None:
    seed = _seed()
    data = bytearray(seed[:max(1, int(len(seed) * keep))])
    for at, value in changes:
        if at < len(data):
            data[at] = value
    try:
        read_docx(bytes(data), "fuzz.docx")
    except InputError:
        pass


def test_json_verdicts_name_the_paragraph(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    import json

    path = worked_example(tmp_path / "example.docx")
    spec = tmp_path / "inputs.toml"
    spec.write_text(SPEC, encoding="utf-8")
    status, out, _ = run(capsys, "check", str(path), "--spec", str(spec), "-f", "json")
    claims = json.loads(out)["reports"][0]["claims"]
    assert status in (0, 1)
    # paragraph 1 is the heading; the equations are paragraphs 2 (d_k, 1/1.414, e^0.707),
    # 3 (weights) and 4 (output)
    assert {c["paragraph"] for c in claims} == {2, 3, 4}
