"""When a kept browser may open as it was left instead of reading its data again.

What it shows was read from the store, with times relative to the moment of reading ("5 minutes
ago"): it is still right while nothing was written since (``SessionDB.change_mark``) and within
the same minute.
"""

from __future__ import annotations

from engine import clock
from engine.store import SessionDB

RELATIVE_TIME_S = 60  # the finest step of a relative time that moves ("just now", "2 minutes ago")


def read_mark(db: SessionDB) -> tuple[object, int] | None:
    """A value equal to an earlier one only if nothing was written and the minute is the same;
    ``None`` (never equal to a kept mark) when the store could not say at once."""
    mark = db.change_mark()
    return None if mark is None else (mark, int(clock.now() // RELATIVE_TIME_S))
