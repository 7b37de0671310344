"""The report of ``symattn kvcache``: text, JSON and LaTeX.

Each layout receives the problem, the ``DecodingStep`` records that
``symattn.explore.kvcache.decode`` computed and proved, and the
``NumberFormat``; it returns the finished string. The LaTeX layout fills
``templates/report_kvcache.tex.j2``.
"""

from __future__ import annotations

__all__ = ["render_text", "render_json", "render_latex"]

from typing import Any, Sequence

from flint import fmpq

from symattn.explore.kvcache import DecodingStep, work_saved
from symattn.problem.problem import Problem
from symattn.render.reports.shared import (TemplateValue, decimal_cells, heading, json_report,
                                           render, text, vector)
from symattn.render.view import shown_indices
from symattn.values.exact import exact_text
from symattn.values.number_format import NumberFormat

# A vector of a DecodingStep, as the record types it: rationals (fmpq), or exact
# SymPy-backed values when the spec has irrational entries.
Row = Sequence[Any]


def _new_vectors(step: DecodingStep) -> tuple[tuple[str, Row], ...]:
    """What step t makes from the new token alone: q_t, k_t, v_t, by matrix name."""
    return ("Q", step.query), ("K", step.key), ("V", step.value)


def _vector(values: Row, number_format: NumberFormat) -> str:
    return "[" + ", ".join(decimal_cells(values, number_format)) + "]"


def _label(fmt: NumberFormat) -> str:
    digits = f"{fmt.places} places" if fmt.places is not None \
        else f"{fmt.digits} significant digits"
    return f"decimal, {digits}, {fmt.rounding.value}"


def _source(problem: Problem, name: str, t: int) -> str:
    """How q_t, k_t or v_t is made from the new token alone."""
    letter = name.lower()
    if name in problem.inputs:
        made = f"row {t} of {name}"
    else:
        x = f"(x_{t} + PE_{t})" if problem.positions == "sinusoidal" else f"x_{t}"
        made = f"{x} W_{name}"
    if problem.positions == "rope" and name in ("Q", "K"):
        made = f"{made}, rotated to p = {t - 1}"     # RoPE positions are 0-based
    return f"{letter}_{t} = {made}"


def _source_latex(problem: Problem, name: str, t: int) -> tuple[str, str]:
    """``_source`` as mathematics, ``(q_{t}, x_{t} W_{Q})``: how q_t, k_t or v_t is made
    from the new token alone."""
    letter = name.lower()
    if name in problem.inputs:
        made = f"\\text{{row {t} of }} {name}"
    else:
        x = f"(x_{{{t}}} + \\mathit{{PE}}_{{{t}}})" if problem.positions == "sinusoidal" \
            else f"x_{{{t}}}"
        made = f"{x} W_{{{name}}}"
    if problem.positions == "rope" and name in ("Q", "K"):
        made = f"{made}\\ (\\text{{rotated to }} p = {t - 1})"   # RoPE positions are 0-based
    return f"{letter}_{{{t}}}", made


def _positions_text(problem: Problem) -> str:
    return "" if problem.positions == "none" else \
        f", positions {problem.positions} (base {problem.position_base})"


def _totals(steps: Sequence[DecodingStep]) -> tuple[str, str]:
    """The closing lines: the result and the K/V rows the cache saved."""
    n = len(steps)
    with_cache, without = work_saved(steps)
    proved = sum(step.equal for step in steps)
    result = f"all {n} output rows equal the full causal computation exactly" if proved == n \
        else f"only {proved} of {n} output rows were proved equal"
    return result, (f"{with_cache} with the cache, {without} without ({without - with_cache} "
                    f"saved: 2n = {with_cache} instead of n(n+1) = {without})")


def _work_text(step: DecodingStep) -> str:
    t = step.position
    tokens = "token 1" if t == 1 else f"tokens 1..{t}"
    return (f"{step.kv_rows} K/V rows computed (k_{t}, v_{t}); without the cache "
            f"{step.kv_rows_without} (K and V of {tokens} again)")


def _keys(first: int, last: int) -> str:
    return f"key {first}" if first == last else f"keys {first}..{last}"


def _proof(step: DecodingStep, n: int) -> list[str]:
    """Lines of the proof that the step's output row is the full computation's."""
    t = step.position
    kind = "as rationals" if all(isinstance(s, fmpq) for s in step.scores) \
        else "as exact expressions"
    lines = [f"scores = row {t} of the full causal scores at {_keys(1, t)}: "
             f"{step.scores_equal} of {t} equal {kind}"]
    if t < n:
        weights = "weight" if t + 1 == n else "weights"
        lines.append(f"{_keys(t + 1, n)} masked there: {weights} exactly 0" if step.masked_after
                     else f"{_keys(t + 1, n)} NOT masked in the full computation")
    rows = "row 1" if t == 1 else f"rows 1..{t}"
    lines.append(f"cached values = {rows} of V, exactly" if step.values_equal
                 else "cached values differ from V")
    if step.output_equal:
        lines.append(f"=> the same (score, value) pairs: output = row {t} of the full output, "
                     "exactly")
    lines.append("second check: exact output forms identical" if step.text_equal
                 else "second check FAILED: exact output forms differ")
    return lines


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
                limit: int | None) -> TemplateValue:
    t = step.position
    scaled = decimal_cells(step.scaled, number_format)
    scores = decimal_cells(step.scores, number_format)
    made = [dict(zip(("lhs", "made"), _source_latex(problem, name, t)),
                 vector=vector(decimal_cells(values, number_format)))
            for name, values in _new_vectors(step)]
    return {"position": str(t), "token": text(step.token), "new": made,
            "rows": "1 row" if t == 1 else f"{t} rows",
            "cache": _cache_latex(step, number_format, limit),
            "scores": vector(scores), "scaled": vector(scaled) if scaled != scores else "",
            "weights": vector(decimal_cells(step.weights, number_format)),
            "output": vector(decimal_cells(step.output, number_format)),
            "proof": [text(line) for line in _proof(step, n)],
            "work": text(_work_text(step))}


def render_latex(problem: Problem, steps: Sequence[DecodingStep], number_format: NumberFormat,
                 limit: int | None, fragment: bool = False) -> str:
    """templates/report_kvcache.tex.j2: each step's cache, scores, weights, output, proof."""
    n = len(steps)
    result, saved = _totals(steps)
    doc: dict[str, TemplateValue] = {
        "title": text(problem.title), "count": str(n),
        "positions": text(_positions_text(problem)),
        "numbers": text(_label(number_format)), "rope": problem.positions == "rope",
        "steps": [_step_latex(problem, step, n, number_format, limit) for step in steps],
        "result": text(result), "saved": text(saved)}
    return render("kvcache", doc, fragment)


# --------------------------------------------------------------------- text
def _cache_text(step: DecodingStep, number_format: NumberFormat, limit: int | None) -> list[str]:
    """The cached rows on show, ``...`` where some are left out, the new one marked."""
    t = step.position
    keys = [_vector(k, number_format) for k in step.cached_keys]
    values = [_vector(v, number_format) for v in step.cached_values]
    shown = shown_indices(t, limit)
    width = max(len(k) for k in keys)
    out = []
    for r, j in enumerate(shown):
        if r > 0 and j != shown[r - 1] + 1:
            out.append("          ...")
        mark = "   <- new" if j == t - 1 else ""
        out.append(f"          k_{j + 1} = {keys[j].ljust(width)}   v_{j + 1} = "
                   f"{values[j]}{mark}")
    return out


def _step_text(problem: Problem, step: DecodingStep, n: int, number_format: NumberFormat,
               limit: int | None) -> list[str]:
    t = step.position
    token = f" \"{step.token}\"" if step.token else ""
    out = [f"step {t}: token{token} at position {t}"]
    for lead, (name, values) in zip(("  new     ", "          ", "          "),
                                    _new_vectors(step)):
        out.append(f"{lead}{_source(problem, name, t)} = {_vector(values, number_format)}")
    out.append(f"  cache   K[:{t}], V[:{t}] after appending k_{t}, v_{t} "
               f"({t} row{'s' if t > 1 else ''} each):")
    out += _cache_text(step, number_format, limit)
    out.append(f"  scores  q_{t} . k_j, j = 1..{t}: {_vector(step.scores, number_format)}")
    out.append(f"  weights {_vector(step.weights, number_format)}")
    out.append(f"  output  {_vector(step.output, number_format)}")
    lines = _proof(step, n)
    out.append("  proof   " + lines[0])
    out += ["          " + line for line in lines[1:]]
    out.append(f"  work    {_work_text(step)}")
    out.append("")
    return out


def render_text(problem: Problem, steps: Sequence[DecodingStep], number_format: NumberFormat,
                limit: int | None) -> str:
    """Every decoding step: the new q, k, v, the cache (``limit`` rows), scores, proof."""
    n = len(steps)
    out = heading("KV cache", problem.title)
    out.append(f"causal self-attention decoded one token at a time ({n} tokens"
               f"{_positions_text(problem)}); {_label(number_format)}")
    if problem.positions == "rope":
        out.append("RoPE: each key is cached already rotated to its own position; it never "
                   "changes afterwards")
    out.append("")
    for step in steps:
        out += _step_text(problem, step, n, number_format, limit)
    result, saved = _totals(steps)
    out.append(f"result: {result}")
    out.append(f"K/V rows computed: {saved}")
    return "\n".join(out) + "\n"


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
