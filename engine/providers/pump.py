"""One streamed reply read in a daemon thread, so the caller can stop waiting the moment it must.

A read blocked on the socket cannot be interrupted from its own thread, and closing the SDK
stream from another thread does not wake it either (the read waits for the next byte, which a
silent provider never sends). Shutting the socket down does. So the SDK is read here; the
caller waits on a queue, checking its cancel flag and the time limits, and ``abort`` shuts the
response's socket down so the reader ends too.
"""

from __future__ import annotations

import queue
import socket
import threading
import time
from typing import Any, Callable, Generic, Iterator, TypeVar

T = TypeVar("T")

_EVENT, _END, _ERROR = "event", "end", "error"


class StreamPump(Generic[T]):
    """Runs ``read(open_())`` in a daemon thread and hands its events over a queue.

    ``last_event_at`` is when the SDK last produced an event (``time.monotonic()``), ``None``
    before the first: SSE comments and pings never reach it, so keep-alives are not progress.
    """

    def __init__(self, open_: Callable[[], Any], read: Callable[[Iterator[Any]], Iterator[T]]) -> None:
        self._open = open_
        self._read = read
        self._queue: queue.SimpleQueue[tuple[str, Any]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._handle: Any = None
        self._stopped = False
        self.last_event_at: float | None = None
        threading.Thread(target=self._run, name="provider-stream", daemon=True).start()

    def _run(self) -> None:
        try:
            handle = self._open()
            with self._lock:
                self._handle = handle
                stopped = self._stopped
            try:
                if not stopped:
                    for event in self._read(self._ticking(handle)):
                        if self._stopped:
                            return
                        self._queue.put((_EVENT, event))
            finally:
                handle.close()
            self._queue.put((_END, None))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, who classifies it
            self._queue.put((_ERROR, exc))

    def _ticking(self, stream: Any) -> Iterator[Any]:
        for item in stream:
            self.last_event_at = time.monotonic()
            yield item

    def next(self, timeout: float) -> tuple[bool, T | None]:
        """``(True, event)``, ``(True, None)`` at the end, ``(False, None)`` if nothing came in
        ``timeout`` seconds; re-raises what the reader raised."""
        try:
            kind, value = self._queue.get(timeout=max(0.0, timeout))
        except queue.Empty:
            return False, None
        if kind == _ERROR:
            raise value
        return True, value if kind == _EVENT else None

    def abort(self) -> None:
        """Stop reading now: the socket is shut down, which wakes a read blocked on it."""
        with self._lock:
            self._stopped = True
            handle = self._handle
        if handle is not None:
            _shut_down(handle)


def _shut_down(handle: Any) -> None:
    """Shut the socket under an SDK stream down (both SDKs keep the httpx response on it)."""
    response = getattr(handle, "response", None)
    if response is None or getattr(response, "is_closed", False):
        return  # finished: its connection may already serve another request
    network = (getattr(response, "extensions", None) or {}).get("network_stream")
    sock = network.get_extra_info("socket") if network is not None else None
    if sock is None:
        handle.close()  # no socket to reach: the best left is to close it
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed by the other side
