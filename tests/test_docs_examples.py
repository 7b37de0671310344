"""Every Python example in the README and docs/ runs, and prints what its comments say;
every shell example that needs nothing of the reader's runs too (see ``_NOT_RUN``);
every TOML spec (a block with ``[inputs]``; every block of docs/spec-format.md) is read
and derived.

A line ``expression   # 'text'`` (or ``# 33554432``, ``# Fraction(1, 4)``)
states the expression's value: the test compares ``repr`` of the value with
the comment. Other comments are prose and only the code has to run.
"""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
FRACTION = re.compile(r"^Fraction\(-?\d+, \d+\)$")


def _blocks() -> list[tuple[str, str]]:
    found = []
    for document in DOCUMENTS:
        for number, block in enumerate(BLOCK.findall(document.read_text(encoding="utf-8")), 1):
            found.append((f"{document.relative_to(ROOT)}#{number}", block))
    return found


BLOCKS = _blocks()


def _stated(line: str) -> str | None:
    """The value a line's comment states, or None for prose."""
    code, _, comment = line.partition("  #")
    comment = comment.strip()
    if not code.strip() or not comment:
        return None
    if FRACTION.match(comment):
        return comment
    try:   # a Python literal: a string, a number, a tuple or list of them
        ast.literal_eval(comment)
    except (ValueError, SyntaxError):
        return None
    return comment


def test_the_readme_has_a_python_example() -> None:
    assert any(name.startswith("README.md") for name, _ in BLOCKS)


@pytest.mark.parametrize("name, block", BLOCKS, ids=[name for name, _ in BLOCKS])
def test_example_runs_and_shows_what_it_says(name: str, block: str) -> None:
    namespace: dict[str, object] = {"Fraction": Fraction}
    lines = block.splitlines()
    checked = 0
    for statement in ast.parse(block).body:
        source = "\n".join(lines[statement.lineno - 1:statement.end_lineno])
        stated = _stated(lines[statement.end_lineno - 1])
        if isinstance(statement, ast.Expr) and stated is not None:
            value = eval(compile(ast.Expression(statement.value), name, "eval"), namespace)
            assert repr(value) == stated, f"{name}: {source}"
            checked += 1
        else:
            exec(compile(ast.Module([statement], []), name, "exec"), namespace)
    assert checked or not any(_stated(line) for line in lines)


# ------------------------------------------------------------------ shell examples
SHELL_BLOCK = re.compile(r"^```(?:sh|bash|shell)\n(.*?)^```", re.S | re.M)
# Commands that need files of the reader (FILE, my.toml, book/*.toml), TeX (--pdf), or
# that are a command's synopsis ([--digits N]) are shown, not run.
# ... and the seed documents docs/extract.md walks through (beside the project, not in
# it: tests/test_extract_seeds.py reads them there) with the draft made from them
# ... and a class's answers that `grade` reads (class.csv, responses.csv, typed/)
_NOT_RUN = re.compile(r"--pdf|\bFILE\b|\bmy[-.\w]*\.toml|\bchapter|book/|specs/|mytemplates|"
                      r"\b\d{3}_[0-9a-f]{16}\.txt|\bdraft\.toml|\bclass\.csv|"
                      r"\bresponses\.csv|\btyped/|\[|\*|&&|\|")


def _shell_commands() -> list[tuple[str, str]]:
    found: dict[str, str] = {}           # each command once, named by its first document
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for block in SHELL_BLOCK.findall(text):
            for line in block.splitlines():
                command = line.split("  #")[0].strip()
                if command.startswith("symattn ") and not _NOT_RUN.search(command):
                    found.setdefault(command, f"{document.relative_to(ROOT)}: {command}")
    return [(name, command) for command, name in found.items()]


SHELL_COMMANDS = _shell_commands()


def test_the_docs_have_shell_examples_that_run() -> None:
    assert len(SHELL_COMMANDS) >= 20


@pytest.mark.parametrize("name, command", SHELL_COMMANDS, ids=[n for n, _ in SHELL_COMMANDS])
def test_shell_example_runs(name: str, command: str, tmp_path: Path, capsys,
                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Each `symattn ...` line of a ```sh block runs (in an empty folder, its output
    files written there) with status 0, or 1 for `check` of a document with wrong numbers.
    A class set of many variants is made with two (the options are the same; a sheet
    costs seconds)."""
    import shlex

    from symattn.cli.app import main

    argv = shlex.split(command)[1:]
    if ">" in argv:                      # `... > out.tex`: the output goes to stdout here
        argv = argv[:argv.index(">")]
    if "--variants" in argv:
        argv[argv.index("--variants") + 1] = "2"
    monkeypatch.chdir(tmp_path)
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "internal error" not in err, (name, err)
    assert status in ((0, 1) if argv[0] == "check" else (0,)), (name, status, err)
    assert out or list(tmp_path.iterdir()), name


# ------------------------------------------------------------------ TOML specs
TOML_BLOCK = re.compile(r"^```toml\n(.*?)^```", re.S | re.M)
# Elsewhere a block may be a fragment (a table or two); a whole spec has [inputs].
WHOLE_SPECS_ONLY = ("docs/spec-format.md",)


def _toml_specs() -> list[tuple[str, str]]:
    found = []
    for document in DOCUMENTS:
        name = document.relative_to(ROOT).as_posix()
        blocks = TOML_BLOCK.findall(document.read_text(encoding="utf-8"))
        for number, block in enumerate(blocks, 1):
            if name in WHOLE_SPECS_ONLY or re.search(r"^\[inputs\]", block, re.M):
                found.append((f"{name}#toml{number}", block))
    return found


TOML_SPECS = _toml_specs()


def test_the_spec_format_page_has_toml_specs() -> None:
    assert sum(name.startswith(WHOLE_SPECS_ONLY) for name, _ in TOML_SPECS) >= 5


@pytest.mark.parametrize("name, block", TOML_SPECS, ids=[n for n, _ in TOML_SPECS])
def test_toml_spec_is_read_and_derived(name: str, block: str) -> None:
    """Each whole TOML spec of the docs is accepted and derives (every block of
    docs/spec-format.md is one)."""
    import symattn
    from symattn.problem.spec import loads

    symattn.derive(loads(block, f"{name}.toml"))
