"""Undo of any recorded memory change, through the normal write path, itself recorded.

An entry change is reversed by ``MemoryStore.undo`` (scanner, limits and duplicates apply, and
an entry edited since is never mistaken for the one the change wrote); an approval also files
its staged record again, and a rejection only does that. A change is undone once: a second undo
of the same id is refused and names the undo that did it.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import HermesError, RefusedError
from engine.memory.history import Cause, Change, entry_op
from engine.memory.pending import PendingQueue, PendingRecord
from engine.memory.store import MemoryStore


@dataclass(frozen=True)
class Undone:
    """What an undo did: the history record of it, and a sentence for the user."""

    change_id: str
    message: str


def undo_change(change_id: str, store: MemoryStore, queue: PendingQueue, by: Cause) -> Undone:
    """Reverse the change ``change_id`` for ``by``; ``NotFoundError`` / ``RefusedError`` say why not."""
    change = store.history.get(change_id)
    refusal = _refusal(change, store)
    if refusal:
        raise RefusedError(refusal)
    cause = Cause(by.actor, by.session_id, by.message_id, undoes=change.id)
    if change.writes:
        result = store.undo({"action": entry_op(change.before, change.after), "target": change.target, "before": change.before,
                             "after": change.after}, cause=cause)
        if not result.get("success"):
            raise RefusedError(f"cannot undo {change.id}: {result.get('error', 'the write was refused')}")
    if change.record is None:
        return Undone(_written_id(store, change), f"Undid {change.id} ({change.action} in {change.target}).")
    record = PendingRecord.from_dict(change.record)
    try:
        queue.restore(record)
    except HermesError as exc:
        if change.writes:
            return Undone(_written_id(store, change), f"Undid {change.id}, but {record.id} was not filed again: {exc}")
        raise
    restored = queue.history.record_decision(change.target, "restore", cause, change.record)
    done = "memory reverted and " if change.writes else ""
    return Undone(restored.id, f"Undid {change.id}: {done}{record.id} is pending again.")


def _refusal(change: Change, store: MemoryStore) -> str | None:
    if not change.undoable:
        what = "a staged write changes no memory; approve or reject it" if change.action == "stage" else \
            "putting a decided write back in the queue is undone by deciding it again"
        return f"change {change.id} ({change.action}) cannot be undone: {what}."
    later = store.history.undone_by(change.id)
    if later is not None:
        return f"change {change.id} was already undone by {later.id}."
    return None


def _written_id(store: MemoryStore, change: Change) -> str:
    undo = store.history.undone_by(change.id)
    return undo.id if undo is not None else change.id
