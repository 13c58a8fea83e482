"""Crash-safe file replacement: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def fsync_dir(folder: Path) -> None:
    """Make a rename durable; silently skipped where directories cannot be opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to a temp file beside ``path``, fsync it, ``os.replace`` it, fsync the folder.

    The temp name starts with ``.`` and ends with ``.tmp`` so nothing mistakes it for data.
    On failure the temp file is removed and ``path`` is unchanged.
    """
    folder = path.parent
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.chmod(tmp_name, os.stat(path).st_mode & 0o777 if path.exists() else 0o644)
        except OSError:
            pass
        os.replace(tmp_name, path)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except OSError:
            pass
        raise
    fsync_dir(folder)
