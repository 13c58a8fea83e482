"""The live session on its own: created with its first message, loaded with its stored prompt,
ended, resumed, branched, and logged — against the real store, with the side jobs stubbed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest

from engine.events import Notice, Recap, SessionSwitched
from engine.live_session import LiveSession, SessionLogger
from engine.providers import ChatRequest, TokenUsage
from engine.recall import RecallManager
from engine.security.redact import redact
from engine.store import SessionDB
from engine.usage import UsageMeter


class Reviews:
    """Stands in for the background reviewer: records which sessions were reviewed at their end."""

    def __init__(self) -> None:
        self.reviewed: list[str] = []

    def review_now(self, session_id: str, messages: list[dict], on_event: Any) -> None:
        self.reviewed.append(session_id)


class Prompts:
    """Numbered snapshots, so a test can tell a rebuilt prompt from a stored one."""

    def __init__(self) -> None:
        self.built = 0

    def __call__(self) -> str:
        self.built += 1
        return f"system prompt #{self.built}"


@pytest.fixture
def db(tmp_path: Path) -> Iterator[SessionDB]:
    with SessionDB.open_home(tmp_path) as store:
        yield store


def live(db: SessionDB, tmp_path: Path, *, model: str = "m1", log: SessionLogger | None = None,
         warnings: list[str] | None = None) -> LiveSession:
    return LiveSession(db, model=model, source="cli", cwd=tmp_path, recall=RecallManager(), reviewer=Reviews(),  # type: ignore[arg-type]
                       usage=UsageMeter(db, 8000), new_prompt=Prompts(), log=log,
                       warn=(warnings if warnings is not None else []).append)


def say(session: LiveSession, *texts: str) -> None:
    for n, text in enumerate(texts):
        session.ensure()
        session.append({"role": "user" if n % 2 == 0 else "assistant", "content": text, "timestamp": 1.0 + n})


def test_the_session_is_created_with_its_first_message_and_every_message_is_stored_at_once(
        db: SessionDB, tmp_path: Path) -> None:
    session = live(db, tmp_path)
    session.open(resume=None, continue_title=None)
    assert session.session_id is None and session.system_prompt == "system prompt #1"
    say(session, "hello")
    first = session.session_id
    say(session, "hello", "hi there")
    assert session.session_id == first
    assert [m["content"] for m in db.load_transcript(first)] == ["hello", "hello", "hi there"]
    assert db.require_session(first).system_prompt == "system prompt #1"


def test_a_resumed_session_keeps_its_stored_prompt_unless_the_model_changed(db: SessionDB, tmp_path: Path) -> None:
    session_id = db.create_session(source="cli", model="m1", system_prompt="stored  prompt\n")
    same = live(db, tmp_path)
    same.open(resume=session_id, continue_title=None)
    assert same.system_prompt == "stored  prompt\n" and same.new_prompt.built == 0  # type: ignore[attr-defined]
    other = live(db, tmp_path, model="m2")
    other.load(session_id)
    assert other.system_prompt == "system prompt #1"
    assert db.require_session(session_id).system_prompt == "system prompt #1"


def test_new_ends_the_session_with_its_review_and_starts_over(db: SessionDB, tmp_path: Path) -> None:
    session = live(db, tmp_path)
    session.open(resume=None, continue_title=None)
    say(session, "hello", "hi")
    old = session.session_id
    session.usage.record(old or "", TokenUsage(input_tokens=900), ChatRequest(system="", messages=[]), recall=False)
    events: list[Any] = []
    session.start_new(events.append)
    assert events == [SessionSwitched(old, "", "new")]
    assert session.reviewer.reviewed == [old]  # type: ignore[attr-defined]
    assert db.require_session(old or "").end_reason == "user_exit"
    assert (session.session_id, session.messages, session.usage.last_prompt_tokens) == (None, [], None)
    assert session.usage.totals.input_tokens == 0 and session.system_prompt == "system prompt #2"


def test_resume_switches_with_a_recap_and_the_same_session_is_not_ended(db: SessionDB, tmp_path: Path) -> None:
    earlier = live(db, tmp_path)
    earlier.open(resume=None, continue_title=None)
    say(earlier, "what is a quokka?", "A small marsupial.")
    target = earlier.session_id or ""
    session = live(db, tmp_path)
    session.open(resume=None, continue_title=None)
    say(session, "unrelated")
    old = session.session_id
    events: list[Any] = []
    session.resume(target, events.append)
    assert events == [SessionSwitched(old, target, "resume", None),
                      Recap(target, (("what is a quokka?", "A small marsupial."),))]
    assert db.require_session(old or "").end_reason == "user_exit" and session.session_id == target
    again: list[Any] = []
    session.resume(target, again.append)
    assert db.require_session(target).ended_at is None and isinstance(again[0], SessionSwitched)


def test_a_branch_is_a_child_with_the_numbered_title_and_nothing_to_branch_says_so(
        db: SessionDB, tmp_path: Path) -> None:
    session = live(db, tmp_path)
    session.open(resume=None, continue_title=None)
    events: list[Any] = []
    session.branch(None, events.append)
    assert events == [Notice("Nothing to branch yet: send a message first.", "information")]
    say(session, "plan the trip", "Day one: the coast.")
    session.set_title("Trip")
    parent = session.session_id or ""
    session.branch(None, events.append)
    child = db.require_session(session.session_id or "")
    assert child.parent_session_id == parent and child.title == "Trip #2"
    assert db.require_session(parent).end_reason == "branched"
    assert [m["content"] for m in db.load_transcript(child.id)] == ["plan the trip", "Day one: the coast."]
    assert events[-1] == SessionSwitched(parent, child.id, "branch", "Trip #2")


def test_the_json_log_is_written_on_flush_and_a_failed_write_is_a_warning(db: SessionDB, tmp_path: Path) -> None:
    logger = SessionLogger(tmp_path, "m1", None, "cli", [], redact)
    session = live(db, tmp_path, log=logger)
    say(session, "my token is sk-ant-abcdefghijklmnopqrstuvwxyz0123456789")
    logged = json.loads((tmp_path / "sessions" / f"session_{session.session_id}.json").read_text())
    assert logged["message_count"] == 1 and "abcdefghijklmnop" not in logged["messages"][0]["content"]
    warnings: list[str] = []
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "sessions").write_text("a file where the folder should be")
    failing = live(db, tmp_path, log=SessionLogger(blocked, "m1", None, "cli", [], redact), warnings=warnings)
    say(failing, "hello")
    assert len(warnings) == 1 and warnings[0].startswith("JSON session log not written:")
    assert db.load_transcript(failing.session_id or "")[0]["content"] == "hello"  # the turn is not failed
