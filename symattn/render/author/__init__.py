"""Author mode: a document template filled with proved numbers (``symattn render``).

An author writes ``{{ weights[3,2] | places(3) }}`` (Markdown) or
``\\VAR{weights[3,2] | places(3)}`` (LaTeX, with the LaTeX-safe delimiters of
``templates/``) instead of typing a number; symattn prints the number, proved,
rounded by the spec's rule, so ``symattn check`` confirms it. Every step of the
derivation is a name (``weights``, ``scores``, ``output``, ...), indexed from 1 as
in specs; the pieces ``matrix``, ``steps``, ``softmax_table`` and
``verdict_free_derivation`` write whole blocks.

The template is untrusted: it runs in Jinja's immutable sandbox, with no loader
(no ``include``, ``import`` or ``extends``: it reads no file), no access to
attributes starting with ``_``, and only the names listed here.

>>> import symattn
>>> d = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
>>> fill("w = {{ weights[1,1] | places(3) }}", d, "markdown")
'w = 1,000'
>>> fill(r"$w = \\VAR{weights[1,2] | digits(2)}$", d, "latex")
'$w = 0{,}00034$'
"""

from __future__ import annotations

__all__ = ["KINDS", "kind_of", "fill", "names", "TemplateLimits"]

import traceback
import warnings
from typing import TYPE_CHECKING, Any

from symattn.derivation.steps import Derivation
from symattn.errors import InputError, SymattnError, TemplateError
from symattn.render.author.budget import TemplateLimits
from symattn.render.author.pieces import Number, Pieces
from symattn.values.number_format import NumberFormat

if TYPE_CHECKING:
    import jinja2

KINDS = ("latex", "markdown")
_SUFFIXES = {".tex": "latex", ".ltx": "latex", ".md": "markdown", ".markdown": "markdown",
             ".qmd": "markdown", ".rmd": "markdown"}
_TEMPLATE = "<template>"


def kind_of(name: str) -> str | None:
    """``latex`` or ``markdown`` from a template's name (``.tex.j2``, ``.md.j2``, ...).

    >>> kind_of("chapter.tex.j2"), kind_of("page.md.j2"), kind_of("notes.txt")
    ('latex', 'markdown', None)
    """
    lower = name.lower()
    for ending in (".j2", ".jinja", ".jinja2"):
        lower = lower.removesuffix(ending)
    return next((kind for suffix, kind in _SUFFIXES.items() if lower.endswith(suffix)), None)


def names() -> tuple[str, ...]:
    """The functions and filters a template may use besides the step names."""
    return ("matrix", "steps", "softmax_table", "verdict_free_derivation", "value",
            "places", "digits")


def _places(number: object, places: object) -> str:
    if not isinstance(number, Number):
        raise InputError(f"places applies to a number of the derivation, got {number!r}")
    return number.formatted(places=places)  # type: ignore[arg-type]  # checked there


def _digits(number: object, digits: object) -> str:
    if not isinstance(number, Number):
        raise InputError(f"digits applies to a number of the derivation, got {number!r}")
    return number.formatted(digits=digits)  # type: ignore[arg-type]  # checked there


def _finalize(value: Any) -> str:
    if isinstance(value, (str, Number)):
        return str(value)
    import jinja2

    if isinstance(value, jinja2.Undefined):
        return str(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    raise InputError(f"the document printed {type(value).__name__} {value!r}; print a number "
                     "of the derivation or a piece")


def _environment(kind: str, limits: TemplateLimits) -> jinja2.Environment:
    import jinja2

    from symattn.render.author.sandbox import BoundedEnvironment

    delimiters: dict[str, Any] = {} if kind == "markdown" else dict(
        block_start_string=r"\BLOCK{", block_end_string="}",
        variable_start_string=r"\VAR{", variable_end_string="}",
        comment_start_string=r"\#{", comment_end_string="}",
        line_statement_prefix=None, line_comment_prefix=None)
    env = BoundedEnvironment(limits, _finalize, loader=None, autoescape=False,
                             undefined=jinja2.StrictUndefined, keep_trailing_newline=True,
                             **delimiters)
    env.filters = {"places": _places, "digits": _digits}
    env.tests = {}
    env.globals = {}
    return env


def _context(derivation: Derivation, kind: str, language: str) -> dict[str, Any]:
    problem = derivation.problem
    number_format = NumberFormat(digits=problem.digits, rounding=problem.rounding,
                                 locale=language)
    pieces = Pieces(derivation, number_format, kind, language)

    def verdict_free_derivation() -> str:
        return _derivation(derivation, kind, number_format, language)

    context: dict[str, Any] = {step.name: pieces.values(step.name) for step in derivation}
    divisor = pieces.divisor()
    if divisor is not None:         # the number the scores are divided by, as reports name it
        context["divisor"] = divisor
    context.update(
        value=pieces.values,
        matrix=pieces.matrix,
        steps=lambda *steps, places=None, digits=None: pieces.steps(steps, places, digits),
        softmax_table=pieces.softmax_table,
        verdict_free_derivation=verdict_free_derivation)
    return context


def _derivation(derivation: Derivation, kind: str, number_format: NumberFormat,
                language: str) -> str:
    """The whole worked example, without verdicts (a LaTeX fragment, or Markdown)."""
    from symattn.render import worked
    from symattn.render.latex_document import render_latex
    from symattn.render.markdown_document import render_markdown

    # a page of the author's own: no file name, no paragraph on how symattn shows numbers
    options = worked.Options(number_format=number_format, language=language, source=False,
                             method=False)
    if kind == "latex":
        return render_latex(derivation, options, fragment=True, language=language)
    return render_markdown(derivation, options, language=language)


def fill(text: str, derivation: Derivation, kind: str, language: str | None = None,
         name: str = "the document", limits: TemplateLimits | None = None,
         first_line: int = 1) -> str:
    """The template ``text`` (``kind``: latex or markdown) with the numbers and pieces of
    ``derivation`` filled in, in ``language`` (default: the spec's, else English), within
    ``limits`` (default: ``TemplateLimits()``). ``text`` starts at line ``first_line``
    of the file ``name`` (after a page's front matter).

    Raises ``TemplateError`` naming ``name`` and the line for any fault of the template.
    """
    import jinja2

    if kind not in KINDS:
        raise InputError(f"unknown document kind {kind!r}: latex or markdown")
    language = language or derivation.problem.language or "en"
    env = _environment(kind, limits or TemplateLimits())
    shift = first_line - 1
    try:
        with warnings.catch_warnings():      # Python's warnings on the generated code
            warnings.simplefilter("ignore", SyntaxWarning)
            template = env.from_string(text)
        return str(template.render(_context(derivation, kind, language)))
    except jinja2.TemplateSyntaxError as error:
        line = (error.lineno or 1) + shift
        raise TemplateError(f"{name}, line {line}: {error.message}") from None
    except Exception as error:  # noqa: BLE001 - an untrusted template may fail in any way
        raise TemplateError(f"{name}{_line(error, shift)}: {_message(error)}") from None


def _message(error: Exception) -> str:
    """What went wrong in the template, in one line."""
    if isinstance(error, SymattnError):
        return error.message
    if isinstance(error, ZeroDivisionError):
        return "division by zero in the template"
    if isinstance(error, MemoryError):
        return "the template ran out of memory"
    if isinstance(error, RecursionError):
        return "the template's macros or loops call themselves too deeply"
    message = " ".join((str(error) or type(error).__name__).split())
    if message.startswith("no loader"):
        return "a document template reads no file: include, import and extends are " \
            "not available"
    return message


def _line(error: BaseException, shift: int = 0) -> str:
    """``, line N`` of the template where ``error`` arose, if the traceback shows it."""
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
             if frame.filename == _TEMPLATE and frame.lineno]
    return f", line {lines[-1] + shift}" if lines else ""
