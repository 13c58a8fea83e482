"""The OpenAI chat-completions wire format (SSE chunks and JSON bodies) for the loopback server."""

from __future__ import annotations

import json
from typing import Any, Iterator

from hermes_tui.loopback_llm.script import Reply, SimulatedUsage, text_pieces

PATH = "/v1/chat/completions"


def _frame(data: dict[str, Any] | str) -> bytes:
    return f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n".encode()


def _chunk(model: str, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "chatcmpl-loopback", "object": "chat.completion.chunk", "created": 0, "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _usage(usage: SimulatedUsage) -> dict[str, Any]:
    return {"prompt_tokens": usage.input_tokens, "completion_tokens": usage.output_tokens,
            "total_tokens": usage.input_tokens + usage.output_tokens,
            "prompt_tokens_details": {"cached_tokens": usage.cache_read_tokens}}


def _finish(reply: Reply) -> str:
    return reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")


def error_body(status: int, message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "loopback_error", "code": str(status)}}


def stream_start(model: str, usage: SimulatedUsage) -> Iterator[bytes]:
    del usage  # reported at the end
    yield _frame(_chunk(model, {"role": "assistant", "content": ""}))


def text_frames(text: str, chunk_chars: int, model: str) -> Iterator[bytes]:
    for piece in text_pieces(text, chunk_chars):
        yield _frame(_chunk(model, {"content": piece}))


def stream_reply(reply: Reply, model: str, usage: SimulatedUsage, include_usage: bool = True) -> Iterator[bytes]:
    """Every chunk of a streamed reply; tool calls without an id omit the ``id`` key entirely."""
    yield from stream_start(model, usage)
    yield from text_frames(reply.text, reply.chunk_chars, model)
    for index, call in enumerate(reply.tool_calls):
        head: dict[str, Any] = {"index": index, "type": "function", "function": {"name": call.name, "arguments": ""}}
        if call.id:
            head["id"] = call.id
        yield _frame(_chunk(model, {"tool_calls": [head]}))
        for piece in text_pieces(call.arguments, reply.chunk_chars):
            yield _frame(_chunk(model, {"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    yield _frame(_chunk(model, {}, _finish(reply)))
    if include_usage:
        yield _frame({"id": "chatcmpl-loopback", "object": "chat.completion.chunk", "created": 0, "model": model,
                      "choices": [], "usage": _usage(usage)})
    yield _frame("[DONE]")


def malformed_frame() -> bytes:
    return b"data: {this is not json\n\n"


def error_frame(status: int | None, message: str) -> bytes:
    """An error event inside the stream, OpenRouter's and vLLM's shape (``code`` when given)."""
    error: dict[str, Any] = {"message": message, "type": "loopback_error"}
    if status is not None:
        error["code"] = status
    return _frame({"error": error})


def keepalive_frame() -> bytes:
    return b": keep-alive\n\n"


def json_reply(reply: Reply, model: str, usage: SimulatedUsage) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.tool_calls:
        message["tool_calls"] = [{"id": call.id or "", "type": "function",
                                  "function": {"name": call.name, "arguments": call.arguments}}
                                 for call in reply.tool_calls]
    return {"id": "chatcmpl-loopback", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": _finish(reply)}], "usage": _usage(usage)}
