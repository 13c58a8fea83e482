"""Streaming replies, tool calls, usage and cancellation, for both providers, end to end."""

from __future__ import annotations

import threading

from engine.providers import (
    ChatRequest,
    Provider,
    StreamDone,
    StreamText,
    StreamToolCall,
    deterministic_tool_call_id,
)
from hermes_tui.loopback_llm import Hold, LoopbackLLM, Reply, ToolCallSpec, Usage

from .conftest import simple_request


def _drain(provider: Provider, request: ChatRequest, cancel: threading.Event | None = None) -> list:
    return list(provider.stream(request, cancel=cancel))


def test_streams_text_in_pieces_and_ends_with_one_done(provider: Provider, server: LoopbackLLM) -> None:
    server.push(Reply(text="The quick brown fox jumps.", chunk_chars=5))
    events = _drain(provider, simple_request())
    deltas = [e.text for e in events if isinstance(e, StreamText)]
    assert len(deltas) == 6 and "".join(deltas) == "The quick brown fox jumps."
    assert isinstance(events[-1], StreamDone) and sum(isinstance(e, StreamDone) for e in events) == 1
    result = events[-1].result
    assert (result.text, result.tool_calls, result.finish_reason) == ("The quick brown fox jumps.", [], "stop")


def test_tool_calls_keep_provider_ids_and_get_deterministic_ones_when_missing(
    provider: Provider, server: LoopbackLLM
) -> None:
    server.push(Reply(text="Saving.", tool_calls=[
        ToolCallSpec("memory", '{"content": "likes tea"}', id="toolu_given"),
        ToolCallSpec("session_search", '{"query": "tea"}'),
    ]))
    events = _drain(provider, simple_request())
    assert [(e.index, e.name) for e in events if isinstance(e, StreamToolCall)] == [(0, "memory"), (1, "session_search")]
    result = events[-1].result
    assert result.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in result.tool_calls] == [
        ("toolu_given", "memory", '{"content": "likes tea"}'),
        (deterministic_tool_call_id("session_search", '{"query": "tea"}', 1), "session_search", '{"query": "tea"}'),
    ]


def test_missing_ids_are_the_same_on_every_call(provider: Provider, server: LoopbackLLM) -> None:
    spec = ToolCallSpec("memory", '{"content": "x"}')
    server.push(Reply(tool_calls=[spec]), Reply(tool_calls=[spec]))
    first = provider.complete(simple_request()).tool_calls[0].id
    second = provider.complete(simple_request()).tool_calls[0].id
    assert first == second == deterministic_tool_call_id("memory", '{"content": "x"}', 0)
    assert first.startswith("call_") and len(first) == 17


def test_usage_reports_whole_prompt_and_cache_parts(provider: Provider, server: LoopbackLLM) -> None:
    server.push(Reply(text="ok", usage=Usage(input_tokens=1000, output_tokens=7, cache_read_tokens=600,
                                             cache_write_tokens=300)))
    usage = provider.complete(simple_request()).usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (1000, 7, 600)
    if provider.name == "anthropic":  # OpenAI-style servers report no cache writes
        assert usage.cache_write_tokens == 300


def test_simulated_cache_reads_follow_the_shared_prefix(provider: Provider, server: LoopbackLLM) -> None:
    server.push(Reply(text="one"), Reply(text="two"))
    first = provider.complete(simple_request("first question"))
    second = provider.complete(simple_request("first question, then more"))
    assert first.usage.cache_read_tokens == 0
    assert 0 < second.usage.cache_read_tokens < second.usage.input_tokens


def test_identical_requests_send_identical_bytes_with_tools_in_given_order(
    provider: Provider, server: LoopbackLLM
) -> None:
    server.push(Reply(text="a"), Reply(text="b"))
    provider.complete(simple_request())
    provider.complete(simple_request())
    first, second = server.requests
    assert first.body_bytes == second.body_bytes
    sent = first.json["tools"]
    names = [t["name"] for t in sent] if provider.name == "anthropic" else [t["function"]["name"] for t in sent]
    assert names == ["memory", "session_search"]


def test_system_prompt_sent_byte_for_byte(provider: Provider, server: LoopbackLLM) -> None:
    system = "Identity line\n\n══ MEMORY ══\nentry § one  \n"
    server.push(Reply(text="ok"))
    provider.complete(ChatRequest(system=system, messages=[{"role": "user", "content": "hi"}]))
    body = server.requests[0].json
    sent = body["system"][0]["text"] if provider.name == "anthropic" else body["messages"][0]["content"]
    assert sent == system


def test_base_url_without_key_sends_a_placeholder(provider: Provider, server: LoopbackLLM) -> None:
    server.push(Reply(text="local"))
    assert provider.complete(simple_request()).text == "local"
    headers = server.requests[0].headers
    assert headers.get("x-api-key") == "not-needed" or headers.get("authorization") == "Bearer not-needed"


def test_key_from_the_configured_variable_is_sent(make, kind: str, server: LoopbackLLM) -> None:
    server.push(Reply(text="ok"))
    make(kind, api_key_env="MY_KEY", env={"MY_KEY": "sk-test-123"}).complete(simple_request())
    headers = server.requests[0].headers
    assert headers.get("x-api-key") == "sk-test-123" or headers.get("authorization") == "Bearer sk-test-123"


def test_cancel_mid_stream_returns_text_so_far(provider: Provider, server: LoopbackLLM) -> None:
    server.tokens_per_second = 200
    server.push(Reply(text="x" * 4000, chunk_chars=4))
    cancel = threading.Event()
    events = []
    for event in provider.stream(simple_request(), cancel=cancel):
        events.append(event)
        if sum(isinstance(e, StreamText) for e in events) == 3:
            cancel.set()
    done = events[-1]
    assert isinstance(done, StreamDone)
    assert done.result.finish_reason == "cancelled"
    assert done.result.text == "x" * 12 and done.result.tool_calls == []


def test_cancel_before_start_sends_nothing(provider: Provider, server: LoopbackLLM) -> None:
    cancel = threading.Event()
    cancel.set()
    events = _drain(provider, simple_request(), cancel)
    assert len(events) == 1 and events[0].result.finish_reason == "cancelled"
    assert server.requests == []


def test_a_held_reply_streams_its_start_and_waits_for_release(provider: Provider, server: LoopbackLLM) -> None:
    hold = Hold(after_chars=16)
    server.push(Reply(text="first part, then " + "the rest " * 20, chunk_chars=8, hold=hold))
    events: list = []
    first_text = threading.Event()

    def consume() -> None:
        for event in provider.stream(simple_request()):
            events.append(event)
            if isinstance(event, StreamText):
                first_text.set()

    reader = threading.Thread(target=consume)
    reader.start()
    assert first_text.wait(10)
    reader.join(0.3)
    assert reader.is_alive() and not any(isinstance(e, StreamDone) for e in events)  # held
    hold.release()
    reader.join(10)
    assert isinstance(events[-1], StreamDone) and events[-1].result.text.endswith("the rest ")
