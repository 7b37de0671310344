"""Positions on the SymPy path: encodings and rotations as SymPy expressions.

The position steps of ``sympy_path``, with the same names, formulas and
descriptions as the fast path's (``positions``): PE and X_pos (sinusoidal),
Q_rot and K_rot (RoPE). They cover what the fast path cannot:

* an input with a root or an identifier (``sqrt(2)``, ``a``): the fast path's
  sums of sines and cosines (``values.trig.TrigSum``) have rational
  coefficients only, so ``positions.applies`` sends such a problem here;
* a symbolic scale or temperature (``temperature = "T"``; the fast path scales
  by a rational or a square root), and with it the ``[symbols]`` limits,
  derivatives and substitutions, which work on SymPy expressions;
* ``explore.kvcache``: its decoded rows are built from these functions, and
  each is proved equal to the full derivation's row by comparing SymPy closed
  forms of ``derive(problem, sympy_positions=True)``.

Values stay exact: ``sin(1/100)`` is kept as that, ``sin(0)`` is exactly 0 and
``cos(0)`` exactly 1, so position 0 adds (0, 1, 0, 1, ...) and RoPE leaves
position 0 unrotated. Scores are written as linear combinations of sines and
cosines (products turned into sums, ``linearise``), so equal scores have equal
exact forms.

>>> sinusoidal_entry(1, 2, 4, 10000)
sin(1/100)
>>> sinusoidal_entry(0, 1, 4, 10000), sinusoidal_entry(0, 0, 4, 10000)
(1, 0)
>>> rope_angle(3, 1, 4, 10000)
3/100

"""

from __future__ import annotations

__all__ = ['frequency', 'sinusoidal_entry', 'sinusoidal_table', 'rope_angle', 'rotate', 'linearise',
           'encoding_steps', 'rotation_steps']

import sympy

from symattn.derivation.steps import Step, make_step
from symattn.derivation.sympy_grid import SympyGrid
from symattn.errors import ShapeError
from symattn.problem.problem import Problem


# ------------------------------------------------------------------ the encodings
def frequency(pair: int, width: int, base: int) -> sympy.Expr:
    """base^(-2i/width), the angle per position of column pair i, exactly.

    >>> frequency(1, 6, 10000)
    10**(2/3)/100
    """
    return sympy.Integer(base) ** sympy.Rational(-2 * pair, width)


def sinusoidal_entry(position: int, column: int, d_model: int, base: int) -> sympy.Expr:
    """PE[position, column]: sin for even columns, cos for odd, position 0-based."""
    angle = sympy.Integer(position) * frequency(column // 2, d_model, base)
    return sympy.sin(angle) if column % 2 == 0 else sympy.cos(angle)


def sinusoidal_table(rows: int, d_model: int, base: int) -> sympy.Matrix:
    """The rows x d_model table of sinusoidal encodings (positions 0 .. rows-1)."""
    return sympy.Matrix(rows, d_model, lambda p, c: sinusoidal_entry(p, c, d_model, base))


def rope_angle(position: int, pair: int, width: int, base: int) -> sympy.Expr:
    """The rotation angle of column pair ``pair`` at ``position`` (0-based)."""
    return sympy.Integer(position) * frequency(pair, width, base)


def rotate(matrix: sympy.Matrix, base: int, first_position: int = 0) -> sympy.Matrix:
    """RoPE: row r (at position first_position + r) with each pair (2i, 2i+1) rotated.

    >>> rotate(sympy.Matrix([[1, 0], [1, 0]]), 10000)
    Matrix([
    [     1,      0],
    [cos(1), sin(1)]])
    """
    rows, width = matrix.shape
    if width % 2:
        raise ShapeError(f"RoPE rotates pairs of columns, so d_k must be even; it is {width}")
    result = sympy.zeros(rows, width)
    for r in range(rows):
        for pair in range(width // 2):
            angle = rope_angle(first_position + r, pair, width, base)
            c, s = sympy.cos(angle), sympy.sin(angle)
            x, y = matrix[r, 2 * pair], matrix[r, 2 * pair + 1]
            result[r, 2 * pair] = sympy.expand(c * x - s * y)
            result[r, 2 * pair + 1] = sympy.expand(s * x + c * y)
    return result


def linearise(expr: sympy.Expr) -> sympy.Expr:
    """Products and powers of sines and cosines written as sums (an exact identity).

    A score is then a rational plus a combination of sin(a) and cos(a) over
    distinct angles, a form in which equal values look equal: on one position
    sin(x)^2 + cos(x)^2 is 1, not a sum that only rounds to 1.

    >>> x = sympy.Rational(1, 100)
    >>> linearise(sympy.sin(x)**2 + sympy.cos(x)**2 + sympy.sin(x) * sympy.cos(x))
    sin(1/50)/2 + 1
    """
    from sympy.simplify.fu import TR8

    expanded = sympy.expand(expr)
    if not expanded.has(sympy.sin, sympy.cos):
        return expanded
    return sympy.expand(TR8(expanded))


# ------------------------------------------------------ steps of the derivation
def encoding_steps(problem: Problem, matrices: dict[str, sympy.Matrix]) -> list[Step]:
    """Steps PE and X_pos (and PE_kv, X_kv_pos): adds the sums to ``matrices``."""
    base = problem.position_base
    steps = []
    for source, pe, total in (("X", "PE", "X_pos"), ("X_kv", "PE_kv", "X_kv_pos")):
        if source not in matrices:
            continue
        rows, width = matrices[source].shape
        table = sinusoidal_table(rows, width, base)
        matrices[pe] = table
        matrices[total] = matrices[source] + table
        steps.append(make_step(pe, SympyGrid(table), description=(
            f"sinusoidal positions: PE[p, 2i] = sin(p / {base}^(2i/{width})), "
            f"PE[p, 2i+1] = cos(p / {base}^(2i/{width})), p = 0..{rows - 1} (0-based)")))
        steps.append(make_step(total, SympyGrid(matrices[total]),
                               description="each token's vector plus the encoding of its position"))
    return steps


def rotation_steps(problem: Problem, matrices: dict[str, sympy.Matrix]) -> list[Step]:
    """Steps Q_rot and K_rot: adds the rotated matrices to ``matrices``."""
    base = problem.position_base
    steps = []
    for name, kind in (("Q", "query"), ("K", "key")):
        width = matrices[name].shape[1]
        rotated = rotate(matrices[name], base)
        matrices[f"{name}_rot"] = rotated
        steps.append(make_step(f"{name}_rot", SympyGrid(rotated), description=(
            f"RoPE: each {kind} row at position p (0-based) with every column "
            f"pair (2i, 2i+1) rotated by the angle p * {base}^(-2i/{width})")))
    return steps
