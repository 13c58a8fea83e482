"""Compression end to end: a tiny context window, 40 turns, a lineage of sessions that resumes at its tip."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from engine.agent import Agent
from engine.compression import SUMMARY_END_MARKER, SUMMARY_PREFIX
from engine.config import load_config
from engine.events import CompressionDone, Notice, SessionSwitched
from engine.store import SessionDB
from hermes_tui.cli import main
from hermes_tui.loopback_llm import HttpError, LoopbackLLM, Reply

WINDOW = 8000


def responder(body: dict) -> Reply:
    if not body.get("tools"):  # the summarizer's call
        return Reply(text="## Goal\nKeep the payment service migration moving.\n## Remaining Work\nMore turns.")
    n = sum(1 for m in body["messages"] if m["role"] == "user")
    return Reply(text=f"Reply {n}: " + "the migration continues with more detail. " * 12)


def write_home(tmp_path: Path, llm: LoopbackLLM) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    config = {
        "model": {"provider": "openai", "name": "tiny", "base_url": llm.base_url_openai, "context_length": WINDOW},
        "compression": {"threshold": 0.5, "target_ratio": 0.3, "protect_first_n": 2, "protect_last_n": 4},
    }
    (home / "config.yaml").write_text(yaml.safe_dump(config))
    return home


class Events(list):
    def __call__(self, event: Any) -> None:
        self.append(event)


def agent_after_turns(tmp_path: Path, llm: LoopbackLLM, message: str, turns: int = 14) -> tuple[Agent, SessionDB]:
    """An agent whose session holds ``turns`` exchanges (enough to have a middle to compress)."""
    home = write_home(tmp_path, llm)
    db = SessionDB.open_home(home)
    agent = Agent.start(load_config(home), db, source="cli", cwd=home)
    for n in range(1, turns + 1):
        agent.run_turn(message.format(n=n), Events())
    return agent, db


def test_forty_turns_make_a_lineage_that_resumes_at_its_tip(tmp_path: Path, capsys: Any) -> None:
    with LoopbackLLM(responder=responder) as llm:
        home = write_home(tmp_path, llm)
        db = SessionDB.open_home(home)
        agent = Agent.start(load_config(home), db, source="cli", cwd=home)
        events = Events()
        agent.run_turn("Migrate the payment service to PostgreSQL; files in src/payments/", events)
        agent.set_title("Payments")
        for turn in range(2, 41):
            agent.run_turn(f"Turn {turn}: continue the migration", events)
        switches = [e for e in events if isinstance(e, SessionSwitched) and e.reason == "compression"]
        assert len(switches) >= 2, "40 turns in an 8k window must compress at least twice"
        assert all(isinstance(e, CompressionDone) for e in events if type(e).__name__ == "CompressionDone")
        assert any("compressed" in e.message for e in events if isinstance(e, Notice)), "the hint after two compressions"
        tip = agent.session_id
        lineage = db.lineage_ids(tip or "")
        assert len(lineage) >= 3
        titles = [db.require_session(sid).title for sid in lineage]
        assert titles[:3] == ["Payments", "Payments #2", "Payments #3"]
        for sid in lineage[:-1]:
            assert db.require_session(sid).end_reason == "compression"

        # The first request after a compression carries the summary frame and the last user message.
        switch_index = next(i for i, e in enumerate(events) if isinstance(e, SessionSwitched))
        user_turns_before = sum(1 for e in events[:switch_index] if type(e).__name__ == "TurnStarted")
        after = next(json.loads(r.body_bytes) for r in llm.requests
                     if r.json.get("tools") and sum(m["role"] == "user" for m in r.json["messages"]) and
                     any(SUMMARY_PREFIX[:30] in str(m.get("content")) for m in r.json["messages"]))
        text = json.dumps(after["messages"], ensure_ascii=False)
        assert SUMMARY_PREFIX[:30] in text and SUMMARY_END_MARKER[:40] in text
        assert f"Turn {user_turns_before}: continue the migration" in text

        # Every message of every turn is in state.db exactly once across the lineage (nothing lost).
        stored_users = [m["content"] for sid in lineage for m in db.load_transcript(sid)
                        if m["role"] == "user" and str(m["content"]).startswith("Turn ")]
        assert len(set(stored_users)) == 39
        agent.close()
        db.close()

        assert main(["--home", str(home), "sessions", "tree", lineage[0], "--json"]) == 0
        tree = json.loads(capsys.readouterr().out)
        node, depth = (tree[0] if isinstance(tree, list) else tree), 1
        while node["children"]:
            node, depth = node["children"][0], depth + 1
        assert depth >= 3 and node["id"] == tip

        assert main(["--home", str(home), "chat", "-c", "-q", "where were we?", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["session_id"] == tip


def test_summarizer_failure_uses_the_fallback_and_still_rotates(tmp_path: Path) -> None:
    with LoopbackLLM(responder=responder) as llm:
        agent, db = agent_after_turns(tmp_path, llm, "Turn {n}: keep going with src/app.py")
        llm.responder = lambda body: HttpError(500) if "compress conversations" in str(body["messages"][0]) else responder(body)
        agent.aux["compression"]._retry.sleep = lambda _s: None  # type: ignore[union-attr]
        events = Events()
        old = agent.session_id
        agent.compress("the app module", events)
        done = [e for e in events if isinstance(e, CompressionDone)]
        assert done and done[0].used_fallback
        assert agent.session_id != old and db.require_session(old or "").end_reason == "compression"
        summary = json.dumps(agent.messages, ensure_ascii=False)
        assert "src/app.py" in summary and "Turn 14: keep going" in summary


def test_branch_forks_and_keeps_the_parent(tmp_path: Path) -> None:
    with LoopbackLLM(responder=responder) as llm:
        home = write_home(tmp_path, llm)
        db = SessionDB.open_home(home)
        agent = Agent.start(load_config(home), db, source="cli", cwd=home)
        agent.run_turn("Plan the release", Events())
        agent.set_title("Release")
        parent, parent_prompt = agent.session_id, agent.system_prompt
        events = Events()
        agent.branch(None, events)
        assert agent.session_id != parent and agent.title == "Release #2"
        assert agent.system_prompt == parent_prompt, "a branch keeps the cached prefix"
        assert db.require_session(parent or "").end_reason == "branched"
        assert [m["content"] for m in db.load_transcript(agent.session_id or "")] == [
            m["content"] for m in db.load_transcript(parent or "")]
        agent.run_turn("Alternative plan", Events())
        assert len(db.load_transcript(parent or "")) == 2


def test_a_failed_rotation_leaves_the_lineage_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with LoopbackLLM(responder=responder) as llm:
        agent, db = agent_after_turns(tmp_path, llm, "Turn {n}")
        old = agent.session_id or ""
        before = db.load_transcript(old)

        def crash(*_a: Any, **_k: Any) -> None:
            raise OSError("disk vanished mid-rotation")

        monkeypatch.setattr("engine.store.db.end_in_transaction", crash)
        events = Events()
        agent.compress(None, events)
        monkeypatch.undo()
        assert any("disk vanished" in e.message for e in events if isinstance(e, Notice))
        assert [s.id for s in db.list_sessions(limit=0)] == [old]
        session = db.require_session(old)
        assert session.ended_at is None and db.load_transcript(old) == before
        agent.run_turn("still works", Events())
        assert agent.session_id == old and len(db.load_transcript(old)) == len(before) + 2
