"""Sessions and messages: creation, listing order, counters, canonical round trip, incremental flush."""

from __future__ import annotations

import re
import sqlite3
import threading
from pathlib import Path

import pytest

from engine import clock
from engine.errors import BadInputError, NotFoundError
from engine.store import SessionDB, TranscriptWriter
from tests.conftest import FIXED_NOW

TURN = [
    {"role": "user", "content": [{"type": "text", "text": "what is on screen?"},
                                 {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}]},
    {"role": "assistant", "content": None, "reasoning": "look first",
     "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "terminal", "arguments": '{"c": "ls"}'}}]},
    {"role": "tool", "tool_call_id": "call_1", "name": "terminal", "content": "a.txt"},
    {"role": "assistant", "content": "One file.", "finish_reason": "stop"},
]


def test_create_and_read_back(db: SessionDB) -> None:
    sid = db.create_session(source="telegram", model="m1", system_prompt="You are Hermes.", cwd="/w",
                            model_config={"temperature": 0.2}, title="First")
    assert re.fullmatch(r"20261130_120000_[0-9a-f]{6}", sid)
    s = db.require_session(sid)
    assert (s.source, s.model, s.system_prompt, s.cwd, s.title, s.started_at) == (
        "telegram", "m1", "You are Hermes.", "/w", "First", FIXED_NOW)
    assert s.model_config == {"temperature": 0.2}
    assert s.ended_at is None and s.last_active == FIXED_NOW
    assert db.get_session("missing") is None


def test_transcript_round_trip_and_multimodal_text(db: SessionDB) -> None:
    sid = db.create_session()
    ids = db.append_messages(sid, TURN)
    assert ids == sorted(ids) and len(ids) == 4
    loaded = db.load_transcript(sid)
    assert loaded[0]["content"] == TURN[0]["content"]  # the parts, replayable as they were
    assert db.get_messages(sid)[0].text == "what is on screen?\n[image]"
    assert loaded[1] == {"role": "assistant", "content": None, "tool_calls": TURN[1]["tool_calls"],
                         "reasoning": "look first", "timestamp": FIXED_NOW}
    assert loaded[2] == {"role": "tool", "content": "a.txt", "tool_call_id": "call_1", "name": "terminal",
                         "timestamp": FIXED_NOW}
    assert loaded[3]["finish_reason"] == "stop"
    assert [m.id for m in db.get_messages(sid, offset=1, limit=2)] == ids[1:3]
    assert [db.message_offset(sid, i) for i in ids] == [0, 1, 2, 3]
    other = db.create_session()
    assert db.message_offset(other, ids[2]) is None and db.message_offset(sid, ids[-1] + 1) is None


def test_counters_are_bumped_per_append(db: SessionDB) -> None:
    sid = db.create_session()
    db.append_messages(sid, TURN)
    db.append_messages(sid, TURN[:1])
    db.add_usage(sid, input_tokens=10, output_tokens=5, cache_read_tokens=3, cache_write_tokens=2,
                 reasoning_tokens=1, api_calls=2)
    db.add_usage(sid, input_tokens=1)
    s = db.require_session(sid)
    assert (s.message_count, s.tool_call_count) == (5, 1)
    assert (s.input_tokens, s.output_tokens, s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens,
            s.api_call_count) == (11, 5, 3, 2, 1, 2)


def test_end_reopen_and_system_prompt(db: SessionDB) -> None:
    sid = db.create_session()
    db.set_system_prompt(sid, "snapshot")
    db.end_session(sid, "user_exit")
    s = db.require_session(sid)
    assert (s.system_prompt, s.end_reason, s.ended_at) == ("snapshot", "user_exit", FIXED_NOW)
    db.reopen_session(sid)
    assert db.require_session(sid).ended_at is None


def test_list_orders_by_last_activity_with_source_limit_offset(db: SessionDB) -> None:
    times = iter([100.0, 200.0, 300.0, 400.0, 500.0])
    clock.set_clock(lambda: next(times))
    a = db.create_session(session_id="a")  # started 100
    b = db.create_session(session_id="b", source="telegram")  # 200
    c = db.create_session(session_id="c")  # 300, no messages
    db.append_messages(a, [{"role": "user", "content": "late", "timestamp": 350.0}])
    db.append_messages(b, [{"role": "user", "content": "early", "timestamp": 250.0}])
    assert [s.id for s in db.list_sessions()] == [a, c, b]
    assert db.require_session(a).last_active == 350.0
    assert [s.id for s in db.list_sessions(limit=1, offset=1)] == [c]
    assert [s.id for s in db.list_sessions(source="telegram")] == [b]
    assert [s.id for s in db.list_sessions(limit=0)] == [a, c, b]
    assert db.list_sessions()[0].preview == "late"


def test_listing_pages_through_long_histories(db: SessionDB) -> None:
    busy, quiet = db.create_session(session_id="busy"), db.create_session(session_id="quiet")
    db.append_messages(quiet, [{"role": "user", "content": "q", "timestamp": FIXED_NOW + 1}])
    db.append_messages(busy, [{"role": "user", "content": str(i), "timestamp": FIXED_NOW + 2 + i} for i in range(600)])
    assert [s.id for s in db.list_sessions()] == [busy, quiet]


def test_writer_flushes_only_new_messages(db: SessionDB) -> None:
    sid = db.create_session()
    writer = TranscriptWriter(db, sid)
    transcript = list(TURN[:2])
    assert writer.flush(transcript) == 2
    assert writer.flush(transcript) == 0  # a second exit path: nothing duplicated
    transcript += TURN[2:]
    assert writer.flush(transcript) == 2
    assert len(db.get_messages(sid)) == 4 and db.require_session(sid).message_count == 4
    with pytest.raises(BadInputError, match="only grow"):
        writer.flush(transcript[:1])


def test_writer_switch_and_failed_flush_keeps_cursor(db: SessionDB) -> None:
    old, new = db.create_session(), db.create_session()
    writer = TranscriptWriter(db, old)
    writer.flush(TURN[:1])
    compressed = [{"role": "user", "content": "summary"}, TURN[0]]
    db.append_messages(new, compressed)
    writer.switch(new, flushed=2)
    assert writer.flush([*compressed, TURN[3]]) == 1
    assert [m.text for m in db.get_messages(new)] == ["summary", "what is on screen?\n[image]", "One file."]
    lost = TranscriptWriter(db, "gone")
    with pytest.raises(NotFoundError):
        lost.flush(TURN)
    assert lost.flushed == 0
    with pytest.raises(BadInputError):
        TranscriptWriter(db, old, flushed=-1)


def _raw(db: SessionDB, sql: str, params: tuple = ()) -> None:
    """A write made the way upstream Hermes makes it: plain SQL on its own connection."""
    with sqlite3.connect(db.path) as conn:
        conn.execute(sql, params)


def test_activity_marks_follow_writes_by_other_programs(db: SessionDB) -> None:
    a, b = db.create_session(session_id="a"), db.create_session(session_id="b")
    db.append_messages(a, [{"role": "user", "content": "x", "timestamp": FIXED_NOW + 10}])
    db.append_messages(b, [{"role": "user", "content": "y", "timestamp": FIXED_NOW + 20}])
    assert [s.id for s in db.list_sessions()] == ["b", "a"]
    _raw(db, "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('a', 'user', 'z', ?)",
         (FIXED_NOW + 30,))
    assert [s.id for s in db.list_sessions()] == ["a", "b"]
    _raw(db, "DELETE FROM messages WHERE content = 'z'")  # the newest goes: the one before takes over
    assert [s.id for s in db.list_sessions()] == ["b", "a"]
    _raw(db, "UPDATE messages SET timestamp = ? WHERE content = 'x'", (FIXED_NOW + 40,))
    assert [s.id for s in db.list_sessions()] == ["a", "b"]
    _raw(db, "DELETE FROM messages WHERE session_id = 'a'")  # no messages left: its start time counts
    assert [(s.id, s.last_active) for s in db.list_sessions()] == [("b", FIXED_NOW + 20), ("a", FIXED_NOW)]


def test_activity_marks_are_rebuilt_when_a_trigger_was_lost(tmp_path: Path) -> None:
    with SessionDB.open_home(tmp_path) as db:
        a, b = db.create_session(session_id="a"), db.create_session(session_id="b")
        db.append_messages(a, [{"role": "user", "content": "x", "timestamp": FIXED_NOW + 10}])
        db.append_messages(b, [{"role": "user", "content": "y", "timestamp": FIXED_NOW + 20}])
        _raw(db, "DROP TRIGGER hermes_tui_activity_insert")  # e.g. another program rebuilt the table
        _raw(db, "INSERT INTO messages (session_id, role, content, timestamp) VALUES ('a', 'user', 'z', ?)",
             (FIXED_NOW + 30,))
    with SessionDB.open_home(tmp_path) as db:
        assert [s.id for s in db.list_sessions()] == ["a", "b"]
        db.append_messages(b, [{"role": "user", "content": "w", "timestamp": FIXED_NOW + 40}])
        assert [s.id for s in db.list_sessions()] == ["b", "a"]


def test_the_change_mark_moves_with_every_commit_by_this_connection_or_another(db: SessionDB, tmp_path: Path) -> None:
    sid = db.create_session(title="Marked")
    before = db.change_mark()
    assert before is not None and db.change_mark() == before  # reading changes nothing
    db.list_sessions()
    assert db.change_mark() == before
    db.set_title(sid, "Marked again")  # this connection
    after_own = db.change_mark()
    assert after_own not in (None, before)
    with SessionDB.open_home(tmp_path / "home") as other:  # another connection, as another program
        other.append_messages(sid, [{"role": "user", "content": "hello"}])
    assert db.change_mark() not in (None, after_own)


def test_the_change_mark_does_not_wait_for_a_long_write(db: SessionDB) -> None:
    held, release = threading.Event(), threading.Event()

    def long_write() -> None:
        with db._lock:  # as a write in another thread holds the connection
            held.set()
            release.wait(10)

    writer = threading.Thread(target=long_write)
    writer.start()
    held.wait(10)
    try:
        assert db.change_mark() is None  # counts as changed: the caller reads afresh
    finally:
        release.set()
        writer.join()
