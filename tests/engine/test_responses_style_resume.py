"""Resuming a session upstream stored with Responses-style tool calls (``id`` ``fc_1``,
``call_id`` ``call_1``, result ``tool_call_id`` ``call_1``): the next request carries the real
result under the id it answers, in either wire format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from engine.agent import Agent
from engine.config import load_config
from engine.prompt.request_view import MISSING_RESULT
from engine.store import SessionDB
from hermes_tui.loopback_llm import LoopbackLLM, Reply

ARGS = json.dumps({"command": "systemctl status certbot.timer"})
STORED = [
    {"role": "user", "content": "is certbot renewing?"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "fc_1", "call_id": "call_1", "response_item_id": "fc_1", "type": "function",
         "function": {"name": "terminal", "arguments": ARGS}}]},
    {"role": "tool", "tool_call_id": "call_1", "tool_name": "terminal", "content": "active (waiting) since Mon"},
    {"role": "assistant", "content": "Yes: the timer is active."},
]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_resumed_responses_style_call_sends_its_real_result(tmp_path: Path, provider: str) -> None:
    with LoopbackLLM([Reply(text="It renews twice a day.")], side_responder=lambda _b: Reply(text="t")) as llm:
        home = tmp_path / "home"
        home.mkdir()
        base = llm.base_url_openai if provider == "openai" else llm.base_url_anthropic
        (home / "config.yaml").write_text(yaml.safe_dump(
            {"model": {"provider": provider, "name": "test-model", "base_url": base}, "memory": {"nudge_interval": 0}}))
        with SessionDB.open_home(home) as db:
            session_id = db.create_session(model="test-model", system_prompt="You are Hermes.")
            db.append_messages(session_id, STORED)
        db = SessionDB.open_home(home)
        agent = Agent.start(load_config(home), db, resume=session_id, source="cli", cwd=home)
        agent.run_turn("how often?", lambda _event: None)
        agent.close()
        db.close()
        body = next(r.json for r in llm.requests if r.json.get("tools"))
    sent = json.dumps(body)
    assert "active (waiting) since Mon" in sent and MISSING_RESULT not in sent and "fc_1" not in sent
    if provider == "openai":
        call_message = next(m for m in body["messages"] if m.get("tool_calls"))
        result = next(m for m in body["messages"] if m["role"] == "tool")
        assert [c["id"] for c in call_message["tool_calls"]] == ["call_1"] and result["tool_call_id"] == "call_1"
    else:
        blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
        assert [b["id"] for b in blocks if b["type"] == "tool_use"] == ["call_1"]
        assert [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"] == ["call_1"]
