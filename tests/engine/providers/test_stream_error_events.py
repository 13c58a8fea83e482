"""An error event inside a 200 stream (OpenRouter, vLLM, Anthropic's ``event: error``) is a
one-line provider error, retried only when it names no client error and nothing was shown."""

from __future__ import annotations

import pytest

from engine.providers import Provider, ProviderError, StreamInterruptedError, StreamText
from hermes_tui.loopback_llm import LoopbackLLM, Reply, StreamError

from .conftest import base_url, simple_request


def test_a_client_error_event_is_one_line_and_not_retried(provider: Provider, server: LoopbackLLM, kind: str,
                                                           sleeps: list[float]) -> None:
    message = "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens."
    server.push(StreamError(message, status=400), Reply(text="must not be used"))
    with pytest.raises(ProviderError) as caught:
        provider.complete(simple_request())
    assert type(caught.value) is ProviderError and caught.value.exit_code == 1
    text = str(caught.value)
    assert text.startswith(f"{kind} ({base_url(server, kind)}) request failed with an error event in its stream")
    assert message in text and "\n" not in text
    assert len(server.requests) == 1 and sleeps == []


def test_an_error_event_naming_no_client_error_is_retried(provider: Provider, server: LoopbackLLM,
                                                          sleeps: list[float]) -> None:
    server.push(StreamError("Provider returned error"), StreamError("overloaded", status=529), Reply(text="back"))
    assert provider.complete(simple_request()).text == "back"
    assert sleeps == [0.75, 1.5] and len(server.requests) == 3


def test_error_events_until_the_last_attempt_say_so(provider: Provider, server: LoopbackLLM) -> None:
    server.push(*[StreamError("Provider returned error", status=502)] * 4)
    with pytest.raises(ProviderError, match=r"in its stream: Provider returned error \(gave up after 4 attempts\)$"):
        provider.complete(simple_request())


def test_an_error_event_after_text_cuts_the_reply_off(provider: Provider, server: LoopbackLLM) -> None:
    server.push(StreamError("upstream provider disconnected", text="Here is the first half"), Reply(text="unused"))
    shown: list[str] = []
    with pytest.raises(StreamInterruptedError) as caught:
        for event in provider.stream(simple_request()):
            if isinstance(event, StreamText):
                shown.append(event.text)
    assert "".join(shown) == "Here is the first half"
    assert str(caught.value).startswith("the reply was cut off midway: ")
    assert "upstream provider disconnected" in str(caught.value)
    assert len(server.requests) == 1
