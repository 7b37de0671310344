"""What ``symattn serve`` does with a submitted form: the spec read, derived, judged.

``recompute`` reads the spec text with the project's spec reader
(``problem.spec.loads``: TOML, never evaluated), within smaller limits than the
command line's; then builds the calculator, the derivation and the verdicts as
``--format html`` shows them. ``recompute_form`` first puts the form's fields
into the spec (``cli.serve_form``).
``bounded`` runs it in a separate process that is stopped after a number of
seconds: a spec can ask for work no thread could be interrupted in.
"""

from __future__ import annotations

__all__ = ["recompute", "recompute_form", "bounded", "TimedOut", "SERVE_TEMPERATURES",
           "SERVE_D_KS"]

import dataclasses
import multiprocessing
from pathlib import Path
from typing import Any, Callable

from symattn.defaults import SERVE_ENTRIES
from symattn.errors import InputError, SymattnError
from symattn.render.web.serve_page import FormFields, Result

# The served calculator's temperatures: fewer than the file's, so an answer is quick.
SERVE_TEMPERATURES = "0.1,0.2,0.3,0.5,0.7,1,1.5,2,3"
SERVE_D_KS = (1, 4, 16, 64)


class TimedOut(Exception):
    """The computation took longer than it may."""


def recompute(spec_text: str, language: str, max_entries: int = SERVE_ENTRIES,
              folder: str | None = None) -> Result:
    """The spec's calculator, derivation and verdicts; a spec that cannot be used gives
    its one-line message instead (nothing else is caught: a bug stays a bug)."""
    try:
        return _recompute(spec_text, language, max_entries, folder)
    except SymattnError as error:
        return Result(error=str(error))


def recompute_form(form: FormFields, spec_text: str, language: str,
                   max_entries: int = SERVE_ENTRIES, folder: str | None = None) -> Result:
    """``recompute`` of the spec ``spec_text`` with the form's fields put in; a bad field
    gives a message naming it, and the spec text is left as it was submitted."""
    from symattn import messages
    from symattn.cli.serve_form import MATRIX_FIELDS, OPTION_FIELDS, spec_from_form
    from symattn.render.prose import plain

    try:
        written = spec_from_form(form, spec_text)
    except InputError as error:
        key = error.location.key if error.location is not None else None
        fields = (*MATRIX_FIELDS, *OPTION_FIELDS, "tokens")
        if key not in fields:       # the spec text itself is not TOML
            return Result(error=str(error), field="spec")
        said = plain(messages.load(language).fill("web.form_bad_field", field=key,
                                                  message=str(error)))
        return Result(error=said, field=key)
    except SymattnError as error:
        return Result(error=str(error), field="spec")
    result = recompute(written, language, max_entries, folder)
    return dataclasses.replace(result, spec_text=written)


def _sections(derivation: Any, report: Any, language: str) -> tuple[str, str | None]:
    """The derivation and the verdicts as the serve page shows them, one heading level
    under its own (the page's sections are ``<h2>``)."""
    from symattn.render.web.derivation_html import derivation_body
    from symattn.render.web.report_html import report_section
    from symattn.values.number_format import NumberFormat

    problem = derivation.problem
    number_format = NumberFormat(digits=problem.digits, rounding=problem.rounding,
                                 locale=language)
    body = derivation_body(derivation, number_format, language)
    body = body.replace("<h2>", "<h3>").replace("</h2>", "</h3>").replace(
        "<h1>", "<h3>").replace("</h1>", "</h3>")
    verdicts = report_section(report, language, level=3) if report is not None else None
    return body, verdicts


def _recompute(spec_text: str, language: str, max_entries: int, folder: str | None) -> Result:
    from symattn import api
    from symattn.cli.calculator import SWEEP_DIGITS
    from symattn.derivation.pipeline import derive
    from symattn.explore import calculator
    from symattn.problem import spec
    from symattn.problem.limits import Limits
    from symattn.render.web.calculator_page import render_calculator
    from symattn.values.number_format import NumberFormat

    limits = Limits.scaled(max_entries)
    problem = spec.loads(spec_text, "spec", kind="toml", limits=limits)
    states = calculator.calculator(problem, calculator.parse_temperatures(SERVE_TEMPERATURES),
                                   SERVE_D_KS, limits)
    fmt = NumberFormat(digits=SWEEP_DIGITS, locale=language)
    section = render_calculator(problem, states, fmt, language, fragment=True)
    derivation = derive(problem)
    report = api.report_on_claims(derivation)
    text, verdicts = _sections(derivation, report, language)
    written = _write(folder, spec_text, render_calculator(problem, states, fmt, language)) \
        if folder else ""
    return Result(section, text, verdicts, written=written)


def _write(folder: str, spec_text: str, page: str) -> str:
    """The last spec and its calculator page, in ``folder`` and nowhere else."""
    from symattn.render.files import write_atomically

    target = Path(folder)
    write_atomically(target / "spec.toml", spec_text)
    write_atomically(target / "calculator.html", page)
    return str(target)


def _child(connection: Any, function: Callable[..., Result], arguments: tuple[Any, ...]) -> None:
    connection.send(function(*arguments))
    connection.close()


def bounded(function: Callable[..., Result], arguments: tuple[Any, ...], seconds: float
            ) -> Result:
    """``function(*arguments)`` in a process of its own, stopped after ``seconds``
    (``TimedOut``). The process is forked from a clean server process (``forkserver``),
    not from the threads of the web server."""
    context = multiprocessing.get_context("forkserver")
    receiving, sending = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(sending, function, arguments), daemon=True)
    process.start()
    sending.close()
    try:
        if not receiving.poll(seconds):
            raise TimedOut()
        result: Result = receiving.recv()
        return result
    except EOFError:
        raise RuntimeError("the computation stopped without an answer") from None
    finally:
        receiving.close()
        if process.is_alive():
            process.kill()
        process.join()
