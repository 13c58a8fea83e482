"""Incremental transcript flushing keyed by a per-session cursor.

The agent may flush from several exit paths (turn end, Ctrl-C, crash handler, compression);
each call writes only ``messages[cursor:]`` and advances the cursor after the commit, so a
repeated flush never duplicates a row and a failed one is retried whole next time.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping, Sequence

from engine.errors import BadInputError
from engine.store.db import SessionDB


class TranscriptWriter:
    def __init__(self, db: SessionDB, session_id: str, flushed: int = 0) -> None:
        if flushed < 0:
            raise BadInputError(f"session {session_id}: flush cursor must not be negative (got {flushed}).")
        self.db = db
        self.session_id = session_id
        self.flushed = flushed
        self._lock = threading.Lock()

    def flush(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Write the messages not yet written; returns how many rows were written now."""
        with self._lock:
            if len(messages) < self.flushed:
                raise BadInputError(
                    f"session {self.session_id}: transcript has {len(messages)} messages but "
                    f"{self.flushed} were already flushed; it must only grow."
                )
            pending = messages[self.flushed :]
            if not pending:
                return 0
            self.db.append_messages(self.session_id, pending)
            self.flushed = len(messages)
            return len(pending)

    def switch(self, session_id: str, flushed: int) -> None:
        """Point at a new session (compression rotation) whose first ``flushed`` messages are stored."""
        with self._lock:
            self.session_id = session_id
            self.flushed = flushed
