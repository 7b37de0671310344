"""Lay out check reports as text, Markdown or JSON (the JSON schema is stable).

JSON: ``{"symattn": version, "reports": [{"title", "source", "rounding",
"summary": {"ok", "propagated", "wrong", "undecided"}, "claims": [{"step",
"position", "label", "printed", "exact", "exact_decimal", "exact_rounded",
"recomputed", "verdict", "flags", "reason", "carried_from", "carried_wrong"}]}]}``.
"""

from __future__ import annotations

__all__ = ["report_text", "report_markdown", "report_json"]

import json
from typing import Sequence

from symattn._version import __version__
from symattn.verify.verdicts import Report, Verdict

MARKS = {"ok": "ok", "propagated": "propagated", "wrong": "WRONG", "undecided": "undecided"}


def _where(verdict: Verdict) -> str:
    return verdict.position + (f" @ {verdict.label}" if verdict.label else "")


def _summary(report: Report) -> str:
    counts = report.counts
    parts = [f"{counts[name]} {name}" for name in ("ok", "propagated", "wrong") ]
    if counts["undecided"]:
        parts.append(f"{counts['undecided']} undecided")
    return ", ".join(parts)


def _heading(report: Report) -> str:
    title = report.title or report.source or "spec"
    source = f" ({report.source})" if report.source and report.title else ""
    return f"{title}{source}"


def report_text(reports: Sequence[Report]) -> str:
    out = []
    for report in reports:
        heading = _heading(report)
        out += [heading, "=" * len(heading),
                f"rounding: {report.rounding.value}; {len(report.verdicts)} printed numbers: "
                f"{_summary(report)}", ""]
        rows = [("where", "printed", "exact", "verdict", "reason")]
        for v in report.verdicts:
            verdict = MARKS[v.verdict] + (f" [{', '.join(v.flags)}]" if v.flags else "")
            rows.append((_where(v), v.printed, v.exact_rounded, verdict, v.reason))
        widths = [max(len(row[c]) for row in rows) for c in range(4)]
        for row in rows:
            out.append("  ".join(cell.ljust(widths[c]) for c, cell in enumerate(row[:4]))
                       + "  " + row[4])
        out.append("")
    return "\n".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("*", "\\*").replace("_", "\\_")


def report_markdown(reports: Sequence[Report]) -> str:
    out = []
    for report in reports:
        out += [f"## {_md(_heading(report))}", "",
                f"Rounding: {report.rounding.value}. {len(report.verdicts)} printed numbers: "
                f"{_summary(report)}.", "",
                "| where | printed | exact, rounded | verdict | reason |",
                "|---|---|---|---|---|"]
        for v in report.verdicts:
            verdict = f"**{MARKS[v.verdict]}**" if v.verdict == "wrong" else MARKS[v.verdict]
            if v.flags:
                verdict += f" ({', '.join(v.flags)})"
            out.append(f"| `{_where(v)}` | {_md(v.printed)} | {_md(v.exact_rounded)} | "
                       f"{verdict} | {_md(v.reason)} |")
        out.append("")
    return "\n".join(out)


def _claim_json(v: Verdict) -> dict[str, object]:
    return {"step": v.step, "position": v.position, "label": v.label, "printed": v.printed,
            "exact": v.exact, "exact_decimal": v.exact_decimal,
            "exact_rounded": v.exact_rounded, "recomputed": v.recomputed,
            "verdict": v.verdict, "flags": list(v.flags), "reason": v.reason,
            "carried_from": list(v.carried_from), "carried_wrong": list(v.carried_wrong)}


def report_json(reports: Sequence[Report]) -> str:
    document = {"symattn": __version__, "reports": [{
        "title": r.title, "source": r.source, "rounding": r.rounding.value,
        "summary": r.counts, "claims": [_claim_json(v) for v in r.verdicts]}
        for r in reports]}
    return json.dumps(document, ensure_ascii=False, indent=1) + "\n"
