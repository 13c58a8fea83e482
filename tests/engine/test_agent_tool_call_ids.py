"""A session that repeats the same id-less tool call: every call's id is unique in the requests,
the stored ids are what every later request and a resume send, and a replay makes the same ids."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from engine.agent import Agent
from engine.config import load_config
from engine.store import SessionDB
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec

SEARCH = json.dumps({"query": "migration"})
REPEATS = 6  # bench/bench_prefix.py's 30-turn session made this call six times, all "call_0be4b8d3ac5e"


def answers_a_result(message: dict) -> bool:
    """A tool result, in either wire format (Anthropic's is a user message of tool_result blocks)."""
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    return message["role"] == "tool" or any(block.get("type") == "tool_result" for block in blocks)


def responder(body: dict) -> Reply:
    """The model searches (without an id) after each user message, then answers."""
    if answers_a_result(body["messages"][-1]):
        return Reply(text="Nothing new on the migration.")
    return Reply(tool_calls=[ToolCallSpec("session_search", SEARCH)])


@pytest.fixture
def llm() -> Iterator[LoopbackLLM]:
    with LoopbackLLM(responder=responder, side_responder=lambda _body: Reply(text="Migration notes")) as server:
        yield server


def make_home(path: Path, llm: LoopbackLLM, provider: str) -> Path:
    path.mkdir()
    base = llm.base_url_openai if provider == "openai" else llm.base_url_anthropic
    config: dict[str, Any] = {"model": {"provider": provider, "name": "test-model", "base_url": base},
                              "memory": {"nudge_interval": 0}}
    (path / "config.yaml").write_text(yaml.safe_dump(config))
    return path


def start(home: Path, **kwargs: Any) -> Agent:
    return Agent.start(load_config(home), SessionDB.open_home(home), source="cli", cwd=home, **kwargs)


def sent_ids(body: dict) -> list[str]:
    """The tool-call ids a request carries, in either wire format."""
    ids = []
    for message in body["messages"]:
        for call in message.get("tool_calls") or ():
            ids.append(call["id"])
        content = message.get("content")
        if isinstance(content, list):
            ids += [block["id"] for block in content if block.get("type") == "tool_use"]
    return ids


def conversation_bodies(llm: LoopbackLLM) -> list[dict]:
    return [r.json for r in llm.requests if r.json.get("tools")]


def run_session(home: Path, turns: int) -> str:
    agent = start(home)
    for n in range(turns):
        agent.run_turn(f"turn {n}: anything new on the migration?", lambda _event: None)
    session_id = agent.session_id or ""
    agent.close()
    agent.db.close()
    return session_id


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_repeated_idless_calls_get_unique_ids_that_never_change(tmp_path: Path, llm: LoopbackLLM,
                                                                provider: str) -> None:
    home = make_home(tmp_path / "home", llm, provider)
    session_id = run_session(home, REPEATS)
    last = conversation_bodies(llm)[-1]
    ids = sent_ids(last)
    assert len(ids) == REPEATS and len(set(ids)) == REPEATS
    assert ids[0] == "call_0be4b8d3ac5e"

    with SessionDB.open_home(home) as db:
        stored = [c["id"] for m in db.load_transcript(session_id) for c in m.get("tool_calls") or ()]
    assert stored == ids  # what is sent is what was stored

    agent = start(home, resume=session_id)  # a resume replays the stored ids, byte for byte
    agent.run_turn("one more time?", lambda _event: None)
    agent.close()
    agent.db.close()
    after_resume = sent_ids(conversation_bodies(llm)[-1])
    assert after_resume[:REPEATS] == ids and len(set(after_resume)) == REPEATS + 1


def test_a_replay_of_the_same_session_makes_the_same_ids(tmp_path: Path, llm: LoopbackLLM) -> None:
    run_session(make_home(tmp_path / "first", llm, "openai"), 3)
    first = sent_ids(conversation_bodies(llm)[-1])
    llm.requests.clear()
    run_session(make_home(tmp_path / "second", llm, "openai"), 3)
    assert sent_ids(conversation_bodies(llm)[-1]) == first and len(set(first)) == 3
