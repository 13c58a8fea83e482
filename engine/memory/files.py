"""MEMORY.md / USER.md on disk: the ``\\n§\\n`` entry format, tolerant reads and safe rewrites.

Why so careful: the files are hand-editable and shared by every Hermes process of a home. A write
takes an exclusive ``<file>.lock``, re-reads under it (so concurrent writers all land and a hand
edit made since load is merged, not clobbered), and replaces the file atomically (temp + fsync +
``os.replace`` + folder fsync), so a reader sees the old or the new full file, never half of one.
Reads tolerate a BOM and CRLF; a file whose bytes a rewrite would change beyond surrounding
whitespace (BOM, CRLF, padded, empty or duplicate entries) is first copied to
``<file>.bak.<timestamp>``. A rewrite that would lose text is refused instead: when the file holds
text the parser folded into an entry (``drift``), replace and remove write nothing but that copy.
Temp files left by a writer killed before its rename are swept on the next write.
"""

from __future__ import annotations

import glob
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
STALE_TEMP_S = 60.0  # a write takes milliseconds: a temp file this old lost its writer


class MemoryFileError(BadInputError):
    """A memory file cannot be read or written (exit 2); the message names the file."""


def _normalized(raw: str) -> str:
    return raw.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")


def parse_entries(raw: str) -> list[str]:
    """Entries of a file's text: BOM and CRLF tolerated, blanks dropped, duplicates removed."""
    entries = (entry.strip() for entry in _normalized(raw).split(SEPARATOR))
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


def drift(raw: str, entry_limit: int) -> str | None:
    """Why rewriting the file from its parsed entries would lose text; ``None`` when it would not.

    A rewrite keeps every word of a BOM, CRLF, padded, blank or duplicate entry, so those do not
    count. Two things do, both text added outside the tool that the parser folds into one entry,
    which a replace or remove of that entry would then drop: a line holding only '§' (give or take
    spaces) that is not an exact separator but has text on both sides, and an entry longer than
    the whole file's limit, which no tool write can produce (upstream's signal of a shell append).
    """
    line = 1
    for piece in _normalized(raw).split(SEPARATOR):
        lines = piece.split("\n")
        texts = [i for i, text in enumerate(lines) if text.strip() and text.strip() != "§"]
        stray = [i for i, text in enumerate(lines) if text.strip() == "§" and texts and texts[0] < i < texts[-1]]
        if stray:
            return f"line {line + stray[0]} holds a '§' that is not a separator (a line of exactly '§')"
        size = len(piece.strip())
        if size > entry_limit:
            first = next(i for i, text in enumerate(lines) if text.strip())
            return (
                f"the entry at line {line + first} has {size:,} chars, more than the whole file's "
                f"{entry_limit:,}-char limit, so text was added to it without a '§' line"
            )
        line += len(lines) + 1
    return None


def drift_refusal(path: Path, raw: str, reason: str) -> dict:
    """Upstream's drift result: nothing written but a copy of the file, and how to fix it."""
    try:
        backup: str | None = str(_backup(path, raw))
        saved = f"a copy was saved to {backup}"
    except OSError as exc:
        backup, saved = None, f"no copy could be saved ({exc.strerror or exc}); the file is unchanged"
    return {
        "success": False,
        "error": (
            f"Refusing to change {path}: {reason}, and a replace or remove could drop that text (added by "
            f"hand, a shell append or another tool); {saved}. Separate the entries with lines holding only "
            "'§' (or move the extra text out of the file), then retry."
        ),
        "drift_backup": backup,
        "remediation": (
            "Open the copy, add the entries the file is missing one at a time with memory(action=add, "
            "content=...), then rewrite the file as a clean '§'-separated list."
        ),
    }


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
def locked(path: Path) -> Iterator[None]:
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


def _sweep_stale_temps(path: Path) -> None:
    """Delete temp files of ``path`` a killed writer left behind (called under the lock).

    Every writer of the file holds the lock while its temp file exists, so one older than
    ``STALE_TEMP_S`` seen under the lock has no writer left; the age check is a second guard.
    """
    cutoff = clock.now() - STALE_TEMP_S
    for temp in path.parent.glob(f".{glob.escape(path.name)}.*.tmp"):
        try:
            if temp.is_file() and temp.stat().st_mtime < cutoff:
                temp.unlink()
        except OSError:
            continue  # gone already, or not ours to delete: the write goes on either way


def update_entries(
    path: Path,
    change: Callable[[list[str]], tuple[list[str] | None, dict]],
    *,
    drift_limit: int | None = None,
    written: Callable[[list[str], dict], dict] | None = None,
) -> dict:
    """Apply ``change`` to the entries read under the lock; write when it returns new entries.

    ``change`` returns ``(new_entries_or_None, result)``; ``None`` means "refused, write nothing".
    With ``drift_limit`` (replace and remove, which drop an entry's text) a file that ``drift``
    finds fault with is refused before ``change`` runs, after a copy of it is saved. ``written``
    runs once the new file is in place, still under the lock (the history's record), and returns
    the result to give back.
    """
    with locked(path):
        raw = read_text(path)
        reason = drift(raw, drift_limit) if drift_limit is not None else None
        if reason:
            return drift_refusal(path, raw, reason)
        new_entries, result = change(parse_entries(raw))
        if new_entries is None:
            return result
        if path.exists() and not os.stat(path).st_mode & 0o222:
            raise MemoryFileError(f"{path}: the file is read-only; make it writable to change memory.")
        try:
            if raw and not _round_trips(raw):
                result = {**result, "backup": str(_backup(path, raw))}
            _sweep_stale_temps(path)
            atomic_write_text(path, serialize(new_entries))
        except OSError as exc:
            raise MemoryFileError(f"{path}: cannot be written ({exc.strerror or exc}); the file is unchanged.") from exc
        return written(new_entries, result) if written is not None else result
