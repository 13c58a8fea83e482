"""Staged memory writes awaiting the user's review: ``<home>/pending/memory/<8 hex>.json``.

The record format is upstream Hermes's, byte for byte in shape, so records staged by Hermes are
listed and applied here and ours by Hermes. Approval *replays* the write through the store, so
the scanner and limits are checked again against today's files; a replay that fails keeps the
record and says why.

Several processes may decide the same record (two TUIs, the CLI), so deciding is a claim: the
decider renames ``<id>.json`` to ``.<id>.json.claim-<pid>-<hex>`` in the same folder, which
``os.rename`` lets exactly one process do (the others are told it is gone), and only the claimant
applies or deletes it. A claim not carried through (a refused or failed replay, an unreadable
record) goes back to ``<id>.json``; one whose process died is put back by ``list()`` once it is
``STALE_CLAIM_S`` old. Going back never overwrites a record filed under that id meanwhile. A file
whose name is not the id it holds is refused, since approve and reject act on the name.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator

from engine import clock
from engine.atomic import atomic_write_text
from engine.errors import BadInputError, NotFoundError, RefusedError
from engine.memory.history import UNNAMED, Cause, History
from engine.memory.store import TARGETS, MemoryStore

ORIGINS = ("foreground", "background_review")
ACTIONS = ("add", "replace", "remove")
ID_RE = re.compile(r"^[0-9a-f]{8}$")
_VERBS = {"add": "add to", "replace": "replace in", "remove": "remove from"}
SUMMARY_DETAIL = 120
STALE_CLAIM_S = 300  # far beyond any live decision: a replay waits at most 10 s for the memory file lock
CLAIM_RE = re.compile(r"^\.([0-9a-f]{8})\.json\.claim-\d+-[0-9a-f]+$")


def summarize(payload: dict[str, Any]) -> str:
    """Upstream's summary, to the byte: ``add to user profile: <content>``, ``remove from memory:
    <old>``, and for a replace ``replace in memory: old: <old>\nnew: <content>`` (two lines; the
    detail is cut at 120 characters as a whole)."""
    action = payload.get("action", "")
    label = "user profile" if payload.get("target") == "user" else "memory"
    content, old_text = payload.get("content") or "", payload.get("old_text") or ""
    if action == "replace":
        detail = f"old: {payload.get('old_text')}\nnew: {payload.get('content')}"
    else:
        detail = old_text if action == "remove" else content
    return f"{_VERBS.get(action, action)} {label}: {detail[:SUMMARY_DETAIL]}".strip()


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


def replay(payload: dict[str, Any], store: MemoryStore, cause: Cause = UNNAMED) -> dict:
    """Apply a staged payload through the store (scanner and limits included)."""
    action, target = payload.get("action"), payload.get("target")
    if action == "add":
        return store.add(target, payload.get("content"), cause=cause)
    if action == "replace":
        return store.replace(target, payload.get("old_text"), payload.get("content"), cause=cause)
    if action == "remove":
        return store.remove(target, payload.get("old_text"), cause=cause)
    return {"success": False, "error": f"Unknown staged action {action!r}."}


def _dumps(record: PendingRecord) -> str:
    return json.dumps(record.to_dict(), indent=2, ensure_ascii=False)


def _decode(path: Path) -> PendingRecord:
    return PendingRecord.from_dict(json.loads(path.read_text(encoding="utf-8-sig")))


def _misnamed(found: str, filed_as: str) -> str:
    """Why a record filed under another id is refused: deciding it would act on the wrong record."""
    return f"it holds id {found!r}, not {filed_as!r}; delete or rename the file"


def _move_no_clobber(src: Path, dst: Path) -> bool:
    """Move ``src`` to ``dst`` unless ``dst`` exists (``os.rename`` would overwrite it): False then.

    A hard link is the atomic way; where the filesystem has none, the check and the rename are two
    steps. ``FileNotFoundError`` when ``src`` is gone.
    """
    try:
        os.link(src, dst)
    except FileExistsError:
        return False
    except FileNotFoundError:
        raise
    except OSError:  # no hard links on this filesystem
        if dst.exists():
            return False
        os.rename(src, dst)
        return True
    os.unlink(src)
    return True


class PendingQueue:
    """The pending-approval folder of one home."""

    def __init__(self, home: Path) -> None:
        self.folder = Path(home) / "pending" / "memory"
        self.history = History(Path(home) / "memories")

    def _path(self, record_id: str) -> Path:
        if not ID_RE.match(record_id):
            raise NotFoundError(f"no pending memory write with id {record_id!r} (ids are 8 hex digits).")
        return self.folder / f"{record_id}.json"

    def _not_found(self, record_id: str) -> NotFoundError:
        return NotFoundError(f"no pending memory write with id {record_id!r} in {self.folder} "
                             "(another process decided it, or it never existed).")

    def _new_claim(self, record_id: str) -> Path:
        return self.folder / f".{record_id}.json.claim-{os.getpid()}-{secrets.token_hex(4)}"

    def _claims(self, record_id: str = "*") -> list[Path]:
        """Claim files, of one id or all; other hidden files (temp files) are not claims."""
        return [p for p in sorted(self.folder.glob(f".{record_id}.json.claim-*")) if CLAIM_RE.match(p.name)]

    def _taken(self, record_id: str) -> bool:
        """A record of that id exists, filed or being decided."""
        return self._path(record_id).exists() or bool(self._claims(record_id))

    def stage(self, payload: dict, *, origin: str, cause: Cause | None = None) -> PendingRecord:
        """File a write for review; the history keeps who proposed it (``cause``) for its approval."""
        if origin not in ORIGINS:
            raise BadInputError(f"origin {origin!r} is not one of {', '.join(ORIGINS)}.")
        clean = {k: payload.get(k) for k in ("action", "target", "content", "old_text")}  # upstream's four keys
        self.folder.mkdir(parents=True, exist_ok=True)
        record_id = secrets.token_hex(4)
        while self._taken(record_id):
            record_id = secrets.token_hex(4)
        record = PendingRecord.from_dict(
            {"id": record_id, "action": clean.get("action"), "summary": summarize(clean), "origin": origin,
             "created_at": clock.now(), "payload": clean}
        )
        atomic_write_text(self._path(record_id), _dumps(record))
        if cause is not None:
            self.history.record_stage(str(clean["target"]), record_id, cause)
        return record

    def restore(self, record: PendingRecord) -> None:
        """File a decided record again, as ``stage`` wrote it (the UI's undo of a reject).

        Refused when a record of that id exists, filed or being decided. It is written as a claim
        and then put back, so no one decides it half-written, and a crash leaves a claim that
        ``list()`` later files.
        """
        if self._taken(record.id):
            raise self._exists(record.id)
        self.folder.mkdir(parents=True, exist_ok=True)
        claim = self._new_claim(record.id)
        atomic_write_text(claim, _dumps(record))
        if not self._release(claim, record.id):
            claim.unlink()
            raise self._exists(record.id)

    def _exists(self, record_id: str) -> RefusedError:
        return RefusedError(f"pending memory write {record_id!r} already exists in {self.folder}; "
                            "restoring it would overwrite that record.")

    def list(self) -> tuple[list[PendingRecord], list[str]]:
        """Records oldest first, and one warning per file skipped; stale claims are put back first."""
        records: list[PendingRecord] = []
        if not self.folder.is_dir():
            return records, []
        warnings = self._recover_stale_claims()
        for path in sorted(self.folder.glob("*.json")):
            try:
                record = _decode(path)
            except FileNotFoundError:
                continue  # claimed by a decider since the glob
            except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError is a ValueError
                warnings.append(f"skipped {path}: {exc}")
                continue
            if record.id == path.stem:
                records.append(record)
            else:
                warnings.append(f"skipped {path}: {_misnamed(record.id, path.stem)}")
        records.sort(key=lambda r: (r.created_at, r.id))
        return records, warnings

    def _recover_stale_claims(self) -> list[str]:
        """File again the records whose decider died mid-decision; a warning per one that cannot be."""
        cutoff = time.time() - STALE_CLAIM_S  # file ages are wall-clock, whatever the engine clock says
        warnings = []
        for claim in self._claims():
            record_id = claim.name[1:9]  # .<8 hex>.json.claim-…
            try:
                kept = self._recover(claim, record_id) if claim.stat().st_mtime <= cutoff else None
            except FileNotFoundError:
                continue  # its decider finished, or another listing put it back
            if kept:
                warnings.append(f"kept {kept}: a decision on {record_id!r} stopped part way, but "
                                f"{self._path(record_id)} exists too; delete whichever is the duplicate")
        return warnings

    def _recover(self, stale: Path, record_id: str) -> Path | None:
        """Take over a stale claim (one taker wins, as for any claim) and put its record back.

        Returns the claim file kept when a record already holds ``<id>.json``.
        """
        if self._path(record_id).exists():
            return stale
        mine = self._new_claim(record_id)
        os.rename(stale, mine)
        return None if self._release(mine, record_id) else mine

    def count(self) -> int:
        return len(self.list()[0])

    def get(self, record_id: str) -> PendingRecord:
        return self._read(self._path(record_id), record_id)

    def _read(self, path: Path, record_id: str) -> PendingRecord:
        """The record filed as ``record_id``, read from ``path`` (its file or its claim).

        ``BadInputError`` names the record file when it is unreadable or holds another id.
        """
        filed = self._path(record_id)
        try:
            record = _decode(path)
        except FileNotFoundError:
            raise self._not_found(record_id) from None
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise BadInputError(f"{filed}: unreadable pending record ({exc}).") from exc
        if record.id != record_id:
            raise BadInputError(f"{filed}: {_misnamed(record.id, record_id)}.")
        return record

    def _claim(self, record_id: str) -> tuple[Path, PendingRecord]:
        """Take the record for this process alone and read it; one that cannot be read goes back."""
        path, claim = self._path(record_id), self._new_claim(record_id)
        try:
            os.utime(path)  # a claim's age is its mtime, and the rename keeps the record's, maybe old, one
            os.rename(path, claim)
        except FileNotFoundError:
            raise self._not_found(record_id) from None
        try:
            return claim, self._read(claim, record_id)
        except BaseException:
            self._release(claim, record_id)
            raise

    def _release(self, claim: Path, record_id: str) -> bool:
        """Put a claimed record back as ``<id>.json``; False, the claim kept, if a record holds that name."""
        try:
            return _move_no_clobber(claim, self._path(record_id))
        except FileNotFoundError:  # a listing took the claim for stale and filed the record already
            return True

    def _claim_each(self) -> Iterator[tuple[Path, PendingRecord]]:
        """Claim the listed records one at a time, skipping those taken or spoiled since the listing."""
        for listed in self.list()[0]:
            try:
                claimed = self._claim(listed.id)
            except (NotFoundError, BadInputError):
                continue  # decided by another process, or now unreadable (the next listing warns)
            yield claimed

    def _apply(self, claim: Path, record: PendingRecord, store: MemoryStore, by: Cause) -> dict:
        """Replay a claimed record (recorded as approved ``by``): deleted when the store took it,
        put back otherwise."""
        applied = False
        try:
            cause = Cause(by.actor, by.session_id, by.message_id, pending=record.to_dict())
            result = {**replay(record.payload, store, cause), "pending_id": record.id}
            applied = bool(result.get("success"))
        finally:
            if applied:
                claim.unlink(missing_ok=True)  # missing only if a listing thought this decision stale
            else:
                self._release(claim, record.id)
        return result

    def approve(self, record_id: str, store: MemoryStore, by: Cause = UNNAMED) -> dict:
        """Replay the write; the store's result, every key kept, plus ``pending_id``.

        On success the record is deleted, on failure it is kept. ``NotFoundError`` when another
        process is deciding or has decided it; ``BadInputError``, nothing applied, when the file is
        unreadable or holds another id.
        """
        return self._apply(*self._claim(record_id), store, by)

    def reject(self, record_id: str, by: Cause = UNNAMED) -> str:
        """Delete the record, under a claim so that a write approved elsewhere is not also rejected;
        the id of the history's record of it."""
        return self._discard(*self._claim(record_id), by)

    def _discard(self, claim: Path, record: PendingRecord, by: Cause) -> str:
        claim.unlink()
        return self.history.record_decision(str(record.payload["target"]), "reject", by, record.to_dict()).id

    def approve_all(self, store: MemoryStore, by: Cause = UNNAMED) -> list[dict]:
        """One result per record, oldest first; failed replays keep their records, and records
        another process took meanwhile are skipped."""
        return [self._apply(claim, record, store, by) for claim, record in self._claim_each()]

    def reject_all(self, by: Cause = UNNAMED) -> int:
        """Delete every readable record (unreadable files are left for the user); the count deleted here."""
        count = 0
        for claim, record in self._claim_each():
            self._discard(claim, record, by)
            count += 1
        return count
