"""What the max-shift steps show (``derivation.max_shift``): z - m, then e^{z - m}.

``operands`` gives the matrices substituted into a shift step's formula: the
scores beside their row maxima, each score written as ``z - m``, the
exponentials of the shifted scores. ``info`` gives the strings their templates
print: the largest score of each row on show and whether the page's softmax is
shifted (the weights' table then heads its exponentials e^{z - m}).

>>> import symattn
>>> from symattn.values.number_format import NumberFormat
>>> from symattn.render.worked.cells import Cells
>>> from symattn.render.worked.layout import Layout
>>> derivation = symattn.derive(symattn.load_example("004-softmax-180-210-95"))
>>> layout = Layout(derivation, Cells(derivation, NumberFormat()), 8)
>>> operands(layout, "shifted", derivation["shifted"])["Z"].rows
(('180 - 210', '210 - 210', '95 - 210'),)
"""

from __future__ import annotations

__all__ = ["KINDS", "operands", "is_shifted"]

from symattn.derivation.names import split_name
from symattn.derivation.steps import Derivation, Step
from symattn.render import latex
from symattn.render.worked.layout import Layout
from symattn.render.worked.model import Matrix
from symattn.values.exact import NEG_INF

KINDS = ("row_max", "shifted", "exp_shifted", "exp_shifted_sum")


def is_shifted(derivation: Derivation, prefix: str = "") -> bool:
    """Whether the family's weights divide max-shifted exponentials."""
    weights = prefix + "weights"
    return weights in derivation and bool(derivation[weights].operands) and \
        split_name(derivation[weights].operands[0])[1] == "exp_shifted"


def _difference(layout: Layout, source: str, maxima: str, i: int, j: int) -> str:
    """``z - m`` for entry (i, j), a negative maximum in parentheses."""
    cells = layout.cells
    if cells.raw(source, i, j) is NEG_INF:
        return r"-\infty"
    z, _ = cells.factor(source, i, j)
    m, _ = cells.factor(maxima, i, 0)
    return f"{z} - {latex.factor_latex(m)}"


def operands(layout: Layout, kind: str, step: Step) -> dict[str, Matrix]:
    """The matrices substituted into a shift step's formula, by template name."""
    prefix = split_name(step.name)[0]
    if kind == "row_max":
        return {"Z": layout.operand(step.operands[0])}
    if kind == "shifted":
        source, maxima = step.operands
        values = layout.values(source)
        exact = all(v.is_exact for v in values.values())
        return {"Z": layout.matrix(step.name, lambda i, j: _difference(
            layout, source, maxima, i, j), exact)}
    if kind == "exp_shifted":
        return {"Z": layout.exp_of(prefix + "shifted")}
    return {}
