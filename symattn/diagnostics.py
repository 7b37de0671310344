"""Diagnostics the documents discuss: entropy of attention rows, saturation."""

from __future__ import annotations

__all__ = ["STAGES"]

STAGES: tuple = ()  # type: ignore[type-arg]
