"""MathML as linear TeX-like text, for the number reader.

A ``<math>`` element is collected as a small tree (``MathNode``) while the page
is parsed, then written out as the text a source document would print:
``<msup><mi>e</mi><mn>0.485</mn></msup>`` as ``e^{0.485}``, an ``mtable`` as
``[[a, b], [c, d]]``, ``mfrac`` as ``a / b``. When a ``<semantics>`` carries
an ``<annotation encoding="application/x-tex">``, that TeX is used instead.
Every character written keeps the offset in the page it came from. The tree is
at most ``MAX_DEPTH`` deep (deeper elements are flattened into their parent
while collecting), so writing it out recurses at most that deep.

>>> root = MathNode("math", 0)
>>> row = root.add(MathNode("msup", 6))
>>> row.add(MathNode("mi", 12)).add_text("e", 16)
>>> row.add(MathNode("mn", 22)).add_text("0.5", 26)
>>> linear(root).text
'e^{0.5}'
"""

from __future__ import annotations

__all__ = ["MathNode", "Mapped", "linear", "tex_annotation", "MAX_DEPTH"]

from dataclasses import dataclass, field

MAX_DEPTH = 64          # nesting kept in a formula; deeper elements join their parent
_OPERATORS = {"\u2062": " ", "\u2061": "", "\u2063": ", ", "\u2064": "+", "⋅": "·",
              "∗": "*", "\u00a0": " "}
_SPACED = set("=+≈→×·*/<>≤≥∼~≠←⇒:")      # a minus stays by its number
_OPENING, _CLOSING = set("[(|{‖⟨⌈⌊"), set("])|}‖⟩⌉⌋")
_SKIPPED = frozenset({"annotation", "annotation-xml", "mphantom", "none", "mprescripts",
                      "mglyph", "malignmark", "maligngroup"})
_TEX = ("application/x-tex", "text/x-tex", "tex", "latex", "application/x-latex")


@dataclass
class MathNode:
    """One MathML element: its tag, attributes, children (nodes or text) and page offset."""

    tag: str
    pos: int
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[MathNode | tuple[str, int, bool]] = field(default_factory=list)

    def add(self, node: MathNode) -> MathNode:
        self.children.append(node)
        return node

    def add_text(self, text: str, pos: int, verbatim: bool = True) -> None:
        """Text at ``pos``; ``verbatim``: character k came from ``pos + k`` (else all from pos)."""
        self.children.append((text, pos, verbatim))

    @property
    def nodes(self) -> list[MathNode]:
        return [c for c in self.children if isinstance(c, MathNode)]


class Mapped:
    """Text being written, each character with the page offset it came from."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.origin: list[int] = []

    @property
    def text(self) -> str:
        return "".join(self.parts)

    def last(self) -> str:
        for part in reversed(self.parts):
            if part:
                return part[-1]
        return ""

    def add(self, text: str, pos: int, verbatim: bool = False) -> None:
        if not text:
            return
        self.parts.append(text)
        self.origin.extend(range(pos, pos + len(text)) if verbatim else [pos] * len(text))

    def extend(self, other: Mapped) -> None:
        self.parts.extend(other.parts)
        self.origin.extend(other.origin)


def _content(node: MathNode) -> str:
    return "".join(c[0] for c in node.children if isinstance(c, tuple)).strip()


def tex_annotation(node: MathNode) -> MathNode | None:
    """The ``annotation`` holding the formula's TeX, searched breadth first."""
    queue = [node]
    for current in queue:      # the queue grows while it is read: no recursion
        if current.tag == "annotation" and \
                current.attrs.get("encoding", "").strip().lower() in _TEX:
            return current
        queue.extend(current.nodes)
        if len(queue) > 100_000:
            return None
    return None


def _join(out: Mapped, piece: Mapped) -> None:
    """Append a piece, with a space where two words or numbers would run together."""
    first = next((p[0] for p in piece.parts if p), "")
    last = out.last()
    if first and last and (last.isalnum() or last == ".") and (first.isalnum() or first == "."):
        out.add(" ", piece.origin[0])
    out.extend(piece)


def _token(node: MathNode) -> Mapped:
    out = Mapped()
    for child in node.children:
        if isinstance(child, tuple):
            text, pos, verbatim = child
            if node.tag == "mo":
                stripped = text.strip()
                mapped = _OPERATORS.get(stripped, stripped)
                if mapped in _SPACED:
                    mapped = f" {mapped} "
                out.add(mapped, pos, verbatim and mapped == text)
            else:
                out.add(" ".join(text.split()) if node.tag != "mtext" else text, pos,
                        verbatim and " ".join(text.split()) == text)
    return out


def _braced(node: MathNode, depth: int) -> Mapped:
    out = Mapped()
    out.add("{", node.pos)
    out.extend(_linear(node, depth))
    out.add("}", node.pos)
    return out


def _simple(node: MathNode) -> bool:
    return node.tag in ("mi", "mn") or node.tag == "mrow" and len(node.nodes) == 1 and \
        node.nodes[0].tag in ("mi", "mn")


def _fraction(node: MathNode, depth: int) -> Mapped:
    out = Mapped()
    parts = node.nodes[:2]
    for k, part in enumerate(parts):
        inner = _linear(part, depth)
        if not _simple(part):
            out.add("(", part.pos)
            out.extend(inner)
            out.add(")", part.pos)
        else:
            out.extend(inner)
        if k == 0:
            out.add(" / ", node.pos)
    return out


def _scripts(node: MathNode, depth: int) -> Mapped:
    parts = node.nodes
    out = Mapped()
    if not parts:
        return out
    out.extend(_linear(parts[0], depth))
    marks = {"msub": "_", "msup": "^", "msubsup": "_^", "munder": "_", "mover": "^",
             "munderover": "_^", "mmultiscripts": "_^"}[node.tag]
    for mark, part in zip(marks, parts[1:]):
        if node.tag == "mover" and part.tag == "mo":
            continue          # an accent: \hat{x}, \bar{x}
        out.add(mark, part.pos)
        out.extend(_braced(part, depth))
    return out


def _table(node: MathNode, depth: int) -> Mapped:
    out = Mapped()
    out.add("[", node.pos)
    rows = [r for r in node.nodes if r.tag in ("mtr", "mlabeledtr")]
    for i, row in enumerate(rows):
        cells = [c for c in row.nodes if c.tag == "mtd"]
        if row.tag == "mlabeledtr":
            cells = cells[1:]
        out.add("[" if i == 0 else ", [", row.pos)
        for j, cell in enumerate(cells):
            if j:
                out.add(", ", cell.pos)
            out.extend(_linear(cell, depth))
        out.add("]", row.pos)
    out.add("]", node.pos)
    return out


def _fenced(node: MathNode, depth: int) -> Mapped:
    parts = node.nodes
    if len(parts) == 1 and parts[0].tag == "mtable":
        return _linear(parts[0], depth)
    separators = "".join(node.attrs.get("separators", ",").split()) or ","
    out = Mapped()
    out.add(node.attrs.get("open", "("), node.pos)
    for k, part in enumerate(parts):
        if k:
            out.add(separators[min(k - 1, len(separators) - 1)] + " ", part.pos)
        out.extend(_linear(part, depth))
    out.add(node.attrs.get("close", ")"), node.pos)
    return out


def _is_fence(node: MathNode, fences: set[str]) -> bool:
    return node.tag == "mo" and _content(node) in fences


def _row(node: MathNode, depth: int) -> Mapped:
    """Children one after another; the brackets around a matrix are the matrix's own."""
    out = Mapped()
    parts = node.nodes if node.tag != "semantics" else node.nodes[:1]
    skip: set[int] = set()
    for k, part in enumerate(parts):
        if part.tag == "mtable" and 0 < k < len(parts) - 1 and \
                _is_fence(parts[k - 1], _OPENING) and _is_fence(parts[k + 1], _CLOSING):
            skip.update((k - 1, k + 1))
    pieces = [_linear(part, depth) for k, part in enumerate(parts) if k not in skip]
    for piece in pieces:
        if piece.parts:
            _join(out, piece)
    return out


def _linear(node: MathNode, depth: int) -> Mapped:
    if depth > MAX_DEPTH + 2:    # collected trees are shallower; a guard all the same
        return Mapped()
    depth += 1
    tag = node.tag
    if tag in _SKIPPED:
        return Mapped()
    if tag in ("mi", "mn", "mo", "mtext", "ms"):
        return _token(node)
    if tag == "mspace":
        out = Mapped()
        out.add(" ", node.pos)
        return out
    if tag == "mfrac":
        return _fraction(node, depth)
    if tag in ("msub", "msup", "msubsup", "munder", "mover", "munderover", "mmultiscripts"):
        return _scripts(node, depth)
    if tag in ("msqrt", "mroot"):
        out = Mapped()
        inner = _row(node, depth) if tag == "msqrt" else _linear(node.nodes[0], depth) \
            if node.nodes else Mapped()
        simple = len(node.nodes) == 1 and _simple(node.nodes[0])
        out.add("√" if simple else "√(", node.pos)
        out.extend(inner)
        if not simple:
            out.add(")", node.pos)
        return out
    if tag == "mtable":
        return _table(node, depth)
    if tag == "mfenced":
        return _fenced(node, depth)
    if tag in ("maction",):
        return _linear(node.nodes[0], depth) if node.nodes else Mapped()
    return _row(node, depth)


def linear(node: MathNode) -> Mapped:
    """A ``<math>`` tree as linear text: its TeX annotation if it has one, else MathML
    written out (see the module docstring)."""
    annotation = tex_annotation(node)
    if annotation is not None:
        out = Mapped()
        for child in annotation.children:
            if isinstance(child, tuple):
                out.add(child[0], child[1], child[2])
        return out
    return _linear(node, 0)
