"""Opening ``state.db`` safely, getting it ready for writes, and the one write path.

Order matters: a database is inspected through an immutable read-only handle *before* a
read-write connection exists, so a corrupt or foreign file is reported without a byte of it
(or a ``-wal``/``-shm`` file beside it) being written. That look is cheap and cannot see every
page; before the first write the whole file passes ``PRAGMA quick_check`` and only then is its
journal mode chosen, so a damaged page is refused before anything is written to the file.
"""

from __future__ import annotations

import os
import random
import sqlite3
import time
from pathlib import Path
from typing import Callable, TypeVar

from engine.errors import StoreError

T = TypeVar("T")

SQLITE_HEADER = b"SQLite format 3\x00"
MAX_WRITE_ATTEMPTS = 15
RETRY_SLEEP_RANGE = (0.020, 0.150)
_RETRY_RANDOM = random.Random()  # its own generator: writers in threads never move the global one
BUSY_TIMEOUT_S = 2.0
# Errors meaning "this filesystem cannot do WAL" (NFS, SMB, some FUSE mounts).
WAL_UNSUPPORTED = ("locking protocol", "not authorized")


def check_readable(path: Path) -> None:
    """Refuse a file that is not an intact SQLite database, without writing anything.

    A light first look, so that reads start at once: header, schema, and the b-tree paths every
    command touches. The whole file is checked only before a write (``verify_intact``).
    """
    if path.is_dir():
        raise StoreError(f"{path}: is a directory, not a session database.")
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        with open(path, "rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise StoreError(f"{path}: cannot be read ({exc.strerror}).") from exc
    if head != SQLITE_HEADER:
        raise StoreError(f"{path}: is not an SQLite database; it was left untouched.")
    try:
        _probe(path, "mode=ro&immutable=1")
    except sqlite3.DatabaseError as exc:
        # "immutable" reads without locks, so another process writing at this moment (its
        # -wal or -journal file is there) can look like damage: then a locked read decides.
        # Without such a file nobody is writing and the damage is real.
        in_use = any(path.with_name(path.name + suffix).exists() for suffix in ("-wal", "-journal"))
        try:
            if not in_use:
                raise
            _probe(path, "mode=ro")
        except sqlite3.DatabaseError:
            raise StoreError(f"{path}: the database is corrupt ({exc}); it was left untouched.") from exc


def _probe(path: Path, flags: str) -> None:
    """Read the schema and the b-tree paths every command touches; raises on damage."""
    try:
        conn = sqlite3.connect(f"{path.absolute().as_uri()}?{flags}", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot be opened ({exc}); it was left untouched.") from exc
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if tables and "sessions" not in tables:
            raise StoreError(f"{path}: has no sessions table; not a Hermes session database, left untouched.")
        if "sessions" in tables:
            conn.execute("SELECT id FROM sessions ORDER BY rowid DESC LIMIT 1").fetchall()
        if "messages" in tables:
            conn.execute("SELECT MAX(id) FROM messages").fetchall()  # alone, so it is an index seek
            conn.execute("SELECT MIN(id) FROM messages").fetchall()
    finally:
        conn.close()


def check_writable(path: Path) -> None:
    """A read-only home fails here with a clear sentence, not later mid-write."""
    folder = path.parent
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise StoreError(f"{path}: the Hermes home is read-only; state.db needs a writable folder and file.")


def request_wal(conn: sqlite3.Connection) -> str:
    """Ask for WAL; a separate function so tests can simulate a filesystem that refuses it."""
    return str(conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]).lower()


def choose_journal_mode(conn: sqlite3.Connection) -> str:
    """WAL, else DELETE when the filesystem refuses WAL; a file already in WAL is never converted."""
    current = str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()
    if current == "wal":
        return current
    try:
        return request_wal(conn)
    except sqlite3.OperationalError as exc:
        if not any(marker in str(exc).lower() for marker in WAL_UNSUPPORTED):
            raise
        return str(conn.execute("PRAGMA journal_mode=DELETE").fetchone()[0]).lower()


def connect(path: Path) -> sqlite3.Connection:
    """A read-write connection in autocommit mode (transactions are explicit); the file is not changed."""
    try:
        conn = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA foreign_keys=ON")  # upstream declares ON DELETE CASCADE on usage rows
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot be opened ({exc}).") from exc
    return conn


def current_journal_mode(conn: sqlite3.Connection) -> str:
    return str(conn.execute("PRAGMA journal_mode").fetchone()[0]).lower()


def prepare_journal(conn: sqlite3.Connection, path: Path) -> str:
    """Choose the journal mode (a write to the file's header), just before the first write."""
    try:
        mode = choose_journal_mode(conn)
        if mode == "wal":
            conn.execute("PRAGMA synchronous=NORMAL")  # durable at checkpoints; the WAL norm
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot be opened ({exc}).") from exc
    return mode


def verify_intact(conn: sqlite3.Connection, path: Path, sleep: Callable[[float], None] = time.sleep) -> None:
    """``PRAGMA quick_check`` of every page; a damaged one is a StoreError and nothing is written.

    It reads the whole file (0.4–0.7 s for the 255 MB of a home of 200,000 messages), so it
    runs once per connection, before its first write, never for a read. A busy database is
    waited for as a write would be, never reported as damage.
    """
    for attempt in range(1, MAX_WRITE_ATTEMPTS + 1):
        try:
            rows = conn.execute("PRAGMA quick_check(1)").fetchall()
        except sqlite3.DatabaseError as exc:
            if is_busy(exc) and attempt < MAX_WRITE_ATTEMPTS:
                sleep(_RETRY_RANDOM.uniform(*RETRY_SLEEP_RANGE))
                continue
            if is_busy(exc):
                raise store_error(str(path), exc) from exc
            problem = str(exc)
        else:
            if rows == [("ok",)]:
                return
            problem = " ".join(str(rows[0][0] if rows else "no result").split())
        raise StoreError(f"{path}: the database is corrupt ({problem[:200]}); nothing was written.")


def is_busy(exc: BaseException) -> bool:
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def store_error(label: str, exc: sqlite3.Error) -> StoreError:
    text = str(exc)
    if "readonly" in text.replace(" ", "").lower():
        return StoreError(f"{label}: cannot write, the database or its folder is read-only.")
    return StoreError(f"{label}: database error ({text}).")


def run_write(
    conn: sqlite3.Connection,
    label: str,
    work: Callable[[sqlite3.Connection], T],
    sleep: Callable[[float], None] = time.sleep,
) -> T:
    """Run ``work`` in ``BEGIN IMMEDIATE … COMMIT``; retry on locked/busy with 20–150 ms jitter.

    A random pause breaks the convoy that SQLite's deterministic busy handler forms when many
    processes want the write lock at once. ``work`` must keep its side effects inside the
    transaction, since a retry runs it again. Integrity and engine errors pass through as they
    are; other SQLite errors become a StoreError naming ``label``.
    """
    attempt = 0
    while True:
        attempt += 1
        try:
            conn.execute("BEGIN IMMEDIATE")
            result = work(conn)
            conn.execute("COMMIT")
            return result
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if is_busy(exc) and attempt < MAX_WRITE_ATTEMPTS:
                sleep(_RETRY_RANDOM.uniform(*RETRY_SLEEP_RANGE))
                continue
            if isinstance(exc, sqlite3.Error) and not isinstance(exc, sqlite3.IntegrityError):
                raise store_error(label, exc) from exc
            raise
