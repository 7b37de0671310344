"""The page of ``symattn serve``: the spec in a form, and what symattn made of it.

The form holds the spec's text (TOML) and the page's language; below it stand
the calculator (``calculator_page``), the derivation as ``symattn derive``
prints it and the verdicts as ``symattn check`` prints them, or the one message
saying why the spec cannot be used. Type is large, for a projector. Like the
calculator page it loads nothing; its only script is the calculator's.
"""

from __future__ import annotations

__all__ = ["Result", "render_serve_page", "SERVE_STYLE"]

from dataclasses import dataclass

from symattn import messages
from symattn.render.web.page import escape
from symattn.render.web.calculator_assets import SCRIPT, STYLE
from symattn.render.web.calculator_page import page, words

SERVE_STYLE = STYLE + """\
body { font-family: system-ui, sans-serif; font-size: 1.35rem; line-height: 1.45; margin: 0;
  color: #111; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
main > h1 { font-size: 2rem; }
form.spec textarea { width: 100%; min-height: 14em; font: 1.1rem/1.4 ui-monospace, monospace;
  box-sizing: border-box; }
form.spec label { font-weight: 600; display: block; margin: 0.6em 0 0.2em; }
form.spec select, form.spec button { font-size: 1.2rem; padding: 0.3em 0.8em; }
form.spec button { margin-top: 0.8em; }
.problem { border: 3px solid #a00; background: #fff4f4; padding: 0.6em 1em; }
.problem h2::before { content: "\\2716  "; color: #a00; }
pre.report { font-size: 1rem; overflow-x: auto; background: #f6f6f6; padding: 0.8em;
  border: 1px solid #ccc; }
:focus-visible { outline: 3px solid #c60; outline-offset: 2px; }
main .symattn-calculator { font-size: inherit; max-width: none; padding: 0; }
"""


@dataclass(frozen=True)
class Result:
    """What a recomputation gave: the calculator section, the derivation's and the
    report's text (both plain text, escaped here), or the message of why not."""

    calculator: str = ""            # HTML from calculator_page (escaped there)
    derivation: str = ""
    verdicts: str | None = None     # None: the spec has no claims
    error: str = ""
    written: str = ""               # the folder's files, when serve writes any


def _form(spec_text: str, language: str, catalog: messages.Catalog) -> str:
    options = "".join(f'<option value="{code}"{" selected" if code == language else ""}>'
                      f'{code}</option>' for code in messages.LANGUAGES)
    return ('<form class="spec" method="post" action="/">\n'
            f'<label for="spec">{words(catalog, "calculator.serve_spec")}</label>\n'
            f'<textarea id="spec" name="spec" spellcheck="false">{escape(spec_text)}'
            '</textarea>\n'
            f'<label for="language">{words(catalog, "calculator.serve_language")}</label>\n'
            f'<select id="language" name="language">{options}</select>\n'
            f'<div><button type="submit">{words(catalog, "calculator.serve_submit")}</button>'
            '</div>\n</form>\n')


def _results(result: Result, catalog: messages.Catalog) -> str:
    if result.error:
        return (f'<section class="problem" role="alert"><h2>'
                f'{words(catalog, "calculator.serve_error")}</h2>'
                f'<p>{escape(result.error)}</p></section>\n')
    verdicts = (f'<pre class="report">{escape(result.verdicts)}</pre>'
                if result.verdicts is not None else
                f'<p>{words(catalog, "calculator.serve_no_claims")}</p>')
    written = (f'<p>{words(catalog, "calculator.serve_folder", folder=escape(result.written))}'
               '</p>\n' if result.written else "")
    return (result.calculator
            + f'<section><h2>{words(catalog, "calculator.serve_verdicts")}</h2>{verdicts}'
            '</section>\n'
            + f'<section><h2>{words(catalog, "calculator.serve_derivation")}</h2>'
            f'<pre class="report">{escape(result.derivation)}</pre></section>\n' + written)


def render_serve_page(spec_text: str, language: str, result: Result | None) -> str:
    """The whole page: the form with ``spec_text``, then ``result`` (None: form only)."""
    catalog = messages.load(language)
    title = catalog.text("calculator.serve_title")
    body = (f'<main>\n<h1>{escape(title)}</h1>\n'
            f'<p>{words(catalog, "calculator.serve_intro")}</p>\n'
            + _form(spec_text, language, catalog)
            + (_results(result, catalog) if result is not None else "") + '</main>\n')
    return page(title, language, body, [SCRIPT], SERVE_STYLE)
