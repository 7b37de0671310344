"""Every Python example in the README and docs/ runs, and prints what its comments say.

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
