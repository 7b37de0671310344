"""docs/spec-format.md documents every key a spec may hold, and no other.

The page lists each key by its full path in the first column of a table whose
header's first cell is ``key``: ``| `options.mask` | ... |`` (several paths
may share a row, separated by commas; ``<claim>`` and the like stand for keys
of the writer's choosing). The keys the reader accepts are
``symattn.problem.keys.spec_keys()``, built from the tuples the reader checks
each table's keys against.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import pytest

from symattn.errors import InputError
from symattn.problem.keys import CLAIM, INPUT, LABEL, OPTION, SPEC_TABLES, SYMBOL, spec_keys
from symattn.problem.problem import Problem
from symattn.problem.read import INSIDE_INPUTS

DOC = Path(__file__).resolve().parent.parent / "docs" / "spec-format.md"
_CELL = re.compile(r"(?<!\\)\|")            # a cell border (an escaped \| is text)
_PATHS = re.compile(r"^`[^`]+`(?:, `[^`]+`)*$")


def documented_keys(text: str) -> list[str]:
    """The key paths in the first column of every table headed ``key``, in page order."""
    keys: list[str] = []
    header: list[str] | None = None         # the cells of the current table's header
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("|"):
            header = None
            continue
        cells = [cell.strip() for cell in _CELL.split(line.strip())[1:-1]]
        if header is None:
            header = cells
        elif header[0] == "key" and not set(cells[0]) <= set("-:"):
            assert _PATHS.match(cells[0]), (
                f"docs/spec-format.md line {number}: the first cell of a key table holds "
                f"only key paths in backticks, comma-separated; got {cells[0]!r}")
            keys.extend(re.findall(r"`([^`]+)`", cells[0]))
    return keys


def differences(documented: list[str], accepted: tuple[str, ...]) -> list[str]:
    """What is wrong between the page's keys and the reader's, one sentence each."""
    problems = []
    missing = [key for key in accepted if key not in documented]
    if missing:
        problems.append("accepted by the reader but not documented in docs/spec-format.md: "
                        + ", ".join(missing))
    unknown = [key for key in documented if key not in accepted]
    if unknown:
        problems.append("documented in docs/spec-format.md but not accepted by the reader "
                        "(symattn.problem.keys.spec_keys): " + ", ".join(unknown))
    twice = sorted({key for key in documented if documented.count(key) > 1})
    if twice:
        problems.append("documented in more than one row: " + ", ".join(twice))
    return problems


def test_the_page_documents_every_key_the_reader_accepts_and_no_other() -> None:
    documented = documented_keys(DOC.read_text(encoding="utf-8"))
    problems = differences(documented, spec_keys())
    assert not problems, "\n".join(problems)


def test_a_key_left_out_made_up_or_given_twice_is_named() -> None:
    """The comparison fails, naming the key, on a page that lacks one, invents one or
    documents one twice (a page of one row per key, whatever docs/spec-format.md says)."""
    rows = [f"| `{key}` | - |" for key in spec_keys()]
    page = "\n".join(["Keys:", "", "| key | meaning |", "|---|---|", *rows, ""])
    assert differences(documented_keys(page), spec_keys()) == []
    row = "| `options.mask` | - |"
    assert differences(documented_keys(page.replace(row + "\n", "")), spec_keys()) == [
        "accepted by the reader but not documented in docs/spec-format.md: options.mask"]
    invented = page.replace(row, row + "\n| `options.colour` | made up |")
    assert differences(documented_keys(invented), spec_keys()) == [
        "documented in docs/spec-format.md but not accepted by the reader "
        "(symattn.problem.keys.spec_keys): options.colour"]
    assert differences(documented_keys(page.replace(row, row + "\n" + row)), spec_keys()) == [
        "documented in more than one row: options.mask"]
    shared = page.replace(row + "\n", "").replace("| `options.d_k` |",
                                                  "| `options.d_k`, `options.mask` |")
    assert differences(documented_keys(shared), spec_keys()) == []


def test_every_table_is_under_a_key_and_every_path_is_listed_once() -> None:
    keys = spec_keys()
    assert len(set(keys)) == len(keys)
    assert {path for path, _ in SPEC_TABLES} - {""} <= set(keys)
    assert len({path for path, _ in SPEC_TABLES}) == len(SPEC_TABLES)


_UNKNOWN = "qqqqqqqqqq"                      # close to no key, so the error lists them all
_WILDCARDS = {(CLAIM,), (INPUT,), (SYMBOL,), (LABEL,)}


def _with_unknown_key(path: str) -> dict[str, Any]:
    """A spec that is fine but for an unknown key in the table at ``path``."""
    data: dict[str, Any] = {"inputs": {"scores": [[1]]}, "options": {"d_k": 1}}
    if path.startswith("variants"):
        data["variants"] = {"name": "v"}
    table = data
    for part in filter(None, path.split(".")):
        table = table.setdefault(part, {})
    table[_UNKNOWN] = 1
    return copy.deepcopy(data)


@pytest.mark.parametrize("path, keys", [(path, keys) for path, keys in SPEC_TABLES
                                        if keys not in _WILDCARDS],
                         ids=[path or "top" for path, keys in SPEC_TABLES
                              if keys not in _WILDCARDS])
def test_each_table_holds_the_keys_the_reader_lists_there(path: str,
                                                          keys: tuple[str, ...]) -> None:
    """An unknown key in the table at ``path`` is refused, and the reader's list of the
    keys it knows there is the table's keys of ``spec_keys``."""
    expected = dict(SPEC_TABLES)["options"] if keys == (OPTION,) else keys
    if path == "inputs":          # read beside [inputs]' matrices, not checked with them
        expected = tuple(key for key in expected if key not in INSIDE_INPUTS)
    with pytest.raises(InputError, match="unknown key") as error:
        Problem.from_mapping(_with_unknown_key(path))
    listed = re.search(r"known(?: keys)?: (.*)$", str(error.value))
    assert listed is not None, str(error.value)
    assert listed[1].split(", ") == list(expected)


def test_a_key_inside_inputs_is_read() -> None:
    for key in INSIDE_INPUTS:
        problem = Problem.from_mapping({"inputs": {"scores": [[1]], key: "rounded"},
                                        "options": {"d_k": 1}})
        assert problem.rounded_inputs == ("scores",)
