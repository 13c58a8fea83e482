"""The inline memory-write prompt: Allow once / Allow for this session / Deny.

Keys are ignored for a short grace period after it appears, so a keystroke already in flight
(the user was typing) cannot approve by accident; when nobody answers, it stages the write
(never loses it). It resolves the agent's Future exactly once, whatever happens.
"""

from __future__ import annotations

import time
from concurrent.futures import Future

from rich.markup import escape
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from engine.memory import ApprovalDecision, ApprovalRequest

GRACE_SECONDS = 0.5
TIMEOUT_SECONDS = 120.0

CHOICES: tuple[tuple[str, str, ApprovalDecision], ...] = (
    ("1", "Allow once", ApprovalDecision.ALLOW_ONCE),
    ("2", "Allow for this session", ApprovalDecision.ALLOW_SESSION),
    ("3", "Deny", ApprovalDecision.DENY),
)


def describe_request(request: ApprovalRequest) -> str:
    """What would change: the old text (replace/remove) in red, the new text in green."""
    lines = []
    if request.old_text:
        lines.append(f"[$text-error]- {escape(request.old_text)}[/]")
    if request.content and request.action != "remove":
        lines.append(f"[$text-success]+ {escape(request.content)}[/]")
    return "\n".join(lines)


class ApprovalPrompt(Vertical, can_focus=True):
    """Focused while shown; 1/2/3 or ←/→ + enter choose; escape stages the write for later."""

    def __init__(
        self,
        request: ApprovalRequest,
        future: Future,
        *,
        grace: float = GRACE_SECONDS,
        timeout: float = TIMEOUT_SECONDS,
    ) -> None:
        super().__init__(id="approval-prompt")
        self.request = request
        self.future = future
        self.grace = grace
        self.timeout = timeout
        self.selected = 0
        self._shown_at = 0.0
        self._return_focus: Widget | None = None

    def compose(self) -> ComposeResult:
        verb = self.request.summary.partition(":")[0]  # "add to memory", "replace in user", …
        yield Static(f"[b]The model wants to {escape(verb)}[/]", classes="approval-title")
        yield Static(describe_request(self.request), classes="approval-summary")
        yield Static("", classes="approval-choices")
        yield Static(
            f"[dim]1/2/3 or ←/→ enter · esc: decide later · staged after {self.timeout:.0f}s[/]",
            classes="approval-help",
        )

    def on_mount(self) -> None:
        self._shown_at = time.monotonic()
        self._render_choices()
        self.set_timer(self.timeout, self._expire)
        self._return_focus = self.app.focused  # typing resumes where it was once answered
        self.focus()

    def _render_choices(self) -> None:
        parts = []
        for index, (key, label, _) in enumerate(CHOICES):
            text = f" {key} {label} "
            parts.append(f"[reverse]{text}[/]" if index == self.selected else text)
        self.query_one(".approval-choices", Static).update("  ".join(parts))

    @property
    def in_grace(self) -> bool:
        return time.monotonic() - self._shown_at < self.grace

    def on_key(self, event: events.Key) -> None:
        event.stop()
        event.prevent_default()
        if event.key == "escape":
            self.resolve(ApprovalDecision.STAGE)
            return
        if self.in_grace:
            return
        keys = {key: index for index, (key, _, _) in enumerate(CHOICES)}
        if event.key in keys:
            self.selected = keys[event.key]
            self.resolve(self._decision())
        elif event.key in ("left", "right", "tab", "shift+tab"):
            step = 1 if event.key in ("right", "tab") else -1
            self.selected = (self.selected + step) % len(CHOICES)
            self._render_choices()
        elif event.key == "enter":
            self.resolve(self._decision())

    def _decision(self) -> ApprovalDecision:
        return CHOICES[self.selected][2]

    def _expire(self) -> None:
        self.resolve(ApprovalDecision.STAGE)

    def resolve(self, decision: ApprovalDecision) -> None:
        """Answer the agent (once) and go away."""
        if not self.future.done():
            self.future.set_result(decision)
        if self._return_focus is not None and self._return_focus.is_mounted:
            self._return_focus.focus()
        if self.is_mounted:
            self.remove()

    def on_unmount(self) -> None:
        """Leaving without an answer (app closing, screen switched) stages the write."""
        if not self.future.done():
            self.future.set_result(ApprovalDecision.STAGE)
