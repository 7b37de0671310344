"""The steps as a floating-point format computes them, laid out (``derive --precision``).

The values come from ``derivation.precision`` (computed there); here each is
written as the shortest decimal that reads back as it in the format (what
NumPy prints: ``0.3774``, ``inf``, ``nan``), the naive and the max-shifted
softmax side by side, row by row. Words come from the ``[rounded]`` table of
the catalogs.

>>> from symattn.problem.problem import Problem
>>> from symattn.derivation.precision import compute
>>> problem = Problem.from_mapping({"inputs": {"scaled": [["12", "11.5", "3"]]},
...                                 "options": {"scale": "none"}})
>>> print(precision_text(compute(problem, "float16"), "en"))  # doctest: +NORMALIZE_WHITESPACE
Computed in float16, step by step, as NumPy and PyTorch compute it on the CPU
S̃ (float16)
  12.0  11.5  3.0
Z (float16)
  12.0  11.5  3.0
naive softmax                   | max-shifted softmax
E = exp(Z):  inf  inf  20.08    | E′ = exp(Z - m):  1.0  0.6064  0.0001234
Σ:  inf                         | Σ′:  1.606
A:  nan  nan  0.0               | A:  0.6226  0.3774  7.683e-05
"""

from __future__ import annotations

__all__ = ["precision_text", "precision_markdown", "precision_json"]

from typing import Any, Callable

from symattn import messages
from symattn.derivation.precision import Framework
from symattn.derivation.steps import STEP_INFO
from symattn.render import prose
from symattn.values.floats import FORMATS, shortest

# The steps shown one by one, before the two softmaxes.
_SINGLE = ("X", "X_kv", "W_Q", "W_K", "W_V", "Q", "K", "V", "scores", "scaled", "masked")
# The naive softmax's steps beside the max-shifted one's, with the symbols shown.
_PAIRS = (("exp", "E = \\exp(Z)", "exp_shifted", "E' = \\exp(Z - m)"),
          ("exp_sum", "\\Sigma", "exp_shifted_sum", "\\Sigma'"),
          ("weights_naive", "A", "weights", "A"),
          ("output_naive", "O", "output", "O"))


def _lines(framework: Framework, language: str, convert: Callable[[str], str]) -> list[str]:
    catalog = messages.load(language)
    fmt = FORMATS[framework.format]

    def row(values: tuple[float, ...]) -> str:
        return "  ".join(shortest(value, fmt) for value in values)

    lines = [convert(catalog.fill("rounded.heading", format=framework.format))]
    for name in _SINGLE:
        if name in framework:
            symbol = convert("$" + STEP_INFO[name].symbol.replace("'", "^{\\prime}") + "$")
            lines.append(f"{symbol} ({framework.format})")
            lines += ["  " + row(values) for values in framework[name].values]
    left_rows: list[str] = []
    right_rows: list[str] = []
    for naive, naive_symbol, shifted, shifted_symbol in _PAIRS:
        if naive not in framework:
            continue
        for left, right in zip(framework[naive].values, framework[shifted].values):
            left_rows.append(_plain_symbol(naive_symbol, convert) + ":  " + row(left))
            right_rows.append(_plain_symbol(shifted_symbol, convert) + ":  " + row(right))
    width = max([len(text) for text in left_rows] + [len(catalog.text("rounded.naive"))]) + 4
    lines.append(convert(catalog.text("rounded.naive")).ljust(width) + "| " +
                 convert(catalog.text("rounded.shifted")))
    lines += [left.ljust(width) + "| " + right for left, right in zip(left_rows, right_rows)]
    return lines


def _plain_symbol(symbol: str, convert: Callable[[str], str]) -> str:
    return convert("$" + symbol.replace("'", "^{\\prime}") + "$")


def precision_text(framework: Framework, language: str) -> str:
    """The section for the text output of ``derive``."""
    return "\n".join(_lines(framework, language, prose.plain))


def precision_markdown(framework: Framework, language: str) -> str:
    """The section for Markdown: its heading, then the listing as a code block."""
    lines = _lines(framework, language, prose.plain)
    return "\n".join([f"## {lines[0]}", "", "```text", *lines[1:], "```", ""])


def precision_json(framework: Framework) -> dict[str, Any]:
    """The steps as JSON data: each value as the shortest decimal, "inf" and "nan" too."""
    fmt = FORMATS[framework.format]
    return {"format": framework.format,
            "steps": {step.name: [[shortest(v, fmt) for v in row] for row in step.values]
                      for step in framework.steps}}
