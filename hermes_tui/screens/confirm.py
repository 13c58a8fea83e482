"""A yes/no dialog over any screen, for actions that cannot be taken back lightly.

The question names what will happen (how many records, which session); it holds data, so it
arrives as literal content. Anything but y (and enter, where yes is the default) keeps things as
they are. With ``grace``, keys
are ignored for that long after the dialog appears, so a keystroke already in flight cannot
answer a question nobody has read yet.
"""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from hermes_tui.screens.frame_pacing import PromptFrames


class Confirm(PromptFrames, ModalScreen[bool]):
    """``dismiss(True)`` on y (after the grace period), ``dismiss(False)`` on n/escape; enter answers
    the default."""

    DEFAULT_CSS = """
    Confirm { align: center middle; }
    Confirm > #confirm-text { width: 80; max-width: 90%; height: auto; max-height: 80%;
                              background: $panel; border: thick $error; padding: 1 2; }
    """
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n,escape", "answer(False)", "No"),
                Binding("enter", "default", "Default")]

    def __init__(self, question: Content, *, yes: str, no: str, grace: float = 0.0, default: bool = True) -> None:
        """``default``: what enter answers; ``False`` where yes destroys something (a delete)."""
        super().__init__()
        self.question = question
        self.yes, self.no = yes, no
        self.grace = grace
        self.default = default
        self._shown_at = time.monotonic()

    def compose(self) -> ComposeResult:
        yes_keys, no_keys = ("y / enter", "n / escape") if self.default else ("y", "n / escape / enter")
        hint = Content.styled(f"{yes_keys}: {self.yes}    {no_keys}: {self.no}", "bold")
        yield Static(Content.assemble(self.question, "\n\n", hint), id="confirm-text")

    def on_mount(self) -> None:
        self._shown_at = time.monotonic()

    def action_default(self) -> None:
        self.action_answer(self.default)

    def action_answer(self, yes: bool) -> None:
        if yes and time.monotonic() - self._shown_at < self.grace:
            return
        self.dismiss(yes)
