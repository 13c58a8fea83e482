"""The compaction summary: its fixed frame, the prompt that asks a model for it, and its parsing.

Invariant 4: the summary says plainly that it is reference, not a new request. A weak model
otherwise re-executes old requests quoted in it, so the body sits between a prefix and an end
marker that points at the real next message. The prefix also identifies an earlier summary so
a second compression updates it instead of stacking a new one on top.
"""

from __future__ import annotations

from typing import Any

from engine.compression.pairs import Message
from engine.tokens import CHARS_PER_TOKEN, content_text

SUMMARY_PREFIX = (
    "[CONTEXT COMPACTION — REFERENCE ONLY] Earlier turns were compacted into the summary below. "
    "It is background, not a new request."
)
SUMMARY_END_MARKER = (
    "[END OF COMPACTED CONTEXT — respond to the message below, not the summary above]"
)
SUMMARY_SECTIONS = (
    "Task snapshot",
    "Goal",
    "Constraints & Preferences",
    "Completed Actions",
    "Active State",
    "In Progress",
    "Blocked",
    "Key Decisions",
    "Resolved Questions",
    "Pending User Asks",
    "Relevant Files",
    "Remaining Work",
    "Critical Context",
)
MERGE_SEPARATOR = "\n\n"  # between a summary and the content of the message it was merged into
RENDER_MESSAGE_CHARS = 8_000  # one message's share of the summarizer prompt, head and end kept


def wrap_summary(body: str) -> str:
    """The summary as it appears in the transcript: prefix, body, end marker."""
    return f"{SUMMARY_PREFIX}\n\n{body.strip()}\n\n{SUMMARY_END_MARKER}"


def split_summary(content: Any) -> tuple[str, str] | None:
    """``(body, rest)`` when ``content`` opens with a summary, else ``None``.

    ``rest`` is the content that follows the summary, exactly: non-empty when the summary was
    merged into the message after it (see ``seams``), even if that content is only whitespace.
    """
    if isinstance(content, list) and content:
        first = split_summary(content_text(content[:1]))
        return None if first is None else (first[0], content_text(content[1:]))
    text = content_text(content)
    if not text.startswith(SUMMARY_PREFIX):
        return None
    body, _, rest = text[len(SUMMARY_PREFIX):].partition(SUMMARY_END_MARKER)
    return body.strip(), rest.removeprefix(MERGE_SEPARATOR)


def is_summary_message(message: Message) -> bool:
    """True when the message is, or opens with, a compaction summary."""
    return split_summary(message.get("content")) is not None


def clean_model_summary(text: str) -> str:
    """A model's summary without any frame it echoed (so frames never nest)."""
    body = text.strip().removeprefix(SUMMARY_PREFIX)
    return body.replace(SUMMARY_END_MARKER, "").strip()


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    head = limit * 3 // 4
    return f"{text[:head]}\n[… {len(text) - limit:,} chars omitted …]\n{text[-(limit - head):]}"


def render_transcript(messages: list[Message]) -> str:
    """The turns to summarize as plain text, one block per message."""
    blocks = []
    for message in messages:
        role = message["role"]
        text = _clip(content_text(message.get("content")), RENDER_MESSAGE_CHARS)
        if role == "tool":
            label = " ".join(filter(None, ("TOOL RESULT", message.get("name"))))
            blocks.append(f"[{label}]: {text}")
            continue
        lines = [f"[{role.upper()}]: {text}"]
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            lines.append(f"  -> tool call {function.get('name', '')}({function.get('arguments', '')})")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def build_prompt(
    transcript: list[Message], *, previous_summary: str | None, focus: str | None, budget_tokens: int
) -> str:
    """The full instruction the summarizer model receives."""
    headings = "\n".join(f"## {name}" for name in SUMMARY_SECTIONS)
    parts = [
        "You are compacting the middle of a long conversation between a user and an AI assistant. "
        "Your summary replaces these turns, so the assistant must be able to continue the task "
        "from it alone. It is reference material for the assistant, not a new request.",
        "Write these sections, each under its Markdown heading, in this order; write \"None\" for "
        f"an empty one:\n{headings}",
        "Keep every file path, command, identifier, number, error message and user preference that "
        "still matters. Quote the user's requests accurately. Do not invent anything.",
        f"Target length: at most about {budget_tokens:,} tokens "
        f"(~{budget_tokens * CHARS_PER_TOKEN:,} characters).",
    ]
    if focus:
        parts.append(
            f"Focus topic: {focus}\nThe user asked for this compaction with that focus: give it "
            "priority and keep its details in full; summarize the rest more briefly."
        )
    if previous_summary:
        parts.append(
            "PREVIOUS SUMMARY (from an earlier compaction). Update it: keep what still holds, "
            "fold in the new turns below, move finished work to Completed Actions, drop what was "
            f"resolved. Return one merged summary.\n<previous-summary>\n{previous_summary}\n"
            "</previous-summary>"
        )
    parts.append(f"TURNS TO SUMMARIZE:\n<turns>\n{render_transcript(transcript)}\n</turns>")
    parts.append("Reply with the sections only.")
    return "\n\n".join(parts)
