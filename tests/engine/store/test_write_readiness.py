"""Nothing is written before the first write: reads leave a home as it was, and the first write
of a connection runs ``quick_check``, then the journal-mode choice and the migration."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from engine.errors import StoreError
from engine.store import SessionDB, connection
from engine.store.connection import verify_intact
from engine.store.schema import ACTIVITY_TRIGGERS
from tests.engine.store.db_files import digest, objects

NEWEST = "20261129_080000_7e2a90"


def test_reads_of_an_upstream_home_change_nothing_and_cope_without_our_additions(upstream_home: Path) -> None:
    path = upstream_home / "state.db"
    before = digest(path)
    with SessionDB.open_home(upstream_home) as db:
        assert [s.id for s in db.list_sessions(limit=2)] == [NEWEST, "20261124_074500_9c4d2f"]
        assert db.most_recent_tip() == NEWEST
        assert db.tree() and db.search("告警") and db.stats()["sessions"] == 12
    assert digest(path) == before
    assert "hermes_tui_activity" not in objects(path)


def test_the_listing_is_the_same_before_and_after_the_migration(upstream_home: Path) -> None:
    with SessionDB.open_home(upstream_home) as db:
        unmigrated = [[s.id for s in db.list_sessions(limit=n, source=src)] for n in (0, 3) for src in (None, "cli")]
        db.set_title(NEWEST, "Backup script review")  # the first write brings our additions
        assert {"hermes_tui_activity", *ACTIVITY_TRIGGERS} <= objects(upstream_home / "state.db")
        migrated = [[s.id for s in db.list_sessions(limit=n, source=src)] for n in (0, 3) for src in (None, "cli")]
    assert migrated == unmigrated


def test_a_lost_trigger_is_not_read_through_until_a_write_rebuilds_it(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path) as db:
        a, b = db.create_session(session_id="a"), db.create_session(session_id="b")
        db.append_messages(b, [{"role": "user", "content": "y"}])
        with sqlite3.connect(db.path) as raw:
            raw.execute("DROP TRIGGER hermes_tui_activity_insert")
            raw.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES ('a', 'user', 'z', 1e10)")
    with SessionDB.open_home(tmp_path) as db:
        assert [s.id for s in db.list_sessions()] == [a, b]  # read by messages, not the stale marks
        assert "hermes_tui_activity_insert" not in objects(db.path)
        db.set_title(a, "rebuilt")
        assert "hermes_tui_activity_insert" in objects(db.path) and [s.id for s in db.list_sessions()] == [a, b]


def test_quick_check_runs_once_before_the_first_write_and_never_for_reads(
        upstream_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Path] = []
    real = connection.verify_intact
    monkeypatch.setattr("engine.store.db.verify_intact", lambda conn, path: (calls.append(path), real(conn, path)))
    with SessionDB.open_home(upstream_home) as db:
        db.list_sessions(limit=0)
        db.search("backup")
        assert calls == []
        db.set_title(NEWEST, "one")
        db.set_title(NEWEST, "two")
    assert calls == [upstream_home / "state.db"]


def damaged_copy(source: Path, dest: Path, page: int) -> Path:
    """``source`` with one whole page overwritten by noise (pages count from 1)."""
    dest.mkdir()
    data = bytearray(source.read_bytes())
    size = 4096
    assert page * size <= len(data), f"{source} has no page {page}"
    noise = hashlib.sha256(str(page).encode()).digest() * (size // 32)
    data[(page - 1) * size: page * size] = noise
    (dest / "state.db").write_bytes(bytes(data))
    return dest / "state.db"


@pytest.fixture
def written_home(upstream_home: Path) -> Path:
    """The upstream home after one write of ours (migrated, every page in use)."""
    with SessionDB.open_home(upstream_home) as db:
        db.set_title(NEWEST, "Backup script review")
    return upstream_home / "state.db"


@pytest.mark.parametrize("page", range(2, 62, 5))  # 12 pages: tables, indexes, FTS shadow tables
def test_a_damaged_page_refuses_the_first_write_and_writes_nothing(written_home: Path, tmp_path: Path,
                                                                   page: int) -> None:
    path = damaged_copy(written_home, tmp_path / f"p{page}", page)
    before = digest(path)
    with pytest.raises(StoreError) as info:
        with SessionDB(path) as db:  # the light open check may pass: quick_check must not
            db.set_title(NEWEST, "renamed")
    assert info.value.exit_code == 2 and str(path) in str(info.value) and "corrupt" in str(info.value)
    assert "\n" not in str(info.value)
    assert digest(path) == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.db"]


class BusyOnce:
    """A connection whose first quick_check finds the database locked, as under another writer."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn, self.calls = conn, 0

    def execute(self, sql: str):
        self.calls += 1
        if self.calls == 1:
            raise sqlite3.OperationalError("database is locked")
        return self.conn.execute(sql)


def test_a_busy_database_is_waited_for_not_called_corrupt(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.db")
    busy = BusyOnce(conn)
    pauses: list[float] = []
    verify_intact(busy, tmp_path / "x.db", sleep=pauses.append)  # type: ignore[arg-type]
    assert busy.calls == 2 and len(pauses) == 1
    conn.close()
