"""Stored turns through the agent: tool calls counted once, structured content replayed as
structure on resume, leaked recall blocks not replayed, lone surrogates in a typed turn."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from engine.agent import Agent
from engine.config import load_config
from engine.store import SessionDB
from engine.store.messages import JSON_PREFIX
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec

PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg=="
PARTS = [{"type": "text", "text": "what is in this picture?"}, {"type": "image_url", "image_url": {"url": PNG}}]


@pytest.fixture
def llm() -> Iterator[LoopbackLLM]:
    with LoopbackLLM(side_responder=lambda _body: Reply(text="Picture notes")) as server:
        yield server


def make_home(tmp_path: Path, llm: LoopbackLLM, provider: str = "openai") -> Path:
    home = tmp_path / "home"
    home.mkdir()
    base = llm.base_url_openai if provider == "openai" else llm.base_url_anthropic
    (home / "config.yaml").write_text(yaml.safe_dump({"model": {"provider": provider, "name": "m", "base_url": base}}))
    return home


def start(home: Path, **kwargs: Any) -> tuple[Agent, SessionDB]:
    db = SessionDB.open_home(home)
    return Agent.start(load_config(home), db, source="cli", cwd=home, **kwargs), db


def turn_bodies(llm: LoopbackLLM) -> list[dict]:
    """The conversation's own requests (they offer tools; background calls do not)."""
    return [json.loads(r.body_bytes) for r in llm.requests if r.json.get("tools")]


def test_one_model_tool_call_counts_once(tmp_path: Path, llm: LoopbackLLM) -> None:
    llm.push(Reply(tool_calls=[ToolCallSpec("session_search", json.dumps({"query": "tea"}), id="c1")]),
             Reply(text="Nothing found."))
    agent, db = start(make_home(tmp_path, llm))
    agent.run_turn("what did I say about tea?", lambda _event: None)
    assert db.require_session(agent.session_id or "").tool_call_count == 1


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_resume_replays_structured_content_as_structure(tmp_path: Path, llm: LoopbackLLM, provider: str) -> None:
    home = make_home(tmp_path, llm, provider)
    with SessionDB.open_home(home) as db:
        sid = db.create_session(model="m")
        db.append_messages(sid, [{"role": "user", "content": PARTS},
                                 {"role": "assistant", "content": {"type": "text", "text": "A red square."}}])
    llm.push(Reply(text="Still red."))
    agent, _ = start(home, resume=sid)
    assert agent.messages[0]["content"] == PARTS
    agent.run_turn("and now?", lambda _event: None)
    [body] = turn_bodies(llm)
    conversation = [m for m in body["messages"] if m["role"] != "system"]
    if provider == "openai":
        assert conversation[0]["content"] == PARTS
        assert conversation[1]["content"] == [{"type": "text", "text": "A red square."}]
    else:
        assert conversation[0]["content"][0] == {"type": "text", "text": "what is in this picture?"}
        assert conversation[0]["content"][1]["source"]["data"] == PNG.split(",", 1)[1]
        assert "A red square." in json.dumps(conversation[1]["content"])
    assert JSON_PREFIX not in json.dumps(body)


def test_a_leaked_recall_block_is_not_replayed_on_resume(tmp_path: Path, llm: LoopbackLLM) -> None:
    home = make_home(tmp_path, llm)
    with SessionDB.open_home(home) as db:
        sid = db.create_session(model="m")
        db.append_messages(sid, [{"role": "user", "content": "how do we deploy?"}])
    leaked = "Blue-green.\n<memory-context>\n[System note: recalled]\nUser prefers tea\n</memory-context>\n"
    with sqlite3.connect(home / "state.db") as conn:  # as an older build wrote it
        conn.execute("INSERT INTO messages (session_id, role, content, timestamp) VALUES (?, 'assistant', ?, 1)",
                     (sid, leaked))
    llm.push(Reply(text="Yes."))
    agent, _ = start(home, resume=sid)
    agent.run_turn("still?", lambda _event: None)
    [body] = turn_bodies(llm)
    assert body["messages"][2]["content"] == "Blue-green."
    assert "prefers tea" not in json.dumps(body)


def test_a_turn_with_lone_surrogates_is_stored_and_sent_with_replacement_characters(
    tmp_path: Path, llm: LoopbackLLM
) -> None:
    llm.push(Reply(text="Café it is."))
    agent, db = start(make_home(tmp_path, llm))
    agent.run_turn("caf\udce9", lambda _event: None)
    assert [m["content"] for m in db.load_transcript(agent.session_id or "")] == ["caf\ufffd", "Café it is."]
    assert turn_bodies(llm)[0]["messages"][-1]["content"] == "caf\ufffd"
