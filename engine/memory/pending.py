"""Staged memory writes awaiting the user's review: ``<home>/pending/memory/<8 hex>.json``.

The record format is upstream Hermes's, byte for byte in shape, so records staged by Hermes are
listed and applied here and ours by Hermes. Approval *replays* the write through the store, so
the scanner and limits are checked again against today's files; a replay that fails keeps the
record and says why.
"""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine import clock
from engine.atomic import atomic_write_text
from engine.errors import BadInputError, NotFoundError
from engine.memory.store import TARGETS, MemoryStore

ORIGINS = ("foreground", "background_review")
ACTIONS = ("add", "replace", "remove")
ID_RE = re.compile(r"^[0-9a-f]{8}$")
_VERBS = {"add": "add to", "replace": "replace in", "remove": "remove from"}
SUMMARY_DETAIL = 120


def summarize(payload: dict[str, Any]) -> str:
    """Upstream's one-line summary: ``add to memory: <content>`` / ``replace in user: <content>``."""
    action = payload.get("action", "")
    detail = payload.get("old_text") if action == "remove" else payload.get("content")
    return f"{_VERBS.get(action, action)} {payload.get('target', '')}: {(detail or '')[:SUMMARY_DETAIL]}".strip()


@dataclass(frozen=True)
class PendingRecord:
    """One staged write; field order is the on-disk key order."""

    id: str
    action: str
    summary: str
    origin: str
    created_at: float
    payload: dict[str, Any]
    subsystem: str = field(default="memory")

    @property
    def auto(self) -> bool:
        """Staged by the background review rather than a foreground turn."""
        return self.origin == "background_review"

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        return {k: data[k] for k in ("id", "subsystem", "action", "summary", "origin", "created_at", "payload")}

    def line(self) -> str:
        """The listing line: ``  <id> [auto]  <summary>``."""
        return f"  {self.id}{' [auto]' if self.auto else ''}  {self.summary}"

    @classmethod
    def from_dict(cls, data: Any) -> "PendingRecord":
        """Validate a decoded record; ``ValueError`` names the first thing wrong."""
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        payload = data.get("payload")
        if not isinstance(payload, dict):
            raise ValueError("payload is missing or not an object")
        if payload.get("action") not in ACTIONS:
            raise ValueError(f"payload.action is {payload.get('action')!r}, not add, replace or remove")
        if payload.get("target") not in TARGETS:
            raise ValueError(f"payload.target is {payload.get('target')!r}, not memory or user")
        if not isinstance(data.get("id"), str) or not ID_RE.match(data["id"]):
            raise ValueError(f"id is {data.get('id')!r}, not 8 hex digits")
        created = data.get("created_at", 0)
        if isinstance(created, bool) or not isinstance(created, (int, float)):
            raise ValueError(f"created_at is {created!r}, not a number")
        return cls(
            id=data["id"],
            subsystem=str(data.get("subsystem", "memory")),
            action=str(data.get("action") or payload["action"]),
            summary=str(data.get("summary") or summarize(payload)),
            origin=str(data.get("origin") or "foreground"),
            created_at=float(created),
            payload=payload,
        )


def replay(payload: dict[str, Any], store: MemoryStore) -> dict:
    """Apply a staged payload through the store (scanner and limits included)."""
    action, target = payload.get("action"), payload.get("target")
    if action == "add":
        return store.add(target, payload.get("content"))
    if action == "replace":
        return store.replace(target, payload.get("old_text"), payload.get("content"))
    if action == "remove":
        return store.remove(target, payload.get("old_text"))
    return {"success": False, "error": f"Unknown staged action {action!r}."}


class PendingQueue:
    """The pending-approval folder of one home."""

    def __init__(self, home: Path) -> None:
        self.folder = Path(home) / "pending" / "memory"

    def _path(self, record_id: str) -> Path:
        if not ID_RE.match(record_id):
            raise NotFoundError(f"no pending memory write with id {record_id!r} (ids are 8 hex digits).")
        return self.folder / f"{record_id}.json"

    def stage(self, payload: dict, *, origin: str) -> PendingRecord:
        if origin not in ORIGINS:
            raise BadInputError(f"origin {origin!r} is not one of {', '.join(ORIGINS)}.")
        clean = {k: payload[k] for k in ("action", "target", "content", "old_text") if payload.get(k) is not None}
        self.folder.mkdir(parents=True, exist_ok=True)
        record_id = secrets.token_hex(4)
        while (self.folder / f"{record_id}.json").exists():
            record_id = secrets.token_hex(4)
        record = PendingRecord.from_dict(
            {"id": record_id, "action": clean.get("action"), "summary": summarize(clean), "origin": origin,
             "created_at": clock.now(), "payload": clean}
        )
        atomic_write_text(self._path(record_id), json.dumps(record.to_dict(), indent=2, ensure_ascii=False))
        return record

    def list(self) -> tuple[list[PendingRecord], list[str]]:
        """Records oldest first, and one warning per file skipped as unreadable."""
        records: list[PendingRecord] = []
        warnings: list[str] = []
        if not self.folder.is_dir():
            return records, warnings
        for path in sorted(self.folder.glob("*.json")):
            try:
                records.append(PendingRecord.from_dict(json.loads(path.read_text(encoding="utf-8-sig"))))
            except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError is a ValueError
                warnings.append(f"skipped {path}: {exc}")
        records.sort(key=lambda r: (r.created_at, r.id))
        return records, warnings

    def count(self) -> int:
        return len(self.list()[0])

    def get(self, record_id: str) -> PendingRecord:
        path = self._path(record_id)
        try:
            return PendingRecord.from_dict(json.loads(path.read_text(encoding="utf-8-sig")))
        except FileNotFoundError:
            raise NotFoundError(f"no pending memory write with id {record_id!r} in {self.folder}.") from None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise BadInputError(f"{path}: unreadable pending record ({exc}).") from exc

    def approve(self, record_id: str, store: MemoryStore) -> dict:
        """Replay the write; on success the record is deleted, on failure it is kept."""
        record = self.get(record_id)
        result = {**replay(record.payload, store), "pending_id": record.id}
        if result.get("success"):
            self._path(record.id).unlink(missing_ok=True)
        return result

    def reject(self, record_id: str) -> None:
        self.get(record_id)  # NotFoundError for unknown ids, before anything is deleted
        self._path(record_id).unlink(missing_ok=True)

    def approve_all(self, store: MemoryStore) -> list[dict]:
        """One result per record, oldest first; failed replays keep their records."""
        return [self.approve(record.id, store) for record in self.list()[0]]

    def reject_all(self) -> int:
        """Delete every readable record (unreadable files are left for the user); the count."""
        records = self.list()[0]
        for record in records:
            self._path(record.id).unlink(missing_ok=True)
        return len(records)
