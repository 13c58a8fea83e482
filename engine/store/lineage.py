"""Lineage = sessions linked by ``parent_session_id`` (compression continuations and branches).

A compression continuation is a child of a session that ended with ``end_reason='compression'``;
the *tip* is reached by following the newest such child until a session was not compressed.
Every walk carries a visited set, so a cycle in hand-edited data cannot loop forever.
A lineage only ever grows at its tip; a process whose view of it went stale is told where the
tip is now (``LineageMoved``) instead of forking it.
"""

from __future__ import annotations

import sqlite3
from typing import Collection

from engine.errors import RefusedError


class LineageMoved(RefusedError):
    """Another process continued a session after this one read it; ``tip`` is where it stands now."""

    def __init__(self, message: str, tip: str) -> None:
        super().__init__(message)
        self.tip = tip

_UP = """
WITH RECURSIVE up(start, id, parent, depth) AS (
    SELECT id, id, parent_session_id, 0 FROM sessions WHERE id IN ({marks})
    UNION ALL
    SELECT up.start, s.id, s.parent_session_id, up.depth + 1
    FROM up JOIN sessions s ON s.id = up.parent WHERE up.depth < 1000
)
SELECT start, id FROM up ORDER BY start, depth"""

_DOWN = """
WITH RECURSIVE down(id, depth) AS (
    SELECT ?, 0
    UNION
    SELECT s.id, down.depth + 1 FROM down JOIN sessions s ON s.parent_session_id = down.id
    WHERE down.depth < 1000
)
SELECT down.id FROM down JOIN sessions s ON s.id = down.id ORDER BY down.depth, s.started_at, s.id"""

_NEWEST_CONTINUATION = """
SELECT c.id FROM sessions p JOIN sessions c ON c.parent_session_id = p.id
WHERE p.id = ? AND p.end_reason = 'compression'
ORDER BY c.started_at DESC, c.rowid DESC LIMIT 1"""


def roots_of(conn: sqlite3.Connection, session_ids: Collection[str]) -> dict[str, str]:
    """Lineage root of each id in one query (an id whose parent row is gone is its own root)."""
    if not session_ids:
        return {}
    ids = list(dict.fromkeys(session_ids))
    roots: dict[str, str] = {}
    for start, sid in conn.execute(_UP.format(marks=",".join("?" * len(ids))), ids):
        roots[start] = sid  # rows come ordered by depth: the last one is the root
    return roots


def descendants(conn: sqlite3.Connection, root: str) -> list[str]:
    """``root`` and everything below it, breadth first, oldest first within a level."""
    return [row[0] for row in conn.execute(_DOWN, (root,))]


def compression_tip(conn: sqlite3.Connection, session_id: str) -> str:
    seen = {session_id}
    current = session_id
    while True:
        row = conn.execute(_NEWEST_CONTINUATION, (current,)).fetchone()
        if row is None or row[0] in seen:
            return current
        current = row[0]
        seen.add(current)
