"""A document as text to read numbers from: plain text, Markdown, LaTeX, a notebook,
a PDF or a Word document.

Nothing in a document is ever run. A notebook (``.ipynb``) gives its Markdown
cells and the printed outputs of its code cells; the code itself is skipped.
A PDF gives the lines of its text layer page by page
(``symattn.extract.pdf_text``), a ``.docx`` its paragraphs, tables and
equations (``symattn.extract.docx_text``); a number holding a glyph that
could not be read is unreadable, never another number.
The text is normalized once (Unicode minus, subscripts, LaTeX matrices and
operators, ``-inf``) into one string that keeps, for every character, where
it came from, so every number found can be reported at its line and column in
the original file (for a notebook: the line of the text shown, cell by cell).

>>> doc = from_text("x₁ = [ 1.0, −0.5 ]\\n\\\\begin{bmatrix} 1 & 2 \\\\\\\\ 3 & 4 \\\\end{bmatrix}")
>>> doc.text.splitlines()
['x_1 = [ 1.0, -0.5 ]', '[[ 1 , 2 ],[ 3 , 4 ]]']
>>> doc.where(doc.text.index("-0.5"))
(1, 13)
"""

from __future__ import annotations

__all__ = ["Document", "from_text", "read_document", "MAX_BYTES"]

import bisect
import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from symattn.errors import InputError, Location

MAX_BYTES = 8_000_000          # a larger document is refused, not read slowly
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉ᵢⱼₖ", "0123456789ijk")
_LATEX_WORDS: list[tuple[str, str]] = [
    (r"\\begin\{[bpvBV]?matrix\}", "[["), (r"\\end\{[bpvBV]?matrix\}", "]]"),
    (r"\\\\(?=[^\]]{0,4000}\]\])", "],["), (r"(?<!\\)\\[\[\]()]", " "), (r"&(?!=)", ","),
    (r"\\(?:times)(?![A-Za-z])", "×"), (r"\\(?:cdot)(?![A-Za-z])", "·"),
    (r"\\approx(?![A-Za-z])", "≈"), (r"\\infty(?![A-Za-z])", "∞"),
    (r"\\(?:left|right|big|Big|bigg|Bigg)(?![A-Za-z])", ""),
    (r"\\(?:quad|qquad)(?![A-Za-z])|\\[,;:! ]|~(?=\S)", " "),
    (r"\\(?:text|mathrm|mathbf|operatorname|boldsymbol)\{([^{}]{0,200})\}", r"\1"),
    (r"\\sqrt\{([^{}]{0,50})\}", r"√\1"), (r"\\sqrt(?![A-Za-z])", "√"),
    (r"\^\{([^{}]{0,50})\}", r"^\1"), (r"_\{([^{}]{0,50})\}", r"_\1"),
]
_UNREADABLE_NUMBER = re.compile(r"[\w.,\-\ufffd]*\ufffd[\w.,\ufffd]*")
_UNICODE: list[tuple[str, str]] = [
    ("[\u2212\u2012\u2013\ufe63\uff0d](?=\\s?[0-9∞])", "-"),
    ("(?<![A-Za-z_])-?inf(?![A-Za-z])", "-∞"), ("float\\('-∞'\\)", "-∞"),
    ("[₀₁₂₃₄₅₆₇₈₉]+", "_SUB"),
]


@dataclass(frozen=True)
class Document:
    """Normalized text and, per character, its offset in the original text."""

    name: str
    raw: str                            # the original text (line ends as \n)
    text: str
    origin: tuple[int, ...]
    line_starts: tuple[int, ...]        # offsets in the original text where lines start
    # notebooks, PDFs, .docx: (offset in the text, the 1-based cell, page or paragraph
    # number) of each block
    cells: tuple[tuple[int, int], ...] = ()
    part: str = "cell"                  # what a block of ``cells`` is: cell, page, paragraph
    # (line, column, text) of each number with a glyph that could not be read (PDF)
    unreadable: tuple[tuple[int, int, str], ...] = ()

    def where(self, index: int) -> tuple[int, int]:
        """The 1-based (line, column) in the original text of a normalized index."""
        offset = self.origin[min(index, len(self.origin) - 1)] if self.origin else 0
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def cell_of(self, line: int) -> tuple[int, int] | None:
        """In a notebook (PDF, .docx): the cell (page, paragraph), 1-based, a line is in,
        and the line within it; None for other documents."""
        if not self.cells:
            return None
        offset = self.line_starts[min(line, len(self.line_starts)) - 1]
        index = max(0, bisect.bisect_right([start for start, _ in self.cells], offset) - 1)
        start, cell = self.cells[index]
        return cell, self.raw.count("\n", start, offset) + 1

    def original_line(self, line: int) -> str:
        """The text of one original line (1-based), for the draft's comments."""
        start = self.line_starts[line - 1]
        end = self.line_starts[line] - 1 if line < len(self.line_starts) else None
        return self.raw[start:end]


class _Mapped:
    """Text being rewritten, each character remembering its original offset."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.origin = list(range(len(text)))

    def sub(self, pattern: str, replace: str | Callable[[re.Match[str]], str]) -> None:
        compiled = re.compile(pattern)
        if not compiled.search(self.text):
            return
        pieces: list[str] = []
        origin: list[int] = []
        last = 0
        for match in compiled.finditer(self.text):
            pieces.append(self.text[last:match.start()])
            origin.extend(self.origin[last:match.start()])
            new = replace(match) if callable(replace) else match.expand(replace)
            pieces.append(new)
            start = self.origin[match.start()] if match.start() < len(self.origin) else 0
            origin.extend(_spread(self.origin[match.start():match.end()], start, len(new)))
            last = match.end()
        pieces.append(self.text[last:])
        origin.extend(self.origin[last:])
        self.text, self.origin = "".join(pieces), origin


def _spread(old: list[int], start: int, length: int) -> list[int]:
    """Origins for a replacement: kept one to one when it keeps the length."""
    if len(old) == length:
        return old
    if old and length > len(old):
        return old + [old[-1]] * (length - len(old))
    return old[:length] if old else [start] * length


def _subscript(match: re.Match[str]) -> str:
    return "_" + match.group(0).translate(_SUBSCRIPTS)


def from_text(raw: str, name: str = "<text>", cells: tuple[tuple[int, int], ...] = ()
              ) -> Document:
    """Normalize a document's text (see the module docstring)."""
    mapped = _Mapped(raw.replace("\r\n", "\n").replace("\r", "\n"))
    for pattern, replacement in _UNICODE:
        mapped.sub(pattern, _subscript if replacement == "_SUB" else replacement)
    for pattern, replacement in _LATEX_WORDS:
        mapped.sub(pattern, replacement)
    original = raw.replace("\r\n", "\n").replace("\r", "\n")
    starts = [0] + [m.end() for m in re.finditer("\n", original)]
    return Document(name, original, mapped.text, tuple(mapped.origin), tuple(starts), cells)


def _cell_text(value: Any) -> str:
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return str(value) if value is not None else ""


def _notebook_text(raw: str, where: Location) -> tuple[str, tuple[tuple[int, int], ...]]:
    """Markdown cells and printed outputs of a notebook, one after another."""
    try:
        notebook = json.loads(raw)
    except ValueError as error:
        raise InputError(f"not a notebook (JSON): {error}", where) from None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        raise InputError("not a notebook: no list of cells", where)
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    offset = 0
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            continue
        texts = [_cell_text(cell.get("source"))] if cell.get("cell_type") == "markdown" else []
        outputs = cell.get("outputs") if cell.get("cell_type") == "code" else None
        for output in outputs if isinstance(outputs, list) else []:
            if isinstance(output, dict):
                data = output.get("data")
                plain = data.get("text/plain") if isinstance(data, dict) else None
                texts.append(_cell_text(output.get("text") or plain))
        for text in texts:
            block = text.rstrip("\n") + "\n\n"
            starts.append((offset, number))
            parts.append(block)
            offset += len(block)
    return "".join(parts), tuple(starts)


def is_pdf(data: bytes) -> bool:
    """Whether bytes start as a PDF does (``%PDF-``; a text about PDFs does not)."""
    return data[:1024].lstrip(b"\x00\t\n\r\f ").startswith(b"%PDF-")


def is_docx(data: bytes) -> bool:
    """Whether bytes are a zip holding a Word document (the name of its main part)."""
    return data[:4] == b"PK\x03\x04" and b"word/" in data[:65536]


def unreadable_numbers(document: Document) -> Document:
    """Numbers with an unreadable glyph (U+FFFD) blanked out of the text the scanner reads,
    so none is read as another number (``0.2�`` is not 0.2), and listed in
    ``Document.unreadable``."""
    if "\ufffd" not in document.text:
        return document
    found: list[tuple[int, int, str]] = []
    pieces: list[str] = []
    last = 0
    for match in _UNREADABLE_NUMBER.finditer(document.text):
        if not re.search(r"\d", match.group(0)):
            continue
        found.append((*document.where(match.start()), match.group(0)))
        pieces.append(document.text[last:match.start()] + "\ufffd" * len(match.group(0)))
        last = match.end()
    pieces.append(document.text[last:])
    return dataclasses.replace(document, text="".join(pieces), unreadable=tuple(found))


def _binary_document(data: bytes, path: Path) -> Document:
    """A PDF (page by page) or a Word document (paragraph by paragraph); their readers
    are imported only when needed: they are optional extras."""
    if path.suffix.lower() == ".pdf" or is_pdf(data) and path.suffix.lower() != ".docx":
        from symattn.extract.pdf_text import read_pdf
        text, blocks = read_pdf(data, str(path))
        part = "page"
    else:
        from symattn.extract.docx_text import read_docx
        text, blocks = read_docx(data, str(path))
        part = "paragraph"
    document = dataclasses.replace(from_text(text, str(path), blocks), part=part)
    return unreadable_numbers(document)


def read_document(path: str | Path) -> Document:
    """Read a document file: UTF-8 text, Markdown, LaTeX, a notebook, a PDF or a .docx."""
    path = Path(path)
    where = Location(file=str(path))
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", where) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a document", where) from None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", where) from None
    if path.suffix.lower() in (".pdf", ".docx") or is_pdf(data) or is_docx(data):
        return _binary_document(data, path)
    if len(data) > MAX_BYTES:
        raise InputError(f"the document has {len(data):,} bytes; at most {MAX_BYTES:,} are "
                         "read", where)
    try:
        raw = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"not UTF-8 text (byte {error.start + 1} is "
                         f"0x{data[error.start]:02x}); save the file as UTF-8", where) from None
    if path.suffix.lower() == ".ipynb":
        text, cells = _notebook_text(raw, where)
        return from_text(text, str(path), cells)
    return from_text(raw, str(path))
