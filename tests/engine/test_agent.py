"""The turn pipeline end to end: the real SDKs against the loopback model, the real store and memory."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from engine import clock
from engine.agent import Agent
from engine.config import load_config
from engine.events import (
    MemoryStaged,
    MemoryWritten,
    Notice,
    TextDelta,
    ToolCallFinished,
    TurnDone,
    TurnFailed,
)
from engine.providers import RetryPolicy, deterministic_tool_call_id, make_provider
from engine.recall import RecallProvider
from engine.store import SessionDB
from hermes_tui.loopback_llm import HttpError, LoopbackLLM, Reply, ToolCallSpec


def side_reply(_body: dict) -> Reply:
    """Titles and memory reviews run in the background; they get their own answer."""
    return Reply(text="Quokka notes")


@pytest.fixture
def llm() -> Iterator[LoopbackLLM]:
    with LoopbackLLM(side_responder=side_reply) as server:
        yield server


def turn_requests(llm: LoopbackLLM) -> list:
    """The conversation's own requests (they offer tools; background calls do not)."""
    return [r for r in llm.requests if r.json.get("tools")]


def make_home(tmp_path: Path, llm: LoopbackLLM, provider: str = "openai", **sections: Any) -> Path:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    base = llm.base_url_openai if provider == "openai" else llm.base_url_anthropic
    config: dict[str, Any] = {"model": {"provider": provider, "name": "test-model", "base_url": base}}
    for name, values in sections.items():
        config.setdefault(name, {}).update(values)
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    return home


class Events(list):
    def __call__(self, event: Any) -> None:
        self.append(event)

    def of(self, kind: type) -> list:
        return [e for e in self if isinstance(e, kind)]

    @property
    def text(self) -> str:
        return "".join(e.text for e in self.of(TextDelta))


def start(home: Path, **kwargs: Any) -> tuple[Agent, SessionDB]:
    db = SessionDB.open_home(home)
    return Agent.start(load_config(home), db, source="cli", cwd=home, **kwargs), db


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_turn_streams_stores_and_counts(tmp_path: Path, llm: LoopbackLLM, provider: str, fixed_clock: float) -> None:
    home = make_home(tmp_path, llm, provider)
    llm.push(Reply(text="Hello **there**."))
    agent, db = start(home)
    events = Events()
    agent.run_turn("hi", events)
    assert events.text == "Hello **there**."
    assert events.of(TurnDone)[0].reply == "Hello **there**."
    session = db.require_session(agent.session_id or "")
    assert session.system_prompt == agent.system_prompt
    assert [(m["role"], m["content"]) for m in db.load_transcript(session.id)] == [
        ("user", "hi"), ("assistant", "Hello **there**.")]
    assert session.api_call_count == 1 and session.input_tokens > 0


def test_system_prompt_is_a_frozen_snapshot_across_memory_writes_and_resume(
    tmp_path: Path, llm: LoopbackLLM, fixed_clock: float
) -> None:
    home = make_home(tmp_path, llm)
    llm.push(
        Reply(tool_calls=[ToolCallSpec("memory", json.dumps({"action": "add", "target": "user", "content": "Prefers tea over coffee"}), id="c1")]),
        Reply(text="Noted."),
        Reply(text="Second."),
        Reply(text="Third."),
    )
    agent, db = start(home)
    events = Events()
    agent.run_turn("remember that I prefer tea", events)
    assert events.of(MemoryWritten) and "Prefers tea" in (home / "memories" / "USER.md").read_text()
    agent.run_turn("again", events)
    systems = {json.loads(r.body_bytes)["messages"][0]["content"] for r in turn_requests(llm)}
    assert len(systems) == 1, "the system prompt changed inside a session"
    assert "Prefers tea" not in systems.pop(), "a memory write leaked into this session's prompt"
    session_id = agent.session_id
    agent.close()

    resumed, _ = start(home, resume=session_id)
    resumed.run_turn("third", Events())
    last = json.loads(turn_requests(llm)[-1].body_bytes)
    first = json.loads(turn_requests(llm)[0].body_bytes)
    assert last["messages"][0] == first["messages"][0], "resume must reuse the stored prompt byte-for-byte"
    assert len(db.load_transcript(session_id or "")) == 8  # no duplicates after resume


def test_tool_call_without_id_gets_a_stable_id_replayed_every_turn(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm)
    args = json.dumps({"query": "decorators"})
    llm.push(Reply(tool_calls=[ToolCallSpec("session_search", args, id=None)]), Reply(text="Found."), Reply(text="Next."))
    agent, db = start(home)
    agent.run_turn("what did we say about decorators?", Events())
    expected = deterministic_tool_call_id("session_search", args, 0)
    second = json.loads(turn_requests(llm)[1].body_bytes)["messages"]
    assert [m.get("tool_call_id") for m in second if m["role"] == "tool"] == [expected]
    agent.run_turn("thanks", Events())
    bodies = [r.body_bytes for r in turn_requests(llm)]
    # Everything before the new user message is replayed byte-for-byte.
    assert bodies[2].startswith(bodies[1][: bodies[1].rindex(b'"tools"')].rsplit(b"]", 1)[0])
    stored = db.load_transcript(agent.session_id or "")
    assert stored[1]["tool_calls"][0]["id"] == expected and stored[2]["tool_call_id"] == expected


def test_bad_tool_calls_become_error_results_and_the_loop_continues(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm)
    llm.push(
        Reply(tool_calls=[ToolCallSpec("memory", "{not json", id="a"), ToolCallSpec("launch_rockets", "{}", id="b")]),
        Reply(text="Sorry about that."),
    )
    agent, _ = start(home)
    events = Events()
    agent.run_turn("go", events)
    finished = events.of(ToolCallFinished)
    assert [f.is_error for f in finished] == [True, True]
    assert "not valid JSON" in finished[0].result
    assert "unknown tool 'launch_rockets'" in finished[1].result
    assert events.of(TurnDone)[0].reply == "Sorry about that."


def test_recall_fence_leak_never_reaches_events_or_store(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm)
    leak = "Sure.\n<memory-context>\n[System note: recalled]\nsecret recall\n</memory-context>\nDone."
    llm.push(Reply(text=leak, chunk_chars=3))
    agent, db = start(home)
    events = Events()
    agent.run_turn("hi", events)
    assert "secret recall" not in events.text and "memory-context" not in events.text
    stored = db.load_transcript(agent.session_id or "")[-1]["content"]
    assert "secret recall" not in stored and stored.startswith("Sure.")


def test_provider_failure_keeps_the_user_message_and_retry_answers_it(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm)
    llm.push(*[HttpError(500)] * 6)
    no_wait = RetryPolicy(sleep=lambda _s: None)
    agent, db = start(home, provider=make_provider(load_config(home).section("model"), retry=no_wait))
    events = Events()
    agent.run_turn("important question", events)
    assert events.of(TurnFailed)
    assert [m["content"] for m in db.load_transcript(agent.session_id or "")] == ["important question"]
    llm.push(Reply(text="Answer."))
    again = Events()
    agent.retry(again)
    assert again.of(TurnDone)[0].reply == "Answer."
    assert [m["role"] for m in db.load_transcript(agent.session_id or "")] == ["user", "assistant"]


class HangingRecall(RecallProvider):
    name = "hanging"

    def prefetch(self, query: str) -> str:
        time.sleep(5)
        return "late"


def test_external_provider_hanging_does_not_cost_the_turn(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm)
    llm.push(Reply(text="Still here."))
    agent, _ = start(home)
    agent.recall.timeout_s = 0.2
    agent.recall.add_provider(HangingRecall())
    events = Events()
    started = time.monotonic()
    agent.run_turn("hi", events)
    assert time.monotonic() - started < 3
    assert events.of(TurnDone)[0].reply == "Still here."
    assert any("did not answer prefetch" in n.message for n in events.of(Notice))


def test_local_recall_goes_into_the_current_user_message_only(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm, memory={"provider": "local"})
    llm.push(Reply(text="A."), Reply(text="B."), Reply(text="C."))
    first, db = start(home)
    first.run_turn("the quokka migration uses postgres", Events())
    first.close()
    agent, _ = start(home)
    agent.run_turn("tell me about the quokka migration", Events())
    agent.run_turn("and then?", Events())
    body = json.loads(turn_requests(llm)[1].body_bytes)
    assert "<memory-context>" in body["messages"][-1]["content"]
    assert "quokka" in body["messages"][-1]["content"].split("<memory-context>")[1]
    assert "memory-context" not in body["messages"][0]["content"]
    later = json.loads(turn_requests(llm)[2].body_bytes)["messages"]
    assert "<memory-context>" not in later[1]["content"], "recall must not stay on earlier turns"
    stored = db.load_transcript(agent.session_id or "")
    assert all("memory-context" not in str(m.get("content")) for m in stored)


def test_write_approval_without_a_prompt_stages_the_write(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm, memory={"write_approval": True})
    llm.push(
        Reply(tool_calls=[ToolCallSpec("memory", json.dumps({"action": "add", "target": "memory", "content": "Project uses Go 1.22"}), id="m")]),
        Reply(text="Staged."),
    )
    agent, _ = start(home)
    events = Events()
    agent.run_turn("remember the Go version", events)
    staged = events.of(MemoryStaged)
    assert staged and (home / "pending" / "memory" / f"{staged[0].pending_id}.json").exists()
    assert not (home / "memories" / "MEMORY.md").exists() or "Go 1.22" not in (home / "memories" / "MEMORY.md").read_text()


def test_cancel_keeps_what_was_shown(tmp_path: Path) -> None:
    with LoopbackLLM(tokens_per_second=200, side_responder=side_reply) as slow:
        home = make_home(tmp_path, slow)
        slow.push(Reply(text="word " * 400, chunk_chars=5))
        agent, db = start(home)
        cancel = threading.Event()
        events = Events()

        def on_event(event: Any) -> None:
            events(event)
            if isinstance(event, TextDelta) and len(events.text) > 50:
                cancel.set()

        agent.run_turn("long please", on_event, cancel)
    done = events.of(TurnDone)[0]
    assert done.cancelled
    stored = db.load_transcript(agent.session_id or "")
    assert stored[-1]["role"] == "assistant" and stored[-1]["content"] == events.text
    assert len(events.text) < len("word " * 400)


def test_no_key_still_starts_and_explains(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    home = tmp_path / "nokey"
    home.mkdir()
    agent, _ = start(home)
    assert agent.provider_problem and "ANTHROPIC_API_KEY" in agent.provider_problem
    assert "base_url" in agent.provider_problem
    events = Events()
    agent.run_turn("hello?", events)
    assert events.of(TurnFailed) and not events.of(TurnFailed)[0].retryable


def test_json_session_log_is_written_redacted_when_enabled(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm, sessions={"write_json_snapshots": True})
    llm.push(Reply(text="Stored."))
    agent, db = start(home)
    agent.run_turn("my key is sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", Events())
    log = json.loads((home / "sessions" / f"session_{agent.session_id}.json").read_text())
    assert log["message_count"] == 2 and log["session_id"] == agent.session_id
    assert "abcdefghijklmnopqrstuvwxyz" not in json.dumps(log)
    assert "abcdefghijklmnopqrstuvwxyz" in db.load_transcript(agent.session_id or "")[0]["content"]


def test_first_exchange_gets_a_title_in_the_background(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm)
    llm.push(Reply(text="Sure."))
    agent, db = start(home)
    agent.run_turn("help me name my quokka", Events())
    agent.wait_for_background(10)
    assert db.require_session(agent.session_id or "").title == "Quokka notes"


def test_auto_prune_runs_at_start_and_keeps_open_sessions(tmp_path: Path, llm: LoopbackLLM, fixed_clock: float) -> None:
    home = make_home(tmp_path, llm, sessions={"auto_prune": True, "retention_days": 30})
    with SessionDB.open_home(home) as db:
        clock.set_clock(lambda: fixed_clock - 100 * 86400)
        old_ended = db.create_session(title="Old and ended")
        db.end_session(old_ended, "user_exit")
        old_open = db.create_session(title="Old but open")
        clock.set_clock(lambda: fixed_clock)
    agent, db = start(home)
    assert db.get_session(old_ended) is None
    assert db.get_session(old_open) is not None


def test_memory_writes_cite_the_session_and_the_message_holding_their_call(
    tmp_path: Path, llm: LoopbackLLM, fixed_clock: float
) -> None:
    """Two calls in one reply cite that reply's row, not the first call's result stored between them."""
    home = make_home(tmp_path, llm)
    calls = [ToolCallSpec("memory", json.dumps({"action": "add", "target": "user", "content": text}), id=f"c{n}")
             for n, text in enumerate(("Prefers tea", "Lives in Lyon"))]
    llm.push(Reply(tool_calls=calls), Reply(text="Noted."))
    agent, db = start(home)
    agent.run_turn("remember two things", Events())
    reply = next(m for m in db.get_messages(agent.session_id or "") if m.tool_calls)
    changes = agent.memory.history.changes("user")
    assert [(c.actor, c.session_id, c.message_id, c.after) for c in changes] == [
        ("model", agent.session_id, reply.id, "Prefers tea"), ("model", agent.session_id, reply.id, "Lives in Lyon")]
