"""The inline memory-write prompt: Allow once / Allow for this session / Deny.

A choice must be a deliberate act on a prompt the user has seen, never a keystroke meant for
something else. So the prompt takes focus only once the user has stopped typing (``idle``
seconds since the last key anywhere), and it shows that it has taken it; for a short ``grace``
period after that, keys are not taken as choices. Only its own keys choose (1/2/3, or ←/→ and
then enter); any other printable key is typing, and goes to the chat prompt (the main screen
moves focus there). When nobody answers it stages the write (never loses it), and it resolves
the agent's Future exactly once, whatever happens.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Callable

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from engine.memory import ApprovalDecision, ApprovalRequest
from hermes_tui.widgets.literal import literal, literal_line

GRACE_SECONDS = 0.5
IDLE_SECONDS = 1.0
TIMEOUT_SECONDS = 120.0
POLL_SECONDS = 0.1

CHOICES: tuple[tuple[str, str, ApprovalDecision], ...] = (
    ("1", "Allow once", ApprovalDecision.ALLOW_ONCE),
    ("2", "Allow for this session", ApprovalDecision.ALLOW_SESSION),
    ("3", "Deny", ApprovalDecision.DENY),
)
NAVIGATION_KEYS = ("left", "right", "tab", "shift+tab")


@dataclass(frozen=True)
class ApprovalTiming:
    """How the inline prompt waits: for a pause in typing, through a grace period, then it stages."""

    grace: float = GRACE_SECONDS  # keys ignored this long after the prompt takes focus
    idle: float = IDLE_SECONDS  # it takes focus once no key came for this long
    timeout: float = TIMEOUT_SECONDS  # unanswered this long: the write is staged


def describe_request(request: ApprovalRequest) -> Content:
    """What would change: the old text (replace/remove) in red, the new text in green."""
    lines = []
    if request.old_text:
        lines.append(literal(f"- {request.old_text}", "$text-error"))
    if request.content and request.action != "remove":
        lines.append(literal(f"+ {request.content}", "$text-success"))
    return Content("\n").join(lines)


class ApprovalPrompt(Vertical, can_focus=True):
    """Waits for the user to stop typing, then takes focus; 1/2/3 or ←/→ + enter choose; escape
    stages the write for later."""

    def __init__(
        self,
        request: ApprovalRequest,
        future: Future,
        *,
        last_key_at: Callable[[], float],
        timing: ApprovalTiming = ApprovalTiming(),
    ) -> None:
        super().__init__(id="approval-prompt")
        self.request = request
        self.future = future
        self.last_key_at = last_key_at
        self.grace = timing.grace
        self.idle = timing.idle
        self.timeout = timing.timeout
        self.selected: int | None = None  # enter chooses only what the arrows picked
        self._focused_at: float | None = None
        self._return_focus: Widget | None = None

    def compose(self) -> ComposeResult:
        verb = self.request.summary.partition(":")[0]  # "add to memory", "replace in user", …
        yield Static(literal_line(f"The model wants to {verb}", "bold"), classes="approval-title")
        yield Static(describe_request(self.request), classes="approval-summary")
        yield Static("", classes="approval-choices")
        yield Static("", classes="approval-help")

    def on_mount(self) -> None:
        self._return_focus = self.app.focused  # typing resumes where it was once answered
        self._render_choices()
        self.set_timer(self.timeout, self._expire)
        self.set_interval(POLL_SECONDS, self._take_focus_when_idle)
        self._take_focus_when_idle()

    @property
    def active(self) -> bool:
        """Focused and shown as such: the only state in which a key can choose."""
        return self._focused_at is not None and self.has_focus

    @property
    def in_grace(self) -> bool:
        return self._focused_at is None or time.monotonic() - self._focused_at < self.grace

    @staticmethod
    def answers(key: str) -> bool:
        """The printable keys this prompt keeps while focused: its choices (taken, or swallowed
        in flight); every other one is text for the chat's prompt."""
        return any(key == choice for choice, _, _ in CHOICES)

    def _take_focus_when_idle(self) -> None:
        if self.has_focus or self.future.done():
            return
        if time.monotonic() - self.last_key_at() >= self.idle:
            self._focused_at = time.monotonic()
            self.focus()

    def on_focus(self) -> None:
        self._focused_at = self._focused_at or time.monotonic()
        self._render_help(focused=True)

    def on_blur(self) -> None:
        self._focused_at = None  # focus taken back by typing: it is earned again after a pause
        self._render_help(focused=False)

    def _render_choices(self) -> None:
        parts: list[Content | str] = []
        for index, (key, label, _) in enumerate(CHOICES):
            text = f" {key} {label} "
            parts.append(Content.styled(text, "reverse") if index == self.selected else text)
        self.query_one(".approval-choices", Static).update(Content("  ").join(parts))
        self._render_help(focused=self.has_focus)

    def _render_help(self, *, focused: bool) -> None:
        """Taking focus shows: a heavier border, and the keys that now choose."""
        self.set_class(focused, "-active")
        if focused:
            text = f"1/2/3, or ←/→ then enter · esc: decide later · staged after {self.timeout:.0f}s"
        else:
            text = "Finish typing: this prompt takes focus when you pause"
        self.query_one(".approval-help", Static).update(Content.styled(text, "dim"))

    def on_key(self, event: events.Key) -> None:
        if event.key == "escape":
            self._consume(event)
            self.resolve(ApprovalDecision.STAGE)
            return
        keys = {key: index for index, (key, _, _) in enumerate(CHOICES)}
        if self.in_grace or not self.active:
            if event.key in keys or event.key in NAVIGATION_KEYS or event.key == "enter":
                self._consume(event)  # in flight, not a choice; printable text still reaches the prompt
            return
        if event.key in keys:
            self._consume(event)
            self.selected = keys[event.key]
            self.resolve(self._decision())
        elif event.key in NAVIGATION_KEYS:
            self._consume(event)
            step = 1 if event.key in ("right", "tab") else -1
            if self.selected is None:
                self.selected = 0 if step > 0 else len(CHOICES) - 1
            else:
                self.selected = (self.selected + step) % len(CHOICES)
            self._render_choices()
        elif event.key == "enter":
            self._consume(event)
            if self.selected is not None:
                self.resolve(self._decision())

    @staticmethod
    def _consume(event: events.Key) -> None:
        event.stop()
        event.prevent_default()

    def _decision(self) -> ApprovalDecision:
        assert self.selected is not None
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
