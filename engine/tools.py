"""The tools the model can call, behind one dispatcher that never raises into the turn loop.

Schemas are emitted in a fixed order (memory, session_search, then provider tools) so the
tool block of every request is byte-identical. A bad call — unknown name, arguments that are
not JSON, a handler that fails — becomes a clear error *result* the model can read and act on.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from engine.events import EngineEvent, MemoryStaged, MemoryWritten
from engine.memory import MEMORY_TOOL_SCHEMA, MemoryTool
from engine.memory.pending import summarize

SEARCH_TOOL = "session_search"  # the name the model calls it by (DESIGN.md)
SESSION_SEARCH_SCHEMA: dict = {
    "type": "function",
    "function": {
        "name": SEARCH_TOOL,
        "description": (
            "Search the user's earlier sessions (full-text, any language) for what was said or done "
            "before. Use it before asking the user to repeat something. Returns a focused summary of "
            "each matching session with its id, title and date; the current conversation is excluded."
        ),
        "parameters": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Words or a \"quoted phrase\"; supports OR, NOT and prefix*.",
                },
                "limit": {"type": "integer", "description": "Sessions to summarize (1-5, default 3)."},
            },
            "required": ["query"],
        },
    },
}


@dataclass
class ToolOutcome:
    content: str
    is_error: bool = False
    events: list[EngineEvent] = field(default_factory=list)


def _dump(result: Any) -> str:
    return json.dumps(result, ensure_ascii=False)


class ToolBox:
    """Dispatches the model's tool calls to the memory tool and session search."""

    def __init__(
        self,
        memory_tool: MemoryTool,
        search: Callable[[dict], Any],
    ) -> None:
        self.memory_tool = memory_tool
        self._search = search

    @property
    def schemas(self) -> list[dict]:
        return [MEMORY_TOOL_SCHEMA, SESSION_SEARCH_SCHEMA]

    def call(self, name: str, arguments: str, *, origin: str = "foreground", session_id: str | None = None,
             message_id: int | None = None) -> ToolOutcome:
        """``session_id``/``message_id``: where the call was made, for the memory history."""
        try:
            args = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return ToolOutcome(_dump({"success": False, "error": f"arguments for {name} are not valid JSON ({exc.msg} at char {exc.pos}); send a JSON object."}), True)
        if not isinstance(args, dict):
            return ToolOutcome(_dump({"success": False, "error": f"arguments for {name} must be a JSON object."}), True)
        try:
            if name == "memory":
                return self._memory(args, origin, session_id, message_id)
            if name == SEARCH_TOOL:
                return ToolOutcome(_dump(self._search(args)))
        except Exception as exc:  # noqa: BLE001 - a failing tool is reported to the model, not raised
            return ToolOutcome(_dump({"success": False, "error": f"{name} failed: {exc}"}), True)
        known = ", ".join(s["function"]["name"] for s in self.schemas)
        return ToolOutcome(_dump({"success": False, "error": f"unknown tool {name!r}; available tools: {known}."}), True)

    def _memory(self, args: dict, origin: str, session_id: str | None, message_id: int | None) -> ToolOutcome:
        result = self.memory_tool.handle(args, origin=origin, session_id=session_id, message_id=message_id)
        events: list[EngineEvent] = []
        if result.get("staged"):
            events.append(MemoryStaged(str(result.get("pending_id", "")), summarize(args), origin))
        elif result.get("success"):
            events.append(
                MemoryWritten(
                    target=str(args.get("target", "")),
                    action=str(args.get("action", "")),
                    origin=origin,
                    usage=str(result.get("usage", "")),
                    preview=str(args.get("content") or args.get("old_text") or "")[:120],
                )
            )
        return ToolOutcome(_dump(result), not result.get("success", False), events)
