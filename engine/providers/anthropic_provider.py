"""Anthropic Messages API through the official ``anthropic`` SDK, streamed, with prompt caching."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, Iterator

from engine.prompt.caching import apply_cache_control, cache_marker
from engine.providers.anthropic_format import to_anthropic_messages, to_anthropic_tools
from engine.providers.base import Provider, ReplyState, SDKErrors, shared_tls_context
from engine.providers.types import ChatRequest, StreamText, StreamToolCall

if TYPE_CHECKING:
    import anthropic

# Anthropic's stop reasons in the OpenAI words ChatResult uses everywhere.
_FINISH = {"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool_calls", "max_tokens": "length"}


class AnthropicProvider(Provider):
    name = "anthropic"
    # Anthropic's ``event: error`` names a type, not a status.
    error_type_status: ClassVar[dict[str, int]] = {
        "invalid_request_error": 400, "authentication_error": 401, "permission_error": 403, "not_found_error": 404,
        "request_too_large": 413, "rate_limit_error": 429, "api_error": 500, "overloaded_error": 529,
    }

    def __init__(self, model: str, *, cache_ttl: str = "5m", **common: Any) -> None:
        cache_marker(cache_ttl)  # reject a bad TTL now, not on the first call
        self._cache_ttl = cache_ttl
        super().__init__(model, **common)

    def _make_client(self, api_key: str) -> anthropic.Anthropic:
        import anthropic  # on first use: see Provider._client

        return anthropic.Anthropic(
            api_key=api_key, base_url=self.base_url, max_retries=0, timeout=self.timeouts.transport,
            http_client=anthropic.DefaultHttpxClient(verify=shared_tls_context()),
        )

    def _sdk_errors(self) -> SDKErrors:
        import anthropic
        import httpx2

        return SDKErrors(
            anthropic.APIStatusError, (anthropic.APIConnectionError, httpx2.TransportError), anthropic.AnthropicError
        )

    def request_params(self, request: ChatRequest) -> dict[str, Any]:
        """The keyword arguments of ``messages.create``; the caller's request is not modified."""
        system_blocks = [{"type": "text", "text": request.system}] if request.system else []
        system, messages = apply_cache_control(system_blocks, to_anthropic_messages(request.messages), self._cache_ttl)
        params: dict[str, Any] = {"model": self.model, "max_tokens": request.max_tokens, "messages": messages}
        if system:
            params["system"] = system
        if request.tools:
            params["tools"] = to_anthropic_tools(request.tools)
        # No temperature: the Messages API of this SDK generation no longer takes one.
        return params

    def _open(self, request: ChatRequest) -> Any:
        return self._client.messages.create(**self.request_params(request), stream=True)

    def _read(self, stream: Any, state: ReplyState) -> Iterator[StreamText | StreamToolCall]:
        usage = state.usage
        for event in stream:
            kind = event.type
            if kind == "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta":
                    if delta.text:
                        yield StreamText(delta.text)
                elif delta.type == "input_json_delta" and state.has_tool_call(event.index):
                    state.add_arguments(event.index, delta.partial_json)
                elif delta.type == "thinking_delta":
                    state.reasoning.append(delta.thinking)
            elif kind == "content_block_start":
                block = event.content_block
                if block.type == "tool_use":
                    yield state.start_tool_call(event.index, block.id, block.name)
            elif kind == "message_start":
                _take_usage(usage, event.message.usage)
            elif kind == "message_delta":
                _take_usage(usage, event.usage)
                reason = event.delta.stop_reason
                state.finish_reason = _FINISH.get(reason, reason) if reason else "stop"
            elif kind == "message_stop" and state.finish_reason is None:
                state.finish_reason = "stop"


def _take_usage(usage: Any, reported: Any) -> None:
    """Fold Anthropic's (cumulative) usage into ours; input_tokens counts cached parts too."""
    if reported is None:
        return
    read = getattr(reported, "cache_read_input_tokens", None)
    write = getattr(reported, "cache_creation_input_tokens", None)
    fresh = getattr(reported, "input_tokens", None)
    if read is not None:
        usage.cache_read_tokens = read
    if write is not None:
        usage.cache_write_tokens = write
    if fresh is not None:
        usage.input_tokens = fresh + usage.cache_read_tokens + usage.cache_write_tokens
    if reported.output_tokens is not None:
        usage.output_tokens = reported.output_tokens
