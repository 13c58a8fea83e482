"""Upstream's Responses-style tool calls (item ``id`` ``fc_1``, ``call_id`` ``call_1``) are answered
by results naming ``call_1``: pairing keeps the real result, and both wire formats send the call
under the id its result names."""

from __future__ import annotations

import copy
import json

import pytest

from engine.compression.pairs import STUB_RESULT, repair_tool_pairs, unit_starts
from engine.compression.validate import validate_messages
from engine.prompt.request_view import MISSING_RESULT, build_api_messages
from engine.providers import ChatRequest, make_provider
from hermes_tui.loopback_llm import LoopbackLLM, Reply

ARGS = json.dumps({"command": "systemctl status certbot.timer"})
CALL = {"id": "fc_1", "call_id": "call_1", "response_item_id": "fc_1", "type": "function",
        "function": {"name": "terminal", "arguments": ARGS}}
RESULT = {"role": "tool", "tool_call_id": "call_1", "name": "terminal", "content": "active (waiting)"}


def transcript() -> list[dict]:
    return [
        {"role": "user", "content": "is certbot renewing?"},
        {"role": "assistant", "content": "", "tool_calls": [copy.deepcopy(CALL)]},
        dict(RESULT),
        {"role": "assistant", "content": "Yes: the timer is active."},
        {"role": "user", "content": "thanks"},
    ]


def test_compression_repair_keeps_the_real_result() -> None:
    messages = transcript()
    validate_messages(messages)
    assert unit_starts(messages, 0) == [0, 1, 3, 4]  # the result stays in its call's group
    assert repair_tool_pairs(messages) == messages


def test_a_responses_style_call_without_its_result_is_stubbed_under_its_call_id() -> None:
    messages = [m for m in transcript() if m["role"] != "tool"]
    repaired = repair_tool_pairs(messages)
    assert repaired[2] == {"role": "tool", "tool_call_id": "call_1", "name": "terminal", "content": STUB_RESULT}


def test_a_call_with_only_a_call_id_passes_validation() -> None:
    messages = transcript()
    del messages[1]["tool_calls"][0]["id"]
    validate_messages(messages)


def test_the_request_view_keeps_the_real_result() -> None:
    view = build_api_messages(transcript(), recall=None, current_user_index=4)
    assert [m for m in view if m["role"] == "tool"] == [RESULT]
    assert MISSING_RESULT not in json.dumps(view)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_both_wire_formats_send_the_call_under_the_id_its_result_names(kind: str) -> None:
    with LoopbackLLM([Reply(text="ok")]) as server:
        url = server.base_url_openai if kind == "openai" else server.base_url_anthropic
        provider = make_provider({"provider": kind, "name": "m", "base_url": url}, env={})
        messages = build_api_messages(transcript(), recall=None, current_user_index=4)
        provider.complete(ChatRequest(system="You are Hermes.", messages=messages))
        sent = server.requests[0].json["messages"]
    if kind == "openai":
        assert sent[2]["tool_calls"] == [{"id": "call_1", "type": "function",
                                          "function": {"name": "terminal", "arguments": ARGS}}]
        assert sent[3] == {"role": "tool", "content": "active (waiting)", "tool_call_id": "call_1",
                           "name": "terminal"}
    else:
        assert sent[1]["content"] == [{"type": "tool_use", "id": "call_1", "name": "terminal",
                                       "input": json.loads(ARGS)}]
        result = sent[2]["content"][0]
        assert (result["type"], result["tool_use_id"], result["content"]) == ("tool_result", "call_1", "active (waiting)")


def test_ordinary_calls_are_sent_exactly_as_stored() -> None:
    """Only Responses-style calls are rewritten: every other stored call keeps its bytes."""
    call = {"id": "call_7c1e4b90d2a3", "type": "function", "function": {"name": "terminal", "arguments": ARGS},
            "extra_content": {"google": {"thought_signature": "sig"}}}
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "content": "", "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call_7c1e4b90d2a3", "content": "done"}]
    with LoopbackLLM([Reply(text="ok")]) as server:
        provider = make_provider({"provider": "openai", "name": "m", "base_url": server.base_url_openai}, env={})
        provider.complete(ChatRequest(system="s", messages=messages))
        assert server.requests[0].json["messages"][2]["tool_calls"] == [call]
