"""A derivation as a worked example: formula, numbers substituted, result.

``build`` turns a derivation (and the report on its printed numbers, if any)
into the records of ``worked.model``; the templates lay them out.
"""

from symattn.render.worked.builder import DETAILS, Options, build, expand_row_indices, row_labels

__all__ = ["Options", "build", "DETAILS", "expand_row_indices", "row_labels"]
