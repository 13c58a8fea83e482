"""Automatic session titles: a short name made in the background after the first exchange.

A title is what the user types back (``-c TITLE``), so it is made once, never overwrites one the
user chose, and goes through the store's sanitizing and uniqueness rules. A continuation is the
same conversation: it gets the lineage's numbered title (``Base #2``), never a new generated one.
The model call runs on a daemon thread so the reply is never held up by it.
"""

from __future__ import annotations

import re
import threading
from typing import Callable

from engine.auxiliary import BackgroundJobs
from engine.errors import RefusedError
from engine.events import EngineEvent, Notice, TitleChanged
from engine.providers import ChatRequest, Provider
from engine.store import SessionDB

MAX_TITLE_CHARS = 80
MAX_TITLE_WORDS = 7
MAX_VARIANTS = 20  # "Title (2)" … when another session already has the generated title
EXCHANGE_CHARS = 1_000  # of the first user message and reply, sent to the title model
_PREFIX = re.compile(r"^\s*(?:title|session title|标题)\s*[:：]\s*", re.IGNORECASE)
_QUOTES = "\"'`“”‘’«»「」『』*#"

TITLE_SYSTEM = (
    "Write a title for the conversation below: 3 to 7 words, at most 80 characters, in the "
    "language of the user, naming its subject. Reply with the title only — no quotes, no "
    "punctuation at the end, no preamble."
)


def clean_title(raw: str) -> str | None:
    """The model's answer as a title: first line, no label, quotes or end punctuation, ≤ 7 words / 80 chars."""
    line = next((part for part in raw.strip().splitlines() if part.strip()), "")
    line = _PREFIX.sub("", line).strip().strip(_QUOTES).strip().rstrip(".。!！?？:：;；,，").strip(_QUOTES).strip()
    words = line.split()
    if len(words) > MAX_TITLE_WORDS:
        line = " ".join(words[:MAX_TITLE_WORDS])
    if len(line) > MAX_TITLE_CHARS:
        cut = line[:MAX_TITLE_CHARS]
        line = cut.rsplit(" ", 1)[0] if " " in cut else cut
    return line or None


def first_exchange(messages: list[dict]) -> tuple[str, str] | None:
    """The first user text and the first assistant text after it, or ``None`` before a reply exists."""
    user: str | None = None
    for message in messages:
        content = message.get("content")
        if not isinstance(content, str) or not content.strip():
            continue
        if message.get("role") == "user" and user is None:
            user = content
        elif message.get("role") == "assistant" and user is not None:
            return user[:EXCHANGE_CHARS], content[:EXCHANGE_CHARS]
    return None


def store_unique_title(db: SessionDB, session_id: str, title: str) -> str:
    """Store ``title``, or ``title (2)``, ``(3)``… when another session has it.

    Not ``#N``: that suffix means "continuation of the same conversation" and an unrelated
    session must not join another's lineage family by name.
    """
    for n in range(1, MAX_VARIANTS + 1):
        suffix = f" ({n})" if n > 1 else ""
        try:
            return db.set_title(session_id, title[: MAX_TITLE_CHARS - len(suffix)].rstrip() + suffix)
        except RefusedError:
            continue
    raise RefusedError(f"title {title!r} and {MAX_VARIANTS - 1} numbered variants are all taken.")


def generate_title(provider: Provider, user_text: str, reply_text: str) -> str | None:
    request = ChatRequest(
        system=TITLE_SYSTEM,
        messages=[{"role": "user", "content": f"User: {user_text}\n\nAssistant: {reply_text}"}],
        max_tokens=60,
        temperature=0.2,
    )
    return clean_title(provider.complete(request).text)


class TitleMaker:
    """Titles sessions in the background, at most one model call per session per process."""

    def __init__(self, db: SessionDB, provider_fn: Callable[[], Provider | None]) -> None:
        self.db = db
        self.provider_fn = provider_fn
        self._attempted: set[str] = set()
        self._jobs = BackgroundJobs("session-title")
        self._lock = threading.Lock()

    def maybe_generate_title(
        self, session_id: str, messages: list[dict], on_event: Callable[[EngineEvent], None]
    ) -> threading.Thread | None:
        """Call after each finished turn; returns the background thread when one was started.

        A continuation with a titled parent is numbered at once (no model call); an untitled
        session with a first exchange gets a generated title on a daemon thread.
        """
        session = self.db.get_session(session_id)
        if session is None or session.title:
            return None
        with self._lock:
            if session_id in self._attempted:
                return None
            self._attempted.add(session_id)
        if session.parent_session_id:
            parent = self.db.get_session(session.parent_session_id)
            if parent is not None and parent.title:
                title = self.db.set_title(session_id, self.db.next_lineage_title(parent.title))
                on_event(TitleChanged(session_id, title))
            return None
        exchange = first_exchange(messages)
        provider = self.provider_fn()
        if exchange is None or provider is None:
            with self._lock:
                self._attempted.discard(session_id)  # try again after a later turn
            return None
        return self._jobs.start(self._run, provider, session_id, exchange, on_event)

    def _run(self, provider: Provider, session_id: str, exchange: tuple[str, str], on_event: Callable[[EngineEvent], None]) -> None:
        try:
            title = generate_title(provider, *exchange)
            session = self.db.get_session(session_id)
            if title is None or session is None or session.title:  # the user named it meanwhile
                return
            on_event(TitleChanged(session_id, store_unique_title(self.db, session_id, title)))
        except Exception as exc:  # noqa: BLE001 - a title is a nicety; the session works without one
            on_event(Notice(f"Could not make a title for session {session_id}: {exc}", "information"))

    def join(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for a running title call; True when none is left."""
        return self._jobs.join(timeout)
