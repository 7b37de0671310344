"""The page of ``symattn serve``: the spec in a form, and what symattn made of it.

The form holds a field per input matrix (rows on lines), the tokens, the
options and the page's language, and, under "advanced", the spec's whole text
(TOML); below it stand the calculator (``calculator_page``), the verdicts
(``report_html``) and the derivation (``derivation_html``), as ``--format html``
shows them. A spec that cannot be used gives one message above the form, which
keeps what was typed and marks the field the message names. Type is large, for a projector. Like the
calculator page it loads nothing; its only script is the calculator's.
"""

from __future__ import annotations

__all__ = ["FormFields", "Result", "render_serve_page", "SERVE_STYLE"]

from dataclasses import dataclass

from symattn import messages
from symattn.render.web.page import STYLE as WEB_STYLE, escape, tip_ids
from symattn.render.web.calculator_assets import SCRIPT, STYLE
from symattn.render.web.calculator_page import page, words

SERVE_STYLE = STYLE + """\
body { font-family: system-ui, sans-serif; font-size: 1.35rem; line-height: 1.45; margin: 0;
  color: #111; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
main > h1 { font-size: 2rem; }
form.spec textarea { width: 100%; font: 1.1rem/1.4 ui-monospace, monospace;
  box-sizing: border-box; }
form.spec #spec { min-height: 14em; }
form.spec fieldset { border: 1px solid #888; padding: 0.4em 1em 1em; }
form.spec legend { font-weight: 700; padding: 0 0.3em; }
form.spec label { font-weight: 600; display: block; margin: 0.6em 0 0.2em; }
form.spec .matrices { display: grid; grid-template-columns: repeat(auto-fill, minmax(16rem, 1fr));
  gap: 0 1.2rem; }
form.spec .options { display: grid; grid-template-columns: repeat(auto-fill, minmax(13rem, 1fr));
  gap: 0 1.2rem; }
form.spec input { font: 1.1rem ui-monospace, monospace; width: 100%; box-sizing: border-box;
  padding: 0.2em 0.3em; }
form.spec select, form.spec button { font-size: 1.2rem; padding: 0.3em 0.8em; }
form.spec button { margin-top: 0.8em; }
form.spec .help { font-size: 1rem; color: #444; margin: 0.3em 0; }
form.spec [aria-invalid="true"] { border: 3px solid #a00; background: #fff4f4; }
form.spec details.advanced { margin-top: 1em; }
form.spec summary { cursor: pointer; font-weight: 600; }
.symattn.derivation, .symattn.verdicts { max-width: none; font-size: 1.1rem; }
.problem { border: 3px solid #a00; background: #fff4f4; padding: 0.6em 1em; }
.problem h2::before { content: "\\2716  "; color: #a00; }
:focus-visible { outline: 3px solid #c60; outline-offset: 2px; }
main .symattn-calculator { font-size: inherit; max-width: none; padding: 0; }
"""


@dataclass(frozen=True)
class FormFields:
    """What the form's fields hold, as text: each matrix (name, rows on lines), the
    tokens (comma separated), the options ("" leaves one out) and the mask ("none",
    "causal", or "" for the spec's own)."""

    matrices: tuple[tuple[str, str], ...] = ()
    tokens: str = ""
    d_k: str = ""
    scale: str = ""
    temperature: str = ""
    digits: str = ""
    mask: str = ""


@dataclass(frozen=True)
class Result:
    """What a recomputation gave: the calculator section, the derivation and the
    verdicts (HTML from ``derivation_html`` and ``report_html``, escaped there), or
    the message of why not and the form field it is about."""

    calculator: str = ""            # HTML from calculator_page (escaped there)
    derivation: str = ""
    verdicts: str | None = None     # None: the spec has no claims
    error: str = ""
    written: str = ""               # the folder's files, when serve writes any
    field: str = ""                 # the form field the error is about ("": none)
    spec_text: str = ""             # the spec the form's fields made ("": as submitted)


_OPTION_LABELS = (("d_k", "web.form_d_k"), ("scale", "web.form_scale"),
                  ("temperature", "web.form_temperature"), ("digits", "web.form_digits"))


def _invalid(name: str, bad: str) -> str:
    return ' aria-invalid="true" aria-errormessage="problem"' if name == bad else ""


def _matrix_fields(form: FormFields, catalog: messages.Catalog, bad: str) -> str:
    out = []
    for name, text in form.matrices:
        ident = f"m-{escape(name)}"
        rows = max(2, min(12, text.count("\n") + 1))
        out.append(f'<div class="field matrix"><label for="{ident}">'
                   f'{words(catalog, "web.form_matrix", name=escape(name))}</label>'
                   f'<textarea id="{ident}" name="{ident}" rows="{rows}" spellcheck="false" '
                   f'aria-describedby="matrix-help"{_invalid(name, bad)}>{escape(text)}'
                   '</textarea></div>')
    return "\n".join(out)


def _option_fields(form: FormFields, catalog: messages.Catalog, bad: str) -> str:
    out = [f'<div class="field"><label for="tokens">{words(catalog, "web.form_tokens")}'
           f'</label><input id="tokens" name="tokens" value="{escape(form.tokens)}"'
           f'{_invalid("tokens", bad)}></div>']
    for name, key in _OPTION_LABELS:
        out.append(f'<div class="field"><label for="{name}">{words(catalog, key)}</label>'
                   f'<input id="{name}" name="{name}" value="{escape(getattr(form, name))}" '
                   f'spellcheck="false"{_invalid(name, bad)}></div>')
    choices = [("none", "web.mask_none"), ("causal", "web.mask_causal")] + (
        [("", "web.mask_spec")] if form.mask == "" else [])
    options = "".join(f'<option value="{value}"{" selected" if value == form.mask else ""}>'
                      f"{words(catalog, key)}</option>" for value, key in choices)
    out.append(f'<div class="field"><label for="mask">{words(catalog, "web.form_mask")}'
               f'</label><select id="mask" name="mask">{options}</select></div>')
    return "\n".join(out)


def _form(spec_text: str, form: FormFields, language: str, catalog: messages.Catalog,
          bad: str) -> str:
    languages = "".join(f'<option value="{code}"{" selected" if code == language else ""}>'
                        f'{code}</option>' for code in messages.LANGUAGES)
    submit = words(catalog, "calculator.serve_submit")
    return ('<form class="spec" method="post" action="/">\n'
            f'<fieldset><legend>{words(catalog, "web.form_heading")}</legend>\n'
            f'<p class="help" id="matrix-help">{words(catalog, "web.form_help")}</p>\n'
            f'<div class="matrices">{_matrix_fields(form, catalog, bad)}</div>\n'
            f'<div class="options">{_option_fields(form, catalog, bad)}\n'
            f'<div class="field"><label for="language">'
            f'{words(catalog, "calculator.serve_language")}</label>'
            f'<select id="language" name="language">{languages}</select></div></div>\n'
            f'<div><button type="submit" name="use" value="form">{submit}</button></div>'
            '</fieldset>\n'
            f'<details class="advanced"{" open" if bad == "spec" else ""}><summary>'
            f'{words(catalog, "web.form_advanced")}</summary>\n'
            f'<p class="help">{words(catalog, "web.form_advanced_note")}</p>\n'
            f'<label for="spec">{words(catalog, "calculator.serve_spec")}</label>\n'
            f'<textarea id="spec" name="spec" spellcheck="false"{_invalid("spec", bad)}>'
            f'{escape(spec_text)}</textarea>\n'
            f'<div><button type="submit" name="use" value="spec">'
            f'{words(catalog, "web.form_advanced_submit")}</button></div></details>\n'
            '</form>\n')


def _results(result: Result, catalog: messages.Catalog) -> str:
    if result.error:
        said = escape(result.error)
        return (f'<section class="problem" id="problem" role="alert"><h2>'
                f'{words(catalog, "calculator.serve_error")}</h2>'
                f'<p>{said}</p></section>\n')
    verdicts = (result.verdicts if result.verdicts is not None else
                f'<p>{words(catalog, "calculator.serve_no_claims")}</p>')
    written = (f'<p>{words(catalog, "calculator.serve_folder", folder=escape(result.written))}'
               '</p>\n' if result.written else "")
    return (result.calculator
            + f'<section class="symattn verdicts"><h2>'
            f'{words(catalog, "calculator.serve_verdicts")}</h2>{verdicts}</section>\n'
            + f'<section class="symattn derivation"><h2>'
            f'{words(catalog, "calculator.serve_derivation")}</h2>\n{result.derivation}'
            '</section>\n' + written)


def render_serve_page(spec_text: str, form: FormFields, language: str,
                      result: Result | None) -> str:
    """The whole page: the form with ``form``'s fields and ``spec_text``, then ``result``
    (None: the form only); a problem stands above the form, which keeps what was typed."""
    catalog = messages.load(language)
    title = catalog.text("calculator.serve_title")
    problem = result is not None and bool(result.error)
    body = (f'<main>\n<h1>{escape(title)}</h1>\n'
            f'<p>{words(catalog, "web.serve_intro")}</p>\n'
            + (_results(result, catalog) if result is not None and problem else "")
            + _form(result.spec_text if result is not None and result.spec_text else spec_text,
                    form, language, catalog, result.field if result is not None else "")
            + (_results(result, catalog) if result is not None and not problem else "")
            + '</main>\n')
    return page(title, language, tip_ids(body), [SCRIPT], SERVE_STYLE + WEB_STYLE)
