"""The layout holds: stages import one way, nothing imports in a circle, modules stay small.

Every import counts, wherever it stands: at the top of a module, inside a
function, or as an ``importlib.import_module("...")`` string. The stage order
is the one of docs/design.md::

    base (errors, defaults, progress, messages) <- values <- problem <- derivation
      <- {verify, explore} <- extract <- sizes <- worksheets <- render <- api <- cli

``verify`` and ``explore`` never import each other; ``symattn/__init__.py``
and ``__main__`` alone may import anything.

Sizes: a module is split by meaning, not to meet a number. A module over
600 lines or a function over 80 is reported as a warning (shown in the test
summary), a sign that it may have grown into more than one thing; only 900
lines or a function of 120 fail, so that nothing grows without bound.
"""

from __future__ import annotations

import ast
import warnings
from functools import lru_cache
from pathlib import Path
from typing import Iterator

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "symattn"
BASE = ("errors", "defaults", "progress", "collector", "messages", "_version")
ORDER = [BASE, ("values",), ("problem",), ("derivation",), ("verify", "explore"), ("extract",),
         ("sizes",),
         ("worksheets",), ("render",), ("api",), ("cli",)]
RANK = {name: rank for rank, names in enumerate(ORDER) for name in names}
# (soft, hard): over soft a warning, over hard a failure
MODULE_LINES = (600, 900)
FUNCTION_LINES = (80, 120)
SOFT = "over the soft size limit"     # the start of each warning (the filter below matches it)


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _resolve(module: str, target: str | None, level: int, is_package: bool) -> str:
    if level == 0:
        return target or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[:len(base) - level + 1]
    return ".".join(base + ([target] if target else []))


def _imports(module: str, path: Path) -> set[str]:
    """Every symattn module that ``module`` imports, by any route."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            origin = _resolve(module, node.module, node.level, path.name == "__init__.py")
            if origin != "symattn":   # (the root runs first for every import of symattn)
                found.add(origin)     # ``from package import module`` runs its __init__ too
            found.update(f"{origin}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(
                node.func, "attr", getattr(node.func, "id", None)) == "import_module":
            argument = node.args[0] if node.args else None
            if module == "symattn":
                continue   # the public face looks its names up in _EXPORTS; it may import anything
            assert isinstance(argument, ast.Constant), f"{module}: import_module of a computed name"
            found.add(argument.value)
    return {name for name in found if name in MODULES and name != module}


@lru_cache(maxsize=None)
def _graph() -> dict[str, set[str]]:
    """Module -> the symattn modules it imports (parsed when a test first asks, not at
    collection, which every test worker does)."""
    return {module: _imports(module, path) for module, path in MODULES.items()}


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] != "__main__" else None


def test_stages_import_one_way() -> None:
    against = []
    for module, targets in _graph().items():
        stage = _stage(module)
        if stage is None:
            continue   # symattn/__init__.py and __main__: the public face
        for target in targets:
            other = _stage(target)
            if other is None:
                against.append(f"{module} -> {target} (the package root imports everything)")
            elif other != stage and (RANK[other] > RANK[stage] or
                                     RANK[other] == RANK[stage] and stage not in BASE):
                against.append(f"{module} -> {target}")
    assert not against, "imports against the stage order:\n" + "\n".join(sorted(against))


def test_every_module_has_a_stage() -> None:
    assert sorted({_stage(m) for m in MODULES} - set(RANK) - {None}) == []


def _cycles() -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in _graph()[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in _graph():
        if node not in index:
            visit(node)
    return cycles


def test_no_import_cycles() -> None:
    assert _cycles() == []


def test_the_stage_checks_see_imports_inside_functions() -> None:
    # pipeline.derive imports the later stages of the layer inside a function
    assert "symattn.derivation.layer" in _graph()["symattn.derivation.pipeline"]


def _sizes() -> Iterator[tuple[str, int, tuple[int, int]]]:
    """(what, lines, its limits) for every module and every function in it."""
    for module, path in MODULES.items():
        source = path.read_text(encoding="utf-8")
        yield module, source.count("\n"), MODULE_LINES
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                yield f"{module}.{node.name}", length, FUNCTION_LINES


# pyproject turns warnings into errors; these are meant to be seen, not to fail
@pytest.mark.filterwarnings(f"always:{SOFT}:UserWarning")
def test_modules_and_functions_stay_small() -> None:
    too_big = []
    for name, lines, (soft, hard) in _sizes():
        if lines > hard:
            too_big.append(f"{name}: {lines} lines (the limit is {hard})")
        elif lines > soft:
            warnings.warn(f"{SOFT} ({soft} lines): {name} has {lines}; is it still one "
                          "thing?", UserWarning, stacklevel=1)
    assert not too_big, "over the size limits:\n" + "\n".join(too_big)
