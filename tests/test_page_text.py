"""What a reader reads on a derivation page, for every bundled example, in its own
language and in English:

- no sentence is printed twice in a row (a heading repeated as its own
  description counts);
- in a softmax table every row shows the same number of decimal places in a
  column, and so does every table of the same step (one per query row).
"""

from __future__ import annotations

import re
from functools import lru_cache

import mpmath
import pytest

import symattn
from cli_support import run
from symattn.problem import examples

ATTENTION = [name for name in examples.names() if examples.kind(name) != "sizes"]
PAGES = [(name, language) for name in ATTENTION
         for language in sorted({symattn.load_example(name).language or "en", "en"})]


@lru_cache(maxsize=None)
def page(name: str, language: str, layout: str) -> str:
    import io
    from contextlib import redirect_stdout

    from symattn.cli.app import main

    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["derive", "--example", name, "--language", language, "-f", layout]) == 0
    return out.getvalue()


# ------------------------------------------------------------------ sentences
_MATH_LINE = re.compile(r"^(\[|\||\$\$|\\\\|&|\\begin|\\end|[A-Za-z~]+ &)")


def sentences(text: str) -> list[str]:
    """The page's sentences in order: each line of prose (headings included, Markdown
    marks removed) cut after . ! ? or : followed by a space. Matrix rows, table rows
    and display math are not prose."""
    out = []
    for line in text.splitlines():
        line = line.strip().lstrip("#").strip().strip("*").strip()
        if not line or _MATH_LINE.match(line) or "=" * 3 in line:
            continue
        out += [part.strip() for part in re.split(r"(?<=[.!?:])\s+", line) if part.strip()]
    return out


def _said(sentence: str) -> str:
    """A sentence as it reads: case, spacing and the closing mark do not count."""
    return " ".join(sentence.rstrip(".:!?").split()).lower()


def repeats(found: list[str]) -> list[str]:
    """Each sentence that follows itself (one with a word of three letters or more)."""
    return [b for a, b in zip(found, found[1:])
            if _said(a) == _said(b) and re.search(r"[^\W\d_]{3}", b)]


def test_the_sentence_check_can_fail() -> None:
    assert repeats(sentences("### Step 3: Keys\n\nKeys.\n")) == ["Keys."]
    assert repeats(sentences("One row. One row.\n")) == ["One row."]
    assert repeats(sentences("Step 3: Keys\n  Keys, one row per token\n[ 1 ]\n[ 1 ]")) == []


@pytest.mark.parametrize("layout", ["text", "markdown"])
@pytest.mark.parametrize("name, language", PAGES)
def test_no_sentence_is_printed_twice_in_a_row(name: str, language: str, layout: str) -> None:
    found = sentences(page(name, language, layout))
    assert len(found) > 5
    assert not repeats(found), (name, language, layout, repeats(found))


# ------------------------------------------------------------------ softmax tables
_DECIMAL = re.compile(r"^\$(-?\d+)(?:[.]|\{,\})?(\d*)(?:\\,\\%)?\$$")


def softmax_tables(markdown: str) -> dict[str, list[list[list[str]]]]:
    """The softmax tables of a Markdown page by step heading: each a list of key rows
    (the sum row left out), each row its cells."""
    tables: dict[str, list[list[list[str]]]] = {}
    step = ""
    rows: list[list[str]] | None = None
    for line in markdown.splitlines():
        if line.startswith("### "):
            step = line[4:]
        if line.startswith("| $j$ |") and "$z_{" in line:
            rows = []
            tables.setdefault(step, []).append(rows)
            continue
        if rows is not None and line.startswith("|"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if cells[0].startswith("$") and not set(cells[0]) <= set("-:$"):
                rows.append(cells)
        elif rows is not None and not line.startswith("|"):
            rows = None
    return tables


def column_places(tables: list[list[list[str]]]) -> dict[int, set[int]]:
    """For each column of a step's tables (score, exponential, weight, percent): the
    decimal places its numbers show, masked keys (score -inf) and powers of ten left out."""
    places: dict[int, set[int]] = {}
    for rows in tables:
        for cells in rows:
            if cells[2] == "$-\\infty$":
                continue
            for k, cell in enumerate(cells[2:], start=2):
                found = _DECIMAL.match(cell)
                if found:
                    places.setdefault(k, set()).add(len(found.group(2)))
    return places


def test_the_places_check_can_fail() -> None:
    tables = softmax_tables("### Step 1: Weights\n\n| $j$ | key | $z_{1 j}$ | e | a | % |\n"
                            "|---:|---|---:|---:|---:|---:|\n"
                            "| $1$ | | $0.5$ | $1.64872$ | $0.3$ | $30\\,\\%$ |\n"
                            "| $2$ | | $-\\infty$ | $0$ | $0$ | $0\\,\\%$ |\n"
                            "| $3$ | | $1.25$ | $3.49034$ | $0.7$ | $70\\,\\%$ |\n")
    assert column_places(tables["Step 1: Weights"]) == {2: {1, 2}, 3: {5}, 4: {1}, 5: {0}}


@pytest.mark.parametrize("name, language", PAGES)
def test_every_row_of_a_softmax_table_shows_the_same_places(name: str, language: str) -> None:
    for step, tables in softmax_tables(page(name, language, "markdown")).items():
        for column, places in column_places(tables).items():
            assert len(places) == 1, (name, language, step, column, places)


def test_seed_000s_tables_show_the_same_places_in_every_row() -> None:
    """Seed 000 in Polish: z, e^z and the weights of its three tables, each column to one
    number of places, each number the exact value rounded (mpmath, 40 digits)."""
    mpmath.mp.dps = 40
    root = mpmath.sqrt(2)
    scores = [[root / 2], [root / 10, 13 * root / 25], [2 * root / 5, 2 * root / 25,
                                                          8 * root / 25]]
    tables = softmax_tables(page("000-cat-chases-mouse", "pl", "markdown"))
    rows = [row for table in tables["Krok 15: Wagi uwagi"] for row in table
            if row[2] != "$-\\infty$"]
    assert len(rows) == 6
    places = column_places(tables["Krok 15: Wagi uwagi"])
    assert all(len(found) == 1 for found in places.values()), places
    z_places, e_places = places[2].pop(), places[3].pop()
    flat = [(i, z) for i, row in enumerate(scores) for z in row]
    for (i, z), cells in zip(flat, rows):
        total = sum(mpmath.exp(x) for x in scores[i])
        assert cells[2] == "$" + _rounded(z, z_places) + "$"
        assert cells[3] == "$" + _rounded(mpmath.exp(z), e_places) + "$"
        assert cells[4] == "$" + _rounded(mpmath.exp(z) / total, 6) + "$"


def _rounded(value: mpmath.mpf, places: int) -> str:
    """``value`` rounded half up to ``places`` places, with a decimal comma."""
    scaled = int(mpmath.floor(value * 10 ** places + mpmath.mpf(1) / 2))
    digits = str(scaled).rjust(places + 1, "0")
    return f"{digits[:-places]}{{,}}{digits[-places:]}" if places else digits


def test_a_table_of_exact_scores_writes_them_to_the_same_places(capsys) -> None:  # type: ignore[no-untyped-def]
    """Exact scores 0.485 and 0.73 in one table: 0.730, still exact (no approximation
    sign), beside 0.485."""
    status, out, err = run(capsys, "derive", "--example", "001-kocka-spi-venku", "-f",
                           "markdown", "--language", "en")
    assert status == 0, err
    assert "| $3$ | venku | $0.730$ |" in out and "| $1$ | kočka | $0.485$ |" in out
