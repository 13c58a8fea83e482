"""A home written by upstream Hermes (schema 22) opens, lists, trees, searches and takes writes
with nothing of upstream's lost; a new home gets the v16 schema."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from engine.store import SessionDB
from engine.store.schema import MESSAGE_COLUMNS, SESSION_COLUMNS
from tests.conftest import FIXTURE_HOME

CHAIN = ["20261102_083000_3fa9c1", "20261102_085201_8d21e7", "20261102_091401_c07b5d"]


def _shape(path: Path) -> dict[str, set[str]]:
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index', 'trigger')")]
        shape = {name: {r[1] for r in conn.execute(f"PRAGMA table_info('{name}')")} for name in names}
    finally:
        conn.close()
    return shape


def test_lists_every_session_most_recently_active_first(upstream_db: SessionDB) -> None:
    sessions = upstream_db.list_sessions(limit=0)
    assert len(sessions) == 12
    assert [s.id for s in sessions[:3]] == ["20261129_080000_7e2a90", "20261124_074500_9c4d2f", "20261112_152000_e6f3a8"]
    assert all(a.last_active >= b.last_active for a, b in zip(sessions, sessions[1:]))
    assert sessions[-1].id == "20260818_091500_4a9e55"  # oldest activity, though its messages have the newest ids
    assert [s.id for s in upstream_db.list_sessions(source="telegram")] == [
        "20260821_091500_1d6b22", "20260819_091500_3f8d44"]


def test_tree_nests_the_compression_chain_and_the_branch(upstream_db: SessionDB) -> None:
    [root] = upstream_db.tree(CHAIN[1])
    assert root.session.id == CHAIN[0]
    assert root.children[0].session.id == CHAIN[1]
    assert root.children[0].children[0].session.title == "整理告警规则 #3"
    forest = {node.session.id: node for node in upstream_db.tree()}
    assert len(forest) == 9
    assert [c.session.id for c in forest["20261112_140000_b41e09"].children] == ["20261112_152000_e6f3a8"]


def test_searches_english_and_chinese(upstream_db: SessionDB) -> None:
    assert {h.session_id for h in upstream_db.search("告警")} == {CHAIN[0], CHAIN[2]}
    assert [h.message_id for h in upstream_db.search("规则")] == [1]
    assert {h.lineage_root for h in upstream_db.search("告")} == {CHAIN[0]}
    [hit] = upstream_db.search("整理告警规则")
    assert hit.message_id == 1 and ">>>整理告警规则<<<" in hit.snippet
    [tool_hit] = upstream_db.search("systemctl")
    assert tool_hit.role == "assistant"  # tool call arguments are indexed too
    assert upstream_db.search("pangolinmark")[0].session_id == "20261124_074500_9c4d2f"


def test_writes_keep_every_upstream_table_and_column(upstream_home: Path, upstream_db: SessionDB) -> None:
    before = _shape(FIXTURE_HOME / "state.db")
    sid = upstream_db.create_session(title="new work", parent_session_id=CHAIN[2])
    upstream_db.append_messages(sid, [{"role": "user", "content": "告警 checklist"}])
    upstream_db.set_title(CHAIN[2], "整理告警规则 #3 renamed")
    upstream_db.end_session(sid, "user_exit")
    upstream_db.delete_session("20260822_091500_0c5a11")
    upstream_db.close()
    conn = sqlite3.connect(upstream_home / "state.db")
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 22  # never lowered
    assert conn.execute("SELECT compacted, api_content, active FROM messages WHERE content = '告警 checklist'").fetchone() == (0, None, 1)
    assert conn.execute("SELECT compression_fallback_streak, archived FROM sessions WHERE id = ?", (sid,)).fetchone() == (0, 0)
    conn.close()
    after = _shape(upstream_home / "state.db")
    for name, columns in before.items():
        assert name in after, name
        assert columns <= after[name], name


def test_a_new_home_gets_the_v16_schema(db: SessionDB) -> None:
    conn = sqlite3.connect(db.path)
    assert conn.execute("SELECT version FROM schema_version").fetchall() == [(16,)]
    assert {r[1] for r in conn.execute("PRAGMA table_info(sessions)")} == set(SESSION_COLUMNS)
    assert {r[1] for r in conn.execute("PRAGMA table_info(messages)")} == set(MESSAGE_COLUMNS)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert {"messages_fts", "messages_fts_trigram", "state_meta", "messages_fts_trigram_insert"} <= tables
    assert db.journal_mode == "wal"
    conn.close()


def test_a_home_without_fts_gets_indexes_backfilled(tmp_path: Path) -> None:
    path = tmp_path / "state.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT NOT NULL, started_at REAL NOT NULL, title TEXT);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, role TEXT NOT NULL,"
        " content TEXT, timestamp REAL NOT NULL);"
        "CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (6);"
        "INSERT INTO sessions VALUES ('s1', 'cli', 1.0, 'old');"
        "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('s1', 'user', 'zebra 斑马条纹', 2.0);"
    )
    conn.commit()
    conn.close()
    with SessionDB(path) as store:
        assert [h.message_id for h in store.search("zebra")] == [1]
        assert [h.message_id for h in store.search("斑马条纹")] == [1]
        assert store.get_session("s1").message_count == 0  # added column, default kept
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 16
    conn.close()
