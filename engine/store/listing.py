"""Reading sessions: the row shape, and "most recently active first" without scanning history.

``last_active`` is ``max(started_at, newest message timestamp)``. Ordering every session by it
would read every message; instead two indexed streams are merged newest-first — each session's
newest message time (``hermes_tui_activity``, one row per session, kept by triggers) and
sessions by start time — and reading stops once enough sessions are found, so a listing costs
the same on a home of 200,000 messages, or with one session of 100,000, as on an empty one.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Iterator, Sequence

from engine.store.models import Session

PREVIEW_CHARS = 200
SESSION_SELECT = f"""
SELECT s.id, s.source, s.title, s.model, s.system_prompt, s.parent_session_id, s.started_at,
       s.ended_at, s.end_reason, COALESCE(s.message_count, 0), COALESCE(s.tool_call_count, 0),
       COALESCE(s.input_tokens, 0), COALESCE(s.output_tokens, 0), COALESCE(s.cache_read_tokens, 0),
       COALESCE(s.cache_write_tokens, 0), COALESCE(s.reasoning_tokens, 0), COALESCE(s.api_call_count, 0),
       s.cwd, s.model_config,
       MAX(s.started_at, COALESCE((SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id), 0)),
       (SELECT substr(m.content, 1, {PREVIEW_CHARS}) FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' ORDER BY m.timestamp, m.id LIMIT 1)
FROM sessions s"""
FIRST_BATCH, MAX_BATCH = 32, 4096


def _model_config(raw: str | None) -> dict[str, Any] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def session_from_row(row: Sequence[Any]) -> Session:
    (sid, source, title, model, prompt, parent, started, ended, reason, msgs, tools, inp, out, cread,
     cwrite, reasoning, api_calls, cwd, model_config, last_active, preview) = row
    return Session(
        id=sid, source=source, title=title, model=model, system_prompt=prompt, parent_session_id=parent,
        started_at=started, ended_at=ended, end_reason=reason, message_count=msgs, tool_call_count=tools,
        input_tokens=inp, output_tokens=out, cache_read_tokens=cread, cache_write_tokens=cwrite,
        reasoning_tokens=reasoning, api_call_count=api_calls, cwd=cwd, last_active=last_active,
        model_config=_model_config(model_config), preview=preview,
    )


def fetch_sessions(conn: sqlite3.Connection, where: str = "", params: Sequence[Any] = ()) -> list[Session]:
    return [session_from_row(r) for r in conn.execute(f"{SESSION_SELECT} {where}", params)]


def _batched(
    conn: sqlite3.Connection, sql: str, params: tuple[Any, ...], first_id: int
) -> Iterator[tuple[float, str]]:
    """Rows of (time, session id) newest first, fetched in pages (keyset on time, then rowid)."""
    cursor_ts, cursor_id, batch = float("inf"), first_id, FIRST_BATCH
    while True:
        rows = conn.execute(sql, (*params, cursor_ts, cursor_ts, cursor_id, batch)).fetchall()
        yield from ((ts, sid) for ts, sid, _ in rows)
        if len(rows) < batch:
            return
        cursor_ts, _, cursor_id = rows[-1]
        batch = min(batch * 4, MAX_BATCH)  # small first pages: a short listing reads little


# The join drops marks of sessions whose row is gone; CROSS JOIN keeps the time index outermost,
# so reading still stops early.
_ACTIVITY_STREAM = """
SELECT a.last_active, a.session_id, a.rowid FROM hermes_tui_activity a CROSS JOIN sessions s ON s.id = a.session_id
WHERE {filter} a.last_active <= ? AND (a.last_active < ? OR a.rowid < ?)
ORDER BY a.last_active DESC, a.rowid DESC LIMIT ?"""
# Rowid ascending within equal times: that is the order the DESC start-time index already has.
_SESSION_STREAM = """
SELECT s.started_at, s.id, s.rowid FROM sessions s
WHERE {filter} s.started_at <= ? AND (s.started_at < ? OR s.rowid > ?)
ORDER BY s.started_at DESC, s.rowid ASC LIMIT ?"""


def recent_session_ids(conn: sqlite3.Connection, *, source: str | None, count: int | None) -> list[str]:
    """Session ids, most recently active first; ``count=None`` means all.

    The first time a session shows up in either stream is its max(started_at, newest message);
    its second appearance (in the other stream) costs one set lookup.
    """
    sql_filter, params = ("", ()) if source is None else ("s.source = ? AND", (source,))
    activity_sql, session_sql = _ACTIVITY_STREAM.format(filter=sql_filter), _SESSION_STREAM.format(filter=sql_filter)
    sessions = _batched(conn, session_sql, params, -(2**63))
    seen: dict[str, None] = {}
    head = next(sessions, None)
    for ts, sid in _batched(conn, activity_sql, params, 2**63 - 1):
        if sid in seen:
            continue
        while head is not None and head[0] > ts:  # sessions started after this message, not yet placed
            seen.setdefault(head[1], None)
            head = next(sessions, None)
        if count is not None and len(seen) >= count:
            break
        seen[sid] = None
        if count is not None and len(seen) >= count:
            break
    while head is not None and (count is None or len(seen) < count):
        seen.setdefault(head[1], None)
        head = next(sessions, None)
    return list(seen)[:count] if count is not None else list(seen)
