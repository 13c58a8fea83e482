"""Plain records the store hands out, so callers never see sqlite rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterator

from engine.tokens import content_text

# Snippet highlight markers: plain ASCII so ``--json`` output stays readable, and distinctive
# enough that the formatting helpers can turn them into styled spans.
MATCH_START = ">>>"
MATCH_END = "<<<"


@dataclass
class Session:
    """One row of ``sessions`` with the columns this project reads (unknown columns stay in the db)."""

    id: str
    source: str
    title: str | None = None
    model: str | None = None
    system_prompt: str | None = None
    parent_session_id: str | None = None
    started_at: float = 0.0
    ended_at: float | None = None
    end_reason: str | None = None
    message_count: int = 0
    tool_call_count: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    api_call_count: int = 0
    cwd: str | None = None
    last_active: float = 0.0
    model_config: dict[str, Any] | None = None
    preview: str | None = None  # the first user message, for listings
    # Fields whose stored cell was not of its type (another program wrote a BLOB title, a text
    # start time …): they hold a neutral value here, are shown as unreadable and are null in JSON.
    unreadable: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """The ``sessions list --json`` object (the system prompt is left out: it is bulky)."""
        record = {
            "id": self.id,
            "title": self.title,
            "source": self.source,
            "model": self.model,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "end_reason": self.end_reason,
            "parent_session_id": self.parent_session_id,
            "message_count": self.message_count,
            "tool_call_count": self.tool_call_count,
            "last_active": self.last_active,
            "preview": self.preview,
            "cwd": self.cwd,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }
        if self.unreadable:
            record.update(dict.fromkeys((k for k in self.unreadable if k in record), None))
            record["unreadable"] = list(self.unreadable)
        return record


@dataclass
class StoredMessage:
    """One row of ``messages``; ``content`` decoded (text, or upstream's list/dict parts) and
    ``tool_calls`` parsed from their JSON text."""

    id: int
    session_id: str
    role: str
    content: str | list[Any] | dict[str, Any] | None
    timestamp: float | None  # None: the stored cell is not a time (another program's text, a BLOB)
    tool_call_id: str | None = None
    tool_calls: list[dict[str, Any]] | None = None
    tool_name: str | None = None
    finish_reason: str | None = None
    reasoning: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The canonical (OpenAI chat) message dict, absent keys omitted."""
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = self.tool_calls
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.tool_name is not None:
            out["name"] = self.tool_name
        if self.reasoning is not None:
            out["reasoning"] = self.reasoning
        if self.finish_reason is not None:
            out["finish_reason"] = self.finish_reason
        out["timestamp"] = self.timestamp
        return out

    @property
    def text(self) -> str:
        """The content as text for display (multimodal parts as ``[image]``-style markers)."""
        return content_text(self.content)


@dataclass
class SearchHit:
    """One matching message; ``snippet`` marks matches with MATCH_START/MATCH_END.

    ``rank`` is the 1-based position in the result (best first), not a bm25 score: asking FTS5
    for the score costs a second scoring pass per row.
    """

    session_id: str
    lineage_root: str
    title: str | None
    message_id: int
    role: str
    snippet: str
    timestamp: float
    rank: int
    # As on Session: a stored time that is not one is 0.0 here (so hits still sort, oldest last),
    # named in ``unreadable`` and null in JSON.
    unreadable: tuple[str, ...] = ()

    @property
    def known_timestamp(self) -> float | None:
        """The time to show: None when the stored cell was not a time."""
        return None if "timestamp" in self.unreadable else self.timestamp

    def to_json(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "lineage_root": self.lineage_root,
            "title": self.title,
            "message_id": self.message_id,
            "role": self.role,
            "snippet": self.snippet,
            "timestamp": self.known_timestamp,
        }


@dataclass
class TreeNode:
    """A session and its children (continuations and branches), oldest child first."""

    session: Session
    children: list["TreeNode"] = field(default_factory=list)

    def walk(self) -> Iterator["TreeNode"]:
        """This node and every node below it, depth first."""
        yield self
        for child in self.children:
            yield from child.walk()

    def to_json(self) -> dict[str, Any]:
        s = self.session
        return {
            "id": s.id,
            "title": s.title,
            "end_reason": s.end_reason,
            "started_at": s.started_at,
            "message_count": s.message_count,
            "children": [c.to_json() for c in self.children],
        }
