"""A PDF document read from its text layer, page by page.

The reader is pypdfium2 (PDFium, the PDF engine of Chromium; Apache-2.0 and
BSD-3): it gives each glyph's Unicode text, box, baseline and font size, and
says when a glyph has no Unicode mapping. pdfplumber (on pdfminer.six) gives
the same facts but is pure Python: on the corpus it was ten times slower (a
36-page page print: 5.4 s against 0.5 s), too slow for a 300-page book in a
minute. The lines are rebuilt from the glyphs by ``symattn.extract.pdf_layout``.

Nothing in the PDF is run (no JavaScript, no forms, no links followed). A PDF
that is encrypted, damaged or not a PDF at all is refused with an InputError
naming the file; so is one past the page or glyph budget.

A glyph that cannot be read (no Unicode mapping, a private-use or control
code, U+FFFD) is U+FFFD in the text: ``symattn.extract.document`` makes the
number holding it *unreadable*.
"""

from __future__ import annotations

__all__ = ["read_pdf", "MAX_PAGES", "MAX_GLYPHS", "MAX_PDF_BYTES"]

import ctypes
import re
import unicodedata
from typing import Any

from symattn.errors import InputError, Location
from symattn.extract.pdf_layout import UNREADABLE, Glyph, Rule, page_lines

MAX_PAGES = 2000              # a longer PDF is refused, not read slowly
MAX_GLYPHS = 6_000_000        # glyphs read from one PDF
MAX_PDF_BYTES = 100_000_000
MAX_PATHS = 20_000            # drawn shapes looked at on one page for fraction bars
_BAR_THICKNESS = 1.5          # points: a fraction bar is thin, a filled box is not
_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
              "\ufb05": "st", "\ufb06": "st"}
_FONT_NAME = 128                # bytes of a font's name read
_BOLD_NAME = re.compile(rb"bold|black|heavy|cmbx|sfbx", re.IGNORECASE)
_MONO_NAME = re.compile(rb"mono|courier|code|consol|cmtt", re.IGNORECASE)
_FIXED_PITCH = 1              # the font descriptor's flag
_MINUS = frozenset("\u2212\u2012\u2013\ufe63\uff0d")


def _pdfium() -> Any:
    try:
        import pypdfium2
    except ImportError:
        return None
    return pypdfium2


def _glyph_text(code: int, mapping_error: bool) -> str:
    char = chr(code) if 0 <= code < 0x110000 else UNREADABLE
    if 0x1D400 <= code <= 0x1D7FF:     # math italic, bold, ... letters and digits: plain
        return unicodedata.normalize("NFKC", char)
    if mapping_error or unicodedata.category(char) in ("Co", "Cc", "Cs", "Cn") and \
            not char.isspace():
        return UNREADABLE
    if char in _MINUS:
        return "−"
    return _LIGATURES.get(char, char)


def _font_kind(raw: Any, textpage: Any, k: int, name: Any) -> tuple[bool, bool]:
    """(bold, monospaced) of the glyph's font: bold by its name (the weight PDFium
    reports for a font subset is a guess), and never when monospaced: bold in code is
    highlighting, not a heading."""
    flags = ctypes.c_int()
    raw.FPDFText_GetFontInfo(textpage, k, name, _FONT_NAME, ctypes.byref(flags))
    mono = bool(flags.value & _FIXED_PITCH or _MONO_NAME.search(name.value))
    return bool(_BOLD_NAME.search(name.value)) and not mono, mono


def _page_glyphs(raw: Any, textpage: Any, height: float, budget: int) -> list[Glyph]:
    count = raw.FPDFText_CountChars(textpage)
    if count > budget:
        raise OverflowError
    glyphs = []
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    x, y = ctypes.c_double(), ctypes.c_double()
    loose = raw.FS_RECTF()
    font = ctypes.create_string_buffer(_FONT_NAME)
    high = 0
    for k in range(max(0, count)):
        if raw.FPDFText_IsGenerated(textpage, k):
            continue          # spaces and line ends the engine guessed: the layout decides
        code = raw.FPDFText_GetUnicode(textpage, k)
        if 0xD800 <= code < 0xDC00:      # the text is UTF-16: a pair makes one character
            high = code
            continue
        if 0xDC00 <= code < 0xE000 and high:
            code, high = 0x10000 + (high - 0xD800) * 0x400 + (code - 0xDC00), 0
        text = _glyph_text(code, raw.FPDFText_HasUnicodeMapError(textpage, k) == 1)
        if text.isspace() or not raw.FPDFText_GetCharBox(textpage, k, left, right, bottom, top):
            continue
        raw.FPDFText_GetCharOrigin(textpage, k, x, y)
        bold, mono = _font_kind(raw, textpage, k, font)
        size = raw.FPDFText_GetFontSize(textpage, k) or (top.value - bottom.value)
        # the loose box spans the glyph's advance: gaps between letters of a monospaced
        # font are not taken for spaces
        if raw.FPDFText_GetLooseCharBox(textpage, k, loose):
            x0, x1 = loose.left, loose.right
        else:
            x0, x1 = left.value, right.value
        width = (x1 - x0) / len(text)
        for n, char in enumerate(text):     # a ligature: one glyph per letter
            glyphs.append(Glyph(char, x0 + n * width, x0 + (n + 1) * width,
                                height - y.value, max(size, 1.0), top.value - bottom.value,
                                bold, mono, y.value - bottom.value))
    return glyphs


def _page_rules(pdfium: Any, page: Any, height: float) -> list[Rule]:
    """The thin horizontal lines the page draws (fraction bars among them); a page of
    more drawn shapes than MAX_PATHS (a plot) is looked at for its first ones only."""
    rules = []
    for count, shape in enumerate(page.get_objects(filter=[pdfium.raw.FPDF_PAGEOBJ_PATH],
                                                   max_depth=2)):
        if count >= MAX_PATHS:
            break
        left, bottom, right, top = shape.get_bounds()
        if top - bottom <= _BAR_THICKNESS and right - left >= max(1.5, 3 * (top - bottom)):
            rules.append(Rule(float(left), float(right), height - (top + bottom) / 2))
    return rules


def _pages_text(data: bytes, where: Location) -> tuple[str, tuple[tuple[int, int], ...]]:
    pdfium = _pdfium()
    if pdfium is None:
        raise InputError("reading a PDF needs the optional extra: pip install 'symattn[pdf]'",
                         where)
    try:
        pdf = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as error:
        reason = str(error).lower()
        what = "it is encrypted (a password is needed); save a copy without the password" \
            if "password" in reason else "the file is damaged or not a PDF"
        raise InputError(f"cannot read the PDF: {what}", where) from None
    try:
        return _read_pages(pdfium, pdf, where)
    finally:
        pdf.close()


def _read_pages(pdfium: Any, pdf: Any, where: Location
                ) -> tuple[str, tuple[tuple[int, int], ...]]:
    pages = len(pdf)
    if pages > MAX_PAGES:
        raise InputError(f"the PDF has {pages:,} pages; at most {MAX_PAGES:,} are read", where)
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    offset, budget = 0, MAX_GLYPHS
    for number in range(pages):
        try:
            page = pdf[number]
            textpage = page.get_textpage()
        except pdfium.PdfiumError:
            raise InputError(f"cannot read page {number + 1} of the PDF: it is damaged",
                             where) from None
        try:
            glyphs = _page_glyphs(pdfium.raw, textpage.raw, page.get_height(), budget)
            rules = _page_rules(pdfium, page, page.get_height())
        except OverflowError:
            raise InputError(f"the PDF has more than {MAX_GLYPHS:,} characters; that many are "
                             "read at most", where) from None
        finally:
            textpage.close()
            page.close()
        budget -= len(glyphs)
        block = "\n".join(page_lines(glyphs, page_width(pdf, number), rules)) + "\n\n"
        starts.append((offset, number + 1))
        parts.append(block)
        offset += len(block)
    return "".join(parts), tuple(starts)


def page_width(pdf: Any, number: int) -> float:
    width, _ = pdf.get_page_size(number)
    return float(width)


def read_pdf(data: bytes, name: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A PDF's pages as text, lines rebuilt, and (offset, page number) of each page."""
    where = Location(file=name)
    if len(data) > MAX_PDF_BYTES:
        raise InputError(f"the PDF has {len(data):,} bytes; at most {MAX_PDF_BYTES:,} are read",
                         where)
    return _pages_text(data, where)
