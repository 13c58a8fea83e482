"""Where the summary goes: between head and tail, in a role that never repeats its neighbour's.

Rule (deterministic): the summary is a ``user`` message unless a neighbour is a user message,
then an ``assistant`` message unless a neighbour is an assistant message. When the neighbours are
one of each (user | assistant or assistant | user), no separate message can avoid a clash, so
the summary is merged into the first tail message, ahead of its own content: the head stays
byte-identical and the tail message keeps its role and its text after the end marker.
"""

from __future__ import annotations

from engine.compression.pairs import Message
from engine.compression.summary import MERGE_SEPARATOR


def _prepend(summary: str, content: object) -> object:
    if isinstance(content, list):
        return [{"type": "text", "text": summary}, *content]
    return summary if content is None else f"{summary}{MERGE_SEPARATOR}{content}"


def place_summary(head: list[Message], summary: str, tail: list[Message]) -> list[Message]:
    """``head + [summary] + tail`` with the summary in a non-clashing role (or merged)."""
    neighbours = {m["role"] for m in (head[-1:] + tail[:1])}
    for role in ("user", "assistant"):
        if role not in neighbours:
            return [*head, {"role": role, "content": summary}, *tail]
    merged = {**tail[0], "content": _prepend(summary, tail[0].get("content"))}
    return [*head, merged, *tail[1:]]
