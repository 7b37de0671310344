"""docs/design.md shows the package tree as it is: every module once, under its folder."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "symattn"


def _tree() -> list[str]:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = text.split("## The layout", 1)[1]
    block = re.search(r"```\n(symattn/\n.*?)```", section, re.S)
    assert block is not None, "docs/design.md: the layout section has no symattn/ tree"
    return block.group(1).splitlines()[1:]


def documented() -> dict[str, set[str]]:
    """Folder (relative to symattn/, "" for the top) -> the module names listed for it."""
    listed: dict[str, set[str]] = {}
    folder: list[str] = []
    current = ""
    for line in _tree():
        indent = len(line) - len(line.lstrip())
        head = re.match(r"\s*([a-z_]+)/\s*(.*)", line)
        if head and indent in (2, 4):
            folder = folder[:indent // 2 - 1] + [head.group(1)]
            current = "/".join(folder)
            words = head.group(2)
        elif indent == 2:
            current, words = "", line
        else:
            words = line
        listed.setdefault(current, set()).update(words.split())
    return listed


def python_folders() -> dict[str, set[str]]:
    """Folder -> its modules, as the files are."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if "__pycache__" in path.parts:
            continue
        folder = path.parent.relative_to(PACKAGE).as_posix()
        folder = "" if folder == "." else folder
        name = path.name if not folder else path.stem
        if name != "__init__":
            found.setdefault(folder, set()).add(name)
    return found


def test_every_module_appears_in_the_design_tree() -> None:
    listed = documented()
    for folder, modules in sorted(python_folders().items()):
        shown = listed.get(folder, set())
        missing = sorted(modules - shown)
        assert not missing, f"docs/design.md: symattn/{folder} lists no {missing}"


def test_the_design_tree_lists_only_modules_that_exist() -> None:
    actual = python_folders()
    for folder, names in documented().items():
        if folder not in actual:     # a data folder (messages/, schemas/): a description
            modules = [p for p in (PACKAGE / folder).glob("*.py") if p.name != "__init__.py"]
            assert not modules, folder
            continue
        extra = sorted(names - actual[folder] - {"__init__.py"})
        assert not extra, f"docs/design.md: symattn/{folder} lists {extra}, which do not exist"


def test_every_folder_has_its_paragraph() -> None:
    text = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    for folder in python_folders():
        if folder and "/" not in folder:
            assert f"**{folder}/**" in text, f"docs/design.md: no paragraph on {folder}/"
