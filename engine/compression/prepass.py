"""The cheap pre-pass over the turns about to be summarized.

Old tool outputs are most of a long agent transcript and matter least once acted upon, so before
anything is sent to the summarizer they become one-line notes, repeats collapse to a reference
and long call arguments are cut. The input list and its messages are never modified.
"""

from __future__ import annotations

from engine.compression.pairs import Message
from engine.tokens import content_text

KEEP_OUTPUT_CHARS = 200  # a tool output this short is kept verbatim
DEDUP_MIN_CHARS = 40  # shorter repeats ("ok", "[]") are cheaper than a reference to them
KEEP_ARGUMENT_CHARS = 300
FIRST_LINE_CHARS = 120


def _first_line(text: str) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= FIRST_LINE_CHARS else line[: FIRST_LINE_CHARS - 1] + "…"


def _short_arguments(arguments: str) -> str:
    if len(arguments) <= KEEP_ARGUMENT_CHARS:
        return arguments
    return f"{arguments[:KEEP_ARGUMENT_CHARS]}…[truncated, {len(arguments):,} chars]"


def _shorten_calls(message: Message) -> Message:
    calls = []
    for call in message["tool_calls"]:
        function = dict(call.get("function") or {})
        function["arguments"] = _short_arguments(str(function.get("arguments", "")))
        calls.append({**call, "function": function})
    return {**message, "tool_calls": calls}


def prepass(messages: list[Message]) -> list[Message]:
    """Copies of ``messages`` with tool outputs one-lined or deduplicated and arguments cut."""
    names = {
        call["id"]: (call.get("function") or {}).get("name", "")
        for message in messages
        if message.get("role") == "assistant"
        for call in message.get("tool_calls") or ()
    }
    seen: dict[str, str] = {}  # output text -> name of the tool that first returned it
    out: list[Message] = []
    for message in messages:
        if message.get("tool_calls"):
            out.append(_shorten_calls(message))
            continue
        if message.get("role") != "tool":
            out.append(message)
            continue
        text = content_text(message.get("content"))
        name = message.get("name") or names.get(message.get("tool_call_id", "")) or "a tool"
        if len(text) >= DEDUP_MIN_CHARS and text in seen:
            note = f"[tool output of {name}: identical to an earlier output of {seen[text]}]"
        elif len(text) > KEEP_OUTPUT_CHARS:
            note = f"[tool output of {name}: {len(text):,} chars, first line: {_first_line(text)}]"
        else:
            note = text
        seen.setdefault(text, name)
        out.append({**message, "content": note})
    return out
