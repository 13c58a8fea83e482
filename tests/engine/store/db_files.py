"""Looking at a state.db file from outside the store: its bytes, and the objects it holds."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def objects(path: Path) -> set[str]:
    """Every table, index and trigger, read without any chance of writing the file."""
    conn = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
    try:
        return {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()
