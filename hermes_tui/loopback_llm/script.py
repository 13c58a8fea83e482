"""What the loopback model says: scripted steps, and the plausible usage figures it reports."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Union

from engine.prompt.prefix import common_prefix_len


@dataclass
class ToolCallSpec:
    """A tool call in a scripted reply; ``id=None`` sends it without an id (as some servers do)."""

    name: str
    arguments: str = "{}"
    id: str | None = None


@dataclass
class Usage:
    """Usage to report instead of the simulated figures (``None`` fields stay simulated)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None


@dataclass
class Hold:
    """Pause a streamed reply once ``after_chars`` of its text are out, until ``release()``.

    A test that needs a reply still streaming at some point says so with a hold instead of a
    reply long enough for a fast machine: the stream is certain to be running until released.
    ``timeout_s`` bounds the wait, so a forgotten release never hangs a server thread.
    """

    after_chars: int
    timeout_s: float = 30.0
    _released: threading.Event = field(default_factory=threading.Event, repr=False)

    def release(self) -> None:
        self._released.set()

    def wait(self) -> None:
        self._released.wait(self.timeout_s)


@dataclass
class Reply:
    """A normal reply: text streamed in ``chunk_chars`` pieces, then tool calls."""

    text: str = ""
    tool_calls: list[ToolCallSpec] = field(default_factory=list)
    usage: Usage | None = None
    chunk_chars: int = 8
    finish_reason: str | None = None  # None: "tool_calls"/"stop" from the content (wire-native names)
    hold: Hold | None = None  # pause the stream part way (see ``Hold``)


@dataclass
class HttpError:
    """An HTTP error response; ``retry_after`` (seconds) becomes the ``retry-after`` header."""

    status: int
    message: str = "scripted error"
    retry_after: float | None = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class CutStream:
    """Start streaming ``text`` and drop the connection after ``after_chars`` characters."""

    text: str = "This reply will be cut off somewhere in the middle of it."
    after_chars: int = 20
    chunk_chars: int = 8


@dataclass
class MalformedSSE:
    """Start a 200 stream, then send an event whose data is not JSON."""


@dataclass
class StreamError:
    """Start a 200 stream, send ``text``, then an error event, as OpenRouter and vLLM do
    (OpenAI wire: ``data: {"error": {…}}``; Anthropic wire: ``event: error``).

    ``status`` is the HTTP status the event names (vLLM's ``code``; Anthropic's error type);
    ``None`` names none.
    """

    message: str = "scripted error event"
    status: int | None = None
    text: str = ""
    chunk_chars: int = 8


@dataclass
class Silent:
    """Take the request and send nothing at all, not even the response headers, for
    ``timeout_s`` (or until the client hangs up); then drop the connection."""

    timeout_s: float = 30.0


@dataclass
class KeepAliveDrip:
    """Start a 200 stream, send ``text``, then nothing but SSE keep-alives (a comment line; a
    ``ping`` event on the Anthropic wire) every ``interval_s`` until ``timeout_s`` or the client
    hangs up; then drop the connection. Without ``text`` only the headers precede them (as
    OpenRouter sends ``: OPENROUTER PROCESSING`` before the model starts)."""

    text: str = ""
    interval_s: float = 0.05
    timeout_s: float = 30.0
    chunk_chars: int = 8


Step = Union[Reply, HttpError, CutStream, MalformedSSE, StreamError, Silent, KeepAliveDrip]
Responder = Callable[[dict[str, Any]], Step]


@dataclass
class SimulatedUsage:
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int


def simulate_usage(body: bytes, previous: bytes | None, reply_text: str, override: Usage | None) -> SimulatedUsage:
    """Tokens ≈ bytes / 4; the cached part is the prefix shared with the previous request body.

    That makes cache-hit figures in benches follow prefix stability, as a real prompt cache does.
    The uncached remainder counts as written to the cache.
    """
    total = len(body) // 4
    cached = common_prefix_len(body, previous) // 4 if previous else 0
    simulated = SimulatedUsage(total, max(1, len(reply_text) // 4), cached, total - cached)
    if override is not None:
        for name in ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"):
            value = getattr(override, name)
            if value is not None:
                setattr(simulated, name, value)
    return simulated


def text_pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]
