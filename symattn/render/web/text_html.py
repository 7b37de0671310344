"""A report (``sweep``, ``whatif``, ``permute``, ``kvcache``, ``sizes``) as an HTML page,
and a plain text layout as a section of one (``text_section``: derive's framework steps).

The page is laid out from the report's blocks (``render.blocks``), the same
data its text layout is printed from: a line underlined with ``===`` or
``---`` becomes a heading, a ``Table`` a table whose number columns line up on
the decimal mark, ``Matrices`` bracketed tables side by side, a line of prose a
paragraph; indented lines stay
preformatted so that their aligned columns stay aligned. Every number can be
focused and shows, on hover and on keyboard focus, its exact form and its
certified digits (``tips.number_tip``); every string is escaped.

>>> from symattn.render.blocks import Number, Table
>>> out = blocks_page(["Sweep", "=====", Table(("T", "w"), (("0.3", Number("0.5", "1/2",
...                    "0.5")), ("<1>", "-")), right=(1,))], "en")
>>> "<h1>Sweep</h1>" in out, "&lt;1&gt;" in out, "exact: 1/2" in out
(True, True, True)
>>> print(text_body("Sweep\\n=====\\nT    w\\n0.3  1\\n")[1])
<h1>Sweep</h1>
<pre>T    w
0.3  1</pre>
"""

from __future__ import annotations

__all__ = ["text_body", "text_section", "blocks_page", "blocks_body"]

from typing import Sequence

from symattn import messages
from symattn.messages import Catalog
from symattn.render.blocks import Block, Line, Matrices, Matrix, Number, Piece, Table
from symattn.render import prose
from symattn.render.web.page import escape, numbered, page, tipped, words
from symattn.render.web.tips import number_tip


def _underline(line: str) -> str:
    """"=" or "-" when ``line`` underlines the line above, else ""."""
    stripped = line.strip()
    return stripped[0] if len(stripped) >= 3 and set(stripped) in ({"="}, {"-"}) else ""


def _piece_html(piece: Piece | Line, catalog: Catalog) -> str:
    """Text escaped; a number focusable, with its tip; a line, its pieces so."""
    if isinstance(piece, Line):
        return "".join(_piece_html(part, catalog) for part in piece.pieces)
    if isinstance(piece, Number):
        return tipped(escape(piece.shown), number_tip(piece.exact, piece.certified, catalog))
    return escape(piece)


def _table_html(table: Table, catalog: Catalog) -> str:
    """A table; a column of numbers as two cells a row (``page.numbered``), so that it
    lines up on the decimal mark."""
    columns = range(len(table.rows[0]))
    numeric = [any(isinstance(row[c], Number) for row in table.rows) for c in columns]
    spans = [' colspan="2"' if numeric[c] else "" for c in columns]
    head = "".join(f"<th{spans[c]}>{escape(cell)}</th>" for c, cell in enumerate(table.header))
    out = ['<table class="report">'] + ([f"<thead><tr>{head}</tr></thead>"] if head else [])
    out.append("<tbody>")
    for row in table.rows:
        cells = []
        for c, cell in zip(columns, row):
            if numeric[c]:
                tip = number_tip(cell.exact, cell.certified, catalog) \
                    if isinstance(cell, Number) else ""
                cells.append(numbered(str(cell), tip))
            else:
                cells.append(f"<td>{_piece_html(cell, catalog)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _matrix_html(matrix: Matrix, catalog: Catalog) -> str:
    """A labelled matrix as a bracketed table, each entry two cells lined up on the
    decimal mark, ⋮ and ⋯ where rows and columns are left out."""
    out = [f'<figure class="matrix"><figcaption>{escape(matrix.label)}</figcaption>'
           '<table class="matrix">']
    for r, row in enumerate(matrix.cells):
        if r and matrix.rows[r] != matrix.rows[r - 1] + 1:
            out.append("<tr>" + '<td colspan="2">⋮</td>' * len(row) + "</tr>")
        cells = []
        for c, cell in enumerate(row):
            if c and matrix.columns[c] != matrix.columns[c - 1] + 1:
                cells.append("<td>⋯</td>")
            cells.append(numbered(cell.shown, number_tip(cell.exact, cell.certified, catalog)))
        out.append("<tr>" + "".join(cells) + "</tr>")
    return "".join(out) + "</table></figure>"


def _matrices_html(block: Matrices, catalog: Catalog) -> str:
    """Labelled matrices side by side, wrapping to the page's width."""
    return '<div class="matrices">' + "".join(
        _matrix_html(matrix, catalog) for matrix in block.matrices) + "</div>"


def blocks_body(blocks: Sequence[Block], language: str,
                paragraphs: bool = True) -> tuple[str, str]:
    """The first heading (the page's title) and the body of ``blocks`` as HTML, the tips'
    words in ``language``; ``paragraphs``: a line of prose is a paragraph (else every
    line but a heading is preformatted, as a plain text layout needs)."""
    catalog = messages.load(language)
    out: list[str] = []
    lines: list[str] = []        # preformatted lines (HTML) waiting for their <pre>
    title = ""

    def flush() -> None:
        while lines and not lines[-1].strip():
            lines.pop()
        if lines:
            out.append("<pre>" + "\n".join(lines) + "</pre>")
        lines.clear()

    k = 0
    while k < len(blocks):
        block = blocks[k]
        after = blocks[k + 1] if k + 1 < len(blocks) else None
        mark = _underline(after) if isinstance(block, str) and block.strip() and \
            isinstance(after, str) else ""
        if mark:
            flush()
            level = 1 if mark == "=" and not title else 2
            title = title or str(block).strip()
            out.append(f"<h{level}>{escape(str(block).strip())}</h{level}>")
            k += 2
            continue
        said = "" if isinstance(block, (Table, Matrices)) else str(block)
        if isinstance(block, Table):
            flush()
            out.append(_table_html(block, catalog))
        elif isinstance(block, Matrices):
            flush()
            out.append(_matrices_html(block, catalog))
        elif paragraphs and said[:1] not in ("", " "):    # prose, wrapped to the page
            flush()
            out.append(f"<p>{_piece_html(block, catalog)}</p>")
        elif lines or said.strip():          # indented: laid out as the text has it
            lines.append(_piece_html(block, catalog))
        k += 1
    flush()
    return title, "\n".join(out)


def blocks_page(blocks: Sequence[Block], language: str, title: str = "") -> str:
    """``--format html`` of a report whose blocks are ``blocks``, in ``language``;
    ``title``: the page's heading when the blocks have none (a catalog message)."""
    heading, body = blocks_body(blocks, language)
    if not heading and title:
        heading, body = prose.plain(title), f"<h1>{words(title)}</h1>\n{body}"
    return page(heading or "symattn", body, language)


def text_body(text: str) -> tuple[str, str]:
    """The first heading (the page's title) and the body of a text layout as HTML, its
    aligned columns kept in preformatted blocks."""
    return blocks_body(text.rstrip("\n").split("\n"), "en", paragraphs=False)


def text_section(text: str) -> str:
    """``text`` as a section of another page (its headings one level down)."""
    _, body = text_body(text)
    return '<section class="text">\n' + body.replace("<h1>", "<h2>").replace(
        "</h1>", "</h2>") + "\n</section>"
