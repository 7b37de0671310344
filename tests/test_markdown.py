"""The Markdown derivation (notebooks, MkDocs) and the Jupyter display hooks."""

from __future__ import annotations

import re

import pytest

import symattn
from reference import is_attention_spec
from render_checks import math_is_balanced
from symattn.problem import examples
from symattn.render import worked
from symattn.api import render_markdown
from symattn.render.markdown_document import escape_markdown

# size specs ([sizes] instead of [inputs]) have no derivation
ATTENTION = [name for name in examples.names()
             if is_attention_spec(examples.path(name))]


@pytest.mark.parametrize("name", ATTENTION)
def test_every_example_renders(name: str) -> None:
    text = render_markdown(symattn.derive(symattn.load_example(name)))
    assert text.startswith("## ")
    assert math_is_balanced(text), name
    assert "\\BLOCK" not in text and "\\VAR" not in text


def test_display_math_has_no_blank_lines() -> None:
    text = render_markdown(symattn.derive(symattn.load_example("000-cat-chases-mouse")))
    for block in re.findall(r"\$\$\n(.*?)\n\$\$", text, re.S):
        assert "\n\n" not in block


def test_claims_and_summary() -> None:
    derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
    text = render_markdown(derivation, language="en")
    assert "0.9997\\,{\\color{red}{\\times}}\\,{\\scriptstyle 0.9995}" in text
    assert "| $\\color{red}" not in text
    assert "Printed numbers: summary" in text
    czech = render_markdown(derivation)          # the spec's language: Czech, decimal commas
    assert "0{,}9997\\,{\\color{red}{\\times}}\\,{\\scriptstyle 0{,}9995}" in czech
    assert "Čísla z\xa0původního textu: souhrn" in czech


def test_softmax_table_and_expanded_rows() -> None:
    derivation = symattn.derive(symattn.load_example("004-softmax-row"))
    text = render_markdown(derivation, language="en")
    # e^8 = 2980.95798...: every exponential of the table to the same places (four:
    # e^1 = 2.71828... needs them for its weight 0.000764517 to follow), every score
    # to one place (3.2 beside 8.0)
    assert "| $5$ |  | $8.0$ | $2980.9580$ | $0.838394$ | $83.8394\\,\\%$ |" in text
    assert "| $3$ |  | $1.0$ | $2.7183$ | $0.000765$ | $0.0765\\,\\%$ |" in text
    summary = render_markdown(derivation, worked.Options(detail="summary"))
    assert "| $j$ |" not in summary


@pytest.mark.parametrize("text", ["a_b *c* `d` [x](y) <b>x</b> | $5$ \\(x\\) \\[y\\] # h",
                                  "- item", "1. item", "~~s~~ & ^"])
def test_escaped_text_has_no_markdown_or_math(text: str) -> None:
    escaped = escape_markdown(text)
    bare = re.sub(r"&(#\d+|amp|lt|gt);", "", escaped)
    for char in "_*`[]<>|$\\#~^&":
        assert char not in bare
    assert not re.match(r"^(\d+[.)]|[-+=!])", escaped)


def test_hostile_spec_stays_text() -> None:
    problem = symattn.Problem.from_mapping({
        "title": "<script>alert(1)</script> $\\input{x}$ [link](javascript:x)",
        "tokens": ["|a|", "*b*", "_c_"], "inputs": {"scaled": [[1, 2, 3]]}})
    text = render_markdown(symattn.derive(problem))
    assert "<script>" not in text and "[link]" not in text and "$\\input" not in text
    assert "&lt;script&gt;" in text
    assert "&#124;a&#124;" in text


def test_jupyter_display_hooks() -> None:
    derivation = symattn.derive(symattn.load_example("004-softmax-row"))
    markdown = derivation._repr_markdown_()          # in the spec's language, Ukrainian
    assert markdown.startswith("## softmax від")
    assert "### Крок 2: Експоненти" in markdown
    english = symattn.derive(symattn.load_example("004-softmax-row"), language="en")
    assert "### Step 2: Exponentials" in english._repr_markdown_()
    assert "Step 2: Exponentials" in english._repr_latex_()
    fragment = derivation._repr_latex_()
    assert "\\documentclass" not in fragment and "\\begin{align*}" in fragment
    assert "\\providecommand{\\symattnok}" in fragment


def test_no_step_says_its_heading_again_as_its_description() -> None:
    """A page-text check over every bundled example: the first sentence under a step's
    heading never repeats the heading word for word."""
    import re

    import symattn
    from symattn.problem import examples

    for name in examples.names():
        if examples.kind(name) == "sizes":
            continue
        page = symattn.render_markdown(symattn.derive(symattn.load_example(name)),
                                       language="en")
        for heading, body in re.findall(r"^### Step \d+: (.+)\n\n+(.+)$", page, re.M):
            sentence = re.sub(r"\s*\(\$[^$]*\$\)", "", body).rstrip(".").strip().lower()
            assert sentence != heading.strip().lower(), (name, heading)
