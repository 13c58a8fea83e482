"""Ids of tool calls the provider sent without one are unique in the conversation and the same
on every replay of the same request (the reply's calls are numbered from the calls before them)."""

from __future__ import annotations

import json

from engine.providers import ChatRequest, Provider, deterministic_tool_call_id
from hermes_tui.loopback_llm import LoopbackLLM, Reply, ToolCallSpec

from .conftest import TOOLS

SEARCH = json.dumps({"query": "migration"})  # the call bench/bench_prefix.py's session repeats


def conversation(ids: list[str]) -> ChatRequest:
    """A conversation whose earlier turns each made the search call with one of ``ids``."""
    messages: list[dict] = []
    for n, call_id in enumerate(ids):
        messages += [
            {"role": "user", "content": f"turn {n}"},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": call_id, "type": "function", "function": {"name": "session_search", "arguments": SEARCH}}]},
            {"role": "tool", "tool_call_id": call_id, "name": "session_search", "content": "[]"},
            {"role": "assistant", "content": "Nothing found."},
        ]
    messages.append({"role": "user", "content": "and again?"})
    return ChatRequest(system="You are Hermes.", messages=messages, tools=list(TOOLS))


def test_the_same_idless_call_made_again_gets_a_new_id(provider: Provider, server: LoopbackLLM) -> None:
    first = deterministic_tool_call_id("session_search", SEARCH, 0)
    assert first == "call_0be4b8d3ac5e"  # the id the issue found six times in one request
    server.push(Reply(tool_calls=[ToolCallSpec("session_search", SEARCH)]))
    (call,) = provider.complete(conversation([first])).tool_calls
    assert call.id == deterministic_tool_call_id("session_search", SEARCH, 1) != first


def test_six_repeats_get_six_ids_and_a_replay_the_same_ones(provider: Provider, server: LoopbackLLM) -> None:
    ids: list[str] = []
    for _ in range(6):
        server.push(Reply(tool_calls=[ToolCallSpec("session_search", SEARCH)]))
        ids.append(provider.complete(conversation(ids)).tool_calls[0].id)
    assert len(set(ids)) == 6
    for n in range(6):  # the same request again gives the same id: replays stay byte-identical
        server.push(Reply(tool_calls=[ToolCallSpec("session_search", SEARCH)]))
        assert provider.complete(conversation(ids[:n])).tool_calls[0].id == ids[n]


def test_parallel_identical_calls_get_distinct_ids(provider: Provider, server: LoopbackLLM) -> None:
    server.push(Reply(tool_calls=[ToolCallSpec("session_search", SEARCH)] * 3))
    calls = provider.complete(conversation([deterministic_tool_call_id("session_search", SEARCH, 0)])).tool_calls
    assert len({c.id for c in calls}) == 3


def test_a_provider_id_already_in_the_conversation_is_replaced(provider: Provider, server: LoopbackLLM) -> None:
    """Some servers number calls per reply (``call_0`` every time)."""
    server.push(Reply(tool_calls=[ToolCallSpec("session_search", SEARCH, id="call_0"),
                                  ToolCallSpec("memory", "{}", id="call_fresh")]))
    first, second = provider.complete(conversation(["call_0"])).tool_calls
    assert first.id == deterministic_tool_call_id("session_search", SEARCH, 1)
    assert second.id == "call_fresh"
