"""Author mode: ``symattn render`` fills templates with numbers ``check`` confirms.

The chapters below print numbers through every piece; the tests read the
numbers back out of the rendered text (by its layout, not through symattn),
write them as the claims of the spec, and ``symattn check`` must call every
one ok. The templates are hostile too: the sandbox refuses attributes, file
access and anything but the names author mode gives.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

from symattn.cli.app import main

SPEC = """title = "three tokens"
tokens = ["cat", "chases", "mouse"]
[inputs]
Q = [[1, 0], [0, 1], [1, 1]]
K = [[1, 0], [0, 1], [1, 1]]
V = [[1, 2], [3, 4], [5, 6]]
[options]
mask = "causal"
"""

MARKDOWN = """# Attention
weights[3,1]: {{ weights[3,1] | places(3) }}
scores[3,3]: {{ scores[3,3] | places(2) }}
output[3,2]: {{ output[3,2] | digits(5) }}
weights[2,2]: {{ weights[2,2] }}

{{ matrix("weights", places=2) }}

{{ softmax_table(3, places=4) }}

{{ steps("scores", "weights", places=3) }}
"""

LATEX = r"""\documentclass{article}
\usepackage[T1]{fontenc}
\usepackage{amsmath,amssymb,booktabs}
\usepackage[table]{xcolor}
\begin{document}
weights[3,1]: $\VAR{weights[3,1] | places(3)}$
scores[3,3]: $\VAR{scores[3,3] | places(2)}$
output[3,2]: $\VAR{output[3,2] | digits(5)}$
\[ A = \VAR{matrix("weights", places=2)} \]

\VAR{softmax_table(3, places=4)}

\VAR{steps("scores", "weights", places=3)}

\VAR{verdict_free_derivation()}
\end{document}
"""


def render(tmp_path: Path, name: str, template: str, capsys: pytest.CaptureFixture[str],
           *extra: str) -> str:
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    (tmp_path / name).write_text(template, encoding="utf-8")
    out = tmp_path / "out.txt"
    status = main(["render", str(tmp_path / name), "--spec", str(tmp_path / "spec.toml"),
                   "--language", "en", "-o", str(out), *extra])
    err = capsys.readouterr().err
    assert status == 0, err
    return out.read_text(encoding="utf-8")


def inline_claims(text: str) -> dict[str, str]:
    return {key: value for key, value in
            re.findall(r"^(\w+\[\d+,\d+\]): \$?([-0-9.]+)\$?$", text, re.MULTILINE)}


def matrix_claims(step: str, rows: list[list[str]], label: str) -> dict[str, str]:
    return {f"{step}[{i},{j}] @ {label}": cell for i, row in enumerate(rows, 1)
            for j, cell in enumerate(row, 1)}


def bmatrices(text: str) -> list[list[list[str]]]:
    found = []
    for body in re.findall(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", text, re.DOTALL):
        found.append([[c.strip() for c in row.split("&")] for row in body.split("\\\\")])
    return found


def softmax_claims(rows: list[list[str]], row: int) -> dict[str, str]:
    """Key, z, e^z, a per key; then the sum row (its e^z cell)."""
    claims = {}
    for j, cells in enumerate(rows[:-1], 1):
        z, e, a = (c.strip("$ ") for c in cells[1:4])
        claims.update({f"masked[{row},{j}]": z, f"exp[{row},{j}]": e,
                       f"weights[{row},{j}] @ softmax table": a})
    claims[f"exp_sum[{row},1]"] = rows[-1][2].strip("$ ")
    return claims


def check_all_ok(tmp_path: Path, claims: dict[str, str],
                 capsys: pytest.CaptureFixture[str]) -> None:
    lines = [f'"{key}" = "{value}"' for key, value in claims.items()]
    spec = tmp_path / "claimed.toml"
    spec.write_text(SPEC + "[claims]\n" + "\n".join(lines) + "\n", encoding="utf-8")
    status = main(["check", str(spec), "--format", "json"])
    out = capsys.readouterr().out
    verdicts = [(c["position"], c["label"], c["printed"], c["verdict"])
                for c in json.loads(out)["reports"][0]["claims"]]
    assert len(verdicts) == len(claims)
    assert {v[-1] for v in verdicts} == {"ok"}, verdicts
    assert status == 0


def test_markdown_chapter_prints_only_numbers_check_confirms(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = render(tmp_path, "chapter.md.j2", MARKDOWN, capsys)
    claims = inline_claims(text)
    assert len(claims) == 4
    assert claims["weights[3,1]"] == "0.248"      # e^(1/sqrt2)/(2e^(1/sqrt2)+e^sqrt2), by hand
    tables = [[[c.strip() for c in line.strip("|").split("|")] for line in block]
              for block in _markdown_tables(text)]
    weights_table, softmax_table = tables
    claims.update(matrix_claims("weights", [row[1:] for row in weights_table[2:]], "matrix"))
    claims.update(softmax_claims(softmax_table[2:], 3))
    scores, weights = bmatrices(text)
    claims.update(matrix_claims("scores", scores, "steps"))
    claims.update(matrix_claims("weights", weights, "steps"))
    assert claims["weights[2,3] @ steps"] == "0.000"           # masked: exactly 0
    assert claims["scores[3,3] @ steps"] == "2.000"            # (1,1).(1,1)
    assert len(claims) == 4 + 9 + 10 + 9 + 9
    check_all_ok(tmp_path, claims, capsys)


def _markdown_tables(text: str) -> list[list[str]]:
    blocks, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    return blocks


def test_latex_chapter_prints_only_numbers_check_confirms_and_compiles(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = render(tmp_path, "chapter.tex.j2", LATEX, capsys)
    claims = inline_claims(text)
    assert len(claims) == 3
    matrices = bmatrices(text)
    claims.update(matrix_claims("weights", matrices[0], "matrix"))
    claims.update(matrix_claims("scores", matrices[1], "steps"))
    claims.update(matrix_claims("weights", matrices[2], "steps"))
    tabular = re.search(r"\\begin\{tabular\}.*?\\hline\n.*?\\hline\n(.*?)\\hline", text,
                        re.DOTALL)
    assert tabular is not None
    rows = [[c.strip() for c in line.removesuffix("\\\\").split("&")]
            for line in tabular.group(1).strip().splitlines()]
    claims.update(softmax_claims(rows, 3))
    check_all_ok(tmp_path, claims, capsys)
    from symattn.render import pdf

    if pdf.compiler("pdflatex") is None:
        pytest.skip("no TeX installed")
    assert pdf.compile_pdf(text, engine="pdflatex").startswith(b"%PDF")


@pytest.mark.parametrize("template, words", [
    ("{{ weights.__class__ }}", "attribute"),
    ("{{ weights._step }}", "_step"),
    ("{{ ''.__class__.__mro__ }}", "unsafe"),
    ("{% include '/etc/passwd' %}", "reads no file"),
    ("{% import 'x' as y %}", "reads no file"),
    ("{% extends 'base.html' %}", "reads no file"),
    ("{{ lipsum() }}", "undefined"),
    ("{{ range(3) }}", "undefined"),
    ("{{ weights[4,1] }}", "outside the 3 x 3 weights"),
    ("{{ weights[0,1] }}", "1-based"),
    ("{{ nosuch[1,1] }}", "undefined"),
    ("{{ matrix('nosuch') }}", "no step named"),
    ("{{ weights[1,1] | places(-1000) }}", "places must be"),
    ("line 1\n{{ weights }}", "line 2"),
    ("{{ weights[1,1]", "line 1"),
])
def test_the_template_cannot_reach_beyond_its_numbers(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], template: str, words: str) -> None:
    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "bad.md.j2").write_text(template, encoding="utf-8")
    status = main(["render", str(tmp_path / "bad.md.j2"), "--spec", str(tmp_path / "spec.toml")])
    captured = capsys.readouterr()
    assert status == 2, captured
    assert captured.out == ""
    err = captured.err
    assert err.startswith("symattn: error: ") and err.count("\n") == 1, err
    assert "bad.md.j2" in err and words in err, err
    assert "root:" not in err


def test_render_needs_a_spec_and_a_kind(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "doc.txt").write_text("x", encoding="utf-8")
    assert main(["render", str(tmp_path / "doc.txt"), "--example", "001-softmax-10-2-1"]) == 2
    assert "--kind" in capsys.readouterr().err
    assert main(["render", str(tmp_path / "doc.txt")]) == 2
    assert "--spec FILE or --example" in capsys.readouterr().err
    assert main(["render", str(tmp_path / "doc.txt"), "--kind", "markdown", "-e",
                 "001-softmax-10-2-1"]) == 0
    assert capsys.readouterr().out == "x"


def test_mkdocs_plugin_fills_pages_that_name_a_spec(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mkdocs")
    from importlib.metadata import EntryPoint

    import mkdocs.plugins
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "spec.toml").write_text(SPEC, encoding="utf-8")
    (docs / "index.md").write_text("---\nsymattn: spec.toml\nsymattn_language: en\n---\n"
                                   "# Weights\n\nweight {{ weights[3,1] | places(3) }}\n\n"
                                   "{{ matrix('weights', places=2) }}\n", encoding="utf-8")
    (docs / "plain.md").write_text("# Plain\n\n{{ left alone }}\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - symattn\n",
                                         encoding="utf-8")
    entry = EntryPoint("symattn", "symattn.render.author.mkdocs_plugin:SymattnPlugin",
                       "mkdocs.plugins")
    monkeypatch.setattr(mkdocs.plugins, "get_plugins", lambda: {"symattn": entry})
    config = load_config(str(tmp_path / "mkdocs.yml"))
    build(config)
    page = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "weight 0.248" in page
    assert "<table" in page and ">0.25</td>" in page      # weights[3,1] at 2 places
    assert "{{ left alone }}" in (tmp_path / "site" / "plain" / "index.html").read_text(
        encoding="utf-8")
    assert not (tmp_path / "site" / "spec.toml").exists()     # a working file, not a page
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nplugins:\n  - symattn:\n"
                                         "      publish_specs: true\n", encoding="utf-8")
    build(load_config(str(tmp_path / "mkdocs.yml")))
    assert (tmp_path / "site" / "spec.toml").exists()


def test_mkdocs_plugin_stops_the_build_on_a_bad_page(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mkdocs")
    from mkdocs.exceptions import PluginError

    from symattn.render.author.mkdocs_plugin import SymattnPlugin

    (tmp_path / "spec.toml").write_text(SPEC, encoding="utf-8")

    class File:
        src_uri = "page.md"
        abs_src_path = str(tmp_path / "page.md")

    class Page:
        meta = {"symattn": "spec.toml"}
        file = File()

    plugin = SymattnPlugin()
    assert plugin.on_page_markdown("{{ weights[1,1] }}", page=Page(), config=None,
                                   files=None) == "1.00000"
    with pytest.raises(PluginError, match="page.md, line 1: .*outside"):
        plugin.on_page_markdown("{{ weights[9,9] }}", page=Page(), config=None, files=None)


if sys.platform == "win32":  # pragma: no cover
    pytest.skip("POSIX paths", allow_module_level=True)


def test_latex_labels_leave_characters_to_the_preamble(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = SPEC.replace('["cat", "chases", "mouse"]', '["кот", "γ", "x_y&"]')
    (tmp_path / "spec.toml").write_text(spec, encoding="utf-8")
    (tmp_path / "t.tex.j2").write_text(r"\VAR{softmax_table(2)}", encoding="utf-8")
    assert main(["render", str(tmp_path / "t.tex.j2"), "--spec", str(tmp_path / "spec.toml"),
                 "--language", "ru"]) == 0
    out = capsys.readouterr().out
    assert "\\symattn" not in out
    assert "\nкот & " in out and "\nγ & " in out and "\nx\\_y\\& & " in out
    assert "ключ" in out and "сумма" in out            # the Russian catalog's words


def test_a_template_takes_every_entry_name_a_report_prints() -> None:
    """With query positions, the report's names are the template's names (one name per
    entry); the values are worked out by hand below."""
    import math

    import symattn
    from symattn.render.author import fill

    spec = ('[inputs]\nQ = [[1, 0], [0, 1]]\nK = [[1, 0], [0, 1], [1, 1]]\n'
            'V = [[1, 0], [0, 1], [2, 2]]\n[options]\nquery_positions = [1, 3]\nd_k = 1\n'
            '[claims]\n"weights[3,2]" = "0.4"\n"weights[1,3]" = "0.4"\n')
    derivation = symattn.derive(symattn.loads(spec, "q.toml"))
    report = symattn.check(derivation)
    names = [verdict.position for verdict in report.verdicts]
    assert names == ["weights[3,2]", "weights[1,3]"]
    filled = fill(" ".join("{{ %s | places(4) }}" % name for name in names), derivation,
                  "markdown")
    # token 3's query [0, 1] scores the keys 0, 1, 1; token 1's query [1, 0] scores 1, 0, 1
    e = math.e
    assert filled.split() == [f"{e / (1 + 2 * e):.4f}", f"{e / (1 + 2 * e):.4f}"]
    with pytest.raises(symattn.Error, match=r"line 1: row 2 is not one of the query positions"):
        fill("{{ weights[2,2] }}", derivation, "markdown")


def test_a_one_row_step_takes_its_column_alone() -> None:
    import symattn
    from symattn.render.author import fill

    spec = '[inputs]\nscaled = [[0, 0, 0, 0, 0]]\n[options]\nscale = "none"\n'
    derivation = symattn.derive(symattn.loads(spec, "r.toml"))
    assert fill("{{ weights[2] | places(2) }}", derivation, "markdown") == "0.20"


def test_a_template_takes_every_key_the_001_report_prints(capsys) -> None:  # type: ignore[no-untyped-def]
    """Every claim key the seed-001 report prints (``check --keys``) is a name a template
    takes, and gives the number the report judged against (its exact value rounded)."""
    import re

    import symattn
    from symattn.cli.app import main
    from symattn.render.author import fill

    assert main(["check", "--example", "001-kocka-spi-venku", "-l", "en", "--keys",
                 "--width", "0"]) == 1
    lines = capsys.readouterr().out.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("line ")) + 1
    # the columns: line, number (in words), key, printed, exact, verdict, reason
    names = sorted({re.split(r"\s{2,}", line)[2].split(" @ ")[0]
                    for line in lines[start:] if line.strip()})
    assert len(names) > 40 and "weights[3,3]" in names and "exp[3,2]" in names
    assert {"divisor", "weights[3].sum", "scores[3,1].terms[1]"} <= set(names)
    derivation = symattn.derive(symattn.load_example("001-kocka-spi-venku"))
    filled = fill(" ".join("{{ %s }}" % name for name in names), derivation, "markdown")
    assert len(filled.split()) == len(names)
    # and the numbers the report judged against (a Czech page: decimal commas):
    # q3 . k1 term 1 = 0.9 * 0.9, the divisor sqrt(d_k) = sqrt(4), a row of weights sums to 1
    assert fill("{{ scores[3,1].terms[1] | places(2) }} {{ divisor | places(0) }} "
                "{{ weights[3].sum | places(0) }}", derivation, "markdown").split() == \
        ["0,81", "2", "1"]
