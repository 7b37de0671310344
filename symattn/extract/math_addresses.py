"""Math printed as an image whose address carries its TeX, as GitHub READMEs print it.

``https://latex.codecogs.com/svg.latex?X%20%3D%20...``, GitHub's
``render/math?math=...`` and Google's ``chart?cht=tx&chl=...``: the address is
recognised (``MATH_ADDRESS``, for Markdown text and for an HTML page's image
addresses alike) and replaced by its decoded TeX (``decoded_math_address``),
every decoded character keeping where in the address it came from.

>>> text, _ = decoded_math_address(MATH_ADDRESS.match(
...     "https://latex.codecogs.com/svg.latex?%5Cbg_white%20e%5E%7B0.5%7D"))
>>> text
' e^{0.5} '
"""

from __future__ import annotations

__all__ = ["MATH_ADDRESS", "decoded_math_address"]

import re

_ADDRESS_TEXT = r"(?:[^\s()\"'<>]|\([^\s()\"'<>]*\))*"     # "(...)" kept: \exp(1)
MATH_ADDRESS = re.compile(
    r"https?://(?:latex\.codecogs\.com/[\w.]{1,20}\?(?P<codecogs>" + _ADDRESS_TEXT + ")"
    r"|render\.githubusercontent\.com/render/math\?(?P<github>" + _ADDRESS_TEXT + ")"
    r"|chart\.googleapis\.com/chart\?(?P<chart>" + _ADDRESS_TEXT + "))")
_PERCENT_RUN = re.compile(r"(?:%[0-9A-Fa-f]{2})+")
_ENTITIES = {"&space;": " ", "&plus;": "+", "&amp;": "&", "&lt;": "<", "&gt;": ">",
             "&quot;": '"', "&#39;": "'"}
_CODECOGS_PREFIX = re.compile(r"^\s*(?:\\(?:bg_\w+|bg\{\w+\}|dpi\{\d+\}|inline|large|Large|LARGE|"
                              r"small|tiny|huge|Huge|normalsize|fn_\w+|fg_\w+)\s*)+")


def _url_decoded(text: str, base: int, plus_is_space: bool) -> tuple[str, list[int]]:
    """Percent-decoding (UTF-8) and the HTML entities of an address; for each decoded
    character, the index (from ``base``) of the text it comes from."""
    out: list[str] = []
    sources: list[int] = []
    index = 0
    while index < len(text):
        entity = next((e for e in _ENTITIES if text.startswith(e, index)), None) \
            if text[index] == "&" else None
        if entity:
            out.append(_ENTITIES[entity])
            sources.append(base + index)
            index += len(entity)
            continue
        run = _PERCENT_RUN.match(text, index)
        if run:
            decoded = bytes.fromhex(run.group(0).replace("%", "")).decode("utf-8", "replace")
            out.append(decoded)
            sources.extend(base + index + min(3 * k, len(run.group(0)) - 1)
                           for k in range(len(decoded)))
            index = run.end()
            continue
        out.append(" " if plus_is_space and text[index] == "+" else text[index])
        sources.append(base + index)
        index += 1
    return "".join(out), sources


def _query_value(query: str, key: str) -> tuple[int, str] | None:
    """Where the value of ``key=`` starts in a query string, and the value."""
    match = re.search(r"(?:^|&)" + re.escape(key) + r"=([^&]*)", query)
    return (match.start(1), match.group(1)) if match else None


def decoded_math_address(match: re.Match[str]) -> tuple[str, list[int]]:
    """The TeX an image address carries, decoded, spaced off from the text around it."""
    if match["codecogs"] is not None:
        where, tex = match.start("codecogs") - match.start(), match["codecogs"]
        text, sources = _url_decoded(tex, where, plus_is_space=False)
        prefix = _CODECOGS_PREFIX.match(text)
        if prefix:
            text, sources = text[prefix.end():], sources[prefix.end():]
    else:
        name = "github" if match["github"] is not None else "chart"
        found = _query_value(match[name], "math" if name == "github" else "chl")
        if found is None:
            return " " * len(match.group(0)), list(range(len(match.group(0))))
        offset, tex = found
        text, sources = _url_decoded(tex, match.start(name) - match.start() + offset, True)
    return " " + text + " ", [sources[0] if sources else 0] + sources + \
        [len(match.group(0)) - 1]
