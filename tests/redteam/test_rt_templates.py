"""Document templates (``symattn render``, the MkDocs plugin) cannot run away.

Each bomb runs in a child process under a 4 GB address-space limit and must end
within seconds with one located line naming its limit's option, status 2;
arithmetic faults are located user errors too; and random expressions from
Jinja's grammar end in a rendered page or a located error, within a deadline.
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cli_support import assert_one_line_error, run, subprocess_env
from suite_profile import examples

import symattn
from symattn.errors import TemplateError
from symattn.render import author

EXAMPLE = "001-softmax-10-2-1"
MEMORY = 4_000_000_000          # bytes: ulimit -v 4000000
BOMBS = {
    "power": ("{{ 2**(2**34) }}", "--template-max-digits"),
    "huge integer": ("{{ 10**100000 }}", "--template-max-digits"),
    "repetition": ('{{ "a" * 10**10 }}', "--template-max-length"),
    "format width": ('{{ "{:>1000000000}".format(1) }}', "--template-max-length"),
    "printf width": ('{{ "%1000000000d" % 1 }}', "--template-max-length"),
    "padding method": ('{{ "x".center(10**9) }}', "--template-max-length"),
    "doubling": ('{% set a = "x" * 10**6 %}{% set b = a ~ a %}{{ b }}',
                 "--template-max-length"),
    "list as text": ('{% set s = "x" * 10**6 %}{{ "{}".format([s] * 10**6) }}',
                     "formatted a list"),
    "list as printf text": ('{% set s = "x" * 10**6 %}{{ "%s" % ([s] * 10**6,) }}',
                            "formatted a list"),
    "nested loops": ('{% for a in "x" * 10**6 %}{% for b in "x" * 10**6 %}{% endfor %}'
                     '{% endfor %}', "--template-max-iterations"),
    "macro fan-out": ("{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}"
                      "{% endmacro %}{{ f(40) }}", "--template-max-iterations"),
    "printing": ('{% for a in "x" * 10**5 %}{{ "y" * 10**5 }}{% endfor %}',
                 "--template-max-output"),
}


def _page(tmp_path: Path, body: str) -> str:
    path = tmp_path / "p.md.j2"
    path.write_text(f"First line\n{body}\n", encoding="utf-8")
    return str(path)


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


@pytest.mark.parametrize("case", sorted(BOMBS))
def test_a_bomb_stops_quickly_with_its_limit_named(tmp_path: Path, case: str) -> None:
    body, option = BOMBS[case]
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "symattn", "render", _page(tmp_path, body),
                           "--example", EXAMPLE], capture_output=True, text=True, timeout=60,
                          env=subprocess_env(), preexec_fn=_limit_memory, check=False)
    elapsed = time.monotonic() - started
    assert done.returncode == 2, done.stderr
    named = option if option.startswith("formatted") else f"(limit {option})"
    assert_one_line_error(done.stderr, "p.md.j2, line 2: the template", named)
    assert done.stdout == ""
    assert elapsed < 15, elapsed            # about 1.5 s, most of it starting Python


def test_the_time_budget_stops_a_long_render(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    body = BOMBS["macro fan-out"][0]
    started = time.monotonic()
    status, out, err = run(capsys, "render", _page(tmp_path, body), "--example", EXAMPLE,
                           "--template-max-iterations", str(10**11),
                           "--template-max-seconds", "1")
    assert time.monotonic() - started < 10
    assert status == 2 and out == ""
    assert_one_line_error(err, "p.md.j2, line 2: the template ran for more than 1 s "
                               "(limit --template-max-seconds)")


@pytest.mark.parametrize(("body", "message"), [
    ("{{ 1/0 }}", "division by zero in the template"),
    ("{{ 1 % 0 }}", "division by zero in the template"),
    ("{{ 7 // 0 }}", "division by zero in the template"),
    ("{{ 1.5 % 0.0 }}", "division by zero in the template"),
    ("{{ 1e308 * 10 }}", "overflowed"),
    ("{{ 2.0 ** 5000 }}", "overflowed"),
    ("{{ 10**400 / 3 }}", "overflowed"),
    ("{{ 1e999 }}", "the number inf is beyond 1.8e308"),
    ('{{ "a" - 1 }}', "unsupported operand"),
    ("{{ (2).to_bytes(8, 'big') }}", "to_bytes, which a document template cannot use"),
])
def test_template_faults_are_located_user_errors(tmp_path: Path, body: str, message: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "render", _page(tmp_path, body), "--example", EXAMPLE)
    assert status == 2 and out == ""
    assert_one_line_error(err, "p.md.j2, line 2: ", message)


def test_each_limit_is_its_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 99999 has five digits, 100000 six; "ab" * 3 is six characters.
    page = _page(tmp_path, "{{ 99998 + 1 }} {{ 'ab' * 3 }}")
    status, out, _ = run(capsys, "render", page, "--example", EXAMPLE,
                         "--template-max-digits", "5", "--template-max-length", "6")
    assert (status, out) == (0, "First line\n99999 ababab\n")
    for options, option in ((["--template-max-digits", "4"], "--template-max-digits"),
                            (["--template-max-length", "5"], "--template-max-length")):
        status, out, err = run(capsys, "render", page, "--example", EXAMPLE, *options)
        assert status == 2 and out == ""
        assert_one_line_error(err, "p.md.j2, line 2:", f"(limit {option})")
    status, _, err = run(capsys, "render", _page(tmp_path, "{{ 99999 + 1 }}"), "--example",
                         EXAMPLE, "--template-max-digits", "5")
    assert status == 2 and "more than 5 digits" in err
    status, _, err = run(capsys, "render", page, "--example", EXAMPLE,
                         "--template-max-output", "5")
    assert status == 2 and "printed more than 5 characters (limit --template-max-output)" in err


def test_bounded_templates_still_compute_small_things(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    body = ('{{ 2 ** 10 }} {{ "%05.1f|%s|%%" % (2.25, "q") }} {{ "{:>4}|{}".format(7, "z") }} '
            '{% for c in "ab" %}{{ loop.index }}{{ c.upper() }}{% endfor %} '
            '{{ ", ".join(["x", "y"]) }} {{ "a-b".replace("-", "+") }} {{ -(3 - 5) }}')
    status, out, err = run(capsys, "render", _page(tmp_path, body),
                           "--example", EXAMPLE)
    assert status == 0, err
    assert out == "First line\n1024 002.2|q|%    7|z 1A2B x, y a+b 2\n"


# ------------------------------------------------------------- the grammar fuzz
LIMITS = author.TemplateLimits(max_digits=60, max_length=2000, max_iterations=20_000,
                               max_output=50_000, max_seconds=2)
_NUMBERS = st.one_of(st.integers(-10**30, 10**30), st.sampled_from(["0", "1e308", "0.0", "1.5"]))
_ATOMS = st.one_of(_NUMBERS.map(str), st.text("ab{}:%>0 ", max_size=6).map(repr),
                   st.sampled_from(["weights[1,1]", "[1, 2, 3]", "(1, 'a')", "x"]))


def _expressions(depth: int = 3) -> st.SearchStrategy[str]:
    if depth == 0:
        return _ATOMS
    inner = _expressions(depth - 1)
    return st.one_of(
        _ATOMS,
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "~"]), inner)
        .map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(["-", "+"]), inner).map(lambda t: f"{t[0]}{t[1]}"),
        inner.map(lambda e: f"({e}) | places(2)"),
        st.tuples(inner, st.sampled_from(["center", "ljust", "zfill", "format", "split",
                                          "join", "upper", "to_bytes", "replace",
                                          "expandtabs", "count"]), inner)
        .map(lambda t: f"({t[0]}).{t[1]}({t[2]})"),
        st.tuples(inner, inner).map(lambda t: f"({t[0]}).replace({t[1]}, {t[1]} * 3)"),
        st.tuples(inner, inner).map(lambda t: f"[{t[0]}, {t[1]}]"),
        inner.map(lambda e: f"{e}[1:]"))


_TEMPLATES = st.one_of(
    _expressions().map(lambda e: f"a\n{{{{ {e} }}}}\n"),
    st.tuples(_expressions(2), _expressions(2)).map(
        lambda t: f"{{% for x in {t[0]} %}}{{% for y in {t[0]} %}}{{{{ {t[1]} }}}}"
                  "{% endfor %}{% endfor %}"),
    st.tuples(_expressions(2), _expressions(2)).map(
        lambda t: f"{{% set x = {t[0]} %}}{{% if x %}}{{{{ x ~ {t[1]} }}}}{{% endif %}}"),
    st.tuples(_expressions(2), st.integers(1, 30)).map(
        lambda t: "{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}"
                  f"{{{{ {t[0]} }}}}{{% endmacro %}}{{{{ f({t[1]}) }}}}"))


@settings(max_examples=examples(400), deadline=timedelta(seconds=6),
          suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEMPLATES)
def test_random_expressions_render_or_fail_located(text: str) -> None:
    derivation = _derivation()
    try:
        filled = author.fill(text, derivation, "markdown", name="page.md.j2", limits=LIMITS)
    except TemplateError as error:
        assert re.match(r"page\.md\.j2, line \d+: ", str(error)), error
        assert "\n" not in str(error) and "internal error" not in str(error)
    else:
        assert len(filled) <= LIMITS.max_output + len(text)


_DERIVED: list[symattn.Derivation] = []


def _derivation() -> symattn.Derivation:
    if not _DERIVED:
        _DERIVED.append(symattn.derive(symattn.load_example(EXAMPLE)))
    return _DERIVED[0]


# ------------------------------------------------------------- the MkDocs plugin
def test_a_bomb_in_a_site_page_fails_that_page_at_its_file_line(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs")
    from mkdocs.exceptions import PluginError

    from symattn.render.author.mkdocs_plugin import SymattnPlugin

    (tmp_path / "spec.json").write_text(
        '{"inputs": {"Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[1], [2]]}}',
        encoding="utf-8")
    source = "---\nsymattn: spec.json\n---\n\nText\n{{ 2**(2**34) }}\n"
    (tmp_path / "page.md").write_text(source, encoding="utf-8")

    class File:
        src_uri = "page.md"
        abs_src_path = str(tmp_path / "page.md")

    class Page:
        meta = {"symattn": "spec.json"}
        file = File()

    plugin = SymattnPlugin()
    started = time.monotonic()
    with pytest.raises(PluginError, match=r"page\.md, line 6: the template made a number of "
                                          r"more than 1,000 digits"):
        plugin.on_page_markdown("Text\n{{ 2**(2**34) }}\n", page=Page(), config=None,
                                files=None)
    assert time.monotonic() - started < 5


def test_a_site_build_stops_on_a_bomb_page_at_its_file_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("mkdocs")
    from importlib.metadata import EntryPoint

    import mkdocs.plugins
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "spec.json").write_text(
        '{"inputs": {"Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[1], [2]]}}',
        encoding="utf-8")
    # front matter of four lines, a blank line, then the loops on line 7
    (docs / "index.md").write_text(
        "---\nsymattn: spec.json\nsymattn_language: en\n---\n\n# Loops\n"
        '{% for a in "x" * 1000 %}{% for b in "x" * 1000 %}{% endfor %}{% endfor %}\n',
        encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nplugins:\n  - symattn:\n      template_max_iterations: 5000\n",
        encoding="utf-8")
    entry = EntryPoint("symattn", "symattn.render.author.mkdocs_plugin:SymattnPlugin",
                       "mkdocs.plugins")
    monkeypatch.setattr(mkdocs.plugins, "get_plugins", lambda: {"symattn": entry})
    config = load_config(str(tmp_path / "mkdocs.yml"))
    started = time.monotonic()
    with pytest.raises(Abort):
        build(config)
    assert time.monotonic() - started < 10
    assert "symattn: index.md, line 7: the template ran more than 5,000 loop iterations and " \
        "calls (limit --template-max-iterations)" in caplog.text
