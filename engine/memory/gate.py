"""The write-approval gate (``memory.write_approval``) for the *model's* memory writes.

Off: writes apply. On: a foreground write asks the user through ``ask`` (the UI supplies it; the
engine only defines the request/decision types, so no UI code lives here); without ``ask``, or for
a background-review write, the write is staged as a pending record. The user's own edits never
pass through this gate: they are the user's approval.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass
from typing import Callable

from engine.memory.history import Cause
from engine.memory.pending import PendingQueue, PendingRecord, summarize

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ApprovalRequest:
    """What the UI shows when asking: the write and a one-line summary."""

    action: str
    target: str
    content: str | None
    old_text: str | None
    summary: str


class ApprovalDecision(enum.Enum):
    ALLOW_ONCE = "once"
    ALLOW_SESSION = "session"
    DENY = "deny"
    STAGE = "stage"  # also what the UI returns on timeout


@dataclass(frozen=True)
class GateOutcome:
    """``allow`` → do the write; ``record`` set → staged; otherwise denied."""

    allow: bool
    record: PendingRecord | None = None


class MemoryWriteGate:
    """Decides per write; remembers "allow for this session" for its own lifetime."""

    def __init__(
        self,
        queue: PendingQueue,
        *,
        approval_enabled: bool,
        ask: Callable[[ApprovalRequest], ApprovalDecision] | None = None,
    ) -> None:
        self.queue = queue
        self.approval_enabled = approval_enabled
        self.ask = ask
        self.session_allowed = False

    def check(self, payload: dict, *, origin: str, cause: Cause | None = None) -> GateOutcome:
        """``cause``: who proposes the write, kept in the history when it is staged."""
        if not self.approval_enabled:
            return GateOutcome(allow=True)
        if origin == "foreground" and self.ask is not None:
            if self.session_allowed:
                return GateOutcome(allow=True)
            decision = self._ask(payload)
            if decision is ApprovalDecision.ALLOW_SESSION:
                self.session_allowed = True
            if decision in (ApprovalDecision.ALLOW_ONCE, ApprovalDecision.ALLOW_SESSION):
                return GateOutcome(allow=True)
            if decision is ApprovalDecision.DENY:
                return GateOutcome(allow=False)
        return GateOutcome(allow=False, record=self.queue.stage(payload, origin=origin, cause=cause))

    def _ask(self, payload: dict) -> ApprovalDecision:
        request = ApprovalRequest(
            action=payload["action"],
            target=payload["target"],
            content=payload.get("content"),
            old_text=payload.get("old_text"),
            summary=summarize(payload),
        )
        try:
            decision = self.ask(request)  # type: ignore[misc]
        except Exception:  # a broken prompt must delay the write, never drop or force it
            log.exception("memory approval prompt failed; staging the write")
            return ApprovalDecision.STAGE
        return decision if isinstance(decision, ApprovalDecision) else ApprovalDecision.STAGE
