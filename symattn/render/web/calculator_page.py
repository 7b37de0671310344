"""The calculator as one self-contained HTML page, or as a fragment to embed.

``render_calculator`` lays out what ``explore.calculator`` computed: labelled
sliders for T and d_k and switches for the scaling and the mask, the weights
as a table whose cells are shaded and hold the number as text (the heatmap and
its text alternative at once), each row's entropy beside H_max, and the mean
entropy in an ``aria-live`` line. Every word is from the catalogs, every user
string goes through ``web.page.escape``. The whole page loads nothing: its Content
Security Policy allows no request and only its own script (by hash).
"""

from __future__ import annotations

__all__ = ["render_calculator", "page", "words"]

import base64
import hashlib
from typing import Callable, Sequence

from symattn import messages
from symattn.explore.calculator import Calculator, Setting
from symattn.messages import Catalog
from symattn.problem.problem import Problem
from symattn.render.number_words import numbers_text
from symattn.render.prose import plain
from symattn.render.reports.shared import decimal
from symattn.render.web.page import escape
from symattn.render.web.calculator_assets import SCRIPT, STYLE
from symattn.render.web.calculator_data import (calculator_data, script_json, state_data,
                                                temperature_text)
from symattn.values.number_format import NumberFormat

_SIZE_MARK = "\x00size\x00"


def words(catalog: Catalog, key: str, **parts: str) -> str:
    """A catalog message as HTML: its text in Unicode, escaped, with each placeholder
    replaced by ``parts`` (HTML the caller built from escaped pieces)."""
    marks = {name: f"\x00{name}\x00" for name in parts}
    filled = escape(plain(catalog.fill(key, **marks) if parts else catalog.text(key)))
    for name, html_part in parts.items():
        filled = filled.replace(marks[name], html_part)
    return filled


def _csp(scripts: Sequence[str]) -> str:
    hashes = " ".join("'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest())
                      .decode() + "'" for s in scripts)
    return f"default-src 'none'; style-src 'unsafe-inline'; script-src {hashes}; " \
           "img-src data:; base-uri 'none'; form-action 'self'"


def page(title: str, language: str, body: str, scripts: Sequence[str] = (),
         style: str = STYLE) -> str:
    """A whole HTML document around ``body`` that loads nothing from anywhere; its only
    scripts may be ``scripts`` (which ``body`` holds)."""
    return (f'<!DOCTYPE html>\n<html lang="{escape(language)}">\n<head>\n'
            f'<meta charset="utf-8">\n'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<meta http-equiv="Content-Security-Policy" content="{_csp(scripts)}">\n'
            f'<title>{escape(title)}</title>\n<style>\n{style}</style>\n</head>\n'
            f'<body>\n{body}</body>\n</html>\n')


def _labels(problem: Problem, count: int, keys: bool) -> list[str]:
    tokens = problem.tokens
    n, m = problem.score_shape()
    if len(tokens) == (m if keys else n) == count:
        return [f"{k + 1} {token}" for k, token in enumerate(tokens)]
    return [str(k + 1) for k in range(count)]


def _table(problem: Problem, calc: Calculator, fmt: NumberFormat, catalog: Catalog) -> str:
    index = calc.settings.index(calc.start)
    row = calc.sweeps[index].rows[calc.start_temperature]
    state = state_data(row, fmt)
    maxima = [decimal(h, fmt) for h in calc.sweeps[index].entropy_max]
    queries = _labels(problem, len(row.weights), keys=False)
    keys = _labels(problem, len(row.weights[0]) if row.weights else 0, keys=True)
    head = "".join(f'<th scope="col">{escape(k)}</th>' for k in keys)
    lines = [f'<table class="weights">\n<caption>{words(catalog, "calculator.weights")}'
             f'</caption>\n<thead><tr><th scope="col">{words(catalog, "calculator.query_key")}'
             f'</th>{head}<th scope="col">{words(catalog, "calculator.entropy")}</th>'
             f'<th scope="col">{words(catalog, "calculator.entropy_max")}</th></tr></thead>'
             '\n<tbody>']
    for i, query in enumerate(queries):
        cells = "".join(f'<td data-i="{i}" data-j="{j}" class="w{state["c"][i][j]}">'
                        f'{escape(w)}</td>' for j, w in enumerate(state["w"][i]))
        lines.append(f'<tr><th scope="row">{escape(query)}</th>{cells}'
                     f'<td class="entropy" data-h="{i}">{escape(state["h"][i])}</td>'
                     f'<td class="entropy-max" data-hmax="{i}">{escape(maxima[i])}</td>'
                     '</tr>')
    mean = words(catalog, "calculator.mean",
                 value=f'<strong data-shows="mean">{escape(state["mean"])}</strong>',
                 max=f'<span data-shows="mean-max">'
                     f'{escape(decimal(calc.mean_entropy_max[index], fmt))}</span>')
    return (f'<p class="mean" aria-live="polite" aria-atomic="true">{mean}</p>\n'
            + "\n".join(lines) + "\n</tbody>\n</table>\n")


def _slider(pid: str, name: str, label: str, count: int, value: int, shown: str) -> str:
    return (f'<label for="{pid}-{name}">{label}</label>'
            f'<input type="range" id="{pid}-{name}" data-control="{name}" min="0" '
            f'max="{count - 1}" step="1" value="{value}" '
            f'aria-valuetext="{escape(shown)}">'
            f'<output for="{pid}-{name}" data-shows="{name}">{escape(shown)}</output>\n')


def _switch(pid: str, name: str, label: str, on: bool) -> str:
    return (f'<div class="switch"><input type="checkbox" id="{pid}-{name}" '
            f'data-control="{name}"{" checked" if on else ""}>'
            f'<label for="{pid}-{name}">{label}</label></div>\n')


def _scale_words(calc: Calculator, fmt: NumberFormat, catalog: Catalog) -> list[str]:
    return [plain(catalog.fill("calculator.scale_value", d_k=str(d_k),
                               scale=decimal(scale, fmt)))
            for d_k, scale in zip(calc.d_ks, calc.scales)]


def _controls(pid: str, calc: Calculator, fmt: NumberFormat, catalog: Catalog) -> str:
    start: Setting = calc.start
    temperatures = [temperature_text(t.text, fmt) for t in calc.temperatures]
    out = [_slider(pid, "t", words(catalog, "calculator.temperature"), len(temperatures),
                   calc.start_temperature, temperatures[calc.start_temperature])]
    if calc.d_ks:
        scales = _scale_words(calc, fmt, catalog)
        d = calc.d_ks.index(start.d_k) if start.d_k in calc.d_ks else 0
        out.append(_slider(pid, "d", words(catalog, "calculator.d_k"), len(calc.d_ks), d,
                           scales[d] if start.scaled else
                           plain(catalog.text("calculator.scale_off"))))
        out.append(_switch(pid, "scaled", words(catalog, "calculator.scaling"), start.scaled))
    mask = words(catalog, "calculator.mask_causal") if calc.mask_kind == "causal" else \
        words(catalog, "calculator.mask_own", kind=escape(catalog.text(
            "setup.padding" if calc.mask_kind == "padding" else "setup.given")))
    out.append(_switch(pid, "masked", mask, start.masked))
    return '<div class="controls">\n' + "".join(out) + "</div>\n"


def _grid_note(calc: Calculator, fmt: NumberFormat, catalog: Catalog) -> str:
    temperatures = [temperature_text(t.text, fmt) for t in calc.temperatures]
    common = {"first": escape(temperatures[0]), "last": escape(temperatures[-1]),
              "count": str(len(temperatures)), "states": f"{calc.states:,}".replace(",", " "),
              "numbers": escape(numbers_text(fmt, catalog)), "size": _SIZE_MARK}
    if not calc.d_ks:
        return (f'<p class="grid">{words(catalog, "calculator.given_scaled")} '
                f'{words(catalog, "calculator.grid_unscaled", **common)}</p>\n')
    d_ks = ", ".join(map(str, calc.d_ks))
    return f'<p class="grid">{words(catalog, "calculator.grid", d_ks=d_ks, **common)}</p>\n'


def render_calculator(problem: Problem, calc: Calculator, fmt: NumberFormat, language: str,
                      fragment: bool = False, catalog_of: Callable[[str], Catalog] = messages.load
                      ) -> str:
    """The calculator page (``fragment``: the ``<section>`` alone, to embed in a page
    that allows inline scripts); its file size is stated on it, to the kB."""
    catalog = catalog_of(language)
    title = problem.prose_in("title", language) or catalog.text("calculator.title")
    description = problem.prose_in("description", language)
    data = calculator_data(calc, fmt, _scale_words(calc, fmt, catalog),
                           plain(catalog.text("calculator.scale_off")))
    pid = "calc-" + hashlib.sha256(script_json(data).encode()).hexdigest()[:8]
    level = "h2" if fragment else "h1"
    section = (f'<section class="symattn-calculator" data-symattn-calculator id="{pid}" '
               f'lang="{escape(language)}">\n<{level}>{escape(title)}</{level}>\n'
               + (f"<p>{escape(description)}</p>\n" if description else "")
               + _controls(pid, calc, fmt, catalog) + _table(problem, calc, fmt, catalog)
               + _grid_note(calc, fmt, catalog)
               + f'<noscript><p>{words(catalog, "calculator.noscript")}</p></noscript>\n'
               + f'<script type="application/json" class="symattn-calculator-data">'
               f'{script_json(data)}</script>\n<script>{SCRIPT}</script>\n</section>\n')
    text = (f"<style>\n{STYLE}</style>\n" + section) if fragment else \
        page(title, language, section, [SCRIPT])
    size = len(text.encode("utf-8"))
    return text.replace(_SIZE_MARK, f"{max(1, round(size / 1024)):,}".replace(",", " "))
