"""Bad input gets a clear error (exit 2 for the environment, 1 for unknown ids) and changes nothing."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from engine.errors import BadInputError, NotFoundError, RefusedError, StoreError
from engine.store import SessionDB
from tests.conftest import FIXTURE_HOME

NASTY_QUERIES = ['"unbalanced', "AND", "foo(", "*", "NOT", "c++", "支", "OR OR", '"" *', "a:b", "-", "NEAR(x y)",
                 "x" * 10_000, "迁移 " * 2_000, "(", ")", "^", "{col}:x"]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _corrupt_files(tmp_path: Path) -> dict[str, Path]:
    text = tmp_path / "text" / "state.db"
    text.parent.mkdir()
    text.write_text("this is not a database\n" * 50)
    header = tmp_path / "header" / "state.db"
    header.parent.mkdir()
    header.write_bytes(b"SQLite format 3\x00" + os.urandom(8192))
    truncated = tmp_path / "truncated" / "state.db"
    truncated.parent.mkdir()
    truncated.write_bytes((FIXTURE_HOME / "state.db").read_bytes()[:8192])
    foreign = tmp_path / "foreign" / "state.db"
    foreign.parent.mkdir()
    conn = sqlite3.connect(foreign)
    conn.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY)")
    conn.commit()
    conn.close()
    return {"text": text, "header": header, "truncated": truncated, "foreign": foreign}


@pytest.mark.parametrize("kind", ["text", "header", "truncated", "foreign"])
def test_corrupt_or_foreign_db_is_refused_and_left_byte_for_byte(tmp_path: Path, kind: str) -> None:
    path = _corrupt_files(tmp_path)[kind]
    before = _digest(path)
    with pytest.raises(StoreError) as info:
        SessionDB.open_home(path.parent)
    assert info.value.exit_code == 2
    assert str(path) in str(info.value)
    assert _digest(path) == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["state.db"]  # no -wal / -shm beside it


def test_a_directory_named_state_db_is_refused(tmp_path: Path) -> None:
    (tmp_path / "state.db").mkdir()
    with pytest.raises(StoreError, match="directory"):
        SessionDB.open_home(tmp_path)


def test_read_only_home_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setattr("engine.store.connection.os.access", lambda path, mode: mode != os.W_OK)
    with pytest.raises(StoreError, match="read-only") as info:
        SessionDB.open_home(home)
    assert info.value.exit_code == 2
    assert list(home.iterdir()) == []


@pytest.mark.parametrize("query", NASTY_QUERIES, ids=[f"q{i}" for i in range(len(NASTY_QUERIES))])
def test_no_query_raises(upstream_db: SessionDB, query: str) -> None:
    hits = upstream_db.search(query)
    assert isinstance(hits, list)


def test_unknown_ids_are_not_found(db: SessionDB) -> None:
    for call in (
        lambda: db.require_session("nope"),
        lambda: db.append_messages("nope", [{"role": "user", "content": "x"}]),
        lambda: db.set_title("nope", "t"),
        lambda: db.end_session("nope", "user_exit"),
        lambda: db.delete_session("nope"),
        lambda: db.resolve("nope"),
        lambda: db.lineage_tip("nope"),
        lambda: db.create_session(parent_session_id="nope"),
    ):
        with pytest.raises(NotFoundError, match="nope") as info:
            call()
        assert info.value.exit_code == 1
    assert db.list_sessions() == []


def test_titles_are_sanitized(db: SessionDB) -> None:
    sid = db.create_session()
    stored = db.set_title(sid, "  Re\u202eview\u200b \x07the\n\tplan\u2066  ")
    assert stored == "Review the plan"
    assert db.get_session(sid).title == stored
    assert len(db.set_title(sid, "长" * 300)) == 100
    with pytest.raises(BadInputError, match="empty"):
        db.set_title(sid, "\u200b\u202e\x00")
    assert db.get_session(sid).title == "长" * 100


def test_duplicate_title_is_refused_and_nothing_changes(db: SessionDB) -> None:
    first, second = db.create_session(title="Plan"), db.create_session(title="Other")
    with pytest.raises(RefusedError, match=first):
        db.set_title(second, "Plan")
    assert db.get_session(second).title == "Other"
    with pytest.raises(RefusedError):
        db.create_session(title="Plan")
    assert len(db.list_sessions()) == 2


def test_a_bad_message_writes_nothing(db: SessionDB) -> None:
    sid = db.create_session()
    with pytest.raises(BadInputError, match="message 1"):
        db.append_messages(sid, [{"role": "user", "content": "ok"}, "not a dict"])  # type: ignore[list-item]
    with pytest.raises(BadInputError, match="no role"):
        db.append_messages(sid, [{"content": "x"}])
    assert db.get_messages(sid) == [] and db.get_session(sid).message_count == 0


def test_bad_numbers_and_ids(db: SessionDB) -> None:
    with pytest.raises(BadInputError):
        db.list_sessions(limit=-1)
    with pytest.raises(BadInputError):
        db.prune(older_than_days=-1)
    with pytest.raises(BadInputError):
        db.create_session(session_id="has space")
    with pytest.raises(BadInputError):
        db.resolve("   ")
    sid = db.create_session()
    with pytest.raises(RefusedError, match="already exists"):
        db.create_session(session_id=sid)



def test_a_busy_database_is_not_mistaken_for_a_corrupt_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The lock-free first look can see a half-written page while another process writes."""
    from engine.store import connection

    writer = SessionDB.open_home(tmp_path)  # keeps state.db-wal in place, as a live writer does
    writer.create_session(title="busy")
    real_probe = connection._probe

    def torn_when_lock_free(path: Path, flags: str) -> None:
        if "immutable" in flags:
            raise sqlite3.DatabaseError("database disk image is malformed")
        real_probe(path, flags)

    monkeypatch.setattr(connection, "_probe", torn_when_lock_free)
    with SessionDB.open_home(tmp_path) as second:
        assert [s.title for s in second.list_sessions()] == ["busy"]
    writer.close()
    assert not (tmp_path / "state.db-wal").exists()
    with pytest.raises(StoreError, match="corrupt"):
        SessionDB.open_home(tmp_path)
