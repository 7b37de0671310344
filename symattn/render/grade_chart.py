"""The class chart of ``symattn grade``: a bar per slip, how many answers it was named for.

Drawn with matplotlib (the ``plot`` extra) without pyplot, as PNG or SVG; the
same grading gives the same bytes (no date in the file, fixed SVG ids). The
slips' names and the axis are in the key's language.
"""

from __future__ import annotations

__all__ = ["slip_chart", "CHART_FORMATS"]

import io

from symattn import messages
from symattn.errors import FigureError
from symattn.render.figure import PLOT_HINT
from symattn.render.grading import slip_name
from symattn.render import prose
from symattn.worksheets.grading import Grading

CHART_FORMATS = ("png", "svg")


def slip_chart(grading: Grading, image_format: str) -> bytes:
    """The chart as the bytes of a PNG or SVG file (``image_format``)."""
    try:
        import matplotlib
        from matplotlib.figure import Figure
        from matplotlib.ticker import MaxNLocator
    except ImportError:
        raise FigureError(f"cannot draw the class chart: {PLOT_HINT}") from None
    catalog = messages.load(grading.key.language)
    counts = grading.slip_counts()
    names = [slip_name(catalog, slip) for slip, _, _ in counts][::-1]
    values = [answers for _, answers, _ in counts][::-1]
    figure = Figure(figsize=(8.0, 1.6 + 0.45 * max(len(names), 1)))
    ax = figure.subplots()
    ax.barh(range(len(names)), values, color="#0969da")
    ax.set_yticks(range(len(names)), labels=names)
    ax.set_xlabel(prose.plain(catalog.text("grade.chart_axis")))
    ax.set_title(prose.plain(catalog.text("grade.chart_title")))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for k, value in enumerate(values):
        ax.text(value, k, f" {value}", va="center")
    if not names:
        ax.set_yticks([])
        ax.text(0.5, 0.5, prose.plain(catalog.text("grade.no_slips")), ha="center",
                va="center", transform=ax.transAxes)
    figure.tight_layout()
    out = io.BytesIO()
    metadata = {"Date": None} if image_format == "svg" else {"Software": None}
    with matplotlib.rc_context({"svg.hashsalt": "symattn", "svg.fonttype": "path"}):
        figure.savefig(out, format=image_format, dpi=100, metadata=metadata)
    return out.getvalue()
