"""The ``memory`` tool the model calls: its schema, the guidance text, and the handler.

The handler validates and scans *before* the gate, so a malformed or poisoned write is refused
at once instead of being staged and failing only at approval time. Errors are ones the model can
recover from, as upstream's: a replace or remove without ``old_text`` comes back with the current
entries and usage, and a null target means 'memory'. Results are upstream's shape: the store's
``"change"`` (ours, for undo) is left out of what the model sees.
"""

from __future__ import annotations

from typing import Any

from engine.errors import HermesError
from engine.memory.gate import MemoryWriteGate
from engine.memory.history import Cause
from engine.memory.pending import ACTIONS, ORIGINS, replay
from engine.memory.store import TARGETS, MemoryStore, Usage, clean_content, display_entries, threat_error

MEMORY_GUIDANCE = (
    "You have persistent memory across sessions (the MEMORY and USER PROFILE blocks above are a "
    "snapshot taken when this session started). Save durable facts with the memory tool: the user's "
    "preferences, corrections and personal details go to target 'user'; stable facts about the "
    "environment, project conventions and tool quirks go to target 'memory'. Save proactively when "
    "you learn something that stops the user repeating themselves. Never save task progress, "
    "completed-work logs, commit SHAs, PR numbers, one-off results, temporary TODOs, raw logs or "
    "secrets (API keys, tokens, passwords) — past work is found with session_search, not memory. "
    "Keep entries short and dense; when memory is nearly full, merge entries with 'replace' or drop "
    "stale ones with 'remove' before adding."
)

MEMORY_TOOL_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "memory",
        "description": (
            "Save durable facts to persistent memory that survives across sessions and is injected "
            "into every future system prompt. Targets: 'user' = who the user is (name, role, "
            "preferences, style); 'memory' = your notes (environment, conventions, tool quirks). "
            "Actions: add (content), replace (old_text = a short unique substring of the entry, "
            "content = the new entry), remove (old_text). Changes apply to disk at once and appear "
            "in the prompt next session. Skip trivial or easily re-discovered facts, task progress, "
            "commit SHAs, one-off results and secrets."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": list(ACTIONS), "description": "What to do."},
                "target": {
                    "type": "string",
                    "enum": list(TARGETS),
                    "description": "'memory' for your notes, 'user' for the user profile.",
                },
                "content": {"type": "string", "description": "The entry text. Required for add and replace."},
                "old_text": {
                    "type": "string",
                    "description": "A short unique substring of the existing entry. Required for replace and remove.",
                },
            },
            "required": ["action", "target"],
        },
    },
}

STAGED_MESSAGE = (
    "Staged for approval (memory.write_approval is on). Not yet saved — the user reviews it with "
    "`hermes-tui memory pending`."
)
DENIED_MESSAGE = "Memory write denied by user. The change was not saved."


def _error(message: str) -> dict:
    return {"success": False, "error": message}


def _for_model(result: dict) -> dict:
    """A copy of a store result without ``"change"`` and its history id: the model is shown
    upstream's shape only."""
    return {key: value for key, value in result.items() if key not in ("change", "change_id")}


def _action_target(arguments: Any) -> tuple[dict, dict | None]:
    """``{"action", "target"}`` of a call, or an error; a null or missing target is 'memory' (upstream)."""
    if not isinstance(arguments, dict):
        return {}, _error("Arguments must be a JSON object.")
    action, target = arguments.get("action"), arguments.get("target")
    if target is None:  # strict providers send null for an optional field they leave out
        target = "memory"
    if action not in ACTIONS:
        return {}, _error(f"Unknown action {action!r}. Use: add, replace, remove.")
    if target not in TARGETS:
        return {}, _error(f"Invalid target {target!r}. Use 'memory' or 'user'.")
    return {"action": action, "target": target}, None


def _lacks_old_text(action: str, arguments: dict) -> bool:
    """A replace or remove whose ``old_text`` is missing, null or blank: nothing says which entry."""
    old_text = arguments.get("old_text")
    blank = old_text is None or (isinstance(old_text, str) and not old_text.strip())
    return action in ("replace", "remove") and blank


def _validate(head: dict, arguments: dict) -> tuple[dict, dict | None]:
    """The payload to replay (``head`` plus the cleaned texts), or an error naming the bad argument."""
    action = head["action"]
    payload: dict[str, Any] = dict(head)
    if action in ("add", "replace"):
        content, problem = clean_content(arguments.get("content"), "content")
        if problem or (problem := threat_error(content)):
            return {}, problem
        payload["content"] = content
    if action in ("replace", "remove"):
        old_text, problem = clean_content(arguments.get("old_text"), "old_text")
        if problem:
            return {}, problem
        payload["old_text"] = old_text
    return payload, None


class MemoryTool:
    """What the agent calls for the ``memory`` tool; returns the result dict for the model."""

    schema = MEMORY_TOOL_SCHEMA

    def __init__(self, store: MemoryStore, gate: MemoryWriteGate) -> None:
        self.store = store
        self.gate = gate

    def handle(self, arguments: dict, *, origin: str = "foreground", session_id: str | None = None,
               message_id: int | None = None) -> dict:
        """``session_id``/``message_id``: the session and stored message whose call this is, for
        the memory history (a background review gives the session and the last message it read)."""
        if origin not in ORIGINS:
            return _error(f"Invalid origin {origin!r}; expected {' or '.join(ORIGINS)}.")
        cause = Cause("model" if origin == "foreground" else "background_review", session_id, message_id)
        head, problem = _action_target(arguments)
        if problem:
            return problem
        try:
            if _lacks_old_text(head["action"], arguments):
                return self._old_text_needed(head["action"], head["target"])
            payload, problem = _validate(head, arguments)
            if problem:
                return problem
            outcome = self.gate.check(payload, origin=origin, cause=cause)
            if outcome.record is not None:
                return {"success": True, "staged": True, "pending_id": outcome.record.id, "message": STAGED_MESSAGE}
            if not outcome.allow:
                return _error(DENIED_MESSAGE)
            return _for_model(replay(payload, self.store, cause))
        except HermesError as exc:  # a disk problem becomes a tool error, never a crashed turn
            return _error(str(exc))

    def _old_text_needed(self, action: str, target: str) -> dict:
        """Upstream's recoverable error: what is missing, plus the entries to pick ``old_text`` from."""
        entries = self.store.entries(target)
        usage = Usage.of(entries, self.store.limits[target])
        return {
            **_error(
                f"'{action}' needs old_text: a short unique substring of the entry to {action}, and none was "
                f"given. Call {action} again with old_text set to part of one of current_entries."
            ),
            "current_entries": display_entries(target, entries),
            "usage": f"{usage.chars:,}/{usage.limit:,}",
        }
