"""What ``symattn serve`` does with a submitted form: the spec read, derived, judged.

``recompute`` reads the spec text with the project's spec reader
(``problem.spec.loads``: TOML, never evaluated), within smaller limits than the
command line's; then builds the calculator, the derivation's text (as ``symattn
derive`` prints it) and the verdicts (as ``symattn check`` prints them).
``bounded`` runs it in a separate process that is stopped after a number of
seconds: a spec can ask for work no thread could be interrupted in.
"""

from __future__ import annotations

__all__ = ["recompute", "bounded", "TimedOut", "SERVE_TEMPERATURES", "SERVE_D_KS"]

import multiprocessing
from pathlib import Path
from typing import Any, Callable

from symattn.defaults import SERVE_ENTRIES
from symattn.errors import SymattnError
from symattn.render.web.serve_page import Result

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
    text = api.render_text(derivation, language=language)
    report = api.report_on_claims(derivation)
    verdicts = api.report_text(report, language) if report is not None else None
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
