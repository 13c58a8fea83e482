"""Reading cells another program may have written with a type other than the shared schema's.

SQLite keeps whatever a writer hands it: a BLOB where text belongs, text where a time belongs,
text that is not UTF-8. Reads turn such a cell into a value of the field's own type (or None),
so one bad cell degrades its row instead of failing a whole listing, export or search.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from typing import Any, Sequence


def readable_time(value: Any) -> float | None:
    """A cell as a Unix time; None when no date can be made of it (text, a BLOB, inf, 1e300)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        datetime.fromtimestamp(value, tz=timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    return float(value)


def cell_text(value: Any) -> str | None:
    """A cell of a text column as text: bytes (a BLOB, or a column read with ``as_bytes``) decoded
    with U+FFFD for what is not UTF-8, a number written where text belongs as its digits."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    return str(value)


def as_bytes(column: str) -> str:
    """``column`` selected as its bytes: text that is not UTF-8 would otherwise fail the whole
    query in the sqlite3 module (it decodes strictly); ``cell_text`` decodes it leniently."""
    return f"CAST({column} AS BLOB)"


def rows_read_leniently(conn: sqlite3.Connection, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    """The rows of a read whose text cells another program may have left as text that is not
    UTF-8, which the sqlite3 module refuses for the whole query: read as it is, and only when
    that fails, again with such text decoded with U+FFFD (so a good home pays nothing)."""
    try:
        return conn.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        if "Could not decode to UTF-8" not in str(exc):
            raise
    saved = conn.text_factory
    conn.text_factory = _lenient_text
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.text_factory = saved


def _lenient_text(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")
