"""symattn extract reads text in any encoding: UTF-8 (BOM or not), UTF-16 with a BOM,
a page's declared charset, legacy 8-bit encodings; else a one-line error naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli_support import assert_one_line_error, run
from symattn.errors import InputError
from symattn.extract.document import read_document
from symattn.extract.scanner import scan

# Czech and Russian prose around the same numbers: q_1 = [0,9; 0,8] (decimal commas),
# e^0.485 = 1.624 and 31 %
CZECH = "Dotaz: kočka spí venku, žluťoučký kůň úpěl ďábelské ódy.\nq_1 = [0,9; 0,8]\n" \
        "e^0.485 = 1.624 (31 %)\n"
RUSSIAN = "Запрос сравнивается с каждым ключом, веса складываются в единицу.\n" \
          "q_1 = [0,9; 0,8]\ne^0.485 = 1.624 (31 %)\n"
NUMBERS = ["0,9", "0,8", "0.485", "1.624", "31 %"]


def _numbers(path: Path) -> list[str]:
    found = scan(read_document(path))
    return [n.text for n in sorted(found.singles + [n for g in found.groups for n in g.numbers],
                                   key=lambda n: n.start)]


@pytest.mark.parametrize("text, encoding", [
    (CZECH, "utf-8"), (CZECH, "utf-8-sig"), (CZECH, "utf-16"), (RUSSIAN, "utf-16"),
    (CZECH, "cp1250"), (RUSSIAN, "cp1251"), (RUSSIAN, "koi8-r"), (CZECH, "utf-32"),
])
def test_the_same_numbers_in_every_encoding(tmp_path: Path, text: str, encoding: str) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(text.encode(encoding))
    assert _numbers(path) == NUMBERS
    lines = read_document(path).raw.splitlines()
    assert lines[1:] == text.splitlines()[1:]       # lines as written


def test_a_legacy_encoding_keeps_its_words(tmp_path: Path) -> None:
    path = tmp_path / "doc.txt"
    path.write_bytes(RUSSIAN.encode("cp1251"))
    assert read_document(path).raw == RUSSIAN


def test_an_html_page_declares_its_charset(tmp_path: Path) -> None:
    page = '<html><head><meta charset="windows-1250"></head><body><p>Kůň: e^0.485 = 1.624' \
           '</p></body></html>'
    path = tmp_path / "page.html"
    path.write_bytes(page.encode("cp1250"))
    document = read_document(path)
    assert document.text.strip() == "Kůň: e^0.485 = 1.624"
    path.write_bytes(page.replace('charset="windows-1250"', 'http-equiv="Content-Type" '
                                  'content="text/html; charset=utf-16"').encode("utf-16"))
    assert read_document(path).text.strip() == "Kůň: e^0.485 = 1.624"


@pytest.mark.parametrize("content", [bytes(range(256)) * 8,
                                     b"\x89PNG\r\n\x1a\n" + bytes(range(7, 250, 3)) * 20])
def test_binary_is_a_one_line_error_naming_the_file(capsys: pytest.CaptureFixture[str],
                                                    tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "doc.html"
    path.write_bytes(content)
    status, _, err = run(capsys, "extract", str(path))
    assert status == 2
    assert_one_line_error(err, str(path), "not text", "save the file as UTF-8")


def test_a_broken_utf16_file_is_a_one_line_error(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    path = tmp_path / "doc.txt"
    path.write_bytes(b"\xff\xfe" + "x = 1".encode("utf-16-le") + b"\x00\xd8")
    status, _, err = run(capsys, "extract", str(path))
    assert status == 2
    assert_one_line_error(err, str(path), "not UTF-16 text")


def test_a_broken_utf8_file_with_a_bom_names_utf8(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(b"\xef\xbb\xbfx = 1 \xff")
    with pytest.raises(InputError, match="not UTF-8 text though it starts as such"):
        read_document(path)
