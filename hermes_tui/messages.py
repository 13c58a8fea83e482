"""App-wide Textual messages, in one place so the flow between widgets is easy to follow."""

from __future__ import annotations

from concurrent.futures import Future
from dataclasses import dataclass
from textual.message import Message

from engine.memory import ApprovalRequest


@dataclass
class PromptSubmitted(Message):
    """The user pressed enter in the prompt: a message or a slash command."""

    text: str


@dataclass
class ChatScrollRequested(Message):
    """A scroll key pressed in the prompt is meant for the chat: ``where`` is "page_up",
    "page_down", "top" or "bottom"."""

    where: str


@dataclass
class CopyRequested(Message):
    """Put ``text`` on the clipboard; ``what`` names it in the confirmation ("the last reply")."""

    text: str
    what: str


@dataclass
class RetryRequested(Message):
    """Run the last user message again after a failed turn."""


@dataclass
class ApprovalRequested(Message):
    """The model wants to write memory; the UI resolves ``future`` with an ApprovalDecision.

    The agent's worker thread blocks on the future, so whatever happens (a choice, the timeout,
    the turn being cancelled) it must be resolved exactly once.
    """

    request: ApprovalRequest
    future: Future


@dataclass
class PendingChanged(Message):
    """The approval queue on disk changed (approve, reject, a new staged write)."""


@dataclass
class MemoryOutcome(Message):
    """What a memory decision or edit did (approved, rejected, undone, refused): said in the chat,
    where every command's result goes, whether it came from a key in the queue or a /memory command."""

    text: str
    level: str = "information"  # information | error


@dataclass
class TextArrived(Message):
    """Reply text is waiting in the event bridge's buffer (posted once per batch, from a thread)."""


@dataclass
class MemoryHistoryRequested(Message):
    """Show where memory entries came from (the memory panel's key); ``target`` is preselected,
    and ``entry`` (at ``index`` of that file) when one was chosen."""

    target: str | None = None
    entry: str | None = None
    index: int | None = None
