"""A home configured for upstream Hermes: its model forms and provider names, read as upstream reads
them, without a byte of the user's config.yaml changing."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.auxiliary import auxiliary_model_config
from engine.config import load_config, set_config_value
from engine.errors import ConfigError
from engine.providers import (
    PLACEHOLDER_KEY,
    MissingKeyError,
    make_provider,
    resolve_endpoint,
)


def _load(tmp_path: Path, text: str):
    (tmp_path / "config.yaml").write_text(text, encoding="utf-8")
    return load_config(tmp_path)


@pytest.mark.parametrize(
    ("text", "name", "provider"),
    [
        ("model: name-as-a-string\n", "name-as-a-string", "auto"),
        ("model:\n  provider: custom\n  default: m1\n  base_url: http://127.0.0.1:9/v1\n", "m1", "custom"),
        ("model:\n  default: m2\n", "m2", "auto"),
        ("model:\n  model: m3\n  provider: openrouter\n", "m3", "openrouter"),
        ("model:\n  name: ours\n  default: theirs\n", "ours", "anthropic"),  # our own key keeps our default
        ("model: ''\n", "claude-sonnet-4-6", "anthropic"),  # upstream's fresh home: our defaults
    ],
)
def test_upstream_model_forms_load_without_rewriting_the_file(tmp_path: Path, text: str, name: str,
                                                              provider: str) -> None:
    config = _load(tmp_path, text)
    assert config.get("model.name") == name and config.get("model.provider") == provider
    assert (tmp_path / "config.yaml").read_text(encoding="utf-8") == text


def test_a_non_string_upstream_name_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"config\.yaml: model\.default is \[1\]; expected a string"):
        _load(tmp_path, "model:\n  default: [1]\n")


def test_upstream_auxiliary_defaults_load_and_mean_the_main_model(tmp_path: Path) -> None:
    config = _load(tmp_path, (
        "model: {provider: custom, default: main-model, base_url: 'http://127.0.0.1:9/v1', api_key: sk-inline}\n"
        "auxiliary:\n"
        "  compression: {provider: auto, model: '', base_url: '', api_key: '', timeout: 120, extra_body: {}}\n"
        "  title_generation: {enabled: true, provider: main, model: small-model, timeout: 30}\n"
        "  vision: {provider: auto, model: ''}\n"
    ))
    assert auxiliary_model_config(config, "compression") is None
    title = auxiliary_model_config(config, "title")
    assert title is not None
    assert (title["provider"], title["name"], title["base_url"], title["api_key"]) == (
        "custom", "small-model", "http://127.0.0.1:9/v1", "sk-inline")


@pytest.mark.parametrize(
    "text",
    [
        "model: name-as-a-string\n",
        ("# upstream\nmodel:\n  provider: custom   # local box\n  default: m1\n  base_url: http://127.0.0.1:9/v1\n"
         "  api_key: sk-inline\n"),
    ],
)
def test_a_save_elsewhere_keeps_the_upstream_model_section_as_it_is(tmp_path: Path, text: str) -> None:
    (tmp_path / "config.yaml").write_text(text, encoding="utf-8")
    set_config_value(tmp_path, "display.theme", "hermes-light")
    set_config_value(tmp_path, "memory.write_approval", True)
    saved = (tmp_path / "config.yaml").read_text(encoding="utf-8")
    assert saved.startswith(text)
    assert load_config(tmp_path).get("display.theme") == "hermes-light"


def _resolve(cfg: dict, env: dict[str, str]):
    endpoint = resolve_endpoint({"name": "m", **cfg}, env)
    return endpoint.wire, endpoint.base_url, endpoint.api_key, endpoint.key_env


@pytest.mark.parametrize(
    ("cfg", "env", "expected"),
    [
        ({"provider": "custom", "base_url": "http://10.0.0.5:8000/v1", "api_key": "sk-inline"}, {},
         ("openai", "http://10.0.0.5:8000/v1", "sk-inline", "model.api_key")),
        ({"provider": "Ollama", "base_url": "http://127.0.0.1:11434/v1"}, {"OPENAI_API_KEY": "not-for-ollama"},
         ("openai", "http://127.0.0.1:11434/v1", PLACEHOLDER_KEY, None)),
        ({"provider": "custom", "base_url": "https://api.deepseek.com/v1"}, {"DEEPSEEK_API_KEY": "dk"},
         ("openai", "https://api.deepseek.com/v1", "dk", "DEEPSEEK_API_KEY")),
        ({"provider": "custom", "base_url": "https://api.deepseek.com.attacker.test/v1"}, {"DEEPSEEK_API_KEY": "dk"},
         ("openai", "https://api.deepseek.com.attacker.test/v1", PLACEHOLDER_KEY, None)),
        ({"provider": "custom", "base_url": "http://127.0.0.1:9", "api_mode": "anthropic_messages"}, {},
         ("anthropic", "http://127.0.0.1:9", PLACEHOLDER_KEY, None)),
        ({"provider": "openrouter", "base_url": "http://stale.invalid/v1"}, {"OPENROUTER_API_KEY": "ork"},
         ("openai", "https://openrouter.ai/api/v1", "ork", "OPENROUTER_API_KEY")),
        ({"provider": "or"}, {"OPENAI_API_KEY": "ok", "OPENROUTER_BASE_URL": "http://127.0.0.1:9/v1"},
         ("openai", "http://127.0.0.1:9/v1", "ok", "OPENAI_API_KEY")),
        ({"provider": "minimax"}, {"MINIMAX_API_KEY": "mk"},
         ("anthropic", "https://api.minimax.io/anthropic", "mk", "MINIMAX_API_KEY")),
        ({"provider": "deepseek", "base_url": "http://127.0.0.1:9/v1"}, {"DEEPSEEK_API_KEY": "dk"},
         ("openai", "http://127.0.0.1:9/v1", "dk", "DEEPSEEK_API_KEY")),
        ({"provider": "google"}, {"GEMINI_API_KEY": "gk"},
         ("openai", "https://generativelanguage.googleapis.com/v1beta", "gk", "GEMINI_API_KEY")),
        ({"provider": "claude"}, {"ANTHROPIC_API_KEY": "ak"}, ("anthropic", None, "ak", "ANTHROPIC_API_KEY")),
        ({"provider": "lmstudio"}, {}, ("openai", "http://127.0.0.1:1234/v1", PLACEHOLDER_KEY, None)),
        ({"provider": "auto", "base_url": "http://127.0.0.1:9/v1", "api_key": "sk-inline"},
         {"OPENROUTER_API_KEY": "ork"},
         ("openai", "http://127.0.0.1:9/v1", "sk-inline", "model.api_key")),
        ({"provider": "auto"}, {"ANTHROPIC_API_KEY": "ak", "OPENROUTER_API_KEY": "ork"},
         ("openai", "https://openrouter.ai/api/v1", "ork", "OPENROUTER_API_KEY")),
        ({"provider": "auto"}, {"DEEPSEEK_API_KEY": "dk"},
         ("openai", "https://api.deepseek.com/v1", "dk", "DEEPSEEK_API_KEY")),
        ({"provider": "auto"}, {"ANTHROPIC_API_KEY": "ak"}, ("anthropic", None, "ak", "ANTHROPIC_API_KEY")),
    ],
)
def test_upstream_provider_names_map_to_a_wire_an_address_and_a_key(cfg: dict, env: dict, expected: tuple) -> None:
    assert _resolve(cfg, env) == expected


@pytest.mark.parametrize(
    ("cfg", "env", "error", "needle"),
    [
        ({"provider": "auto"}, {}, MissingKeyError, "ANTHROPIC_API_KEY"),
        ({"provider": "deepseek"}, {}, MissingKeyError, "DEEPSEEK_API_KEY"),
        ({"provider": "gemini"}, {}, MissingKeyError, "GOOGLE_API_KEY or GEMINI_API_KEY"),
        ({"provider": "custom"}, {}, ConfigError, "model.base_url"),
        ({"provider": "nous"}, {}, ConfigError, "model.provider 'nous' signs in through upstream"),
        ({"provider": "custom:my-box"}, {}, ConfigError, "custom_providers"),
        ({"provider": "gemeni"}, {}, ConfigError, "model.provider 'gemeni' is not a provider"),
    ],
)
def test_what_cannot_be_called_is_one_sentence_naming_the_key_or_variable(
        cfg: dict, env: dict, error: type[Exception], needle: str) -> None:
    with pytest.raises(error) as raised:
        resolve_endpoint({"name": "m", **cfg}, env)
    assert needle in str(raised.value) and "\n" not in str(raised.value)


@pytest.mark.parametrize("base_url", [None, "http://127.0.0.1:9/v1"])
def test_an_unset_api_key_env_is_refused_before_any_request(base_url: str | None) -> None:
    """Even where a key is optional (a base_url), a variable the config names must be set."""
    cfg = {"provider": "openai", "name": "m", "base_url": base_url, "api_key_env": "MY_LOCAL_KEY"}
    with pytest.raises(MissingKeyError, match="MY_LOCAL_KEY, named by api_key_env, is not set"):
        make_provider(cfg, env={"OPENAI_API_KEY": "set-but-not-the-named-one"})
    assert make_provider(cfg, env={"MY_LOCAL_KEY": "k"}).model == "m"

