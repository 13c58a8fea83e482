"""A cell of the wrong type written by another program degrades its row, never the whole listing."""

from __future__ import annotations

import json
import sqlite3
from io import StringIO
from pathlib import Path

import pytest

from engine.store import SessionDB

BLOB_TITLE = "20260818_091500_4a9e55"  # "Shell tip 4", the oldest session
TEXT_START = "20261112_152000_e6f3a8"  # "Certificate renewal #2", a branch child


def spoil(home: Path) -> None:
    """What another program might leave: a BLOB title, a text start time, a text count."""
    with sqlite3.connect(home / "state.db") as conn:
        conn.execute("UPDATE sessions SET title = x'00ff10' WHERE id = ?", (BLOB_TITLE,))
        conn.execute("UPDATE sessions SET started_at = 'yesterday', message_count = 'many' WHERE id = ?", (TEXT_START,))


@pytest.fixture(params=["as upstream left it", "after a write of ours"])
def spoiled(request: pytest.FixtureRequest, upstream_home: Path) -> Path:
    if request.param == "after a write of ours":  # the activity table, so the fast listing path
        with SessionDB.open_home(upstream_home) as db:
            db.set_title("20261129_080000_7e2a90", "Backup script review")
    spoil(upstream_home)
    return upstream_home


def test_every_session_is_listed_with_its_bad_fields_marked(spoiled: Path) -> None:
    with SessionDB.open_home(spoiled) as db:
        sessions = {s.id: s for s in db.list_sessions(limit=0)}
        assert len(sessions) == 12
        blob, text = sessions[BLOB_TITLE], sessions[TEXT_START]
        assert (blob.title, blob.unreadable) == (None, ("title",))
        assert text.unreadable == ("message_count", "started_at") and text.started_at == 0.0
        assert text.last_active > 0  # its messages still date it
        assert text.to_json()["started_at"] is None and text.to_json()["unreadable"] == ["message_count", "started_at"]
        json.dumps([s.to_json() for s in sessions.values()])  # every row serialises


def test_tree_stats_and_export_take_the_bad_row(spoiled: Path) -> None:
    with SessionDB.open_home(spoiled) as db:
        forest = db.tree()
        assert len(forest) == 9 and db.tree(TEXT_START)[0].children[0].session.id == TEXT_START
        stats = db.stats()
        assert stats["sessions"] == 12 and isinstance(stats["oldest"], float) and isinstance(stats["newest"], float)
        out = StringIO()
        assert db.export_jsonl(out) == 12
        records = {r["id"]: r for r in map(json.loads, out.getvalue().splitlines())}
        assert records[BLOB_TITLE]["title"] is None and records[TEXT_START]["started_at"] is None


def test_a_session_with_no_readable_time_is_listed_last(upstream_home: Path) -> None:
    with SessionDB.open_home(upstream_home) as db:
        lonely = db.create_session(session_id="lonely")  # no messages: only its start dates it
    with sqlite3.connect(upstream_home / "state.db") as conn:
        conn.execute("UPDATE sessions SET started_at = x'01' WHERE id = 'lonely'")
    with SessionDB.open_home(upstream_home) as db:
        listed = db.list_sessions(limit=0)
        assert listed[-1].id == lonely and "last_active" in listed[-1].unreadable
        assert len(db.list_sessions(limit=13)) == 13
