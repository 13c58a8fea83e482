"""Compressing the live session: when it is due, and what a compression leaves behind — a
continuation child with a fresh snapshot, the last memory review run, the prompt size forgotten."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import pytest

from engine.compression import CompressionSettings, is_summary_message
from engine.events import CompressionDone, Notice, SessionSwitched
from engine.live_compression import LiveCompressor
from engine.live_session import LiveSession
from engine.providers import ChatRequest, TokenUsage
from engine.recall import RecallManager
from engine.store import SessionDB
from engine.usage import UsageMeter
from tests.engine.test_live_session import Prompts, Reviews

SETTINGS = CompressionSettings(threshold=0.5, target_ratio=0.2, protect_first_n=1, protect_last_n=2, context_window=4000)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[SessionDB]:
    with SessionDB.open_home(tmp_path) as store:
        yield store


def setup(db: SessionDB, tmp_path: Path, turns: int = 6) -> tuple[LiveSession, LiveCompressor, Reviews]:
    reviews = Reviews()
    session = LiveSession(db, model="m1", source="cli", cwd=tmp_path, recall=RecallManager(), reviewer=reviews,  # type: ignore[arg-type]
                          usage=UsageMeter(db, SETTINGS.context_window), new_prompt=Prompts(), log=None, warn=[].append)
    session.open(resume=None, continue_title=None)
    session.ensure()
    for n in range(turns):
        session.append({"role": "user", "content": f"step {n}: " + "details " * 40, "timestamp": 1.0 + n})
        session.append({"role": "assistant", "content": f"done {n}: " + "result " * 40, "timestamp": 1.5 + n})
    compressor = LiveCompressor(SETTINGS, reviewer=reviews, recall=RecallManager(),  # type: ignore[arg-type]
                                summary_provider=lambda: None)
    return session, compressor, reviews


def test_due_follows_the_last_prompt_and_estimates_without_one(db: SessionDB, tmp_path: Path) -> None:
    session, compressor, _ = setup(db, tmp_path, turns=1)
    assert not compressor.due(session, [])  # about 200 tokens of a 4,000-token window
    session.usage.record(session.session_id or "", TokenUsage(input_tokens=2500), ChatRequest(system="", messages=[]), recall=False)
    assert compressor.due(session, [])


def test_nothing_to_compress_says_so(db: SessionDB, tmp_path: Path) -> None:
    session = LiveSession(db, model="m1", source="cli", cwd=tmp_path, recall=RecallManager(), reviewer=Reviews(),  # type: ignore[arg-type]
                          usage=UsageMeter(db, 4000), new_prompt=Prompts(), log=None, warn=[].append)
    events: list[Any] = []
    LiveCompressor(SETTINGS, reviewer=Reviews(), recall=RecallManager(),  # type: ignore[arg-type]
                   summary_provider=lambda: None).compress(session, None, [], events.append)
    assert events == [Notice("Nothing to compress yet.", "information")]


def test_a_compression_continues_in_a_child_with_a_fresh_snapshot(db: SessionDB, tmp_path: Path) -> None:
    session, compressor, reviews = setup(db, tmp_path)
    session.set_title("Build log")
    parent = session.session_id or ""
    session.usage.record(parent, TokenUsage(input_tokens=3000), ChatRequest(system="", messages=[]), recall=False)
    events: list[Any] = []
    compressor.compress(session, None, [], events.append)
    child = db.require_session(session.session_id or "")
    assert child.parent_session_id == parent and child.title == "Build log #2"
    assert db.require_session(parent).end_reason == "compression"
    assert reviews.reviewed == [parent]  # what the summary would blur is reviewed for memory first
    assert session.system_prompt == "system prompt #2" == child.system_prompt
    assert session.usage.last_prompt_tokens is None
    assert any(is_summary_message(m) for m in session.messages)
    assert session.messages[-1]["content"].startswith("done 5:")
    switched = [e for e in events if isinstance(e, SessionSwitched)]
    assert switched == [SessionSwitched(parent, child.id, "compression", "Build log #2")]
    done = [e for e in events if isinstance(e, CompressionDone)]
    assert len(done) == 1 and done[0].used_fallback and done[0].removed_messages > 0


def test_the_second_compression_of_a_conversation_suggests_a_fresh_start(db: SessionDB, tmp_path: Path) -> None:
    session, compressor, _ = setup(db, tmp_path)
    compressor.compress(session, None, [], lambda _e: None)
    for n in range(6):
        session.append({"role": "user", "content": f"more {n}: " + "details " * 40, "timestamp": 10.0 + n})
        session.append({"role": "assistant", "content": f"ok {n}: " + "result " * 40, "timestamp": 10.5 + n})
    events: list[Any] = []
    compressor.compress(session, None, [], events.append)
    hints = [e.message for e in events if isinstance(e, Notice)]
    assert any("compressed 2 times" in hint for hint in hints)
