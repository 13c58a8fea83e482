"""Concurrent writers, the WAL → DELETE fallback, and the jittered write retry."""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pytest

from engine.errors import StoreError
from engine.store import SessionDB, connection
from engine.store.connection import MAX_WRITE_ATTEMPTS, RETRY_SLEEP_RANGE, run_write

WRITERS, PER_WRITER = 8, 250


def _append_many(path: str, session_id: str, worker: int) -> None:
    db = SessionDB(Path(path))
    try:
        for i in range(PER_WRITER):
            db.append_messages(session_id, [{"role": "user", "content": f"worker{worker} message{i} 并发写入"}])
    finally:
        db.close()


@pytest.mark.slow
def test_eight_processes_append_2000_rows_without_loss(tmp_path: Path) -> None:
    db = SessionDB.open_home(tmp_path)
    sid = db.create_session()
    db.close()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_many, args=(str(tmp_path / "state.db"), sid, w)) for w in range(WRITERS)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(timeout=120)
    assert [p.exitcode for p in procs] == [0] * WRITERS  # no exception escaped any writer
    conn = sqlite3.connect(tmp_path / "state.db")
    total = WRITERS * PER_WRITER
    assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT content) FROM messages").fetchone() == (total, total)
    assert conn.execute("SELECT message_count FROM sessions").fetchone()[0] == total
    for table in ("messages_fts", "messages_fts_trigram"):
        assert conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] == total
        missing = conn.execute(f"SELECT COUNT(*) FROM messages WHERE id NOT IN (SELECT rowid FROM {table})")
        assert missing.fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH 'worker3'").fetchone()[0] == PER_WRITER
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    conn.close()


def _refuse_wal(conn: sqlite3.Connection) -> str:
    raise sqlite3.OperationalError("locking protocol")


def test_wal_failure_falls_back_to_delete_and_keeps_working(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(connection, "request_wal", _refuse_wal)
    with SessionDB.open_home(tmp_path) as db:
        assert db.journal_mode == "delete"
        sid = db.create_session(title="on NFS")
        db.append_messages(sid, [{"role": "user", "content": "still searchable"}])
        assert [h.session_id for h in db.search("searchable")] == [sid]
    conn = sqlite3.connect(tmp_path / "state.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    conn.close()


def test_a_wal_file_is_never_converted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    SessionDB.open_home(tmp_path).close()
    monkeypatch.setattr(connection, "request_wal", _refuse_wal)
    with SessionDB.open_home(tmp_path) as db:
        assert db.journal_mode == "wal"


def test_other_journal_errors_are_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(conn: sqlite3.Connection) -> str:
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(connection, "request_wal", broken)
    with pytest.raises(StoreError, match="disk I/O error"):
        SessionDB.open_home(tmp_path)


def test_locked_writes_retry_with_jitter_then_give_up(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "x.db", isolation_level=None)
    conn.execute("CREATE TABLE t (v)")
    sleeps: list[float] = []
    attempts = {"n": 0}

    def flaky(c: sqlite3.Connection) -> str:
        attempts["n"] += 1
        c.execute("INSERT INTO t VALUES (?)", (attempts["n"],))
        if attempts["n"] < 3:
            raise sqlite3.OperationalError("database is locked")
        return "done"

    assert run_write(conn, "x.db", flaky, sleep=sleeps.append) == "done"
    assert len(sleeps) == 2 and all(RETRY_SLEEP_RANGE[0] <= s <= RETRY_SLEEP_RANGE[1] for s in sleeps)
    assert conn.execute("SELECT v FROM t").fetchall() == [(3,)]  # the failed attempts were rolled back

    def always_busy(c: sqlite3.Connection) -> None:
        raise sqlite3.OperationalError("database is busy")

    sleeps.clear()
    with pytest.raises(StoreError, match="x.db"):
        run_write(conn, "x.db", always_busy, sleep=sleeps.append)
    assert len(sleeps) == MAX_WRITE_ATTEMPTS - 1
    conn.close()
