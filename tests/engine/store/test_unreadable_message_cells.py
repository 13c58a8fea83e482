"""A message cell of the wrong type written by another program degrades that message, never the read.

The cells are written with plain sqlite3, as another program would; every read must hand back
plain Python values (text, a float time or None) and leave the stored bytes as they were.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from contextlib import closing
from io import StringIO
from pathlib import Path

import pytest

from engine.store import SessionDB
from engine.store.messages import stored_message

BACKUP = "20261129_080000_7e2a90"  # "Backup script review": message 28 (user), 29 (assistant)
CERT = "20261112_140000_b41e09"  # "Certificate renewal": 11 holds a tool call, 12 its result
BLOB_TEXT = b"Review the restic backup \xff script"
SHOWN_TEXT = "Review the restic backup \ufffd script"


def spoil(home: Path, sql: str) -> Path:
    with closing(sqlite3.connect(home / "state.db")) as conn, conn:
        conn.execute(sql)
    return home


def digest(home: Path) -> str:
    return hashlib.sha256((home / "state.db").read_bytes()).hexdigest()


def transcript_message(db: SessionDB, session_id: str, message_id: int) -> dict:
    ids = [m.id for m in db.get_messages(session_id)]
    return db.load_transcript(session_id)[ids.index(message_id)]


@pytest.mark.parametrize("cell", ["'noon'", "x'01'", "1e300"], ids=["text", "blob", "beyond-dates"])
def test_a_timestamp_that_is_not_a_time_is_unknown(upstream_home: Path, cell: str) -> None:
    spoil(upstream_home, f"UPDATE messages SET timestamp = {cell} WHERE id = 29")
    before = digest(upstream_home)
    with SessionDB.open_home(upstream_home) as db:
        assert db.get_messages(BACKUP)[1].timestamp is None
        assert transcript_message(db, BACKUP, 29)["timestamp"] is None
        assert db.get_messages(BACKUP)[0].timestamp == 1795939200.0  # its neighbour is untouched
        hit = next(h for h in db.search("snapshots") if h.message_id == 29)
        assert hit.unreadable == ("timestamp",) and hit.timestamp == 0.0 and hit.to_json()["timestamp"] is None
        out = StringIO()
        db.export_jsonl(out, session_id=BACKUP)
        assert json.loads(out.getvalue())["messages"][1]["timestamp"] is None
    assert digest(upstream_home) == before


def test_an_integer_timestamp_is_a_time(upstream_home: Path) -> None:
    spoil(upstream_home, "UPDATE messages SET timestamp = 1795939207 WHERE id = 29")
    with SessionDB.open_home(upstream_home) as db:
        assert db.get_messages(BACKUP)[1].timestamp == 1795939207.0
        assert next(h for h in db.search("snapshots") if h.message_id == 29).unreadable == ()


@pytest.mark.parametrize("cell", [f"x'{BLOB_TEXT.hex()}'", f"CAST(x'{BLOB_TEXT.hex()}' AS TEXT)"],
                         ids=["blob", "text-not-utf8"])
def test_content_of_another_type_is_read_as_text(upstream_home: Path, cell: str) -> None:
    shown = SHOWN_TEXT
    spoil(upstream_home, f"UPDATE messages SET content = {cell} WHERE id = 28")
    before = digest(upstream_home)
    with SessionDB.open_home(upstream_home) as db:
        first = db.get_messages(BACKUP)[0]
        assert first.content == shown and first.text == shown
        assert transcript_message(db, BACKUP, 28)["content"] == shown
        out = StringIO()
        assert db.export_jsonl(out) == 12  # every session, the spoiled one among them
        records = {r["id"]: r for r in map(json.loads, out.getvalue().splitlines())}
        assert records[BACKUP]["messages"][0]["content"] == shown
        listed = {s.id: s for s in db.list_sessions(limit=0)}
        assert len(listed) == 12 and listed[BACKUP].preview == shown
        assert db.tree(BACKUP)[0].session.id == BACKUP
        hits = db.search("restic")
        assert any(h.message_id == 28 and "\ufffd" in h.snippet for h in hits)
        json.dumps([h.to_json() for h in hits])
    assert digest(upstream_home) == before


def test_a_blob_role_is_read_as_text(upstream_home: Path) -> None:
    shown = "\ufffd"
    spoil(upstream_home, "UPDATE messages SET role = x'ff' WHERE id = 29")
    with SessionDB.open_home(upstream_home) as db:
        assert db.get_messages(BACKUP)[1].role == shown
        assert transcript_message(db, BACKUP, 29)["role"] == shown
        hit = next(h for h in db.search("snapshots") if h.message_id == 29)
        assert hit.role == shown
        json.dumps([h.to_json() for h in db.search("snapshots")])
        json.dumps(db.load_transcript(BACKUP))


def test_cells_the_shared_schema_rules_out_are_read_too() -> None:
    """The shared table says TEXT NOT NULL (numbers become text on write), but a program with
    another table may hand back a NULL role, an integer content or a float call list."""
    got = stored_message((5, "s", None, 42, "noon", 7, 1.5, b"\xff", None, b"why"))
    assert (got.role, got.content, got.timestamp, got.tool_call_id, got.tool_calls, got.tool_name,
            got.reasoning) == ("", "42", None, "7", None, "\ufffd", "why")
    json.dumps(got.to_dict())


def test_tool_calls_that_are_not_calls_are_dropped(upstream_home: Path) -> None:
    with SessionDB.open_home(upstream_home) as db:
        for cell in ("'not json{'", "'[1, \"x\", null]'", "x'ff5b'", "'{\"id\": 1}'"):
            with closing(sqlite3.connect(upstream_home / "state.db")) as conn, conn:
                conn.execute(f"UPDATE messages SET tool_calls = {cell} WHERE id = 11")
            assert db.get_messages(CERT)[1].tool_calls is None, cell
            assert "tool_calls" not in transcript_message(db, CERT, 11)
            json.dumps(db.load_transcript(CERT))


def test_good_calls_next_to_a_bad_item_are_kept(upstream_home: Path) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": "{}"}}
    spoil(upstream_home, f"UPDATE messages SET tool_calls = '{json.dumps([call, 3])}' WHERE id = 11")
    with SessionDB.open_home(upstream_home) as db:
        assert db.get_messages(CERT)[1].tool_calls == [call]


def test_the_other_text_cells_of_a_tool_result_are_read_as_text(upstream_home: Path) -> None:
    spoil(upstream_home, "UPDATE messages SET tool_call_id = x'ff', tool_name = x'6e6574', "
                         "finish_reason = 3, reasoning = x'ff' WHERE id = 12")
    with SessionDB.open_home(upstream_home) as db:
        got = transcript_message(db, CERT, 12)
        assert (got["tool_call_id"], got["name"], got["finish_reason"], got["reasoning"]) == ("\ufffd", "net", "3", "\ufffd")
        out = StringIO()
        db.export_jsonl(out, session_id=CERT, redact=lambda text: text)
        json.loads(out.getvalue())


@pytest.mark.parametrize("query", ["告警", "告警规则", "alerts"], ids=["short", "trigram", "word"])
def test_every_search_route_takes_a_blob_content(upstream_home: Path, query: str) -> None:
    blob = "帮我整理告警规则 alerts ".encode() + b"\xff"
    spoil(upstream_home, f"UPDATE messages SET content = x'{blob.hex()}', timestamp = 'noon' WHERE id = 1")
    with SessionDB.open_home(upstream_home) as db:
        for newest_first in (False, True):
            hit = next(h for h in db.search(query, newest_first=newest_first) if h.message_id == 1)
            assert "\ufffd" in hit.snippet and hit.to_json()["timestamp"] is None


def test_a_blob_title_in_a_search_hit_is_no_title(upstream_home: Path) -> None:
    spoil(upstream_home, f"UPDATE sessions SET title = x'ff' WHERE id = '{BACKUP}'")
    with SessionDB.open_home(upstream_home) as db:
        hits = [h for h in db.search("snapshots") if h.session_id == BACKUP]
        assert hits and all(h.title is None for h in hits)
        json.dumps([h.to_json() for h in hits])


def test_the_interactive_reader_takes_the_bad_row(upstream_home: Path) -> None:
    spoil(upstream_home, f"UPDATE messages SET timestamp = 'noon', content = x'{BLOB_TEXT.hex()}' WHERE id = 28")
    with SessionDB.open_home(upstream_home) as db:
        reader = db.reader()
        try:
            for newest_first in (False, True):
                hits = reader.search("restic", limit=20, newest_first=newest_first) or []
                hit = next(h for h in hits if h.message_id == 28)
                assert hit.to_json()["timestamp"] is None and "\ufffd" in hit.snippet
        finally:
            reader.close()
