"""The retry policy's arithmetic, retry-after parsing, and the context-window table."""

from __future__ import annotations

import pytest

from engine.providers import RetryPolicy, context_window
from engine.providers.retry import parse_retry_after


def test_backoff_doubles_with_jitter_and_caps() -> None:
    policy = RetryPolicy(max_attempts=10, base_delay=1.0, max_delay=5.0, jitter=lambda: 1.0)
    assert [policy.delay(a, None, 0.0) for a in (1, 2, 3, 4)] == [1.0, 2.0, 4.0, 5.0]
    low = RetryPolicy(jitter=lambda: 0.0)
    assert low.delay(1, None, 0.0) == 0.5


def test_gives_up_after_max_attempts_or_past_the_total_budget() -> None:
    policy = RetryPolicy(max_attempts=4, total_budget=10.0, jitter=lambda: 0.0)
    assert policy.delay(4, None, 0.0) is None
    assert policy.delay(1, 8.0, 1.0) == 8.0
    assert policy.delay(1, 8.0, 3.0) is None  # 3 s spent + 8 s asked > 10 s budget


@pytest.mark.parametrize(
    ("headers", "expected"),
    [({"retry-after": "2"}, 2.0), ({"retry-after-ms": "250"}, 0.25),
     ({"retry-after-ms": "100", "retry-after": "9"}, 0.1), ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, None),
     ({}, None), (None, None)],
)
def test_parse_retry_after(headers: dict | None, expected: float | None) -> None:
    assert parse_retry_after(headers) == expected


@pytest.mark.parametrize(
    ("cfg", "window"),
    [({"name": "claude-sonnet-4-5"}, 200_000), ({"name": "gpt-4o-mini"}, 128_000), ({"name": "gpt-4"}, 8_192),
     ({"name": "anthropic/claude-opus-4"}, 200_000), ({"name": "llama3:8b"}, 128_000),
     ({"name": "claude-sonnet-4-5", "context_length": 32_000}, 32_000)],
)
def test_context_window(cfg: dict, window: int) -> None:
    assert context_window(cfg) == window
