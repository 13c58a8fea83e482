"""The system prompt: layer order, identity, day-precision time, and nothing that varies within a day."""

from __future__ import annotations

from pathlib import Path

from engine import clock
from engine.memory import MemoryStore
from engine.prompt.builder import DEFAULT_IDENTITY, PromptInputs, build_system_prompt, conversation_started

MORNING = 1_795_996_800.0 + 3600  # 2026-11-30 01:00 UTC
EVENING = MORNING + 21 * 3600


def inputs(home: Path, **overrides: object) -> PromptInputs:
    store = MemoryStore(home / "memories")
    store.add("memory", "Project uses Go 1.22")
    store.add("user", "Prefers tea")
    values = dict(home=home, cwd=home, snapshot=store.load_snapshot(), model="m1", provider="openai")
    values.update(overrides)
    return PromptInputs(**values)  # type: ignore[arg-type]


def test_layers_in_order_joined_by_blank_lines(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("Use tabs in Makefiles.")
    clock.set_clock(lambda: MORNING)
    try:
        prompt = build_system_prompt(inputs(tmp_path))
    finally:
        clock.set_clock(None)
    identity_at = prompt.index(DEFAULT_IDENTITY)
    context_at = prompt.index("Use tabs in Makefiles.")
    memory_at = prompt.index("MEMORY (your personal notes)")
    user_at = prompt.index("USER PROFILE (who the user is)")
    started_at = prompt.index("Conversation started: Monday, November 30, 2026")
    assert identity_at < context_at < memory_at < user_at < started_at
    assert prompt.endswith("Model: m1\nProvider: openai")
    assert "\n\n\n" not in prompt


def test_same_day_same_bytes_and_soul_replaces_identity(tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_text("You are Quill, a terse pair programmer.\n")
    built = []
    for moment in (MORNING, EVENING):
        clock.set_clock(lambda moment=moment: moment)
        try:
            built.append(build_system_prompt(inputs(tmp_path)))
        finally:
            clock.set_clock(None)
        (tmp_path / "memories" / "MEMORY.md").unlink()  # rebuilt store each time: same content
    assert built[0] == built[1]
    assert built[0].startswith("You are Quill, a terse pair programmer.")
    assert DEFAULT_IDENTITY not in built[0]


def test_disabled_memory_targets_stay_out(tmp_path: Path) -> None:
    prompt = build_system_prompt(inputs(tmp_path, memory_enabled=False))
    assert "MEMORY (your personal notes)" not in prompt and "USER PROFILE" in prompt


def test_snapshot_is_frozen_while_disk_changes(tmp_path: Path) -> None:
    frozen = inputs(tmp_path)
    before = build_system_prompt(frozen)
    MemoryStore(tmp_path / "memories").add("memory", "A brand new fact")
    assert build_system_prompt(frozen) == before
    assert "A brand new fact" not in before


def test_conversation_started_is_day_precision() -> None:
    assert conversation_started(MORNING) == conversation_started(EVENING) == "Conversation started: Monday, November 30, 2026"
