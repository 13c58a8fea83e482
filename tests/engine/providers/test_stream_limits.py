"""A silent or dripping provider ends the call with a one-line error; a cancel ends it at once.

Both SDKs, end to end against the loopback server, with small limits configured the way a user
would (``model.timeouts``). Nothing here asserts how long something took: waits are bounded,
and the server's steps would hold for 30 s if the client did not give up or hang up.
"""

from __future__ import annotations

import threading
import time
from typing import Callable

import pytest

from engine.errors import ConfigError
from engine.providers import (
    Provider,
    RetryPolicy,
    StreamDone,
    StreamInterruptedError,
    StreamText,
    make_provider,
)
from engine.providers.errors import ProviderTimeoutError
from engine.providers.timeouts import StreamTimeouts
from hermes_tui.loopback_llm import (
    Hold,
    HttpError,
    KeepAliveDrip,
    LoopbackLLM,
    Reply,
    Silent,
)

from .conftest import base_url, simple_request

QUICK = {"first_byte": 0.5, "idle": 30.0, "total": 60.0}  # only the first-byte limit can fire
IDLE = {"first_byte": 30.0, "idle": 0.5, "total": 60.0}  # only the idle limit can fire


def _new_readers(before: set[threading.Thread]) -> list[threading.Thread]:
    """Stream-reading threads started since ``before`` that are still alive."""
    return [t for t in threading.enumerate() if t.name == "provider-stream" and t not in before and t.is_alive()]


def _wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_no_bytes_at_all_ends_at_the_first_byte_limit_without_a_retry(make, kind: str, server: LoopbackLLM) -> None:
    server.push(Silent(), Reply(text="must not be used"))
    provider = make(kind, timeouts=QUICK)
    with pytest.raises(ProviderTimeoutError) as caught:
        provider.complete(simple_request())
    message = str(caught.value)
    assert "sent nothing within 0.5 s of the request (model.timeouts.first_byte)" in message
    assert "\n" not in message and caught.value.exit_code == 1
    assert len(server.requests) == 1  # waiting that long again would not help


def test_keep_alives_from_the_start_are_not_a_reply(make, kind: str, server: LoopbackLLM) -> None:
    server.push(KeepAliveDrip(interval_s=0.05))
    with pytest.raises(ProviderTimeoutError, match=r"model\.timeouts\.first_byte"):
        make(kind, timeouts=QUICK).complete(simple_request())


def test_keep_alives_after_some_text_end_at_the_idle_limit(make, kind: str, server: LoopbackLLM) -> None:
    server.push(KeepAliveDrip(text="The answer is", interval_s=0.05))
    shown: list[str] = []
    with pytest.raises(StreamInterruptedError) as caught:
        for event in make(kind, timeouts=IDLE).stream(simple_request()):
            if isinstance(event, StreamText):
                shown.append(event.text)
    assert "".join(shown) == "The answer is"
    assert str(caught.value) == (
        f"the reply was cut off midway: {kind} ({base_url(server, kind)}) stopped sending for 0.5 s "
        "in the middle of the reply (model.timeouts.idle)"
    )


def test_a_reply_that_never_ends_stops_at_the_total_limit(make, kind: str, server: LoopbackLLM) -> None:
    server.tokens_per_second = 50  # a steady trickle: never idle, never done
    server.push(Reply(text="word " * 2000, chunk_chars=5))
    # Cut off midway once text was shown; on a loaded machine the limit may come before the first text.
    with pytest.raises((StreamInterruptedError, ProviderTimeoutError),
                       match=r"did not finish the reply within 1 s \(model\.timeouts\.total\)"):
        make(kind, timeouts={"first_byte": 30, "idle": 30, "total": 1}).complete(simple_request())


@pytest.mark.parametrize("step", [Silent, lambda: Reply(text="held " * 50, hold=Hold(after_chars=10))],
                         ids=["silent", "held"])
def test_cancel_ends_a_stalled_call_at_once(provider: Provider, server: LoopbackLLM, step) -> None:
    """Default limits (60 s): only the cancel can end these calls within the bound below."""
    server.push(step())
    cancel = threading.Event()
    events: list = []
    reader = threading.Thread(target=lambda: events.extend(provider.stream(simple_request(), cancel=cancel)))
    reader.start()
    assert _wait_for(lambda: len(server.requests) == 1)
    cancel.set()
    reader.join(5)
    assert not reader.is_alive()
    assert isinstance(events[-1], StreamDone) and events[-1].result.finish_reason == "cancelled"


def test_cancel_shuts_the_connection_so_the_reading_thread_ends(provider: Provider, server: LoopbackLLM) -> None:
    """Closing the SDK stream from another thread does not wake a blocked read; the socket is shut."""
    server.push(KeepAliveDrip(text="Thinking", interval_s=5.0))
    cancel = threading.Event()
    before = set(threading.enumerate())
    for event in provider.stream(simple_request(), cancel=cancel):
        if isinstance(event, StreamText):
            cancel.set()  # the read now blocks on the socket for 5 s: only a shutdown wakes it
    assert event.result.finish_reason == "cancelled"
    assert _wait_for(lambda: not _new_readers(before), timeout=3)


def test_cancel_during_a_retry_wait_ends_the_call(kind: str, server: LoopbackLLM) -> None:
    server.push(HttpError(503, retry_after=25))
    provider = make_provider({"provider": kind, "name": "m", "base_url": base_url(server, kind)}, env={},
                             retry=RetryPolicy())  # real waits, cut short by the cancel
    cancel = threading.Event()
    events: list = []
    reader = threading.Thread(target=lambda: events.extend(provider.stream(simple_request(), cancel=cancel)))
    reader.start()
    assert _wait_for(lambda: len(server.requests) == 1)
    cancel.set()
    reader.join(5)
    assert not reader.is_alive() and events[-1].result.finish_reason == "cancelled"
    assert len(server.requests) == 1


def test_limits_come_from_the_model_section_with_defaults(make, kind: str) -> None:
    assert make(kind).timeouts == StreamTimeouts(first_byte=60.0, idle=60.0, total=900.0)
    assert make(kind, timeouts={"idle": 5}).timeouts == StreamTimeouts(idle=5.0)


@pytest.mark.parametrize("value", [0, -1, "fast", True])
def test_a_bad_limit_names_its_key(make, kind: str, value: object) -> None:
    with pytest.raises(ConfigError, match=r"model\.timeouts\.idle is .*expected a positive number of seconds"):
        make(kind, timeouts={"idle": value})
