"""Delete, prune, auto-prune, stats and JSONL export."""

from __future__ import annotations

import io
import json
import sqlite3

import pytest

from engine import clock
from engine.config import Config
from engine.store import SessionDB
from tests.conftest import FIXED_NOW

DAY = 86400.0


@pytest.fixture
def aged(db: SessionDB) -> dict[str, str]:
    """old (ended 100 d ago) → its continuation (open); lone (ended 100 d, telegram); recent (ended 1 d)."""
    clock.set_clock(lambda: FIXED_NOW - 101 * DAY)
    old = db.create_session(session_id="old")
    lone = db.create_session(session_id="lone", source="telegram")
    gone = db.create_session(session_id="gone")
    db.append_messages(old, [{"role": "user", "content": "ancient words"}])
    clock.set_clock(lambda: FIXED_NOW - 100 * DAY)
    for sid in (old, lone, gone):
        db.end_session(sid, "compression" if sid == old else "user_exit")
    kid = db.create_session(session_id="kid", parent_session_id=old)
    clock.set_clock(lambda: FIXED_NOW - DAY)
    recent = db.create_session(session_id="recent")
    db.end_session(recent, "user_exit")
    clock.set_clock(lambda: FIXED_NOW)
    return {"old": old, "lone": lone, "gone": gone, "kid": kid, "recent": recent}


def test_delete_repoints_children_and_removes_messages(db: SessionDB, aged: dict[str, str]) -> None:
    plan = db.delete_plan("old")
    assert (plan.messages, plan.repointed_children) == (1, ["kid"])
    done = db.delete_session("old")
    assert done.to_json() == {"sessions": ["old"], "messages": 1, "repointed_children": ["kid"]}
    assert db.get_session("old") is None and db.require_session("kid").parent_session_id is None
    assert db.search("ancient") == []
    conn = sqlite3.connect(db.path)
    assert conn.execute("SELECT COUNT(*) FROM messages_fts_trigram").fetchone()[0] == 0
    conn.close()


def test_prune_takes_only_old_ended_sessions_without_staying_children(db: SessionDB, aged: dict[str, str]) -> None:
    assert [s.id for s in db.prune_plan(older_than_days=30, source="telegram").sessions] == ["lone"]
    done = db.prune(older_than_days=30)
    assert sorted(s.id for s in done.sessions) == ["gone", "lone"]  # "old" still has an open child
    assert {s.id for s in db.list_sessions(limit=0)} == {"old", "kid", "recent"}


def test_prune_with_zero_days_never_touches_open_sessions(db: SessionDB, aged: dict[str, str]) -> None:
    db.prune(older_than_days=0)
    assert {s.id for s in db.list_sessions(limit=0)} == {"old", "kid"}


def _config(tmp_path, **sessions) -> Config:
    cfg = Config(home=tmp_path)
    cfg.data["sessions"].update(sessions)
    return cfg


def test_auto_prune_is_off_by_default_then_runs_once_per_interval(db: SessionDB, aged: dict[str, str], tmp_path) -> None:
    assert db.maybe_auto_prune(Config(home=tmp_path)) is None
    cfg = _config(tmp_path, auto_prune=True, retention_days=30, min_interval_hours=24, vacuum_after_prune=True)
    done = db.maybe_auto_prune(cfg)
    assert done is not None and sorted(s.id for s in done.sessions) == ["gone", "lone"]
    conn = sqlite3.connect(db.path)
    assert float(conn.execute("SELECT value FROM state_meta WHERE key = 'last_auto_prune'").fetchone()[0]) == FIXED_NOW
    conn.close()
    assert db.maybe_auto_prune(cfg) is None  # within the interval
    clock.set_clock(lambda: FIXED_NOW + 25 * 3600)
    assert db.maybe_auto_prune(cfg) is not None


def test_stats(db: SessionDB, aged: dict[str, str]) -> None:
    stats = db.stats()
    assert (stats["sessions"], stats["messages"]) == (5, 1)
    assert stats["by_source"] == {"cli": 4, "telegram": 1}
    assert stats["oldest"] == FIXED_NOW - 101 * DAY and stats["newest"] == FIXED_NOW - DAY
    assert stats["db_bytes"] > 0


def test_export_jsonl(db: SessionDB) -> None:
    sid = db.create_session(title="Keys", system_prompt="sys sk-SECRET")
    db.append_messages(sid, [
        {"role": "user", "content": "my key is sk-SECRET"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "t", "arguments": '{"k": "sk-SECRET"}'}}]},
    ])
    db.create_session(source="telegram")
    out = io.StringIO()
    assert db.export_jsonl(out) == 2
    records = {r["id"]: r for r in map(json.loads, out.getvalue().splitlines())}
    assert records[sid]["messages"][0]["content"] == "my key is sk-SECRET"
    assert records[sid]["system_prompt"] == "sys sk-SECRET" and records[sid]["title"] == "Keys"
    redacted = io.StringIO()
    db.export_jsonl(redacted, session_id=sid, redact=lambda text: text.replace("sk-SECRET", "[REDACTED]"))
    assert "sk-SECRET" not in redacted.getvalue() and redacted.getvalue().count("[REDACTED]") == 4
    only = io.StringIO()
    assert db.export_jsonl(only, source="telegram") == 1
