"""Prompt caching "system_and_3": breakpoint placement, TTL, and the caller's data left untouched."""

from __future__ import annotations

import copy

import pytest

from engine.errors import ConfigError
from engine.prompt.caching import apply_cache_control

SYSTEM = [{"type": "text", "text": "You are Hermes."}]


def _messages(n: int) -> list[dict]:
    roles = ["user", "assistant"]
    return [{"role": roles[i % 2], "content": f"message {i}"} for i in range(n)]


def _marks(system: list[dict], messages: list[dict]) -> list[str]:
    """Where the breakpoints are: "system" and the indexes of marked messages."""
    found = ["system"] if any("cache_control" in b for b in system) else []
    for i, message in enumerate(messages):
        content = message["content"]
        if isinstance(content, list) and any("cache_control" in b for b in content):
            found.append(str(i))
    return found


@pytest.mark.parametrize("count", [0, 1, 3, 4, 10])
def test_system_and_last_three_messages_at_most_four(count: int) -> None:
    system, messages = apply_cache_control(SYSTEM, _messages(count))
    expected = ["system", *[str(i) for i in range(max(0, count - 3), count)]]
    assert _marks(system, messages) == expected
    assert len(expected) <= 4


def test_marker_is_ephemeral_and_1h_adds_ttl() -> None:
    system, messages = apply_cache_control(SYSTEM, _messages(1), "5m")
    assert system[-1]["cache_control"] == {"type": "ephemeral"}
    system, messages = apply_cache_control(SYSTEM, _messages(1), "1h")
    assert system[-1]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert messages[0]["content"] == [{"type": "text", "text": "message 0", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]


def test_block_content_gets_the_marker_on_its_last_block_and_empty_messages_are_skipped() -> None:
    messages = [
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "tool_use", "id": "t", "name": "n", "input": {}}]},
        {"role": "user", "content": ""},
    ]
    _, marked = apply_cache_control(SYSTEM, messages)
    assert "cache_control" in marked[1]["content"][1] and "cache_control" not in marked[1]["content"][0]
    assert marked[2]["content"] == ""
    assert marked[0]["content"][0]["cache_control"] == {"type": "ephemeral"}


def test_inputs_are_not_mutated() -> None:
    system, messages = copy.deepcopy(SYSTEM), _messages(5)
    messages[4]["content"] = [{"type": "text", "text": "blocks"}]
    before = (copy.deepcopy(system), copy.deepcopy(messages))
    apply_cache_control(system, messages, "1h")
    assert (system, messages) == before


def test_unknown_ttl_names_the_config_key() -> None:
    with pytest.raises(ConfigError, match="prompt_caching.cache_ttl"):
        apply_cache_control(SYSTEM, _messages(1), "10m")
