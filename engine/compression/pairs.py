"""Tool-call groups: an assistant message with ``tool_calls`` and the results that answer it.

Providers reject a tool result without its call and a call without its result (invariant 5), so
compression moves whole groups ("units") and repairs whatever the input already had broken: a
result without its call is dropped, a call without its result gets a stub result (the call is
kept: it is what the model did). A result answers a call by the call's ``call_result_id``.
"""

from __future__ import annotations

from typing import Any

from engine.providers.types import call_result_id

STUB_RESULT = "[result unavailable: compacted]"

Message = dict[str, Any]


def call_ids(message: Message) -> list[str]:
    """The ids results answer the tool calls of an assistant message by (empty for any other message)."""
    if message.get("role") != "assistant":
        return []
    return [call_result_id(call) for call in message.get("tool_calls") or ()]


def unit_starts(messages: list[Message], start: int) -> list[int]:
    """Indices from ``start`` where a unit begins: a call message with its following results,
    or any other single message (an orphan result is a unit of its own)."""
    starts: list[int] = []
    i = start
    while i < len(messages):
        starts.append(i)
        i += 1
        if call_ids(messages[i - 1]):
            while i < len(messages) and messages[i].get("role") == "tool":
                i += 1
    return starts


def repair_tool_pairs(messages: list[Message]) -> list[Message]:
    """Drop results that answer no call just before them; stub calls left without a result.

    A result counts only inside its call's group (right after the call message), which is the
    shape every provider accepts. Messages that need no change are passed through as they are.
    """
    out: list[Message] = []
    i = 0
    while i < len(messages):
        message = messages[i]
        i += 1
        if message.get("role") == "tool":
            continue  # not inside a group: an orphan
        out.append(message)
        ids = call_ids(message)
        if not ids:
            continue
        answered: set[str] = set()
        while i < len(messages) and messages[i].get("role") == "tool":
            result = messages[i]
            i += 1
            if result.get("tool_call_id") in ids and result["tool_call_id"] not in answered:
                answered.add(result["tool_call_id"])
                out.append(result)
        out.extend(_stub(message, call_id) for call_id in ids if call_id not in answered)
    return out


def _stub(call_message: Message, call_id: str) -> Message:
    name = next(
        (c.get("function", {}).get("name", "") for c in call_message["tool_calls"] if call_result_id(c) == call_id),
        "",
    )
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": STUB_RESULT}
