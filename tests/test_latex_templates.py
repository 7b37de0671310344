"""Template lookup, user overrides, and errors that name the template and line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import symattn
from symattn.render import templating
from symattn.cli.app import main
from symattn.api import render_latex
from symattn.api import render_markdown

REPO = Path(__file__).resolve().parent.parent
BUNDLED = REPO / "templates"


def _derivation() -> symattn.Derivation:
    """Seed 001's softmax([10, 2, 1]), shown in English (the spec's own language is Czech)."""
    return symattn.derive(symattn.load_example("001-softmax-10-2-1"), language="en")


def test_every_kind_has_a_template_in_both_formats() -> None:
    kinds = ("input", "projection", "scores", "scaled", "mask", "masked", "exp", "exp_sum",
             "weights", "output", "generic")
    for kind in kinds:
        assert (BUNDLED / f"step_{kind}.tex.j2").is_file(), kind
    for name in ("document.tex.j2", "_macros.tex.j2", "document.md.j2", "_macros.md.j2",
                 "step_generic.md.j2"):
        assert (BUNDLED / name).is_file(), name


def test_user_template_overrides_by_name(tmp_path: Path) -> None:
    (tmp_path / "step_exp_sum.tex.j2").write_text(
        "\\BLOCK{import '_macros.tex.j2' as m}\\VAR{m.heading(step)}"
        "OVERRIDDEN $\\VAR{step.symbol}$\n",
        encoding="utf-8")
    tex = render_latex(_derivation(), template_dir=tmp_path)
    assert "OVERRIDDEN $\\Sigma$" in tex
    assert "Step 4: Attention weights" in tex          # the others are still bundled


@pytest.mark.parametrize("body, line, message", [
    ("line one\n\\VAR{doc.title\n", 2, "unexpected"),               # syntax error
    ("one\ntwo\n\\VAR{doc.no_such_field}\n", 3, "no_such_field"),   # undefined (strict)
    ("\\VAR{doc.steps}\n", 1, "strings only"),                      # not a string
    ("\\BLOCK{include 'missing.tex.j2'}\n", None, "missing.tex.j2"),
])
def test_broken_template_names_template_and_line(tmp_path: Path, body: str, line: int | None,
                                                 message: str) -> None:
    (tmp_path / "document.tex.j2").write_text(body, encoding="utf-8")
    with pytest.raises(templating.TemplateError) as caught:
        render_latex(_derivation(), template_dir=tmp_path)
    text = str(caught.value)
    assert message in text
    if line is not None:
        assert f"template document.tex.j2, line {line}" in text


def test_broken_template_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "step_weights.md.j2").write_text("a\nb\n\\VAR{step.nope}\n", encoding="utf-8")
    status = main(["derive", "--example", "001-softmax-10-2-1", "--language", "en",
                   "--format", "markdown",
                   "--template-dir", str(tmp_path)])
    assert status == 2
    assert "template step_weights.md.j2, line 3" in capsys.readouterr().err


def test_missing_template_dir_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["derive", "--example", "001-softmax-10-2-1", "--language", "en",
                   "--format", "latex",
                   "--template-dir", str(tmp_path / "nope")])
    assert status == 2
    assert "no such folder" in capsys.readouterr().err


def test_markdown_templates_override_too(tmp_path: Path) -> None:
    (tmp_path / "document.md.j2").write_text("# \\VAR{doc.title}\n", encoding="utf-8")
    expected = "# softmax of the vector &#91;10, 2, 1&#93;\n"   # the English title
    assert render_markdown(_derivation(), template_dir=tmp_path) == expected


def test_finalize_refuses_non_strings() -> None:
    env = templating.environment()
    assert env.from_string("\\VAR{x}").render(x="ok") == "ok"
    with pytest.raises(TypeError, match="strings only"):
        env.from_string("\\VAR{x}").render(x=3)


def test_installed_copy_is_found(tmp_path: Path) -> None:
    """A wheel puts the templates in symattn/templates; no checkout next to it."""
    site = tmp_path / "site"
    shutil.copytree(REPO / "symattn", site / "symattn",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(BUNDLED, site / "symattn" / "templates")
    env = dict(os.environ, PYTHONPATH=str(site))
    code = ("import symattn; from symattn.render import templating; "
            "print(templating.template_dirs()[0]); "
            "print(symattn.derive(symattn.load_example('001-softmax-10-2-1'))"
            "._repr_markdown_()[:2])")
    result = subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120, check=True)
    folder, start = result.stdout.split()
    assert Path(folder) == site / "symattn" / "templates"
    assert start == "##"
