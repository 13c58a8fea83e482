"""Providers under test talk to a real loopback HTTP server through the real SDKs."""

from __future__ import annotations

from typing import Callable, Iterator

import pytest

from engine.providers import ChatRequest, Provider, RetryPolicy, make_provider
from hermes_tui.loopback_llm import LoopbackLLM

KINDS = ("anthropic", "openai")
TOOLS = [
    {"type": "function", "function": {"name": "memory", "description": "Save a fact.",
                                      "parameters": {"type": "object", "properties": {"content": {"type": "string"}}}}},
    {"type": "function", "function": {"name": "session_search", "description": "Search past sessions.",
                                      "parameters": {"type": "object", "properties": {"query": {"type": "string"}}}}},
]


def base_url(server: LoopbackLLM, kind: str) -> str:
    return server.base_url_anthropic if kind == "anthropic" else server.base_url_openai


def simple_request(text: str = "hello") -> ChatRequest:
    return ChatRequest(system="You are Hermes.", messages=[{"role": "user", "content": text}], tools=list(TOOLS))


@pytest.fixture
def server() -> Iterator[LoopbackLLM]:
    with LoopbackLLM() as srv:
        yield srv


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def retry(sleeps: list[float]) -> RetryPolicy:
    """Retries that record their waits instead of sleeping; jitter pinned to its midpoint."""
    return RetryPolicy(sleep=sleeps.append, jitter=lambda: 0.5, clock=lambda: 0.0)


@pytest.fixture(params=KINDS)
def kind(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
def provider(kind: str, server: LoopbackLLM, retry: RetryPolicy) -> Provider:
    return make_provider({"provider": kind, "name": "test-model", "base_url": base_url(server, kind)},
                         env={}, retry=retry)


@pytest.fixture
def make(server: LoopbackLLM, retry: RetryPolicy) -> Callable[..., Provider]:
    def _make(kind: str, *, cache_ttl: str = "5m", env: dict[str, str] | None = None, **cfg: object) -> Provider:
        model_cfg = {"provider": kind, "name": "test-model", "base_url": base_url(server, kind), **cfg}
        return make_provider(model_cfg, env=env or {}, cache_ttl=cache_ttl, retry=retry)
    return _make
