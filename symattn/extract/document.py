"""A document as text to read numbers from: plain text, Markdown, LaTeX, HTML or a notebook.

Nothing in a document is ever run. A notebook (``.ipynb``) gives its Markdown
cells and the printed outputs of its code cells; the code itself is skipped.
An HTML page gives its text as ``symattn.extract.html_text`` writes it; its
numbers are reported at their line and column in the HTML file. Text in any
encoding is read: UTF-8 (with or without a byte order mark), UTF-16 and
UTF-32 with a byte order mark, the encoding an HTML page declares
(``<meta charset>``), else the legacy 8-bit encoding ``charset_normalizer``
recognises.
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

__all__ = ["Document", "from_text", "from_html", "decode_text", "read_document", "MAX_BYTES"]

import bisect
import codecs
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from symattn.errors import InputError, Location
from symattn.extract.html_text import html_text, looks_like_html

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
    # notebooks: (offset in the text, the notebook's 1-based cell number) of each block
    cells: tuple[tuple[int, int], ...] = ()
    title: str = ""                     # an HTML page's <title>

    def where(self, index: int) -> tuple[int, int]:
        """The 1-based (line, column) in the original text of a normalized index."""
        offset = self.origin[min(index, len(self.origin) - 1)] if self.origin else 0
        line = bisect.bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def cell_of(self, line: int) -> tuple[int, int] | None:
        """In a notebook: the cell (1-based) a line is in, and the line within that cell's
        text; None for other documents."""
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


def _read_bytes(path: Path, where: Location) -> bytes:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputError("no such file", where) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a document", where) from None
    except OSError as error:
        raise InputError(f"cannot read: {error.strerror}", where) from None
    if len(data) > MAX_BYTES:
        raise InputError(f"the document has {len(data):,} bytes; at most {MAX_BYTES:,} are "
                         "read", where)
    return data


def read_document(path: str | Path) -> Document:
    """Read a document file: text, Markdown, LaTeX, HTML, or a notebook."""
    path = Path(path)
    where = Location(file=str(path))
    data = _read_bytes(path, where)
    suffix = path.suffix.lower()
    raw = decode_text(data, where, html=suffix in _HTML_SUFFIXES or
                      looks_like_html(data[:4096].decode("latin-1")))
    if suffix == ".ipynb":
        text, cells = _notebook_text(raw, where)
        return from_text(text, str(path), cells)
    if suffix in _HTML_SUFFIXES or looks_like_html(raw):
        return from_html(raw, str(path))
    return from_text(raw, str(path))
