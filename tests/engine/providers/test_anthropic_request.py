"""What the Anthropic provider puts on the wire: converted transcript, cache breakpoints, stable bytes."""

from __future__ import annotations

import copy

from engine.providers import ChatRequest
from engine.providers.anthropic_format import to_anthropic_messages, tool_input
from hermes_tui.loopback_llm import LoopbackLLM, Reply

from .conftest import TOOLS

TRANSCRIPT = [
    {"role": "user", "content": "remember I like tea"},
    {"role": "assistant", "content": "Saving that.", "tool_calls": [
        {"id": "call_a", "type": "function", "function": {"name": "memory", "arguments": '{"content": "likes tea"}'}},
        {"id": "call_b", "type": "function", "function": {"name": "memory", "arguments": "{not json"}},
    ]},
    {"role": "tool", "tool_call_id": "call_a", "content": '{"success": true}'},
    {"role": "tool", "tool_call_id": "call_b", "content": "error: invalid JSON arguments"},
    {"role": "user", "content": "thanks"},
]


def test_transcript_conversion_merges_tool_results_and_keeps_ids() -> None:
    converted = to_anthropic_messages(TRANSCRIPT)
    assert [m["role"] for m in converted] == ["user", "assistant", "user"]
    assistant = converted[1]["content"]
    assert assistant[0] == {"type": "text", "text": "Saving that."}
    assert assistant[1] == {"type": "tool_use", "id": "call_a", "name": "memory", "input": {"content": "likes tea"}}
    assert assistant[2]["input"] == {}  # invalid JSON: a stable empty object
    results = converted[2]["content"]
    assert [b.get("tool_use_id") for b in results] == ["call_a", "call_b", None]
    assert results[2] == {"type": "text", "text": "thanks"}
    assert converted[0]["content"] == "remember I like tea"


def test_tool_input_accepts_only_objects() -> None:
    assert tool_input('{"a": [1]}') == {"a": [1]}
    assert tool_input("[1, 2]") == {} and tool_input("") == {} and tool_input("{oops") == {}


def test_wire_request_has_breakpoints_and_leaves_the_request_untouched(make, server: LoopbackLLM) -> None:
    server.push(Reply(text="ok"), Reply(text="ok"))
    request = ChatRequest(system="You are Hermes.", messages=copy.deepcopy(TRANSCRIPT), tools=list(TOOLS))
    make("anthropic", cache_ttl="1h").complete(request)
    assert request.messages == TRANSCRIPT
    body = server.requests[0].json
    assert body["system"] == [{"type": "text", "text": "You are Hermes.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    markers = [b for m in body["messages"] for b in m["content"] if isinstance(b, dict) and "cache_control" in b]
    assert len(markers) == 3 and len(markers) + 1 <= 4
    assert [t["name"] for t in body["tools"]] == ["memory", "session_search"]
    assert body["tools"][0]["input_schema"] == TOOLS[0]["function"]["parameters"]
    make("anthropic", cache_ttl="1h").complete(request)
    assert server.requests[0].body_bytes == server.requests[1].body_bytes


def test_default_ttl_marker_has_no_ttl(make, server: LoopbackLLM) -> None:
    server.push(Reply(text="ok"))
    make("anthropic").complete(ChatRequest(system="s", messages=[{"role": "user", "content": "hi"}]))
    assert server.requests[0].json["system"][0]["cache_control"] == {"type": "ephemeral"}
