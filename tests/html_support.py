"""What the HTML page tests share: a hostile spec and a strict HTML parse."""

from __future__ import annotations

from pathlib import Path

HOSTILE_TITLE = "<script>alert(1)</script> & \"quotes\" 'too'"
HOSTILE_TOKENS = ("<img src=x onerror=alert(1)>", "a&b", '"q"')

HOSTILE_SPEC = """\
title = "<script>alert(1)</script> & \\"quotes\\" 'too'"
description = "a <b>bold</b> & $x$ description"
tokens = ["<img src=x onerror=alert(1)>", "a&b", "\\"q\\""]

[inputs]
Q = [[1, 0], [0, 1], [1, 1]]
K = [[1, 0], [0, 1], [1, 1]]
V = [[1, 2], [3, 4], [5, 6]]

[claims]
"weights[1,1]" = "0.42"
"weights[1,2]" = "0.20"
"""


def hostile_spec(folder: Path) -> Path:
    path = folder / "hostile.toml"
    path.write_text(HOSTILE_SPEC, encoding="utf-8")
    return path


def strict_errors(text: str) -> list[object]:
    """The parse errors of a strict HTML5 parser (html5lib) on ``text``."""
    import html5lib

    parser = html5lib.HTMLParser(strict=False)
    parser.parse(text)
    return list(parser.errors)
