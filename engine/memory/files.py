"""MEMORY.md / USER.md on disk: the ``\\n§\\n`` entry format, tolerant reads and safe rewrites.

Why so careful: the files are hand-editable and shared by every Hermes process of a home. A write
takes an exclusive ``<file>.lock``, re-reads under it (so concurrent writers all land and a hand
edit made since load is merged, not clobbered), and replaces the file atomically (temp + fsync +
``os.replace`` + folder fsync), so a reader sees the old or the new full file, never half of one.
Reads tolerate a BOM and CRLF; a file whose bytes a rewrite would change beyond surrounding
whitespace (BOM, CRLF, padded, empty or duplicate entries) is first copied to
``<file>.bak.<timestamp>``.
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from filelock import FileLock, Timeout

from engine import clock
from engine.atomic import atomic_write_text
from engine.errors import BadInputError

SEPARATOR = "\n§\n"
LOCK_TIMEOUT_S = 10.0


class MemoryFileError(BadInputError):
    """A memory file cannot be read or written (exit 2); the message names the file."""


def parse_entries(raw: str) -> list[str]:
    """Entries of a file's text: BOM and CRLF tolerated, blanks dropped, duplicates removed."""
    text = raw.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    entries = (entry.strip() for entry in text.split(SEPARATOR))
    return list(dict.fromkeys(entry for entry in entries if entry))


def serialize(entries: list[str]) -> str:
    return SEPARATOR.join(entries)


def read_text(path: Path) -> str:
    """The file's text ("" when missing); unreadable or non-UTF-8 files raise ``MemoryFileError``."""
    try:
        return path.read_bytes().decode("utf-8")  # bytes: keep CRs, so a backup is exact
    except FileNotFoundError:
        return ""
    except UnicodeDecodeError as exc:
        raise MemoryFileError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); fix or move the file.") from exc
    except OSError as exc:
        raise MemoryFileError(f"{path}: cannot be read ({exc.strerror or exc}).") from exc


def read_entries(path: Path) -> list[str]:
    return parse_entries(read_text(path))


def _round_trips(raw: str) -> bool:
    """True when rewriting changes nothing but surrounding whitespace (a BOM or CRLF does count)."""
    return serialize(parse_entries(raw)) == raw.strip()


def _backup(path: Path, raw: str) -> Path:
    stamp = int(clock.now())
    backup = path.with_name(f"{path.name}.bak.{stamp}")
    n = 1
    while backup.exists():
        backup = path.with_name(f"{path.name}.bak.{stamp}.{n}")
        n += 1
    atomic_write_text(backup, raw)
    return backup


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    lock_path = path.with_name(path.name + ".lock")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(lock_path), timeout=LOCK_TIMEOUT_S)
        lock.acquire()
    except Timeout as exc:
        raise MemoryFileError(f"{lock_path}: still locked by another process after {LOCK_TIMEOUT_S:.0f} s.") from exc
    except OSError as exc:
        raise MemoryFileError(f"{lock_path}: cannot be created ({exc.strerror or exc}).") from exc
    try:
        yield
    finally:
        lock.release()


def update_entries(path: Path, change: Callable[[list[str]], tuple[list[str] | None, dict]]) -> dict:
    """Apply ``change`` to the entries read under the lock; write when it returns new entries.

    ``change`` returns ``(new_entries_or_None, result)``; ``None`` means "refused, write nothing".
    """
    with _locked(path):
        raw = read_text(path)
        new_entries, result = change(parse_entries(raw))
        if new_entries is None:
            return result
        if path.exists() and not os.stat(path).st_mode & 0o222:
            raise MemoryFileError(f"{path}: the file is read-only; make it writable to change memory.")
        try:
            if raw and not _round_trips(raw):
                result = {**result, "backup": str(_backup(path, raw))}
            atomic_write_text(path, serialize(new_entries))
        except OSError as exc:
            raise MemoryFileError(f"{path}: cannot be written ({exc.strerror or exc}); the file is unchanged.") from exc
        return result
