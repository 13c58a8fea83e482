"""An agent's parts built from config: the main model or why not, side jobs falling back to it,
and new-session snapshots that say what of memory they could not carry."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
import yaml

from engine.config import load_config
from engine.memory import MemoryStore
from engine.prompt.builder import PromptInputs, build_system_prompt
from engine.providers import make_provider
from engine.recall import RecallManager
from engine.store import SessionDB
from engine.wiring import AUXILIARY_TASKS, PromptSnapshots, build_parts, open_provider


@pytest.fixture
def db(tmp_path: Path) -> Iterator[SessionDB]:
    with SessionDB.open_home(tmp_path) as store:
        yield store


def write(home: Path, config: dict) -> None:
    (home / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def test_without_a_key_there_is_no_provider_and_the_reason_says_what_to_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    provider, problem = open_provider(load_config(tmp_path))
    assert provider is None and problem is not None
    assert "ANTHROPIC_API_KEY" in problem and "model.base_url" in problem


def test_side_jobs_use_the_main_model_unless_configured_and_none_without_one(tmp_path: Path, db: SessionDB) -> None:
    write(tmp_path, {"model": {"provider": "openai", "name": "main", "base_url": "http://127.0.0.1:9/v1"},
                     "auxiliary": {"title": {"name": "small-title-model"}}})
    config = load_config(tmp_path)
    main = make_provider(config.section("model"), env={})
    parts = build_parts(config, db, main, ask_approval=None, source="cli", cwd=tmp_path, warn=[].append)
    assert set(parts.aux) == set(AUXILIARY_TASKS)
    assert parts.aux["compression"] is main and parts.aux["session_search"] is main
    assert parts.aux["title"] is not main and parts.aux["title"].model == "small-title-model"  # type: ignore[union-attr]
    keyless = build_parts(config, db, None, ask_approval=None, source="cli", cwd=tmp_path, warn=[].append)
    assert set(keyless.aux.values()) == {None}


def test_parts_follow_the_config(tmp_path: Path, db: SessionDB) -> None:
    write(tmp_path, {"memory": {"write_approval": True, "memory_char_limit": 3000},
                     "sessions": {"write_json_snapshots": True}})
    parts = build_parts(load_config(tmp_path), db, None, ask_approval=None, source="tui", cwd=tmp_path, warn=[].append)
    assert parts.gate.approval_enabled and parts.memory.limits == {"memory": 3000, "user": 1375}
    assert parts.live.log is not None and parts.live.log.platform == "tui"
    assert parts.live.usage.context_window == parts.compressor.settings.context_window
    plain = build_parts(load_config(tmp_path / "other"), db, None, ask_approval=None, source="cli", cwd=tmp_path,
                        warn=[].append)
    assert plain.live.log is None


def test_a_snapshot_is_the_builders_prompt_and_reports_what_memory_it_left_out(tmp_path: Path) -> None:
    write(tmp_path, {"model": {"provider": "openai", "name": "snap-model"}, "memory": {"memory_char_limit": 100}})
    config = load_config(tmp_path)
    memory = MemoryStore.from_config(config)
    memory.memories_dir.mkdir(parents=True)
    memory.path("memory").write_text("\n§\n".join(["a" * 60, "b" * 60]), encoding="utf-8")  # a hand edit over the limit
    warnings: list[str] = []
    snapshots = PromptSnapshots(config, memory, RecallManager(), "cli", tmp_path, warnings.append)
    prompt = snapshots()
    expected = build_system_prompt(PromptInputs(home=tmp_path, cwd=tmp_path, snapshot=memory.load_snapshot(),
                                                model="snap-model", provider="openai", source="cli"))
    assert prompt == expected and "snap-model" in prompt
    assert len(warnings) == 1 and "MEMORY" in warnings[0].upper()
