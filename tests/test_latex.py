"""The LaTeX derivation: every example renders and compiles, user text is inert,
exact forms and decimals are right, printed numbers carry their verdicts.

Each document is compiled once (in parallel) by the module fixtures.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from flint import fmpq

import symattn
from reference import is_attention_spec
from suite_profile import one_per_seed
from symattn.render.pdf import compile_pdf
from latex_support import compile_all, needs_pdflatex, needs_pdftotext, pdf_text
from symattn.problem import examples
from symattn.render import latex
from symattn.render import worked
from symattn.values.exact import NEG_INF, Surd
from symattn.values.number_format import NumberFormat
from symattn.api import render_latex

# Words too long for a line: one plain, one made of special characters.
LONG_WORD = "Pneumonoultramicroscopicsilicovolcanoconiosis" * 4
LONG_SPECIAL = "a_b%c#d&e^f~g\\h{i}j$\\\\" * 6
HOSTILE = {
    "title": "\\input{/etc/passwd} \\include{/etc/passwd} \\write18{touch PWNED} "
             "50% #1 & a_b ^ ~ $x$ }{",
    "description": "\\catcode`\\{=12 \\def\\x{y} \\\\ \\end{document} <b>|</b> \"q\" -- ,, "
                   + LONG_WORD + " " + LONG_SPECIAL,
    "tokens": ["\\input{/etc/hostname}", "}{", "%#&_^~\\\\"],
    "inputs": {"X": [[1, 0], [0, 1], [1, 1]], "W_Q": "identity", "W_K": "identity",
               "W_V": "identity"},
    "options": {"mask": "causal"},
    "claims": {"weights[3,1] @ \\write18{rm -rf x} %}{": "0.40",
               "weights[3] @ $\\immediate\\write18{id}$": ["0.4", "0.3", "0.3"]},
}

# size specs ([sizes] instead of [inputs]) have no derivation
ATTENTION = [name for name in examples.names()
             if is_attention_spec(examples.path(name))]
COMPILED = one_per_seed(ATTENTION)     # every one in the full profile


def _hostile(pwned: Path) -> symattn.Problem:
    mapping = dict(HOSTILE, title=HOSTILE["title"].replace("PWNED", str(pwned)))
    return symattn.Problem.from_mapping(mapping, source="/tmp/evil\\input{x}_%.toml")


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    pwned = tmp_path_factory.mktemp("hostile") / "pwned"
    docs: dict[str, object] = {}
    for name in COMPILED:
        try:
            docs[name] = render_latex(symattn.derive(symattn.load_example(name)))
        except symattn.SymattnError as error:     # reported by test_compiles[name]
            docs[name] = error
    docs["hostile"] = render_latex(symattn.derive(_hostile(pwned)))
    docs["cyrillic"] = render_latex(symattn.derive(symattn.Problem.from_mapping({
        "title": "кіт їсть рибу: ґанок, є, ї, Ёж 😀", "tokens": ["кіт", "їсть", "рибу"],
        "inputs": {"scaled": [[1, 2, 3], [0, 1, "-inf"], [1, 1, 1]]}})))
    docs["symbolic"] = render_latex(symattn.derive(symattn.Problem.from_mapping({
        "inputs": {"Q": [["sqrt(2)", 1]], "K": [[1, 0], ["a", 1]], "V": [[1], ["кіт"]]}})))
    docs["fragment"] = ("\\documentclass{article}"
                        "\\usepackage[T1]{fontenc}"       # the example's Polish description
                        "\\usepackage{amsmath,amssymb,xcolor,booktabs}"
                        "\\begin{document}\n" + render_latex(
                            symattn.derive(symattn.load_example("000-cat-chases-mouse"),
                                           language="en"),
                            fragment=True) + "\\end{document}\n")
    docs["pwned"] = str(pwned)
    return docs


@pytest.fixture(scope="module")
def pdfs(documents: dict[str, object]) -> dict[str, object]:
    tex = {k: v for k, v in documents.items() if isinstance(v, str) and k != "pwned"}
    return {**compile_all(tex), **{k: v for k, v in documents.items() if k not in tex}}


# ------------------------------------------------------------------ compiling
@needs_pdflatex
@pytest.mark.parametrize("name", COMPILED + ["cyrillic", "symbolic", "fragment"])
def test_compiles(pdfs: dict[str, object], name: str) -> None:
    result = pdfs[name]
    assert isinstance(result, bytes), f"{name}: {result}"
    assert result.startswith(b"%PDF")


@needs_pdftotext
def test_hostile_text_is_printed_literally(pdfs: dict[str, object],
                                           documents: dict[str, object]) -> None:
    pdf = pdfs["hostile"]
    assert isinstance(pdf, bytes), pdf
    text = pdf_text(pdf)
    flat = re.sub(r"\s+", " ", text)
    for literal in ("\\input{/etc/passwd}", "\\include{/etc/passwd}", "\\write18{touch",
                    "50% #1 & a_b ^ ~ $x$ }{",
                    "\\catcode`\\{=12 \\def\\x{y} \\\\ \\end{document}", "<b>|</b>",
                    "\\input{/etc/hostname}", "%#&_^~\\\\", "\\write18{rm -rf x} %}{",
                    "evil\\input{x}_%.toml", "-- ,,"):
        assert literal in flat, literal
    # Long words break across lines (pdftotext shows the break as white space),
    # but every character is on the page.
    compact = re.sub(r"\s+", "", text)
    for word in (LONG_WORD, LONG_SPECIAL):
        assert word in compact, word
    assert "root:" not in text                       # /etc/passwd was not read
    assert not Path(str(documents["pwned"])).exists()     # \write18 did not run


@needs_pdftotext
def test_unsupported_characters_are_set_by_lualatex(pdfs: dict[str, object]) -> None:
    """The emoji makes the automatic engine lualatex, which prints it (Symbola)."""
    pdf = pdfs["cyrillic"]
    assert isinstance(pdf, bytes), pdf
    assert "\U0001F600" in pdf_text(pdf)


@needs_pdftotext
def test_unsupported_characters_are_named_by_pdflatex(documents: dict[str, object]) -> None:
    tex = str(documents["cyrillic"])
    pdf = compile_pdf(tex, engine="pdflatex")
    assert "[U+1F600]" in pdf_text(pdf)


def test_hostile_source_has_no_live_commands(documents: dict[str, object]) -> None:
    tex = str(documents["hostile"])
    body = tex.split("\\begin{document}", 1)[1]
    for command in ("\\input{", "\\include{", "\\write18", "\\catcode", "\\immediate",
                    "\\def\\x", "\\end{document} <"):
        assert command not in body, command


# ------------------------------------------------------------------- escaping
@pytest.mark.parametrize("char", list("\\{}$&#^_~%<>|\"'`"))
def test_every_special_character_is_escaped(char: str) -> None:
    escaped = latex.escape_text(f"a{char}b")
    assert escaped != f"a{char}b"
    assert re.fullmatch(r"a(\\[A-Za-z]+\{\}|\\[{}$&#_%]|[^\\{}$&#^_~%<>|\"'`])b", escaped)


def test_escape_handles_cyrillic_controls_and_ligatures() -> None:
    assert latex.escape_text("кот и пёс") == "\\symattncyr{кот и пёс}"
    assert latex.escape_text("a\nb\x00c") == "a b c"
    assert latex.escape_text("--,,") == "-{}-,{},"
    assert latex.escape_text("kočka łódź é") == "kočka łódź é"
    assert latex.escape_text("😀") == "\\symattnsym{1F600}"
    assert latex.escape_text("γ猫") == "\\symattnchar{03B3}\\symattncjk{732B}"


def test_printed_numbers_only_pass_known_characters() -> None:
    assert latex.printed_math("~3.997") == "{\\approx}3.997"
    assert latex.printed_math("83,83%") == "83{,}83\\,\\%"
    assert latex.printed_math("33 554 432") == "33\\,554\\,432"
    assert latex.printed_math("−∞") == "-\\infty"
    for bad in ("\\input", "1}", "{1", "1$", "1e3e4", "1ex"):
        assert latex.printed_math(bad) is None


# ----------------------------------------------------------------- exact forms
def test_exact_forms() -> None:
    assert latex.exact_latex(Surd(fmpq(1, 2), 2)) == "\\frac{\\sqrt{2}}{2}"
    assert latex.exact_latex(Surd(fmpq(-2, 5), 3), inline=True) == "-2\\sqrt{3}/5"
    assert latex.exact_latex(Surd(fmpq(3), 2)) == "3\\sqrt{2}"
    assert latex.exact_latex(fmpq(1, 3)) == "\\frac{1}{3}"
    assert latex.exact_latex(fmpq(-7, 8), "pl") == "-0{,}875"
    assert latex.exact_latex(fmpq(1, 1024)) == "\\frac{1}{1024}"   # 10 places: a fraction
    assert latex.exact_latex(NEG_INF) == "-\\infty"
    assert latex.exp_latex(latex.exact_latex(Surd(fmpq(1, 2), 2), inline=True)) == \
        "e^{\\sqrt{2}/2}"


def test_exact_forms_of_the_weights_are_built_from_the_steps() -> None:
    derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"))
    document = worked.build(derivation)
    weights = {s.name: s for s in document.steps}["weights"]
    row2 = weights.expansions[1]
    assert row2.entries[0].weight.exact == \
        "\\frac{e^{\\sqrt{2}/10}}{e^{\\sqrt{2}/10} + e^{13\\sqrt{2}/25}}"
    assert row2.entries[0].weight.decimal == "0.355725"
    assert row2.entries[2].masked and row2.entries[2].exp.chain == "= 0"
    exp = {s.name: s for s in document.steps}["exp"]
    assert exp.operands["Z"].rows[0][1] == "e^{-\\infty}"     # substituted ...
    assert exp.result[0].matrix.rows[0][1] == "0"              # ... becomes exactly 0


def test_digits_places_and_decimal_comma() -> None:
    derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
    options = worked.Options(NumberFormat(digits=None, places=3, locale="cs"))
    tex = render_latex(derivation, options)
    assert "1 & {,}000 & 0 & {,}000" in tex and "22026{,}466" in tex and "$100{,}0\\,\\%$" in tex
    options = worked.Options(NumberFormat(digits=12))
    assert "0.999541338035" in render_latex(derivation, options)


def test_claims_are_marked_with_their_verdicts() -> None:
    tex = render_latex(symattn.derive(symattn.load_example("000-cat-chases-mouse"),
                                      language="en"))
    assert "\\symattnok{0.71}" in tex
    assert "\\symattncarried{0.35}{0.36}" in tex          # carried forward, exact beside
    assert "Printed numbers: summary" in tex
    polish = render_latex(symattn.derive(symattn.load_example("000-cat-chases-mouse")))
    assert "\\symattncarried{0{,}35}{0{,}36}" in polish    # the spec's language, decimal comma
    tex = render_latex(symattn.derive(symattn.load_example("001-softmax-10-2-1"),
                                      language="en"))
    assert "\\symattnwrong{0.9997}{0.9995}" in tex
    assert re.search(r"wrong & 1 \\\\", tex)


def test_no_claims_no_summary() -> None:
    tex = render_latex(symattn.derive(symattn.load_example("003-cross-attention-temperature")))
    assert "summary" not in tex and "\\symattnok{" not in tex


def test_detail_and_expanded_rows() -> None:
    derivation = symattn.derive(symattn.load_example("000-cat-chases-mouse"), language="en")
    full = render_latex(derivation)
    assert "Row 1 (cat), term by term" in full and "Row 3 (mouse)" in full
    chosen = render_latex(derivation, worked.Options(expand_rows=(2,)))
    assert "Row 2 (chases), term by term" in chosen and "Row 3 (mouse)" not in chosen
    summary = render_latex(derivation, worked.Options(detail="summary"))
    assert "term by term" not in summary and "\\begin{bmatrix}" in summary
    with pytest.raises(symattn.InputError, match="no query row 9"):
        render_latex(derivation, worked.Options(expand_rows=(9,)))


def test_default_expansion_is_the_last_row_of_long_examples() -> None:
    problem = symattn.Problem.from_mapping({"inputs": {"scaled": [[1, 2]] * 5, "V": [[1], [2]]}})
    document = worked.build(symattn.derive(problem))
    weights = {s.name: s for s in document.steps}["weights"]
    assert [row.query for row in weights.expansions] == ["5"]


def test_large_matrices_are_elided() -> None:
    n = 12
    problem = symattn.Problem.from_mapping({"inputs": {
        "scaled": [[(i * j) % 5 for j in range(n)] for i in range(n)]}})
    tex = render_latex(symattn.derive(problem), worked.Options(limit=4))
    assert "\\cdots" in tex and "\\vdots" in tex and "\\ddots" in tex


def test_every_matrix_has_as_many_cells_in_each_row() -> None:
    tex = render_latex(symattn.derive(symattn.load_example("001-kocka-spi-venku")),
                       worked.Options(limit=2))
    for body in re.findall(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}", tex):
        widths = {row.count("&") for row in body.split("\\\\")}
        assert len(widths) == 1, body


def test_no_blank_line_inside_display_math() -> None:
    for name in ATTENTION:
        tex = render_latex(symattn.derive(symattn.load_example(name)))
        for body in re.findall(r"\\begin\{align\*\}(.*?)\\end\{align\*\}", tex, re.S):
            assert "\n\n" not in body, name
