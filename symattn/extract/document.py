"""A document as text to read numbers from: plain text, Markdown, LaTeX, HTML, a notebook,
a PDF or a Word document.

Nothing in a document is ever run. A notebook (``.ipynb``) gives its Markdown
cells and the printed outputs of its code cells; the code itself is skipped.
An HTML page gives its text as ``symattn.extract.html_text`` writes it; its
numbers are reported at their line and column in the HTML file. A PDF gives
the lines of its text layer page by page (``symattn.extract.pdf_text``), a
``.docx`` its paragraphs, tables and equations (``symattn.extract.docx_text``);
a number holding a glyph that could not be read is unreadable, never another
number. Text in any
encoding is read: UTF-8 (with or without a byte order mark), UTF-16 and
UTF-32 with a byte order mark, the encoding an HTML page declares
(``<meta charset>``), else the legacy 8-bit encoding ``charset_normalizer``
recognises.
The text is normalized once (math in image addresses decoded to its TeX, other
addresses blanked, Unicode minus, subscripts, LaTeX matrices, fractions and
operators, ``-inf``) into one string that keeps, for every character, where
it came from, so every number found can be reported at its line and column in
the original file (for a notebook: the line of the text shown, cell by cell).
Every rule is a regular expression that runs in linear time (bounded
repetitions, no nested quantifiers that can backtrack).

>>> doc = from_text("x₁ = [ 1.0, −0.5 ]\\n\\\\begin{bmatrix} 1 & 2 \\\\\\\\ 3 & 4 \\\\end{bmatrix}")
>>> doc.text.splitlines()
['x_1 = [ 1.0, -0.5 ]', '[[ 1 , 2 ],[ 3 , 4 ]]']
>>> doc.where(doc.text.index("-0.5"))
(1, 13)
"""

from __future__ import annotations

__all__ = ["Document", "from_text", "from_html", "decode_text", "read_document", "read_bytes",
           "MAX_BYTES", "DOCUMENT_SUFFIXES"]

import bisect
import codecs
import dataclasses
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from symattn.errors import InputError, Location
from symattn.extract.html_text import html_text, looks_like_html
from symattn.extract.math_addresses import MATH_ADDRESS, decoded_math_address

MAX_BYTES = 8_000_000          # a larger document is refused, not read slowly
MAX_BINARY_BYTES = 100_000_000  # a PDF or .docx (their readers bound the text read)
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉ᵢⱼₖ", "0123456789ijk")
# An address carrying math is replaced by its TeX first (math_addresses); every other
# address is blanked, so "%20" or "arxiv.org/abs/1706.03762" give no numbers.
_ADDRESS = re.compile(r"\b(?:https?|ftp)://[^\s)\"'<>\]]+")
# What a notebook prints about an object, not a number of it: <Figure size 432x216 with 2 Axes>,
# and a shape, whose numbers are sizes: torch.Size([6, 24]), TensorShape([None, 3])
_OBJECT_PRINT = re.compile(r"<(?:Figure size|matplotlib\.|[\w.]{1,80} object at 0x)[^<>\n]{0,200}>|"
                           r"\b(?:Size|TensorShape)\(\[[\d\s,None]{0,200}\]\)")
# Only the rows of a LaTeX matrix are split at "\\"; elsewhere it is a line break.
_LATEX_MATRIX = re.compile(r"\[\[[^\[\]]{0,20000}\]\]")
_LATEX_ROW_BREAK = r"\\\\"
_LATEX_WORDS: list[tuple[str, str]] = [
    (r"\\begin\{[bpvBV]?matrix\}", "[["), (r"\\end\{[bpvBV]?matrix\}", "]]"),
    (r"(?<!\\)\\[\[\]()]", " "), (r"([-−])\s*&\s*(?=\d)", r"\1"), (r"&(?!=)", ","),
    (r"\\(?:times)(?![A-Za-z])", "×"), (r"\\(?:cdot)(?![A-Za-z])", "·"),
    (r"\\approx(?![A-Za-z])", "≈"), (r"\\infty(?![A-Za-z])", "∞"), (r"\\%", "%"),
    (r"\\(?:left|right|big|Big|bigg|Bigg|displaystyle)(?![A-Za-z])", ""),
    (r"\\(?:quad|qquad)(?![A-Za-z])|\\[,;:! ]|~(?=\S)", " "),
    # a transpose mark is a letter, never a number: K^\top, K^{\intercal}, K^{T}
    (r"\^\s*(?:\{\s*\\(?:top|intercal)\s*\}|\\(?:top|intercal)(?![A-Za-z])|\{T\})", "^T"),
    (r"\\(exp|log|ln|max|min)(?![A-Za-z])", r"\1"),
]
# Rules for braces, applied until nothing changes (a few rounds: \frac{\sqrt{d_k}}{...}).
_LATEX_BRACES: list[tuple[str, str]] = [
    (r"\\(?:text|textrm|textbf|textit|mathrm|mathbf|mathit|mathsf|mathcal|operatorname|"
     r"boldsymbol|bm|vec|hat|tilde|bar)\s*\{([^{}]{0,200})\}", r"\1"),
    (r"\\sqrt\s*\{([^{}]{0,50})\}", r"√\1"),
    (r"\^\{([^{}]{0,50})\}", r"^\1"), (r"_\{([^{}]{0,50})\}", r"_\1"),
    (r"\\[dt]?frac\s*\{([^{}]{0,200})\}\s*\{([^{}]{0,200})\}", "_FRACTION"),
]
_LATEX_ROUNDS = 4
_LATEX_LAST: list[tuple[str, str]] = [(r"\\sqrt(?![A-Za-z])", "√")]
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
    title: str = ""                     # an HTML page's <title>
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

    def sub(self, pattern: str | re.Pattern[str], replace: str | Callable[[re.Match[str]], str]
            | Callable[[re.Match[str]], tuple[str, list[int]]],
            within: list[tuple[int, int]] | None = None) -> None:
        """Replace every match (only those starting inside ``within``'s sorted spans, if
        given). A replacement function may return, with its text, the index in the match
        each new character comes from, so positions stay exact."""
        compiled = re.compile(pattern)
        if not compiled.search(self.text):
            return
        pieces: list[str] = []
        origin: list[int] = []
        last = 0
        starts = [start for start, _ in within or ()]
        for match in compiled.finditer(self.text):
            if within is not None:
                index = bisect.bisect_right(starts, match.start()) - 1
                if index < 0 or match.end() > within[index][1]:
                    continue
            pieces.append(self.text[last:match.start()])
            origin.extend(self.origin[last:match.start()])
            new = replace(match) if callable(replace) else match.expand(replace)
            old = self.origin[match.start():match.end()]
            if isinstance(new, tuple):
                new, sources = new
                origin.extend(old[min(i, len(old) - 1)] for i in sources)
            else:
                start = self.origin[match.start()] if match.start() < len(self.origin) else 0
                origin.extend(_spread(old, start, len(new)))
            pieces.append(new)
            last = match.end()
        pieces.append(self.text[last:])
        origin.extend(self.origin[last:])
        self.text, self.origin = "".join(pieces), origin

    def spans(self, pattern: re.Pattern[str]) -> list[tuple[int, int]]:
        return [(m.start(), m.end()) for m in pattern.finditer(self.text)]


def _spread(old: list[int], start: int, length: int) -> list[int]:
    """Origins for a replacement: kept one to one when it keeps the length."""
    if len(old) == length:
        return old
    if old and length > len(old):
        return old + [old[-1]] * (length - len(old))
    return old[:length] if old else [start] * length


def _subscript(match: re.Match[str]) -> str:
    return "_" + match.group(0).translate(_SUBSCRIPTS)


def _fraction(match: re.Match[str]) -> str:
    """``\\frac{a}{b}`` as a division: ``a/b``, a side in parentheses when it is not one term."""
    sides = [side.strip() for side in (match.group(1), match.group(2))]
    return "/".join(f"({side})" if re.search(r"[\s+=-]", side) else side for side in sides)


def _normalize_latex(mapped: _Mapped) -> None:
    for pattern, replacement in _LATEX_WORDS[:2]:
        mapped.sub(pattern, replacement)
    mapped.sub(_LATEX_ROW_BREAK, "],[", within=mapped.spans(_LATEX_MATRIX))
    for pattern, replacement in _LATEX_WORDS[2:]:
        mapped.sub(pattern, replacement)
    for _ in range(_LATEX_ROUNDS):
        before = mapped.text
        for pattern, replacement in _LATEX_BRACES:
            mapped.sub(pattern, _fraction if replacement == "_FRACTION" else replacement)
        if mapped.text == before:
            break
    for pattern, replacement in _LATEX_LAST:
        mapped.sub(pattern, replacement)


def from_text(raw: str, name: str = "<text>", cells: tuple[tuple[int, int], ...] = ()
              ) -> Document:
    """Normalize a document's text (see the module docstring)."""
    original = raw.replace("\r\n", "\n").replace("\r", "\n")
    mapped = _Mapped(original)
    mapped.sub(MATH_ADDRESS, decoded_math_address)
    for blank in (_ADDRESS, _OBJECT_PRINT):
        mapped.sub(blank, lambda match: " " * len(match.group(0)))
    for pattern, replacement in _UNICODE:
        mapped.sub(pattern, _subscript if replacement == "_SUB" else replacement)
    _normalize_latex(mapped)
    starts = [0] + [m.end() for m in re.finditer("\n", original)]
    return Document(name, original, mapped.text, tuple(mapped.origin), tuple(starts), cells)


def from_html(raw: str, name: str = "<html>") -> Document:
    """An HTML page's text, normalized; every index maps to its offset in the page."""
    source = raw.replace("\r\n", "\n").replace("\r", "\n")
    try:
        page = html_text(source)
    except ValueError as error:
        raise InputError(str(error), Location(file=name)) from None
    text = from_text(page.text, name)
    end = len(source)
    origin = tuple(page.origin[i] if i < len(page.origin) else end for i in text.origin)
    starts = [0] + [m.end() for m in re.finditer("\n", source)]
    return Document(name, source, text.text, origin, tuple(starts), title=page.title)


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


_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))
_META_CHARSET = re.compile(rb"<meta\s[^>]{0,500}?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]{1,40})",
                           re.IGNORECASE)
_HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
# What a document's name says it is: a file so named is read as a document, never a spec
DOCUMENT_SUFFIXES = _HTML_SUFFIXES | {".md", ".markdown", ".txt", ".text", ".tex", ".rst",
                                      ".ipynb", ".pdf", ".docx"}


def _declared(data: bytes) -> str | None:
    """The encoding an HTML page declares in its first 4 KB, if Python knows it."""
    match = _META_CHARSET.search(data[:4096])
    if not match:
        return None
    try:
        return codecs.lookup(match.group(1).decode("ascii")).name
    except LookupError:
        return None


def decode_text(data: bytes, where: Location, html: bool = False) -> str:
    """A document's bytes as text (see the module docstring for the encodings read)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError as error:
                name = encoding.upper().removesuffix("-SIG")
                raise InputError(f"not {name} text though it starts as such (byte "
                                 f"{error.start + 1})", where) from None
    declared = _declared(data) if html else None
    for encoding in ("utf-8",) + ((declared,) if declared else ()):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    import charset_normalizer      # only for text that is not UTF-8

    best = charset_normalizer.from_bytes(data[:1_000_000]).best()
    if best is not None and best.encoding:
        try:
            return data.decode(best.encoding)
        except (UnicodeDecodeError, LookupError):
            pass
    raise InputError("not text in an encoding symattn recognises (UTF-8, UTF-16 with a byte "
                     "order mark, or a legacy 8-bit encoding); save the file as UTF-8", where)


def read_bytes(path: Path, where: Location, limit: int = MAX_BYTES,
               what: str = "document") -> bytes:
    """A file's bytes, at most ``limit``; a file that is missing, a directory, unreadable
    or larger is a located error naming it as ``what`` it should be."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", where) from None
    except IsADirectoryError:
        raise InputError(f"is a directory, not a {what}", where) from None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", where) from None
    if len(data) > limit:
        raise InputError(f"the {what} has {len(data):,} bytes; at most {limit:,} are "
                         "read", where)
    return data


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
    """Read a document file: text, Markdown, LaTeX, HTML, a notebook, a PDF or a .docx."""
    path = Path(path)
    where = Location(file=str(path))
    suffix = path.suffix.lower()
    # a PDF or .docx may be larger: its own reader bounds what it reads
    data = read_bytes(path, where, MAX_BINARY_BYTES if suffix in (".pdf", ".docx") else
                       MAX_BYTES)
    if suffix in (".pdf", ".docx") or is_pdf(data) or is_docx(data):
        return _binary_document(data, path)
    raw = decode_text(data, where, html=suffix in _HTML_SUFFIXES or
                      looks_like_html(data[:4096].decode("latin-1")))
    if suffix == ".ipynb":
        text, cells = _notebook_text(raw, where)
        return from_text(text, str(path), cells)
    if suffix in _HTML_SUFFIXES or looks_like_html(raw):
        return from_html(raw, str(path))
    return from_text(raw, str(path))
