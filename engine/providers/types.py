"""The provider-neutral request, result and stream-event types every LLM client speaks."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Mapping, Union


@dataclass
class ChatRequest:
    """One model call. ``system`` is the session's snapshot and is sent byte-for-byte."""

    system: str
    messages: list[dict[str, Any]]  # canonical OpenAI-format messages, no system message
    tools: list[dict[str, Any]] = field(default_factory=list)  # OpenAI function-tool schemas
    max_tokens: int = 4096
    temperature: float | None = None


# The keys of a canonical message that a provider is sent; the rest (timestamps, finish
# reasons, reasoning) are the store's.
WIRE_MESSAGE_KEYS = ("role", "content", "tool_calls", "tool_call_id", "name")


def sent_message(message: Mapping[str, Any]) -> dict[str, Any]:
    """A canonical message with only the keys a provider is sent, ``None`` values left out."""
    return {key: message[key] for key in WIRE_MESSAGE_KEYS if message.get(key) is not None}


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text as the model sent it


@dataclass
class TokenUsage:
    """Token counts of one call, the same meaning for every provider.

    ``input_tokens`` is the whole prompt, cached parts included (what the context window holds);
    ``cache_read_tokens``/``cache_write_tokens`` say how much of it was read from / written to
    the provider's prompt cache.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0


@dataclass
class ChatResult:
    """A finished reply. ``finish_reason`` uses OpenAI's words: stop, tool_calls, length, cancelled."""

    text: str
    tool_calls: list[ToolCall]
    finish_reason: str | None
    usage: TokenUsage
    reasoning: str | None = None


@dataclass
class StreamText:
    """Reply text as the provider streamed it: not yet scrubbed of recall fences (the agent
    turns what survives the scrubber into ``engine.events.TextDelta``)."""

    text: str


@dataclass
class StreamToolCall:
    """The provider began streaming tool call ``index`` (its arguments come with ``StreamDone``)."""

    index: int
    name: str


@dataclass
class StreamAttempt:
    """Attempt ``number`` of ``of`` is sent; nothing has come back from it yet."""

    number: int
    of: int


@dataclass
class StreamRetry:
    """The last attempt failed before showing anything: attempt ``number`` of ``of`` follows
    after ``wait_s`` seconds."""

    number: int
    of: int
    wait_s: float


@dataclass
class StreamDone:
    result: ChatResult


StreamEvent = Union[StreamAttempt, StreamRetry, StreamText, StreamToolCall, StreamDone]


def deterministic_tool_call_id(name: str, arguments: str, index: int) -> str:
    """The id given to a tool call the provider sent without one.

    Derived from the call itself, so replaying the transcript sends the same bytes every turn
    and after a resume (a random id would break the cached prefix and orphan the result).
    ``index`` is the call's position among all the conversation's calls, not just this reply's:
    the same call made again later must not get the same id (Anthropic rejects a request that
    repeats a ``tool_use`` id). The id is made once and stored; replays send the stored one.
    """
    return "call_" + hashlib.sha256(f"{name}:{arguments}:{index}".encode()).hexdigest()[:12]


def call_result_id(call: Mapping[str, Any]) -> str:
    """The id a tool result names to answer ``call`` (its ``tool_call_id``).

    Upstream's Responses-style calls carry it as ``call_id`` beside an ``fc_…`` item ``id``;
    every other call carries it as ``id``.
    """
    return str(call.get("call_id") or call.get("id") or "")


def conversation_call_ids(messages: list[dict[str, Any]]) -> list[str]:
    """The result ids of every tool call in ``messages``, in order (duplicates kept)."""
    return [
        call_result_id(call)
        for message in messages
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or ()
        if isinstance(call, Mapping)
    ]
