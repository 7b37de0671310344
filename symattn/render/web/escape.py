"""The one way a user's string enters a web page: escaped with stdlib ``html.escape``.

Every title, token name, number and message that reaches HTML goes through
``text`` (element content) or ``attribute`` (a quoted attribute value), so a
hostile name such as ``<script>`` stays text.

>>> text('<b>"T" & K</b>')
'&lt;b&gt;&quot;T&quot; &amp; K&lt;/b&gt;'
>>> attribute("it's")
'it&#x27;s'
"""

from __future__ import annotations

__all__ = ["text", "attribute"]

import html


def text(s: str) -> str:
    """``s`` as element content: ``<``, ``>``, ``&`` and both quotes escaped."""
    return html.escape(s, quote=True)


def attribute(s: str) -> str:
    """``s`` as a double- or single-quoted attribute value (quotes escaped too)."""
    return html.escape(s, quote=True)
