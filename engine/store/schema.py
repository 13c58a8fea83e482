"""The upstream Hermes v16 schema, and bringing any existing ``state.db`` up to what we need.

Additive only: a table, column, index or trigger is created when missing; nothing is dropped,
renamed or rewritten, and ``schema_version`` is never lowered (homes from newer upstream
releases keep their version and their extra tables and columns).

A home is brought up to date just before its first write, never for a read: a read-only
command leaves an upstream home byte for byte as it was, so reads must cope without our
additions (``activity_kept``). Only a database reads cannot work on — new, or older than
upstream's v16, lacking tables or columns every query names (``readable``) — is completed at open.
"""

from __future__ import annotations

import sqlite3

from engine.errors import StoreError

SCHEMA_VERSION = 16

SESSION_COLUMNS: dict[str, str] = {
    "id": "TEXT PRIMARY KEY",
    "source": "TEXT NOT NULL",
    "user_id": "TEXT",
    "model": "TEXT",
    "model_config": "TEXT",
    "system_prompt": "TEXT",
    "parent_session_id": "TEXT",
    "started_at": "REAL NOT NULL",
    "ended_at": "REAL",
    "end_reason": "TEXT",
    "message_count": "INTEGER DEFAULT 0",
    "tool_call_count": "INTEGER DEFAULT 0",
    "input_tokens": "INTEGER DEFAULT 0",
    "output_tokens": "INTEGER DEFAULT 0",
    "cache_read_tokens": "INTEGER DEFAULT 0",
    "cache_write_tokens": "INTEGER DEFAULT 0",
    "reasoning_tokens": "INTEGER DEFAULT 0",
    "cwd": "TEXT",
    "billing_provider": "TEXT",
    "billing_base_url": "TEXT",
    "billing_mode": "TEXT",
    "estimated_cost_usd": "REAL",
    "actual_cost_usd": "REAL",
    "cost_status": "TEXT",
    "cost_source": "TEXT",
    "pricing_version": "TEXT",
    "title": "TEXT",
    "api_call_count": "INTEGER DEFAULT 0",
    "handoff_state": "TEXT",
    "handoff_platform": "TEXT",
    "handoff_error": "TEXT",
    "rewind_count": "INTEGER NOT NULL DEFAULT 0",
    "archived": "INTEGER NOT NULL DEFAULT 0",
}

MESSAGE_COLUMNS: dict[str, str] = {
    "id": "INTEGER PRIMARY KEY AUTOINCREMENT",
    "session_id": "TEXT NOT NULL REFERENCES sessions(id)",
    "role": "TEXT NOT NULL",
    "content": "TEXT",
    "tool_call_id": "TEXT",
    "tool_calls": "TEXT",
    "tool_name": "TEXT",
    "timestamp": "REAL NOT NULL",
    "token_count": "INTEGER",
    "finish_reason": "TEXT",
    "reasoning": "TEXT",
    "reasoning_content": "TEXT",
    "reasoning_details": "TEXT",
    "codex_reasoning_items": "TEXT",
    "codex_message_items": "TEXT",
    "platform_message_id": "TEXT",
    "observed": "INTEGER DEFAULT 0",
    "active": "INTEGER NOT NULL DEFAULT 1",
}


def _create_table(name: str, columns: dict[str, str], tail: str = "") -> str:
    body = ",\n    ".join(f"{col} {decl}" for col, decl in columns.items())
    return f"CREATE TABLE IF NOT EXISTS {name} (\n    {body}{tail}\n)"


TABLES: dict[str, str] = {
    "schema_version": "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
    "sessions": _create_table(
        "sessions", SESSION_COLUMNS, ",\n    FOREIGN KEY (parent_session_id) REFERENCES sessions(id)"
    ),
    "messages": _create_table("messages", MESSAGE_COLUMNS),
    "state_meta": "CREATE TABLE IF NOT EXISTS state_meta (key TEXT PRIMARY KEY, value TEXT)",
    # Ours: each session's newest message time, kept by the triggers below (which upstream's
    # writes fire too), so "most recently active" never walks a session's history.
    "hermes_tui_activity": (
        "CREATE TABLE IF NOT EXISTS hermes_tui_activity (session_id TEXT PRIMARY KEY, last_active REAL NOT NULL)"
    ),
    # Ours: one row per model call as the provider reported it, for the prompt-cache inspector of a
    # resumed session and the per-request totals of ``sessions stats`` (``engine.store.request_log``).
    # No foreign key: upstream deletes sessions without knowing this table (a trigger follows them).
    "hermes_tui_requests": (
        "CREATE TABLE IF NOT EXISTS hermes_tui_requests (\n"
        "    id INTEGER PRIMARY KEY,\n"
        "    session_id TEXT NOT NULL,\n"
        "    at REAL NOT NULL,\n"
        "    turn INTEGER NOT NULL DEFAULT 0,\n"
        "    message_id INTEGER,\n"
        "    model TEXT,\n"
        "    provider TEXT,\n"
        "    base_url TEXT,\n"
        "    input_tokens INTEGER NOT NULL DEFAULT 0,\n"
        "    output_tokens INTEGER NOT NULL DEFAULT 0,\n"
        "    cache_read_tokens INTEGER NOT NULL DEFAULT 0,\n"
        "    cache_write_tokens INTEGER NOT NULL DEFAULT 0,\n"
        "    reasoning_tokens INTEGER NOT NULL DEFAULT 0,\n"
        "    compared INTEGER NOT NULL DEFAULT 0,\n"
        "    prefix_break TEXT\n"
        ")"
    ),
}

# Upstream's own indexes (same names, so an upstream release sees them as its own), plus one of
# ours, prefixed so it can never collide: "most recently active" listings walk message time.
INDEXES: dict[str, str] = {
    "idx_sessions_source": "CREATE INDEX IF NOT EXISTS idx_sessions_source ON sessions(source)",
    "idx_sessions_parent": "CREATE INDEX IF NOT EXISTS idx_sessions_parent ON sessions(parent_session_id)",
    "idx_sessions_started": "CREATE INDEX IF NOT EXISTS idx_sessions_started ON sessions(started_at DESC)",
    "idx_messages_session": "CREATE INDEX IF NOT EXISTS idx_messages_session ON messages(session_id, timestamp)",
    "idx_hermes_tui_messages_ts": (
        "CREATE INDEX IF NOT EXISTS idx_hermes_tui_messages_ts ON messages(timestamp)"
    ),
    "idx_hermes_tui_activity_last": (
        "CREATE INDEX IF NOT EXISTS idx_hermes_tui_activity_last ON hermes_tui_activity(last_active)"
    ),
    "idx_hermes_tui_requests_session": (
        "CREATE INDEX IF NOT EXISTS idx_hermes_tui_requests_session ON hermes_tui_requests(session_id, id)"
    ),
}
# Created with a new database only: on an existing home duplicate titles would make it fail.
TITLE_INDEX = (
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_sessions_title_unique ON sessions(title) WHERE title IS NOT NULL"
)

FTS_TEXT = "COALESCE({r}.content, '') || ' ' || COALESCE({r}.tool_name, '') || ' ' || COALESCE({r}.tool_calls, '')"
FTS_TABLES: dict[str, str] = {
    "messages_fts": "CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5(content)",
    "messages_fts_trigram": (
        "CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts_trigram USING fts5(content, tokenize='trigram')"
    ),
}


def _fts_triggers(table: str) -> dict[str, str]:
    new, old = FTS_TEXT.format(r="new"), "old.id"
    return {
        f"{table}_insert": (
            f"CREATE TRIGGER IF NOT EXISTS {table}_insert AFTER INSERT ON messages BEGIN "
            f"INSERT INTO {table}(rowid, content) VALUES (new.id, {new}); END"
        ),
        f"{table}_delete": (
            f"CREATE TRIGGER IF NOT EXISTS {table}_delete AFTER DELETE ON messages BEGIN "
            f"DELETE FROM {table} WHERE rowid = {old}; END"
        ),
        f"{table}_update": (
            f"CREATE TRIGGER IF NOT EXISTS {table}_update AFTER UPDATE ON messages BEGIN "
            f"DELETE FROM {table} WHERE rowid = {old}; "
            f"INSERT INTO {table}(rowid, content) VALUES (new.id, {new}); END"
        ),
    }


_ACTIVITY_RAISE = (
    "INSERT INTO hermes_tui_activity(session_id, last_active) VALUES (new.session_id, new.timestamp) "
    "ON CONFLICT(session_id) DO UPDATE SET last_active = MAX(last_active, excluded.last_active);"
)
# A removed message lowers the mark only when it held it; the session's newest remaining message
# (an index seek on idx_messages_session) then takes its place, or the row goes with the last one.
_ACTIVITY_LOWER = (
    "DELETE FROM hermes_tui_activity WHERE session_id = old.session_id AND last_active <= old.timestamp; "
    "INSERT OR IGNORE INTO hermes_tui_activity(session_id, last_active) "
    "SELECT session_id, MAX(timestamp) FROM messages WHERE session_id = old.session_id GROUP BY session_id;"
)
ACTIVITY_TRIGGERS: dict[str, str] = {
    "hermes_tui_activity_insert": (
        f"CREATE TRIGGER IF NOT EXISTS hermes_tui_activity_insert AFTER INSERT ON messages BEGIN {_ACTIVITY_RAISE} END"
    ),
    "hermes_tui_activity_delete": (
        f"CREATE TRIGGER IF NOT EXISTS hermes_tui_activity_delete AFTER DELETE ON messages BEGIN {_ACTIVITY_LOWER} END"
    ),
    "hermes_tui_activity_update": (
        "CREATE TRIGGER IF NOT EXISTS hermes_tui_activity_update AFTER UPDATE OF session_id, timestamp ON messages "
        f"BEGIN {_ACTIVITY_LOWER} {_ACTIVITY_RAISE} END"
    ),
}
ACTIVITY_REBUILD = (
    "DELETE FROM hermes_tui_activity",
    "INSERT INTO hermes_tui_activity(session_id, last_active) "
    "SELECT session_id, MAX(timestamp) FROM messages GROUP BY session_id",
)
# A session's request records go with it, whoever deletes it (upstream's prune included).
REQUEST_TRIGGERS: dict[str, str] = {
    "hermes_tui_requests_session_delete": (
        "CREATE TRIGGER IF NOT EXISTS hermes_tui_requests_session_delete AFTER DELETE ON sessions BEGIN "
        "DELETE FROM hermes_tui_requests WHERE session_id = old.id; END"
    ),
}
# Sessions deleted while the trigger was missing (a table rebuild by another program drops it).
REQUEST_ORPHANS = "DELETE FROM hermes_tui_requests WHERE session_id NOT IN (SELECT id FROM sessions)"
TRIGGERS: dict[str, str] = {
    **{name: sql for t in FTS_TABLES for name, sql in _fts_triggers(t).items()},
    **ACTIVITY_TRIGGERS,
    **REQUEST_TRIGGERS,
}


def existing_objects(conn: sqlite3.Connection) -> set[str]:
    return {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def readable(conn: sqlite3.Connection) -> bool:
    """Whether reads work on the file as it is: upstream's tables and FTS indexes, every column we read."""
    if not {"sessions", "messages", *FTS_TABLES} <= existing_objects(conn):
        return False
    return set(SESSION_COLUMNS) <= _columns(conn, "sessions") and set(MESSAGE_COLUMNS) <= _columns(conn, "messages")


def activity_kept(conn: sqlite3.Connection) -> bool:
    """Whether ``hermes_tui_activity`` exists and its triggers keep it current (else it is not read)."""
    return {"hermes_tui_activity", *ACTIVITY_TRIGGERS} <= existing_objects(conn)


def requests_kept(conn: sqlite3.Connection) -> bool:
    """Whether ``hermes_tui_requests`` exists (an upstream home has none until our first write)."""
    return "hermes_tui_requests" in existing_objects(conn)


def missing_parts(conn: sqlite3.Connection) -> bool:
    """Cheap read-only check: does ensure_schema have anything to do?"""
    have = existing_objects(conn)
    wanted = {*TABLES, *INDEXES, *FTS_TABLES, *TRIGGERS}
    if not wanted <= have:
        return True
    return not (
        set(SESSION_COLUMNS) <= _columns(conn, "sessions") and set(MESSAGE_COLUMNS) <= _columns(conn, "messages")
    )


def _addable(decl: str) -> bool:
    """SQLite can add a column later only if it may be NULL or has a default."""
    return "PRIMARY KEY" not in decl and ("NOT NULL" not in decl or "DEFAULT" in decl)


def ensure_schema(conn: sqlite3.Connection, label: str) -> None:
    """Create whatever is missing; call inside a write transaction. ``label`` names the file in errors."""
    have = existing_objects(conn)
    is_new = "sessions" not in have
    for sql in TABLES.values():
        conn.execute(sql)
    for table, columns in (("sessions", SESSION_COLUMNS), ("messages", MESSAGE_COLUMNS)):
        present = _columns(conn, table)
        for col, decl in columns.items():
            if col in present:
                continue
            if not _addable(decl):
                raise StoreError(f"{label}: table {table} has no {col} column; not a Hermes session database.")
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {col} {decl}")
    for sql in INDEXES.values():
        conn.execute(sql)
    if is_new:
        conn.execute(TITLE_INDEX)
    for table, sql in FTS_TABLES.items():
        if table not in have:
            conn.execute(sql)
            # A pre-existing home without this index: fill it from the messages already stored.
            conn.execute(
                f"INSERT INTO {table}(rowid, content) SELECT id, {FTS_TEXT.format(r='messages')} FROM messages"
            )
            from engine.store.messages import reindex_structured  # messages imports this module

            reindex_structured(conn, table)
    if not set(ACTIVITY_TRIGGERS) <= have:
        # New, or a trigger was lost (a table rebuild by another program drops them): messages
        # written meanwhile did not move the marks, so they are recomputed from scratch.
        for sql in ACTIVITY_REBUILD:
            conn.execute(sql)
    if "hermes_tui_requests" in have and not set(REQUEST_TRIGGERS) <= have:
        conn.execute(REQUEST_ORPHANS)
    for sql in TRIGGERS.values():
        conn.execute(sql)
    row = conn.execute("SELECT MAX(version) FROM schema_version").fetchone()
    if row[0] is None:
        conn.execute("INSERT INTO schema_version(version) VALUES (?)", (SCHEMA_VERSION,))
    elif row[0] < SCHEMA_VERSION:
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))
