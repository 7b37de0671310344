"""Many short texts at once, in numpy: a large matrix written without a Python
string per entry.

A ``TextArray`` holds the texts of an n x m block as byte segments of one
buffer (UTF-8): entry k is ``data[starts[k]:starts[k] + lengths[k]]``, or
``null`` (a closed form left out). Texts are made and joined a whole block at
a time (``digit_texts``, ``choose``, ``stack``) and written as
JSON rows byte for byte as ``json.dumps`` writes a list of them
(``json_rows``). Rows read as tuples of ``str`` like any other block.

>>> import numpy as np
>>> texts = choose(np.array([[True, False]]), b"-oo", from_rows([["1/2", "3"]], 2))
>>> texts.rows(), texts.json_rows()
([('-oo', '3')], ['["-oo", "3"]'])
"""

from __future__ import annotations

__all__ = ["as_text", "TextArray", "stack", "by_rows", "ROWS_AT_ONCE", "choose", "constant",
           "from_rows"]

from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence, Union

from symattn.values.text_json import ROW_BREAK, matrix_json

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

    Ints = NDArray[np.int64]
    Bools = NDArray[np.bool_]

_SEGMENTS = 1 << 18     # segments gathered at once: bounds the index arrays' memory
_UNSAFE = frozenset('"\\') | frozenset(chr(c) for c in range(32))   # JSON would escape these


def as_text(pieces: Iterable[str | bytes]) -> str:
    """Pieces of a document (text, or UTF-8 bytes as a large matrix writes them) as one
    string."""
    return "".join(p if isinstance(p, str) else p.decode("utf-8") for p in pieces)


class TextArray:
    """The texts of an n x m block as segments of one byte buffer (module docstring)."""

    def __init__(self, shape: tuple[int, int], data: NDArray[np.uint8], starts: Ints,
                 lengths: Ints, null: Bools | None = None, plain: bool = True,
                 width: int = 0) -> None:
        self.shape = shape
        self.data = data
        self.starts = starts            # flat, row by row
        self.lengths = lengths
        self.null = null                # flat, or None: no entry is null
        self.plain = plain              # False: some text needs JSON escapes
        # above 0: ``data`` is a character matrix of this width, entry k in its row k
        self.width = width

    def _matrix(self) -> NDArray[np.uint8]:
        return self.data.reshape(len(self.starts), self.width)

    def __len__(self) -> int:
        return self.shape[0]

    def __iter__(self) -> Iterator[tuple[str | None, ...]]:
        return iter(self.rows())

    def __getitem__(self, index: int) -> tuple[str | None, ...]:
        return self.rows(index, index + 1)[0]

    @property
    def nulls(self) -> int:
        """How many entries are null."""
        return 0 if self.null is None else int(self.null.sum())

    def rows(self, first: int = 0, last: int | None = None) -> list[tuple[str | None, ...]]:
        """Rows ``first`` to ``last`` (exclusive) as tuples of ``str`` (None for null)."""
        n, m = self.shape
        last = n if last is None else last
        low, high = first * m, last * m
        data = self.data.tobytes()
        starts = self.starts[low:high].tolist()
        ends = (self.starts[low:high] + self.lengths[low:high]).tolist()
        null = [False] * (high - low) if self.null is None else self.null[low:high].tolist()
        texts = [None if none else data[a:b].decode("utf-8")
                 for a, b, none in zip(starts, ends, null)]
        return [tuple(texts[r * m:(r + 1) * m]) for r in range(last - first)]

    def json_rows(self) -> list[str]:
        """Each row as ``json.dumps(row, ensure_ascii=False)`` writes it."""
        joined = as_text(self.json_lines())
        return joined.split(ROW_BREAK) if self.shape[0] else []

    @property
    def rows_at_once(self) -> int:
        """How many rows each piece of ``json_lines`` holds (the last may hold fewer)."""
        return max(1, _SEGMENTS // max(self.shape[1], 1))

    def json_lines(self) -> Iterator[str | bytes]:
        """``ROW_BREAK.join(self.json_rows())`` in pieces, a few rows at a time
        (bounded index arrays; a character matrix straight to UTF-8 bytes)."""
        import json

        import numpy as np

        n, m = self.shape
        step = self.rows_at_once
        in_matrix = self.plain and m and self.width and self.null is None
        if in_matrix:     # where each text starts in its row of the character matrix
            offsets = self.starts - np.arange(n * m, dtype=np.int64) * self.width
        for first in range(0, n, step):
            last = min(n, first + step)
            if in_matrix:
                yield matrix_json(self._matrix(), offsets, self.lengths, m, first, last) + \
                    (b"" if last == n else ROW_BREAK.encode("ascii"))
                continue
            if not self.plain:
                lines = [json.dumps(list(row), ensure_ascii=False)
                         for row in self.rows(first, last)]
            else:
                lines = ["[]"] * (last - first) if m == 0 else self._json_part(first, last)
            yield ROW_BREAK.join(lines) + ("" if last == n else ROW_BREAK)

    def _json_part(self, first: int, last: int) -> list[str]:
        """``json_rows`` of rows ``first`` to ``last``: the texts copied once, the quotes,
        commas and nulls written around them."""
        import numpy as np

        m = self.shape[1]
        part = slice(first * m, last * m)
        count = (last - first) * m
        null = np.zeros(count, dtype=bool) if self.null is None else self.null[part]
        sizes = np.where(null, 0, self.lengths[part])
        apart = np.ones(count, dtype=bool)
        apart[m - 1::m] = False
        widths = np.where(null, 4, sizes + 2) + 2 * apart
        ends = np.cumsum(widths)
        begins = ends - widths
        out = np.empty(int(ends[-1]), dtype=np.uint8)
        _copy(self.data, self.starts[part], sizes, out, begins + 1)
        quoted = begins[~null]
        out[quoted] = ord('"')
        out[quoted + sizes[~null] + 1] = ord('"')
        for offset, byte in enumerate(b"null"):
            out[begins[null] + offset] = byte
        out[ends[apart] - 2] = ord(",")
        out[ends[apart] - 1] = ord(" ")
        raw = out.tobytes()
        rows = zip(begins[::m].tolist(), ends[m - 1::m].tolist())
        return ["[" + raw[a:b].decode("utf-8") + "]" for a, b in rows]

    def replaced(self, index: Sequence[int], texts: Sequence[str | None]) -> TextArray:
        """A copy with the flat entries ``index`` set to ``texts`` (None: null)."""
        import numpy as np

        if not len(index):
            return self
        encoded = [(text or "").encode("utf-8") for text in texts]
        if self.width and self.null is None and all(text is not None for text in texts) \
                and max(len(part) for part in encoded) <= self.width:
            return self._replaced_in_matrix(index, encoded)
        added = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        sizes = np.array([len(part) for part in encoded], dtype=np.int64)
        where = np.asarray(index, dtype=np.int64)
        starts, lengths = self.starts.copy(), self.lengths.copy()
        starts[where] = len(self.data) + np.cumsum(sizes) - sizes
        lengths[where] = sizes
        null = None if self.null is None else self.null.copy()
        nones = np.array([text is None for text in texts], dtype=bool)
        if nones.any():
            null = np.zeros(len(starts), dtype=bool) if null is None else null
        if null is not None:
            null[where] = nones
        # JSON escapes only ASCII bytes (a multi-byte UTF-8 character has none below 128)
        plain = self.plain and not bool(((added < 32) | (added == 34) | (added == 92)).any())
        return TextArray(self.shape, np.concatenate((self.data, added)), starts, lengths,
                         null, plain)


    def _replaced_in_matrix(self, index: Sequence[int], encoded: list[bytes]) -> TextArray:
        """``replaced`` with every new text fitting its row of the character matrix."""
        import numpy as np

        matrix = self._matrix().copy()
        starts, lengths = self.starts.copy(), self.lengths.copy()
        plain = self.plain
        for k, part in zip(index, encoded):
            matrix[k, :len(part)] = np.frombuffer(part, dtype=np.uint8)
            starts[k], lengths[k] = k * self.width, len(part)
            plain = plain and not _UNSAFE.intersection(part.decode("utf-8"))
        return TextArray(self.shape, matrix.ravel(), starts, lengths, None, plain, self.width)

    def wrapped(self, prefix: bytes, suffix: bytes) -> TextArray:
        """Each text of a character matrix between ``prefix`` and ``suffix``."""
        import numpy as np

        count, before = len(self.starts), len(prefix)
        width = self.width + before + len(suffix)
        matrix = np.empty((count, width), dtype=np.uint8)
        matrix[:, before:before + self.width] = self._matrix()
        rows = np.arange(count, dtype=np.int64)
        starts = self.starts - rows * self.width + rows * width     # the prefix goes here
        flat = matrix.ravel()
        for offset, byte in enumerate(prefix):
            flat[starts + offset] = byte
        for offset, byte in enumerate(suffix):
            flat[starts + before + self.lengths + offset] = byte
        plain = self.plain and not _UNSAFE.intersection((prefix + suffix).decode("utf-8"))
        return TextArray(self.shape, flat, starts, self.lengths + before + len(suffix),
                         self.null, plain, width)

    def widened(self, width: int) -> TextArray:
        """A character matrix at least ``width`` wide (the texts where they were)."""
        import numpy as np

        if width <= self.width:
            return self
        count = len(self.starts)
        matrix = np.zeros((count, width), dtype=np.uint8)
        matrix[:, :self.width] = self._matrix()
        rows = np.arange(count, dtype=np.int64)
        starts = self.starts - rows * self.width + rows * width
        return TextArray(self.shape, matrix.ravel(), starts, self.lengths, self.null,
                         self.plain, width)


Piece = Union[TextArray, bytes]
# Entries made at once by ``by_rows``: bounds the temporary arrays of a large matrix.
ROWS_AT_ONCE = 1 << 17


def stack(arrays: Sequence[TextArray]) -> TextArray:
    """The rows of ``arrays`` one after another (the same number of columns)."""
    import numpy as np

    if len(arrays) == 1:
        return arrays[0]
    if all(a.width and a.null is None for a in arrays):
        return _stacked_matrices(arrays)
    offsets = np.cumsum([0] + [len(a.data) for a in arrays[:-1]])
    nulls = [a.null if a.null is not None else np.zeros(len(a.starts), dtype=bool)
             for a in arrays]
    null = np.concatenate(nulls) if any(a.null is not None for a in arrays) else None
    return TextArray((sum(a.shape[0] for a in arrays), arrays[0].shape[1]),
                     np.concatenate([a.data for a in arrays]),
                     np.concatenate([a.starts + o for a, o in zip(arrays, offsets.tolist())]),
                     np.concatenate([a.lengths for a in arrays]), null,
                     all(a.plain for a in arrays))


def _stacked_matrices(arrays: Sequence[TextArray]) -> TextArray:
    """``stack`` of character matrices: each copied once into a matrix of the widest width."""
    import numpy as np

    width = max(a.width for a in arrays)
    counts = [len(a.starts) for a in arrays]
    matrix = np.zeros((sum(counts), width), dtype=np.uint8)
    starts = np.empty(sum(counts), dtype=np.int64)
    row = 0
    for a, count in zip(arrays, counts):
        if a.width == width:     # one block copy, not a copy per short row
            matrix[row:row + count] = a.data.reshape(count, width)
        else:
            matrix[row:row + count, :a.width] = a._matrix()
        places = np.arange(count, dtype=np.int64)
        starts[row:row + count] = a.starts - places * a.width + (places + row) * width
        row += count
    return TextArray((sum(a.shape[0] for a in arrays), arrays[0].shape[1]), matrix.ravel(),
                     starts, np.concatenate([a.lengths for a in arrays]), None,
                     all(a.plain for a in arrays), width)


def by_rows(make: Callable[[slice], tuple[TextArray, NDArray[np.bool_]]], rows: int,
            columns: int) -> tuple[TextArray, NDArray[np.bool_]]:
    """``make(rows)`` for a few rows at a time (``ROWS_AT_ONCE`` entries), stacked:
    texts and a boolean matrix."""
    import numpy as np

    step = max(1, ROWS_AT_ONCE // max(columns, 1))
    made = [make(slice(first, min(rows, first + step))) for first in range(0, rows, step)]
    if not made:
        return make(slice(0, 0))
    return stack([texts for texts, _ in made]), np.concatenate([flags for _, flags in made])


def constant(shape: tuple[int, int], text: str) -> TextArray:
    """Every entry ``text``."""
    import numpy as np

    data = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    count = shape[0] * shape[1]
    if not data.size:
        return TextArray(shape, data, np.zeros(count, dtype=np.int64),
                         np.zeros(count, dtype=np.int64), None, True)
    rows = np.arange(count, dtype=np.int64)
    return TextArray(shape, np.tile(data, count), rows * len(data),
                     np.full(count, len(data), dtype=np.int64), None,
                     not _UNSAFE.intersection(text), len(data))


def from_rows(rows: Sequence[Sequence[str | None]], columns: int) -> TextArray:
    """Python strings (None: null) as a ``TextArray``."""
    import numpy as np

    flat = [text for row in rows for text in row]
    encoded = [(text or "").encode("utf-8") for text in flat]
    sizes = np.array([len(part) for part in encoded], dtype=np.int64)
    data = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    nones = np.array([text is None for text in flat], dtype=bool)
    plain = not any(_UNSAFE.intersection(text) for text in flat if text)
    return TextArray((len(rows), columns), data, np.cumsum(sizes) - sizes, sizes,
                     nones if nones.any() else None, plain)


def _runs(starts: Ints, sizes: Ints, total: int) -> Ints:
    """``concatenate([arange(s, s + n) for s, n in zip(starts, sizes)])`` without a
    Python loop: ones, with each run's first step jumping to its start, summed up."""
    import numpy as np

    steps = np.ones(total, dtype=np.int64)
    kept = sizes > 0
    first = (np.cumsum(sizes) - sizes)[kept]
    begins = starts[kept]
    steps[first[1:]] = begins[1:] - (begins[:-1] + sizes[kept][:-1] - 1)
    steps[0] = begins[0]
    return np.cumsum(steps)


def _copy(source: NDArray[np.uint8], starts: Ints, sizes: Ints, target: NDArray[np.uint8],
          places: Ints) -> None:
    """``target[places[k]:][:sizes[k]] = source[starts[k]:][:sizes[k]]`` for every k."""
    total = int(sizes.sum())
    if total == 0:
        return
    target[_runs(places, sizes, total)] = source[_runs(starts, sizes, total)]


def _buffers(pieces: Sequence[Piece], count: int
             ) -> tuple[NDArray[np.uint8], list[tuple[Ints, Ints]]]:
    """One buffer holding every piece's bytes, and each piece's (starts, lengths) in it."""
    import numpy as np

    parts, located, offset = [], [], 0
    for piece in pieces:
        if isinstance(piece, bytes):
            parts.append(np.frombuffer(piece, dtype=np.uint8))
            located.append((np.full(count, offset, dtype=np.int64),
                            np.full(count, len(piece), dtype=np.int64)))
            offset += len(piece)
        else:
            parts.append(piece.data)
            located.append((piece.starts + offset, piece.lengths))
            offset += len(piece.data)
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint8), located


def choose(condition: Bools, when: Piece, otherwise: Piece) -> TextArray:
    """``when``'s text where ``condition`` holds, else ``otherwise``'s (entry by entry)."""
    import numpy as np

    flat = condition.ravel()
    for fixed, other, where in ((when, otherwise, flat), (otherwise, when, ~flat)):
        if isinstance(fixed, bytes) and isinstance(other, TextArray) and other.width and \
                other.null is None:
            return _choose_in_matrix(where, fixed, other)
    buffer, ((s1, n1), (s2, n2)) = _buffers((when, otherwise), len(flat))
    shape = condition.shape if condition.ndim == 2 else (1, len(flat))
    plain = all(p.plain for p in (when, otherwise) if isinstance(p, TextArray))
    nulls = [p.null if isinstance(p, TextArray) else None for p in (when, otherwise)]
    null = None
    if nulls[0] is not None or nulls[1] is not None:
        null = np.where(flat, False if nulls[0] is None else nulls[0],
                        False if nulls[1] is None else nulls[1])
    return TextArray((int(shape[0]), int(shape[1])), buffer, np.where(flat, s1, s2),
                     np.where(flat, n1, n2), null, plain)


def _choose_in_matrix(where: Bools, text: bytes, array: TextArray) -> TextArray:
    """``choose`` of a fixed text and a character matrix: the text written into the
    chosen rows of a copy of the matrix."""
    import numpy as np

    wide = array.widened(len(text))
    matrix = wide._matrix() if wide is not array else wide._matrix().copy()   # widened: new
    matrix[where, :len(text)] = np.frombuffer(text, dtype=np.uint8)
    rows = np.arange(len(where), dtype=np.int64)
    return TextArray(array.shape, matrix.ravel(), np.where(where, rows * wide.width, wide.starts),
                     np.where(where, len(text), wide.lengths), None,
                     array.plain and not _UNSAFE.intersection(text.decode("utf-8")), wide.width)
