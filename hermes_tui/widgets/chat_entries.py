"""Chat items as plain data: what the chat log keeps for every item, mounted or not."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.providers.types import call_result_id
from engine.tokens import content_text

if TYPE_CHECKING:
    from textual.content import Content


@dataclass
class Entry:
    """One chat item as data: what the log remounts when older items are scrolled back into view."""

    kind: str  # user | assistant | tool | notice | info | report | error
    text: str = ""
    name: str = ""
    arguments: str = ""
    result: str | None = None
    duration_s: float | None = None
    is_error: bool = False
    level: str = "information"
    cancelled: bool = False
    retryable: bool = False
    call_id: str = ""
    report: "Content | None" = None  # a "report": app output holding data, already literal
    # The lines its widget last drew, kept when it is unmounted so scrolling back to it does not
    # render its Markdown again; the widget checks they were drawn from this text at this width.
    drawn: tuple | None = field(default=None, compare=False, repr=False)  # ``AssistantMessage.drawn``


def entries_from_transcript(messages: list[dict]) -> list[Entry]:
    """A stored transcript as chat items: tool results folded into their call's block."""
    entries: list[Entry] = []
    calls: dict[str, Entry] = {}
    for message in messages:
        role, text = message.get("role"), content_text(message.get("content"))
        if role == "user":
            entries.append(Entry("user", text=text))
        elif role == "assistant":
            if text:
                entries.append(Entry("assistant", text=text, cancelled=message.get("finish_reason") == "cancelled"))
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                entry = Entry("tool", name=function.get("name", ""), arguments=function.get("arguments", ""),
                              call_id=call_result_id(call))  # what its result names (Responses-style too)
                calls[entry.call_id] = entry
                entries.append(entry)
        elif role == "tool" and message.get("tool_call_id") in calls:
            calls[message["tool_call_id"]].result = text
    return entries
