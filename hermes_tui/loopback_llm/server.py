"""A real HTTP server on 127.0.0.1 that speaks the Anthropic and OpenAI wire formats.

Tests drive the real SDKs against it end to end, and the offline demo serves a scripted model
through it. It records every request byte-for-byte so prefix stability can be measured, and it
simulates a prefix cache (see ``script.simulate_usage``). Standard library only.
"""

from __future__ import annotations

import json
import select
import socket
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import ModuleType
from typing import Any, Iterable, Iterator

from hermes_tui.loopback_llm import wire_anthropic, wire_openai
from hermes_tui.loopback_llm.script import (
    CutStream,
    Hold,
    HttpError,
    KeepAliveDrip,
    MalformedSSE,
    Reply,
    Responder,
    Silent,
    Step,
    StreamError,
    simulate_usage,
)

_WIRES: dict[str, ModuleType] = {wire_anthropic.PATH: wire_anthropic, wire_openai.PATH: wire_openai}
HEAD_FRAMES = 2  # frames before the first text in either wire format (at most)


def _held(frames: Iterator[bytes], hold: Hold, count: int) -> Iterator[bytes]:
    """``frames``, waiting on ``hold`` after the first ``count`` of them."""
    for index, frame in enumerate(frames):
        if index == count:
            hold.wait()
        yield frame


@dataclass
class Recorded:
    """One request as it arrived, and when its answer was complete."""

    path: str
    headers: dict[str, str]
    body_bytes: bytes
    json: Any
    # time.monotonic() once the last byte of the answer was flushed (the stream's last chunk): a
    # bench measures from here to the screen. None while the answer is still being sent.
    finished_at: float | None = None


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, loopback: LoopbackLLM) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.loopback = loopback
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._connections_lock:
            self._connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._connections_lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def hang_up(self) -> None:
        """End every kept-alive connection: its handler thread would otherwise wait for the
        client's next request for as long as the process lives (and keep what it references)."""
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass  # already gone

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client hanging up (a cancelled or cut stream) is normal here; anything else is printed."""
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


class LoopbackLLM:
    """The fake model server. Use as a context manager; script it with ``push`` or a ``responder``.

    Steps are served in order; when none is left, ``responder(request_json)`` decides, and
    without one the request fails with HTTP 400 naming the problem. ``side_responder``, when
    set, answers every request that offers no tools (titles, summaries, memory reviews made in
    the background) so they never take a step scripted for the conversation.
    """

    def __init__(
        self,
        script: Iterable[Step] = (),
        *,
        responder: Responder | None = None,
        side_responder: Responder | None = None,
        tokens_per_second: float | None = None,
    ) -> None:
        self._steps: deque[Step] = deque(script)
        self.responder = responder
        self.side_responder = side_responder
        self.tokens_per_second = tokens_per_second
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._previous_body: dict[str, bytes] = {}
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------------------------

    def start(self) -> LoopbackLLM:
        server = _Server(self)
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, name="loopback-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.hang_up()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> LoopbackLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the loopback LLM server is not running")
        return self._server.server_address[1]

    @property
    def base_url_anthropic(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url_openai(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting -----------------------------------------------------------------------------

    def push(self, *steps: Step) -> None:
        with self._lock:
            self._steps.extend(steps)

    def _take(self, path: str, headers: dict[str, str], body: bytes) -> tuple[Recorded, Step | None, bytes | None]:
        """Record the request; return its record, its step and the previous body on the same path."""
        try:
            parsed = json.loads(body) if body else None
        except ValueError:
            parsed = None
        side = self.side_responder is not None and isinstance(parsed, dict) and not parsed.get("tools")
        record = Recorded(path, headers, body, parsed)
        with self._lock:
            self.requests.append(record)
            previous = self._previous_body.get(path)
            if side:
                assert self.side_responder is not None
                return record, self.side_responder(parsed), previous
            step = self._steps.popleft() if self._steps else None
        if step is None and self.responder is not None and parsed is not None:
            step = self.responder(parsed)
        if step is not None and not isinstance(step, HttpError):
            with self._lock:
                self._previous_body[path] = body  # only a served request writes the simulated cache
        return record, step, previous


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Quiet: tests read ``requests``, not the log."""

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        loopback = self.server.loopback
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = self.path.split("?", 1)[0]
        record, step, previous = loopback._take(path, {k.lower(): v for k, v in self.headers.items()}, body)
        try:
            self._answer(path, record, step, previous, loopback.tokens_per_second)
        finally:
            record.finished_at = time.monotonic()

    def _answer(self, path: str, record: Recorded, step: Step | None, previous: bytes | None,
                tokens_per_second: float | None) -> None:
        request = record.json
        wire = _WIRES.get(path)
        if wire is None:
            self._send_json(404, {"error": {"message": f"no such endpoint: {path}"}})
        elif step is None:
            self._send_json(400, wire.error_body(400, "loopback LLM: no scripted step left for this request"))
        elif isinstance(step, HttpError):
            headers = dict(step.headers)
            if step.retry_after is not None:
                headers["retry-after"] = f"{step.retry_after:g}"
            self._send_json(step.status, wire.error_body(step.status, step.message), headers)
        else:
            try:
                self._serve(wire, step, request or {}, record.body_bytes, previous, tokens_per_second)
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client stopped reading (cancelled)

    def _serve(
        self, wire: ModuleType, step: Step, request: dict[str, Any], body: bytes, previous: bytes | None,
        tokens_per_second: float | None,
    ) -> None:
        model = str(request.get("model", "loopback"))
        text = step.text if isinstance(step, (Reply, CutStream, StreamError, KeepAliveDrip)) else ""
        usage = simulate_usage(body, previous, text, step.usage if isinstance(step, Reply) else None)
        if isinstance(step, Reply) and not request.get("stream"):
            self._send_json(200, wire.json_reply(step, model, usage))
            return
        if isinstance(step, Silent):
            self._wait_for_hangup(step.timeout_s)
            self._drop_connection()
            return
        self._start_sse()
        if isinstance(step, KeepAliveDrip):
            if step.text:
                self._send_frames(wire.stream_start(model, usage), None)
                self._send_frames(wire.text_frames(step.text, step.chunk_chars, model), tokens_per_second)
            self._drip(wire.keepalive_frame(), step)
            self._drop_connection()
            return
        if isinstance(step, Reply):
            include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
            frames = wire.stream_reply(step, model, usage, include_usage)
            if step.hold is not None:
                frames = _held(frames, step.hold, HEAD_FRAMES + -(-step.hold.after_chars // step.chunk_chars))
            self._send_frames(frames, tokens_per_second)
            self._end_chunks()
            return
        self._send_frames(wire.stream_start(model, usage), None)
        if isinstance(step, MalformedSSE):
            self._send_frames(iter([wire.malformed_frame()]), None)
            self._end_chunks()
            return
        if isinstance(step, StreamError):
            self._send_frames(wire.text_frames(step.text, step.chunk_chars, model), tokens_per_second)
            self._send_frames(iter([wire.error_frame(step.status, step.message)]), None)
            self._end_chunks()
            return
        cut = step
        assert isinstance(cut, CutStream)
        self._send_frames(wire.text_frames(cut.text[: cut.after_chars], cut.chunk_chars, model), tokens_per_second)
        self._drop_connection()

    # -- HTTP plumbing -------------------------------------------------------------------------

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _start_sse(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _send_frames(self, frames: Iterator[bytes], tokens_per_second: float | None) -> None:
        pause = 1.0 / tokens_per_second if tokens_per_second else 0.0
        for frame in frames:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(frame), frame))
            self.wfile.flush()
            if pause:
                time.sleep(pause)

    def _drip(self, frame: bytes, step: KeepAliveDrip) -> None:
        """Send ``frame`` every ``interval_s`` until ``timeout_s`` passes or the client hangs up."""
        deadline = time.monotonic() + step.timeout_s
        while time.monotonic() < deadline and not self._wait_for_hangup(min(step.interval_s, deadline - time.monotonic())):
            self._send_frames(iter([frame]), None)

    def _wait_for_hangup(self, seconds: float) -> bool:
        """Wait up to ``seconds``; True as soon as the client has closed its end."""
        readable, _, _ = select.select([self.connection], [], [], max(0.0, seconds))
        if not readable:
            return False
        try:
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    def _end_chunks(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _drop_connection(self) -> None:
        """Close mid-body, without the final chunk: the client sees a broken transfer."""
        self.wfile.flush()
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
