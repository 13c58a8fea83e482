"""OpenAI chat completions through the official ``openai`` SDK — any OpenAI-compatible server.

``base_url`` points it at OpenRouter, Ollama, llama.cpp or vLLM. OpenAI-style servers cache
prompt prefixes automatically, so nothing is marked; stable bytes are what makes them hit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from engine.providers.base import Provider, ReplyState, SDKErrors, shared_tls_context
from engine.providers.types import ChatRequest, StreamText, StreamToolCall, call_result_id, sent_message

if TYPE_CHECKING:
    import openai

# Keys of upstream's Responses-style calls that strict chat-completions servers refuse.
_RESPONSES_CALL_KEYS = ("call_id", "response_item_id")


def _wire_call(call: dict[str, Any]) -> dict[str, Any]:
    """A stored tool call as chat completions takes it: a Responses-style call is sent under the
    id its result answers (``call_id``), without the Responses-only keys; others as they are."""
    if not any(key in call for key in _RESPONSES_CALL_KEYS):
        return call
    wire = {key: value for key, value in call.items() if key not in _RESPONSES_CALL_KEYS}
    wire["id"] = call_result_id(call)
    return wire


def _wire_message(message: dict[str, Any]) -> dict[str, Any]:
    """A canonical message with only the keys chat completions accepts, ``None`` values left out."""
    wire = sent_message(message)
    if wire.get("tool_calls"):
        wire["tool_calls"] = [_wire_call(call) for call in wire["tool_calls"]]
    return wire


class OpenAIProvider(Provider):
    name = "openai"

    def _make_client(self, api_key: str) -> openai.OpenAI:
        import openai  # on first use: see Provider._client

        return openai.OpenAI(
            api_key=api_key, base_url=self.base_url, max_retries=0, timeout=self.timeouts.transport,
            http_client=openai.DefaultHttpxClient(verify=shared_tls_context()),
        )

    def _sdk_errors(self) -> SDKErrors:
        import httpx2
        import openai

        return SDKErrors(openai.APIStatusError, (openai.APIConnectionError, httpx2.TransportError), openai.OpenAIError)

    def request_params(self, request: ChatRequest) -> dict[str, Any]:
        """The keyword arguments of ``chat.completions.create`` (system prompt first, tools in order)."""
        messages = [{"role": "system", "content": request.system}] if request.system else []
        messages.extend(_wire_message(m) for m in request.messages)
        params: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        # api.openai.com's newer models accept only max_completion_tokens; compatible servers
        # (Ollama, llama.cpp, vLLM) know max_tokens.
        params["max_completion_tokens" if self.base_url is None else "max_tokens"] = request.max_tokens
        if request.tools:
            params["tools"] = request.tools
        if request.temperature is not None:
            params["temperature"] = request.temperature
        return params

    def _open(self, request: ChatRequest) -> Any:
        return self._client.chat.completions.create(**self.request_params(request))

    def _read(self, stream: Any, state: ReplyState) -> Iterator[StreamText | StreamToolCall]:
        for chunk in stream:
            if chunk.usage is not None:
                _take_usage(state, chunk.usage)
            for choice in chunk.choices or ():
                delta = choice.delta
                if delta is not None:
                    reasoning = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
                    if isinstance(reasoning, str) and reasoning:
                        state.reasoning.append(reasoning)
                    if delta.content:
                        yield StreamText(delta.content)
                    for call in delta.tool_calls or ():
                        function = call.function
                        if not state.has_tool_call(call.index):
                            yield state.start_tool_call(call.index, call.id, (function and function.name) or "")
                        else:
                            state.set_tool_call_id(call.index, call.id or "")
                        if function is not None and function.arguments:
                            state.add_arguments(call.index, function.arguments)
                if choice.finish_reason:
                    state.finish_reason = choice.finish_reason


def _take_usage(state: ReplyState, reported: Any) -> None:
    usage = state.usage
    usage.input_tokens = reported.prompt_tokens or 0
    usage.output_tokens = reported.completion_tokens or 0
    prompt_details = getattr(reported, "prompt_tokens_details", None)
    usage.cache_read_tokens = (getattr(prompt_details, "cached_tokens", None) or 0) if prompt_details else 0
    completion_details = getattr(reported, "completion_tokens_details", None)
    usage.reasoning_tokens = (getattr(completion_details, "reasoning_tokens", None) or 0) if completion_details else 0
