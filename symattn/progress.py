"""A progress bar on stderr for long runs, shown only on a terminal.

Library code reports work with ``advance(units)`` inside a ``task(total,
label)``; that costs almost nothing when no bar is active. The command line
turns the bar on with ``enabled()``. The bar appears only after a second of
work and only when stderr is a terminal, and is erased when the task ends.
"""

from __future__ import annotations

__all__ = ["enabled", "task", "advance"]

import sys
import time
from contextlib import contextmanager
from typing import Iterator, TextIO

_DELAY = 1.0       # seconds before the bar appears
_INTERVAL = 0.1    # seconds between redraws


class _Bar:
    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.total = 0
        self.done = 0
        self.label = ""
        self.started = 0.0
        self.drawn_at = 0.0
        self.visible = False
        self.muted = 0          # nested tasks open: their units are the outer task's own

    def draw(self, now: float) -> None:
        fraction = min(self.done / self.total, 1.0) if self.total else 0.0
        width = 30
        filled = int(fraction * width)
        elapsed = now - self.started
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] "
                          f"{fraction:4.0%} {elapsed:5.1f}s{remaining(elapsed, fraction)}")
        self.stream.flush()
        self.visible = True
        self.drawn_at = now

    def clear(self) -> None:
        if self.visible:
            self.stream.write("\r" + " " * 80 + "\r")
            self.stream.flush()
            self.visible = False


def remaining(elapsed: float, fraction: float) -> str:
    """The estimated whole time, drawn after the elapsed time (no words: the bar
    is drawn in every language): the rest at the rate so far.

    >>> remaining(10.0, 0.25), remaining(0.5, 0.0), remaining(3.0, 1.0)
    (' / ~40s', '', '')
    """
    if not 0.0 < fraction < 1.0:
        return ""
    total = elapsed / fraction
    return f" / ~{total:.0f}s" if total < 600 else f" / ~{total / 60:.0f}min"


_active: _Bar | None = None
_enabled_stream: TextIO | None = None


@contextmanager
def enabled(stream: TextIO | None = None) -> Iterator[None]:
    """Let tasks draw a bar on ``stream`` (stderr) if it is a terminal."""
    global _enabled_stream, _active
    stream = stream or sys.stderr
    previous = _enabled_stream
    _enabled_stream = stream if stream.isatty() else None
    try:
        yield
    finally:
        # A task cut short (Ctrl-C, an error) inside a generator that is not closed yet:
        # its bar is erased here, before the message that follows is printed.
        if _active is not None:
            _active.clear()
            _active = None
        _enabled_stream = previous


@contextmanager
def task(total: int, label: str) -> Iterator[None]:
    """A unit of long work with ``total`` steps (a task inside another is part of the
    outer one's steps: its own are not counted)."""
    global _active
    if _enabled_stream is None:
        yield
        return
    if _active is not None:
        outer = _active
        outer.muted += 1
        try:
            yield
        finally:
            outer.muted -= 1
        return
    bar = _Bar(_enabled_stream)
    bar.total, bar.label, bar.started = total, label, time.monotonic()
    _active = bar
    try:
        yield
    finally:
        bar.clear()
        _active = None


def advance(units: int = 1) -> None:
    bar = _active
    if bar is None:
        return
    if not bar.muted:
        bar.done += units
    now = time.monotonic()
    if now - bar.started >= _DELAY and now - bar.drawn_at >= _INTERVAL:
        bar.draw(now)
