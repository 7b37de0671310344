"""Plain-text and JSON layouts of a derivation view.

The text layout is a step-by-step listing with aligned matrices; the JSON
layout is the documented, stable ``{"steps": [{"name", "shape", "exact",
"value"}]}`` (see docs/cli.md), with a few extra descriptive keys.
"""

from __future__ import annotations

__all__ = ["render_text", "render_json", "render_json_steps", "iter_json_steps",
           "derivation_document", "matrix_lines"]

import json
import re
from typing import Iterable, Iterator, Mapping, Sequence

from symattn.errors import visible, visible_lines
from symattn import messages, progress
from symattn._version import SCHEMA_VERSION, __version__
from symattn.render import prose
from symattn.render.blocks import matrix_rows
from symattn.render.view import Cells, DerivationView, StepView
from symattn.values.number_format import NumberFormat

EXACT_WIDTH = 60   # longer closed forms are left to the JSON output

_PLAIN_SYMBOLS = {"\\tilde{S}": "S~", "\\Sigma": "Sigma", "\\phi(H)": "phi(H)"}
# The engine's formulas in plain text, whole formulas first, then piece by piece.
_PLAIN_LATEX = (
    ("\\frac{Z}{\\sqrt{d_k}\\, T}", "Z / (sqrt(d_k) T)"),
    ("\\frac{Z}{\\sqrt{d_k}}", "Z / sqrt(d_k)"),
    ("\\frac{\\hat{S}}{\\sqrt{d_k}}", "S^ / sqrt(d_k)"), ("\\frac{S}{T}", "S / T"),
    ("\\frac{\\tilde{S}}{T}", "S~ / T"), ("\\frac{Z}{T}", "Z / T"),
    ("e^{\\tilde{S}_{ij}}", "exp(S~_ij)"), ("e^{\\hat{S}_{ij}}", "exp(S^_ij)"),
    ("e^{S_{ij}}", "exp(S_ij)"), ("\\hat{S}", "S^"), ("\\bar{S}", "S_M"),
    ("\\frac{S_M}{\\sqrt{d_k}}", "S_M / sqrt(d_k)"),
    ("\\sqrt{\\sum_t q_{it}^2}", "sqrt(sum_t q_it^2)"),
    ("\\sqrt{\\sum_t k_{jt}^2}", "sqrt(sum_t k_jt^2)"),
    ("\\frac{q_i \\cdot k_j}{\\|q_i\\|\\,\\|k_j\\|}", "q_i . k_j / (|q_i| |k_j|)"),
    ("\\cos\\theta", "cos theta"), ("\\|q\\|", "|q|"), ("\\|k\\|", "|k|"),
    ("\\frac{Q K^{\\top}}{\\sqrt{d_k}}", "Q K^T / sqrt(d_k)"),
    ("\\frac{S}{\\sqrt{d_k}\\, T}", "S / (sqrt(d_k) T)"),
    ("\\frac{S}{\\sqrt{d_k}}", "S / sqrt(d_k)"), ("\\frac{1}{T} \\cdot ", "(1/T) "),
    ("\\frac{E_{ij}}{\\Sigma_i}", "E_ij / Sigma_i"),
    ("\\frac{E'_{ij}}{\\Sigma'_i}", "E'_ij / Sigma'_i"),
    ("\\sum_j e^{Z_{ij} - m_i}", "sum_j exp(Z_ij - m_i)"), ("e^{Z_{ij} - m_i}", "exp(Z_ij - m_i)"),
    ("\\operatorname{Var}(q \\cdot k)", "Var(q . k)"),
    ("\\sum_j e^{z_j / T}", "sum_j exp(z_j / T)"), ("e^{z_j / T}", "exp(z_j / T)"),
    ("\\sum_j e^{z_j}", "sum_j exp(z_j)"), ("e^{z_j}", "exp(z_j)"), ("e^{z}", "exp(z)"),
    ("\\frac{Z_{ij}}{\\sum_j Z_{ij}}", "Z_ij / sum_j Z_ij"),
    ("\\sum_j e^{Z_{ij}}", "sum_j exp(Z_ij)"), ("e^{Z_{ij}}", "exp(Z_ij)"),
    ("^{\\top}", "^T"), ("s \\cdot S", "s S"), ("\\tilde{S}", "S~"),
    ("\\,", " "), ("\\mid", "|"), ("\\cdots", "..."), ("\\cdot", "*"), ("\\phi", "phi"),
    ("\\Sigma", "Sigma"), ("\\sum_j ", "sum_j "), ("\\log_2", "log2"), ("\\max", "max"),
    ("\\|", "||"), ("\\lim_", "lim_"), ("\\to 0^{+}", "→ 0+"), ("\\to \\infty", "→ ∞"),
    ("\\partial ", "∂"), ("\\big|_", " | "), ("\\big|", " | "))


def _plain(latex: str) -> str:
    """Plain text for the engine's own step formulas (never user text)."""
    text = latex
    for old, new in _PLAIN_LATEX:
        text = text.replace(old, new)
    text = re.sub(r"\\(?:text|mathrm|operatorname)\{([^}]*)\}", r"\1", text)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1 / \2", text)    # what is left
    text = re.sub(r"_\{([^}]*)\}", r"_\1", text)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1 / \2", text)    # once nested
    return text.replace("{", "").replace("}", "")


def matrix_lines(cells: Sequence[Sequence[str]], rows: Sequence[int], columns: Sequence[int],
                 indent: str = "    ") -> list[str]:
    """Aligned rows of a matrix, with ... where rows or columns are elided."""
    return [str(line) for line in matrix_rows(cells, rows, columns, indent)]


def _step_text(step: StepView, number: int, catalog: prose.ProseCatalog, digits_label: str,
               symbols: Mapping[str, str]) -> list[str]:
    """One step: its heading in the reader's language, formula, description, matrices."""
    from symattn.render.worked.names import description, formula_words, heading, sentence

    c = catalog.catalog
    symbol = _PLAIN_SYMBOLS.get(step.symbol, _plain(step.symbol))
    formula = re.sub(" +", " ", _plain(formula_words(step.formula, symbols, c)))
    title = prose.plain(heading(step, c))
    head = catalog.fill("step.heading", number=str(number), heading=title)
    head += f": {symbol}" + (f" = {formula}" if formula not in (symbol, step.name) else "")
    head += f" ({step.shape[0]}×{step.shape[1]})"
    lines = [head]
    said = prose.plain(sentence(description(step, c)))
    if said != title:
        lines.append(f"  {said}")
    same = all(e == d for er, dr in zip(step.exact, step.decimal) for e, d in zip(er, dr))
    longest = max((len(e) for row in step.exact for e in row if e is not None), default=0)
    if step.omitted:
        lines.append("  " + catalog.fill("text.omitted", max_terms=str(step.max_terms),
                                         count=str(step.omitted)))
    elif longest > EXACT_WIDTH:
        lines.append("  " + catalog.fill("text.long", length=str(longest)))
    elif not same:
        lines.append(f"  {catalog.text('text.exact')}:")
        # no closed form was left out (step.omitted is 0): every cell is a string
        lines += matrix_lines([[e or "" for e in row] for row in step.exact], step.rows,
                              step.columns)
    symbolic = catalog.text("text.symbolic")
    decimals = [[d if d is not None else symbolic for d in row] for row in step.decimal]
    if all(d is None for row in step.decimal for d in row):
        return lines
    lines.append(f"  {digits_label}:" if not same else f"  {catalog.text('text.exact_decimal')}:")
    lines += matrix_lines(decimals, step.rows, step.columns)
    return lines


def render_text(view: DerivationView, language: str = "en") -> str:
    """The derivation as a plain-text listing, every word in ``language``."""
    from symattn.render.number_words import numbers_text

    catalog = prose.ProseCatalog(messages.load(language), prose.plain)
    numbers = prose.plain(numbers_text(view.number_format, catalog.catalog))
    label = catalog.fill("text.decimals", numbers=numbers)
    symbols = {step.name: step.symbol for step in view.steps}
    out = []
    if view.shown("title", language):
        title = visible(view.shown("title", language))
        out += [title, "=" * len(title)]
    if view.shown("description", language):
        out.append(view.shown("description", language))
    if view.written_language:   # "pt": no catalog, so this page is in English (or --language)
        out.append(visible(catalog.fill("languages.missing_page",
                                        language=view.written_language)))
    if out:
        out.append("")
    for number, step in enumerate(view.steps, start=1):
        out += _step_text(step, number, catalog, label, symbols)
        out.append("")
    if view.next_tokens:
        out += [catalog.fill("document.next_token", tokens=" = ".join(view.next_tokens)), ""]
    return visible_lines("\n".join(out))


def derivation_document(view: DerivationView) -> dict[str, object]:
    """The JSON document of a derivation as Python data (schemas/derive.json);
    ``render_json`` writes the same values."""
    return {**_head(view.title, view.number_format, view.description, view.tokens),
            "steps": [_step_members(step) for step in view.steps]}


def render_json(view: DerivationView) -> str:
    """The derivation as JSON: the documented ``{"steps": [...]}`` layout."""
    return render_json_steps(view.title, view.number_format, view.steps, view.description,
                             view.tokens)


def _head(title: str, fmt: NumberFormat, description: str,
          tokens: Sequence[str]) -> dict[str, object]:
    return {"symattn": __version__, "schema_version": SCHEMA_VERSION, "title": title,
            "description": description, "tokens": list(tokens),
            "format": {"digits": None if fmt.places is not None else fmt.digits,
                       "places": fmt.places, "rounding": fmt.rounding.value}}


def _step_members(step: StepView) -> dict[str, object]:
    return {"name": step.name, "symbol": step.symbol, "description": step.description,
            "shape": list(step.shape), "formula": step.formula,
            "operands": list(step.operands),
            "exact": [list(row) for row in step.exact],
            "value": [list(row) for row in step.decimal],
            **({"exact_omitted": step.omitted, "max_terms": step.max_terms}
               if step.omitted else {})}


def render_json_steps(title: str, fmt: NumberFormat, steps: Iterable[StepView],
                      description: str = "", tokens: Sequence[str] = ()) -> str:
    """JSON of steps made one at a time (``view.iter_step_views``): the text of
    ``iter_json_steps`` in one string. The values are those of ``json.dumps``
    of ``derivation_document``; only the white space differs."""
    return "".join(iter_json_steps(title, fmt, steps, description, tokens))


def iter_json_steps(title: str, fmt: NumberFormat, steps: Iterable[StepView],
                    description: str = "", tokens: Sequence[str] = ()
                    ) -> Iterator[str]:
    """``render_json_steps`` in pieces, a step at a time: each step is written and
    released before the next is made (a writer may stream the pieces to a file),
    and each matrix row is one line (``json.dumps`` of the row), so a large
    derivation is neither held whole nor slowed by the indenting encoder."""
    head = _head(title, fmt, description, tokens)
    yield json.dumps(head, ensure_ascii=False, indent=1)[:-2] + ',\n "steps": ['
    views, number = iter(steps), 0
    while (step := next(views, None)) is not None:
        yield ",\n  {" if number else "\n  {"
        yield from _step_json(step)
        yield "\n  }"
        step, number = None, number + 1     # released before the next step is made
    yield "\n ]\n}\n" if number else "]\n}\n"


def _step_json(step: StepView) -> Iterator[str]:
    """One step's members, each matrix row on a line of its own, in pieces."""
    cells = {"exact": step.exact, "value": step.decimal}
    plain = StepView(step.name, step.symbol, step.formula, step.operands, step.description,
                     step.shape, (), (), (), (), step.max_terms, step.variant)
    omitted = step.omitted
    separator = ""
    for key, value in _step_members(plain).items():
        if key in cells:
            yield f'{separator}\n   "{key}": '
            yield from _rows_json(cells[key])
        else:
            yield f'{separator}\n   "{key}": ' + json.dumps(value, ensure_ascii=False)
        separator = ","
    if omitted:
        yield f',\n   "exact_omitted": {omitted},\n   "max_terms": {json.dumps(step.max_terms)}'


def _rows_json(rows: Cells) -> Iterator[str]:
    if not rows:
        yield "[]"
        return
    yield "[\n    "
    for number, row in enumerate(rows):
        yield (",\n    " if number else "") + json.dumps(row, ensure_ascii=False)
        progress.advance(0)
    yield "\n   ]"
