"""Temp files a killed memory writer left behind are swept, under the lock, by the next write (issue 14)."""

from __future__ import annotations

import multiprocessing
import os
import signal
from pathlib import Path

from engine import clock
from engine.memory import MemoryStore
from engine.memory.files import STALE_TEMP_S

CTX = multiprocessing.get_context("fork")


def _killed_between_temp_and_rename(folder: str) -> None:
    """Add an entry, but die (SIGKILL, so no cleanup runs) where the temp file would be renamed."""
    os.replace = lambda *_args: os.kill(os.getpid(), signal.SIGKILL)  # type: ignore[assignment]
    MemoryStore(Path(folder)).add("memory", "lost with its writer")


def _temps(folder: Path) -> list[Path]:
    return sorted(folder.glob(".MEMORY.md.*.tmp"))


def _age(path: Path, seconds: float) -> None:
    stamp = clock.now() - seconds
    os.utime(path, (stamp, stamp))


def test_a_killed_writers_temp_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("memory", "kept")
    writer = CTX.Process(target=_killed_between_temp_and_rename, args=(str(tmp_path),))
    writer.start()
    writer.join(30)
    assert writer.exitcode == -signal.SIGKILL
    [left] = _temps(tmp_path)  # the state: the whole new file, never renamed
    assert left.read_text(encoding="utf-8") == "kept\n§\nlost with its writer"
    _age(left, STALE_TEMP_S + 60)

    assert store.add("memory", "next")["success"]
    assert _temps(tmp_path) == []
    assert store.entries("memory") == ["kept", "next"]


def test_only_old_temp_files_of_the_written_file_are_swept(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("memory", "kept")
    old, young = tmp_path / ".MEMORY.md.old123.tmp", tmp_path / ".MEMORY.md.new456.tmp"
    others = [tmp_path / ".USER.md.old789.tmp", tmp_path / "MEMORY.md.tmp", tmp_path / ".MEMORY.md.bak"]
    for path in (old, young, *others):
        path.write_text("partial", encoding="utf-8")
        _age(path, STALE_TEMP_S + 60)
    _age(young, STALE_TEMP_S / 2)

    assert store.add("memory", "next")["success"]
    assert not old.exists()
    assert young.exists() and all(path.exists() for path in others)


def test_a_refused_write_sweeps_nothing(tmp_path: Path) -> None:
    store = MemoryStore(tmp_path)
    store.add("memory", "kept")
    old = tmp_path / ".MEMORY.md.old123.tmp"
    old.write_text("partial", encoding="utf-8")
    _age(old, STALE_TEMP_S + 60)
    assert store.remove("memory", "no such entry")["success"] is False
    assert old.exists()
