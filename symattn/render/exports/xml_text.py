"""The one way user text goes into an export's XML (Moodle XML, QTI).

ElementTree escapes ``& < >`` (and quotes in attributes) itself; what it lets
through are the characters XML 1.0 forbids anywhere, even escaped: the C0
controls but tab, line feed and carriage return, U+FFFE, U+FFFF and lone
surrogates. A form feed in a spec's title would make the whole file
ill-formed, so a platform's import would refuse it; those characters are
taken out of every text, tail and attribute just before the tree is written.

>>> root = ET.Element("a", {"title": "x\\x0cy"})
>>> root.text = "1 < 2\\x00 & \\ufffe"
>>> serialise(root)
b'<?xml version=\\'1.0\\' encoding=\\'utf-8\\'?>\\n<a title="xy">1 &lt; 2 &amp; </a>\\n'
"""

from __future__ import annotations

__all__ = ["xml_text", "serialise"]

import re
import xml.etree.ElementTree as ET

_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_text(text: str) -> str:
    """``text`` without the characters XML 1.0 forbids."""
    return _FORBIDDEN.sub("", text)


def serialise(root: ET.Element) -> bytes:
    """``root`` as UTF-8 XML, indented, every string of it made fit for XML first."""
    for element in root.iter():
        if element.text:
            element.text = xml_text(element.text)
        if element.tail:
            element.tail = xml_text(element.tail)
        for name, value in element.attrib.items():
            element.attrib[name] = xml_text(value)
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"
