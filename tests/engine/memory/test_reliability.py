"""Concurrent writers all land; a writer killed mid-write never leaves a broken or temp-read file."""

from __future__ import annotations

import multiprocessing
import os
import random
import signal
import time
from pathlib import Path

import pytest

from engine.memory import MemoryStore

CTX = multiprocessing.get_context("fork")
VERSION_A = "A" * 3000
VERSION_B = "B" * 3000


def _adder(folder: str, worker: int, count: int) -> None:
    store = MemoryStore(Path(folder), memory_limit=100_000)
    for n in range(count):
        result = store.add("memory", f"worker {worker} fact {n}")
        assert result["success"], result


def _flipper(folder: str) -> None:
    store = MemoryStore(Path(folder), memory_limit=100_000)
    while True:
        store.replace("memory", "AAAA", VERSION_B)
        store.replace("memory", "BBBB", VERSION_A)


def test_four_processes_adding_at_once_all_land(tmp_path: Path) -> None:
    workers = [CTX.Process(target=_adder, args=(str(tmp_path), w, 25)) for w in range(4)]
    for proc in workers:
        proc.start()
    for proc in workers:
        proc.join(60)
        assert proc.exitcode == 0
    entries = MemoryStore(tmp_path).entries("memory")
    assert len(entries) == 100
    assert set(entries) == {f"worker {w} fact {n}" for w in range(4) for n in range(25)}
    changes, warnings = MemoryStore(tmp_path).history.read()  # every write recorded, whole, once
    assert warnings == [] and len({c.id for c in changes}) == 100
    assert sorted(c.after for c in changes) == sorted(entries) and {c.action for c in changes} == {"add"}
    assert changes[-1].entries is not None and set(changes[-1].entries) == set(entries)


@pytest.mark.slow
def test_sigkilled_writer_leaves_old_or_new_full_file(tmp_path: Path) -> None:
    rng = random.Random(1234)
    store = MemoryStore(tmp_path, memory_limit=100_000)
    store.add("memory", VERSION_A)
    path = store.path("memory")
    seen: set[str] = set()
    kills = 0
    # at least 50 kills, and on until both versions were seen: on a loaded machine the child may
    # not have written yet when a short wait ends, so the waits grow with the kills
    while kills < 50 or (len(seen) < 2 and kills < 400):
        kills += 1
        proc = CTX.Process(target=_flipper, args=(str(tmp_path),))
        proc.start()
        # a replace scans its 3,000-char text before it writes (a few ms, more on a loaded machine),
        # so the kill lands anywhere in the first few flips; the waits grow with the kills
        time.sleep(rng.uniform(0.002, 0.1) * (1 + kills // 50))
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(10)
        text = path.read_text(encoding="utf-8")
        assert text in (VERSION_A, VERSION_B)
        seen.add(text)
        assert store.entries("memory") in ([VERSION_A], [VERSION_B])
        ours = ("MEMORY.md", "MEMORY.md.lock", "history.jsonl", "history.jsonl.lock")
        leftovers = [p.name for p in tmp_path.iterdir() if p.name not in ours]
        assert all(name.startswith(".") and name.endswith(".tmp") for name in leftovers)
        assert len(store.history.read()[1]) <= 1  # at most the line a killed writer was appending
    assert seen == {VERSION_A, VERSION_B}  # the writer really was killed at different points
    # the lock died with its holder: a later write goes through, and cuts off any torn history line
    assert store.add("memory", "after the crashes")["success"]
    changes, warnings = store.history.read()
    assert warnings == [] and changes[-1].after == "after the crashes" and changes[-1].entries == store.entries("memory")
