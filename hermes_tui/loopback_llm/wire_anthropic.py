"""The Anthropic Messages API wire format (SSE events and JSON bodies) for the loopback server."""

from __future__ import annotations

import json
from typing import Any, Iterator

from hermes_tui.loopback_llm.script import Reply, SimulatedUsage, text_pieces

PATH = "/v1/messages"
_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
                404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}


def _frame(event: str, data: dict[str, Any]) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n".encode()


def _usage(usage: SimulatedUsage) -> dict[str, int]:
    return {
        "input_tokens": max(0, usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens),
        "output_tokens": usage.output_tokens,
        "cache_read_input_tokens": usage.cache_read_tokens,
        "cache_creation_input_tokens": usage.cache_write_tokens,
    }


def _stop_reason(reply: Reply) -> str:
    return reply.finish_reason or ("tool_use" if reply.tool_calls else "end_turn")


def _message(model: str, content: list[dict[str, Any]], stop: str | None, usage: dict[str, int]) -> dict[str, Any]:
    return {"id": "msg_loopback", "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": stop, "stop_sequence": None, "usage": usage}


def error_body(status: int, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": _ERROR_TYPES.get(status, "api_error"), "message": message}}


def stream_start(model: str, usage: SimulatedUsage) -> Iterator[bytes]:
    start_usage = {**_usage(usage), "output_tokens": 1}
    yield _frame("message_start", {"type": "message_start", "message": _message(model, [], None, start_usage)})


def text_frames(text: str, chunk_chars: int, model: str) -> Iterator[bytes]:
    """The text block's frames, one per ``chunk_chars`` piece (the block is left open)."""
    del model  # named in message_start only
    yield _frame("content_block_start",
                 {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
    for piece in text_pieces(text, chunk_chars):
        yield _frame("content_block_delta",
                     {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": piece}})


def stream_reply(reply: Reply, model: str, usage: SimulatedUsage, include_usage: bool = True) -> Iterator[bytes]:
    """Every frame of a streamed reply, message_start to message_stop."""
    del include_usage  # Anthropic always reports usage
    yield from stream_start(model, usage)
    index = 0
    if reply.text:
        yield from text_frames(reply.text, reply.chunk_chars, model)
        yield _frame("content_block_stop", {"type": "content_block_stop", "index": 0})
        index = 1
    for call in reply.tool_calls:
        block = {"type": "tool_use", "id": call.id or "", "name": call.name, "input": {}}
        yield _frame("content_block_start", {"type": "content_block_start", "index": index, "content_block": block})
        for piece in text_pieces(call.arguments, reply.chunk_chars):
            yield _frame("content_block_delta", {"type": "content_block_delta", "index": index,
                                                 "delta": {"type": "input_json_delta", "partial_json": piece}})
        yield _frame("content_block_stop", {"type": "content_block_stop", "index": index})
        index += 1
    yield _frame("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": _stop_reason(reply), "stop_sequence": None},
                                   "usage": _usage(usage)})
    yield _frame("message_stop", {"type": "message_stop"})


def malformed_frame() -> bytes:
    return b"event: content_block_delta\ndata: {this is not json\n\n"


def error_frame(status: int | None, message: str) -> bytes:
    """An ``error`` event inside the stream; ``status`` picks the error type (none: api_error)."""
    return _frame("error", error_body(status or 500, message))


def keepalive_frame() -> bytes:
    return _frame("ping", {"type": "ping"})


def json_reply(reply: Reply, model: str, usage: SimulatedUsage) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    for call in reply.tool_calls:
        content.append({"type": "tool_use", "id": call.id or "", "name": call.name, "input": json.loads(call.arguments or "{}")})
    return _message(model, content, _stop_reason(reply), _usage(usage))
