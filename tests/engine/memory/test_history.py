"""The memory history: who changed which entry and why, hand edits found, and undo of any change."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import NotFoundError, RefusedError
from engine.memory import MemoryStore, PendingQueue
from engine.memory.history import Cause, History, diff
from engine.memory.undo import undo_change

MODEL = Cause("model", "20261130_120000_abc123", 42)
APP = Cause("app")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def store(home: Path) -> MemoryStore:
    return MemoryStore(home / "memories")


@pytest.fixture
def queue(home: Path) -> PendingQueue:
    return PendingQueue(home)


def test_a_model_write_records_its_session_message_and_texts(store: MemoryStore) -> None:
    result = store.add("user", "Prefers tabs", cause=MODEL)
    change = store.history.get(result["change_id"])
    assert (change.action, change.actor, change.session_id, change.message_id) == ("add", "model", MODEL.session_id, 42)
    assert (change.before, change.after, change.entries) == (None, "Prefers tabs", ["Prefers tabs"])
    replaced = store.replace("user", "tabs", "Prefers spaces", cause=APP)
    assert store.history.get(replaced["change_id"]).before == "Prefers tabs"
    assert store.history.origin("user", "Prefers spaces").actor == "app"
    assert [c.action for c in store.history.of_entry("user", "Prefers spaces")] == ["replace", "add"]


def test_refused_and_no_op_writes_are_not_recorded(store: MemoryStore) -> None:
    store.add("memory", "fact", cause=APP)
    assert store.add("memory", "fact", cause=APP)["success"]  # a duplicate: nothing written
    assert not store.remove("memory", "absent", cause=APP)["success"]
    assert len(store.history.changes()) == 1


def test_entries_written_before_the_history_have_no_origin(store: MemoryStore) -> None:
    store.memories_dir.mkdir(parents=True)
    store.path("memory").write_text("upstream fact", encoding="utf-8")
    store.add("memory", "ours", cause=APP)
    assert store.history.origin("memory", "upstream fact") is None
    assert store.history.of_entry("memory", "upstream fact") == []
    assert store.history.origin("memory", "ours").actor == "app"


def test_a_hand_edit_is_recorded_as_one_before_the_next_write(store: MemoryStore) -> None:
    store.add("memory", "one", cause=APP)
    store.add("memory", "two", cause=APP)
    store.path("memory").write_text("one, edited\n§\ntwo\n§\nthree", encoding="utf-8")
    store.add("memory", "four", cause=MODEL)
    hand = [c for c in store.history.changes() if c.actor == "hand_edit"]
    assert [(c.action, c.before, c.after) for c in hand] == [("replace", "one", "one, edited"), ("add", None, "three")]
    assert store.history.changes()[-1].after == "four"  # recorded after the hand edit it found


def test_sync_finds_a_hand_edit_without_a_write_and_only_once(store: MemoryStore) -> None:
    store.add("memory", "one", cause=APP)
    store.path("memory").write_text("", encoding="utf-8")
    assert store.sync_history() == []
    store.sync_history()
    assert [(c.actor, c.action, c.before) for c in store.history.changes()[1:]] == [("hand_edit", "remove", "one")]


def test_diff_pairs_a_change_in_place_and_ignores_reordering() -> None:
    assert diff(["a", "b"], ["b", "a"]) == []
    assert diff(["a", "b", "c"], ["a", "B", "c", "d"]) == [("b", "B"), (None, "d")]
    assert diff(["a", "b"], ["b"]) == [("a", None)]


def test_approval_records_who_proposed_it_and_undo_removes_exactly_that_entry(
        store: MemoryStore, queue: PendingQueue) -> None:
    store.add("memory", "kept", cause=APP)
    record = queue.stage({"action": "add", "target": "memory", "content": "staged fact"}, origin="foreground",
                         cause=MODEL)
    result = queue.approve(record.id, store, APP)
    approve = store.history.get(result["change_id"])
    assert (approve.action, approve.actor, approve.proposer, approve.pending_id) == ("approve", "app", "model", record.id)
    assert (approve.session_id, approve.message_id) == (MODEL.session_id, 42)
    store.add("memory", "added later", cause=APP)
    undone = undo_change(approve.id, store, queue, Cause("cli"))
    assert store.entries("memory") == ["kept", "added later"]
    assert [r.id for r in queue.list()[0]] == [record.id]  # pending again
    assert store.history.get(undone.change_id).undoes == approve.id
    with pytest.raises(RefusedError, match=f"change {approve.id} was already undone by"):
        undo_change(approve.id, store, queue, Cause("cli"))


def test_undo_of_a_reject_files_the_record_again(store: MemoryStore, queue: PendingQueue) -> None:
    record = queue.stage({"action": "add", "target": "user", "content": "x"}, origin="background_review",
                         cause=Cause("background_review", "S", 3))
    reject_id = queue.reject(record.id, APP)
    assert store.history.get(reject_id).record["id"] == record.id
    undone = undo_change(reject_id, store, queue, APP)
    assert store.history.get(undone.change_id).action == "restore"
    assert [r.id for r in queue.list()[0]] == [record.id]


def test_undo_goes_through_the_scanner_and_limits_and_writes_nothing_when_refused(home: Path) -> None:
    store = MemoryStore(home / "memories", memory_limit=20)
    queue = PendingQueue(home)
    store.add("memory", "short fact", cause=APP)
    removed = store.remove("memory", "short", cause=APP)
    store.add("memory", "now it is full.", cause=APP)
    before = store.path("memory").read_bytes(), len(store.history.changes())
    with pytest.raises(RefusedError, match=rf"cannot undo {removed['change_id']}: Memory at 15/20 chars"):
        undo_change(removed["change_id"], store, queue, APP)
    assert (store.path("memory").read_bytes(), len(store.history.changes())) == before


def test_undo_errors_name_the_id(store: MemoryStore, queue: PendingQueue) -> None:
    with pytest.raises(NotFoundError, match="no memory change with id 'deadbeef'"):
        undo_change("deadbeef", store, queue, APP)
    record = queue.stage({"action": "add", "target": "user", "content": "x"}, origin="foreground", cause=MODEL)
    stage = store.history.changes()[-1]
    assert stage.pending_id == record.id
    with pytest.raises(RefusedError, match=f"change {stage.id} \\(stage\\) cannot be undone"):
        undo_change(stage.id, store, queue, APP)


def test_a_torn_last_line_is_skipped_then_cut_off_by_the_next_writer(store: MemoryStore) -> None:
    store.add("memory", "one", cause=APP)
    with store.history.path.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "half", "at": 1')
    changes, warnings = store.history.read()
    assert len(changes) == 1 and len(warnings) == 1 and warnings[0].startswith(f"{store.history.path}: line 2 skipped")
    store.add("memory", "two", cause=APP)
    changes, warnings = store.history.read()
    assert warnings == [] and [c.after for c in changes] == ["one", "two"]


def test_bad_lines_are_skipped_with_a_warning_naming_the_line(store: MemoryStore) -> None:
    store.add("memory", "one", cause=APP)
    with store.history.path.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "x", "at": 1, "target": "memory", "action": "explode", "actor": "app"}\n[1]\n')
    changes, warnings = History(store.memories_dir).read()
    assert len(changes) == 1
    assert warnings == [f"{store.history.path}: line 2 skipped (action is 'explode', not one of add, replace, "
                        "remove, approve, reject, stage, restore).",
                        f"{store.history.path}: line 3 skipped (not a JSON object)."]


def test_an_unknown_actor_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown memory actor 'robot'"):
        Cause("robot")


TEXTS = st.sampled_from(["alpha", "beta", "gamma", "delta", "alpha beta"])
STEPS = st.lists(st.tuples(st.sampled_from(["add", "replace", "remove", "hand", "undo"]), TEXTS, TEXTS),
                 max_size=12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=STEPS)
def test_the_history_always_accounts_for_every_entry(tmp_path_factory: pytest.TempPathFactory,
                                                     steps: list[tuple[str, str, str]]) -> None:
    """Whatever mix of writes, hand edits and undos: after a sync every entry's origin is known (the
    history began with the file), and the last recorded state holds what the file holds."""
    home = tmp_path_factory.mktemp("h")
    store, queue = MemoryStore(home / "memories"), PendingQueue(home)
    store.add("memory", "seed", cause=APP)
    for op, text, other in steps:
        if op == "add":
            store.add("memory", text, cause=APP)
        elif op == "replace":
            store.replace("memory", text, other, cause=MODEL)
        elif op == "remove":
            store.remove("memory", text, cause=APP)
        elif op == "hand":
            store.path("memory").write_text("\n§\n".join([*store.entries("memory")[1:], other]), encoding="utf-8")
        elif store.history.changes():
            try:
                undo_change(store.history.changes()[-1].id, store, queue, APP)
            except (RefusedError, NotFoundError):
                pass
    store.sync_history()
    entries = store.entries("memory")
    assert all(store.history.origin("memory", entry) is not None for entry in entries)
    writes = [c for c in store.history.changes() if c.entries is not None]
    assert not writes or set(writes[-1].entries) == set(entries)  # a pure reordering is no change


@pytest.mark.parametrize("content", ["over\rwritten", "over\r\nwritten"])
def test_a_carriage_return_is_written_as_the_file_reads_it_back(store: MemoryStore, content: str) -> None:
    """The file reads a CR (or CRLF) as a line break: the entry, its record and the next sync agree."""
    assert store.add("user", content, cause=APP)["success"]
    assert store.entries("user") == ["over\nwritten"] == [store.history.changes()[-1].after]
    assert store.sync_history() == [] and [c.actor for c in store.history.changes()] == ["app"]
    assert store.remove("user", "over\rwritten", cause=APP)["success"]
