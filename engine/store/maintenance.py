"""Removing sessions (delete, prune, auto-prune), stats, and JSONL export.

Removal never leaves a row pointing at a session that is gone: deleting a session re-points
its children to its own parent (a continuation becomes a root rather than an orphan), and
prune only takes a session when every child of it goes too — so an ended parent of a
conversation still in use is kept. Open sessions are never pruned.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, TextIO

from engine.errors import RefusedError
from engine.security.redact import redact_obj
from engine.store.listing import fetch_sessions, readable_time
from engine.store.messages import ACTIVE, SELECT_COLUMNS, stored_message
from engine.store.models import Session

Redactor = Callable[[str], str]
SECONDS_PER_DAY = 86400.0
UNREADABLE_SOURCE = "(unreadable)"


@dataclass
class Removal:
    """What a delete or prune removes (or would remove): shown before asking, returned after."""

    sessions: list[Session] = field(default_factory=list)
    messages: int = 0
    repointed_children: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "sessions": [s.id for s in self.sessions],
            "messages": self.messages,
            "repointed_children": self.repointed_children,
        }


def _message_total(conn: sqlite3.Connection, ids: list[str]) -> int:
    if not ids:
        return 0
    marks = ",".join("?" * len(ids))
    return int(conn.execute(f"SELECT COUNT(*) FROM messages WHERE session_id IN ({marks})", ids).fetchone()[0])


def delete_plan(conn: sqlite3.Connection, session: Session) -> Removal:
    children = [r[0] for r in conn.execute("SELECT id FROM sessions WHERE parent_session_id = ?", (session.id,))]
    return Removal([session], _message_total(conn, [session.id]), children)


def prune_plan(conn: sqlite3.Connection, *, cutoff: float, source: str | None) -> Removal:
    where = "WHERE s.ended_at IS NOT NULL AND s.ended_at < ?" + (" AND s.source = ?" if source else "")
    params: list[Any] = [cutoff, source] if source else [cutoff]
    candidates = {s.id: s for s in fetch_sessions(conn, where + " ORDER BY s.started_at", params)}
    links = conn.execute("SELECT id, parent_session_id FROM sessions WHERE parent_session_id IS NOT NULL")
    children: dict[str, set[str]] = {}
    for child, parent in links:
        children.setdefault(parent, set()).add(child)
    changed = True
    while changed:  # drop any candidate with a child that stays, until nothing changes
        keep = [sid for sid in candidates if children.get(sid, set()) - candidates.keys()]
        changed = bool(keep)
        for sid in keep:
            del candidates[sid]
    ids = list(candidates)
    return Removal(list(candidates.values()), _message_total(conn, ids))


def remove(conn: sqlite3.Connection, plan: Removal) -> None:
    """Carry out a plan inside the caller's write transaction."""
    for session in plan.sessions:
        conn.execute(
            "UPDATE sessions SET parent_session_id = ? WHERE parent_session_id = ?",
            (session.parent_session_id, session.id),
        )
        conn.execute("DELETE FROM messages WHERE session_id = ?", (session.id,))
        try:
            conn.execute("DELETE FROM sessions WHERE id = ?", (session.id,))
        except sqlite3.IntegrityError as exc:
            raise RefusedError(
                f"session {session.id}: other records still refer to it ({exc}); nothing was deleted."
            ) from exc


def stats(conn: sqlite3.Connection, db_bytes: int) -> dict[str, Any]:
    """Counts and the start-time range; cells of the wrong type (another program's) are not counted as times."""
    sessions = conn.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]
    oldest, newest = conn.execute(  # numbers only: text sorts after them (``< ''``)
        "SELECT MIN(started_at), MAX(started_at) FROM sessions WHERE started_at < ''").fetchone()
    by_source: dict[str, int] = {}
    for source, count in conn.execute("SELECT source, COUNT(*) FROM sessions GROUP BY source ORDER BY COUNT(*) DESC"):
        key = source if isinstance(source, str) else UNREADABLE_SOURCE
        by_source[key] = by_source.get(key, 0) + count
    messages = conn.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
    return {
        "sessions": sessions,
        "messages": messages,
        "by_source": by_source,
        "db_bytes": db_bytes,
        "oldest": readable_time(oldest),
        "newest": readable_time(newest),
    }


def _redact_message(message: dict[str, Any], redact: Redactor) -> dict[str, Any]:
    out = dict(message)
    for key in ("content", "reasoning"):
        if out.get(key) is not None:  # structured content too: every text part is redacted
            out[key] = redact_obj(out[key], redact)
    if out.get("tool_calls"):
        calls = []
        for call in out["tool_calls"]:
            call = json.loads(json.dumps(call))
            fn = call.get("function") if isinstance(call, dict) else None
            if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                fn["arguments"] = redact(fn["arguments"])
            calls.append(call)
        out["tool_calls"] = calls
    return out


def export_lines(conn: sqlite3.Connection, sessions: Iterable[Session], redact: Redactor | None) -> Iterable[str]:
    """One JSON object per session: its fields, system prompt and canonical messages."""
    for session in sessions:
        record = session.to_json()
        record["system_prompt"] = session.system_prompt
        record["model_config"] = session.model_config
        rows = conn.execute(
            f"SELECT {SELECT_COLUMNS} FROM messages WHERE session_id = ? AND {ACTIVE} ORDER BY id", (session.id,)
        )
        messages = [stored_message(r).to_dict() for r in rows]
        if redact is not None:
            messages = [_redact_message(m, redact) for m in messages]
            for key in ("system_prompt", "preview", "title"):
                if record[key]:
                    record[key] = redact(record[key])
        record["messages"] = messages
        yield json.dumps(record, ensure_ascii=False)


def write_export(conn: sqlite3.Connection, out: TextIO, sessions: Iterable[Session], redact: Redactor | None) -> int:
    count = 0
    for line in export_lines(conn, sessions, redact):
        out.write(line + "\n")
        count += 1
    return count
