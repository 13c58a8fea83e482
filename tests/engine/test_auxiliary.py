"""The auxiliary model: which provider each side job gets, and never an exception on key trouble."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from engine.auxiliary import BackgroundJobs, auxiliary_model_config, auxiliary_provider
from engine.config import load_config
from engine.providers import ChatRequest, make_provider
from hermes_tui.loopback_llm import LoopbackLLM, Reply


def write_config(home: Path, text: str):
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.yaml").write_text(text, encoding="utf-8")
    return load_config(home)


def test_all_null_section_is_the_main_model(tmp_path: Path) -> None:
    config = write_config(tmp_path, "model: {provider: openai, name: gpt-4o, base_url: 'http://127.0.0.1:9/v1'}\n")
    main = make_provider(config.section("model"), env={})
    assert auxiliary_model_config(config, "title") is None
    assert auxiliary_provider(config, "title", main, env={}) is main
    made = auxiliary_provider(config, "compression", None, env={})  # no live agent: made from config
    assert made is not None and made is not main and made.model == "gpt-4o"
    problems: list[str] = []
    bare = write_config(tmp_path / "bare", "")
    assert auxiliary_provider(bare, "compression", None, env={}, on_problem=problems.append) is None
    assert "ANTHROPIC_API_KEY" in problems[0]


def test_same_provider_inherits_what_the_section_leaves_null(tmp_path: Path) -> None:
    config = write_config(
        tmp_path,
        "model: {provider: anthropic, name: claude-sonnet-4-5, api_key_env: MY_KEY}\n"
        "auxiliary:\n  background_review: {name: claude-haiku-4-5}\n",
    )
    cfg = auxiliary_model_config(config, "background_review")
    assert cfg == {"provider": "anthropic", "name": "claude-haiku-4-5", "base_url": None, "api_key_env": "MY_KEY",
                   "api_key": None, "api_mode": None}
    provider = auxiliary_provider(config, "background_review", None, env={"MY_KEY": "k"})
    assert provider is not None and provider.model == "claude-haiku-4-5" and provider.name == "anthropic"


def test_other_provider_starts_clean_and_accepts_upstream_model_key(tmp_path: Path) -> None:
    config = write_config(
        tmp_path,
        "model: {provider: anthropic, name: claude-sonnet-4-5, base_url: 'http://main.invalid'}\n"
        "auxiliary:\n  session_search: {provider: openai, model: gpt-4o-mini}\n",
    )
    assert auxiliary_model_config(config, "session_search") == {"provider": "openai", "name": "gpt-4o-mini"}


def test_missing_key_gives_none_and_reports_the_variable(tmp_path: Path) -> None:
    config = write_config(tmp_path, "auxiliary:\n  title: {provider: openai, name: gpt-4o-mini}\n")
    problems: list[str] = []
    assert auxiliary_provider(config, "title", object(), env={}, on_problem=problems.append) is None  # type: ignore[arg-type]
    assert len(problems) == 1 and "auxiliary.title" in problems[0] and "OPENAI_API_KEY" in problems[0]


@pytest.mark.parametrize(
    ("yaml_text", "needle"),
    [
        ("auxiliary:\n  title: {provider: openai}\n", "auxiliary.title.name is needed"),
        ("auxiliary:\n  title: {provider: nosuch, name: x}\n", "model.provider 'nosuch' is not a provider"),
    ],
)
def test_bad_sections_fall_back_with_a_message_naming_the_key(tmp_path: Path, yaml_text: str, needle: str) -> None:
    config = write_config(tmp_path, yaml_text)
    problems: list[str] = []
    assert auxiliary_provider(config, "title", None, env={"ANTHROPIC_API_KEY": "k"}, on_problem=problems.append) is None
    assert needle in problems[0]


def test_unknown_task_is_a_programming_error(tmp_path: Path) -> None:
    config = write_config(tmp_path, "")
    with pytest.raises(ValueError, match="unknown auxiliary task 'titles'"):
        auxiliary_model_config(config, "titles")


def test_configured_auxiliary_model_is_called_over_the_wire(tmp_path: Path) -> None:
    with LoopbackLLM([Reply("short title")]) as server:
        config = write_config(
            tmp_path,
            "model: {provider: anthropic, name: claude-sonnet-4-5}\n"
            f"auxiliary:\n  title: {{provider: openai, name: small-model, base_url: '{server.base_url_openai}'}}\n",
        )
        provider = auxiliary_provider(config, "title", None, env={})
        assert provider is not None
        result = provider.complete(ChatRequest(system="s", messages=[{"role": "user", "content": "hi"}], temperature=0.1))
    assert result.text == "short title"
    assert server.requests[0].path == "/v1/chat/completions"
    assert server.requests[0].json["model"] == "small-model"


def test_background_jobs_join_is_bounded() -> None:
    jobs = BackgroundJobs("test")
    release = threading.Event()
    thread = jobs.start(release.wait, 5)
    assert thread.daemon and jobs.busy()
    assert jobs.join(0.05) is False
    release.set()
    assert jobs.join(2) is True and not jobs.busy()
