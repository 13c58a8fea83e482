"""The Provider contract and the one stream driver both SDK clients share.

A concrete provider only knows its wire format: how to open a streamed call (``_open``) and how
to turn the SDK's events into ours (``_read``). Retries, cancellation, "cut off midway" and the
mapping of HTTP failures to one-line errors live here, so they behave the same for every provider.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Iterator

from engine.providers.errors import (
    AuthError,
    ModelNotFoundError,
    ProviderError,
    StreamInterruptedError,
    one_line,
)
from engine.providers.retry import RETRYABLE_STATUS, RetryPolicy, parse_retry_after
from engine.providers.types import (
    ChatRequest,
    ChatResult,
    StreamDone,
    StreamEvent,
    TextDelta,
    TokenUsage,
    ToolCall,
    ToolCallStarted,
    deterministic_tool_call_id,
)

REQUEST_TIMEOUT = 300.0  # seconds; generous because long replies stream for minutes


class _IncompleteStream(Exception):
    """The stream ended cleanly but without the provider's end-of-reply marker."""


@dataclass
class _PartialToolCall:
    id: str
    name: str
    arguments: list[str] = field(default_factory=list)


@dataclass
class ReplyState:
    """What ``_read`` learns about the reply besides its text: tool calls, usage, finish reason."""

    usage: TokenUsage = field(default_factory=TokenUsage)
    finish_reason: str | None = None
    reasoning: list[str] = field(default_factory=list)
    _calls: dict[int, _PartialToolCall] = field(default_factory=dict)

    def start_tool_call(self, key: int, call_id: str | None, name: str) -> ToolCallStarted:
        """Register a tool call announced under the provider's ``key``; returns the event to emit."""
        self._calls[key] = _PartialToolCall(call_id or "", name)
        return ToolCallStarted(index=len(self._calls) - 1, name=name)

    def has_tool_call(self, key: int) -> bool:
        return key in self._calls

    def add_arguments(self, key: int, fragment: str) -> None:
        self._calls[key].arguments.append(fragment)

    def set_tool_call_id(self, key: int, call_id: str) -> None:
        if call_id and not self._calls[key].id:
            self._calls[key].id = call_id

    def tool_calls(self) -> list[ToolCall]:
        """The finished calls, in order; a call the provider sent without an id gets a stable one."""
        calls = []
        for index, partial in enumerate(self._calls.values()):
            arguments = "".join(partial.arguments) or "{}"
            call_id = partial.id or deterministic_tool_call_id(partial.name, arguments, index)
            calls.append(ToolCall(id=call_id, name=partial.name, arguments=arguments))
        return calls


@dataclass
class _Failure:
    retryable: bool
    error: ProviderError
    retry_after: float | None = None


class Provider(ABC):
    """A chat model behind one API. Sync on purpose: the agent runs turns in a worker thread."""

    name: str

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        key_env: str | None = None,
        retry: RetryPolicy | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self._key_env = key_env  # named in the 401 message; None when a placeholder key is used
        self._retry = retry or RetryPolicy()
        self._api_key = api_key
        self._sdk_client: Any = None
        self._client_lock = threading.Lock()  # turns and background reviews may call at once

    @property
    def _client(self) -> Any:
        """The SDK client, made on first use: importing an SDK takes about a second, which
        start-up (and a session that never calls the model) should not pay."""
        with self._client_lock:
            if self._sdk_client is None:
                self._sdk_client = self._make_client(self._api_key)
            return self._sdk_client

    @abstractmethod
    def _make_client(self, api_key: str) -> Any:
        """The SDK client, with the SDK's own retries off (``retry.py`` decides)."""

    @abstractmethod
    def _sdk_errors(self) -> tuple[type[Exception], tuple[type[Exception], ...]]:
        """The SDK's "HTTP 4xx/5xx" exception, and the SDK's and transport's "connection broke" ones."""

    @abstractmethod
    def _open(self, request: ChatRequest) -> Any:
        """Send the request; return the SDK's stream object (with ``close()``)."""

    @abstractmethod
    def _read(self, stream: Any, state: ReplyState) -> Iterator[TextDelta | ToolCallStarted]:
        """Translate the SDK stream into events, filling ``state``; set ``state.finish_reason`` at the end."""

    def stream(self, request: ChatRequest, *, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        """Stream one reply, retrying failures that happen before anything was shown.

        Ends with exactly one ``StreamDone``. When ``cancel`` is set, reading stops at the next
        event and the result holds the text streamed so far with finish_reason "cancelled".
        """
        clock = self._retry.clock
        started = clock()
        attempt = 0
        while True:
            attempt += 1
            state = ReplyState()
            text: list[str] = []
            shown = False
            cancelled = cancel is not None and cancel.is_set()
            try:
                if not cancelled:
                    handle = self._open(request)
                    try:
                        for event in self._read(handle, state):
                            if cancel is not None and cancel.is_set():
                                cancelled = True
                                break
                            if isinstance(event, TextDelta):
                                text.append(event.text)
                            shown = True
                            yield event
                    finally:
                        handle.close()
                    if not cancelled and state.finish_reason is None:
                        raise _IncompleteStream("the stream ended before the reply was complete")
            except Exception as exc:  # noqa: BLE001 - classified below; unknown kinds re-raised
                failure = self._classify(exc)
                if shown:
                    raise StreamInterruptedError(f"the reply was cut off midway: {failure.error}") from exc
                wait = self._retry.delay(attempt, failure.retry_after, clock() - started) if failure.retryable else None
                if wait is None:
                    if attempt > 1:
                        failure.error.args = (f"{failure.error} (gave up after {attempt} attempts)",)
                    raise failure.error from exc
                self._retry.sleep(wait)
                continue
            if cancelled:
                result = ChatResult("".join(text), [], "cancelled", state.usage, _joined(state.reasoning))
            else:
                result = ChatResult(
                    "".join(text), state.tool_calls(), state.finish_reason, state.usage, _joined(state.reasoning)
                )
            yield StreamDone(result)
            return

    def complete(self, request: ChatRequest) -> ChatResult:
        """The whole reply at once (auxiliary calls: titles, summaries, reviews)."""
        for event in self.stream(request):
            if isinstance(event, StreamDone):
                return event.result
        raise ProviderError(f"{self._where()} returned no reply")  # pragma: no cover - stream always ends with StreamDone

    # -- failures ------------------------------------------------------------------------------

    def _where(self) -> str:
        return f"{self.name} ({self.base_url})" if self.base_url else self.name

    def _classify(self, exc: Exception) -> _Failure:
        """Map an SDK/transport exception to a one-line error and whether a retry may help."""
        status_error, connection_errors = self._sdk_errors()
        if isinstance(exc, status_error):
            return self._classify_status(exc)
        if isinstance(exc, (*connection_errors, _IncompleteStream)):
            cause = exc.__cause__ or exc
            return _Failure(True, ProviderError(f"lost the connection to {self._where()}: {one_line(cause)}"))
        if isinstance(exc, ValueError):  # undecodable JSON in the stream, or a body the SDK could not parse
            return _Failure(False, ProviderError(f"{self._where()} sent a malformed reply: {one_line(exc)}"))
        raise exc

    def _classify_status(self, exc: Any) -> _Failure:
        status = int(getattr(exc, "status_code", 0) or 0)
        detail = one_line(_api_message(getattr(exc, "body", None)) or getattr(exc, "message", None) or exc)
        if status == 401:
            key = f"the API key in {self._key_env}" if self._key_env else "the API key"
            return _Failure(False, AuthError(f"{self._where()} rejected {key} (HTTP 401): {detail}"))
        if status == 404:
            return _Failure(
                False, ModelNotFoundError(f"model {self.model!r} was not found at {self._where()} (HTTP 404): {detail}")
            )
        # An error event inside a 200 stream (e.g. "overloaded") is the server's transient trouble.
        retryable = status in RETRYABLE_STATUS or status < 400
        label = f"HTTP {status}" if status >= 400 else "an error event"
        response = getattr(exc, "response", None)
        headers = getattr(response, "headers", None)
        return _Failure(
            retryable,
            ProviderError(f"{self._where()} request failed with {label}: {detail}"),
            parse_retry_after(headers),
        )


def _api_message(body: Any) -> str | None:
    """The server's own error sentence from an error body (``{"error": {"message": …}}``)."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
    return None


def _joined(parts: list[str]) -> str | None:
    return "".join(parts) or None
