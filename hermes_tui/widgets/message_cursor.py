"""A cursor over the chat's items, so any message — not only the last reply — can be copied.

The chat log moves it with up/down while it has focus; the selected item carries ``-selected``
(styled only while the log has focus). What is copied is the item's text as stored — the
reply's Markdown source, a tool call's arguments and result — with control characters made
visible by the app before it reaches the clipboard.
"""

from __future__ import annotations

from textual.widget import Widget

from hermes_tui.widgets.chat_entries import Entry

SELECTED = "-selected"


def entry_text(entry: Entry) -> str:
    """The text of one chat item, as a person would paste it."""
    if entry.kind == "tool":
        return "\n".join(part for part in (f"{entry.name} {entry.arguments}".strip(), entry.result or "") if part)
    if entry.report is not None:
        return entry.report.plain
    return entry.text


class MessageCursor:
    """The selected item of ``log`` (a chat log whose item widgets carry their ``entry``)."""

    def __init__(self, log: Widget) -> None:
        self.log = log
        self.widget: Widget | None = None

    def _items(self) -> list[Widget]:
        return [child for child in self.log.children if isinstance(getattr(child, "entry", None), Entry)]

    def move(self, delta: int) -> None:
        """Select the item ``delta`` away (the newest first, when none is selected) and show it."""
        items = self._items()
        if not items:
            return
        current = self.widget if self.widget in items else None
        if current is None:
            index = len(items) - 1
        else:
            index = max(0, min(len(items) - 1, items.index(current) + delta))
        self.select(items[index])

    def select(self, widget: Widget) -> None:
        if self.widget is not None:
            self.widget.remove_class(SELECTED)
        self.widget = widget
        widget.add_class(SELECTED)
        self.log.scroll_to_widget(widget, animate=False)

    @property
    def entry(self) -> Entry | None:
        widget = self.widget
        if widget is None or widget not in self._items():
            return None
        return getattr(widget, "entry", None)
