"""Recall fences in the model's tool-call arguments: stripped before the tool runs and before anything is stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.agent import Agent
from engine.config import load_config
from engine.events import ToolCallStarted
from engine.scrub import build_recall_fence, sanitize_arguments
from engine.store import SessionDB
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec

FENCE = build_recall_fence("The user once said they like coffee.")


# ── sanitize_arguments ─────────────────────────────────────────────────────────────────────────
@pytest.mark.parametrize(
    "arguments",
    ['{"action": "add",   "content": "Prefers tea"}', '{"query":"<b>memory</b> context"}', "", "{}", "[1, NaN]",
     '{"content": "mentions \\u003cmemory-context without the bracket"}'],
)
def test_arguments_without_a_fence_come_back_as_the_same_bytes(arguments: str) -> None:
    assert sanitize_arguments(arguments) is arguments


def test_a_block_is_removed_from_every_string_however_deep() -> None:
    arguments = json.dumps({
        "content": f"Prefers tea\n{FENCE}",
        "tags": ["ok", f"x{FENCE}y", {"deep": [FENCE]}],
        "count": 2,
    })
    assert json.loads(sanitize_arguments(arguments)) == {
        "content": "Prefers tea\n", "tags": ["ok", "xy", {"deep": [""]}], "count": 2}


def test_an_inline_block_is_removed_unlike_in_replies() -> None:
    arguments = json.dumps({"content": "Prefers tea <MEMORY-CONTEXT>likes coffee</memory-context> daily"})
    assert json.loads(sanitize_arguments(arguments)) == {"content": "Prefers tea  daily"}


def test_an_unterminated_tag_is_removed_to_the_end_of_its_string_only() -> None:
    arguments = json.dumps({"content": "Prefers tea <memory-context>\nlikes coffee", "target": "user"})
    assert json.loads(sanitize_arguments(arguments)) == {"content": "Prefers tea ", "target": "user"}


def test_a_lone_closing_tag_is_removed() -> None:
    arguments = json.dumps({"content": "likes coffee</memory-context> Prefers tea"})
    assert json.loads(sanitize_arguments(arguments)) == {"content": "likes coffee Prefers tea"}


def test_escaped_tags_in_json_are_found_after_decoding() -> None:
    arguments = '{"content": "a\\u003cmemory-context>secret<\\/memory-context>b"}'
    assert json.loads(sanitize_arguments(arguments)) == {"content": "ab"}


def test_text_that_is_not_json_is_stripped_as_it_stands() -> None:
    assert sanitize_arguments('{"content": "tea <memory-context>coffee</memory-context>') == '{"content": "tea '
    assert sanitize_arguments("{not json") == "{not json"


def test_a_reencoded_result_keeps_non_ascii_text_readable() -> None:
    arguments = json.dumps({"content": f"用户偏好深色主题{FENCE}"}, ensure_ascii=False)
    assert sanitize_arguments(arguments) == '{"content": "用户偏好深色主题"}'


# ── the agent ──────────────────────────────────────────────────────────────────────────────────
def test_a_fence_copied_into_a_memory_write_is_neither_saved_nor_stored(loopback_home: Path, notes_llm: LoopbackLLM) -> None:
    home, llm = loopback_home, notes_llm
    user_add = json.dumps({"action": "add", "target": "user", "content": f"Prefers tea\n{FENCE}"})
    memory_add = json.dumps({"action": "add", "target": "memory", "content": "Runs Debian <memory-context>coffee"})
    llm.push(Reply(tool_calls=[ToolCallSpec("memory", user_add, id="u"), ToolCallSpec("memory", memory_add, id="m")]),
             Reply(text="Noted."))
    db = SessionDB.open_home(home)
    agent = Agent.start(load_config(home), db, source="cli", cwd=home)
    events: list[Any] = []
    try:
        agent.run_turn("remember that I prefer tea", events.append)
        stored = db.load_transcript(agent.session_id or "")
    finally:
        agent.close()
        agent.wait_for_background(5)
    assert (home / "memories" / "USER.md").read_text(encoding="utf-8") == "Prefers tea"
    assert (home / "memories" / "MEMORY.md").read_text(encoding="utf-8") == "Runs Debian"
    calls = [call["function"]["arguments"] for call in stored[1]["tool_calls"]]
    started = [e.arguments for e in events if isinstance(e, ToolCallStarted)]
    second_call = [r for r in llm.requests if r.json.get("tools")][1]  # background calls offer no tools
    replayed = [m for m in json.loads(second_call.body_bytes)["messages"] if m.get("tool_calls")]
    for arguments in [*calls, *started, *(c["function"]["arguments"] for c in replayed[0]["tool_calls"])]:
        assert "memory-context" not in arguments and "coffee" not in arguments
    assert [json.loads(a)["content"] for a in calls] == ["Prefers tea\n", "Runs Debian "]
