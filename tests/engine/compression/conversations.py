"""Builders for canonical chat-format transcripts used across the compression tests."""

from __future__ import annotations

import json
from typing import Any

from engine.compression.pairs import Message


def user(text: str) -> Message:
    return {"role": "user", "content": text}


def assistant(text: str | None, calls: list[tuple[str, str, dict[str, Any]]] = ()) -> Message:
    """An assistant message; ``calls`` are ``(id, name, arguments)``."""
    message: Message = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
            for cid, name, args in calls
        ]
    return message


def tool(call_id: str, name: str, text: str) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "name": name, "content": text}


def tool_turn(ask: str, batches: list[list[tuple[str, str]]], final: str | None, first_id: int = 0) -> list[Message]:
    """A user ask, rounds of (parallel) tool calls ``[(name, output), ...]`` and a final reply."""
    out = [user(ask)]
    n = first_id
    for batch in batches:
        calls = []
        for name, _ in batch:
            calls.append((f"call_{n}", name, {"path": f"src/f{n}.py"}))
            n += 1
        out.append(assistant(None, calls))
        out.extend(tool(cid, name, output) for (cid, name, _), (_, output) in zip(calls, batch))
    if final is not None:
        out.append(assistant(final))
    return out


def reid(messages: list[Message], prefix: str) -> list[Message]:
    """Copies with every tool-call id prefixed, so appended turns never reuse an earlier id."""
    out = []
    for message in messages:
        message = dict(message)
        if message.get("tool_calls"):
            message["tool_calls"] = [{**c, "id": prefix + c["id"]} for c in message["tool_calls"]]
        if message["role"] == "tool":
            message["tool_call_id"] = prefix + message["tool_call_id"]
        out.append(message)
    return out


def is_well_paired(messages: list[Message]) -> bool:
    """Every result sits in its call's group and every call has exactly one result."""
    i = 0
    while i < len(messages):
        message = messages[i]
        i += 1
        if message["role"] == "tool":
            return False
        ids = [c["id"] for c in message.get("tool_calls") or ()]
        seen = []
        while i < len(messages) and messages[i]["role"] == "tool":
            seen.append(messages[i]["tool_call_id"])
            i += 1
        if sorted(seen) != sorted(ids):
            return False
    return True


def same_role_neighbours(messages: list[Message]) -> list[int]:
    """Indices ``i`` where messages ``i`` and ``i+1`` are both user or both assistant."""
    return [
        i
        for i in range(len(messages) - 1)
        if messages[i]["role"] == messages[i + 1]["role"] and messages[i]["role"] in ("user", "assistant")
    ]
