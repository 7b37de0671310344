"""The report of ``symattn kvcache``: text, JSON and LaTeX.

Each layout receives the problem, the ``DecodingStep`` records that
``symattn.explore.kvcache.decode`` computed and proved, and the
``NumberFormat``; it returns the finished string. The LaTeX layout fills
``templates/report_kvcache.tex.j2``. Text and LaTeX speak the reader's
language (the catalogs' ``[kvcache]``); JSON is data.
"""

from __future__ import annotations

__all__ = ["render_text", "kvcache_blocks", "render_json", "render_latex"]

from typing import Any, Callable, Sequence

from flint import fmpq

from symattn import messages
from symattn.explore.kvcache import DecodingStep, work_saved
from symattn.messages import Catalog
from symattn.problem.problem import Problem
from symattn.render import prose
from symattn.render.blocks import (Block, Line, bracketed, joined, numbers, padded,
                                   text as blocks_text)
from symattn.render.reports.shared import (TemplateValue, decimal_cells, heading, json_report,
                                           render, text, vector)
from symattn.render.view import shown_indices
from symattn.render.number_words import numbers_text
from symattn.values.exact import exact_text
from symattn.values.number_format import NumberFormat

# A vector of a DecodingStep, as the record types it: rationals (fmpq), or exact
# SymPy-backed values when the spec has irrational entries.
Row = Sequence[Any]


def _new_vectors(step: DecodingStep) -> tuple[tuple[str, Row], ...]:
    """What step t makes from the new token alone: q_t, k_t, v_t, by matrix name."""
    return ("Q", step.query), ("K", step.key), ("V", step.value)


def _vector(values: Row, number_format: NumberFormat) -> Line:
    comma = "; " if number_format.separator == "," else ", "
    return bracketed(numbers(values, number_format), comma)


def _numbers(fmt: NumberFormat, catalog: Catalog) -> str:
    """How the decimals are printed, in words (the derivation's phrase)."""
    return numbers_text(fmt, catalog)


def _source_latex(problem: Problem, name: str, t: int, catalog: Catalog) -> tuple[str, str]:
    """How q_t, k_t or v_t is made from the new token alone, as mathematics:
    ``(q_{t}, x_{t} W_{Q})``."""
    letter = name.lower()
    if name in problem.inputs:
        made = f"\\text{{{catalog.fill('kvcache.row_of', t=str(t))} }} {name}"
    else:
        x = f"(x_{{{t}}} + \\mathit{{PE}}_{{{t}}})" if problem.positions == "sinusoidal" \
            else f"x_{{{t}}}"
        made = f"{x} W_{{{name}}}"
    if problem.positions == "rope" and name in ("Q", "K"):    # RoPE positions are 0-based
        made = f"{made}\\ (\\text{{{catalog.text('kvcache.rotated')} }} p = {t - 1})"
    return f"{letter}_{{{t}}}", made


def _positions_text(problem: Problem, catalog: Catalog) -> str:
    if problem.positions == "none":
        return ""
    kind = catalog.fill(f"permute.{problem.positions}", base=str(problem.position_base))
    return catalog.fill("kvcache.positions", positions=kind)


def _span(kind: str, first: int, last: int, catalog: Catalog) -> str:
    """"key 3" or "keys 3 to 5" (``kind``: keys or rows) in the catalog's words."""
    if first == last:
        return catalog.fill(f"kvcache.{kind}_one", first=str(first))
    return catalog.fill(f"kvcache.{kind}_many", first=str(first), last=str(last))


def _totals(steps: Sequence[DecodingStep], catalog: Catalog) -> tuple[str, str]:
    """The closing lines: the result and the K/V rows the cache saved."""
    n = len(steps)
    with_cache, without = work_saved(steps)
    proved = sum(step.equal for step in steps)
    result = catalog.fill("kvcache.result_all", n=str(n)) if proved == n else \
        catalog.fill("kvcache.result_some", proved=str(proved), n=str(n))
    saved = catalog.fill("kvcache.saved_text", **{      # "with" is a keyword
        "with": str(with_cache), "without": str(without), "saved": str(without - with_cache)})
    return result, saved


def _work_text(step: DecodingStep, catalog: Catalog) -> str:
    t = step.position
    tokens = catalog.text("kvcache.tokens_one") if t == 1 else \
        catalog.fill("kvcache.tokens_many", t=str(t))
    return catalog.fill("kvcache.work_text", rows=str(step.kv_rows), t=str(t),
                        without=str(step.kv_rows_without), tokens=tokens)


def _proof(step: DecodingStep, n: int, catalog: Catalog) -> list[str]:
    """Lines of the proof that the step's output row is the full computation's (LaTeX)."""
    c = catalog
    t = step.position
    kind = c.text("permute.rational" if all(isinstance(s, fmpq) for s in step.scores)
                  else "permute.exact")
    lines = [c.fill("kvcache.proof_scores", t=str(t), keys=_span("keys", 1, t, c),
                    kind=kind, equal=str(step.scores_equal))]
    if t < n:
        later = _span("keys", t + 1, n, c)
        lines.append(c.fill("kvcache.proof_masked", keys=later) if step.masked_after
                     else c.fill("kvcache.proof_not_masked", keys=later))
    lines.append(c.fill("kvcache.proof_values", rows=_span("rows", 1, t, c))
                 if step.values_equal else c.text("kvcache.proof_values_differ"))
    if step.output_equal:
        lines.append(c.fill("kvcache.proof_output", t=str(t)))
    lines.append(c.text("kvcache.proof_check" if step.text_equal
                        else "kvcache.proof_check_failed"))
    return lines


def _heading(step: DecodingStep, catalog: Catalog, escape: Callable[[str], str]) -> str:
    t = str(step.position)
    if step.token:
        return catalog.fill("kvcache.step_token", t=t, token=escape(step.token))
    return catalog.fill("kvcache.step", t=t)


# -------------------------------------------------------------------- LaTeX
def _cache_latex(step: DecodingStep, number_format: NumberFormat,
                 limit: int | None) -> list[TemplateValue]:
    """The cached key and value rows on show (``limit`` of them at most)."""
    t = step.position
    shown = shown_indices(t, limit)
    return [{"elided": r > 0 and j != shown[r - 1] + 1, "index": str(j + 1),
             "key": vector(decimal_cells(step.cached_keys[j], number_format)),
             "value": vector(decimal_cells(step.cached_values[j], number_format)),
             "new": j == t - 1}
            for r, j in enumerate(shown)]


def _step_latex(problem: Problem, step: DecodingStep, n: int, number_format: NumberFormat,
                limit: int | None, catalog: Catalog) -> TemplateValue:
    t = step.position
    scaled = decimal_cells(step.scaled, number_format)
    scores = decimal_cells(step.scores, number_format)
    made = [dict(zip(("lhs", "made"), _source_latex(problem, name, t, catalog)),
                 vector=vector(decimal_cells(values, number_format)))
            for name, values in _new_vectors(step)]
    return {"position": str(t), "heading": _heading(step, catalog, text), "new": made,
            "cache": _cache_latex(step, number_format, limit),
            "scores": vector(scores), "scaled": vector(scaled) if scaled != scores else "",
            "weights": vector(decimal_cells(step.weights, number_format)),
            "output": vector(decimal_cells(step.output, number_format)),
            "proof": _proof(step, n, catalog), "work": _work_text(step, catalog)}


def render_latex(problem: Problem, steps: Sequence[DecodingStep], number_format: NumberFormat,
                 limit: int | None, fragment: bool = False, language: str = "en") -> str:
    """templates/report_kvcache.tex.j2: each step's cache, scores, weights, output, proof,
    every word in ``language``."""
    catalog = messages.load(language)
    n = len(steps)
    result, saved = _totals(steps, catalog)
    doc: dict[str, TemplateValue] = {
        "title": text(problem.prose_in("title", catalog.language)),
        "count": str(n),
        "positions": _positions_text(problem, catalog),
        "numbers": _numbers(number_format, catalog), "rope": problem.positions == "rope",
        "steps": [_step_latex(problem, step, n, number_format, limit, catalog)
                  for step in steps],
        "result": result, "saved": saved}
    return render("kvcache", doc, fragment, catalog=catalog)


# --------------------------------------------------------------------- text
def _cache_text(step: DecodingStep, number_format: NumberFormat, limit: int | None,
                new_mark: str) -> list[Block]:
    """The cached rows on show, ``...`` where some are left out, the new one marked."""
    t = step.position
    keys = [_vector(k, number_format) for k in step.cached_keys]
    values = [_vector(v, number_format) for v in step.cached_values]
    shown = shown_indices(t, limit)
    width = max(len(k) for k in keys)
    out: list[Block] = []
    for r, j in enumerate(shown):
        if r > 0 and j != shown[r - 1] + 1:
            out.append("      ...")
        mark = f"   {new_mark}" if j == t - 1 else ""
        out.append(joined([f"      k_{j + 1} = ", padded(keys[j], width),
                           f"   v_{j + 1} = ", values[j], mark], ""))
    return out


def _step_text(problem: Problem, step: DecodingStep, n: int, number_format: NumberFormat,
               limit: int | None, catalog: Catalog) -> list[Block]:
    say, c, t = prose.plain, catalog, step.position
    out: list[Block] = [say(_heading(step, c, str))]
    out.append("  " + say(c.text("kvcache.new")))
    for name, values in _new_vectors(step):
        lhs, made = _source_latex(problem, name, t, c)
        out.append(joined([f"    {say('$' + lhs + ' = ' + made + '$')} = ",
                           _vector(values, number_format)], ""))
    out.append("  " + say(c.fill("kvcache.cache", t=str(t))))
    out += _cache_text(step, number_format, limit, say(c.text("kvcache.new_mark")))
    out.append("  " + say(c.text("kvcache.attention")))
    for key, values in (("scores", step.scores), ("weights", step.weights),
                        ("output", step.output)):
        out.append(joined([f"    {say(c.text(f'kvcache.{key}'))}: ",
                           _vector(values, number_format)], ""))
    out.append("  " + say(c.text("kvcache.proof")))
    out += ["    " + say(line) for line in _proof(step, n, c)]
    out.append("  " + say(c.fill("kvcache.work", work=_work_text(step, c))))
    out.append("")
    return out


def render_text(problem: Problem, steps: Sequence[DecodingStep], number_format: NumberFormat,
                limit: int | None, language: str = "en") -> str:
    """Every decoding step: the new q, k, v, the cache (``limit`` rows), scores, proof,
    every word in ``language``."""
    return blocks_text(kvcache_blocks(problem, steps, number_format, limit, language))


def kvcache_blocks(problem: Problem, steps: Sequence[DecodingStep], number_format: NumberFormat,
                   limit: int | None, language: str = "en") -> list[Block]:
    """``render_text``'s report as blocks (``render.blocks``)."""
    catalog = messages.load(language)
    say = prose.plain
    n = len(steps)
    out: list[Block] = []
    out += heading(say(catalog.text("kvcache.title")),
                   problem.prose_in("title", catalog.language))
    out.append(say(catalog.fill("kvcache.intro", count=str(n),
                                positions=_positions_text(problem, catalog),
                                numbers=_numbers(number_format, catalog))))
    out.append(say(catalog.text("kvcache.how")))
    if problem.positions == "rope":
        out.append(say(catalog.text("kvcache.rope")))
    out.append("")
    for step in steps:
        out += _step_text(problem, step, n, number_format, limit, catalog)
    result, saved = _totals(steps, catalog)
    out.append(say(catalog.fill("kvcache.result", result=result)))
    out.append(say(catalog.fill("kvcache.saved", saved=saved)))
    return out


# --------------------------------------------------------------------- JSON
def _step_json(step: DecodingStep, number_format: NumberFormat) -> dict[str, object]:
    def vector(values: Row) -> dict[str, list[str]]:
        return {"exact": [exact_text(v) for v in values],
                "value": decimal_cells(values, number_format)}

    return {
        "position": step.position, "token": step.token,
        "query": vector(step.query), "key": vector(step.key), "value": vector(step.value),
        "cache_keys": [vector(k) for k in step.cached_keys],
        "cache_values": [vector(v) for v in step.cached_values],
        "scores": vector(step.scores), "scaled": vector(step.scaled),
        "weights": vector(step.weights), "output": vector(step.output),
        "proof": {"scores_equal": step.scores_equal, "masked_after": step.masked_after,
                  "values_equal": step.values_equal, "text_equal": step.text_equal,
                  "equal": step.equal},
        "kv_rows": step.kv_rows, "kv_rows_without_cache": step.kv_rows_without}


def render_json(problem: Problem, steps: Sequence[DecodingStep],
                number_format: NumberFormat) -> str:
    """Every step with exact and printed vectors, its proof and the K/V rows computed."""
    with_cache, without = work_saved(steps)
    return json_report({
        "title": problem.title, "positions": problem.positions,
        "steps": [_step_json(step, number_format) for step in steps],
        "kv_rows": {"with_cache": with_cache, "without_cache": without},
        "equal": all(step.equal for step in steps)})
