"""LLM clients behind one small contract: Anthropic and any OpenAI-compatible server.

``model.provider`` may be ours (``anthropic``, ``openai``) or any of upstream Hermes's names
(``custom``, ``openrouter``, ``auto``, ``deepseek``, aliases such as ``ollama``): each maps to one
of the two wire formats with its address and key variable (:data:`SERVICES`), so a home set up
for upstream works as it is. The SDKs are imported only when a provider is first called, so
commands that never call a model start fast.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping
from urllib.parse import urlsplit

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
from engine.providers.timeouts import StreamTimeouts
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
    "StreamAttempt",
    "StreamDone",
    "StreamEvent",
    "StreamInterruptedError",
    "StreamRetry",
    "StreamText",
    "StreamToolCall",
    "TokenUsage",
    "ToolCall",
    "context_window",
    "deterministic_tool_call_id",
    "make_provider",
    "resolve_endpoint",
]

# A local OpenAI-compatible server needs no key, but the SDKs insist on a non-empty one.
PLACEHOLDER_KEY = "not-needed"


@dataclass(frozen=True)
class Service:
    """How one ``model.provider`` name is reached: wire format, address, key variables.

    ``wire`` is ``"anthropic"`` or ``"openai"``; ``None`` tells by the address, as upstream does
    (a ``/anthropic`` path or api.anthropic.com speaks Anthropic's Messages API, anything else
    OpenAI's chat completions). ``base_url`` ``None`` leaves the address to the SDK (ours) or to
    ``model.base_url`` (an endpoint of the user's own).
    """

    wire: str | None = None
    base_url: str | None = None
    key_envs: tuple[str, ...] = ()
    base_url_env: str | None = None
    own_endpoint: bool = False  # the user's server: model.api_key is read, a key is optional
    reads_config_url: bool = True  # upstream ignores model.base_url for OpenRouter (often stale)


def _hosted(url: str, *keys: str, url_env: str | None = None) -> Service:
    return Service(base_url=url, key_envs=keys, base_url_env=url_env)


# Upstream's API-key providers (hermes-agent 0.19.0), in the order its ``auto`` looks for a key.
_HOSTED: tuple[tuple[str, Service], ...] = (
    ("openai-api", _hosted("https://api.openai.com/v1", "OPENAI_API_KEY", url_env="OPENAI_BASE_URL")),
    ("gemini", _hosted("https://generativelanguage.googleapis.com/v1beta", "GOOGLE_API_KEY", "GEMINI_API_KEY",
                       url_env="GEMINI_BASE_URL")),
    ("zai", _hosted("https://api.z.ai/api/paas/v4", "GLM_API_KEY", "ZAI_API_KEY", "Z_AI_API_KEY",
                    url_env="GLM_BASE_URL")),
    ("kimi-coding", _hosted("https://api.moonshot.ai/v1", "KIMI_API_KEY", "KIMI_CODING_API_KEY",
                            url_env="KIMI_BASE_URL")),
    ("kimi-coding-cn", _hosted("https://api.moonshot.cn/v1", "KIMI_CN_API_KEY")),
    ("stepfun", _hosted("https://api.stepfun.ai/step_plan/v1", "STEPFUN_API_KEY", url_env="STEPFUN_BASE_URL")),
    ("arcee", _hosted("https://api.arcee.ai/api/v1", "ARCEEAI_API_KEY", url_env="ARCEE_BASE_URL")),
    ("gmi", _hosted("https://api.gmi-serving.com/v1", "GMI_API_KEY", url_env="GMI_BASE_URL")),
    ("minimax", _hosted("https://api.minimax.io/anthropic", "MINIMAX_API_KEY", url_env="MINIMAX_BASE_URL")),
    ("anthropic", Service(wire="anthropic", key_envs=("ANTHROPIC_API_KEY",))),
    ("alibaba", _hosted("https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "DASHSCOPE_API_KEY",
                        url_env="DASHSCOPE_BASE_URL")),
    ("alibaba-coding-plan", _hosted("https://coding-intl.dashscope.aliyuncs.com/v1", "ALIBABA_CODING_PLAN_API_KEY",
                                    "DASHSCOPE_API_KEY", url_env="ALIBABA_CODING_PLAN_BASE_URL")),
    ("minimax-cn", _hosted("https://api.minimaxi.com/anthropic", "MINIMAX_CN_API_KEY", url_env="MINIMAX_CN_BASE_URL")),
    ("deepseek", _hosted("https://api.deepseek.com/v1", "DEEPSEEK_API_KEY", url_env="DEEPSEEK_BASE_URL")),
    ("xai", _hosted("https://api.x.ai/v1", "XAI_API_KEY", url_env="XAI_BASE_URL")),
    ("nvidia", _hosted("https://integrate.api.nvidia.com/v1", "NVIDIA_API_KEY", url_env="NVIDIA_BASE_URL")),
    ("opencode-zen", _hosted("https://opencode.ai/zen/v1", "OPENCODE_ZEN_API_KEY", url_env="OPENCODE_ZEN_BASE_URL")),
    ("opencode-go", _hosted("https://opencode.ai/zen/go/v1", "OPENCODE_GO_API_KEY", url_env="OPENCODE_GO_BASE_URL")),
    ("kilocode", _hosted("https://api.kilo.ai/api/gateway", "KILOCODE_API_KEY", url_env="KILOCODE_BASE_URL")),
    ("huggingface", _hosted("https://router.huggingface.co/v1", "HF_TOKEN", url_env="HF_BASE_URL")),
    ("xiaomi", _hosted("https://api.xiaomimimo.com/v1", "XIAOMI_API_KEY", url_env="XIAOMI_BASE_URL")),
    ("tencent-tokenhub", _hosted("https://tokenhub.tencentmaas.com/v1", "TOKENHUB_API_KEY",
                                 url_env="TOKENHUB_BASE_URL")),
    ("ollama-cloud", _hosted("https://ollama.com/v1", "OLLAMA_API_KEY", url_env="OLLAMA_BASE_URL")),
    ("azure-foundry", Service(key_envs=("AZURE_FOUNDRY_API_KEY",), base_url_env="AZURE_FOUNDRY_BASE_URL")),
    ("deepinfra", _hosted("https://api.deepinfra.com/v1/openai", "DEEPINFRA_API_KEY", url_env="DEEPINFRA_BASE_URL")),
    ("fireworks", _hosted("https://api.fireworks.ai/inference/v1", "FIREWORKS_API_KEY")),
    ("novita", _hosted("https://api.novita.ai/openai/v1", "NOVITA_API_KEY", url_env="NOVITA_BASE_URL")),
    ("upstage", _hosted("https://api.upstage.ai/v1", "UPSTAGE_API_KEY", url_env="UPSTAGE_BASE_URL")),
)
_OPENROUTER = Service(base_url="https://openrouter.ai/api/v1", key_envs=("OPENROUTER_API_KEY", "OPENAI_API_KEY"),
                      base_url_env="OPENROUTER_BASE_URL", reads_config_url=False)
SERVICES: dict[str, Service] = {
    "openai": Service(wire="openai", key_envs=("OPENAI_API_KEY",)),  # ours: any OpenAI-compatible server
    "custom": Service(own_endpoint=True),
    "openrouter": _OPENROUTER,
    "lmstudio": Service(base_url="http://127.0.0.1:1234/v1", key_envs=("LM_API_KEY",), base_url_env="LM_BASE_URL",
                        own_endpoint=True),
    **dict(_HOSTED),
}
# Upstream names that sign in with OAuth, a cloud SDK or a helper process: nothing here can.
_SIGN_IN_ONLY = frozenset({"nous", "openai-codex", "xai-oauth", "qwen-oauth", "minimax-oauth", "copilot",
                           "copilot-acp", "bedrock", "vertex", "moa"})
# Upstream's other spellings of the same providers.
_ALIASES: dict[str, str] = {
    **dict.fromkeys(("claude", "claude-code", "claude-oauth"), "anthropic"),
    **dict.fromkeys(("ollama", "local", "vllm", "llamacpp", "llama.cpp", "llama-cpp"), "custom"),
    "or": "openrouter",
    **dict.fromkeys(("lm-studio", "lm_studio"), "lmstudio"),
    **dict.fromkeys(("google", "google-gemini", "google-ai-studio"), "gemini"),
    **dict.fromkeys(("glm", "z-ai", "z.ai", "zhipu"), "zai"),
    **dict.fromkeys(("kimi", "kimi-for-coding", "moonshot"), "kimi-coding"),
    **dict.fromkeys(("kimi-cn", "moonshot-cn"), "kimi-coding-cn"),
    **dict.fromkeys(("step", "stepfun-coding-plan"), "stepfun"),
    **dict.fromkeys(("arcee-ai", "arceeai"), "arcee"),
    **dict.fromkeys(("gmi-cloud", "gmicloud"), "gmi"),
    "mini-max": "minimax",
    **dict.fromkeys(("minimax-china", "minimax_cn"), "minimax-cn"),
    **dict.fromkeys(("dashscope", "alibaba-cloud", "qwen-dashscope"), "alibaba"),
    **dict.fromkeys(("alibaba_coding", "alibaba-coding", "alibaba_coding_plan", "dashscope-coding"),
                    "alibaba-coding-plan"),
    "deepseek-chat": "deepseek",
    **dict.fromkeys(("grok", "x-ai", "x.ai"), "xai"),
    "nvidia-nim": "nvidia",
    **dict.fromkeys(("opencode", "opencode_zen", "zen"), "opencode-zen"),
    **dict.fromkeys(("go", "opencode_go", "opencode-go-sub"), "opencode-go"),
    **dict.fromkeys(("kilo", "kilo-code", "kilo-gateway"), "kilocode"),
    **dict.fromkeys(("hf", "hugging-face", "huggingface-hub"), "huggingface"),
    **dict.fromkeys(("mimo", "xiaomi-mimo"), "xiaomi"),
    **dict.fromkeys(("tencent", "tokenhub", "tencent-cloud", "tencentmaas"), "tencent-tokenhub"),
    "ollama_cloud": "ollama-cloud",
    **dict.fromkeys(("azure", "azure-ai-foundry", "azure-ai"), "azure-foundry"),
    **dict.fromkeys(("deep-infra", "deepinfra-ai"), "deepinfra"),
    **dict.fromkeys(("fireworks-ai", "fw"), "fireworks"),
    **dict.fromkeys(("novita-ai", "novitaai"), "novita"),
    "solar": "upstage",
    **dict.fromkeys(("nous-portal", "nousresearch"), "nous"),
    **dict.fromkeys(("codex", "openai_codex"), "openai-codex"),
    **dict.fromkeys(("x-ai-oauth", "grok-oauth", "xai-grok-oauth"), "xai-oauth"),
    **dict.fromkeys(("qwen", "qwen-portal", "qwen-cli"), "qwen-oauth"),
    **dict.fromkeys(("minimax-portal", "minimax-global", "minimax_oauth", "minimax-oauth-io"), "minimax-oauth"),
    **dict.fromkeys(("github", "github-copilot", "github-models", "github-model"), "copilot"),
    **dict.fromkeys(("github-copilot-acp", "copilot-acp-agent"), "copilot-acp"),
    **dict.fromkeys(("aws", "aws-bedrock", "amazon-bedrock", "amazon"), "bedrock"),
    **dict.fromkeys(("google-vertex", "vertex-ai", "gcp-vertex", "vertexai"), "vertex"),
}
# Keys upstream sends a custom endpoint on these hosts (and subdomains); other hosts get <VENDOR>_API_KEY.
_HOST_KEYS = {"openai.com": "OPENAI_API_KEY", "openai.azure.com": "OPENAI_API_KEY",
              "openrouter.ai": "OPENROUTER_API_KEY", "ollama.com": "OLLAMA_API_KEY"}
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


@dataclass(frozen=True)
class Endpoint:
    """Where a model call goes and with which key (``key_env``: where the key came from, a
    variable or ``model.api_key``, named when the provider rejects it; ``None`` for no key)."""

    wire: str
    base_url: str | None
    api_key: str
    key_env: str | None


def canonical_provider(name: str) -> str:
    """A ``model.provider`` value as upstream reads it: trimmed, lower case, aliases resolved."""
    key = name.strip().lower()
    return _ALIASES.get(key, key)


def _detect_provider(model_cfg: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """Upstream's ``auto``: a configured base URL is the user's own endpoint; else the first
    provider whose key is set, OpenRouter first (it takes an OpenAI key too)."""
    if model_cfg.get("base_url"):
        return "custom"
    for name, service in (("openrouter", _OPENROUTER), *_HOSTED):
        if any(env.get(var) for var in service.key_envs):
            return name
    raise MissingKeyError("no API key for model.provider auto: set ANTHROPIC_API_KEY, OPENROUTER_API_KEY or another "
                          "provider's key (or model.base_url for a local server)")


def _service(model_cfg: Mapping[str, Any], env: Mapping[str, str]) -> tuple[str, Service]:
    """The canonical name and its service; a name nothing here can call is a ConfigError."""
    raw = str(model_cfg.get("provider") or "anthropic")
    name = canonical_provider(raw)
    if name == "auto":
        name = _detect_provider(model_cfg, env)
    if name in _SIGN_IN_ONLY:
        raise ConfigError(f"model.provider {raw!r} signs in through upstream Hermes (OAuth or a cloud SDK), which "
                          "hermes-tui cannot do; use an API-key provider, or custom with model.base_url.")
    if name.startswith("custom:"):
        raise ConfigError(f"model.provider {raw!r} names one of upstream's custom_providers, which hermes-tui does "
                          "not read; use provider: custom with model.base_url and model.api_key.")
    if name not in SERVICES:
        raise ConfigError(f"model.provider {raw!r} is not a provider hermes-tui knows (anthropic, openai, custom, "
                          "openrouter, auto, or an upstream API-key provider such as deepseek or gemini).")
    return name, SERVICES[name]


def _base_url(name: str, service: Service, model_cfg: Mapping[str, Any], env: Mapping[str, str]) -> str | None:
    configured = model_cfg.get("base_url") if service.reads_config_url else None
    from_env = env.get(service.base_url_env) if service.base_url_env else None
    url = configured or from_env or service.base_url
    if url is None and (service.own_endpoint or service.wire is None):
        raise ConfigError(f"model.provider {name} needs model.base_url (the server's address).")
    return url


def _speaks_anthropic(base_url: str | None) -> bool:
    """Upstream's rule for an address: api.anthropic.com, or a path ending in ``/anthropic``."""
    parts = urlsplit(base_url or "")
    return parts.hostname == "api.anthropic.com" or parts.path.rstrip("/").endswith("/anthropic")


def _wire(service: Service, model_cfg: Mapping[str, Any], base_url: str | None) -> str:
    if service.wire is not None:
        return service.wire
    api_mode = model_cfg.get("api_mode")
    if api_mode in ("chat_completions", "codex_responses", "anthropic_messages"):
        return "anthropic" if api_mode == "anthropic_messages" else "openai"
    return "anthropic" if _speaks_anthropic(base_url) else "openai"


def _host_key_env(base_url: str | None) -> str | None:
    """The key upstream sends a custom endpoint by its host: api.deepseek.com → DEEPSEEK_API_KEY.

    Never for an IP address or a single-label host such as ``localhost``.
    """
    host = (urlsplit(base_url or "").hostname or "").lower().rstrip(".")
    for domain, var in _HOST_KEYS.items():
        if host == domain or host.endswith("." + domain):
            return var
    labels = host.split(".")
    while labels and labels[0] in ("api", "www"):
        labels.pop(0)
    if len(labels) < 2 or not labels[-1].isalpha() or not labels[-2][:1].isalpha():
        return None
    derived = "".join(ch if ch.isalnum() else "_" for ch in labels[-2]).upper() + "_API_KEY"
    return None if derived in _HOST_KEYS.values() else derived  # a look-alike host gets no vendor key


def _api_key(name: str, service: Service, model_cfg: Mapping[str, Any], env: Mapping[str, str],
             base_url: str | None) -> tuple[str, str | None]:
    """The key and where it came from; a configured ``api_key_env`` must be set."""
    named = model_cfg.get("api_key_env")
    if named:
        if not env.get(named):
            raise MissingKeyError(f"no API key for {name}: {named}, named by api_key_env, is not set "
                                  "(set it, or drop api_key_env for a server that needs no key)")
        return env[named], named
    inline = model_cfg.get("api_key")
    if service.own_endpoint and isinstance(inline, str) and inline.strip():
        return inline.strip(), "model.api_key"
    host_key = _host_key_env(base_url) if service.own_endpoint else None
    for var in (*service.key_envs, *filter(None, [host_key])):
        if env.get(var):
            return env[var], var
    if service.own_endpoint or base_url != service.base_url:
        return PLACEHOLDER_KEY, None
    raise MissingKeyError(f"no API key for {name}: set {' or '.join(service.key_envs)} "
                          "(or model.base_url for a local server)")


def resolve_endpoint(model_cfg: Mapping[str, Any], env: Mapping[str, str] = os.environ) -> Endpoint:
    """Where ``model.provider`` (ours, or any of upstream's names) sends a call, and its key.

    A hosted provider needs its key (MissingKeyError names the variable); with ``base_url`` set
    the key is optional, except that a configured ``api_key_env`` must always be set.
    """
    name, service = _service(model_cfg, env)
    base_url = _base_url(name, service, model_cfg, env)
    api_key, key_env = _api_key(name, service, model_cfg, env, base_url)
    return Endpoint(_wire(service, model_cfg, base_url), base_url, api_key, key_env)


def make_provider(
    model_cfg: Mapping[str, Any],
    *,
    env: Mapping[str, str] = os.environ,
    cache_ttl: str = "5m",
    retry: RetryPolicy | None = None,
) -> Provider:
    """The provider for a ``model:`` config section (``provider``, ``name``, ``base_url``,
    ``api_key_env``, and upstream's ``api_key`` and ``api_mode``); see :func:`resolve_endpoint`."""
    endpoint = resolve_endpoint(model_cfg, env)
    model = model_cfg.get("name")
    if not model:
        raise ConfigError("model.name (upstream's model.default) is not set in config.yaml")
    timeouts = StreamTimeouts.from_config(model_cfg.get("timeouts"))
    if endpoint.wire == "anthropic":
        from engine.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(model, api_key=endpoint.api_key, base_url=endpoint.base_url,
                                 key_env=endpoint.key_env, cache_ttl=cache_ttl, retry=retry, timeouts=timeouts)
    from engine.providers.openai_provider import OpenAIProvider

    return OpenAIProvider(model, api_key=endpoint.api_key, base_url=endpoint.base_url, key_env=endpoint.key_env,
                          retry=retry, timeouts=timeouts)
