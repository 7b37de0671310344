"""Pausing Python's cyclic garbage collector around work that makes many objects and
keeps them all (a check's verdicts, a large derivation's steps and texts).

>>> import gc
>>> with uncollected():
...     gc.isenabled()
False
"""

from __future__ import annotations

__all__ = ["uncollected"]

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def uncollected() -> Iterator[None]:
    """No cyclic garbage collection inside: a check makes tens of thousands of small
    objects (claims, verdicts, reasons) and keeps them all, so the collector's passes
    over the growing heap find nothing and cost as much as the judging itself. The
    collector is back on (if it was on) when the block ends, with the objects made
    inside counted as old (``freeze`` then ``unfreeze`` moves every object to the oldest
    generation without a pass): the next full collection looks at them, as usual, but
    no young-generation pass walks them all at once."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
