"""The sections of a document: Markdown, HTML and LaTeX headings, in original lines.

A worked example usually lives under a heading of its own ("Example 2",
"Scaled attention"); ``symattn.extract.examples`` looks for its inputs section
by section. A section runs from its heading to the line before the next
heading; the text before the first heading is a section of its own (titled by
the document's first line). Headings inside fenced code blocks are code
comments, not headings. In a notebook, the Markdown cells' headings count.

>>> text = "intro\\n# One\\na\\n```\\n# not a heading\\n```\\n## Two $T = 2$\\nb"
>>> [(s.title, s.start, s.end, s.level) for s in sections(text)]
[('intro', 1, 1, 0), ('One', 2, 6, 1), ('Two T = 2', 7, 8, 2)]
>>> sections("### Scale by $\\\\frac{1}{\\\\sqrt{d_k}}$")[0].title
'Scale by 1/√d_k'
"""

from __future__ import annotations

__all__ = ["Section", "sections"]

import re
from dataclasses import dataclass

_MARKDOWN = re.compile(r"^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$")
_HTML = re.compile(r"<h([1-6])[^>]*>(.*?)</h\1>", re.IGNORECASE)
_LATEX = re.compile(r"^\s*\\((?:sub){0,2})section\*?\{(.+)\}")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_MARKUP = re.compile(r"\*\*|__|\$|`|<[^>]{0,200}>|\\[A-Za-z]+")


@dataclass(frozen=True)
class Section:
    """A heading and the lines under it (1-based, both ends included)."""

    title: str
    start: int
    end: int
    level: int          # 1 for "#", 2 for "##", ...; 0 for the text before any heading

    @property
    def lines(self) -> tuple[int, int]:
        return self.start, self.end


_SQRT = re.compile(r"\\sqrt\{([^{}]{0,40})\}")
_FRACTION = re.compile(r"\\frac\{([^{}]{0,40})\}\{([^{}]{0,40})\}")


def _clean(title: str) -> str:
    """A heading as plain text: markup dropped, ``\\frac{1}{\\sqrt{d_k}}`` as 1/√d_k."""
    title = _FRACTION.sub(r"\1/\2", _SQRT.sub(r"√\1", title))
    return re.sub(r"\s+", " ", _MARKUP.sub("", title).replace("{", "").replace("}", "")
                  ).strip(" #*:")[:80]


def _heading(line: str) -> tuple[int, str] | None:
    if match := _MARKDOWN.match(line):
        return len(match[1]), match[2]
    if match := _HTML.search(line):
        return int(match[1]), match[2]
    if match := _LATEX.match(line):
        return 1 + len(match[1]) // 3, match[2]
    return None


def sections(raw: str) -> list[Section]:
    """The sections of a document's original text, in order."""
    lines = raw.removesuffix("\n").split("\n")    # a final newline starts no line
    found: list[tuple[int, int, str]] = []     # (line, level, title)
    fenced = False
    for number, line in enumerate(lines, start=1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else _heading(line)
        if heading is not None and _clean(heading[1]):
            found.append((number, heading[0], _clean(heading[1])))
    result = []
    if not found or found[0][0] > 1:
        first = next((_clean(line) for line in lines if _clean(line)), "")
        end = found[0][0] - 1 if found else len(lines)
        result.append(Section(first, 1, max(1, end), 0))
    for k, (number, level, title) in enumerate(found):
        end = found[k + 1][0] - 1 if k + 1 < len(found) else len(lines)
        result.append(Section(title, number, max(number, end), level))
    return result
