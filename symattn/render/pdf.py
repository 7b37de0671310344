"""Compile a LaTeX document to PDF with latexmk and pdflatex, lualatex or xelatex, safely.

The document is compiled in a fresh temporary folder, without shell escape,
in non-stop mode that halts on the first error, with TeX's file access
restricted to that folder (``openin_any=p``, ``openout_any=p``), and with a
timeout after which the whole process group is killed. latexmk is used when
installed (``-norc``: no configuration files are read), else the engine alone.
The engine is the one asked for, else the one the document names in its
``% !TEX program =`` line, else lualatex when the text has characters pdflatex
cannot set (``engines.choose``), else pdflatex.
"""

from __future__ import annotations

__all__ = ["PdfError", "compile_pdf", "compile_with_log", "compiler", "INSTALL_HINT",
           "ENGINE_HINTS", "stop_all", "resume",
           "reproducible_source"]

import hashlib
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

from symattn.errors import PdfError
from symattn.render import engines

INSTALL_HINT = ("install TeX Live (Debian/Ubuntu: apt-get install texlive-latex-base "
                "texlive-latex-recommended texlive-latex-extra latexmk, and "
                "texlive-lang-cyrillic for Cyrillic text; macOS: MacTeX; Windows: MiKTeX), "
                "or write the LaTeX with --format latex -o FILE.tex and compile it elsewhere")
ENGINE_HINTS = {
    "pdflatex": "",
    "lualatex": f"Debian/Ubuntu: apt-get install texlive-luatex {engines.FONT_PACKAGES}",
    "xelatex": f"Debian/Ubuntu: apt-get install texlive-xetex {engines.FONT_PACKAGES}",
}
TIMEOUT = 120.0
_FLAGS = ["-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error"]


_LATEXMK = {"pdflatex": "-pdf", "lualatex": "-pdflua", "xelatex": "-pdfxe"}


def compiler(engine: str = "pdflatex") -> list[str] | None:
    """The command to run on ``doc.tex``, or None when ``engine`` is missing."""
    program = shutil.which(engine)
    if program is None:
        return None
    latexmk = shutil.which("latexmk")
    if latexmk is not None:
        return [latexmk, "-norc", _LATEXMK[engine], f"-{engine}={program} %O %S", *_FLAGS,
                "doc.tex"]
    return [program, *_FLAGS, "doc.tex"]


def _missing(engine: str, asked: bool) -> PdfError:
    why = "" if asked or engine == "pdflatex" else \
        " (the text has characters pdflatex cannot set: Greek, CJK or emoji)"
    hint = ENGINE_HINTS[engine]
    return PdfError(f"cannot make a PDF: {engine} is not installed{why}; "
                    + (f"{hint}; or " if hint else "") + INSTALL_HINT)


def _first_error(log: str) -> str:
    """The first TeX error of a log, with its line: 'Undefined control sequence (line 12 ...)'."""
    errors = [(m.start(), m.group(2).strip(), m.group(1)) for m in
              re.finditer(r"^(?:\./)?doc\.tex:(\d+): (.*)$", log, re.MULTILINE)]
    for match in re.finditer(r"^! (.*)$", log, re.MULTILINE):
        line = re.search(r"^(?:l\.|(?:\./)?doc\.tex:)(\d+)", log[match.end():], re.MULTILINE)
        errors.append((match.start(), match.group(1).strip(), line.group(1) if line else ""))
    if not errors:
        if "Unable to read an entire line" in log:
            return "a line of the LaTeX is longer than TeX can read (its buf_size)"
        tail = " / ".join(line.strip() for line in log.strip().splitlines()[-3:] if line.strip())
        return f"TeX stopped without an error message; its log ends: {tail[-300:]}" if tail \
            else "TeX stopped without an error message and wrote no log"
    _, message, where = min(errors)
    return message + (f" (line {where} of the LaTeX)" if where else "")


# LaTeX's and its packages' requests for another pass (cross-references, outlines).
_RERUN = re.compile(r"Rerun to get|Label\(s\) may have changed|\(rerunfilecheck\).*Rerun|"
                    r"Table widths have changed")


def compile_pdf(tex: str, timeout: float = TIMEOUT, reproducible: bool = True,
                engine: str | None = None, direct: bool = True) -> bytes:
    """The PDF of a standalone LaTeX document (raises ``PdfError``).

    The same LaTeX gives the same bytes, whatever the engine: the PDF's dates
    are ``SOURCE_DATE_EPOCH`` (the environment's, else 0: 1 January 1970) and
    its ID is made from the LaTeX (``reproducible`` is kept for callers that
    pass it). ``engine``: pdflatex, lualatex or xelatex; None or ``auto``: the
    document's ``% !TEX program`` line, else the one its text needs.
    """
    return compile_with_log(tex, timeout, reproducible, engine, direct)[0]


def reproducible_source(tex: str, engine: str) -> str:
    """``tex`` with the line that fixes LuaTeX's PDF ID (pdfTeX and xdvipdfmx derive
    theirs from ``SOURCE_DATE_EPOCH``); the ID is a digest of the LaTeX.

    >>> reproducible_source("x", "pdflatex")
    'x'
    >>> "{[<9DD4E461268C8034F5C8564E155C67A6> <9DD4" in reproducible_source("x", "lualatex")
    True
    """
    if engine != "lualatex":
        return tex
    digest = hashlib.md5(tex.encode("utf-8"), usedforsecurity=False).hexdigest().upper()
    return f"\\pdfvariable trailerid {{[<{digest}> <{digest}>]}}\n{tex}"


_running: set[subprocess.Popen[bytes]] = set()
_stopping = threading.Event()
_lock = threading.Lock()


def stop_all() -> None:
    """Stop every TeX run in progress and refuse new ones (Ctrl-C, SIGTERM in a
    parallel ``worksheet --pdf``): no latexmk or pdflatex outlives symattn."""
    with _lock:
        _stopping.set()
        for process in _running:
            _kill(process)


def resume() -> None:
    """Allow TeX runs again after ``stop_all`` (once the stopped runs have ended)."""
    _stopping.clear()


def _kill(process: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _start(command: list[str], work: Path, env: dict[str, str]) -> subprocess.Popen[bytes]:
    with _lock:
        if _stopping.is_set():
            raise PdfError("stopped before the document was compiled")
        process = subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        _running.add(process)
    return process


def _environment() -> dict[str, str]:
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "0")
    return dict(os.environ, openin_any="p", openout_any="p", shell_escape="f",
                SOURCE_DATE_EPOCH=epoch if epoch.isascii() and epoch.isdigit() else "0",
                FORCE_SOURCE_DATE="1")


def compile_with_log(tex: str, timeout: float = TIMEOUT, reproducible: bool = True,
                     engine: str | None = None, direct: bool = True) -> tuple[bytes, str]:
    """``compile_pdf``, and TeX's log of the last run (overfull boxes, warnings).

    ``direct`` (the default): run the engine itself, again only while its log asks
    for another pass (most pages need one pass where latexmk makes two); without it,
    latexmk decides the passes. Under heavy load latexmk sometimes reported a failure
    after a complete run, with nothing in the log; the engine's own status does not.
    """
    asked = engine not in (None, engines.AUTO)
    chosen = engines.choose(engine, tex) if asked else \
        engines.magic_engine(tex) or engines.choose(engines.AUTO, tex)
    command = compiler(chosen)
    if command is None:
        raise _missing(chosen, asked)
    if direct and shutil.which(chosen):
        command = [str(shutil.which(chosen)), *_FLAGS, "doc.tex"]
    with tempfile.TemporaryDirectory(prefix="symattn-pdf-") as folder:
        work = Path(folder)
        (work / "doc.tex").write_text(reproducible_source(tex, chosen), encoding="utf-8")
        returncode, output = _run(command, work, timeout)
        for _ in range(3 if direct else 0):   # latexmk decides the passes itself
            log_file = work / "doc.log"
            if returncode != 0 or not log_file.is_file() or not _RERUN.search(
                    log_file.read_text(encoding="utf-8", errors="replace")):
                break
            returncode, output = _run(command, work, timeout)
        pdf = work / "doc.pdf"
        if returncode != 0 or not pdf.is_file():
            log_file = work / "doc.log"
            log = log_file.read_text(encoding="utf-8", errors="replace") \
                if log_file.is_file() else output.decode("utf-8", "replace")
            error = _first_error(log)
            hint = f"; a LaTeX package is missing: {INSTALL_HINT}" if "not found" in error else ""
            raise PdfError(f"{Path(command[0]).name} failed: {error}{hint}")
        log_file = work / "doc.log"
        log = log_file.read_text(encoding="utf-8", errors="replace") if log_file.is_file() else ""
        return pdf.read_bytes(), log


def _run(command: list[str], work: Path, timeout: float) -> tuple[int, bytes]:
    """One run of ``command`` in ``work``: its status and output (the whole process
    group killed on timeout, Ctrl-C or SIGTERM, since TeX runs in its own session)."""
    process = _start(command, work, _environment())
    try:
        output, _ = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(process)
        process.communicate()
        raise PdfError(f"{Path(command[0]).name} did not finish within {timeout:g} s; "
                       "the document was not compiled") from None
    except BaseException:     # Ctrl-C, SIGTERM: stop TeX too
        _kill(process)
        process.wait()
        raise
    finally:
        with _lock:
            _running.discard(process)
    return process.returncode, output
