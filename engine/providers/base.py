"""The Provider contract and the one stream driver both SDK clients share.

A concrete provider only knows its wire format: how to open a streamed call (``_open``) and how
to turn the SDK's events into ours (``_read``). Retries, cancellation, time limits, "cut off
midway", unique ids for id-less tool calls and the mapping of SDK failures to one-line errors
live here, so they behave the same for every provider.
"""

from __future__ import annotations

import functools
import ssl
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator, NamedTuple

from engine.providers.errors import (
    AuthError,
    ModelNotFoundError,
    ProviderError,
    ProviderTimeoutError,
    StreamInterruptedError,
    one_line,
)
from engine.providers.pump import StreamPump
from engine.providers.retry import RETRYABLE_STATUS, RetryPolicy, parse_retry_after
from engine.providers.timeouts import KEY as TIMEOUTS_KEY
from engine.providers.timeouts import StreamTimeouts, seconds
from engine.providers.types import (
    ChatRequest,
    ChatResult,
    StreamAttempt,
    StreamDone,
    StreamEvent,
    StreamRetry,
    StreamText,
    StreamToolCall,
    TokenUsage,
    ToolCall,
    conversation_call_ids,
    deterministic_tool_call_id,
)

CANCEL_POLL_S = 0.05  # how soon a cancel is seen while the provider sends nothing


class _IncompleteStream(Exception):
    """The stream ended cleanly but without the provider's end-of-reply marker."""


class _Cancelled(Exception):
    """The caller's cancel flag was set while the reply was read."""


class SDKErrors(NamedTuple):
    """What one SDK raises, from the most to the least specific class."""

    status: type[Exception]  # an HTTP 4xx/5xx reply
    connection: tuple[type[Exception], ...]  # the SDK's and the transport's "connection broke"
    base: type[Exception]  # the root of what it raises, e.g. for an error event inside a 200 stream


@dataclass
class _PartialToolCall:
    id: str
    name: str
    arguments: list[str] = field(default_factory=list)


@dataclass
class ReplyState:
    """What ``_read`` learns about the reply besides its text: tool calls, usage, finish reason.

    ``earlier_ids`` are the ids of the calls already in the conversation, so the ids given to
    this reply's calls are unique in it.
    """

    usage: TokenUsage = field(default_factory=TokenUsage)
    finish_reason: str | None = None
    reasoning: list[str] = field(default_factory=list)
    earlier_ids: list[str] = field(default_factory=list)
    _calls: dict[int, _PartialToolCall] = field(default_factory=dict)

    def start_tool_call(self, key: int, call_id: str | None, name: str) -> StreamToolCall:
        """Register a tool call announced under the provider's ``key``; returns the event to emit."""
        self._calls[key] = _PartialToolCall(call_id or "", name)
        return StreamToolCall(index=len(self._calls) - 1, name=name)

    def has_tool_call(self, key: int) -> bool:
        return key in self._calls

    def add_arguments(self, key: int, fragment: str) -> None:
        self._calls[key].arguments.append(fragment)

    def set_tool_call_id(self, key: int, call_id: str) -> None:
        if call_id and not self._calls[key].id:
            self._calls[key].id = call_id

    def tool_calls(self) -> list[ToolCall]:
        """The finished calls, in order. A call sent without an id, or with one the conversation
        already holds, gets a stable id derived from the call and its position in the conversation."""
        taken = set(self.earlier_ids)
        calls = []
        for offset, partial in enumerate(self._calls.values()):
            arguments = "".join(partial.arguments) or "{}"
            call_id = partial.id
            index = len(self.earlier_ids) + offset
            while not call_id or call_id in taken:
                call_id = deterministic_tool_call_id(partial.name, arguments, index)
                index += len(self._calls)  # a position no other call of this reply has
            taken.add(call_id)
            calls.append(ToolCall(id=call_id, name=partial.name, arguments=arguments))
        return calls


@dataclass
class _Failure:
    retryable: bool
    error: ProviderError
    retry_after: float | None = None


@functools.cache
def shared_tls_context() -> ssl.SSLContext:
    """The transport's default TLS context (CA store, ``SSL_CERT_FILE``), built once per process.

    Building one loads the system's CA store, ~60 ms of CPU, and each SDK client (the turn's,
    the side calls', a rotated session's) would otherwise build its own before its first byte.
    """
    import httpx2

    return httpx2.create_ssl_context()


class Provider(ABC):
    """A chat model behind one API. Sync on purpose: the agent runs turns in a worker thread."""

    name: str
    # The HTTP status an error event's ``type`` stands for, for wires whose events carry no code.
    error_type_status: ClassVar[dict[str, int]] = {}

    def __init__(
        self,
        model: str,
        *,
        api_key: str,
        base_url: str | None = None,
        key_env: str | None = None,
        retry: RetryPolicy | None = None,
        timeouts: StreamTimeouts | None = None,
    ) -> None:
        self.model = model
        self.base_url = base_url
        self._key_env = key_env  # named in the 401 message; None when a placeholder key is used
        self._retry = retry or RetryPolicy()
        self.timeouts = timeouts or StreamTimeouts()
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
        """The SDK client, with the SDK's own retries off (``retry.py`` decides) and its socket
        timeout at ``self.timeouts.transport`` (the limits here decide)."""

    @abstractmethod
    def _sdk_errors(self) -> SDKErrors:
        """The exception classes of the SDK and its transport."""

    @abstractmethod
    def _open(self, request: ChatRequest) -> Any:
        """Send the request; return the SDK's stream object (with ``close()``)."""

    @abstractmethod
    def _read(self, stream: Any, state: ReplyState) -> Iterator[StreamText | StreamToolCall]:
        """Translate the SDK stream into events, filling ``state``; set ``state.finish_reason`` at the end."""

    def stream(self, request: ChatRequest, *, cancel: threading.Event | None = None) -> Iterator[StreamEvent]:
        """Stream one reply, retrying failures that happen before anything was shown.

        Each attempt starts with ``StreamAttempt`` and a retry is announced with ``StreamRetry``
        before its pause (a UI says what the wait is). Ends with exactly one ``StreamDone``.
        When ``cancel`` is set, reading stops within ``CANCEL_POLL_S`` (the connection is shut)
        and the result holds the text streamed so far with finish_reason "cancelled". ``self.timeouts`` bound the wait for every event.
        """
        clock = self._retry.clock
        started = clock()
        deadline = time.monotonic() + self.timeouts.total
        earlier_ids = conversation_call_ids(request.messages)
        attempt = 0
        while True:
            attempt += 1
            state = ReplyState(earlier_ids=earlier_ids)
            text: list[str] = []
            shown = False
            cancelled = _is_set(cancel)
            try:
                if not cancelled:
                    yield StreamAttempt(attempt, self._retry.max_attempts)
                    for event in self._pumped(request, state, cancel, deadline):
                        if isinstance(event, StreamText):
                            text.append(event.text)
                        shown = True
                        yield event
                    if state.finish_reason is None:
                        raise _IncompleteStream("the stream ended before the reply was complete")
            except _Cancelled:
                cancelled = True
            except Exception as exc:  # noqa: BLE001 - classified below; unknown kinds re-raised
                failure = self._classify(exc)
                if shown:
                    raise StreamInterruptedError(f"the reply was cut off midway: {failure.error}") from exc
                wait = self._retry.delay(attempt, failure.retry_after, clock() - started) if failure.retryable else None
                if wait is not None and time.monotonic() + wait >= deadline:
                    wait = None
                if wait is None:
                    if attempt > 1:
                        failure.error.args = (f"{failure.error} (gave up after {attempt} attempts)",)
                    raise failure.error from exc
                yield StreamRetry(attempt + 1, self._retry.max_attempts, wait)
                self._retry.pause(wait, cancel)
                continue
            if cancelled:
                result = ChatResult("".join(text), [], "cancelled", state.usage, _joined(state.reasoning))
            else:
                result = ChatResult(
                    "".join(text), state.tool_calls(), state.finish_reason, state.usage, _joined(state.reasoning)
                )
            yield StreamDone(result)
            return

    def _pumped(
        self, request: ChatRequest, state: ReplyState, cancel: threading.Event | None, deadline: float
    ) -> Iterator[StreamText | StreamToolCall]:
        """One attempt's events, read in a thread (``StreamPump``) and waited for within the
        time limits; raises ``_Cancelled`` as soon as ``cancel`` is set."""
        self._client  # noqa: B018 - made (the SDK imported) before the first-byte clock starts
        sent_at = time.monotonic()
        pump: StreamPump[StreamText | StreamToolCall] = StreamPump(
            lambda: self._open(request), lambda stream: self._read(stream, state)
        )
        finished = False
        try:
            while True:
                limit, _ = self._limit(pump.last_event_at, sent_at, deadline)
                got, event = pump.next(min(CANCEL_POLL_S, limit - time.monotonic()))
                if _is_set(cancel):
                    raise _Cancelled
                if got and event is None:
                    finished = True
                    return
                if got:
                    yield event  # type: ignore[misc]  # not None: the end is handled above
                    continue
                limit, which = self._limit(pump.last_event_at, sent_at, deadline)
                if time.monotonic() >= limit:
                    raise self._timeout_error(which)
        finally:
            if not finished:
                pump.abort()

    def _limit(self, last_event_at: float | None, sent_at: float, deadline: float) -> tuple[float, str]:
        """When the wait for the next event runs out, and which ``model.timeouts`` key says so."""
        if last_event_at is None:
            at, which = sent_at + self.timeouts.first_byte, "first_byte"
        else:
            at, which = last_event_at + self.timeouts.idle, "idle"
        return (deadline, "total") if deadline <= at else (at, which)

    def _timeout_error(self, which: str) -> ProviderTimeoutError:
        limit = seconds(getattr(self.timeouts, which))
        problem = {
            "first_byte": f"sent nothing within {limit} of the request",
            "idle": f"stopped sending for {limit} in the middle of the reply",
            "total": f"did not finish the reply within {limit}",
        }[which]
        return ProviderTimeoutError(f"{self._where()} {problem} ({TIMEOUTS_KEY}.{which})")

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
        errors = self._sdk_errors()
        if isinstance(exc, ProviderTimeoutError):
            return _Failure(False, exc)  # waiting that long again would not help
        if isinstance(exc, errors.status):
            return self._classify_status(exc, int(getattr(exc, "status_code", 0) or 0))
        if isinstance(exc, (*errors.connection, _IncompleteStream)):
            cause = exc.__cause__ or exc
            return _Failure(True, ProviderError(f"lost the connection to {self._where()}: {one_line(cause)}"))
        if isinstance(exc, errors.base):
            if getattr(exc, "body", None) is not None:  # an error event inside a 200 stream (OpenRouter, vLLM)
                return self._classify_status(exc, 0)
            return _Failure(False, ProviderError(f"the call to {self._where()} failed: {one_line(exc)}"))
        if isinstance(exc, ValueError):  # undecodable JSON in the stream, or a body the SDK could not parse
            return _Failure(False, ProviderError(f"{self._where()} sent a malformed reply: {one_line(exc)}"))
        raise exc

    def _classify_status(self, exc: Any, status: int) -> _Failure:
        """An HTTP error, or an error event in a 200 stream (``status`` below 400; the event's own
        numeric ``code``, when it has one, decides then)."""
        body = getattr(exc, "body", None)
        detail = one_line(_api_message(body) or getattr(exc, "message", None) or exc)
        code = status if status >= 400 else _event_code(body, self.error_type_status)
        if code == 401:
            key = f"the API key in {self._key_env}" if self._key_env else "the API key"
            return _Failure(False, AuthError(f"{self._where()} rejected {key} (HTTP 401): {detail}"))
        if code == 404:
            return _Failure(
                False, ModelNotFoundError(f"model {self.model!r} was not found at {self._where()} (HTTP 404): {detail}")
            )
        label = f"HTTP {status}" if status >= 400 else "an error event in its stream"
        # An error event without a client-error code (e.g. "overloaded") is the server's transient trouble.
        retryable = code in RETRYABLE_STATUS or code < 400
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


def _event_code(body: Any, type_status: dict[str, int]) -> int:
    """The HTTP status an error event means: vLLM's ``"code": 400``, OpenRouter's ``"502"``, or
    its error ``type`` looked up in ``type_status``; 0 when it names none."""
    inner = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(inner, dict):
        return 0
    code = inner.get("code")
    if isinstance(code, int) and not isinstance(code, bool):
        return code
    if isinstance(code, str) and code.isdigit():
        return int(code)
    return type_status.get(str(inner.get("type")), 0)


def _is_set(cancel: threading.Event | None) -> bool:
    return cancel is not None and cancel.is_set()


def _joined(parts: list[str]) -> str | None:
    return "".join(parts) or None
