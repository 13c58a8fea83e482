"""Curated memory: MEMORY.md (the agent's notes) and USER.md (the user profile).

Two views on purpose (DESIGN.md invariant 1): ``load_snapshot()`` renders the system-prompt
blocks once, frozen for the session so the cached prompt prefix stays byte-identical, while
``add``/``replace``/``remove`` write to disk at once and reach the prompt next session.
Results are the upstream Hermes tool shapes, so the model sees what it was trained against.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from engine.memory import files
from engine.security import describe, scan

if TYPE_CHECKING:
    from engine.config import Config

TARGETS = ("memory", "user")
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}
HEADERS = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}
RULE = "═" * 46
PREVIEW = 80


@dataclass(frozen=True)
class Usage:
    """Characters used of a target's limit; ``text`` is the header form ``67% — 1,474/2,200 chars``."""

    chars: int
    limit: int
    pct: int
    text: str

    @classmethod
    def of(cls, entries: list[str] | tuple[str, ...], limit: int) -> "Usage":
        chars = len(files.serialize(list(entries))) if entries else 0
        pct = min(100, int(chars / limit * 100)) if limit > 0 else 0
        return cls(chars, limit, pct, f"{pct}% — {chars:,}/{limit:,} chars")


def render_block(target: str, entries: list[str] | tuple[str, ...], limit: int) -> str:
    """The system-prompt block of one target; ``""`` when it has no entries (nothing is injected)."""
    if not entries:
        return ""
    usage = Usage.of(entries, limit)
    return f"{RULE}\n{HEADERS[target]} [{usage.text}]\n{RULE}\n{files.serialize(list(entries))}"


def _prompt_safe(entries: list[str], file_name: str) -> list[str]:
    """Entries for the prompt: a poisoned hand edit is replaced by a marker, never injected."""
    safe = []
    for entry in entries:
        hits = scan(entry)
        safe.append(
            f"[BLOCKED: {file_name} entry contained threat pattern(s): {describe(hits)}. "
            "Removed from the system prompt; remove the original with `hermes-tui memory remove`.]"
            if hits
            else entry
        )
    return safe


@dataclass(frozen=True)
class MemorySnapshot:
    """What a session saw at load: entries as on disk and the blocks rendered from them."""

    memory_entries: tuple[str, ...]
    user_entries: tuple[str, ...]
    memory_block: str
    user_block: str

    def block(self, target: str) -> str:
        _check_target(target)
        return self.memory_block if target == "memory" else self.user_block

    def render(self) -> str:
        """Both non-empty blocks joined by a blank line ("" when memory is empty)."""
        return "\n\n".join(b for b in (self.memory_block, self.user_block) if b)


def _check_target(target: str) -> None:
    if target not in TARGETS:
        raise ValueError(f"unknown memory target {target!r}; use 'memory' or 'user'")


def _error(message: str, **extra: object) -> dict:
    return {"success": False, "error": message, **extra}


def clean_content(content: object, field: str) -> tuple[str, dict | None]:
    """Stripped content, or an error for empty, separator-only or separator-bearing text."""
    if not isinstance(content, str):
        return "", _error(f"{field} must be a string.")
    text = content.strip()
    if not text.replace("§", "").strip():
        return "", _error(f"{field} cannot be empty or only '§'.")
    if any(line.strip() == "§" for line in text.replace("\r", "\n").split("\n")):
        return "", _error(f"{field} cannot contain a line holding only '§' (the entry separator).")
    return text, None


def threat_error(text: str) -> dict | None:
    hits = scan(text)
    if not hits:
        return None
    return _error(
        f"Blocked: content matches threat pattern(s) {describe(hits)}. Memory is injected into the "
        "system prompt and must not contain injection or exfiltration payloads.",
        threats=[h.pattern_id for h in hits],
    )


class MemoryStore:
    """The two memory files of one home, with character limits per target."""

    def __init__(self, memories_dir: Path, *, memory_limit: int = 2200, user_limit: int = 1375) -> None:
        self.memories_dir = Path(memories_dir)
        self.limits = {"memory": memory_limit, "user": user_limit}

    @classmethod
    def from_config(cls, config: "Config") -> "MemoryStore":
        return cls(
            config.home / "memories",
            memory_limit=int(config.get("memory.memory_char_limit", 2200)),
            user_limit=int(config.get("memory.user_char_limit", 1375)),
        )

    def path(self, target: str) -> Path:
        _check_target(target)
        return self.memories_dir / FILE_NAMES[target]

    # ── reading ──────────────────────────────────────────────────────────────────────────────
    def entries(self, target: str) -> list[str]:
        """Live entries from disk (deduplicated)."""
        return files.read_entries(self.path(target))

    def usage(self, target: str) -> Usage:
        return Usage.of(self.entries(target), self.limits[target])

    def load_snapshot(self) -> MemorySnapshot:
        memory, user = self.entries("memory"), self.entries("user")
        return MemorySnapshot(
            memory_entries=tuple(memory),
            user_entries=tuple(user),
            memory_block=render_block("memory", _prompt_safe(memory, FILE_NAMES["memory"]), self.limits["memory"]),
            user_block=render_block("user", _prompt_safe(user, FILE_NAMES["user"]), self.limits["user"]),
        )

    # ── writing ──────────────────────────────────────────────────────────────────────────────
    def add(self, target: str, content: str) -> dict:
        if target not in TARGETS:
            return _bad_target(target)
        text, problem = clean_content(content, "content")
        if problem or (problem := threat_error(text)):
            return problem
        limit = self.limits[target]

        def change(entries: list[str]) -> tuple[list[str] | None, dict]:
            if text in entries:
                return None, self._success(target, entries, "Entry already exists (no duplicate added).")
            new = entries + [text]
            if len(files.serialize(new)) > limit:
                current = Usage.of(entries, limit).chars
                return None, _error(
                    f"Memory at {current:,}/{limit:,} chars. Adding this entry ({len(text):,} chars) would exceed "
                    "the limit. Consolidate now: use 'replace' to merge overlapping entries into shorter ones or "
                    "'remove' stale or less important entries (see current_entries), then retry.",
                    current_entries=entries,
                    usage=f"{current:,}/{limit:,}",
                )
            return new, self._success(target, new, "Entry added.")

        return files.update_entries(self.path(target), change)

    def replace(self, target: str, old_text: str, content: str) -> dict:
        if target not in TARGETS:
            return _bad_target(target)
        old, problem = clean_content(old_text, "old_text")
        if problem:
            return problem
        text, problem = clean_content(content, "content")
        if problem or (problem := threat_error(text)):
            return problem
        limit = self.limits[target]

        def change(entries: list[str]) -> tuple[list[str] | None, dict]:
            index, problem = _find_one(entries, old, "replace")
            if problem:
                return None, problem
            new = list(entries)
            new[index] = text
            new = list(dict.fromkeys(new))
            total = len(files.serialize(new))
            if total > limit:
                current = Usage.of(entries, limit).chars
                return None, _error(
                    f"Replacement would put memory at {total:,}/{limit:,} chars. Shorten the new content, or "
                    "'remove' other stale entries to make room (see current_entries), then retry.",
                    current_entries=entries,
                    usage=f"{current:,}/{limit:,}",
                )
            return new, self._success(target, new, "Entry replaced.")

        return files.update_entries(self.path(target), change)

    def remove(self, target: str, old_text: str) -> dict:
        if target not in TARGETS:
            return _bad_target(target)
        old, problem = clean_content(old_text, "old_text")
        if problem:
            return problem

        def change(entries: list[str]) -> tuple[list[str] | None, dict]:
            index, problem = _find_one(entries, old, "remove")
            if problem:
                return None, problem
            new = entries[:index] + entries[index + 1 :]
            return new, self._success(target, new, "Entry removed.")

        return files.update_entries(self.path(target), change)

    def _success(self, target: str, entries: list[str], message: str) -> dict:
        return {
            "success": True,
            "target": target,
            "message": message,
            "usage": Usage.of(entries, self.limits[target]).text,
            "entry_count": len(entries),
        }


def _bad_target(target: object) -> dict:
    return _error(f"Invalid target {target!r}. Use 'memory' or 'user'.")


def _find_one(entries: list[str], old: str, verb: str) -> tuple[int, dict | None]:
    """Index of the single entry containing ``old``, or an error for no match / several matches."""
    matches = [i for i, entry in enumerate(entries) if old in entry]
    if not matches:
        return -1, _error(
            f"No entry matched '{old}'. Check current_entries and retry with text from the entry to {verb}.",
            current_entries=entries,
        )
    if len(matches) > 1:
        previews = [entries[i][:PREVIEW] + ("..." if len(entries[i]) > PREVIEW else "") for i in matches]
        return -1, _error(f"Multiple entries matched '{old}'. Be more specific.", matches=previews)
    return matches[0], None
