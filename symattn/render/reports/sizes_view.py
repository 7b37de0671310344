"""The sizes of ``symattn sizes`` in the reader's words: symbols, formulas, numbers.

Everything here is LaTeX text of the catalogs' kind (``$...$`` mathematics,
``~`` for a non-breaking space): the LaTeX report prints it as it is, the
text report through ``prose.plain``. Quantities and tensors are named by
their catalog description and a mathematical symbol, never by the names the
code and the JSON give them (``kv_cache_bytes_per_token``); a formula is
written in those symbols, and numbers carry the language's decimal mark and
digit grouping.

>>> from symattn import messages
>>> from symattn.sizes import ModelShape, compute
>>> sizes = compute(ModelShape(4096, 32, 1024))
>>> view = SizesView(messages.load("pl"), ",")
>>> print(view.formula(sizes.quantity("kv_cache_bytes")))
$M_{\\mathrm{KV}} = m_{\\mathrm{KV}} \\cdot T \\cdot B = 16\\,384 \\cdot 1024 \\cdot 1$
>>> view.short("~67.11 MB"), view.short("33.55 million")
('$\\\\approx 67{,}11$~MB', '$33{,}55$~mln')
"""

from __future__ import annotations

__all__ = ["SizesView"]

import re

from symattn.messages import Catalog
from symattn.sizes import ModelShape, Quantity, Tensor
from symattn.sizes.symbols import SYMBOLS, dims_math, tensor_math

_OPERATORS = {"x": r"\cdot", "/": "/", "+": "+", "-": "-"}
_NUMBER = re.compile(r"^(~?)(\d[\d,]*(?:\.\d+)?)\s*(.*)$")
_COUNT_WORDS = ("thousand", "million", "billion", "trillion")


class SizesView:
    """Writes sizes in one catalog's language with one decimal mark (``.`` or ``,``)."""

    def __init__(self, catalog: Catalog, separator: str) -> None:
        self.catalog = catalog
        self.separator = separator

    # ------------------------------------------------------------------ numbers
    def digits(self, text: str) -> str:
        """A number as the code writes it ("33,554,432", "67.11") as mathematics
        (no dollars): grouped by a comma in English, a thin space elsewhere."""
        whole, _, fraction = text.replace(",", "").partition(".")
        group = "{,}" if self.separator == "." else r"\,"
        grouped = f"{int(whole):,}".replace(",", group) if len(whole) > 4 else whole
        mark = "{.}" if self.separator == "." else "{,}"
        return grouped + (mark + fraction if fraction else "")

    def integer(self, value: int) -> str:
        return f"${self.digits(str(value))}$"

    def short(self, text: str) -> str:
        """A short size as ``symattn.sizes.printing`` writes it ("~67.11 MB", "40%",
        "33.55 million") in the reader's words."""
        found = _NUMBER.match(text)
        if found is None:
            return text
        about, digits, unit = found.groups()
        math = ("\\approx " if about else "") + self.digits(digits)
        if unit == "%":                 # 25% in English, 25 % with a decimal comma
            return f"${math}" + ("\\%$" if self.separator == "." else "\\,\\%$")
        if unit in _COUNT_WORDS:
            unit = self.catalog.text(f"sizes.{unit}")
        return f"${math}$" + (f"~{unit}" if unit else "")

    def human(self, quantity: Quantity) -> str:
        """The quantity's readable form ("64 MiB = 67.11 MB"), "" when it has none."""
        text = ""
        for part in quantity.human().split(" = "):
            joint = " " if part.startswith("~") else " $=$ "
            text += (joint if text else "") + self.short(part)
        return text

    def value(self, quantity: Quantity) -> str:
        if not quantity.integral:
            return f"${quantity.exact}$"
        return self.integer(int(quantity.value)) + ("~B" if quantity.kind == "bytes" else "")

    # ------------------------------------------------------------------ words
    def what(self, quantity: Quantity) -> str:
        return self.catalog.text(f"sizes.quantity.{quantity.name}")

    def formula(self, quantity: Quantity) -> str:
        """``symbol = formula in symbols = formula with the numbers``, as mathematics."""
        def term(token: str, numbers: bool) -> str:
            if token in _OPERATORS:
                return _OPERATORS[token]
            base, caret, power = token.partition("^")
            shown = self.digits(base) if numbers or base.isdigit() else SYMBOLS[base]
            return shown + (f"^{{{power}}}" if caret else "")

        symbols = " ".join(term(t, False) for t in quantity.formula.split())
        numbers = " ".join(term(t, True) for t in quantity.substituted.split())
        same = symbols == numbers
        return f"${SYMBOLS[quantity.name]} = {symbols}" + ("" if same else f" = {numbers}") + "$"

    def tensor_symbol(self, tensor: Tensor) -> str:
        return f"${tensor_math(tensor.name)}$"

    def dims(self, tensor: Tensor) -> str:
        return f"${dims_math(tensor.dims)}$"

    def shape_text(self, shape: ModelShape) -> str:
        """The shape in one sentence: "model width d_model = 4096, ...; with biases."."""
        c, n = self.catalog, self.digits
        parts = [c.fill("sizes.model", n=n(str(shape.d_model))),
                 c.fill("sizes.heads", n=n(str(shape.heads)), width=n(str(shape.head_dim)))]
        if shape.kv != shape.heads:
            parts.append(c.fill("sizes.kv_heads", n=n(str(shape.kv))))
        parts += [c.fill("sizes.seq_len", n=n(str(shape.seq_len))),
                  c.fill("sizes.batch", n=n(str(shape.batch))),
                  c.fill("sizes.layers", n=n(str(shape.layers))),
                  c.fill("sizes.d_ff", n=n(str(shape.ff)))]
        if shape.vocab:
            parts.append(c.fill("sizes.vocab", n=n(str(shape.vocab))))
        parts.append(c.fill("sizes.dtype", dtype=shape.dtype, bytes=str(shape.bytes_per_element)))
        if shape.bias:
            parts.append(c.text("sizes.bias"))
        text = "; ".join(parts)
        return text[:1].upper() + text[1:] + "."
