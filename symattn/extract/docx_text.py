"""A Word document (.docx) as text: paragraphs, tables and equations, in order.

The reader is python-docx (MIT) on lxml. Before anything is parsed the zip is
checked with ``zipfile``: it must hold ``word/document.xml``, at most
MAX_UNPACKED bytes unpacked in all and no member packed more than
MAX_RATIO to one (a zip bomb is refused, not unpacked). python-docx parses
with entities unresolved and lxml never reaches the network, so nothing in
the file is fetched.

What a *line* of a .docx is: each paragraph of the body is one line (a line
break inside it starts another), each table row one line written as a
Markdown row (``| 1 | 0.5 | 0.3 |``, the heading row first, as the table has
it), and an equation (Office Math) is written in the line of its paragraph
as linear TeX (``symattn.extract.omml``). Reports name the line and the
paragraph: paragraphs and tables of the body are counted in order, 1-based
(a table is one, its rows are its lines).
"""

from __future__ import annotations

__all__ = ["read_docx", "MAX_UNPACKED", "MAX_RATIO"]

import io
import zipfile
from typing import Any, Iterator

from symattn.errors import InputError, Location
from symattn.extract.omml import MATH, linear

MAX_UNPACKED = 40_000_000      # bytes of all members unpacked
MAX_RATIO = 200                # unpacked / packed of one member larger than a megabyte
MAX_MEMBERS = 5_000
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _check_zip(data: bytes, where: Location) -> None:
    """Refuse what is not a Word zip, or would unpack too large."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, OSError, ValueError):
        raise InputError("not a Word document (.docx): not a zip file", where) from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_MEMBERS:
            raise InputError(f"the .docx has {len(members):,} parts; at most "
                             f"{MAX_MEMBERS:,} are read", where)
        if "word/document.xml" not in {m.filename for m in members}:
            raise InputError("not a Word document (.docx): the zip has no word/document.xml",
                             where)
        unpacked = sum(m.file_size for m in members)
        if unpacked > MAX_UNPACKED:
            raise InputError(f"the .docx unpacks to {unpacked:,} bytes; at most "
                             f"{MAX_UNPACKED:,} are read", where)
        for member in members:
            if member.file_size > 1_000_000 and \
                    member.file_size > MAX_RATIO * max(member.compress_size, 1):
                raise InputError(f"the .docx part {member.filename} is packed "
                                 f"{member.file_size // max(member.compress_size, 1):,} to "
                                 "one: refused as a zip bomb", where)


def _local(element: Any) -> tuple[str, str]:
    tag = element.tag if isinstance(element.tag, str) else ""
    namespace, _, name = tag[1:].partition("}")
    return namespace, name


def _inline(element: Any) -> Iterator[str]:
    """The text of a paragraph's content: runs, breaks, tabs, links and equations."""
    for child in element:
        namespace, name = _local(child)
        if namespace == MATH and name in ("oMath", "oMathPara"):
            yield linear(child)
        elif namespace == _W and name == "t":
            yield child.text or ""
        elif namespace == _W and name == "tab":
            yield " "
        elif namespace == _W and name in ("br", "cr"):
            yield "\n"
        elif namespace == _W and name in ("delText", "instrText", "rPr", "pPr"):
            continue
        else:
            yield from _inline(child)


def _paragraph(element: Any) -> str:
    return "".join(_inline(element))


def _cell_text(cell: Any) -> str:
    paragraphs = cell.iter(f"{{{_W}}}p")
    return " ".join(" ".join(_paragraph(p).split()) for p in paragraphs).strip()


def _table(element: Any) -> str:
    """One Markdown-style row per table row, in order (the heading row first)."""
    rows = []
    for row in element.findall(f"{{{_W}}}tr"):
        cells = [_cell_text(cell).replace("|", "/") for cell in row.findall(f"{{{_W}}}tc")]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def _blocks(body: Any) -> Iterator[str]:
    for child in body:
        namespace, name = _local(child)
        if namespace != _W:
            continue
        if name == "p":
            yield _paragraph(child)
        elif name == "tbl":
            yield _table(child)
        elif name == "sdt":             # a content control: its paragraphs and tables
            content = child.find(f"{{{_W}}}sdtContent")
            if content is not None:
                yield from _blocks(content)


def _open(data: bytes, where: Location) -> Any:
    try:
        import docx
    except ImportError:
        raise InputError("reading a .docx needs the optional extra: "
                         "pip install 'symattn[docx]'", where) from None
    try:
        return docx.Document(io.BytesIO(data))
    except Exception as error:     # python-docx and lxml raise many kinds on a damaged file
        reason = " ".join(str(error).split())[:120] or type(error).__name__
        raise InputError(f"cannot read the .docx: {reason}", where) from None


def read_docx(data: bytes, name: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    """A Word document as text, one line per paragraph or table row, and (offset,
    paragraph number) of each paragraph or table."""
    where = Location(file=name)
    _check_zip(data, where)
    word = _open(data, where)
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    offset = 0
    for number, block in enumerate(_blocks(word.element.body), start=1):
        text = block.rstrip("\n") + "\n"
        starts.append((offset, number))
        parts.append(text)
        offset += len(text)
    return "".join(parts), tuple(starts)
