"""When the garbage collector may stall the UI.

Textual, Rich and the engine leave a large, long-lived heap, and a full collection walks all of
it: 100-200 ms on the UI thread, several times per streamed reply. So the start-up heap is
frozen once (never collected: it lives as long as the app), and while a turn runs full
collections are held off. Young collections keep running: switching the collector off for the
turn instead left every object the turn made in the youngest generation, and the one collection
when it was switched back on took ~0.5 s, after the reply's last line and before the turn could
be shown finished.
"""

from __future__ import annotations

import gc

_NORMAL = gc.get_threshold()
_HELD = 1_000_000_000  # young collections between full ones: never, within a turn


def freeze_startup_objects() -> None:
    """Collect the garbage start-up left in the young generations, then move the rest out of the
    collector's sight.

    Only the young generations: a full collection here walked the whole heap (90-250 ms on the
    UI thread just after the first frame, when the user starts typing) to free ~2,500 more
    objects, which now stay frozen (well under a megabyte, for the life of the app).
    """
    gc.collect(1)
    gc.freeze()


def hold_full_collections() -> None:
    """From now on only the young generations are collected (idempotent)."""
    gc.set_threshold(_NORMAL[0], _NORMAL[1], _HELD)


def release_full_collections() -> None:
    """Back to the interpreter's thresholds: a full collection comes when its own rule says so."""
    gc.set_threshold(*_NORMAL)
