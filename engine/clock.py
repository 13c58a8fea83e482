"""The one source of "now" for the engine, so tests can pin time."""

from __future__ import annotations

import time
from typing import Callable

_now: Callable[[], float] = time.time


def now() -> float:
    """Seconds since the epoch (UTC), from the installed clock."""
    return _now()


def set_clock(fn: Callable[[], float] | None) -> None:
    """Install a clock (tests: a fixed one); ``None`` restores the real clock."""
    global _now
    _now = fn or time.time
