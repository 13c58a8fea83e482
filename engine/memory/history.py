"""The history of memory: every change to MEMORY.md / USER.md, who made it and why, append-only.

``memories/history.jsonl`` is ours alone (upstream Hermes never reads it, so the home stays
upstream's): one JSON object a line, appended with a single ``write`` under ``history.jsonl.lock``
and fsynced. A line a killed writer left half-written is cut off by the next writer under that
lock, and skipped (with a warning) by readers, so a reader never takes half a record for one.

A write record carries the target's entries after it (``entries``), so the next writer, which
compares them with the file it reads under the memory file's lock, can tell that the file was
changed outside the store — a hand edit — and record exactly what changed, attributed to
``hand_edit``. Entries that no record wrote predate the history: their origin is unknown, and
shown as such, never guessed.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from engine import clock
from engine.atomic import fsync_dir
from engine.errors import NotFoundError
from engine.memory import files
from engine.memory.files import MemoryFileError

HISTORY_FILE = "history.jsonl"
# Who made a change. ``unknown`` only for a write whose caller named no one (none in the app or CLI).
ACTORS = ("cli", "app", "model", "background_review", "hand_edit", "unknown")
# add/replace/remove change an entry; approve applies a staged write (its before/after say how);
# reject discards one, stage files one, restore files a decided one again (an undone decision).
ACTIONS = ("add", "replace", "remove", "approve", "reject", "stage", "restore")
ACTOR_LABELS = {
    "cli": "you, with the command line",
    "app": "you, in the app",
    "model": "the model's memory tool call",
    "background_review": "the background memory review",
    "hand_edit": "a hand edit (the file changed outside hermes-tui)",
    "unknown": "an unnamed writer",
}
ACTOR_SHORT = {"cli": "you (CLI)", "app": "you (app)", "model": "model", "background_review": "background review",
               "hand_edit": "hand edit", "unknown": "unnamed writer"}
ORIGIN_UNKNOWN = "origin unknown (written before the history began)"


@dataclass(frozen=True)
class Cause:
    """Why a write happens: who, in which session and message, on behalf of which staged write."""

    actor: str
    session_id: str | None = None
    message_id: int | None = None
    pending: dict[str, Any] | None = None  # the staged record this write approves (its to_dict())
    undoes: str | None = None  # the change id this write reverses

    def __post_init__(self) -> None:
        if self.actor not in ACTORS:
            raise ValueError(f"unknown memory actor {self.actor!r}; expected one of {', '.join(ACTORS)}")


UNNAMED = Cause("unknown")


@dataclass(frozen=True)
class Change:
    """One line of the history; ``entries`` (write records only) is the target's file after it."""

    id: str
    at: float
    target: str
    action: str
    actor: str
    session_id: str | None = None
    message_id: int | None = None
    before: str | None = None
    after: str | None = None
    pending_id: str | None = None
    proposer: str | None = None  # approve: who staged the write (None: staged outside this history)
    undoes: str | None = None
    record: dict[str, Any] | None = None  # approve/reject: the staged record, so an undo can file it again
    entries: list[str] | None = field(default=None, repr=False)

    @classmethod
    def from_dict(cls, data: Any) -> "Change":
        """A decoded line; ``ValueError`` names the first thing wrong."""
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        known = {f.name for f in fields(cls)}
        for key in ("id", "target", "action", "actor"):
            if not isinstance(data.get(key), str):
                raise ValueError(f"{key} is {data.get(key)!r}, not text")
        if data["target"] not in ("memory", "user"):
            raise ValueError(f"target is {data['target']!r}, not memory or user")
        if data["action"] not in ACTIONS:
            raise ValueError(f"action is {data['action']!r}, not one of {', '.join(ACTIONS)}")
        at = data.get("at")
        if isinstance(at, bool) or not isinstance(at, (int, float)):
            raise ValueError(f"at is {at!r}, not a time")
        for key in ("session_id", "before", "after", "pending_id", "proposer", "undoes"):
            if data.get(key) is not None and not isinstance(data[key], str):
                raise ValueError(f"{key} is {data[key]!r}, not text")
        message_id = data.get("message_id")
        if message_id is not None and (isinstance(message_id, bool) or not isinstance(message_id, int)):
            raise ValueError(f"message_id is {message_id!r}, not a message id")
        if data.get("entries") is not None and not (
                isinstance(data["entries"], list) and all(isinstance(e, str) for e in data["entries"])):
            raise ValueError("entries is not a list of texts")
        if data.get("record") is not None and not isinstance(data["record"], dict):
            raise ValueError("record is not an object")
        return cls(**{key: value for key, value in data.items() if key in known})

    def to_dict(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}

    def public(self) -> dict[str, Any]:
        """The record as ``memory log --json`` shows it: every field but the internal file state."""
        data = asdict(self)
        data.pop("entries")
        return data

    @property
    def writes(self) -> bool:
        """Whether this record changed a memory file (``before``/``after`` say how)."""
        return self.before is not None or self.after is not None

    @property
    def undoable(self) -> bool:
        return self.action in ("add", "replace", "remove", "approve", "reject")


def diff(old: list[str], new: list[str]) -> list[tuple[str | None, str | None]]:
    """``(before, after)`` per entry changed between two lists: removals, additions, and a removal
    and an addition at the same position as one replacement. A pure reordering is no change."""
    old_set, new_set = set(old), set(new)
    gone = [(old.index(e), e) for e in old if e not in new_set]
    came = [(new.index(e), e) for e in new if e not in old_set]
    came_at = dict(came)
    pairs: list[tuple[str | None, str | None]] = []
    for index, entry in gone:
        if index in came_at:
            pairs.append((entry, came_at.pop(index)))
        else:
            pairs.append((entry, None))
    pairs += [(None, entry) for index, entry in came if index in came_at]
    return pairs


@dataclass
class _Parsed:
    """The complete lines of the file read so far: the file only grows, so a read parses the rest."""

    inode: int = -1
    offset: int = 0
    lines: int = 0
    changes: list[Change] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class History:
    """The history file of one ``memories`` folder."""

    def __init__(self, memories_dir: Path) -> None:
        self.path = Path(memories_dir) / HISTORY_FILE
        self._parsed = _Parsed()
        self._reading = threading.Lock()  # the app's UI thread and the agent's worker share a store

    # ── reading ──────────────────────────────────────────────────────────────────────────────
    def read(self) -> tuple[list[Change], list[str]]:
        """Every record, oldest first, and one warning per line that is not one.

        Lines already parsed are kept (by this object), so each read costs only what was appended
        since; a file replaced or cut short is read again from the start. A last line without its
        newline is a write in progress or one a killed writer left: skipped, never half-read.
        """
        with self._reading:
            try:
                with self.path.open("rb") as handle:
                    parsed = self._parsed
                    inode, size = os.fstat(handle.fileno()).st_ino, os.fstat(handle.fileno()).st_size
                    if inode != parsed.inode or size < parsed.offset:
                        parsed = self._parsed = _Parsed(inode=inode)
                    handle.seek(parsed.offset)
                    data = handle.read(size - parsed.offset)
            except FileNotFoundError:
                self._parsed = _Parsed()
                return [], []
            except OSError as exc:
                raise MemoryFileError(f"{self.path}: cannot be read ({exc.strerror or exc}).") from exc
            end = data.rfind(b"\n") + 1
            for line in data[:end].decode("utf-8", "replace").split("\n")[:-1]:
                parsed.lines += 1
                self._parse(line, parsed)
            parsed.offset += end
            torn = [f"{self.path}: line {parsed.lines + 1} skipped (incomplete: its writer had not finished it)."] \
                if data[end:].strip() else []
            return list(parsed.changes), parsed.warnings + torn

    def _parse(self, line: str, parsed: _Parsed) -> None:
        if not line.strip():
            return
        try:
            parsed.changes.append(Change.from_dict(json.loads(line)))
        except (ValueError, TypeError, RecursionError) as exc:
            parsed.warnings.append(f"{self.path}: line {parsed.lines} skipped ({exc}).")

    def changes(self, target: str | None = None) -> list[Change]:
        records = self.read()[0]
        return [c for c in records if target is None or c.target == target]

    def get(self, change_id: str) -> Change:
        for change in self.changes():
            if change.id == change_id:
                return change
        raise NotFoundError(f"no memory change with id {change_id!r} in {self.path} (see hermes-tui memory log).")

    def undone_by(self, change_id: str) -> Change | None:
        return next((c for c in self.changes() if c.undoes == change_id), None)

    def origin(self, target: str, entry: str, records: list[Change] | None = None) -> Change | None:
        """The record that put ``entry`` in its file as it is now; ``None``: it predates the history."""
        records = self.changes() if records is None else records
        return next((c for c in reversed(records) if c.target == target and c.after == entry), None)

    def of_entry(self, target: str, entry: str, records: list[Change] | None = None) -> list[Change]:
        """The entry's story, newest first: every record that wrote or dropped its text and, back
        through each replacement that produced it, the versions before."""
        mine = [c for c in (self.changes() if records is None else records) if c.target == target]
        picked: set[int] = set()
        texts, seen = [entry], {entry}
        while texts:
            text = texts.pop()
            for index, change in enumerate(mine):
                if index in picked or text not in (change.before, change.after):
                    continue
                picked.add(index)
                if change.after == text and change.before is not None and change.before not in seen:
                    seen.add(change.before)
                    texts.append(change.before)
        return [mine[index] for index in sorted(picked, reverse=True)]

    def _state(self, target: str) -> list[str] | None:
        """The target's entries after its last recorded write; ``None`` before the first one."""
        return next((c.entries for c in reversed(self.changes(target)) if c.entries is not None), None)

    def _stage_of(self, pending_id: str) -> Change | None:
        return next((c for c in reversed(self.changes()) if c.action == "stage" and c.pending_id == pending_id), None)

    # ── writing (the memory file's lock held for write records) ──────────────────────────────
    def sync(self, target: str, entries: list[str]) -> list[Change]:
        """Record a change made outside the store since its last write (call under the file's lock)."""
        state = self._state(target)
        if state is None or state == entries:
            return []
        hand = Cause("hand_edit")
        return [self.append(target, entry_op(before, after), hand, before, after, entries=entries)
                for before, after in diff(state, entries)]

    def record_write(self, target: str, change: dict, entries: list[str], cause: Cause) -> Change:
        """Record a store write (``change`` as the store reports it) made for ``cause``."""
        approving = cause.pending is not None and cause.undoes is None
        action = "approve" if approving else change["action"]
        return self.append(target, action, cause, change.get("before"), change.get("after"), entries=entries)

    def record_decision(self, target: str, action: str, cause: Cause, record: dict) -> Change:
        """A staged write approved without changing memory (a duplicate), rejected, or filed again."""
        return self.append(target, action, cause, None, None, record=record)

    def record_stage(self, target: str, pending_id: str, cause: Cause) -> Change:
        return self.append(target, "stage", cause, None, None, pending_id=pending_id)

    def append(self, target: str, action: str, cause: Cause, before: str | None, after: str | None, *,
               entries: list[str] | None = None, record: dict | None = None, pending_id: str | None = None) -> Change:
        """One record, written whole under the history lock."""
        record = record if record is not None else cause.pending
        pending_id = pending_id or (record or {}).get("id")
        session_id, message_id, proposer = cause.session_id, cause.message_id, None
        if action == "approve" and pending_id:
            stage = self._stage_of(pending_id)
            if stage is not None:  # the approval's cause is the turn that proposed the write
                session_id, message_id, proposer = stage.session_id, stage.message_id, stage.actor
        with files.locked(self.path):
            change = Change(
                id=self._new_id(), at=clock.now(), target=target, action=action, actor=cause.actor,
                session_id=session_id, message_id=message_id, before=before, after=after,
                pending_id=pending_id, proposer=proposer, undoes=cause.undoes, record=record,
                entries=list(entries) if entries is not None else None,
            )
            self._write_line(json.dumps(change.to_dict(), ensure_ascii=False) + "\n")
        return change

    def _new_id(self) -> str:
        taken = {c.id for c in self.changes()}
        change_id = secrets.token_hex(4)
        while change_id in taken:
            change_id = secrets.token_hex(4)
        return change_id

    def _write_line(self, line: str) -> None:
        """Append one line with one ``write``; a torn tail left by a killed writer is cut off first."""
        created = not self.path.exists()
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise MemoryFileError(f"{self.path}: cannot be written ({exc.strerror or exc}).") from exc
        try:
            size = os.fstat(fd).st_size
            if size and os.pread(fd, 1, size - 1) != b"\n":
                os.ftruncate(fd, _last_line_end(fd, size))
            os.write(fd, line.encode("utf-8"))
            os.fsync(fd)
        except OSError as exc:
            raise MemoryFileError(f"{self.path}: cannot be written ({exc.strerror or exc}).") from exc
        finally:
            os.close(fd)
        if created:
            fsync_dir(self.path.parent)  # the new file's name is durable too


def _last_line_end(fd: int, size: int) -> int:
    """Offset just past the last newline of the file (0 when it has none)."""
    data = os.pread(fd, size, 0)
    return data.rfind(b"\n") + 1


def entry_op(before: str | None, after: str | None) -> str:
    """The entry operation that turns ``before`` into ``after`` (``None``: no entry)."""
    if before is None:
        return "add"
    return "remove" if after is None else "replace"


def where(change: Change) -> str:
    """``session S, message N`` of the cause, ``""`` when the change names none."""
    if change.session_id is None:
        return ""
    return f"session {change.session_id}" + (f", message {change.message_id}" if change.message_id is not None else "")


def short_origin(change: Change) -> str:
    """Who made a change in two or three words, for a list row (an approval names the proposer)."""
    if change.action == "approve":
        return f"approved, from {ACTOR_SHORT.get(change.proposer or '', 'an unknown proposer')}"
    return ACTOR_SHORT.get(change.actor, change.actor)


def describe_actor(change: Change) -> str:
    """Who made a change, in words (an approval says who proposed the write, when known)."""
    who = ACTOR_LABELS.get(change.actor, change.actor)
    if change.action == "approve":
        proposed = ACTOR_LABELS.get(change.proposer or "", "a writer this history does not know")
        return f"approved by {who}; proposed by {proposed}"
    if change.undoes:
        return f"{who} (undoing {change.undoes})"
    return who
