"""symattn: exact Transformer attention, step by step.

Load a spec, derive every step exactly, and read each step as data:

>>> import symattn
>>> problem = symattn.load_example("000-cat-chases-mouse")
>>> derivation = symattn.derive(problem)
>>> derivation["scores"].value.text(1, 1)
'26/25'
>>> symattn.NumberFormat(places=2).format(derivation["weights"].value.exact(2, 0))
'0.40'
>>> report = symattn.check(derivation)
>>> report.counts["wrong"]
0
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from symattn._version import __version__

# Public names and the module each lives in. They are imported on first use,
# so `symattn --help` and `--version` start without loading the exact core.
_EXPORTS = {
    "derive": "symattn.api", "check": "symattn.api", "render_latex": "symattn.api",
    "render_markdown": "symattn.api", "render_text": "symattn.api", "report_json": "symattn.api",
    "report_text": "symattn.api", "report_markdown": "symattn.api",
    "Derivation": "symattn.derivation.steps", "Step": "symattn.derivation.steps",
    "Report": "symattn.verify.verdicts", "Verdict": "symattn.verify.verdicts",
    "load": "symattn.problem.spec", "loads": "symattn.problem.spec",
    "Problem": "symattn.problem.problem", "NumberFormat": "symattn.values.number_format",
    "Rounding": "symattn.values.rounding", "to_sympy": "symattn.values.closed_forms",
    "Error": "symattn.errors", "SymattnError": "symattn.errors",
    "InputError": "symattn.errors", "ShapeError": "symattn.errors",
    "ArgumentError": "symattn.errors", "StepNotFoundError": "symattn.errors",
    "PositionError": "symattn.errors", "FullyMaskedRowError": "symattn.errors",
    "UndecidedError": "symattn.errors", "OutOfRangeError": "symattn.errors",
    "TemplateError": "symattn.errors", "PdfError": "symattn.errors",
    "FigureError": "symattn.errors", "Location": "symattn.errors",
}

__all__ = ["__version__", "load_example", *_EXPORTS]


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'symattn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


def load_example(name: str) -> Any:
    """The Problem of a bundled example (see ``symattn examples``)."""
    from symattn.errors import argument
    from symattn.problem import examples
    from symattn.problem import spec

    if not isinstance(name, str):
        raise argument("load_example", "name", f"expected an example's name (text), got "
                       f"{type(name).__name__}")

    return spec.load(examples.path(name))
