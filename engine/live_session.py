"""The session an agent is in — id, title, transcript, frozen system prompt — and its lifecycle.

A session is created in ``state.db`` with its first message, loaded on resume with its stored
prompt reused byte-for-byte (invariant 1), ended with the first reason that ends it, and rotated
into a child (compression, branch) in one transaction. Every message is flushed the moment it
exists, through a cursor, so flushes from several exit paths never duplicate a row. The agent
holds its turn lock around each switch (new, resume, branch, compression).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from engine.errors import HermesError, NotFoundError
from engine.events import Notice, OnEvent, Recap, SessionSwitched
from engine.recall import RecallManager
from engine.review import BackgroundReviewer
from engine.session_log import SessionLogSnapshot, write_session_log
from engine.store import LineageMoved, SessionDB, TranscriptWriter
from engine.tokens import content_text
from engine.usage import UsageMeter

RECAP_EXCHANGES = 3


@dataclass(frozen=True)
class SessionLogger:
    """The opt-in JSON session log (``sessions.write_json_snapshots``), secrets redacted."""

    home: Path
    model: str
    base_url: str | None
    platform: str
    tools: list[dict]
    redactor: Callable[[str], str]

    def write(self, session_id: str, started_at: float, messages: list[dict], system_prompt: str) -> None:
        snapshot = SessionLogSnapshot(
            session_id=session_id, model=self.model, session_start=started_at, messages=messages,
            base_url=self.base_url, platform=self.platform, system_prompt=system_prompt, tools=self.tools)
        write_session_log(self.home, snapshot, redactor=self.redactor)


class LiveSession:
    """The live session's state, kept in step with the store."""

    def __init__(
        self,
        db: SessionDB,
        *,
        model: str,
        source: str,
        cwd: Path,
        recall: RecallManager,
        reviewer: BackgroundReviewer,
        usage: UsageMeter,
        new_prompt: Callable[[], str],
        log: SessionLogger | None,
        warn: Callable[[str], None],
    ) -> None:
        self.db = db
        self.model = model
        self.source = source
        self.cwd = cwd
        self.recall = recall
        self.reviewer = reviewer
        self.usage = usage
        self.new_prompt = new_prompt  # a fresh snapshot: new sessions, compression, a model change
        self.log = log
        self.warn = warn
        self.session_id: str | None = None
        self.title: str | None = None
        self.messages: list[dict] = []
        self.system_prompt = ""
        self.writer: TranscriptWriter | None = None

    # ----- opening ---------------------------------------------------------------------------

    def open(self, *, resume: str | None, continue_title: str | None) -> None:
        """A fresh session, or the lineage tip named by ``resume`` / ``continue_title``."""
        target = None
        if resume is not None:
            target = self.db.resume_target(resume)
        elif continue_title is not None:
            target = self.db.most_recent_tip(continue_title or None)
            if target is None and continue_title:
                raise NotFoundError(f"no session titled {continue_title!r} to continue.")
        if target is not None:
            self.load(target)
        else:
            self.system_prompt = self.new_prompt()
        self.recall.initialize(self.session_id)

    def load(self, session_id: str) -> None:
        session = self.db.require_session(session_id)
        self.session_id = session.id
        self.title = session.title
        self.messages = self.db.load_transcript(session.id)
        self.writer = TranscriptWriter(self.db, session.id, flushed=len(self.messages))
        self.usage.load(session.id)  # its earlier requests, and those of the sessions it continues
        if session.ended_at is not None:
            self.db.reopen_session(session.id)
        if session.system_prompt and session.model == self.model:
            self.system_prompt = session.system_prompt  # invariant 1: the stored bytes, as they are
        else:
            self.system_prompt = self.new_prompt()
            self.db.set_system_prompt(session.id, self.system_prompt)

    def ensure(self) -> str:
        """The session's id, creating it in the store first when nothing was said yet."""
        if self.session_id is None:
            self.session_id = self.db.create_session(
                source=self.source, model=self.model, system_prompt=self.system_prompt, cwd=str(self.cwd))
            self.writer = TranscriptWriter(self.db, self.session_id)
            self.recall.on_session_switch(None, self.session_id)
        return self.session_id

    # ----- the transcript --------------------------------------------------------------------

    def append(self, message: dict) -> None:
        """A new message of the transcript: kept, and stored at once."""
        self.messages.append(message)
        self.flush()

    @property
    def last_message_id(self) -> int | None:
        """The stored id of the newest message written in this process (a tool call's message)."""
        return self.writer.last_id if self.writer is not None else None

    def flush(self) -> None:
        assert self.writer is not None
        if self.writer.flush(self.messages) and self.log is not None:
            self._write_log(self.log)

    def _write_log(self, log: SessionLogger) -> None:
        """A failed write never fails the turn: it is reported at the next one."""
        session = self.db.get_session(self.session_id or "")
        if session is None:
            return
        try:
            log.write(session.id, session.started_at, self.messages, self.system_prompt)
        except HermesError as exc:
            self.warn(f"JSON session log not written: {exc}")

    def recap(self) -> tuple[tuple[str, str], ...]:
        """The last few user → assistant exchanges, for the resume notice."""
        pairs: list[tuple[str, str]] = []
        pending_user: str | None = None
        for message in self.messages:
            role, content = message.get("role"), content_text(message.get("content"))
            if role == "user":
                pending_user = content
            elif role == "assistant" and content and pending_user is not None:
                pairs.append((pending_user, content))
                pending_user = None
        return tuple(pairs[-RECAP_EXCHANGES:])

    # ----- switching sessions ----------------------------------------------------------------

    def set_title(self, title: str) -> str:
        session_id = self.ensure()
        self.title = self.db.set_title(session_id, title)
        return self.title

    def next_lineage_title(self) -> str | None:
        """The numbered title a continuation or branch takes (``Base #2``); None when untitled."""
        return self.db.next_lineage_title(self.title) if self.title else None

    def compression_count(self) -> int:
        return self.db.compression_count(self.session_id or "")

    def start_new(self, on_event: OnEvent) -> None:
        """``/new``: end this session; the next message starts one with a fresh snapshot."""
        old = self.session_id
        self.end("user_exit", on_event)
        self.session_id, self.title, self.messages, self.writer = None, None, [], None
        self.usage.reset()
        self.system_prompt = self.new_prompt()
        on_event(SessionSwitched(old, "", "new"))

    def resume(self, id_or_title: str, on_event: OnEvent) -> None:
        """Continue at the tip of that session's lineage; this session ends unless it is the one."""
        target = self.db.resume_target(id_or_title)
        old = self.session_id
        if target == old:
            on_event(Notice(f"Already in {self.title or target}: nothing to resume.", "information"))
            return
        self.end("user_exit", on_event)
        self.usage.reset()
        self.load(target)
        self.recall.on_session_switch(old, target)
        on_event(SessionSwitched(old, target, "resume", self.title))
        on_event(Recap(target, self.recap()))

    def end(self, reason: str, on_event: OnEvent | None) -> None:
        """Flush and end the session; with ``on_event`` the session-end memory review runs first."""
        if self.session_id is None:
            return
        if self.writer is not None:
            self.flush()
        if on_event is not None:
            self.reviewer.review_now(self.session_id, self.messages, on_event, self.last_message_id)
        self.recall.on_session_end(self.messages)
        self.db.end_session(self.session_id, reason)

    def close(self, on_event: OnEvent | None) -> None:
        self.end("user_exit", on_event)
        self.recall.shutdown()
        self.session_id = None

    # ----- rotation --------------------------------------------------------------------------

    def rotate(self, end_reason: str, messages: list[dict], title: str | None, system_prompt: str,
               on_event: OnEvent) -> bool:
        """Move the live context into a child session in one transaction (a crash leaves no half-lineage).

        Another process may have moved the session on since this one read it (its own rotation,
        or turns this context lacks): then nothing is forked — a second child would split the
        lineage — and the session continues at the lineage's real tip instead (returns False). A
        compression also waits while another process waits to write a turn here: it read the
        session before this turn ended, and compressing now would refuse that turn.
        """
        old = self.session_id or ""
        self.flush()
        assert self.writer is not None
        try:
            with self.writer.turn_lock():  # no other process's turn lands between the check and the fork
                if end_reason == "compression" and self.writer.others_waiting():
                    on_event(Notice("Another process is about to continue this session; compression is left to it.",
                                    "information"))
                    return False
                new_id = self.db.fork_session(old, end_reason=end_reason, messages=messages, title=title,
                                              system_prompt=system_prompt, model=self.model,
                                              source=self.source, cwd=str(self.cwd),
                                              parent_messages=self.writer.flushed)
        except LineageMoved as moved:
            self._follow_tip(moved, on_event)
            return False
        self.session_id, self.messages, self.system_prompt = new_id, [dict(m) for m in messages], system_prompt
        self.title = self.db.require_session(new_id).title
        self.writer.switch(new_id, flushed=len(messages))
        self.recall.on_session_switch(old, new_id)
        reason = "compression" if end_reason == "compression" else "branch"
        on_event(SessionSwitched(old, new_id, reason, self.title))
        return True

    def _follow_tip(self, moved: LineageMoved, on_event: OnEvent) -> None:
        """After a refused rotation: continue from the tip as stored (its transcript and prompt)."""
        old = self.session_id
        self.load(moved.tip)
        if moved.tip != old:
            self.recall.on_session_switch(old, moved.tip)
        self.usage.forget_prompt()
        on_event(Notice(f"{moved} Continuing at {moved.tip} as it is stored, without compressing now."))
        on_event(SessionSwitched(old, moved.tip, "resume", self.title))

    def branch(self, title: str | None, on_event: OnEvent) -> None:
        """``/branch [NAME]``: fork the conversation; the parent is kept as it was."""
        if self.session_id is None:
            on_event(Notice("Nothing to branch yet: send a message first.", "information"))
            return
        self.rotate("branched", list(self.messages), title or self.next_lineage_title(), self.system_prompt, on_event)
