"""The calculator's precomputed states as the page's JSON data: certified decimals as text.

Every number is written by ``render.reports.shared.decimal`` (the one formatter
``symattn sweep`` uses too), so the page shows the sweep's digits; the shade of
a weight's cell is its value rounded to tenths, also from the exact value.
"""

from __future__ import annotations

__all__ = ["calculator_data", "state_data", "script_json", "temperature_text"]

import json
from typing import Any

from flint import fmpq

from symattn.explore.calculator import Calculator
from symattn.explore.sweep import Sweep, SweepRow
from symattn.render.reports.shared import decimal
from symattn.render.web.calculator_assets import MASKED, SHADES
from symattn.values.exact import Exact
from symattn.values.number_format import NumberFormat

_TENTHS = NumberFormat(digits=None, places=1, locale="en")


def _shade(weight: Exact) -> int:
    """0 to 10 by the weight's tenths; -1 for a weight exactly 0 (a masked key: an
    exponential is never 0, so only a mask makes a weight exactly 0)."""
    if isinstance(weight, fmpq) and weight == 0:
        return MASKED
    text = _TENTHS.format(weight)
    if text is None:
        return 0
    tenths = int(text.replace(".", "").lstrip("-") or "0")
    return max(0, min(SHADES, tenths))


def state_data(row: SweepRow, fmt: NumberFormat) -> dict[str, Any]:
    """One state: the weights (``w``), their shades (``c``), the entropies and their mean."""
    return {"w": [[decimal(w, fmt) for w in weights] for weights in row.weights],
            "c": [[_shade(w) for w in weights] for weights in row.weights],
            "h": [decimal(h, fmt) for h in row.entropy],
            "mean": decimal(row.mean_entropy, fmt)}


def _setting_data(result: Sweep, mean_max: Exact, fmt: NumberFormat) -> dict[str, Any]:
    return {"hmax": [decimal(h, fmt) for h in result.entropy_max],
            "mean_max": decimal(mean_max, fmt),
            "states": [state_data(row, fmt) for row in result.rows]}


def temperature_text(written: str, fmt: NumberFormat) -> str:
    """A temperature as written, with the page's decimal mark when it is a plain decimal.

    >>> temperature_text("0.3", NumberFormat(locale="pl")), temperature_text("1/2", NumberFormat())
    ('0,3', '1/2')
    """
    plain = written.replace(".", "", 1).isdigit()
    return written.replace(".", fmt.separator) if plain else written


def calculator_data(calc: Calculator, fmt: NumberFormat, scale_words: list[str],
                    scale_off: str) -> dict[str, Any]:
    """The page's data: the temperatures and scales as shown, and every state by setting."""
    return {"temperatures": [temperature_text(t.text, fmt) for t in calc.temperatures],
            "d_ks": list(calc.d_ks), "scales": scale_words, "scale_off": scale_off,
            "settings": {setting.name: _setting_data(result, mean_max, fmt)
                         for setting, result, mean_max in
                         zip(calc.settings, calc.sweeps, calc.mean_entropy_max)}}


def script_json(data: Any) -> str:
    """JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&``
    (so no ``</script>`` or ``<!--`` can end it early)."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
