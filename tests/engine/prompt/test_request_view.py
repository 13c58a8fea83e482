"""The request view: recall on the current user message only, never persisted, fix-ups made here."""

from __future__ import annotations

import copy

from engine.prompt.request_view import MISSING_RESULT, build_api_messages


def _call(cid: str) -> dict:
    return {"id": cid, "type": "function", "function": {"name": "memory", "arguments": "{}"}}


def test_recall_goes_on_current_user_message_only_and_input_is_untouched() -> None:
    messages = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "second"},
    ]
    before = copy.deepcopy(messages)
    view = build_api_messages(messages, recall="the user likes tea", current_user_index=2)
    assert messages == before
    assert view[0] == messages[0] and view[1] == messages[1]
    assert view[2]["content"].startswith("second\n\n<memory-context>")
    assert "the user likes tea" in view[2]["content"]
    assert view[2]["content"].rstrip().endswith("</memory-context>")


def test_multimodal_user_message_gets_a_text_part() -> None:
    messages = [{"role": "user", "content": [{"type": "text", "text": "look"}]}]
    view = build_api_messages(messages, recall="x", current_user_index=0)
    assert view[0]["content"][0] == {"type": "text", "text": "look"}
    assert "<memory-context>" in view[0]["content"][1]["text"]
    assert len(messages[0]["content"]) == 1


def test_no_recall_means_identical_messages() -> None:
    messages = [{"role": "user", "content": "a"}]
    assert build_api_messages(messages, recall=None, current_user_index=0) == messages


def test_missing_results_are_stubbed_and_orphans_dropped() -> None:
    messages = [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "", "tool_calls": [_call("a"), _call("b")]},
        {"role": "tool", "tool_call_id": "a", "content": "done"},
        {"role": "tool", "tool_call_id": "zzz", "content": "orphan"},
        {"role": "user", "content": "next"},
    ]
    view = build_api_messages(messages, recall=None, current_user_index=4)
    assert [m.get("tool_call_id") for m in view if m["role"] == "tool"] == ["a", "b"]
    assert view[3] == {"role": "tool", "tool_call_id": "b", "content": MISSING_RESULT}
    assert view[4]["content"] == "next"


def test_duplicate_results_are_sent_once() -> None:
    messages = [
        {"role": "assistant", "content": "", "tool_calls": [_call("a")]},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
        {"role": "tool", "tool_call_id": "a", "content": "1"},
    ]
    assert len(build_api_messages(messages, recall=None, current_user_index=None)) == 2
