"""The typed sections of the config: what code reads instead of dotted keys.

Each section is built from the merged file once; the file's own text, its unknown keys and
upstream's forms stay exactly as they were (tests/engine/test_config.py and
test_upstream_config.py pin the file side).
"""

from __future__ import annotations

from dataclasses import asdict, fields
from pathlib import Path

import pytest

from engine.config import DEFAULTS, Config, load_config

SECTIONS = ("model", "memory", "compression", "sessions", "prompt_caching", "display", "security")


def test_every_section_has_every_key_of_the_schema_and_nothing_else() -> None:
    config = Config(home=Path("/nowhere"))
    for name in SECTIONS:
        section = getattr(config, name)
        assert [f.name for f in fields(section)] == list(DEFAULTS[name]), name
        assert asdict(section) == DEFAULTS[name]


def test_sections_hold_the_users_values_over_the_defaults(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(
        "memory: {write_approval: true, memory_char_limit: 3000}\n"
        "compression: {threshold: 0.7}\n"
        "sessions: {auto_prune: true, retention_days: 30}\n"
        "prompt_caching: {cache_ttl: 1h}\n"
        "display: {theme: hermes-light, memory_notifications: verbose}\n"
        "security: {redact_secrets: false}\n"
        "plugins: {foo: 1}\n", encoding="utf-8")
    config = load_config(tmp_path)
    assert config.memory.write_approval is True and config.memory.memory_char_limit == 3000
    assert config.memory.user_char_limit == 1375
    assert config.compression.threshold == 0.7 and config.compression.protect_last_n == 20
    assert config.sessions.auto_prune is True and config.sessions.retention_days == 30
    assert config.prompt_caching.cache_ttl == "1h"
    assert (config.display.theme, config.display.memory_notifications) == ("hermes-light", "verbose")
    assert config.security.redact_secrets is False
    assert config.get("plugins.foo") == 1  # unknown keys stay in the file's mapping


@pytest.mark.parametrize(("text", "label"), [
    ("model: name-as-a-string\n", "name-as-a-string · auto"),
    ("model:\n  default: m2\n  provider: openrouter\n  api_key: sk-test\n", "m2 · openrouter"),
    ("", "claude-sonnet-4-6 · anthropic"),
])
def test_the_model_section_reads_upstream_forms_and_keeps_their_other_keys(tmp_path: Path, text: str, label: str) -> None:
    (tmp_path / "config.yaml").write_text(text, encoding="utf-8")
    config = load_config(tmp_path)
    assert config.model.label == label
    assert config.model.timeouts == {"first_byte": 60.0, "idle": 60.0, "total": 900.0}
    if "api_key" in text:
        assert config.section("model")["api_key"] == "sk-test"  # for the provider resolver, untyped


def test_a_section_is_built_once(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config.memory is config.memory and config.model is config.model
