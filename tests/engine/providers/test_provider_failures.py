"""Retries, cut-off streams and the one-line errors, for both providers, end to end."""

from __future__ import annotations

import pytest

from engine.errors import ConfigError
from engine.providers import (
    AuthError,
    MissingKeyError,
    ModelNotFoundError,
    Provider,
    ProviderError,
    StreamInterruptedError,
    StreamText,
    make_provider,
)
from hermes_tui.loopback_llm import CutStream, HttpError, LoopbackLLM, MalformedSSE, Reply

from .conftest import simple_request


def test_429_twice_then_success_waits_as_told(provider: Provider, server: LoopbackLLM, sleeps: list[float]) -> None:
    server.push(HttpError(429, retry_after=3), HttpError(429, headers={"retry-after-ms": "1500"}), Reply(text="finally"))
    assert provider.complete(simple_request()).text == "finally"
    assert sleeps == [3.0, 1.5]
    assert len(server.requests) == 3


def test_500_is_retried_with_backoff_then_reported(provider: Provider, server: LoopbackLLM, sleeps: list[float]) -> None:
    server.push(*[HttpError(500, message="upstream exploded")] * 4)
    with pytest.raises(ProviderError) as caught:
        provider.complete(simple_request())
    assert type(caught.value) is ProviderError and caught.value.exit_code == 1
    message = str(caught.value)
    assert "HTTP 500" in message and "upstream exploded" in message and "4 attempts" in message
    assert "\n" not in message
    assert sleeps == [0.75, 1.5, 3.0]  # 1, 2, 4 s backoff × pinned jitter factor 0.75
    assert len(server.requests) == 4


def test_connection_drop_before_any_text_is_retried(provider: Provider, server: LoopbackLLM) -> None:
    server.push(CutStream(text="lost", after_chars=0), Reply(text="second try"))
    assert provider.complete(simple_request()).text == "second try"


def test_stream_cut_after_text_is_not_retried(provider: Provider, server: LoopbackLLM) -> None:
    text = "Half of this reply arrives and then the line goes dead."
    server.push(CutStream(text=text, after_chars=len(text) // 2), Reply(text="must not be used"))
    shown: list[str] = []
    with pytest.raises(StreamInterruptedError) as caught:
        for event in provider.stream(simple_request()):
            if isinstance(event, StreamText):
                shown.append(event.text)
    assert "".join(shown) == text[: len(text) // 2]
    assert str(caught.value).startswith("the reply was cut off midway: ")
    assert len(server.requests) == 1


def test_malformed_sse_is_a_clear_error(provider: Provider, server: LoopbackLLM) -> None:
    server.push(MalformedSSE())
    with pytest.raises(ProviderError, match="sent a malformed reply"):
        provider.complete(simple_request())
    assert len(server.requests) == 1


def test_401_is_an_auth_error_naming_the_key_variable(make, kind: str, server: LoopbackLLM) -> None:
    server.push(HttpError(401, message="invalid x-api-key"))
    provider = make(kind, api_key_env="TEAM_KEY", env={"TEAM_KEY": "sk-bad"})
    with pytest.raises(AuthError) as caught:
        provider.complete(simple_request())
    assert caught.value.exit_code == 1
    assert "TEAM_KEY" in str(caught.value) and "HTTP 401" in str(caught.value)
    assert len(server.requests) == 1


def test_404_names_the_model(provider: Provider, server: LoopbackLLM) -> None:
    server.push(HttpError(404, message="model: test-model"))
    with pytest.raises(ModelNotFoundError, match="model 'test-model' was not found") as caught:
        provider.complete(simple_request())
    assert caught.value.exit_code == 1


@pytest.mark.parametrize(("kind", "variable"), [("anthropic", "ANTHROPIC_API_KEY"), ("openai", "OPENAI_API_KEY")])
def test_missing_key_names_the_default_variable(kind: str, variable: str) -> None:
    with pytest.raises(MissingKeyError, match=variable) as caught:
        make_provider({"provider": kind, "name": "m"}, env={})
    assert caught.value.exit_code == 2


def test_missing_key_names_the_configured_variable() -> None:
    with pytest.raises(MissingKeyError, match="MY_ROUTER_KEY"):
        make_provider({"provider": "openai", "name": "m", "api_key_env": "MY_ROUTER_KEY"},
                      env={"OPENAI_API_KEY": "set-but-not-the-configured-one"})


@pytest.mark.parametrize(
    ("cfg", "key"),
    [({"provider": "gemeni", "name": "m"}, "model.provider"), ({"provider": "openai", "name": ""}, "model.name")],
)
def test_bad_model_config_names_the_key(cfg: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key):
        make_provider(cfg, env={"OPENAI_API_KEY": "k"})


def test_bad_cache_ttl_is_refused_at_construction() -> None:
    with pytest.raises(ConfigError, match="prompt_caching.cache_ttl"):
        make_provider({"provider": "anthropic", "name": "m"}, env={"ANTHROPIC_API_KEY": "k"}, cache_ttl="2h")


def test_unscripted_request_fails_clearly(provider: Provider) -> None:
    with pytest.raises(ProviderError, match="no scripted step left"):
        provider.complete(simple_request())
