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
The end of a turn too: released when the worker returned, the held collection ran at once
(160-340 ms), between the footer's new keys and the frame that draws them; it now waits for the
pause like the others. Reading back through a long chat is held alike: each page of older
messages mounted brought a full collection every few page-ups (60-140 ms each, over a
5,000-message session).
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


# Why full collections are held: a turn streams; a browser is open; the chat is scrolled back; a
# turn ended and its collection waits for a pause.
TURN, BROWSING, READING, AFTER_TURN = "turn", "browsing", "reading back", "after a turn"
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
    """For a pause in the user's input: when full collections are held and one is due by the
    interpreter's rule (as many young collections since the last full one as its threshold), run
    it now, and let go of the hold left by a finished turn. Never during a turn: that hold is for
    frames that are streaming."""
    if not _holders or TURN in _holders:
        return False
    due = gc.get_count()[2] >= _NORMAL[2]
    if due:
        gc.collect()
    release_full_collections(AFTER_TURN)
    return due
