"""Optional per-session JSON logs, ``sessions/session_<id>.json`` (``sessions.write_json_snapshots``).

``state.db`` is the canonical record; these files exist for tools that read upstream Hermes'
JSON logs, so the shape is upstream's: ``{session_id, model, base_url, platform, session_start,
last_updated, system_prompt, tools, message_count, messages}``. Times are ISO-8601 strings in
UTC (upstream writes local naive times; an explicit offset is unambiguous and still parses with
``datetime.fromisoformat``).

Three rules protect the file: it is replaced atomically; a log holding *more* messages is never
replaced by one holding fewer (a resumed agent may start from partial history); and an existing
file that cannot be read as a log is moved aside to ``.bak.<UTC time>`` rather than lost.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.atomic import atomic_write_text
from engine.clock import now
from engine.errors import BadInputError
from engine.security.redact import redact_obj

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}\Z")
_REQUIRED = ("session_id", "model", "session_start", "messages")


@dataclass
class SessionLogSnapshot:
    """What one JSON log holds; times are epoch seconds (``engine.clock``)."""

    session_id: str
    model: str
    session_start: float
    messages: list[dict[str, Any]]
    base_url: str | None = None
    platform: str = "cli"
    system_prompt: str = ""
    tools: list[dict[str, Any]] = field(default_factory=list)
    last_updated: float | None = None  # None: now


def session_log_path(home: Path, session_id: str) -> Path:
    """Where the log of ``session_id`` lives; refuses ids that are not safe file names."""
    if not isinstance(session_id, str) or not _SAFE_ID.match(session_id):
        raise BadInputError(f"session log: session id {session_id!r} is not a valid session id.")
    return home / "sessions" / f"session_{session_id}.json"


def _iso(value: Any, what: str, session_id: str) -> str:
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return moment.astimezone(timezone.utc).isoformat()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return datetime.fromtimestamp(value, timezone.utc).isoformat()
    if isinstance(value, str):
        try:
            datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            return value
    raise BadInputError(f"session log {session_id}: {what} is {value!r}; expected epoch seconds or an ISO-8601 time.")


def _snapshot_fields(snapshot: SessionLogSnapshot | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(snapshot, SessionLogSnapshot):
        return asdict(snapshot)
    if not isinstance(snapshot, Mapping):
        raise BadInputError(f"session log: expected a snapshot or a mapping, not {type(snapshot).__name__}.")
    missing = [key for key in _REQUIRED if key not in snapshot]
    if missing:
        raise BadInputError(f"session log {snapshot.get('session_id', '?')}: missing {', '.join(missing)}.")
    defaults = asdict(SessionLogSnapshot(session_id="", model="", session_start=0.0, messages=[]))
    unknown = sorted(set(snapshot) - set(defaults) - {"message_count"})
    if unknown:
        raise BadInputError(f"session log {snapshot['session_id']}: unknown field {unknown[0]!r}.")
    return {**defaults, **{k: v for k, v in snapshot.items() if k != "message_count"}}


def _entry(fields: dict[str, Any], redactor: Callable[[str], str] | None) -> dict[str, Any]:
    sid = fields["session_id"]
    messages = fields["messages"]
    if not isinstance(messages, list):
        raise BadInputError(f"session log {sid}: messages must be a list, not {type(messages).__name__}.")
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            raise BadInputError(f"session log {sid}: messages[{index}] is not an object.")
    if not isinstance(fields["tools"], list):
        raise BadInputError(f"session log {sid}: tools must be a list, not {type(fields['tools']).__name__}.")
    texts = {
        "base_url": fields["base_url"],
        "system_prompt": fields["system_prompt"] or "",
        "messages": messages,
    }
    if redactor is not None:
        texts = redact_obj(texts, redactor)
    updated = fields["last_updated"]
    return {
        "session_id": sid,
        "model": fields["model"],
        "base_url": texts["base_url"],
        "platform": fields["platform"],
        "session_start": _iso(fields["session_start"], "session_start", sid),
        "last_updated": _iso(now() if updated is None else updated, "last_updated", sid),
        "system_prompt": texts["system_prompt"],
        "tools": fields["tools"],
        "message_count": len(messages),
        "messages": texts["messages"],
    }


def _existing_count(path: Path) -> int | None:
    """Message count of the log already at ``path``; ``None`` when it is not a readable log."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    count = data.get("message_count")
    if isinstance(count, int) and not isinstance(count, bool):
        return count
    messages = data.get("messages")
    return len(messages) if isinstance(messages, list) else None


def _back_up(path: Path) -> Path:
    stamp = datetime.fromtimestamp(now(), timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    backup = path.with_name(f"{path.name}.bak.{stamp}")
    serial = 1
    while backup.exists():
        backup = path.with_name(f"{path.name}.bak.{stamp}.{serial}")
        serial += 1
    os.replace(path, backup)
    return backup


def write_session_log(
    home: Path,
    snapshot: SessionLogSnapshot | Mapping[str, Any],
    *,
    redactor: Callable[[str], str] | None,
) -> Path | None:
    """Write the JSON log of one session and return its path.

    Returns ``None`` (writing nothing) when the snapshot has no messages yet or when the log on
    disk holds more messages than the snapshot. ``redactor`` (from
    :func:`engine.security.redact.make_redactor`) is applied to the system prompt, the base URL
    and every string in the messages; ``None`` writes them as they are. A malformed snapshot
    raises :class:`BadInputError` naming the session and field before anything is touched; an
    unwritable folder raises one naming the file.
    """
    fields = _snapshot_fields(snapshot)
    path = session_log_path(home, fields["session_id"])
    entry = _entry(fields, redactor)
    if not entry["messages"]:
        return None
    text = json.dumps(entry, ensure_ascii=False, indent=2, default=str) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            count = _existing_count(path)
            if count is not None and count > entry["message_count"]:
                return None
            if count is None:
                _back_up(path)
        atomic_write_text(path, text)
    except OSError as exc:
        raise BadInputError(f"{path}: cannot write the session log ({exc.strerror or exc}).") from exc
    return path
