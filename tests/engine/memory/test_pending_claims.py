"""PendingQueue's claim protocol: one decider per record across processes, stale claims put back,
misnamed records refused, and ``restore`` (the undo of a reject)."""

from __future__ import annotations

import json
import multiprocessing
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable

import pytest

from engine.errors import BadInputError, NotFoundError, RefusedError
from engine.memory import MemoryStore, PendingQueue, PendingRecord
from engine.memory.pending import STALE_CLAIM_S

CTX = multiprocessing.get_context("fork")
TRIALS = 30
FOREIGN_CLAIM = ".{id}.json.claim-1-0000beef"  # another process's claim on ``id``


@pytest.fixture
def queue(tmp_path: Path) -> PendingQueue:
    return PendingQueue(tmp_path)


@pytest.fixture
def store(tmp_path: Path) -> MemoryStore:
    return MemoryStore(tmp_path / "memories")


def _folder(queue: PendingQueue) -> Path:
    return queue.folder


def _add(queue: PendingQueue, content: str) -> PendingRecord:
    return queue.stage({"action": "add", "target": "memory", "content": content}, origin="foreground")


def _snapshot(root: Path) -> dict[str, bytes]:
    """Every file's bytes by name (lock files are empty and not data)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix != ".lock"}


def steal_on_rename(monkeypatch: pytest.MonkeyPatch, victim: Path) -> Path:
    """Make another process claim ``victim`` just before this one renames it; the thief's claim file."""
    stolen = victim.with_name(FOREIGN_CLAIM.format(id=victim.stem))
    real_rename = os.rename

    def rename(src: Any, dst: Any) -> None:
        if Path(src) == victim and victim.exists():
            real_rename(victim, stolen)
        real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    return stolen


# ── real races ──────────────────────────────────────────────────────────────────────────────────
def _decider(home: str, ids: list[str], verb: str, barrier: Any, results: Any) -> None:
    """Decide each record in turn, in step with the rival process; report ``ok``/``refused``/``lost``."""
    queue, store = PendingQueue(Path(home)), MemoryStore(Path(home) / "memories")
    outcomes = []
    for record_id in ids:
        barrier.wait(10)
        try:
            if verb == "approve":
                outcomes.append("ok" if queue.approve(record_id, store)["success"] else "refused")
            else:
                queue.reject(record_id)
                outcomes.append("ok")
        except NotFoundError as exc:
            outcomes.append("lost" if "another process decided it" in str(exc) else f"error: {exc}")
    results.put((verb, outcomes))


def _race(home: Path, ids: list[str], verbs: tuple[str, str]) -> list[tuple[str, str]]:
    """Run two deciders at once over ``ids``; per record, the (first verb's, second verb's) outcome."""
    barrier, results = CTX.Barrier(2), CTX.Queue()
    procs = [CTX.Process(target=_decider, args=(str(home), ids, verb, barrier, results)) for verb in verbs]
    for proc in procs:
        proc.start()
    reported = [results.get(timeout=60) for _ in procs]
    for proc in procs:
        proc.join(10)
        assert proc.exitcode == 0
    first, second = (outcomes for _verb, outcomes in sorted(reported, key=lambda r: verbs.index(r[0])))
    return list(zip(first, second))


def test_approve_racing_reject_has_one_winner_and_a_rejected_add_never_lands(
        queue: PendingQueue, store: MemoryStore, tmp_path: Path) -> None:
    records = [_add(queue, f"race fact {n}") for n in range(TRIALS)]
    outcomes = _race(tmp_path, [r.id for r in records], ("approve", "reject"))
    assert all(sorted(pair) == ["lost", "ok"] for pair in outcomes), outcomes
    landed = store.entries("memory")
    for record, (approved, _rejected) in zip(records, outcomes):
        assert (record.payload["content"] in landed) == (approved == "ok")
    assert sorted(p.name for p in _folder(queue).iterdir()) == []  # no record and no claim left behind


def test_two_approvals_of_one_remove_apply_it_once_and_the_loser_is_told(
        queue: PendingQueue, store: MemoryStore, tmp_path: Path) -> None:
    facts = [f"fact to remove <{n}>" for n in range(TRIALS)]  # no fact contains another
    for fact in facts:
        store.add("memory", fact)
    records = [queue.stage({"action": "remove", "target": "memory", "old_text": f}, origin="foreground")
               for f in facts]
    outcomes = _race(tmp_path, [r.id for r in records], ("approve", "approve"))
    assert all(sorted(pair) == ["lost", "ok"] for pair in outcomes), outcomes  # never "refused" ("kept")
    assert store.entries("memory") == [] and queue.list() == ([], [])


# ── the loser's path, deterministically ─────────────────────────────────────────────────────────
@pytest.mark.parametrize("verb", ["approve", "reject"])
def test_loser_of_a_claim_gets_not_found_and_touches_nothing(
        queue: PendingQueue, store: MemoryStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verb: str) -> None:
    record = _add(queue, "contested fact")
    stolen = steal_on_rename(monkeypatch, _folder(queue) / f"{record.id}.json")
    with pytest.raises(NotFoundError, match=rf"no pending memory write with id '{record.id}' .*another process "
                                            r"decided it, or it never existed"):
        queue.approve(record.id, store) if verb == "approve" else queue.reject(record.id)
    assert [p.name for p in _folder(queue).iterdir()] == [stolen.name]  # the winner's claim, untouched
    assert not store.path("memory").exists()


def test_approve_all_skips_a_record_another_process_took(
        queue: PendingQueue, store: MemoryStore, monkeypatch: pytest.MonkeyPatch) -> None:
    first, taken, last = (_add(queue, f"fact {n}") for n in range(3))
    stolen = steal_on_rename(monkeypatch, _folder(queue) / f"{taken.id}.json")
    results = queue.approve_all(store)
    assert sorted(r["pending_id"] for r in results) == sorted([first.id, last.id])
    assert sorted(store.entries("memory")) == ["fact 0", "fact 2"]
    assert [p.name for p in _folder(queue).iterdir()] == [stolen.name]


def test_reject_all_skips_a_record_another_process_took(queue: PendingQueue, monkeypatch: pytest.MonkeyPatch) -> None:
    taken = [_add(queue, content) for content in "abc"][1]
    stolen = steal_on_rename(monkeypatch, _folder(queue) / f"{taken.id}.json")
    assert queue.reject_all() == 2
    assert [p.name for p in _folder(queue).iterdir()] == [stolen.name]


# ── what the claimant does ──────────────────────────────────────────────────────────────────────
class _StubStore:
    """A store whose ``add`` runs ``during`` first, to look at the queue mid-decision."""

    def __init__(self, during: Callable[[], None], result: dict | None = None) -> None:
        self.during, self.result = during, result

    def add(self, target: str, content: str, *, cause: object = None) -> dict:
        self.during()
        return self.result or {"success": True, "target": target, "message": "Entry added.", "usage": "1%",
                               "change": {"kind": "add", "content": content}}


def test_a_claimed_record_is_hidden_and_an_old_record_file_still_gets_a_fresh_claim(queue: PendingQueue) -> None:
    record = _add(queue, "old fact")
    path = _folder(queue) / f"{record.id}.json"
    old = time.time() - 2 * STALE_CLAIM_S
    os.utime(path, (old, old))  # staged long ago: the claim must not inherit this age
    seen: list[Any] = []
    result = queue.approve(record.id, _StubStore(lambda: seen.append(queue.list())))  # type: ignore[arg-type]
    assert seen == [([], [])]  # mid-decision: not listed, and not "recovered" as stale
    assert result["success"] and result["pending_id"] == record.id
    assert result["change"] == {"kind": "add", "content": "old fact"}  # store keys pass through
    assert list(_folder(queue).iterdir()) == []


def test_an_exception_mid_replay_puts_the_record_back(queue: PendingQueue) -> None:
    record = _add(queue, "fact")
    before = _snapshot(_folder(queue))

    def explode() -> None:
        raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError, match="disk on fire"):
        queue.approve(record.id, _StubStore(explode))  # type: ignore[arg-type]
    assert _snapshot(_folder(queue)) == before
    assert queue.get(record.id) == record


def test_a_refused_replay_puts_the_record_back(queue: PendingQueue) -> None:
    record = _add(queue, "fact")
    before = _snapshot(_folder(queue))
    refused = {"success": False, "error": "Memory at 9/9 chars."}
    result = queue.approve(record.id, _StubStore(lambda: None, refused))  # type: ignore[arg-type]
    assert result == {**refused, "pending_id": record.id}
    assert _snapshot(_folder(queue)) == before


# ── stale claims ────────────────────────────────────────────────────────────────────────────────
def _claim_file(queue: PendingQueue, record: PendingRecord, *, age: float) -> Path:
    """Turn ``record`` into a claim left by a process that stopped ``age`` seconds ago."""
    path = _folder(queue) / f"{record.id}.json"
    claim = path.with_name(FOREIGN_CLAIM.format(id=record.id))
    path.rename(claim)
    stamp = time.time() - age
    os.utime(claim, (stamp, stamp))
    return claim


def test_list_restores_a_stale_claim_so_nothing_is_dropped(queue: PendingQueue, store: MemoryStore) -> None:
    record = _add(queue, "interrupted fact")
    original = (_folder(queue) / f"{record.id}.json").read_bytes()
    _claim_file(queue, record, age=STALE_CLAIM_S + 5)
    assert queue.list() == ([record], [])
    assert [p.name for p in _folder(queue).iterdir()] == [f"{record.id}.json"]
    assert (_folder(queue) / f"{record.id}.json").read_bytes() == original
    assert queue.approve(record.id, store)["success"]


def test_list_leaves_a_live_claim_alone(queue: PendingQueue) -> None:
    record = _add(queue, "being decided")
    claim = _claim_file(queue, record, age=STALE_CLAIM_S - 60)
    assert queue.list() == ([], []) and queue.count() == 0
    assert [p.name for p in _folder(queue).iterdir()] == [claim.name]


def test_a_stale_claim_never_overwrites_a_record_of_the_same_id(queue: PendingQueue) -> None:
    record = _add(queue, "claimed copy")
    claim = _claim_file(queue, record, age=STALE_CLAIM_S + 5)
    newer = replace(record, summary="the newer record")
    queue.folder.joinpath(f"{record.id}.json").write_text(json.dumps(newer.to_dict()))
    records, warnings = queue.list()
    assert records == [newer]
    assert len(warnings) == 1 and claim.name in warnings[0] and f"{record.id}.json exists" in warnings[0]
    assert sorted(p.name for p in _folder(queue).iterdir()) == sorted([claim.name, f"{record.id}.json"])


def test_other_hidden_files_are_not_taken_for_claims(queue: PendingQueue) -> None:
    record = _add(queue, "fact")
    odd = [".notes", f".{record.id}.json.claim-x", f"..{record.id}.json.claim-1-ab.x1y2.tmp"]
    old = time.time() - 2 * STALE_CLAIM_S
    for name in odd:
        (_folder(queue) / name).write_text("{}")
        os.utime(_folder(queue) / name, (old, old))
    assert queue.list() == ([record], [])
    assert sorted(p.name for p in _folder(queue).iterdir()) == sorted(odd + [f"{record.id}.json"])


# ── a record whose file name is not its id ──────────────────────────────────────────────────────
def _misnamed(queue: PendingQueue) -> tuple[PendingRecord, Path]:
    """``0badc0de.json`` holding a copy of record ``real`` (with another payload): the bug report's home."""
    real = _add(queue, "the real record")
    impostor = {**real.to_dict(), "payload": {"action": "add", "target": "memory", "content": "impostor"}}
    path = _folder(queue) / "0badc0de.json"
    path.write_text(json.dumps(impostor), encoding="utf-8")
    return real, path


def test_list_skips_a_misnamed_record_and_says_what_to_do(queue: PendingQueue) -> None:
    real, path = _misnamed(queue)
    records, warnings = queue.list()
    assert records == [real]
    assert warnings == [f"skipped {path}: it holds id {real.id!r}, not '0badc0de'; delete or rename the file"]


@pytest.mark.parametrize("verb", ["get", "approve", "reject"])
def test_deciding_a_misnamed_record_is_refused_and_changes_nothing(
        queue: PendingQueue, store: MemoryStore, tmp_path: Path, verb: str) -> None:
    real, path = _misnamed(queue)
    before = _snapshot(tmp_path)
    calls = {"get": lambda: queue.get("0badc0de"), "approve": lambda: queue.approve("0badc0de", store),
             "reject": lambda: queue.reject("0badc0de")}
    with pytest.raises(BadInputError) as caught:
        calls[verb]()
    assert str(caught.value) == f"{path}: it holds id {real.id!r}, not '0badc0de'; delete or rename the file."
    assert _snapshot(tmp_path) == before
    assert not store.path("memory").exists()


# ── restore: the undo of a reject ───────────────────────────────────────────────────────────────
def test_restore_undoes_a_reject_byte_for_byte(queue: PendingQueue, store: MemoryStore) -> None:
    record = queue.stage({"action": "replace", "target": "user", "old_text": "dark", "content": "浅色"},
                         origin="background_review")
    path = _folder(queue) / f"{record.id}.json"
    staged = path.read_bytes()
    queue.reject(record.id)
    queue.restore(record)
    assert path.read_bytes() == staged
    assert [p.name for p in _folder(queue).iterdir()] == [path.name]
    assert queue.list() == ([record], [])


def test_restore_into_a_home_without_a_pending_folder(queue: PendingQueue) -> None:
    record = PendingRecord(id="1234abcd", action="add", summary="add to memory: x", origin="foreground",
                           created_at=1.0, payload={"action": "add", "target": "memory", "content": "x"})
    queue.restore(record)
    assert queue.get("1234abcd") == record


def test_restore_refuses_to_overwrite_an_existing_record(queue: PendingQueue) -> None:
    record = _add(queue, "kept as is")
    before = _snapshot(_folder(queue))
    changed = replace(record, summary="would overwrite")
    with pytest.raises(RefusedError, match=rf"pending memory write '{record.id}' already exists"):
        queue.restore(changed)
    assert _snapshot(_folder(queue)) == before


def test_restore_refuses_while_another_process_is_deciding_that_id(queue: PendingQueue) -> None:
    record = _add(queue, "being decided")
    _claim_file(queue, record, age=1)
    before = _snapshot(_folder(queue))
    with pytest.raises(RefusedError, match=rf"pending memory write '{record.id}' already exists"):
        queue.restore(record)
    assert _snapshot(_folder(queue)) == before


def test_without_hard_links_restore_and_release_still_never_overwrite(
        queue: PendingQueue, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_links(src: Any, dst: Any) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    record = _add(queue, "on a filesystem without hard links")
    queue.reject(record.id)
    queue.restore(record)
    assert queue.list() == ([record], [])
    with pytest.raises(RefusedError):
        queue.restore(record)
    refused = {"success": False, "error": "no"}
    assert queue.approve(record.id, _StubStore(lambda: None, refused))["success"] is False  # type: ignore[arg-type]
    assert [p.name for p in _folder(queue).iterdir()] == [f"{record.id}.json"]
