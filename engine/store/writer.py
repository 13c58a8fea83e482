"""Incremental transcript flushing keyed by a per-session cursor, one turn at a time per session.

The agent may flush from several exit paths (turn end, Ctrl-C, crash handler, compression);
each call writes only ``messages[cursor:]`` and advances the cursor after the commit, so a
repeated flush never duplicates a row and a failed one is retried whole next time.

Several processes may continue one session at once (``chat -q -c`` twice, a script beside the
app). Their turns must not interleave, so a turn's rows — from its first to the reply that
ends it — are written under the session's *turn lock*, a file lock in ``state.db-turns/`` that
every process on the home shares; another process's turn waits for it (and says so with a
marker, ``others_waiting``), and a rotation (``turn_lock()``) takes it too. Taking it for a new
turn re-checks that the session is still the
tip of its lineage: if another process compressed it meanwhile, the turn is refused with
nothing written, because rows added there would sit where ``-c`` never looks; the cursor moves
past those rows, so the session can still be ended or left without retrying them.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from filelock import FileLock, Timeout

from engine.errors import BadInputError, RefusedError, StoreError
from engine.store.db import SessionDB
from engine.store.lineage import LineageMoved

# A turn with tool calls against a slow model can take minutes; a waiting turn gives up after this.
TURN_WAIT_S = 300.0


def turn_lock_path(db_path: Path, session_id: str) -> Path:
    """Where the turn lock of one session lives (its id hashed: ids from other programs may hold any text)."""
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()[:24]
    return db_path.with_name(db_path.name + "-turns") / f"{digest}.lock"


def ends_turn(message: Mapping[str, Any]) -> bool:
    """A reply with no tool calls is the last row of its turn."""
    return message.get("role") == "assistant" and not message.get("tool_calls")


class TranscriptWriter:
    def __init__(self, db: SessionDB, session_id: str, flushed: int = 0) -> None:
        if flushed < 0:
            raise BadInputError(f"session {session_id}: flush cursor must not be negative (got {flushed}).")
        self.db = db
        self.session_id = session_id
        self.flushed = flushed
        self._lock = threading.Lock()
        self._turn: FileLock | None = None  # held from a turn's first row to its reply
        self.last_id: int | None = None  # row id of the newest message written (memory history cites it)

    def flush(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Write the messages not yet written; returns how many rows were written now.

        A flush with nothing new (the session ending, a rotation) closes any turn left open.
        """
        with self._lock:
            if len(messages) < self.flushed:
                raise BadInputError(
                    f"session {self.session_id}: transcript has {len(messages)} messages but "
                    f"{self.flushed} were already flushed; it must only grow."
                )
            pending = messages[self.flushed :]
            if not pending:
                self._end_turn()
                return 0
            try:
                self._begin_turn()
            except LineageMoved:
                self.flushed = len(messages)  # never written: they answer a stale view; ending still works
                raise
            self.last_id = self.db.append_messages(self.session_id, pending)[-1]
            self.flushed = len(messages)
            if ends_turn(pending[-1]):
                self._end_turn()
            return len(pending)

    def switch(self, session_id: str, flushed: int) -> None:
        """Point at a new session (compression rotation) whose first ``flushed`` messages are stored."""
        with self._lock:
            self._end_turn()
            self.session_id = session_id
            self.flushed = flushed

    @contextmanager
    def turn_lock(self) -> Iterator[None]:
        """Hold this session's turn lock for a rotation: no other process's turn lands in between."""
        with self._lock:
            lock = self._acquire()
            try:
                yield
            finally:
                lock.release()

    def _begin_turn(self) -> None:
        if self._turn is not None:
            return
        lock = self._acquire()
        try:
            tip = self.db.lineage_tip(self.session_id)
        except BaseException:
            lock.release()
            raise
        if tip != self.session_id:
            lock.release()
            raise LineageMoved(
                f"session {self.session_id} was compressed into {tip} by another process while this turn "
                f"waited; nothing of the turn was written (continue at {tip}).", tip)
        self._turn = lock

    def _end_turn(self) -> None:
        if self._turn is not None:
            self._turn.release()
            self._turn = None

    def others_waiting(self) -> bool:
        """Whether another process is waiting to write a turn into this session.

        Such a process read the session before this one's turn ended, so compressing now would
        refuse its turn; the caller leaves compression to it. A waiter holds a marker lock; a
        marker nobody holds was left by a process that died, and is removed here.
        """
        path = turn_lock_path(self.db.path, self.session_id)
        for marker in path.parent.glob(f"{path.stem}.waiting-*.lock"):
            probe = FileLock(marker)
            try:
                probe.acquire(timeout=0)
            except Timeout:
                return True
            except OSError:
                continue  # gone meanwhile, or unreadable: not a live waiter
            probe.release()
        return False

    def _acquire(self) -> FileLock:
        """This session's lock, taken; one per path in this process (its other writers share it)."""
        path = turn_lock_path(self.db.path, self.session_id)
        try:
            path.parent.mkdir(exist_ok=True)
            lock = FileLock(path, thread_local=False, is_singleton=True)
            try:
                lock.acquire(timeout=0)
            except Timeout:
                with self._waiting(path):
                    lock.acquire(timeout=TURN_WAIT_S)
        except Timeout:
            raise RefusedError(f"session {self.session_id}: another process's turn did not finish within "
                               f"{TURN_WAIT_S:.0f} s; nothing was written.") from None
        except OSError as exc:
            raise StoreError(f"{path}: cannot take the session's turn lock ({exc.strerror or exc}).") from exc
        return lock

    @staticmethod
    @contextmanager
    def _waiting(path: Path) -> Iterator[None]:
        """A marker lock held while this process waits for ``path`` (see ``others_waiting``)."""
        marker = FileLock(path.with_name(f"{path.stem}.waiting-{os.getpid()}-{secrets.token_hex(4)}.lock"))
        marker.acquire(timeout=0)
        try:
            yield
        finally:
            marker.release()
