"""A text report (``sweep``, ``whatif``, ``permute``, ``kvcache``, ``sizes``) as an HTML page.

The report's own text layout, every line escaped: a line underlined with
``===`` or ``---`` becomes a heading, the rest stays preformatted so that its
aligned columns stay aligned.

>>> out = text_page("Sweep\\n=====\\nT    w\\n0.3  <1>\\n", "en")
>>> "<h1>Sweep</h1>" in out, "&lt;1&gt;" in out
(True, True)
"""

from __future__ import annotations

__all__ = ["text_page", "text_body", "text_section"]

from symattn.render.web.page import escape, page


def _underline(line: str) -> str:
    """"=" or "-" when ``line`` underlines the line above, else ""."""
    stripped = line.strip()
    return stripped[0] if len(stripped) >= 3 and set(stripped) in ({"="}, {"-"}) else ""


def text_body(text: str) -> tuple[str, str]:
    """The first heading (the page's title) and the body of ``text`` as HTML."""
    lines = text.rstrip("\n").split("\n")
    out: list[str] = []
    block: list[str] = []
    title = ""

    def flush() -> None:
        while block and not block[-1].strip():
            block.pop()
        if block:
            out.append("<pre>" + escape("\n".join(block)) + "</pre>")
        block.clear()

    k = 0
    while k < len(lines):
        mark = _underline(lines[k + 1]) if k + 1 < len(lines) and lines[k].strip() else ""
        if mark:
            flush()
            level = 1 if mark == "=" and not title else 2
            title = title or lines[k].strip()
            out.append(f"<h{level}>{escape(lines[k].strip())}</h{level}>")
            k += 2
            continue
        if block or lines[k].strip():
            block.append(lines[k])
        k += 1
    flush()
    return title, "\n".join(out)


def text_page(text: str, language: str) -> str:
    """``--format html`` of a report whose text layout is ``text``, in ``language``."""
    title, body = text_body(text)
    return page(title or "symattn", body, language)


def text_section(text: str) -> str:
    """``text`` as a section of another page (its headings one level down)."""
    _, body = text_body(text)
    return '<section class="text">\n' + body.replace("<h1>", "<h2>").replace(
        "</h1>", "</h2>") + "\n</section>"
