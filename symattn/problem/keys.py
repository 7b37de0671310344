"""Every key a spec may hold, as a path: ``options.mask``, ``ffn.W_1``, ``claims.<claim>``.

The keys of each table are the tuples the reader checks that table against
(an unknown key is an error naming the closest known one), so a key the
reader learns is a key listed here; ``SPEC_TABLES`` says only which key holds
which table. A part in angle brackets stands for keys the reader does not
list: a claim (``claims.<claim>``: any key, judged by ``verify``), the name
of an input given (``inputs_printed.<input>``), a key of ``[options]``
(``variants.options.<option>``), a symbol of the spec
(``symbols.subs.<symbol>``) and a claim's label (``labels.<label>``).
``compare`` and ``variants`` may be a list of tables (``[[compare]]``):
``compare.kind`` is the key of each.

docs/spec-format.md documents every key (tests/test_spec_format_doc.py holds
the two to each other).

>>> keys = spec_keys()
>>> "options.mask" in keys, "ffn.W_1" in keys, "inputs.inputs_printed.<input>" in keys
(True, True, True)
>>> [key for key in keys if key.startswith("symbols.")]
['symbols.limits', 'symbols.derivative', 'symbols.subs', 'symbols.subs.<symbol>']
"""

from __future__ import annotations

__all__ = ["CLAIM", "INPUT", "LABEL", "OPTION", "SYMBOL", "SPEC_TABLES", "spec_keys"]

from typing import Iterator

from symattn.problem.comparisons import COMPARE_KEYS
from symattn.problem.layer_config import FFN_KEYS, READOUT_KEYS, VOCABULARY_KEYS
from symattn.problem.options import OPTION_NAMES
from symattn.problem.read import DIAGNOSTICS, INPUT_NAMES, INSIDE_INPUTS, TOP_LEVEL_NAMES
from symattn.problem.symbols import SYMBOL_KEYS
from symattn.problem.variants import VARIANT_KEYS

CLAIM, INPUT, OPTION, SYMBOL = "<claim>", "<input>", "<option>", "<symbol>"
LABEL = "<label>"

# Each table of a spec by its path ("" is the top level), with the keys it may hold.
SPEC_TABLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("", TOP_LEVEL_NAMES),
    ("inputs", INPUT_NAMES + INSIDE_INPUTS),
    ("inputs.inputs_printed", (INPUT,)),
    ("options", OPTION_NAMES),
    ("claims", (CLAIM,)),
    ("vocabulary", VOCABULARY_KEYS),
    ("ffn", FFN_KEYS),
    ("readout", READOUT_KEYS),
    ("diagnostics", DIAGNOSTICS),
    ("compare", COMPARE_KEYS),
    ("variants", VARIANT_KEYS),
    ("variants.options", (OPTION,)),
    ("variants.claims", (CLAIM,)),
    ("inputs_printed", (INPUT,)),
    ("symbols", SYMBOL_KEYS),
    ("symbols.subs", (SYMBOL,)),
    ("labels", (LABEL,)),
)


def spec_keys() -> tuple[str, ...]:
    """Every key path a spec may hold, each table's keys right after the key holding it."""
    tables = dict(SPEC_TABLES)

    def walk(path: str) -> Iterator[str]:
        for key in tables[path]:
            full = f"{path}.{key}" if path else key
            yield full
            if full in tables:
                yield from walk(full)

    return tuple(walk(""))
