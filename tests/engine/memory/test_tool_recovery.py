"""Memory tool errors the model can recover from, in upstream's shapes (issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.memory import MemoryStore, MemoryTool, MemoryWriteGate, PendingQueue
from engine.memory.files import SEPARATOR

ENTRIES = ["Deploys go out on Fridays after the 14:00 freeze", "Deploy keys live in the team vault under infra/"]


def _tool(tmp_path: Path, *, approval: bool = False) -> tuple[MemoryTool, MemoryStore, PendingQueue]:
    store, queue = MemoryStore(tmp_path / "memories"), PendingQueue(tmp_path)
    for entry in ENTRIES:
        store.add("memory", entry)
    return MemoryTool(store, MemoryWriteGate(queue, approval_enabled=approval)), store, queue


@pytest.mark.parametrize("action", ["replace", "remove"])
@pytest.mark.parametrize("old_text", ["missing", None, "", "  \n"])
def test_replace_or_remove_without_old_text_returns_the_entries_and_usage(
    tmp_path: Path, action: str, old_text: str | None
) -> None:
    tool, store, queue = _tool(tmp_path, approval=True)
    before = store.path("memory").read_bytes()
    arguments = {"action": action, "target": "memory", "content": "Deploys go out on Thursdays"}
    if old_text != "missing":
        arguments["old_text"] = old_text
    assert tool.handle(arguments) == {
        "success": False,
        "error": (
            f"'{action}' needs old_text: a short unique substring of the entry to {action}, and none was given. "
            f"Call {action} again with old_text set to part of one of current_entries."
        ),
        "current_entries": ENTRIES,
        "usage": f"{len(SEPARATOR.join(ENTRIES))}/2,200",
    }
    assert queue.count() == 0 and store.path("memory").read_bytes() == before


def test_without_old_text_and_content_the_missing_old_text_is_reported_first(tmp_path: Path) -> None:
    tool, _, _ = _tool(tmp_path)
    result = tool.handle({"action": "replace", "target": "user"})
    assert result["error"].startswith("'replace' needs old_text") and result["current_entries"] == []
    assert result["usage"] == "0/1,375"


@pytest.mark.parametrize("arguments", [{"target": None}, {}], ids=["null", "absent"])
def test_a_null_or_absent_target_means_memory(tmp_path: Path, arguments: dict) -> None:
    tool, store, _ = _tool(tmp_path)
    result = tool.handle({"action": "add", "content": "Runs Debian 12", **arguments})
    assert result["success"] and result["target"] == "memory"
    assert store.entries("memory")[-1] == "Runs Debian 12" and store.entries("user") == []


def test_an_empty_target_is_still_invalid(tmp_path: Path) -> None:
    tool, _, _ = _tool(tmp_path)
    assert tool.handle({"action": "add", "target": "", "content": "x"})["error"] == (
        "Invalid target ''. Use 'memory' or 'user'.")


@pytest.mark.parametrize("action", ["replace", "remove"])
def test_an_ambiguous_match_lists_a_preview_of_each_entry(tmp_path: Path, action: str) -> None:
    tool, store, _ = _tool(tmp_path)
    result = tool.handle({"action": action, "target": "memory", "old_text": "Deploy", "content": "x"})
    assert result == {
        "success": False,
        "error": "Multiple entries matched 'Deploy'. Be more specific.",
        "matches": ENTRIES,
    }
    assert store.entries("memory") == ENTRIES


def test_a_drifted_file_is_refused_to_the_model_with_the_backup(tmp_path: Path) -> None:
    tool, store, _ = _tool(tmp_path)
    path = store.path("user")
    path.write_text("User likes tea\n" + "notes " * 300, encoding="utf-8")
    result = tool.handle({"action": "remove", "target": "user", "old_text": "User likes"})
    assert result["success"] is False and result["error"].startswith(f"Refusing to change {path}: ")
    assert Path(result["drift_backup"]).read_bytes() == path.read_bytes()
    assert set(result) == {"success", "error", "drift_backup", "remediation"}
