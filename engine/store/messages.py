"""Canonical message dicts to ``messages`` rows and back.

Multimodal content is stored as searchable text (text parts joined, images as ``[screenshot]``),
never as base64: the store is for resuming, searching and auditing, not for replaying pixels.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any, Mapping

from engine.errors import BadInputError
from engine.store.models import StoredMessage

IMAGE_PLACEHOLDER = "[screenshot]"
IMAGE_PART_TYPES = frozenset({"image", "image_url", "input_image"})

INSERT_SQL = (
    "INSERT INTO messages (session_id, role, content, tool_call_id, tool_calls, tool_name, timestamp, "
    "finish_reason, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
SELECT_COLUMNS = (
    "id, session_id, role, content, timestamp, tool_call_id, tool_calls, tool_name, finish_reason, reasoning"
)
ACTIVE = "(active IS NULL OR active != 0)"  # upstream marks rewound messages inactive


def _part_text(part: Any) -> str:
    if isinstance(part, str):
        return part
    if not isinstance(part, Mapping):
        return str(part)
    kind = part.get("type")
    if kind in IMAGE_PART_TYPES:
        return IMAGE_PLACEHOLDER
    if isinstance(part.get("text"), str):
        return part["text"]
    if "content" in part:  # a nested tool result block
        return content_as_text(part["content"]) or ""
    return f"[{kind}]" if kind else ""


def content_as_text(content: Any) -> str | None:
    """Flatten string / list-of-parts content to the text that is stored."""
    if content is None or isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else [content]
    return "\n".join(text for text in (_part_text(p) for p in parts) if text)


def tool_call_total(messages: list[Mapping[str, Any]]) -> int:
    return sum(len(m.get("tool_calls") or ()) for m in messages)


def message_row(session_id: str, index: int, message: Any, default_ts: float) -> tuple[Any, ...]:
    """Values for INSERT_SQL; ``index`` only names the message in an error."""
    if not isinstance(message, Mapping):
        raise BadInputError(f"session {session_id}: message {index} is {type(message).__name__}, not a dict.")
    role = message.get("role")
    if not isinstance(role, str) or not role:
        raise BadInputError(f"session {session_id}: message {index} has no role.")
    tool_calls = message.get("tool_calls")
    timestamp = message.get("timestamp")
    return (
        session_id,
        role,
        content_as_text(message.get("content")),
        message.get("tool_call_id"),
        json.dumps(tool_calls, ensure_ascii=False) if tool_calls else None,
        message.get("name") if role == "tool" else message.get("tool_name"),
        float(timestamp) if isinstance(timestamp, (int, float)) else default_ts,
        message.get("finish_reason"),
        message.get("reasoning"),
    )


def _parse_tool_calls(raw: str | None) -> list[dict[str, Any]] | None:
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except ValueError:
        return None  # an unreadable upstream cell: the call is lost for replay, the row is kept
    return value if isinstance(value, list) else None


def stored_message(row: sqlite3.Row | tuple[Any, ...]) -> StoredMessage:
    """Build from a row selected with SELECT_COLUMNS."""
    mid, sid, role, content, ts, tcid, tcalls, tname, finish, reasoning = row
    return StoredMessage(
        id=mid,
        session_id=sid,
        role=role,
        content=content,
        timestamp=ts,
        tool_call_id=tcid,
        tool_calls=_parse_tool_calls(tcalls),
        tool_name=tname,
        finish_reason=finish,
        reasoning=reasoning,
    )
