"""config.yaml: defaults, validation naming the key or line, and saves that keep the user's text."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from engine.config import DEFAULTS, load_config, resolve_home, set_config_value
from engine.errors import ConfigError


def test_missing_file_gives_defaults(tmp_path: Path) -> None:
    cfg = load_config(tmp_path)
    assert cfg.get("compression.threshold") == 0.50
    assert cfg.get("memory.memory_char_limit") == 2200
    assert cfg.get("display.theme") == "hermes-dark"
    assert cfg.get("no.such.key", "x") == "x"


def test_user_values_merge_over_defaults_and_unknown_keys_survive(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("memory:\n  write_approval: true\nplugins:\n  foo: 1\n")
    cfg = load_config(tmp_path)
    assert cfg.get("memory.write_approval") is True
    assert cfg.get("memory.user_char_limit") == 1375
    assert cfg.get("plugins.foo") == 1


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("compression:\n  threshold: high\n", "compression.threshold"),
        ("compression:\n  threshold: 7\n", "compression.threshold"),
        ("memory:\n  write_approval: 'yes'\n", "memory.write_approval"),
        ("model:\n  provider: 7\n", "model.provider"),
        ("display:\n  memory_notifications: loud\n", "display.memory_notifications"),
        ("memory: 3\n", "memory must be a mapping"),
        ("- a\n- b\n", "top level"),
        ("model:\n  name: [unclosed\n", "line"),
    ],
)
def test_bad_values_name_the_key_or_line(tmp_path: Path, text: str, needle: str) -> None:
    (tmp_path / "config.yaml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_config(tmp_path)
    assert needle in str(err.value)
    assert str(tmp_path / "config.yaml") in str(err.value)


def test_home_resolution_order(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HERMES_HOME", str(tmp_path / "env"))
    assert resolve_home(str(tmp_path / "cli")) == tmp_path / "cli"
    assert resolve_home(None) == tmp_path / "env"
    monkeypatch.delenv("HERMES_HOME")
    assert resolve_home(None) == Path.home() / ".hermes"


def test_save_keeps_comments_and_other_keys(tmp_path: Path) -> None:
    original = (
        "# my settings\n"
        "model:\n"
        "  name: gpt-4o  # the good one\n"
        "memory:\n"
        "  write_approval: false  # ask me first?\n"
        "  nudge_interval: 5\n"
        "custom_thing: {a: 1}\n"
    )
    (tmp_path / "config.yaml").write_text(original)
    set_config_value(tmp_path, "memory.write_approval", True)
    text = (tmp_path / "config.yaml").read_text()
    assert text == original.replace("write_approval: false", "write_approval: true")
    assert load_config(tmp_path).get("memory.write_approval") is True


def test_save_adds_missing_key_and_section(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("# hi\nmemory:\n  nudge_interval: 5\n")
    set_config_value(tmp_path, "memory.write_approval", True)
    set_config_value(tmp_path, "display.theme", "hermes-light")
    data = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert data == {"memory": {"nudge_interval": 5, "write_approval": True}, "display": {"theme": "hermes-light"}}
    assert (tmp_path / "config.yaml").read_text().startswith("# hi\n")


def test_save_on_flow_style_section_keeps_values(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("memory: {nudge_interval: 5}\nextra: 1\n")
    set_config_value(tmp_path, "memory.write_approval", True)
    data = yaml.safe_load((tmp_path / "config.yaml").read_text())
    assert data == {"memory": {"nudge_interval": 5, "write_approval": True}, "extra": 1}


def test_failed_save_leaves_file_untouched(tmp_path: Path) -> None:
    original = "memory:\n  write_approval: false\n"
    (tmp_path / "config.yaml").write_text(original)
    with pytest.raises(ConfigError, match="memory.write_approval"):
        set_config_value(tmp_path, "memory.write_approval", "maybe")
    assert (tmp_path / "config.yaml").read_text() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.yaml"]


def test_defaults_are_valid_against_themselves(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(DEFAULTS))
    assert load_config(tmp_path).data == DEFAULTS
