"""SessionDB: the one object that reads and writes ``state.db``.

It reads only the columns it knows and writes rows naming only those columns, so anything a
newer upstream release added keeps its defaults and its data. All writes go through
``connection.run_write`` (BEGIN IMMEDIATE + jittered retry); one RLock serialises use of the
connection across the app's threads. The first write of a connection is preceded by a
``quick_check``, the journal-mode choice and whatever the schema lacks (``_ready_for_writes``),
so reads alone — a failed command among them — leave the file as it was.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping, Sequence, TextIO, TypeVar

from engine import clock
from engine.errors import BadInputError, NotFoundError, RefusedError, StoreError
from engine.store import lineage, maintenance, request_log, schema
from engine.store.connection import (
    check_readable,
    check_writable,
    connect,
    current_journal_mode,
    prepare_journal,
    run_write,
    verify_intact,
)
from engine.store.lineage import LineageMoved
from engine.store.listing import fetch_sessions, readable_time, recent_session_ids
from engine.store.usage_rows import SessionUsage, usage_rows
from engine.store.maintenance import Redactor, Removal
from engine.store.messages import (
    ACTIVE,
    SELECT_COLUMNS,
    clean_text,
    insert_message,
    message_row,
    stored_message,
    tool_call_total,
)
from engine.store.models import SearchHit, Session, StoredMessage, TreeNode
from engine.store.query import parse_query
from engine.store.reader import SearchReader
from engine.store.request_log import RequestRow
from engine.store.search import run_search
from engine.store.titles import like_escape, numbered, sanitize_title, split_numbered

if TYPE_CHECKING:
    from engine.config import Config

T = TypeVar("T")
USAGE_COLUMNS = {
    "input_tokens": "input_tokens",
    "output_tokens": "output_tokens",
    "cache_read_tokens": "cache_read_tokens",
    "cache_write_tokens": "cache_write_tokens",
    "reasoning_tokens": "reasoning_tokens",
    "api_calls": "api_call_count",
}
LAST_AUTO_PRUNE = "last_auto_prune"


def _usage_update(counts: Mapping[str, int], provider: str | None, base_url: str | None) -> tuple[str, list[Any]]:
    """The ``UPDATE sessions`` adding one call's counts (``USAGE_COLUMNS``) and its billing; ``id`` last."""
    sets = ", ".join(f"{col} = COALESCE({col}, 0) + ?" for col in USAGE_COLUMNS.values())
    sets += ", billing_provider = COALESCE(billing_provider, ?), billing_base_url = COALESCE(billing_base_url, ?)"
    return f"UPDATE sessions SET {sets} WHERE id = ?", [*(int(counts[k]) for k in USAGE_COLUMNS), provider, base_url]


def new_session_id(at: float) -> str:
    """``20261130_141502_a1b2c3``: sortable UTC start time plus 24 random bits."""
    stamp = datetime.fromtimestamp(at, tz=timezone.utc).strftime("%Y%m%d_%H%M%S")
    return f"{stamp}_{secrets.token_hex(3)}"


def end_in_transaction(conn: sqlite3.Connection, session_id: str, reason: str, at: float | None = None) -> None:
    """Mark a session ended inside the caller's transaction; an ended session keeps its first reason.

    Lineage following reads ``end_reason`` (a ``compression`` parent leads to its continuation),
    so a later, stale end never overwrites it; ``reopen_session`` clears the mark on purpose.
    ``at``: the end time (default now).
    """
    conn.execute(
        "UPDATE sessions SET ended_at = ?, end_reason = ? WHERE id = ? AND ended_at IS NULL",
        (clock.now() if at is None else at, clean_text(reason), session_id),
    )


class SessionDB:
    """Sessions and messages of one Hermes home (see DESIGN.md "state.db")."""

    @classmethod
    def open_home(cls, home: Path) -> "SessionDB":
        try:
            Path(home).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"{home}: cannot create the Hermes home ({exc.strerror}).") from exc
        return cls(Path(home) / "state.db")

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.label = str(self.path)
        check_readable(self.path)
        check_writable(self.path)
        self._conn = connect(self.path)
        self._lock = threading.RLock()
        self._writes_ready = False
        try:
            self.journal_mode = current_journal_mode(self._conn)
            if not schema.readable(self._conn):
                self._ready_for_writes()  # new, or older than v16: no query works until it is completed
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise StoreError(f"{self.label}: database error ({exc}).") from exc
        except BaseException:
            self._conn.close()
            raise

    # -- plumbing -------------------------------------------------------------------------
    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "SessionDB":
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _ready_for_writes(self) -> None:
        """Once per connection, before its first write: the whole file checked, then WAL, then the schema.

        In that order, so a damaged file is refused before its header or schema is touched.
        """
        if self._writes_ready:
            return
        verify_intact(self._conn, self.path)
        self.journal_mode = prepare_journal(self._conn, self.path)
        if schema.missing_parts(self._conn):
            run_write(self._conn, self.label, lambda c: schema.ensure_schema(c, self.label))
        self._writes_ready = True

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            self._ready_for_writes()
            return run_write(self._conn, self.label, work)

    def _read(self, work: Callable[[sqlite3.Connection], T]) -> T:
        with self._lock:
            try:
                return work(self._conn)
            except sqlite3.DatabaseError as exc:
                raise StoreError(f"{self.label}: database error ({exc}).") from exc

    def change_mark(self) -> tuple[int, int] | None:
        """A value that differs after any commit to the file, by this connection or another, so a
        view can tell that what it read is still current without reading it again; ``None`` (which
        counts as changed) when another thread has had the connection for 20 ms: a caller on the
        UI thread never waits for a long write."""
        if not self._lock.acquire(timeout=0.02):
            return None
        try:
            return self._conn.total_changes, self._conn.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.DatabaseError:
            return None
        finally:
            self._lock.release()

    def _must_exist(self, conn: sqlite3.Connection, session_id: str) -> None:
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
            raise NotFoundError(f"no session with id {session_id!r} in {self.label}.")

    # -- sessions -------------------------------------------------------------------------
    def create_session(
        self,
        *,
        source: str = "cli",
        model: str | None = None,
        system_prompt: str | None = None,
        parent_session_id: str | None = None,
        title: str | None = None,
        cwd: str | None = None,
        session_id: str | None = None,
        model_config: dict[str, Any] | None = None,
    ) -> str:
        started = clock.now()
        sid = session_id or new_session_id(started)
        if not sid.strip() or any(ch.isspace() for ch in sid):
            raise BadInputError(f"session id {sid!r} is empty or contains whitespace.")
        clean_title = sanitize_title(title) if title is not None else None
        config_json = json.dumps(model_config, ensure_ascii=False) if model_config is not None else None

        def work(conn: sqlite3.Connection) -> str:
            if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (sid,)).fetchone():
                raise RefusedError(f"session id {sid!r} already exists in {self.label}.")
            self._insert_session(conn, sid, source=source, model=model, model_config=config_json,
                                 system_prompt=system_prompt, parent_session_id=parent_session_id,
                                 started_at=started, title=clean_title, cwd=cwd)
            return sid

        return self._write(work)

    def _insert_session(self, conn: sqlite3.Connection, sid: str, *, parent_session_id: str | None,
                        title: str | None, **columns: Any) -> None:
        """One new ``sessions`` row naming only our columns (upstream's others keep their defaults)."""
        if parent_session_id is not None:
            self._must_exist(conn, parent_session_id)
        if title is not None:
            self._check_title_free(conn, title, sid)
        values = {"id": sid, "parent_session_id": parent_session_id, "title": title, **columns}
        values = {name: clean_text(value) for name, value in values.items()}  # e.g. a non-UTF-8 cwd
        names = ", ".join(values)
        conn.execute(f"INSERT INTO sessions ({names}) VALUES ({', '.join('?' * len(values))})", tuple(values.values()))

    def get_session(self, session_id: str) -> Session | None:
        found = self._read(lambda c: fetch_sessions(c, "WHERE s.id = ?", (session_id,)))
        return found[0] if found else None

    def require_session(self, session_id: str) -> Session:
        session = self.get_session(session_id)
        if session is None:
            raise NotFoundError(f"no session with id {session_id!r} in {self.label}.")
        return session

    def list_sessions(self, *, source: str | None = None, limit: int = 20, offset: int = 0) -> list[Session]:
        """Most recently active first; ``limit=0`` lists all."""
        if limit < 0 or offset < 0:
            raise BadInputError(f"limit and offset must not be negative (got {limit}, {offset}).")

        def work(conn: sqlite3.Connection) -> list[Session]:
            ids = recent_session_ids(conn, source=source, count=offset + limit if limit else None)[offset:]
            if not ids:
                return []
            by_id = {s.id: s for s in fetch_sessions(conn, f"WHERE s.id IN ({','.join('?' * len(ids))})", ids)}
            return [by_id[sid] for sid in ids if sid in by_id]

        return self._read(work)

    def _check_title_free(self, conn: sqlite3.Connection, title: str, owner: str) -> None:
        row = conn.execute("SELECT id FROM sessions WHERE title = ? AND id != ?", (title, owner)).fetchone()
        if row:
            raise RefusedError(f"title {title!r} is already used by session {row[0]}.")

    def set_title(self, session_id: str, title: str) -> str:
        """Store a sanitized title; refused when another session already has it."""
        clean = sanitize_title(title)

        def work(conn: sqlite3.Connection) -> str:
            self._must_exist(conn, session_id)
            self._check_title_free(conn, clean, session_id)
            conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (clean, session_id))
            return clean

        return self._write(work)

    def fork_session(
        self,
        parent_id: str,
        *,
        end_reason: str,
        messages: Sequence[Mapping[str, Any]],
        title: str | None,
        system_prompt: str,
        model: str | None,
        source: str,
        cwd: str | None = None,
        parent_messages: int | None = None,
    ) -> str:
        """Continue ``parent_id`` in a new child session holding ``messages``, and end the parent.

        One transaction: a crash leaves either the old session open and untouched or the whole
        new lineage step — never an ended parent without its continuation (compression, branch).
        A rotation names ``parent_messages``, how many of the parent's stored messages its context
        holds: then only an open parent holding exactly those is continued; otherwise another
        process moved the lineage on (``LineageMoved``, nothing written) and forking would split
        it. Without it the lineage is built as told (the demo seed ends its parents first).
        """
        started = clock.now()
        child = new_session_id(started)
        clean_title = sanitize_title(title) if title is not None else None
        rows = [message_row(child, i, m, started) for i, m in enumerate(messages)]
        # Upstream tells a branch from a sub-agent run by this marker (or by the child starting no
        # earlier than its parent ended): without it upstream hides the branch and resumes into it.
        branch_mark = json.dumps({"_branched_from": parent_id}) if end_reason == "branched" else None

        def work(conn: sqlite3.Connection) -> str:
            self._check_fork_parent(conn, parent_id, parent_messages)
            self._insert_session(conn, child, source=source, model=model, system_prompt=system_prompt,
                                 parent_session_id=parent_id, started_at=started, title=clean_title, cwd=cwd,
                                 message_count=len(rows), tool_call_count=tool_call_total(list(messages)),
                                 model_config=branch_mark)
            for row in rows:
                insert_message(conn, row)
            end_in_transaction(conn, parent_id, end_reason, at=started)  # the child starts as it ends
            return child

        return self._write(work)

    def _check_fork_parent(self, conn: sqlite3.Connection, parent_id: str, seen: int | None) -> None:
        """Refuse a rotation of a parent already ended, or holding messages the forking context lacks."""
        row = conn.execute("SELECT ended_at FROM sessions WHERE id = ?", (parent_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no session with id {parent_id!r} in {self.label}.")
        if seen is None:
            return
        if row[0] is not None:
            tip = lineage.compression_tip(conn, parent_id)
            raise LineageMoved(f"session {parent_id} was ended by another process meanwhile; it was not "
                               f"continued again (its lineage is at {tip}).", tip)
        stored = conn.execute(f"SELECT COUNT(*) FROM messages WHERE session_id = ? AND {ACTIVE}", (parent_id,))
        if stored.fetchone()[0] != seen:
            raise LineageMoved(f"session {parent_id} has messages another process wrote meanwhile; it was "
                               "not continued from a view that lacks them.", parent_id)

    def compression_count(self, session_id: str) -> int:
        """How many compressions led to ``session_id`` (its ancestors that ended in compression)."""
        ancestors = self.lineage_path(session_id)[:-1]
        if not ancestors:
            return 0
        marks = ",".join("?" * len(ancestors))
        sql = f"SELECT COUNT(*) FROM sessions WHERE end_reason = 'compression' AND id IN ({marks})"
        return int(self._read(lambda c: c.execute(sql, ancestors).fetchone()[0]))

    def lineage_path(self, session_id: str) -> list[str]:
        """``session_id`` and its ancestors, root first."""
        path: list[str] = []
        current: str | None = session_id
        while current is not None and current not in path:
            path.append(current)
            row = self._read(lambda c: c.execute(
                "SELECT parent_session_id FROM sessions WHERE id = ?", (current,)).fetchone())
            current = row[0] if row else None
        return path[::-1]

    def _update(self, session_id: str, sql: str, params: Sequence[Any]) -> None:
        def work(conn: sqlite3.Connection) -> None:
            self._must_exist(conn, session_id)
            conn.execute(sql, (*(clean_text(p) for p in params), session_id))

        self._write(work)

    def set_system_prompt(self, session_id: str, prompt: str) -> None:
        self._update(session_id, "UPDATE sessions SET system_prompt = ? WHERE id = ?", (prompt,))

    def end_session(self, session_id: str, reason: str) -> None:
        def work(conn: sqlite3.Connection) -> None:
            self._must_exist(conn, session_id)
            end_in_transaction(conn, session_id, reason)

        self._write(work)

    def reopen_session(self, session_id: str) -> None:
        """Clear the end mark when a person resumes a session that had been closed."""
        self._update(session_id, "UPDATE sessions SET ended_at = NULL, end_reason = NULL WHERE id = ?", ())

    def add_usage(
        self,
        session_id: str,
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cache_read_tokens: int = 0,
        cache_write_tokens: int = 0,
        reasoning_tokens: int = 0,
        api_calls: int = 0,
        billing_provider: str | None = None,
        billing_base_url: str | None = None,
    ) -> None:
        """Add one call's token counts; ``tool_call_count`` is not here: storing the calls counts them.

        The billing provider and base URL (upstream's columns) are set by the first call that
        names them and kept after: they say where a session's tokens were priced.
        """
        sql, params = _usage_update(dict(
            input_tokens=input_tokens, output_tokens=output_tokens, cache_read_tokens=cache_read_tokens,
            cache_write_tokens=cache_write_tokens, reasoning_tokens=reasoning_tokens, api_calls=api_calls,
        ), billing_provider, billing_base_url)
        self._update(session_id, sql, params)

    def add_request(self, row: RequestRow, *, billing_provider: str | None = None,
                    billing_base_url: str | None = None) -> int:
        """One model call: its record in ``hermes_tui_requests`` and its counts on the session
        (as ``add_usage``), in one transaction, so both hold it or neither does. Its row id."""
        sql, params = _usage_update(dict(
            input_tokens=row.input_tokens, output_tokens=row.output_tokens, cache_read_tokens=row.cache_read_tokens,
            cache_write_tokens=row.cache_write_tokens, reasoning_tokens=row.reasoning_tokens, api_calls=1,
        ), billing_provider, billing_base_url)
        clean = replace(row, **{name: clean_text(getattr(row, name)) for name in ("model", "provider", "base_url")})

        def work(conn: sqlite3.Connection) -> int:
            self._must_exist(conn, row.session_id)
            conn.execute(sql, (*(clean_text(p) for p in params), row.session_id))
            return request_log.insert(conn, clean)

        return self._write(work)

    def lineage_requests(self, session_id: str) -> list[RequestRow]:
        """The requests of ``session_id`` and of its ancestors (each up to where its child began),
        oldest first; none in a home that has no request log yet."""
        path = self.lineage_path(session_id)
        return self._read(lambda c: request_log.lineage_requests(c, path))

    # -- messages -------------------------------------------------------------------------
    def append_messages(self, session_id: str, messages: Sequence[Mapping[str, Any]]) -> list[int]:
        """Insert in one transaction; counters are bumped, never recounted (constant cost)."""
        now = clock.now()
        rows = [message_row(session_id, i, m, now) for i, m in enumerate(messages)]
        if not rows:
            return []
        calls = tool_call_total(list(messages))

        def work(conn: sqlite3.Connection) -> list[int]:
            self._must_exist(conn, session_id)
            ids = [insert_message(conn, row) for row in rows]
            conn.execute(
                "UPDATE sessions SET message_count = COALESCE(message_count, 0) + ?, "
                "tool_call_count = COALESCE(tool_call_count, 0) + ? WHERE id = ?",
                (len(rows), calls, session_id),
            )
            return ids

        return self._write(work)

    def get_messages(self, session_id: str, *, offset: int = 0, limit: int | None = None) -> list[StoredMessage]:
        sql = f"SELECT {SELECT_COLUMNS} FROM messages WHERE session_id = ? AND {ACTIVE} ORDER BY id LIMIT ? OFFSET ?"
        params = (session_id, -1 if limit is None else limit, offset)
        return self._read(lambda c: [stored_message(r) for r in c.execute(sql, params)])

    def message_offset(self, session_id: str, message_id: int) -> int | None:
        """Where ``message_id`` sits among the session's messages (the ``offset`` that
        ``get_messages`` reads it at), so a browser can open a long session at a match without
        reading what comes before it; ``None`` when the session holds no such message."""
        sql = (f"SELECT (SELECT COUNT(*) FROM messages WHERE session_id = ? AND {ACTIVE} AND id < ?) "
               f"FROM messages WHERE id = ? AND session_id = ? AND {ACTIVE}")
        params = (session_id, message_id, message_id, session_id)
        return self._read(lambda c: next((row[0] for row in c.execute(sql, params)), None))

    def load_transcript(self, session_id: str) -> list[dict[str, Any]]:
        return [m.to_dict() for m in self.get_messages(session_id)]

    # -- lineage --------------------------------------------------------------------------
    def lineage_root(self, session_id: str) -> str:
        self.require_session(session_id)
        return self._read(lambda c: lineage.roots_of(c, [session_id]).get(session_id, session_id))

    def lineage_tip(self, session_id: str) -> str:
        self.require_session(session_id)
        return self._read(lambda c: lineage.compression_tip(c, session_id))

    def lineage_ids(self, session_id: str) -> list[str]:
        root = self.lineage_root(session_id)
        return self._read(lambda c: lineage.descendants(c, root))

    def _numbered_family(self, conn: sqlite3.Connection, base: str) -> list[tuple[str, str, float]]:
        """(id, title, started_at) of ``base`` and every ``base #N``; a start that is not a time counts as 0."""
        rows = conn.execute(
            "SELECT id, title, started_at FROM sessions WHERE title = ? OR title LIKE ? ESCAPE '\\'",
            (base, like_escape(base) + " #%"),
        ).fetchall()
        return [(sid, title, readable_time(started) or 0.0) for sid, title, started in rows
                if split_numbered(title)[0] == base]

    def next_lineage_title(self, title: str) -> str:
        base, _ = split_numbered(sanitize_title(title))
        family = self._read(lambda c: self._numbered_family(c, base))
        if not family:
            return base
        return numbered(base, max(split_numbered(t)[1] for _, t, _ in family) + 1)

    def resolve(self, id_or_title: str) -> str:
        """An id, a title (its newest numbered variant), or a unique id prefix."""
        text = clean_text(id_or_title).strip()  # a non-UTF-8 argument cannot match, and must not crash
        if not text:
            raise BadInputError("an empty session id or title was given.")

        def work(conn: sqlite3.Connection) -> str:
            if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (text,)).fetchone():
                return text
            base, number = split_numbered(text)
            exact = conn.execute("SELECT id FROM sessions WHERE title = ?", (text,)).fetchone()
            if exact and number > 1:
                return str(exact[0])  # "Base #2" asked for by name
            family = self._numbered_family(conn, base if number > 1 else text)
            if family:
                return max(family, key=lambda r: (r[2], split_numbered(r[1])[1]))[0]
            matches = [r[0] for r in conn.execute(
                "SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY started_at DESC LIMIT 6",
                (like_escape(text) + "%",),
            )]
            if len(matches) == 1:
                return str(matches[0])
            if matches:
                shown = ", ".join(matches[:5])
                raise RefusedError(f"{text!r} matches several sessions ({shown}); give more of the id.")
            raise NotFoundError(f"no session with id or title {text!r} in {self.label}.")

        return self._read(work)

    def resume_target(self, id_or_title: str) -> str:
        return self.lineage_tip(self.resolve(id_or_title))

    def most_recent_tip(self, title: str | None = None) -> str | None:
        """For ``-c [TITLE]``: the most recently active lineage (by title when given), at its tip."""
        if title:
            try:
                return self.resume_target(title)
            except NotFoundError:
                return None
        recent = self._read(lambda c: recent_session_ids(c, source=None, count=1))
        return self.lineage_tip(recent[0]) if recent else None

    def tree(self, session_id: str | None = None) -> list[TreeNode]:
        """The lineage holding ``session_id`` (one root), or every lineage, newest first."""
        if session_id is not None:
            ids = self.lineage_ids(session_id)
            marks = ",".join("?" * len(ids))
            sessions = self._read(lambda c: fetch_sessions(c, f"WHERE s.id IN ({marks})", ids))
        else:
            sessions = self._read(lambda c: fetch_sessions(c))
        return build_forest(sessions)

    def lineages(self, session_ids: Sequence[str]) -> dict[str, TreeNode]:
        """The lineage (its root's node) holding each of ``session_ids`` that exists, read at once:
        a page of the session browser is 40 lineages, which one ``tree`` call each read in ~160
        queries and as many takes of the connection."""

        def work(conn: sqlite3.Connection) -> list[Session]:
            roots = lineage.roots_of(conn, session_ids)
            family = {sid for root in dict.fromkeys(roots.get(i, i) for i in session_ids)
                      for sid in lineage.descendants(conn, root)}
            marks = ",".join("?" * len(family))
            return fetch_sessions(conn, f"WHERE s.id IN ({marks})", list(family)) if family else []

        held: dict[str, TreeNode] = {}
        for root in build_forest(self._read(work)):
            for node in root.walk():
                held[node.session.id] = root
        return {sid: held[sid] for sid in session_ids if sid in held}

    # -- search ---------------------------------------------------------------------------
    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        source: str | None = None,
        exclude_session_ids: Collection[str] = (),
        hide_sources: Collection[str] = (),
        newest_first: bool = False,
    ) -> list[SearchHit]:
        """Best matches first (newest first for 1–2 character CJK terms, or when ``newest_first``);
        never raises on query text."""
        parsed = parse_query(query)
        return self._read(
            lambda c: run_search(
                c, parsed, limit=limit, source=source, exclude_session_ids=exclude_session_ids,
                hide_sources=hide_sources, newest_first=newest_first,
            )
        )

    def reader(self) -> "SearchReader":
        """A read-only connection of its own for an interactive browser (its queries can be stopped)."""
        return SearchReader(self.path)

    # -- removal, stats, export -------------------------------------------------------------
    def delete_plan(self, session_id: str) -> Removal:
        session = self.require_session(session_id)
        return self._read(lambda c: maintenance.delete_plan(c, session))

    def delete_session(self, session_id: str) -> Removal:
        """Delete a session and its messages; its children are re-pointed to its parent."""
        def work(conn: sqlite3.Connection) -> Removal:
            found = fetch_sessions(conn, "WHERE s.id = ?", (session_id,))
            if not found:
                raise NotFoundError(f"no session with id {session_id!r} in {self.label}.")
            plan = maintenance.delete_plan(conn, found[0])
            maintenance.remove(conn, plan)
            return plan

        return self._write(work)

    @staticmethod
    def _cutoff(older_than_days: float) -> float:
        if older_than_days < 0:
            raise BadInputError(f"--older-than must not be negative (got {older_than_days}).")
        return clock.now() - older_than_days * maintenance.SECONDS_PER_DAY

    def prune_plan(self, *, older_than_days: float, source: str | None = None) -> Removal:
        cutoff = self._cutoff(older_than_days)
        return self._read(lambda c: maintenance.prune_plan(c, cutoff=cutoff, source=source))

    def prune(self, *, older_than_days: float, source: str | None = None) -> Removal:
        """Delete ended sessions that ended more than ``older_than_days`` ago (never open ones)."""
        cutoff = self._cutoff(older_than_days)

        def work(conn: sqlite3.Connection) -> Removal:
            plan = maintenance.prune_plan(conn, cutoff=cutoff, source=source)
            maintenance.remove(conn, plan)
            return plan

        return self._write(work)

    def maybe_auto_prune(self, config: "Config") -> Removal | None:
        """Prune per ``sessions.*`` config at most once per ``min_interval_hours``; None when skipped."""
        settings = config.sessions
        if not settings.auto_prune:
            return None
        now = clock.now()
        interval = float(settings.min_interval_hours) * 3600
        days = float(settings.retention_days)

        def work(conn: sqlite3.Connection) -> Removal | None:
            row = conn.execute("SELECT value FROM state_meta WHERE key = ?", (LAST_AUTO_PRUNE,)).fetchone()
            try:
                last = float(row[0]) if row else None
            except (TypeError, ValueError):
                last = None  # an unreadable mark: prune now and rewrite it
            if last is not None and now - last < interval:
                return None
            plan = maintenance.prune_plan(conn, cutoff=now - days * maintenance.SECONDS_PER_DAY, source=None)
            maintenance.remove(conn, plan)
            conn.execute(
                "INSERT INTO state_meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (LAST_AUTO_PRUNE, repr(now)),
            )
            return plan

        plan = self._write(work)
        if plan is not None and plan.sessions and settings.vacuum_after_prune:
            self._read(lambda c: c.execute("VACUUM"))
        return plan

    def stats(self) -> dict[str, Any]:
        return self._read(lambda c: maintenance.stats(c, self._db_bytes()))

    def usage_rows(self) -> list[SessionUsage]:
        """Every session that made model calls, with its token tally and billing (oldest first)."""
        return self._read(usage_rows)

    def _db_bytes(self) -> int:
        return sum(p.stat().st_size for p in (self.path, Path(f"{self.path}-wal")) if p.exists())

    def export_jsonl(
        self,
        out: TextIO,
        *,
        session_id: str | None = None,
        source: str | None = None,
        redact: Redactor | None = None,
    ) -> int:
        """Write one JSON line per session (oldest first); returns the number of sessions written."""
        if session_id is not None:
            sessions = [self.require_session(session_id)]
        else:
            where, params = ("WHERE s.source = ?", (source,)) if source else ("", ())
            sessions = self._read(lambda c: fetch_sessions(c, f"{where} ORDER BY s.started_at, s.id", params))
        return self._read(lambda c: maintenance.write_export(c, out, sessions, redact))


def build_forest(sessions: list[Session]) -> list[TreeNode]:
    """Nest sessions by parent; roots (no parent among them) newest lineage first."""
    nodes = {s.id: TreeNode(s) for s in sorted(sessions, key=lambda s: (s.started_at, s.id))}
    roots: list[TreeNode] = []
    for node in nodes.values():
        parent = nodes.get(node.session.parent_session_id or "")
        (parent.children if parent is not None and parent is not node else roots).append(node)

    def newest(node: TreeNode) -> float:
        return max([node.session.last_active, *(newest(c) for c in node.children)])

    return sorted(roots, key=newest, reverse=True)

