"""Calculator-free forms of the softmax exercises: scores that are logarithms.

With ``--numbers calculator-free`` a score is ``ln k`` for a small whole
number k, so ``e^{ln k} = k``: the exponentials are whole numbers, their sum
is a whole number and every weight and output is a short fraction. The
checker judges the weights and outputs on a spec that gives the
exponentials k and normalises them by their sum (``normalisation = "sum"``),
which is the same computation.

>>> from symattn.worksheets.model import Setup
>>> from symattn.worksheets.numbers import variant_random
>>> exercise = softmax_table(variant_random(3, 1, 1, "softmax_table"), Setup(compact=True))
>>> [blank.expected() for blank in exercise.blanks]
['2', '1/6', '6', '1/2', '4', '1/3', '12']
"""

from __future__ import annotations

__all__ = ["softmax_table", "output_row", "WHOLE", "log_math"]

import random
from typing import Any, Sequence

from flint import fmpq

from symattn.worksheets.answers import derive_spec
from symattn.worksheets.model import (Blank, Blanks, Exercise, Given, Math, Msg, Note, Num, Setup,
                                      Table, Text, spec_number)

WHOLE = (1, 2, 3, 4, 6)          # e^{z} for z = ln k: small, with short sums


def log_math(k: int) -> Math:
    """``ln k`` as math (``0`` for k = 1)."""
    return Math("0" if k == 1 else rf"\ln {k}")


def _whole_row(rng: random.Random, m: int) -> list[int]:
    """m different whole numbers of ``WHOLE`` whose sum is not one of them."""
    return rng.sample(WHOLE, m)


def _fraction(id: str, label: str, value: object, claim: tuple[int, str] | None) -> Blank:
    if not isinstance(value, fmpq):
        raise TypeError(f"a calculator-free answer is not rational: {value!r}")
    return Blank(id, label, value, None, claim, kind="fraction")


def _sum_spec(row: Sequence[int], values: Sequence[Sequence[int]] | None = None
              ) -> dict[str, Any]:
    inputs: dict[str, Any] = {"scaled": [[spec_number(fmpq(k)) for k in row]]}
    if values is not None:
        inputs["V"] = [[spec_number(fmpq(v)) for v in line] for line in values]
    return {"inputs": inputs, "options": {"normalisation": "sum"}}


def _working(row: Sequence[int], total: int) -> Math:
    """``\\Sigma = 1 + 6 + 4 = 11``: the whole working of a calculator-free softmax."""
    return Math(rf"\Sigma = {' + '.join(str(k) for k in row)} = {total},\quad "
                rf"a_j = e^{{z_j}}/{total}")


def softmax_table(rng: random.Random, setup: Setup) -> Exercise:
    """Scores ln k: the student fills in k, the sum and each weight as a fraction."""
    row = _whole_row(rng, 3 if setup.compact else 4)
    total = sum(row)
    spec = _sum_spec(row)
    derivation = derive_spec(spec)
    weights = [derivation["weights"].value.exact(0, j) for j in range(len(row))]
    e_blanks = [_fraction(f"e{j + 1}", f"e^{{z_{{{j + 1}}}}}", fmpq(k), None)
                for j, k in enumerate(row)]
    a_blanks = [_fraction(f"a{j + 1}", f"a_{{{j + 1}}}", weights[j], (0, f"weights[1,{j + 1}]"))
                for j in range(len(row))]
    sum_blank = _fraction("sum", r"\Sigma", fmpq(total), None)
    rows: list[tuple[object, ...]] = [(Num(j + 1), log_math(k), e_blanks[j], a_blanks[j])
                                      for j, k in enumerate(row)]
    rows.append((Msg.of("sheet.sum"), "", sum_blank, Num(1)))
    table = Table((Math("j"), Math("z_j"), Math("e^{z_j}"), Math(r"a_j = e^{z_j} / \Sigma")),
                  tuple(rows))
    text = Text(Msg.of("sheet_lesson.softmax_prompt"))
    return Exercise("softmax_table", (text, table), (spec,),
                    notes=(Note(Msg.of("sheet_lesson.free_working",
                                       working=_working(row, total))),),
                    facts={"working": _working(row, total), "whole": tuple(row)})


def output_row(rng: random.Random, setup: Setup) -> Exercise:
    """Scaled scores ln k of one query and V: weights and the output row as fractions."""
    row = _whole_row(rng, 3)
    for _ in range(200):
        values = [[rng.choice((-1, 0, 1, 2, 3)) for _ in range(2)] for _ in range(3)]
        if all(any(v != 0 for v in line) for line in values) and \
                all(any(line[k] != 0 for line in values) for k in range(2)):
            break
    query = rng.randrange(3) + 1
    spec = _sum_spec(row, values)
    derivation = derive_spec(spec)
    a_blanks = tuple(_fraction(f"a{j + 1}", f"a_{{{query},{j + 1}}}",
                               derivation["weights"].value.exact(0, j), (0, f"weights[1,{j + 1}]"))
                     for j in range(3))
    o_blanks = tuple(_fraction(f"o{k + 1}", f"o_{{{query},{k + 1}}}",
                               derivation["output"].value.exact(0, k), (0, f"output[1,{k + 1}]"))
                     for k in range(2))
    given = Given(((r"\tilde{s}", (tuple(log_math(k) for k in row),)),
                   ("V", tuple(tuple(Num(fmpq(v)) for v in line) for line in values))))
    text = Text(Msg.of("sheet_lesson.output_prompt", row=Num(query)))
    working = Math(_working(row, sum(row)).latex + r",\quad " + _output_working(
        query, row, [line[0] for line in values]))
    return Exercise("output_row", (text, given, Blanks(a_blanks), Blanks(o_blanks)), (spec,),
                    notes=(Note(Msg.of("sheet_lesson.free_working", working=working)),),
                    facts={"working": working, "whole": tuple(row), "values": values})


def _output_working(query: int, row: Sequence[int], column: Sequence[int]) -> str:
    r"""``o_{2,1} = (1 \cdot 2 + 6 \cdot 0 + 4 \cdot (-1))/11``: the first output."""
    terms = " + ".join(f"{k} \\cdot {v if v >= 0 else f'({v})'}" for k, v in zip(row, column))
    total = sum(k * v for k, v in zip(row, column))
    return f"o_{{{query},1}} = ({terms})/{sum(row)} = {_tfrac(fmpq(total, sum(row)))}"


def _tfrac(value: fmpq) -> str:
    if value.q == 1:
        return str(int(value.p))
    sign = "-" if value < 0 else ""
    return rf"{sign}\tfrac{{{abs(int(value.p))}}}{{{int(value.q)}}}"
