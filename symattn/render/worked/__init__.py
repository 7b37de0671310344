"""A derivation as a worked example: formula, numbers substituted, result.

``build`` turns a derivation (and the report on its printed numbers, if any)
into the records of ``worked.model``; the templates lay them out. The parts:
``labels`` (query rows, tokens, escaped prose), ``names`` (templates and
headings of steps), ``cells`` (numbers), ``layout`` (matrices that fit),
``steps`` (what each kind of step shows), ``rows`` (rows written out entry
by entry) and ``claims`` (printed numbers with their verdicts).
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from symattn.render.worked.builder import DETAILS, Options, build, shown_steps
    from symattn.render.worked.labels import expand_row_indices, row_labels

__all__ = ["Options", "build", "shown_steps", "DETAILS", "expand_row_indices", "row_labels"]

def __getattr__(name: str) -> object:
    # The builder is loaded when first asked for: a text report reads only the step
    # names (``worked.names``) and starts 0.15 s sooner without the rest.
    if name in ("Options", "build", "shown_steps", "DETAILS"):
        from symattn.render.worked import builder

        return getattr(builder, name)
    if name in ("expand_row_indices", "row_labels"):
        from symattn.render.worked import labels

        return getattr(labels, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
