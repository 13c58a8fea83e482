"""Canonical message dicts to ``messages`` rows and back, in upstream's encoding.

Text content is stored as it is. List or dict content (multimodal parts, tool-result blocks) is
stored the way upstream Hermes stores it, ``"\\x00json:" + JSON``, so a resume replays the
structure to the provider and either program reads the other's rows. The search index never
holds that JSON for our rows: their FTS rows are rewritten to the text parts (``content_text``),
so base64 images are neither matched nor shown in snippets.

Every text written is cleaned of lone surrogates (U+FFFD instead): SQLite cannot encode them,
and a non-UTF-8 argument or tool output must not fail the write and lose the turn.

On read, structured content is decoded, and a recall block that an older build leaked into a
stored user or assistant message is stripped, as upstream does when it loads a conversation.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import Any, Mapping, TypeVar

from engine.errors import BadInputError
from engine.scrub import sanitize_context
from engine.store.cells import as_bytes, cell_text, readable_time
from engine.store.models import StoredMessage
from engine.store.schema import FTS_TABLES
from engine.tokens import content_text

T = TypeVar("T")
JSON_PREFIX = "\x00json:"  # upstream's mark for list/dict content (NUL never starts real text)
CONTENT = 2  # position of ``content`` in INSERT_SQL's values
INSERT_SQL = (
    "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, "
    "finish_reason, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
# The text columns come back as bytes (``as_bytes``) and ``stored_message`` decodes them: a cell
# another program left as text that is not UTF-8 would otherwise fail the whole read.
SELECT_COLUMNS = ", ".join(
    name if name in ("id", "session_id", "timestamp") else as_bytes(name)
    for name in ("id", "session_id", "role", "content", "timestamp", "tool_call_id", "tool_calls", "tool_name",
                 "finish_reason", "reasoning")
)
ACTIVE = "(active IS NULL OR active != 0)"  # upstream marks rewound messages inactive
_SURROGATES = re.compile("[\ud800-\udfff]")
_RECALL_SCRUBBED_ROLES = frozenset({"user", "assistant"})


def clean_text(value: T) -> T:
    """``value`` with lone surrogates replaced by U+FFFD when it is text; anything else as it is."""
    if isinstance(value, str) and _SURROGATES.search(value):
        return _SURROGATES.sub("\ufffd", value)  # type: ignore[return-value]
    return value


def _json_text(value: Any, what: str) -> str:
    try:
        return clean_text(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError, RecursionError) as exc:
        raise BadInputError(f"{what} cannot be stored as JSON ({exc}).") from exc


def encode_content(content: Any, what: str) -> str | None:
    """The ``content`` cell: text as it is, a list or dict as upstream's ``\\x00json:`` text."""
    if content is None or isinstance(content, str):
        return clean_text(content)
    if isinstance(content, (list, dict)):
        return JSON_PREFIX + _json_text(content, what)
    raise BadInputError(f"{what} is {type(content).__name__}, not text or a list of parts.")


def decode_content(raw: Any) -> Any:
    """A stored ``content`` cell as the message content it was; an unreadable one stays raw text."""
    if not isinstance(raw, str) or not raw.startswith(JSON_PREFIX):
        return raw
    try:
        value = json.loads(raw[len(JSON_PREFIX) :])
    except (ValueError, RecursionError):
        return raw
    return value if isinstance(value, (list, dict, str)) else raw


def index_text(raw_content: str | None, tool_name: str | None, tool_calls: str | None) -> str:
    """What the FTS indexes hold for a row: the triggers' text, with structured content as its text parts."""
    text = content_text(decode_content(raw_content), markers=False)
    return f"{text} {tool_name or ''} {tool_calls or ''}"


def insert_message(conn: sqlite3.Connection, row: tuple[Any, ...]) -> int:
    """Insert one row made by ``message_row``; returns its id.

    The FTS triggers index the raw cell; for structured content that is JSON (base64 included),
    so those index rows are rewritten to ``index_text`` in the same transaction.
    """
    message_id = int(conn.execute(INSERT_SQL, row).lastrowid or 0)
    raw = row[CONTENT]
    if isinstance(raw, str) and raw.startswith(JSON_PREFIX):
        text = index_text(raw, row[5], row[4])
        for table in FTS_TABLES:
            conn.execute(f"UPDATE {table} SET content = ? WHERE rowid = ?", (text, message_id))
    return message_id


def reindex_structured(conn: sqlite3.Connection, table: str) -> None:
    """Give the rows of structured content their text parts in ``table`` (filled from raw cells)."""
    rows = conn.execute("SELECT id, content, tool_name, tool_calls FROM messages "
                        "WHERE substr(CAST(content AS BLOB), 1, 1) = x'00'").fetchall()
    for message_id, raw, tool_name, tool_calls in rows:
        if isinstance(raw, str) and raw.startswith(JSON_PREFIX):
            conn.execute(f"UPDATE {table} SET content = ? WHERE rowid = ?",
                         (index_text(raw, tool_name, tool_calls), message_id))


def tool_call_total(messages: list[Mapping[str, Any]]) -> int:
    return sum(len(m.get("tool_calls") or ()) for m in messages)


def message_row(session_id: str, index: int, message: Any, default_ts: float) -> tuple[Any, ...]:
    """Values for INSERT_SQL, every text cleaned; ``index`` only names the message in an error."""
    what = f"session {session_id}: message {index}"
    if not isinstance(message, Mapping):
        raise BadInputError(f"{what} is {type(message).__name__}, not a dict.")
    role = message.get("role")
    if not isinstance(role, str) or not role:
        raise BadInputError(f"{what} has no role.")
    tool_calls = message.get("tool_calls")
    timestamp = message.get("timestamp")
    return (
        session_id,
        clean_text(role),
        encode_content(message.get("content"), f"{what} content"),
        clean_text(message.get("tool_call_id")),
        _json_text(tool_calls, f"{what} tool_calls") if tool_calls else None,
        clean_text(message.get("name") if role == "tool" else message.get("tool_name")),
        float(timestamp) if isinstance(timestamp, (int, float)) else default_ts,
        clean_text(message.get("finish_reason")),
        clean_text(message.get("reasoning")),
    )


def _parse_tool_calls(raw: str | None) -> list[dict[str, Any]] | None:
    """The calls of a ``tool_calls`` cell; what is not a call object is left out (a replay, a
    show and an export read each call as a dict)."""
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):
        return None  # an unreadable upstream cell: the call is lost for replay, the row is kept
    calls = [call for call in value if isinstance(call, dict)] if isinstance(value, list) else []
    return calls or None


def _without_leaked_recall(role: str, content: Any) -> Any:
    """Text content minus any recall block an older build stored with it (trimmed only then)."""
    if role not in _RECALL_SCRUBBED_ROLES or not isinstance(content, str):
        return content
    cleaned = sanitize_context(content)
    return content if cleaned == content else cleaned.strip()


def stored_message(row: sqlite3.Row | tuple[Any, ...]) -> StoredMessage:
    """Build from a row selected with SELECT_COLUMNS, content decoded.

    The one place a message row is read, so a cell of the wrong type (another program's) is
    degraded here for every caller: text cells are read as text (``cell_text``), a time that is
    not one is None (unknown), and a missing role is empty text.
    """
    mid, sid, role, content, ts, tcid, tcalls, tname, finish, reasoning = row
    role = cell_text(role) or ""
    return StoredMessage(
        id=mid,
        session_id=sid,
        role=role,
        content=_without_leaked_recall(role, decode_content(cell_text(content))),
        timestamp=readable_time(ts),
        tool_call_id=cell_text(tcid),
        tool_calls=_parse_tool_calls(cell_text(tcalls)),
        tool_name=cell_text(tname),
        finish_reason=cell_text(finish),
        reasoning=cell_text(reasoning),
    )
