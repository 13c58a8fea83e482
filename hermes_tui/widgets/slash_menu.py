"""The list that opens when a prompt starts with ``/``: the matching commands and what they do.

It filters as the user types and never takes focus: the prompt keeps the keyboard and drives the
list (up/down move, tab or enter take the highlighted command, escape closes it for this text).
Rows come from our own command table, so they are styled content, not data.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from hermes_tui.slash_commands import SlashCommand, SlashRegistry


class SlashMenu(OptionList, can_focus=False):
    """Commands matching the prompt's text; empty and hidden when none match."""

    def __init__(self, registry: SlashRegistry, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.registry = registry
        self.commands: list[SlashCommand] = []
        self._closed_for: str | None = None  # escape closed the list while the prompt held this text
        self.display = False

    @property
    def is_open(self) -> bool:
        return self.display and bool(self.commands)

    def filter(self, text: str) -> None:
        """Show the commands for ``text`` (what the prompt holds), the best match highlighted."""
        if text != self._closed_for:
            self._closed_for = None
        self.commands = [] if self._closed_for is not None else self.registry.matching(text)
        width = max((len(c.name) for c in self.commands), default=0) + 1
        self.set_options(Option(row(c, width)) for c in self.commands)
        self.display = bool(self.commands)
        if self.commands:
            self.highlighted = 0

    def move(self, delta: int) -> None:
        if self.commands:
            self.highlighted = ((self.highlighted or 0) + delta) % len(self.commands)

    @property
    def chosen(self) -> SlashCommand | None:
        index = self.highlighted
        return self.commands[index] if self.is_open and index is not None else None

    def close(self, text: str) -> None:
        """Escape: hidden until the prompt's text changes."""
        self._closed_for = text
        self.filter(text)


def row(command: SlashCommand, width: int) -> Content:
    """``/name   summary``, names padded to one column."""
    return Content.assemble((f"/{command.name}".ljust(width + 1), "bold $text-success"), " ",
                            (command.summary, "$text-muted"))
