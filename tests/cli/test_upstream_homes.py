"""``memory show`` and ``chat -q`` on a home configured for upstream Hermes, against the loopback
model: each model form and provider name reaches the right wire with the right key, and the
user's config.yaml is never rewritten for it."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from engine.providers import SERVICES
from hermes_tui.cli import main
from hermes_tui.loopback_llm import LoopbackLLM, Reply

KEY_VARIABLES = sorted({var for service in SERVICES.values() for var in service.key_envs}
                       | {service.base_url_env for service in SERVICES.values() if service.base_url_env})


@pytest.fixture
def llm() -> Iterator[LoopbackLLM]:
    with LoopbackLLM(side_responder=lambda _body: Reply(text="Arithmetic")) as server:
        yield server


@pytest.fixture(autouse=True)
def no_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """A developer's own keys must not steer ``auto`` or reach a test."""
    for name in KEY_VARIABLES + ["ANTHROPIC_BASE_URL", "HERMES_HOME"]:
        monkeypatch.delenv(name, raising=False)


# (config.yaml text, environment, wire path, Authorization header) per upstream form.
Form = tuple[str, dict[str, str], str, str]
FORMS: dict[str, Callable[[LoopbackLLM], Form]] = {
    "custom": lambda llm: (
        (f"model:\n  provider: custom\n  base_url: {llm.base_url_openai}\n  default: test-model\n"
         "  api_key: sk-upstream-inline\n"), {}, "/v1/chat/completions", "Bearer sk-upstream-inline"),
    "ollama-alias-no-key": lambda llm: (
        f"model:\n  provider: ollama\n  base_url: {llm.base_url_openai}\n  default: test-model\n",
        {}, "/v1/chat/completions", "Bearer not-needed"),
    "openrouter": lambda llm: (
        "model:\n  provider: openrouter\n  default: test-model\n",
        {"OPENROUTER_API_KEY": "sk-or-test", "OPENROUTER_BASE_URL": llm.base_url_openai},
        "/v1/chat/completions", "Bearer sk-or-test"),
    "string-model": lambda llm: (
        "model: test-model\n", {"OPENROUTER_API_KEY": "sk-or-test", "OPENROUTER_BASE_URL": llm.base_url_openai},
        "/v1/chat/completions", "Bearer sk-or-test"),
    "string-model-anthropic": lambda llm: (
        "model: test-model\n", {"ANTHROPIC_API_KEY": "sk-ant-test", "ANTHROPIC_BASE_URL": llm.base_url_anthropic},
        "/v1/messages", "Bearer sk-ant-test"),
    "deepseek": lambda llm: (
        f"model:\n  provider: deepseek\n  default: test-model\n  base_url: {llm.base_url_openai}\n",
        {"DEEPSEEK_API_KEY": "sk-deepseek-test"}, "/v1/chat/completions", "Bearer sk-deepseek-test"),
    "custom-anthropic-messages": lambda llm: (
        (f"model:\n  provider: custom\n  api_mode: anthropic_messages\n  base_url: {llm.base_url_anthropic}\n"
         "  default: test-model\n  api_key: sk-inline\n"), {}, "/v1/messages", "Bearer sk-inline"),
}


@pytest.fixture(params=sorted(FORMS))
def upstream_home(request: pytest.FixtureRequest, tmp_path: Path, llm: LoopbackLLM,
                  monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, str]:
    text, env, path, credential = FORMS[request.param](llm)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(text, encoding="utf-8")
    return home, path, credential


def test_memory_show_and_chat_work_unchanged(upstream_home: tuple[Path, str, str], llm: LoopbackLLM,
                                             capsys: Any) -> None:
    home, path, credential = upstream_home
    before = (home / "config.yaml").read_bytes()
    assert main(["--home", str(home), "memory", "show", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["write_approval"] is False
    llm.push(Reply(text="Four."))
    assert main(["--home", str(home), "chat", "-q", "2+2?"]) == 0
    assert capsys.readouterr().out == "Four.\n"
    turn = next(r for r in llm.requests if r.json.get("tools"))
    assert (turn.path, turn.json["model"], turn.headers.get("authorization")) == (path, "test-model", credential)
    assert (home / "config.yaml").read_bytes() == before


def test_approval_switch_keeps_the_upstream_config_as_it_is(upstream_home: tuple[Path, str, str],
                                                            capsys: Any) -> None:
    home, _, _ = upstream_home
    before = (home / "config.yaml").read_text(encoding="utf-8")
    assert main(["--home", str(home), "memory", "approval", "on"]) == 0
    capsys.readouterr()
    after = (home / "config.yaml").read_text(encoding="utf-8")
    assert after.startswith(before) and "write_approval: true" in after[len(before):]
    assert main(["--home", str(home), "memory", "show", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["write_approval"] is True


def test_unset_api_key_env_is_exit_2_naming_it_before_any_request(tmp_path: Path, llm: LoopbackLLM,
                                                                  capsys: Any) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(
        f"model:\n  provider: openai\n  name: test-model\n  base_url: {llm.base_url_openai}\n"
        "  api_key_env: MY_LOCAL_KEY\n", encoding="utf-8")
    assert main(["--home", str(home), "chat", "-q", "hi"]) == 2
    err = capsys.readouterr().err
    assert "MY_LOCAL_KEY" in err and len(err.strip().splitlines()) == 1
    assert llm.requests == []
