"""Events the engine emits while it works; the UI (or the CLI) renders them.

The engine knows nothing of widgets: an ``Agent`` calls ``on_event(event)`` with one of these
frozen dataclasses, from whatever thread runs the turn. Consumers must not block for long.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Union


@dataclass(frozen=True)
class TurnStarted:
    session_id: str
    user_text: str


@dataclass(frozen=True)
class TextDelta:
    """A piece of the assistant's reply, already scrubbed of recall fences."""

    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolCallFinished:
    call_id: str
    name: str
    result: str
    duration_s: float
    is_error: bool = False


@dataclass(frozen=True)
class MemoryWritten:
    """A memory write reached disk (by the model, the user, or an approval)."""

    target: str
    action: str
    origin: str
    usage: str
    preview: str = ""


@dataclass(frozen=True)
class MemoryStaged:
    """A memory write waits in the approval queue."""

    pending_id: str
    summary: str
    origin: str


@dataclass(frozen=True)
class UsageUpdated:
    """Token figures after one provider call; totals are the session's so far."""

    prompt_tokens: int | None  # None: no call in this context has reported its size yet
    context_window: int
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_write_tokens: int
    api_calls: int


@dataclass(frozen=True)
class Notice:
    """Something the user should know that does not stop the turn (a provider timed out, …)."""

    message: str
    level: str = "warning"  # "information" | "warning" | "error"


@dataclass(frozen=True)
class TurnFailed:
    """The turn could not finish; the user message is kept and the turn can be retried."""

    message: str
    retryable: bool = True


@dataclass(frozen=True)
class TurnDone:
    reply: str
    finish_reason: str | None
    cancelled: bool = False


@dataclass(frozen=True)
class SessionSwitched:
    """The live session changed: compression rotation, branch, /new or resume."""

    old_session_id: str | None
    new_session_id: str
    reason: str  # "compression" | "branch" | "new" | "resume"
    title: str | None = None


@dataclass(frozen=True)
class CompressionDone:
    removed_messages: int
    tokens_before: int
    tokens_after: int
    used_fallback: bool


@dataclass(frozen=True)
class TitleChanged:
    session_id: str
    title: str


PHASE_KINDS = ("waiting", "streaming", "tool", "retrying", "compressing", "summarizing", "reviewing", "idle")


@dataclass(frozen=True)
class Phase:
    """What the engine is busy with from ``started_at`` on (``engine.clock``), so a UI can say
    what a long wait is and how long it has lasted; ``idle`` ends the lane's phase.

    Foreground phases belong to the running turn or session action; ``background`` ones (the
    memory review) run beside it and end on their own. ``detail`` is the tool's name (the
    model's text); ``attempt``/``attempts`` count model calls, and ``wait_s`` is how long a
    ``retrying`` phase sleeps before the next attempt.
    """

    kind: str  # one of PHASE_KINDS
    started_at: float
    detail: str = ""
    attempt: int = 0
    attempts: int = 0
    wait_s: float = 0.0
    background: bool = False


@dataclass(frozen=True)
class Recap:
    """A short recap of the last exchanges shown when a session is resumed."""

    session_id: str
    exchanges: tuple[tuple[str, str], ...] = field(default_factory=tuple)


EngineEvent = Union[
    TurnStarted,
    TextDelta,
    ToolCallStarted,
    ToolCallFinished,
    MemoryWritten,
    MemoryStaged,
    UsageUpdated,
    Notice,
    TurnFailed,
    TurnDone,
    SessionSwitched,
    CompressionDone,
    TitleChanged,
    Phase,
    Recap,
]

# What an ``Agent`` reports to: the UI's bridge, the command line's printer.
OnEvent = Callable[[EngineEvent], None]
