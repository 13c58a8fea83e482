"""When the garbage collector may stall the UI.

Textual, Rich and the engine leave a large, long-lived heap, and a full collection walks all of
it: 100-200 ms on the UI thread, several times per streamed reply. So the start-up heap is
frozen once (never collected: it lives as long as the app), and while a turn runs full
collections are held off. Young collections keep running: switching the collector off for the
turn instead left every object the turn made in the youngest generation, and the one collection
when it was switched back on took ~0.5 s, after the reply's last line and before the turn could
be shown finished.

Browsing is held the same way: in a browser over a large home a full collection came every few
selections or keystrokes, and made the slowest tree opens, previews and searches (a 112 ms pause
each, on the 200k-message home). There the collection the interpreter would have run is made
up for when the user pauses (``collect_held_garbage``), so a long stay keeps no garbage.
Reading back through a long chat is held alike: each page of older messages mounted brought a
full collection every few page-ups (60-140 ms each, over a 5,000-message session).
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


TURN, BROWSING, READING = "turn", "browsing", "reading back"  # why full collections are held
_holders: set[str] = set()


def hold_full_collections(reason: str) -> None:
    """From now on only the young generations are collected, until every reason is released."""
    _holders.add(reason)
    gc.set_threshold(_NORMAL[0], _NORMAL[1], _HELD)


def release_full_collections(reason: str | None = None) -> None:
    """``reason`` no longer holds full collections (``None``: no reason does); when none does, the
    interpreter's thresholds are back and a full collection comes when its own rule says so."""
    if reason is None:
        _holders.clear()
    else:
        _holders.discard(reason)
    if not _holders:
        gc.set_threshold(*_NORMAL)


def collect_held_garbage() -> bool:
    """When browsing or reading back holds full collections and one is due by the interpreter's
    rule (as many young collections since the last full one as its threshold), run it now; for a
    pause in the user's input. Never during a turn: that hold is for frames that are streaming."""
    if _holders and TURN not in _holders and gc.get_count()[2] >= _NORMAL[2]:
        gc.collect()
        return True
    return False
