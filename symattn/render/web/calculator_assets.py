"""The calculator page's stylesheet and its small script, as constants.

The script reads the page's precomputed states from its
``<script type="application/json">`` (``JSON.parse``, never ``eval``) and, when a
control moves, writes the chosen state's numbers into the table with
``textContent``: it computes nothing and fetches nothing. Several calculators may
share one page (each root is a ``[data-symattn-calculator]`` element); each is
set up once.
"""

from __future__ import annotations

__all__ = ["SCRIPT", "STYLE", "SHADES", "MASKED"]

# Weights are shaded in 11 steps, 0 to 1 (class w0 ... w10); a masked key's weight (class
# w-1) is grey and hatched. The number is always written too.
SHADES = 10
MASKED = -1

_SHADE_RULES = "\n".join(
    f".symattn-calculator td.w{k} {{ background: hsl(215, 70%, {97 - 6 * k}%);"
    f"{' color: #fff;' if k >= 6 else ''} }}" for k in range(SHADES + 1))

STYLE = """\
.symattn-calculator { font-family: system-ui, sans-serif; font-size: 1.1rem; line-height: 1.45;
  color: #111; max-width: 64rem; padding: 0.5rem 1rem; }
.symattn-calculator h1, .symattn-calculator h2 { font-size: 1.6rem; margin: 0.4em 0; }
.symattn-calculator .controls { display: grid; gap: 0.6em 1.2em;
  grid-template-columns: minmax(12em, max-content) minmax(10em, 22em) minmax(16em, auto);
  align-items: center; margin: 0.8em 0; }
.symattn-calculator .switch { grid-column: 1 / -1; }
.symattn-calculator input[type=range] { width: 100%; }
.symattn-calculator input[type=checkbox] { width: 1.2em; height: 1.2em; vertical-align: -0.15em;
  margin-right: 0.4em; }
.symattn-calculator output { font-variant-numeric: tabular-nums; font-weight: 600; }
.symattn-calculator :focus-visible { outline: 3px solid #c60; outline-offset: 2px; }
.symattn-calculator .mean { font-size: 1.25rem; }
.symattn-calculator table { border-collapse: collapse; margin: 0.6em 0;
  font-variant-numeric: tabular-nums; }
.symattn-calculator caption { text-align: left; padding-bottom: 0.3em; }
.symattn-calculator th, .symattn-calculator td { border: 1px solid #999; padding: 0.25em 0.5em;
  text-align: right; }
.symattn-calculator th { background: #eee; font-weight: 600; }
.symattn-calculator td.entropy { background: #fff; border-left: 3px solid #555; }
.symattn-calculator td.entropy-max { background: #fff; color: #444; }
.symattn-calculator .grid { font-size: 0.95rem; color: #333; }
.symattn-calculator td.w-1 { color: #555; background: repeating-linear-gradient(
  135deg, #e4e4e4 0 6px, #f4f4f4 6px 12px); }
""" + _SHADE_RULES + "\n"

SCRIPT = """\
(function () {
  "use strict";
  function each(list, action) { Array.prototype.forEach.call(list, action); }
  function setUp(root) {
    if (root.getAttribute("data-ready") === "1") { return; }
    root.setAttribute("data-ready", "1");
    var data = JSON.parse(root.querySelector("script.symattn-calculator-data").textContent);
    function control(name) { return root.querySelector("[data-control=" + name + "]"); }
    function shown(name) { return root.querySelector("[data-shows=" + name + "]"); }
    var t = control("t"), d = control("d"), scaled = control("scaled"), masked = control("masked");
    function update() {
      var on = scaled !== null && scaled.checked;
      var name = (on ? "scaled-" + data.d_ks[Number(d.value)] : "plain") + "-" +
        (masked.checked ? "masked" : "plain");
      var setting = data.settings[name], state = setting.states[Number(t.value)];
      var temperature = data.temperatures[Number(t.value)];
      shown("t").textContent = temperature;
      t.setAttribute("aria-valuetext", "T = " + temperature);
      if (d !== null) {
        var scale = on ? data.scales[Number(d.value)] : data.scale_off;
        shown("d").textContent = scale;
        d.setAttribute("aria-valuetext", scale);
      }
      each(root.querySelectorAll("td[data-i]"), function (cell) {
        var i = Number(cell.getAttribute("data-i")), j = Number(cell.getAttribute("data-j"));
        cell.textContent = state.w[i][j];
        cell.className = "w" + state.c[i][j];
      });
      each(root.querySelectorAll("td[data-h]"), function (cell) {
        cell.textContent = state.h[Number(cell.getAttribute("data-h"))];
      });
      each(root.querySelectorAll("td[data-hmax]"), function (cell) {
        cell.textContent = setting.hmax[Number(cell.getAttribute("data-hmax"))];
      });
      shown("mean").textContent = state.mean;
      shown("mean-max").textContent = setting.mean_max;
    }
    each([t, d, scaled, masked], function (element) {
      if (element !== null) {
        element.addEventListener("input", update);
        element.addEventListener("change", update);
      }
    });
    update();
  }
  each(document.querySelectorAll("[data-symattn-calculator]"), setUp);
})();
"""
