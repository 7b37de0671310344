"""``symattn kvcache``: causal self-attention decoded one token at a time.

Shows the cache of keys and values growing, each new query's scores against
the cached keys, its weights and output row, and the proof that the row
equals the full causal computation exactly (``symattn.explore.kvcache``). Module-level
imports stay light: this module is imported for ``symattn --help``.
"""

from __future__ import annotations

__all__ = ["register"]

import argparse
from typing import Any

from symattn.defaults import ROWS_SHOWN
from symattn.cli.options import (EXIT_INTERNAL, EXIT_OK, add_limit_option, add_number_options,
                         add_source, load_one, number_format_of, spec_sources, write_output)

EPILOG = """\
examples:
  symattn kvcache --example 000-cat-chases-mouse
  symattn kvcache my.toml --places 3
  symattn kvcache my.toml --format json
  symattn kvcache my.toml --format latex -o kvcache.tex --pdf

The spec must be causal self-attention (options.mask = "causal", one query per
key, X with W_Q, W_K, W_V or Q, K, V; positions none, sinusoidal or rope).
Exit status 0 when every step is proved equal to the full computation, 2 for
unusable input, 3 if a step could not be proved (a bug in symattn).
"""


def register(subparsers: Any) -> dict[str, Any]:
    parser = subparsers.add_parser(
        "kvcache", help="decode one token at a time with a KV cache, proved exact",
        description="Incremental decoding of causal self-attention with a key/value cache: "
                    "the cache growing, each new query's scores, weights and output, each "
                    "output row proved equal to the full causal computation, and the K/V "
                    "rows the cache saves.",
        formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG)
    add_source(parser)
    add_limit_option(parser)
    add_number_options(parser)
    parser.add_argument("--max-rows", type=int, default=ROWS_SHOWN, metavar="N",
                        help=f"show at most N cached rows per step (default {ROWS_SHOWN}; "
                             "0 shows all)")
    from symattn.render.reports.shared import add_report_options

    add_report_options(parser)
    return {"kvcache": run}


def run(args: argparse.Namespace) -> int:
    from symattn.explore import kvcache
    from symattn.render.reports import shared as reports

    sources = spec_sources(args)
    problem = load_one(args, "kvcache")
    reports.check_document_options(args)
    number_format = number_format_of(args)
    steps = kvcache.decode(problem)
    limit = None if args.max_rows == 0 else max(args.max_rows, 2)
    if reports.wants_latex(args):
        tex = render_latex(problem, steps, number_format, limit, args.fragment)
        reports.emit(args, tex, reports.spec_stem(sources[0], "kvcache"))
    elif args.format == "json":
        write_output(render_json(problem, steps, number_format), args.output)
    else:
        write_output(render_text(problem, steps, number_format, limit), args.output)
    if not all(step.equal for step in steps):   # pragma: no cover - would be a bug
        import sys

        print("symattn: internal error: a decoding step was not proved equal to the full "
              "computation (this is a bug in symattn; please report it)", file=sys.stderr)
        return EXIT_INTERNAL
    return EXIT_OK


def _cells(values: Any, number_format: Any) -> list[str]:
    from symattn.values.exact import exact_text

    cells = []
    for value in values:
        text = number_format.format(value)
        cells.append(text if text is not None else exact_text(value))
    return cells


def _vector(values: Any, number_format: Any) -> str:
    return "[" + ", ".join(_cells(values, number_format)) + "]"


def _label(number_format: Any) -> str:
    fmt = number_format
    digits = f"{fmt.places} places" if fmt.places is not None \
        else f"{fmt.digits} significant digits"
    return f"decimal, {digits}, {fmt.rounding.value}"


def _source(problem: Any, name: str, t: int) -> str:
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


def _source_latex(problem: Any, name: str, t: int) -> tuple[str, str]:
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


def _positions_text(problem: Any) -> str:
    return "" if problem.positions == "none" else \
        f", positions {problem.positions} (base {problem.position_base})"


def _totals(steps: Any) -> tuple[str, str]:
    """The closing lines: the result and the K/V rows the cache saved."""
    from symattn.explore import kvcache

    n = len(steps)
    with_cache, without = kvcache.work_saved(steps)
    proved = sum(step.equal for step in steps)
    result = f"all {n} output rows equal the full causal computation exactly" if proved == n \
        else f"only {proved} of {n} output rows were proved equal"
    return result, (f"{with_cache} with the cache, {without} without ({without - with_cache} "
                    f"saved: 2n = {with_cache} instead of n(n+1) = {without})")


def _work_text(step: Any) -> str:
    t = step.position
    tokens = "token 1" if t == 1 else f"tokens 1..{t}"
    return (f"{step.kv_rows} K/V rows computed (k_{t}, v_{t}); without the cache "
            f"{step.kv_rows_without} (K and V of {tokens} again)")


def render_latex(problem: Any, steps: Any, number_format: Any, limit: int | None,
                 fragment: bool = False) -> str:
    """templates/report_kvcache.tex.j2: each step's cache, scores, weights, output, proof."""
    from symattn.render.reports.shared import render, text, vector
    from symattn.render.view import shown_indices

    n = len(steps)
    doc_steps = []
    for step in steps:
        t = step.position
        cache = []
        shown = shown_indices(t, limit)
        for r, j in enumerate(shown):
            cache.append({"elided": r > 0 and j != shown[r - 1] + 1, "index": str(j + 1),
                          "key": vector(_cells(step.cached_keys[j], number_format)),
                          "value": vector(_cells(step.cached_values[j], number_format)),
                          "new": j == t - 1})
        scaled = _cells(step.scaled, number_format)
        scores = _cells(step.scores, number_format)
        doc_steps.append({
            "position": str(t), "token": text(step.token),
            "new": [dict(zip(("lhs", "made"), _source_latex(problem, name, t)),
                         vector=vector(_cells(getattr(step, field), number_format)))
                    for name, field in (("Q", "query"), ("K", "key"), ("V", "value"))],
            "rows": "1 row" if t == 1 else f"{t} rows", "cache": cache,
            "scores": vector(scores), "scaled": vector(scaled) if scaled != scores else "",
            "weights": vector(_cells(step.weights, number_format)),
            "output": vector(_cells(step.output, number_format)),
            "proof": [text(line) for line in _proof(step, n)],
            "work": text(_work_text(step))})
    result, saved = _totals(steps)
    doc = {"title": text(problem.title), "count": str(n),
           "positions": text(_positions_text(problem)),
           "numbers": text(_label(number_format)), "rope": problem.positions == "rope",
           "steps": doc_steps, "result": text(result), "saved": text(saved)}
    return render("kvcache", doc, fragment)


def render_text(problem: Any, steps: Any, number_format: Any, limit: int | None) -> str:
    from symattn.render.view import shown_indices

    n = len(steps)
    out = []
    title = f"KV cache: {problem.title}" if problem.title else "KV cache"
    out += [title, "=" * len(title)]
    positions = _positions_text(problem)
    out.append(f"causal self-attention decoded one token at a time ({n} tokens{positions}); "
               f"{_label(number_format)}")
    if problem.positions == "rope":
        out.append("RoPE: each key is cached already rotated to its own position; it never "
                   "changes afterwards")
    out.append("")
    for step in steps:
        t = step.position
        token = f" \"{step.token}\"" if step.token else ""
        out.append(f"step {t}: token{token} at position {t}")
        out.append(f"  new     {_source(problem, 'Q', t)} = {_vector(step.query, number_format)}")
        out.append(f"          {_source(problem, 'K', t)} = {_vector(step.key, number_format)}")
        out.append(f"          {_source(problem, 'V', t)} = {_vector(step.value, number_format)}")
        out.append(f"  cache   K[:{t}], V[:{t}] after appending k_{t}, v_{t} "
                   f"({t} row{'s' if t > 1 else ''} each):")
        keys = [_vector(k, number_format) for k in step.cached_keys]
        values = [_vector(v, number_format) for v in step.cached_values]
        shown = shown_indices(t, limit)
        width = max(len(k) for k in keys)
        for r, j in enumerate(shown):
            if r > 0 and j != shown[r - 1] + 1:
                out.append("          ...")
            mark = "   <- new" if j == t - 1 else ""
            out.append(f"          k_{j + 1} = {keys[j].ljust(width)}   v_{j + 1} = "
                       f"{values[j]}{mark}")
        out.append(f"  scores  q_{t} . k_j, j = 1..{t}: {_vector(step.scores, number_format)}")
        out.append(f"  weights {_vector(step.weights, number_format)}")
        out.append(f"  output  {_vector(step.output, number_format)}")
        lines = _proof(step, n)
        out.append("  proof   " + lines[0])
        out += ["          " + line for line in lines[1:]]
        out.append(f"  work    {_work_text(step)}")
        out.append("")
    result, saved = _totals(steps)
    out.append(f"result: {result}")
    out.append(f"K/V rows computed: {saved}")
    return "\n".join(out) + "\n"


def _keys(first: int, last: int) -> str:
    return f"key {first}" if first == last else f"keys {first}..{last}"


def _proof(step: Any, n: int) -> list[str]:
    """Lines of the proof that the step's output row is the full computation's."""
    from flint import fmpq

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


def render_json(problem: Any, steps: Any, number_format: Any) -> str:
    import json

    from symattn.explore import kvcache
    from symattn._version import __version__
    from symattn.values.exact import exact_text

    def vector(values: Any) -> dict[str, Any]:
        return {"exact": [exact_text(v) for v in values],
                "value": _cells(values, number_format)}

    document_steps = []
    for step in steps:
        document_steps.append({
            "position": step.position, "token": step.token,
            "query": vector(step.query), "key": vector(step.key), "value": vector(step.value),
            "cache_keys": [vector(k) for k in step.cached_keys],
            "cache_values": [vector(v) for v in step.cached_values],
            "scores": vector(step.scores), "scaled": vector(step.scaled),
            "weights": vector(step.weights), "output": vector(step.output),
            "proof": {"scores_equal": step.scores_equal, "masked_after": step.masked_after,
                      "values_equal": step.values_equal, "text_equal": step.text_equal,
                      "equal": step.equal},
            "kv_rows": step.kv_rows, "kv_rows_without_cache": step.kv_rows_without})
    with_cache, without = kvcache.work_saved(steps)
    document = {"symattn": __version__, "title": problem.title,
                "positions": problem.positions, "steps": document_steps,
                "kv_rows": {"with_cache": with_cache, "without_cache": without},
                "equal": all(step.equal for step in steps)}
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
