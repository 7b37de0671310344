"""Who is who in a worked example: query rows, tokens and escaped prose.

Query rows are labelled by their positions when the problem gives them (a
decoder's last rows), else 1, 2, ...; ``--expand-rows`` chooses rows by
these labels.

>>> import symattn
>>> derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
>>> row_labels(derivation), expand_row_indices(derivation, None)
([1, 2, 3], [0, 1, 2])
>>> Labels(derivation, str.upper).token(0, "query")
'CAT'
"""

from __future__ import annotations

__all__ = ["score_step", "row_labels", "expand_row_indices", "Labels"]

from typing import Callable, Sequence

from symattn.derivation.names import base_name
from symattn.derivation.steps import Derivation, Step
from symattn.errors import InputError
from symattn.render import latex
from symattn.verify.claims import QUERY_ROW_STEPS


def score_step(derivation: Derivation) -> Step:
    """The first step of scores (n queries x m keys), of the first head if several."""
    for step in derivation.steps:
        if base_name(step.name) in ("scaled", "scores"):
            return step
    raise KeyError("scaled")


def row_labels(derivation: Derivation) -> list[int]:
    """1-based labels of the query rows (their positions when given)."""
    n = score_step(derivation).shape[0]
    return list(derivation.problem.query_positions or range(1, n + 1))


def expand_row_indices(derivation: Derivation, chosen: Sequence[int] | None) -> list[int]:
    """0-based query rows to expand: the chosen labels, else the last row (all if n <= 3)."""
    labels = row_labels(derivation)
    if chosen is None:
        return list(range(len(labels))) if len(labels) <= 3 else [len(labels) - 1]
    indices = []
    for label in chosen:
        if label not in labels:
            raise InputError(f"--expand-rows: there is no query row {label}; the rows are "
                             f"{', '.join(str(x) for x in labels)}")
        indices.append(labels.index(label))
    return sorted(set(indices))


class Labels:
    """Prose escaped for the output format, row labels and token names.

    ``cyrillic`` becomes True once some text needs the T2A font encoding.
    """

    def __init__(self, derivation: Derivation, escape: Callable[[str], str]) -> None:
        self.problem = derivation.problem
        self.labels = row_labels(derivation)
        self.queries, self.keys = score_step(derivation).shape
        self.cyrillic = False
        self._escape = escape

    def text(self, raw: str) -> str:
        """``raw`` escaped for the output format."""
        self.cyrillic = self.cyrillic or latex.has_cyrillic(raw)
        return self._escape(raw)

    def row_label(self, name: str, i: int) -> str:
        """The label of row ``i`` of step ``name``: a query's position, else i + 1."""
        return str(self.labels[i]) if name in QUERY_ROW_STEPS else str(i + 1)

    def token(self, index: int, role: str) -> str:
        """The token of a query row or key column ("query" or "key"), "" when unnamed.

        The tokens name the keys when there are as many as keys (a decoder
        reading its last rows names the queries by their positions).
        """
        tokens = self.problem.tokens
        if role == "key":
            return self.text(tokens[index]) if len(tokens) == self.keys else ""
        if len(tokens) == self.queries and self.problem.query_positions is None:
            return self.text(tokens[index])
        if len(tokens) == self.keys:
            return self.text(tokens[self.labels[index] - 1])
        return self.text(tokens[index]) if len(tokens) == self.queries else ""
