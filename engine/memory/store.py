"""Curated memory: MEMORY.md (the agent's notes) and USER.md (the user profile).

Two views on purpose (DESIGN.md invariant 1): ``load_snapshot()`` renders the system-prompt
blocks once, frozen for the session so the cached prompt prefix stays byte-identical, while
``add``/``replace``/``remove`` write to disk at once and reach the prompt next session.
Results are the upstream Hermes tool shapes, so the model sees what it was trained against; a
write that changed an entry also carries a ``"change"`` dict (read under the file lock, so it is
exact), which ``undo`` reverses through the same write path.

Limits are enforced on writes, but a hand-edited file can hold anything, so the snapshot guards
the prompt as well: an entry over ``MAX_ENTRY_CHARS`` or failing the threat scan (alone, or read
together with the entry before it, so an attack split in two is seen) enters as a ``[BLOCKED: …]``
marker, and entries enter in file order only while the block fits the limit. Loading never changes
the file; ``prompt_view`` says what was left out and why. Entries echoed back to the model in a
result (``current_entries``, ``matches``) carry the same markers, as upstream's do, so a planted
entry cannot re-enter the conversation through an error. Replace and
remove refuse a file holding text the parser folded into an entry (``files.drift``), since
rewriting the entry would drop that text; an entry over the file's limit is one, so an oversized
entry is fixed by editing the file. They also refuse an entry the history saw grow by lines added
by hand (``_grown_by_hand``), which the size signal misses until the entry outgrows the limit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from engine.memory import files
from engine.memory.history import UNNAMED, Cause, History
from engine.security import ThreatMatch, describe, scan, seam_hits

if TYPE_CHECKING:
    from engine.config import Config

TARGETS = ("memory", "user")
FILE_NAMES = {"memory": "MEMORY.md", "user": "USER.md"}
HEADERS = {"memory": "MEMORY (your personal notes)", "user": "USER PROFILE (who the user is)"}
RULE = "═" * 46
PREVIEW = 80
MAX_ENTRY_CHARS = 65_536
FIX_HINT = "hermes-tui memory remove, or edit the file"
_UNDO_TEXTS = {"add": ("after",), "replace": ("before", "after"), "remove": ("before",)}


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


def _oversized_marker(entry: str, file_name: str) -> str:
    return (
        f"[BLOCKED: {file_name} entry of {len(entry):,} chars exceeds the {MAX_ENTRY_CHARS:,}-char entry "
        "limit. Removed from the system prompt; shorten or remove it by editing the file.]"
    )


def _threat_marker(file_name: str, hits: list[ThreatMatch]) -> str:
    return (
        f"[BLOCKED: {file_name} entry contained threat pattern(s): {describe(hits)}. "
        "Removed from the system prompt; remove the original with `hermes-tui memory remove`.]"
    )


def _entry_hits(entry: str) -> list[ThreatMatch] | None:
    """The entry's scan hits, or ``None`` for an entry too long to scan (length is checked first)."""
    return None if len(entry) > MAX_ENTRY_CHARS else scan(entry)


def _prompt_safe(entry: str, file_name: str, hits: list[ThreatMatch] | None = None) -> str:
    """The entry as the prompt may carry it: an oversized or poisoned hand edit becomes a marker.

    Length is checked first, so a huge entry is never run through the scanner.
    """
    if len(entry) > MAX_ENTRY_CHARS:
        return _oversized_marker(entry, file_name)
    hits = scan(entry) if hits is None else hits
    return _threat_marker(file_name, hits) if hits else entry


@dataclass(frozen=True)
class PromptView:
    """What of one memory file enters the system prompt, and (``warning``) what did not and why.

    ``reasons`` runs beside ``entries``: the hit ids that blocked an entry, ``""`` for one that
    enters as written."""

    entries: tuple[str, ...]
    warning: str | None = None
    reasons: tuple[str, ...] = field(default=(), compare=False)


def build_prompt_view(target: str, entries: list[str], limit: int) -> PromptView:
    """Prompt-safe entries in file order while the serialized block stays within ``limit``.

    An entry costs the room of its marker or itself, whichever is smaller, so a file within its
    limit always enters whole and its prompt bytes stay what they always were. Entries after the
    first that does not fit are neither scanned nor shown. Each entry is also scanned joined to
    the one before it: a hit that only the pair has (an attack split in two) blocks both, as
    ``<id>.split``. The scanner is deterministic, so the same file always gives the same prompt.
    """
    file_name = FILE_NAMES[target]
    shown: list[str] = []
    reasons: list[str] = []
    hits_before: list[ThreatMatch] | None = None
    room = 0
    for index, entry in enumerate(entries):
        hits = _entry_hits(entry)
        if shown and hits is not None and hits_before is not None:
            split, _ = seam_hits(entries[index - 1], entry, hits_before, hits)
            if split:
                hits = hits + split
                if not reasons[-1]:  # the entry before enters as a marker now; it costs no more room
                    shown[-1] = _threat_marker(file_name, hits_before + split)
                    reasons[-1] = describe(hits_before + split)
        safe = _oversized_marker(entry, file_name) if hits is None else _prompt_safe(entry, file_name, hits)
        cost = min(len(entry), len(safe)) + (len(files.SEPARATOR) if shown else 0)
        if room + cost > limit:
            break
        shown.append(safe)
        reasons.append("" if safe == entry else describe(hits) if hits else "oversized")
        hits_before = hits
        room += cost
    return PromptView(tuple(shown), _view_warning(file_name, entries, shown, limit), tuple(reasons))


def display_entries(target: str, entries: list[str]) -> list[str]:
    """``entries`` as a result may echo them to the model: blocked ones as their markers.

    The same rule as the prompt (neighbours included), with no limit: a poisoned entry the
    snapshot blocked must not come back through ``current_entries`` or ``matches``.
    """
    view = build_prompt_view(target, entries, limit=1 << 62)
    return list(view.entries)


def _view_warning(file_name: str, entries: list[str], shown: list[str], limit: int) -> str | None:
    """One sentence for the user when the prompt does not carry the file as it is; else ``None``."""
    if len(shown) < len(entries):
        held = Usage.of(entries, limit).chars
        part = (
            f"only the first {len(shown):,} of {len(entries):,} entries ({len(files.serialize(shown)):,} chars) enter"
            if shown
            else "none of its entries enter"
        )
        return (
            f"{file_name} holds {held:,} chars, over its {limit:,}-char limit: {part} the system prompt; "
            f"trim it ({FIX_HINT})."
        )
    oversized = [len(entry) for entry in entries if len(entry) > MAX_ENTRY_CHARS]
    if len(oversized) == 1:
        return (
            f"{file_name} has an entry of {oversized[0]:,} chars, over the {MAX_ENTRY_CHARS:,}-char entry limit: "
            "a [BLOCKED] marker stands in for it in the system prompt; shorten or remove it by editing the file."
        )
    if oversized:
        return (
            f"{file_name} has {len(oversized)} entries over the {MAX_ENTRY_CHARS:,}-char entry limit (the longest "
            f"{max(oversized):,} chars): [BLOCKED] markers stand in for them in the system prompt; shorten or "
            "remove them by editing the file."
        )
    return None


@dataclass(frozen=True)
class MemorySnapshot:
    """What a session saw at load: entries as on disk and the blocks rendered from them."""

    memory_entries: tuple[str, ...]
    user_entries: tuple[str, ...]
    memory_block: str
    user_block: str
    warnings: tuple[str, ...] = ()  # one sentence per file the blocks do not carry as it is

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
    """Stripped content with its line breaks as the file reads them back (a CR or CRLF is a
    newline there, so the entry and its history record stay equal), or an error for empty,
    separator-only or separator-bearing text."""
    if not isinstance(content, str):
        return "", _error(f"{field} must be a string.")
    text = content.replace("\r\n", "\n").replace("\r", "\n").strip()
    if not text.replace("§", "").strip():
        return "", _error(f"{field} cannot be empty or only '§'.")
    if any(line.strip() == "§" for line in text.split("\n")):
        return "", _error(f"{field} cannot contain a line holding only '§' (the entry separator).")
    return text, None


def threat_error(text: str) -> dict | None:
    """The one-line refusal of a write whose text the scanner flags, naming each hit's family id."""
    hits = scan(text)
    return _blocked("content", hits) if hits else None


def seam_error(entries: list[str], index: int, text: str) -> dict | None:
    """The refusal of ``text`` written at ``index`` when it and an entry beside it form an attack.

    Each half of an attack split across two entries can pass alone; read together (as the
    prompt reads them) they do not.
    """
    split: list[ThreatMatch] = []
    if index > 0:
        split += seam_hits(entries[index - 1], text)[0]
    if index + 1 < len(entries):
        split += seam_hits(text, entries[index + 1])[0]
    return _blocked("content together with the entry beside it", split) if split else None


def _blocked(what: str, hits: list[ThreatMatch]) -> dict:
    return _error(
        f"Blocked: {what} matches threat pattern(s) {describe(hits)}. Memory is injected into the "
        "system prompt and must not contain injection or exfiltration payloads.",
        threats=[h.pattern_id for h in hits],
    )


class MemoryStore:
    """The two memory files of one home, with character limits per target."""

    def __init__(self, memories_dir: Path, *, memory_limit: int = 2200, user_limit: int = 1375) -> None:
        self.memories_dir = Path(memories_dir)
        self.limits = {"memory": memory_limit, "user": user_limit}
        self.history = History(self.memories_dir)

    @classmethod
    def from_config(cls, config: "Config") -> "MemoryStore":
        return cls(
            config.home / "memories",
            memory_limit=config.memory.memory_char_limit,
            user_limit=config.memory.user_char_limit,
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

    def prompt_view(self, target: str) -> PromptView:
        """What of the file on disk a new session's prompt would carry (for the UI's warning)."""
        return build_prompt_view(target, self.entries(target), self.limits[target])

    def load_snapshot(self) -> MemorySnapshot:
        memory, user = self.entries("memory"), self.entries("user")
        views = {"memory": build_prompt_view("memory", memory, self.limits["memory"]),
                 "user": build_prompt_view("user", user, self.limits["user"])}
        return MemorySnapshot(
            memory_entries=tuple(memory),
            user_entries=tuple(user),
            memory_block=render_block("memory", views["memory"].entries, self.limits["memory"]),
            user_block=render_block("user", views["user"].entries, self.limits["user"]),
            warnings=tuple(view.warning for view in views.values() if view.warning),
        )

    # ── writing ──────────────────────────────────────────────────────────────────────────────
    def add(self, target: str, content: str, *, cause: Cause = UNNAMED) -> dict:
        if target not in TARGETS:
            return _bad_target(target)
        text, problem = clean_content(content, "content")
        if problem or (problem := threat_error(text)):
            return problem
        return self._update(target, lambda entries: self._append(target, entries, text), cause)

    def replace(self, target: str, old_text: str, content: str, *, cause: Cause = UNNAMED) -> dict:
        if target not in TARGETS:
            return _bad_target(target)
        old, problem = clean_content(old_text, "old_text")
        if problem:
            return problem
        text, problem = clean_content(content, "content")
        if problem or (problem := threat_error(text)):
            return problem

        def change(entries: list[str]) -> tuple[list[str] | None, dict]:
            index, problem = _find_one(target, entries, old, "replace")
            if problem or (problem := self._grown_by_hand(target, entries[index])):
                return None, problem
            return self._put(target, entries, index, text, "Entry replaced.")

        return self._update(target, change, cause, drift=True)

    def remove(self, target: str, old_text: str, *, cause: Cause = UNNAMED) -> dict:
        if target not in TARGETS:
            return _bad_target(target)
        old, problem = clean_content(old_text, "old_text")
        if problem:
            return problem

        def change(entries: list[str]) -> tuple[list[str] | None, dict]:
            index, problem = _find_one(target, entries, old, "remove")
            if problem or (problem := self._grown_by_hand(target, entries[index])):
                return None, problem
            return self._drop(target, entries, index, "Entry removed.")

        return self._update(target, change, cause, drift=True)

    def _grown_by_hand(self, target: str, entry: str) -> dict | None:
        """The drift refusal when ``entry`` holds lines added by hand to an entry this app wrote,
        which its replace or remove would drop; ``None`` otherwise (call under the file's lock).

        ``files.drift`` (upstream's signal) sees text appended without a '§' line only once the
        entry outgrows the whole file's limit; the history sees it at once: the entry's latest
        record is a hand edit that kept an entry's text and added lines to it.
        """
        made = self.history.origin(target, entry)
        if made is None or made.actor != "hand_edit" or not made.before or made.before not in entry:
            return None
        if entry.count("\n") <= made.before.count("\n"):
            return None  # reworded or extended on its own line: one note still
        path = self.path(target)
        start = made.before[:PREVIEW] + ("..." if len(made.before) > PREVIEW else "")
        reason = (f"the entry {start!r} had lines added to it by hand "
                  f"({len(made.before):,} → {len(entry):,} chars) with no '§' line between them")
        return files.drift_refusal(path, files.read_text(path), reason)

    def undo(self, change: dict, *, cause: Cause = UNNAMED) -> dict:
        """Reverse one ``change`` of a write result; scanner, limits and duplicates apply as to any write.

        The entry a change wrote is found by exact equality, so an entry edited since is never
        mistaken for it: the undo then fails and writes nothing.
        """
        problem = _undo_problem(change)
        if problem:
            return _error(problem)
        action, target = change["action"], change["target"]
        if action == "remove":
            return self.add(target, change["before"], cause=cause)
        return self._revert(target, action, change["after"], change["before"] if action == "replace" else None, cause)

    def _revert(self, target: str, action: str, after: str, before: str | None, cause: Cause) -> dict:
        """The entry exactly equal to ``after`` becomes ``before`` again (is removed when ``None``).

        No drift guard: only an entry equal to what this app wrote is touched, so no text added by
        hand can be dropped.
        """
        if before is not None:
            before, problem = clean_content(before, "before")
            if problem or (problem := threat_error(before)):
                return problem

        def edit(entries: list[str]) -> tuple[list[str] | None, dict]:
            if after not in entries:
                return None, _error(
                    f"Cannot undo this {action}: the entry it wrote is no longer in memory ({FILE_NAMES[target]}); "
                    "it was edited or removed since. Nothing was changed.",
                    current_entries=display_entries(target, entries),
                )
            index = entries.index(after)
            if before is None:
                return self._drop(target, entries, index, "Entry removed (add undone).")
            return self._put(target, entries, index, before, "Entry restored (replace undone).")

        return self._update(target, edit, cause)

    def sync_history(self) -> list[str]:
        """Record hand edits made to either file since its last recorded write; one warning per
        file that could not be checked (a read-only home still shows its history)."""
        problems = []
        for target in TARGETS:
            path = self.path(target)
            try:
                with files.locked(path):
                    self.history.sync(target, files.read_entries(path))
            except files.MemoryFileError as exc:
                problems.append(str(exc))
        return problems

    # ── one write, recorded ──────────────────────────────────────────────────────────────────
    def _update(self, target: str, change: Callable[[list[str]], tuple[list[str] | None, dict]],
                cause: Cause, *, drift: bool = False) -> dict:
        """Run ``change`` under the file's lock with the history in step: a hand edit found first is
        recorded as one, then the write itself for ``cause`` (its id goes back as ``change_id``)."""

        def checked(entries: list[str]) -> tuple[list[str] | None, dict]:
            self.history.sync(target, entries)
            return change(entries)

        def recorded(new: list[str], result: dict) -> dict:
            if "change" not in result:
                return result
            return {**result, "change_id": self.history.record_write(target, result["change"], new, cause).id}

        result = files.update_entries(self.path(target), checked, drift_limit=self.limits[target] if drift else None,
                                      written=recorded)
        if result.get("success") and "change_id" not in result and cause.pending is not None:
            decision = self.history.record_decision(target, "approve", cause, cause.pending)  # a duplicate: no change
            result = {**result, "change_id": decision.id}
        return result

    # ── one write, inside the lock ───────────────────────────────────────────────────────────
    def _append(self, target: str, entries: list[str], text: str) -> tuple[list[str] | None, dict]:
        if text in entries:
            return None, self._success(target, entries, "Entry already exists (no duplicate added).")
        limit = self.limits[target]
        new = entries + [text]
        if problem := seam_error(new, len(entries), text):
            return None, problem
        if len(files.serialize(new)) > limit:
            current = Usage.of(entries, limit).chars
            return None, _error(
                f"Memory at {current:,}/{limit:,} chars. Adding this entry ({len(text):,} chars) would exceed "
                "the limit. Consolidate now: use 'replace' to merge overlapping entries into shorter ones or "
                "'remove' stale or less important entries (see current_entries), then retry.",
                current_entries=display_entries(target, entries),
                usage=f"{current:,}/{limit:,}",
            )
        return self._written(target, entries, new, "Entry added.")

    def _put(
        self, target: str, entries: list[str], index: int, text: str, message: str
    ) -> tuple[list[str] | None, dict]:
        limit = self.limits[target]
        new = list(entries)
        new[index] = text
        if problem := seam_error(new, index, text):
            return None, problem
        new = list(dict.fromkeys(new))
        total = len(files.serialize(new))
        if total > limit:
            current = Usage.of(entries, limit).chars
            return None, _error(
                f"Replacement would put memory at {total:,}/{limit:,} chars. Shorten the new content, or "
                "'remove' other stale entries to make room (see current_entries), then retry.",
                current_entries=display_entries(target, entries),
                usage=f"{current:,}/{limit:,}",
            )
        return self._written(target, entries, new, message)

    def _drop(self, target: str, entries: list[str], index: int, message: str) -> tuple[list[str], dict]:
        return self._written(target, entries, entries[:index] + entries[index + 1 :], message)

    def _written(self, target: str, entries: list[str], new: list[str], message: str) -> tuple[list[str], dict]:
        """``new`` to write, and its success result carrying the change it makes (if any)."""
        result = self._success(target, new, message)
        change = _change(target, entries, new)
        if change is not None:
            result["change"] = change
        return new, result

    def _success(self, target: str, entries: list[str], message: str) -> dict:
        return {
            "success": True,
            "target": target,
            "message": message,
            "usage": Usage.of(entries, self.limits[target]).text,
            "entry_count": len(entries),
        }


def _change(target: str, entries: list[str], new: list[str]) -> dict | None:
    """What a write does to the entries, as one undoable step; ``None`` when it changes none.

    Derived from the lists themselves, so it is exact even in corner cases: a replace whose new
    text already is another entry only drops the old one, and is recorded as a remove.
    """
    old_set, new_set = set(entries), set(new)
    gone = next((entry for entry in entries if entry not in new_set), None)
    came = next((entry for entry in new if entry not in old_set), None)
    if gone is None and came is None:
        return None
    if gone is None:
        action = "add"
    elif came is None:
        action = "remove"
    else:
        action = "replace"
    return {"action": action, "target": target, "before": gone, "after": came}


def _undo_problem(change: object) -> str | None:
    """Why ``change`` is not a change dict ``undo`` can reverse, or ``None``."""
    if not isinstance(change, dict):
        return f"Cannot undo: the change must be a dict, not {type(change).__name__}."
    action, target = change.get("action"), change.get("target")
    if action not in _UNDO_TEXTS:
        return f"Cannot undo: unknown action {action!r}; expected add, replace or remove."
    if target not in TARGETS:
        return f"Cannot undo: unknown target {target!r}; expected 'memory' or 'user'."
    for key in _UNDO_TEXTS[action]:
        text = change.get(key)
        if not isinstance(text, str) or not text.strip():
            return f"Cannot undo this {action}: change[{key!r}] must be the entry text, not {text!r}."
    return None


def _bad_target(target: object) -> dict:
    return _error(f"Invalid target {target!r}. Use 'memory' or 'user'.")


def _find_one(target: str, entries: list[str], old: str, verb: str) -> tuple[int, dict | None]:
    """Index of the single entry containing ``old``, or an error for no match / several matches.

    Matching reads the entries as written (a blocked entry can still be removed by its text);
    what the error echoes is ``display_entries``."""
    matches = [i for i, entry in enumerate(entries) if old in entry]
    if not matches:
        return -1, _error(
            f"No entry matched '{old}'. Check current_entries and retry with text from the entry to {verb}.",
            current_entries=display_entries(target, entries),
        )
    if len(matches) > 1:
        shown = display_entries(target, entries)
        previews = [shown[i][:PREVIEW] + ("..." if len(shown[i]) > PREVIEW else "") for i in matches]
        return -1, _error(f"Multiple entries matched '{old}'. Be more specific.", matches=previews)
    return matches[0], None
