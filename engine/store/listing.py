"""Reading sessions: the row shape, and "most recently active first" without scanning history.

``last_active`` is ``max(started_at, newest message timestamp)``. Ordering every session by it
would read every message; instead two indexed streams are merged newest-first — each session's
newest message time (``hermes_tui_activity``, one row per session, kept by triggers) and
sessions by start time — and reading stops once enough sessions are found, so a listing costs
the same on a home of 200,000 messages, or with one session of 100,000, as on an empty one.
An upstream home not yet written by us has no such table (or lost a trigger that keeps it): it
is then listed by one grouped pass over the messages, slower but in the same order.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Iterator, Sequence

from engine.store.cells import cell_text, readable_time, rows_read_leniently
from engine.store.messages import JSON_PREFIX, decode_content
from engine.store.models import Session
from engine.store.schema import activity_kept
from engine.tokens import content_text

PREVIEW_CHARS = 200
# The newest message time counts only numeric timestamps (``< ''`` is true of numbers alone), so a
# text cell written by another program cannot pose as the newest; it is an index seek either way.
SESSION_SELECT = f"""
SELECT s.id, s.source, s.title, s.model, s.system_prompt, s.parent_session_id, s.started_at,
       s.ended_at, s.end_reason, COALESCE(s.message_count, 0), COALESCE(s.tool_call_count, 0),
       COALESCE(s.input_tokens, 0), COALESCE(s.output_tokens, 0), COALESCE(s.cache_read_tokens, 0),
       COALESCE(s.cache_write_tokens, 0), COALESCE(s.reasoning_tokens, 0), COALESCE(s.api_call_count, 0),
       s.cwd, s.model_config,
       (SELECT MAX(m.timestamp) FROM messages m WHERE m.session_id = s.id AND m.timestamp < ''),
       (SELECT CASE WHEN substr(CAST(m.content AS BLOB), 1, 1) = x'00' THEN m.content
                    ELSE substr(m.content, 1, {PREVIEW_CHARS}) END FROM messages m
         WHERE m.session_id = s.id AND m.role = 'user' ORDER BY m.timestamp, m.id LIMIT 1)
FROM sessions s"""
ROW_FIELDS = ("id", "source", "title", "model", "system_prompt", "parent_session_id", "started_at", "ended_at",
              "end_reason", "message_count", "tool_call_count", "input_tokens", "output_tokens",
              "cache_read_tokens", "cache_write_tokens", "reasoning_tokens", "api_call_count", "cwd",
              "model_config", "newest", "preview")
TEXT_FIELDS = ("id", "source", "title", "model", "system_prompt", "parent_session_id", "end_reason", "cwd",
               "model_config", "preview")
COUNT_FIELDS = ("message_count", "tool_call_count", "input_tokens", "output_tokens", "cache_read_tokens",
                "cache_write_tokens", "reasoning_tokens", "api_call_count")
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
    """A Session from SESSION_SELECT's row; a cell of the wrong type degrades its field, not the listing.

    Another program may write any type into any column; such a field gets a neutral value and
    its name in ``unreadable``, so one bad row is shown as such instead of failing every command.
    """
    cells = dict(zip(ROW_FIELDS, row))
    cells["preview"] = cell_text(cells["preview"])  # a BLOB content's preview comes as bytes
    bad: list[str] = []
    for name in TEXT_FIELDS:
        if cells[name] is not None and not isinstance(cells[name], str):
            cells[name] = str(cells[name]) if name == "id" else ("" if name == "source" else None)
            bad.append(name)
    for name in COUNT_FIELDS:
        if not isinstance(cells[name], int):
            cells[name] = 0
            bad.append(name)
    started, ended, newest = (readable_time(cells.pop(k)) for k in ("started_at", "ended_at", "newest"))
    if started is None:
        bad.append("started_at")
    if ended is None and row[ROW_FIELDS.index("ended_at")] is not None:
        bad.append("ended_at")
    known = [t for t in (started, newest) if t is not None]
    if not known:
        bad.append("last_active")
    model_config = _model_config(cells.pop("model_config"))
    if cells["preview"] and cells["preview"].startswith(JSON_PREFIX):  # structured content, read whole
        cells["preview"] = content_text(decode_content(cells["preview"]))[:PREVIEW_CHARS]
    return Session(
        **cells, started_at=started or 0.0, ended_at=ended, last_active=max(known, default=0.0),
        model_config=model_config, unreadable=tuple(bad),
    )


def fetch_sessions(conn: sqlite3.Connection, where: str = "", params: Sequence[Any] = ()) -> list[Session]:
    return [session_from_row(r) for r in rows_read_leniently(conn, f"{SESSION_SELECT} {where}", params)]


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
    if not activity_kept(conn):
        return _grouped_recent(conn, sql_filter, params, count)
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
    if count is None or len(seen) < count:  # last: sessions whose start time is not a number
        for (sid,) in conn.execute(_UNREADABLE_START.format(filter=sql_filter), params):
            seen.setdefault(sid, None)
    return list(seen)[:count] if count is not None else list(seen)


# Text or a BLOB where a start time belongs sorts after every number, so this is an index range.
_UNREADABLE_START = """
SELECT s.id FROM sessions s WHERE {filter} (s.started_at >= '' OR s.started_at IS NULL) ORDER BY s.rowid DESC"""


# Only numeric times count (``< ''``), as in session_from_row; a session with none sorts last.
_GROUPED = """
SELECT s.id FROM sessions s LEFT JOIN (
    SELECT session_id, MAX(timestamp) AS newest FROM messages WHERE timestamp < '' GROUP BY session_id
) m ON m.session_id = s.id
WHERE {filter} 1
ORDER BY COALESCE(MAX(CASE WHEN s.started_at < '' THEN s.started_at END, m.newest),
                  CASE WHEN s.started_at < '' THEN s.started_at END, m.newest) DESC, s.rowid DESC LIMIT ?"""


def _grouped_recent(conn: sqlite3.Connection, sql_filter: str, params: tuple[Any, ...], count: int | None) -> list[str]:
    """The same order without ``hermes_tui_activity``: every session's newest message, in one pass."""
    sql = _GROUPED.format(filter=sql_filter)
    return [row[0] for row in conn.execute(sql, (*params, -1 if count is None else count))]
