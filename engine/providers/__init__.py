"""LLM clients behind one small contract: Anthropic and any OpenAI-compatible server.

The SDKs are imported only when a provider is made, so commands that never call a model start fast.
"""

from __future__ import annotations

import os
from typing import Any, Mapping

from engine.errors import ConfigError
from engine.providers.base import Provider
from engine.providers.errors import (
    AuthError,
    MissingKeyError,
    ModelNotFoundError,
    ProviderError,
    StreamInterruptedError,
)
from engine.providers.retry import RetryPolicy
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

__all__ = [
    "AuthError",
    "ChatRequest",
    "ChatResult",
    "MissingKeyError",
    "ModelNotFoundError",
    "Provider",
    "ProviderError",
    "RetryPolicy",
    "StreamDone",
    "StreamEvent",
    "StreamInterruptedError",
    "TextDelta",
    "TokenUsage",
    "ToolCall",
    "ToolCallStarted",
    "context_window",
    "deterministic_tool_call_id",
    "make_provider",
]

DEFAULT_KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
# A local OpenAI-compatible server needs no key, but the SDKs insist on a non-empty one.
PLACEHOLDER_KEY = "not-needed"
DEFAULT_CONTEXT_WINDOW = 128_000
# Known windows by model-name prefix; the longest matching prefix wins.
_KNOWN_WINDOWS: dict[str, int] = {
    "claude-": 200_000,
    "gpt-4o": 128_000,
    "gpt-4.1": 1_047_576,
    "gpt-4-turbo": 128_000,
    "gpt-4": 8_192,
    "gpt-3.5-turbo": 16_385,
    "gpt-5": 400_000,
    "o1": 200_000,
    "o3": 200_000,
    "o4-mini": 200_000,
}


def context_window(model_cfg: Mapping[str, Any]) -> int:
    """Tokens the model can take: ``context_length`` when set, else known per model, else 128,000."""
    configured = model_cfg.get("context_length")
    if configured:
        return int(configured)
    name = str(model_cfg.get("name") or "").rsplit("/", 1)[-1]  # "anthropic/claude-…" on OpenRouter
    matches = [prefix for prefix in _KNOWN_WINDOWS if name.startswith(prefix)]
    return _KNOWN_WINDOWS[max(matches, key=len)] if matches else DEFAULT_CONTEXT_WINDOW


def make_provider(
    model_cfg: Mapping[str, Any],
    *,
    env: Mapping[str, str] = os.environ,
    cache_ttl: str = "5m",
    retry: RetryPolicy | None = None,
) -> Provider:
    """The provider for a ``model:`` config section (``provider``, ``name``, ``base_url``, ``api_key_env``).

    A hosted provider needs its key (MissingKeyError names the variable); with ``base_url`` set
    the key is optional.
    """
    kind = model_cfg.get("provider") or "anthropic"
    if kind not in DEFAULT_KEY_ENV:
        raise ConfigError(f"model.provider must be anthropic or openai (got {kind!r})")
    model = model_cfg.get("name")
    if not model:
        raise ConfigError("model.name is not set in config.yaml")
    base_url = model_cfg.get("base_url") or None
    key_env = model_cfg.get("api_key_env") or DEFAULT_KEY_ENV[kind]
    api_key = env.get(key_env) or None
    if api_key is None:
        if base_url is None:
            raise MissingKeyError(f"no API key for {kind}: set {key_env} (or model.base_url for a local server)")
        api_key, key_env = PLACEHOLDER_KEY, None
    if kind == "anthropic":
        from engine.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(
            model, api_key=api_key, base_url=base_url, key_env=key_env, cache_ttl=cache_ttl, retry=retry
        )
    from engine.providers.openai_provider import OpenAIProvider

    return OpenAIProvider(model, api_key=api_key, base_url=base_url, key_env=key_env, retry=retry)
