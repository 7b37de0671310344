"""A figure of the attention weights: a heatmap for Markdown pages and notebooks.

One panel per weights step (one per head), a row per query and a column per
key, labelled by the tokens when the spec names them, each cell annotated
with its weight in the language's decimal notation. Drawn with matplotlib,
an optional extra (``pip install 'symattn[plot]'``); without it the functions
raise ``FigureError`` saying so. At most ``MAX_SHOWN`` rows and columns are
drawn (the first ones); cells are annotated up to ``ANNOTATED`` of them.

>>> import symattn
>>> derivation = symattn.derive(symattn.load_example("001-softmax-10-2-1"))
>>> panel = weights_panels(derivation)[0]
>>> panel.rows, panel.columns, panel.cells[0]
(('q_1',), ('k_1', 'k_2', 'k_3'), ('1.0', '0.00034', '0.00012'))
"""

from __future__ import annotations

__all__ = ["Panel", "weights_panels", "weights_figure", "save_weights_figure", "PLOT_HINT",
           "MAX_SHOWN", "ANNOTATED", "FORMATS"]

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from symattn import messages
from symattn.derivation.names import split_name
from symattn.derivation.steps import Derivation, Step
from symattn.errors import FigureError, InputError, Location
from symattn.render.worked.labels import Labels
from symattn.values.number_format import NumberFormat

PLOT_HINT = "the figure needs matplotlib: pip install 'symattn[plot]' (or pip install matplotlib)"
MAX_SHOWN = 48
ANNOTATED = 12
FORMATS = (".png", ".svg", ".pdf")


@dataclass(frozen=True)
class Panel:
    """One weights matrix to draw: labels, values and their printed form."""

    title: str                              # "" for a single head, else the head's name
    rows: tuple[str, ...]                   # query labels (tokens or q_i)
    columns: tuple[str, ...]                # key labels (tokens or k_j)
    values: tuple[tuple[float, ...], ...]   # the weights, for the colours
    cells: tuple[tuple[str, ...], ...]      # the weights as annotated, e.g. "0,36"


def weights_panels(derivation: Derivation, locale: str = "en") -> list[Panel]:
    """The weights steps of ``derivation`` as panels (2 significant digits shown)."""
    labels = Labels(derivation, str)
    shown = NumberFormat(digits=2, locale=locale)
    panels = []
    for step in derivation:
        prefix, base = split_name(step.name)
        if base == "weights":
            panels.append(_panel(step, prefix.rstrip("."), labels, shown))
    return panels


def _panel(step: Step, title: str, labels: Labels, shown: NumberFormat) -> Panel:
    """One weights step as a panel."""
    n, m = step.shape
    rows, columns = range(min(n, MAX_SHOWN)), range(min(m, MAX_SHOWN))
    exact = NumberFormat(digits=6)

    def text(i: int, j: int, number_format: NumberFormat) -> str:
        return number_format.format(step.value.exact(i, j)) or "nan"

    return Panel(
        title,
        tuple(labels.token(i, "query") or f"q_{labels.row_label(step.name, i)}" for i in rows),
        tuple(labels.token(j, "key") or f"k_{j + 1}" for j in columns),
        tuple(tuple(float(text(i, j, exact)) for j in columns) for i in rows),
        tuple(tuple(text(i, j, shown) for j in columns) for i in rows))


def _figure_class() -> Any:
    """matplotlib's ``Figure``, which draws without pyplot: the user's backend (a
    notebook's inline one, a window) is never switched."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise FigureError(f"cannot draw the weights: {PLOT_HINT}") from None
    return _shown_inline(Figure)


@functools.lru_cache(maxsize=1)
def _shown_inline(figure: Any) -> Any:
    """``figure``'s class, shown in a notebook as a PNG whether or not pyplot (and with
    it the inline backend) was ever imported there."""
    class WeightsFigure(figure):   # type: ignore[misc]
        def _repr_png_(self) -> bytes:
            from io import BytesIO

            image = BytesIO()
            self.savefig(image, format="png", dpi=100, metadata={"Software": None})
            return image.getvalue()

    return WeightsFigure


def weights_figure(derivation: Derivation, language: str = "en", locale: str | None = None
                   ) -> Any:
    """A matplotlib Figure of the weights (for a notebook: display it, or ``savefig``);
    made without pyplot, so it is not in pyplot's list of open figures."""
    figure_class = _figure_class()
    catalog = messages.load(language)
    panels = weights_panels(derivation, locale or ("en" if language == "en" else language))
    if not panels:
        raise InputError("this spec has no attention weights to draw")
    size = max(max(len(p.columns), len(p.rows)) for p in panels)
    side = min(2.2 + 0.55 * size, 14.0)
    figure = figure_class(figsize=(side * len(panels), side))
    axes = figure.subplots(1, len(panels), squeeze=False)
    for ax, panel in zip(axes[0], panels):
        _draw(ax, panel, catalog)
    figure.tight_layout()
    return figure


def _draw(ax: Any, panel: Panel, catalog: messages.Catalog) -> None:
    image = ax.imshow(panel.values, cmap="Blues", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(panel.columns)), labels=panel.columns, rotation=45, ha="right")
    ax.set_yticks(range(len(panel.rows)), labels=panel.rows)
    ax.set_xlabel(catalog.text("layout.figure_keys"))
    ax.set_ylabel(catalog.text("layout.figure_queries"))
    title = catalog.text("layout.figure_title")
    ax.set_title(f"{title}: {panel.title}" if panel.title else title)
    if len(panel.rows) <= ANNOTATED and len(panel.columns) <= ANNOTATED:
        for i, row in enumerate(panel.cells):
            for j, cell in enumerate(row):
                ax.text(j, i, cell, ha="center", va="center", fontsize=9,
                        color="white" if panel.values[i][j] > 0.6 else "black")
    bar = ax.figure.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
    separator = "," if any("," in cell for row in panel.cells for cell in row) else "."
    bar.ax.yaxis.set_major_formatter(lambda value, _: f"{value:.1f}".replace(".", separator))


def save_weights_figure(derivation: Derivation, path: str | Path, language: str = "en",
                        locale: str | None = None) -> None:
    """The weights as a heatmap image: PNG, SVG or PDF by ``path``'s suffix."""
    target = Path(path)
    if target.suffix.lower() not in FORMATS:
        raise InputError(f"the figure is written as {', '.join(FORMATS)}; give a file name "
                         "with one of these suffixes", Location(file=str(target)))
    figure = weights_figure(derivation, language, locale)
    suffix = target.suffix.lower()
    # no dates or versions in the file: the same weights give the same bytes
    metadata = {"Software": None} if suffix == ".png" else \
        {"Creator": None, "Date": None} if suffix == ".svg" else \
        {"Creator": None, "Producer": None, "CreationDate": None}
    from io import BytesIO

    from symattn.render.files import write_atomically

    image = BytesIO()
    figure.savefig(image, format=suffix[1:], dpi=150, metadata=metadata)
    try:
        write_atomically(target, image.getvalue())     # as -o: devices, links, modes
    except InputError as error:
        raise FigureError(f"cannot write the figure: {error.message}",
                          Location(file=str(target))) from None
